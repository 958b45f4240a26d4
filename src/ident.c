#include "ident.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "cnames.h"
#include "kconfig.h"
#include "fs.h"

/* Quoted includes are followed this deep (a header that includes one). */
#define INCLUDE_DEPTH 3

static const char *const c_exts[] = { ".c", ".h", NULL };
static const char *const h_exts[] = { ".h", NULL };

/* One text's names, kept per blob id. */
struct ident_blob {
	struct tree_oid id;
	struct watch_set names; /* every name it uses or declares */
	struct watch_set decls; /* the names it declares */
	struct watch_set locals; /* its locals, parameters and labels */
	char **pastes;          /* "trace_*", "*_enabled" */
	size_t nr_pastes, alloc_pastes;
	char **quoted;          /* its #include "..." lines */
	size_t nr_quoted, alloc_quoted;
	char **angled;          /* its #include <...> lines */
	size_t nr_angled, alloc_angled;
};

/*
 * A large set of names as sorted 64-bit hashes: the shared headers declare
 * some 300,000 names, read from the cache on every run.  The cache file is
 * mapped, not parsed: the array is searched where it lies.  Two names of
 * one hash (odds about 300,000^2 / 2^65, 1 in 4*10^8 per tree) would let a
 * missing name pass as present: a risk not flagged, never a wrong tree.
 */
struct names {
	const uint64_t *v; /* sorted, unique */
	size_t nr;
	uint64_t *own;     /* built in this run, or NULL */
	void *map;         /* mapped from the cache, or NULL */
	size_t map_len;
};

/* FNV-1a, then a final mix so that the high bits spread too. */
static uint64_t name_hash(const char *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)p[i];
		h *= 0x100000001b3ULL;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void names_release(struct names *n)
{
	free(n->own);
	if (n->map)
		munmap(n->map, n->map_len);
	memset(n, 0, sizeof(*n));
}

/* The hashes of a set built unsorted (a watch_set), into n. */
static void names_from_set(struct names *n, const struct watch_set *set)
{
	uint64_t *v = xcalloc(watch_set_count(set) + 1, sizeof(*v));
	const struct watch_set_entry *e;
	size_t k = 0, u = 0, pos = 0;

	while ((e = watch_set_next(set, &pos)))
		v[k++] = name_hash(e->name, strlen(e->name));
	qsort(v, k, sizeof(*v), cmp_u64);
	for (size_t i = 0; i < k; i++)
		if (!u || v[u - 1] != v[i])
			v[u++] = v[i];
	names_release(n);
	n->own = v;
	n->v = v;
	n->nr = u;
}

static bool names_has(const struct names *n, const char *p, size_t len)
{
	uint64_t h = name_hash(p, len);
	size_t lo = 0, hi = n->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (n->v[mid] == h)
			return true;
		if (n->v[mid] < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

struct ident_index {
	struct tree_repo *repo;
	char *cache;               /* where shared sets are kept, or NULL */
	struct ident_blob **slots; /* open addressing by blob id */
	size_t cap, nr;
	bool shared_built;
	struct names shared;       /* what the shared headers declare */
	char **shared_pastes;
	size_t nr_shared_pastes, alloc_shared_pastes;
	/* the stems of the shared pastes "P*" and "*S", and how many of
	 * them are in the sets */
	struct watch_set paste_pre, paste_suf;
	size_t nr_indexed_pastes;
	bool listed;               /* all_headers read (for search by name) */
	char **all_headers;
	size_t nr_all_headers;
	bool arches_read;
	char **arches;
	size_t nr_arches;
	/* <...> includes looked for: found (kind WATCH_ANY) or not
	 * (WATCH_MACRO); a series seldom adds a shared header */
	struct watch_set angled;
	/* the -D macros of the makefiles every file is built with: the top
	 * Makefile and Kbuild, scripts/Makefile*, arch/<arch>/Makefile */
	bool kbuild_read;
	struct kconfig_set kbuild;
};

static void strv_add(char ***v, size_t *nr, size_t *alloc, char *s)
{
	ALLOC_GROW(*v, *nr + 1, *alloc);
	(*v)[(*nr)++] = s;
}

static void strv_free(char **v, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(v[i]);
	free(v);
}

static void blob_free(struct ident_blob *b)
{
	if (!b)
		return;
	watch_set_release(&b->names);
	watch_set_release(&b->decls);
	watch_set_release(&b->locals);
	strv_free(b->pastes, b->nr_pastes);
	strv_free(b->quoted, b->nr_quoted);
	strv_free(b->angled, b->nr_angled);
	free(b);
}

/* The names of one text (not C: none). */
static struct ident_blob *blob_scan(const struct tree_oid *id, const char *path,
				    const char *text, size_t len)
{
	struct ident_blob *b = xcalloc(1, sizeof(*b));
	struct cnames c;
	struct err err = ERR_INIT;

	if (id)
		b->id = *id;
	watch_set_init(&b->names);
	watch_set_init(&b->decls);
	watch_set_init(&b->locals);
	cnames_init(&c);
	if (cnames_scan(&c, path, text, len, 0, &err) == 0) {
		for (size_t i = 0; i < c.nr; i++) {
			const char *name = c.ids[i].name;
			size_t n = c.ids[i].len;

			watch_set_add_n(&b->names, name, n, WATCH_ANY);
			if (c.ids[i].kind == CNAMES_ID_DECL &&
			    (c.ids[i].decl == CNAMES_DECL_LOCAL ||
			     c.ids[i].decl == CNAMES_DECL_LABEL))
				watch_set_add_n(&b->locals, name, n,
						WATCH_ANY);
			else if (c.ids[i].kind == CNAMES_ID_DECL)
				watch_set_add_n(&b->decls, name, n,
						WATCH_ANY);
		}
		for (size_t i = 0; i < c.nr_pastes; i++)
			strv_add(&b->pastes, &b->nr_pastes, &b->alloc_pastes,
				 xstrdup(c.pastes[i]));
		for (size_t i = 0; i < c.nr_includes; i++) {
			char *inc = xstrndup(c.includes[i].path,
					     c.includes[i].len);

			if (c.includes[i].angle)
				strv_add(&b->angled, &b->nr_angled,
					 &b->alloc_angled, inc);
			else
				strv_add(&b->quoted, &b->nr_quoted,
					 &b->alloc_quoted, inc);
		}
	}
	err_release(&err);
	cnames_release(&c);
	return b;
}

static size_t slot_of(const struct tree_oid *id, size_t cap)
{
	size_t h = 0;

	memcpy(&h, id->id, sizeof(h));
	return h & (cap - 1);
}

static struct ident_blob **slot_find(struct ident_index *x,
				     const struct tree_oid *id)
{
	for (size_t i = slot_of(id, x->cap);; i = (i + 1) & (x->cap - 1))
		if (!x->slots[i] || !memcmp(x->slots[i]->id.id, id->id, 20))
			return &x->slots[i];
}

static void slots_grow(struct ident_index *x)
{
	struct ident_blob **old = x->slots;
	size_t cap = x->cap;

	x->cap = cap ? cap * 2 : 256;
	x->slots = xcalloc(x->cap, sizeof(*x->slots));
	for (size_t i = 0; i < cap; i++)
		if (old[i])
			*slot_find(x, &old[i]->id) = old[i];
	free(old);
}

/* The names of blob id (of path), read and scanned once. */
static int blob_get(struct ident_blob **out, struct ident_index *x,
		    const struct tree_oid *id, const char *path,
		    struct err *err)
{
	struct ident_blob **slot;
	struct buf text = BUF_INIT;
	int error;

	if ((x->nr + 1) * 2 > x->cap)
		slots_grow(x);
	slot = slot_find(x, id);
	if (*slot) {
		*out = *slot;
		return 0;
	}
	if ((error = tree_read_blob_oid(&text, x->repo, id, err)) < 0)
		return error;
	*slot = blob_scan(id, path, text.ptr, text.len);
	x->nr++;
	*out = *slot;
	buf_release(&text);
	return 0;
}

int ident_index_new(struct ident_index **out, struct tree_repo *repo,
		    const char *cache)
{
	struct ident_index *x = xcalloc(1, sizeof(*x));

	x->repo = repo;
	x->cache = cache ? xstrdup(cache) : NULL;
	watch_set_init(&x->angled);
	watch_set_init(&x->paste_pre);
	watch_set_init(&x->paste_suf);
	kconfig_set_init(&x->kbuild);
	*out = x;
	return 0;
}

void ident_index_free(struct ident_index *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->cap; i++)
		blob_free(x->slots[i]);
	free(x->slots);
	names_release(&x->shared);
	strv_free(x->shared_pastes, x->nr_shared_pastes);
	watch_set_release(&x->paste_pre);
	watch_set_release(&x->paste_suf);
	strv_free(x->all_headers, x->nr_all_headers);
	strv_free(x->arches, x->nr_arches);
	free(x->cache);
	watch_set_release(&x->angled);
	kconfig_set_release(&x->kbuild);
	free(x);
}

/* ---- the shared headers ---- */

static void add_pastes(struct ident_index *x, const struct ident_blob *b)
{
	for (size_t i = 0; i < b->nr_pastes; i++) {
		bool have = false;

		for (size_t k = 0; k < x->nr_shared_pastes && !have; k++)
			have = !strcmp(x->shared_pastes[k], b->pastes[i]);
		if (!have)
			strv_add(&x->shared_pastes, &x->nr_shared_pastes,
				 &x->alloc_shared_pastes, xstrdup(b->pastes[i]));
	}
}

/* include/ and arch/<arch>/include/ of tree: what they declare. */
static int scan_shared(struct ident_index *x, const struct tree_oid *tree,
		       struct err *err)
{
	static const char *const dirs[] = { "include", "arch" };
	struct watch_set all;
	int error = 0;

	watch_set_init(&all);

	for (size_t d = 0; d < 2 && !error; d++) {
		struct tree_list_opts o = { dirs[d], true, h_exts };
		struct tree_blob *blobs;
		size_t nr;

		if ((error = tree_list_blobs(&blobs, &nr, x->repo, tree, &o,
					     err)) < 0)
			break;
		for (size_t i = 0; i < nr && !error; i++) {
			const struct watch_set_entry *e;
			struct ident_blob *b;
			struct buf text = BUF_INIT;
			size_t pos;

			if (d == 1 && !strstr(blobs[i].path, "/include/"))
				continue;
			/* read, not kept: the shared set holds the names */
			if ((error = tree_read_blob_oid(&text, x->repo,
							&blobs[i].id, err)) < 0)
				break;
			b = blob_scan(&blobs[i].id, blobs[i].path, text.ptr,
				      text.len);
			pos = 0;
			while ((e = watch_set_next(&b->decls, &pos)))
				watch_set_add(&all, e->name, WATCH_ANY);
			add_pastes(x, b);
			blob_free(b);
			buf_release(&text);
		}
		tree_blobs_free(blobs, nr);
	}
	if (!error)
		names_from_set(&x->shared, &all);
	watch_set_release(&all);
	return error;
}

/* bump when watch.c reads declarations differently, or the file's form
 * changes: kept sets are then built again */
#define SHARED_MAGIC "kcarry-ident/6"
/* the first word of the array: a file of another byte order is refused */
#define SHARED_MARK 0x6b63617272790006ULL

/* The cache file of the shared set of tree: named by its folders' ids. */
static int shared_file(char **path, struct ident_index *x,
		       const struct tree_oid *tree, struct err *err)
{
	static const char *const dirs[] = { "include", "arch" };
	struct buf key = BUF_INIT;
	char hex[41];
	int error = 0;

	*path = NULL;
	if (!x->cache)
		return 0;
	buf_adds(&key, SHARED_MAGIC);
	for (size_t d = 0; d < 2; d++) {
		struct tree_oid id;
		bool exists;

		if ((error = tree_dir_id(&id, &exists, x->repo, tree, dirs[d],
					 err)) < 0)
			goto out;
		tree_oid_hex(hex, &id);
		buf_addf(&key, "%s %s\n", dirs[d], exists ? hex : "-");
	}
	tree_hash(hex, key.ptr, key.len);
	*path = xstrfmt("%s/%s", x->cache, hex);
out:
	buf_release(&key);
	return error;
}

/*
 * A set written by save_shared: a line "kcarry-ident/4 START NR", the
 * pastes one per line (padded with empty lines to START, a multiple of
 * 8), then at START the mark and the NR sorted hashes.  Mapped, not read.
 */
static bool load_shared(struct ident_index *x, const char *path)
{
	size_t m = strlen(SHARED_MAGIC), start, nr;
	const char *p, *end, *nl;
	struct stat st;
	void *map;
	char *e;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size < (off_t)m + 16) {
		close(fd);
		return false;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return false;
	p = map;
	end = p + st.st_size;
	if (memcmp(p, SHARED_MAGIC " ", m + 1) ||
	    !(nl = memchr(p, '\n', (size_t)(end - p))))
		goto bad;
	start = strtoul(p + m + 1, &e, 10);
	if (*e != ' ')
		goto bad;
	nr = strtoul(e + 1, &e, 10);
	if (e != nl || start % 8 || start < (size_t)(nl - p) + 1 ||
	    start > (size_t)st.st_size ||
	    ((size_t)st.st_size - start) / 8 != nr + 1 ||
	    ((size_t)st.st_size - start) % 8 ||
	    *(const uint64_t *)(p + start) != SHARED_MARK)
		goto bad;
	names_release(&x->shared);
	x->shared.map = map;
	x->shared.map_len = (size_t)st.st_size;
	x->shared.v = (const uint64_t *)(p + start) + 1;
	x->shared.nr = nr;
	for (p = nl + 1; p < (const char *)map + start; p = nl + 1) {
		if (!(nl = memchr(p, '\n', (size_t)((const char *)map + start - p))))
			break;
		if (nl > p)
			strv_add(&x->shared_pastes, &x->nr_shared_pastes,
				 &x->alloc_shared_pastes,
				 xstrndup(p, (size_t)(nl - p)));
	}
	return true;
bad:
	munmap(map, (size_t)st.st_size);
	return false;
}

/* Files kept at most, of each kind (name sets, header lists, Kconfig
 * symbol sets): a tree's include/ changes with every release.  The least
 * recently used go. */
#define KEEP_SETS 16

struct kept {
	char *path;
	time_t mtime;
};

static int cmp_kept(const void *a, const void *b)
{
	const struct kept *x = a, *y = b;

	return x->mtime < y->mtime ? 1 : x->mtime > y->mtime ? -1 : 0;
}

/* The kind of a file of the folder: its suffix (".headers", ".kconfig"),
 * "" for a name set. */
static const char *cache_kind(const char *name)
{
	const char *dot = strrchr(name, '.');

	return dot ? dot : "";
}

/* Remove all but the KEEP_SETS newest files of a kind in the folder. */
static void prune_cache(const char *dir, const char *kind)
{
	struct err err = ERR_INIT;
	struct kept *v;
	char **names;
	size_t nr, n = 0;

	if (fs_list_dir(dir, &names, &nr, &err) < 0) {
		err_release(&err);
		return;
	}
	v = xcalloc(nr + 1, sizeof(*v));
	for (size_t i = 0; i < nr; i++) {
		struct stat st;
		char *p;

		if (strcmp(cache_kind(names[i]), kind))
			continue;
		p = fs_join(dir, names[i]);
		if (stat(p, &st) < 0) {
			free(p);
			continue;
		}
		v[n].path = p;
		v[n++].mtime = st.st_mtime;
	}
	qsort(v, n, sizeof(*v), cmp_kept);
	for (size_t i = 0; i < n; i++) {
		if (i >= KEEP_SETS)
			unlink(v[i].path);
		free(v[i].path);
	}
	free(v);
	fs_free_list(names, nr);
}

/* Keep the set for the next run; a cache that cannot be written is no
 * error (the set is built again). */
static void save_shared(struct ident_index *x, const char *path)
{
	struct buf b = BUF_INIT;
	struct err err = ERR_INIT;

	struct buf pastes = BUF_INIT;
	uint64_t mark = SHARED_MARK;
	size_t start;

	for (size_t i = 0; i < x->nr_shared_pastes; i++)
		buf_addf(&pastes, "%s\n", x->shared_pastes[i]);
	/* the first line's own length is part of START: found by trying */
	for (start = 0;;) {
		size_t want;

		buf_reset(&b);
		buf_addf(&b, "%s %zu %zu\n", SHARED_MAGIC, start,
			 x->shared.nr);
		want = (b.len + pastes.len + 7) / 8 * 8;
		if (want == start)
			break;
		start = want;
	}
	buf_add(&b, pastes.ptr, pastes.len);
	while (b.len < start)
		buf_addc(&b, '\n');
	buf_add(&b, &mark, sizeof(mark));
	buf_add(&b, x->shared.v, x->shared.nr * sizeof(uint64_t));
	buf_release(&pastes);
	if (fs_mkdirs(x->cache, &err) == 0 &&
	    fs_write_atomic(path, b.ptr, b.len, &err) == 0)
		prune_cache(x->cache, "");
	err_release(&err);
	buf_release(&b);
}

/* What the shared headers declare: from the cache, or scanned once. */
static int build_shared(struct ident_index *x, const struct tree_oid *tree,
			struct err *err)
{
	char *path;
	int error;

	x->shared_built = true;
	if ((error = shared_file(&path, x, tree, err)) < 0)
		return error;
	if (path && load_shared(x, path)) {
		utimes(path, NULL); /* used: kept longest */
		free(path);
		return 0;
	}
	if ((error = scan_shared(x, tree, err)) == 0 && path)
		save_shared(x, path);
	free(path);
	return error;
}

/* ---- resolving includes ---- */

/* dir/rel with "." and ".." folded; NULL when it leaves the tree. */
static char *join_path(const char *dir, const char *rel)
{
	struct buf b = BUF_INIT;
	char *all = xstrfmt("%s%s%s", dir, *dir ? "/" : "", rel);
	size_t *starts = NULL, nr = 0, alloc = 0;
	const char *p = all;
	bool bad = false;

	while (*p && !bad) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (n == 2 && !memcmp(p, "..", 2)) {
			if (!nr)
				bad = true;
			else
				b.len = starts[--nr];
		} else if (n && !(n == 1 && *p == '.')) {
			ALLOC_GROW(starts, nr + 1, alloc);
			starts[nr++] = b.len;
			if (b.len)
				buf_addc(&b, '/');
			buf_add(&b, p, n);
		}
		p += n + (e != NULL);
	}
	if (b.len)
		b.ptr[b.len] = '\0';
	free(starts);
	free(all);
	if (bad || !b.len) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b, NULL);
}

/* The blob id of path in tree; *exists false when it has none. */
static int file_oid(struct tree_oid *id, bool *exists, struct ident_index *x,
		    const struct tree_oid *tree, const char *path,
		    struct err *err)
{
	char hex[41];
	int error;

	if ((error = tree_file_id(hex, exists, x->repo, tree, path, err)) < 0 ||
	    !*exists)
		return error;
	if (tree_oid_parse(id, hex) < 0)
		BUG("tree_file_id gave '%s'", hex);
	return 0;
}

static int blob_at(struct ident_blob **out, struct ident_index *x,
		   const struct tree_oid *tree, const char *path,
		   struct err *err)
{
	bool exists;
	struct tree_oid id;
	int error;

	*out = NULL;
	if ((error = file_oid(&id, &exists, x, tree, path, err)) < 0 ||
	    !exists)
		return error;
	return blob_get(out, x, &id, path, err);
}

static int read_arches(struct ident_index *x, const struct tree_oid *tree,
		       struct err *err)
{
	x->arches_read = true;
	return tree_list_dirs(&x->arches, &x->nr_arches, x->repo, tree, "arch",
			      err);
}

/* Whether tree has the file path. */
static int exists_at(bool *yes, struct ident_index *x,
		     const struct tree_oid *tree, const char *path,
		     struct err *err)
{
	char hex[41];

	return tree_file_id(hex, yes, x->repo, tree, path, err);
}

/*
 * An <...> include: whether the kernel's include paths find it.  What
 * such a header declares is in the shared set: it is not read here.
 */
static int resolve_angled_in(bool *found, struct ident_index *x,
			     const struct tree_oid *tree, const char *inc,
			     bool arches, struct err *err)
{
	static const char *const roots[] = { "include", "include/uapi" };
	char *p;
	int error;

	*found = false;
	for (size_t i = 0; i < 2; i++) {
		p = xstrfmt("%s/%s", roots[i], inc);
		error = exists_at(found, x, tree, p, err);
		free(p);
		if (error < 0 || *found)
			return error;
	}
	if (starts_with(inc, "asm/")) {
		p = xstrfmt("include/asm-generic/%s", inc + 4);
		error = exists_at(found, x, tree, p, err);
		free(p);
		if (error < 0 || *found)
			return error;
	}
	if (!arches)
		return 0;
	if (!x->arches_read && (error = read_arches(x, tree, err)) < 0)
		return error;
	for (size_t a = 0; a < x->nr_arches; a++)
		for (size_t i = 0; i < 2; i++) {
			p = xstrfmt("arch/%s/%s/%s", x->arches[a], roots[i], inc);
			error = exists_at(found, x, tree, p, err);
			free(p);
			if (error < 0 || *found)
				return error;
		}
	return 0;
}

static int resolve_angled(bool *found, struct ident_index *x,
			  const struct tree_oid *tree, const char *inc,
			  struct err *err)
{
	const struct watch_set_entry *e =
		watch_set_find(&x->angled, inc, strlen(inc));
	int error;

	if (e) {
		*found = e->kind == WATCH_ANY;
		return 0;
	}
	if ((error = resolve_angled_in(found, x, tree, inc, true, err)) < 0)
		return error;
	watch_set_add(&x->angled, inc, *found ? WATCH_ANY : WATCH_MACRO);
	return 0;
}

/*
 * A list kept in the cache as <tree id><kind> (".headers", ".kconfig"):
 * magic, then an item a line.  cache_list_read() hands each item to add
 * and says whether the file was there and whole.
 */
static bool cache_list_read(const struct ident_index *x,
			    const struct tree_oid *tree, const char *kind,
			    const char *magic,
			    void (*add)(void *, const char *, size_t),
			    void *ctx)
{
	struct buf b = BUF_INIT;
	struct err e2 = ERR_INIT;
	char hex[41], *path;
	size_t m = strlen(magic);
	bool ok;

	if (!x->cache)
		return false;
	tree_oid_hex(hex, tree);
	path = xstrfmt("%s/%s%s", x->cache, hex, kind);
	ok = fs_read_file(&b, path, 0, &e2) == 0 && b.len >= m &&
	     !memcmp(b.ptr, magic, m);
	for (size_t i = m; ok && i < b.len;) {
		char *nl = memchr(b.ptr + i, '\n', b.len - i);
		size_t end = nl ? (size_t)(nl - b.ptr) : b.len;

		add(ctx, b.ptr + i, end - i);
		i = end + 1;
	}
	err_release(&e2);
	buf_release(&b);
	free(path);
	return ok;
}

static void cache_list_write(const struct ident_index *x,
			     const struct tree_oid *tree, const char *kind,
			     const char *magic, char *const *v, size_t nr)
{
	struct buf b = BUF_INIT;
	struct err e2 = ERR_INIT;
	char hex[41], *path;

	if (!x->cache)
		return;
	tree_oid_hex(hex, tree);
	path = xstrfmt("%s/%s%s", x->cache, hex, kind);
	buf_adds(&b, magic);
	for (size_t i = 0; i < nr; i++)
		buf_addf(&b, "%s\n", v[i]);
	if (fs_mkdirs(x->cache, &e2) == 0 &&
	    fs_write_atomic(path, b.ptr, b.len, &e2) == 0)
		prune_cache(x->cache, kind);
	err_release(&e2);
	buf_release(&b);
	free(path);
}

#define HEADERS_MAGIC "kcarry-headers/1\n"

struct header_list {
	struct ident_index *x;
	size_t alloc;
};

static void add_header(void *ctx, const char *p, size_t len)
{
	struct header_list *h = ctx;

	strv_add(&h->x->all_headers, &h->x->nr_all_headers, &h->alloc,
		 xstrndup(p, len));
}

/* The paths of every header of tree, kept in the cache by tree id. */
static int list_headers(struct ident_index *x, const struct tree_oid *tree,
			struct err *err)
{
	const struct tree_list_opts all = { "", true, h_exts };
	struct header_list h = { x, 0 };
	struct tree_blob *blobs;
	size_t nr;
	int error;

	x->listed = true;
	if (cache_list_read(x, tree, ".headers", HEADERS_MAGIC, add_header,
			    &h))
		return 0;
	if ((error = tree_list_blobs(&blobs, &nr, x->repo, tree, &all,
				     err)) < 0)
		return error;
	x->all_headers = xcalloc(nr + 1, sizeof(char *));
	for (size_t i = 0; i < nr; i++) {
		x->all_headers[i] = blobs[i].path;
		blobs[i].path = NULL;
	}
	x->nr_all_headers = nr;
	tree_blobs_free(blobs, nr);
	cache_list_write(x, tree, ".headers", HEADERS_MAGIC, x->all_headers,
			 nr);
	return 0;
}

/* The headers of the tree whose path ends with "/inc" (a -I path). */
static int resolve_elsewhere(struct ident_view *v, bool *found,
			     const struct tree_oid *tree, const char *inc,
			     struct err *err)
{
	struct ident_index *x = v->x;
	size_t n = strlen(inc);
	int error = 0;

	*found = false;
	if (!x->listed && (error = list_headers(x, tree, err)) < 0)
		return error;
	for (size_t i = 0; i < x->nr_all_headers && !error; i++) {
		const char *p = x->all_headers[i];
		size_t len = strlen(p);
		struct ident_blob *b;

		if (len <= n || p[len - n - 1] != '/' || strcmp(p + len - n, inc))
			continue;
		if ((error = blob_at(&b, x, tree, p, err)) < 0 || !b)
			continue;
		*found = true;
		ALLOC_GROW(v->headers, v->nr_headers + 1, v->alloc_headers);
		v->headers[v->nr_headers++] = b;
	}
	return error;
}

static bool have_header(const struct ident_view *v, const struct ident_blob *b)
{
	if (b == v->file)
		return true;
	for (size_t i = 0; i < v->nr_folder; i++)
		if (v->folder[i] == b)
			return true;
	for (size_t i = 0; i < v->nr_headers; i++)
		if (v->headers[i] == b)
			return true;
	return false;
}

/*
 * The includes of b (a file in dir of v's tree): headers, and whether all
 * resolve (v->complete false when one does not).
 */
static int follow_includes(struct ident_view *v, const struct ident_blob *b,
			   const char *dir, int depth, struct err *err)
{
	const struct tree_oid *tree = &v->tree;
	bool *complete = &v->complete;
	int error = 0;

	for (size_t i = 0; i < b->nr_quoted && !error; i++) {
		char *p = join_path(dir, b->quoted[i]);
		struct ident_blob *h = NULL;
		bool found = false;

		if (p && (error = blob_at(&h, v->x, tree, p, err)) < 0) {
			free(p);
			break;
		}
		if (h)
			found = true;
		if (!h)
			error = resolve_angled_in(&found, v->x, tree,
						  b->quoted[i], false, err);
		if (!error && !h && !found)
			error = resolve_elsewhere(v, &found, tree, b->quoted[i],
						  err);
		if (!error && !found)
			*complete = false;
		if (!error && h && !have_header(v, h)) {
			char *hdir = p && strrchr(p, '/')
					     ? xstrndup(p, (size_t)(strrchr(p, '/') - p))
					     : xstrdup("");

			ALLOC_GROW(v->headers, v->nr_headers + 1,
				   v->alloc_headers);
			v->headers[v->nr_headers++] = h;
			if (depth + 1 < INCLUDE_DEPTH)
				error = follow_includes(v, h, hdir, depth + 1,
							err);
			free(hdir);
		}
		free(p);
	}
	for (size_t i = 0; i < b->nr_angled && !error && depth == 0; i++) {
		bool found;

		if ((error = resolve_angled(&found, v->x, tree, b->angled[i],
					    err)) < 0)
			break;
		if (!found)
			*complete = false;
	}
	return error;
}

void ident_view_open(struct ident_view *v, struct ident_index *x,
		     const struct tree_oid *tree, const char *path,
		     struct span text)
{
	memset(v, 0, sizeof(*v));
	v->x = x;
	v->tree = *tree;
	v->path = xstrdup(path);
	v->complete = true;
	buf_init(&v->text, 0);
	buf_addspan(&v->text, text);
}

static bool word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

/* name as a word of the file's text (a comment counts: lenient). */
static bool in_text(struct ident_view *v, const char *name, size_t len)
{
	if (!v->words_built && v->scans++ < 16) {
		/* a few names: a scan is cheaper than the set */
		const char *p = v->text.ptr, *end = p + v->text.len;

		while (p + len <= end) {
			const char *q = memmem(p, (size_t)(end - p), name, len);

			if (!q)
				return false;
			if ((q == v->text.ptr || !word_char(q[-1])) &&
			    (q + len == end || !word_char(q[len])))
				return true;
			p = q + 1;
		}
		return false;
	}
	if (!v->words_built) {
		const char *p = v->text.ptr, *end = p + v->text.len;

		watch_set_init(&v->words);
		while (p < end) {
			const char *w = p;

			while (p < end && word_char(*p))
				p++;
			if (p == w) {
				p++;
				continue;
			}
			watch_set_add_n(&v->words, w, (size_t)(p - w),
					WATCH_ANY);
		}
		v->words_built = true;
	}
	return watch_set_find(&v->words, name, len) != NULL;
}

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? xstrndup(path, (size_t)(slash - path)) : xstrdup("");
}

/*
 * The #include lines of text, without lexing it all: a line that starts
 * (blanks aside) with '#', "include", then <...> or "...".  (A directive
 * inside a comment would be read too: it only makes the view stricter.)
 */
static void includes_of(struct ident_blob *b, const char *text, size_t len)
{
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - text) : len, j = i;

		while (j < end && (text[j] == ' ' || text[j] == '\t'))
			j++;
		if (j < end && text[j] == '#') {
			for (j++; j < end && (text[j] == ' ' || text[j] == '\t');)
				j++;
			if (end - j > 7 && !memcmp(text + j, "include", 7)) {
				const char *q, *close;
				char c;

				for (j += 7; j < end && (text[j] == ' ' ||
							 text[j] == '\t');)
					j++;
				c = j < end ? text[j] : 0;
				q = text + j + 1;
				close = c == '<' || c == '"'
						? memchr(q, c == '<' ? '>' : '"',
							 end - j - 1)
						: NULL;
				if (close && c == '<')
					strv_add(&b->angled, &b->nr_angled,
						 &b->alloc_angled,
						 xstrndup(q, (size_t)(close - q)));
				else if (close)
					strv_add(&b->quoted, &b->nr_quoted,
						 &b->alloc_quoted,
						 xstrndup(q, (size_t)(close - q)));
			}
		}
		i = nl ? end + 1 : len;
	}
}

/* The file's names, scanned when first needed (pastes, coverage). */
static struct ident_blob *file_names(struct ident_view *v)
{
	if (!v->file_scanned) {
		struct ident_blob *b = blob_scan(NULL, v->path, v->text.ptr,
						 v->text.len);

		v->file_scanned = true;
		blob_free(v->file);
		v->file = b;
	}
	return v->file;
}

static int follow_added(struct ident_view *v, const char *inc,
			struct err *err);

/* The headers the file includes, read on the first name not in it. */
static int view_load(struct ident_view *v, struct err *err)
{
	char *dir = dir_of(v->path);
	int error;

	v->loaded = true;
	v->file = xcalloc(1, sizeof(*v->file));
	watch_set_init(&v->file->names);
	watch_set_init(&v->file->decls);
	watch_set_init(&v->file->locals);
	includes_of(v->file, v->text.ptr, v->text.len);
	error = follow_includes(v, v->file, dir, 0, err);
	for (size_t i = 0; i < v->nr_added && !error; i++)
		error = follow_added(v, v->added[i], err);
	free(dir);
	return error;
}

/* The other files of the folder: the last place looked, the dearest. */
static int view_folder(struct ident_view *v, struct err *err)
{
	char *dir = dir_of(v->path);
	struct tree_list_opts o = { dir, false, c_exts };
	struct tree_blob *blobs = NULL;
	size_t nr = 0;
	int error;

	v->folder_loaded = true;
	if ((error = tree_list_blobs(&blobs, &nr, v->x->repo, &v->tree, &o,
				     err)) < 0)
		goto out;
	v->folder = xcalloc(nr + 1, sizeof(*v->folder));
	for (size_t i = 0; i < nr; i++) {
		if (!strcmp(blobs[i].path, v->path))
			continue;
		if ((error = blob_get(&v->folder[v->nr_folder], v->x,
				      &blobs[i].id, blobs[i].path, err)) < 0)
			goto out;
		v->nr_folder++;
	}
out:
	tree_blobs_free(blobs, nr);
	free(dir);
	return error;
}

/* ---- what Kbuild defines ---- */

/* Into s, the -D macros of the makefile path of tree, if it has one. */
static int path_defines(struct kconfig_set *s, struct ident_index *x,
			const struct tree_oid *tree, const char *path,
			struct err *err)
{
	bool exists;
	struct tree_oid id;
	struct buf text = BUF_INIT;
	int error;

	if ((error = file_oid(&id, &exists, x, tree, path, err)) < 0 ||
	    !exists)
		return error;
	if ((error = tree_read_blob_oid(&text, x->repo, &id, err)) == 0)
		kconfig_make_defines(s, text.ptr, text.len);
	buf_release(&text);
	return error;
}

/* The makefiles of folder dir of tree ("" for the top). */
static int dir_defines(struct kconfig_set *s, struct ident_index *x,
		       const struct tree_oid *tree, const char *dir,
		       struct err *err)
{
	static const char *const names[] = { "Makefile", "Kbuild" };
	int error = 0;

	for (size_t i = 0; i < 2 && !error; i++) {
		char *p = xstrfmt("%s%s%s", dir, *dir ? "/" : "", names[i]);

		error = path_defines(s, x, tree, p, err);
		free(p);
	}
	return error;
}

/* x->kbuild: the top, scripts/Makefile* and each arch/<arch>/Makefile. */
static int read_kbuild(struct ident_index *x, const struct tree_oid *tree,
		       struct err *err)
{
	struct tree_list_opts o = { "scripts", false, NULL, "Makefile" };
	struct tree_blob *b = NULL;
	size_t nr = 0;
	int error;

	x->kbuild_read = true;
	if ((error = dir_defines(&x->kbuild, x, tree, "", err)) < 0 ||
	    (!x->arches_read && (error = read_arches(x, tree, err)) < 0))
		return error;
	for (size_t i = 0; i < x->nr_arches && !error; i++) {
		char *p = xstrfmt("arch/%s/Makefile", x->arches[i]);

		error = path_defines(&x->kbuild, x, tree, p, err);
		free(p);
	}
	if (error || (error = tree_list_blobs(&b, &nr, x->repo, tree, &o,
					      err)) < 0)
		return error;
	for (size_t i = 0; i < nr && !error; i++) {
		struct buf text = BUF_INIT;

		if ((error = tree_read_blob_oid(&text, x->repo, &b[i].id,
						err)) == 0)
			kconfig_make_defines(&x->kbuild, text.ptr, text.len);
		buf_release(&text);
	}
	tree_blobs_free(b, nr);
	return error;
}

/*
 * Whether Kbuild defines name with -D for v's file: in a makefile every
 * file is built with, or in one of its folder or a folder above it (a
 * ccflags-y of another folder is not the file's).
 */
static int kbuild_has(bool *found, struct ident_view *v, const char *name,
		      size_t len, struct err *err)
{
	int error;

	if (!v->x->kbuild_read && (error = read_kbuild(v->x, &v->tree, err)) < 0)
		return error;
	if (!v->kbuild) {
		char *dir = dir_of(v->path);

		v->kbuild = xmalloc(sizeof(*v->kbuild));
		kconfig_set_init(v->kbuild);
		/* the top is in x->kbuild */
		for (error = 0; *dir && !error;) {
			char *up = dir_of(dir);

			error = dir_defines(v->kbuild, v->x, &v->tree, dir, err);
			free(dir);
			dir = up;
		}
		free(dir);
		if (error < 0)
			return error;
	}
	*found = kconfig_set_has(&v->x->kbuild, name, len) ||
		 kconfig_set_has(v->kbuild, name, len);
	return 0;
}

/* One include the patch adds ("<path" or "\"path"), followed. */
static int follow_added(struct ident_view *v, const char *inc,
			struct err *err)
{
	struct ident_blob b;
	char *copy = xstrdup(inc + 1), *dir = dir_of(v->path);
	int error;

	memset(&b, 0, sizeof(b));
	if (inc[0] == '<') {
		b.angled = &copy;
		b.nr_angled = 1;
	} else {
		b.quoted = &copy;
		b.nr_quoted = 1;
	}
	error = follow_includes(v, &b, dir, 0, err);
	free(copy);
	free(dir);
	return error;
}

int ident_view_include(struct ident_view *v, const char *inc, bool angle,
		       struct err *err)
{
	char *s = xstrfmt("%c%s", angle ? '<' : '"', inc);
	int error = 0;

	/* before the headers are read, kept for view_load: a hunk whose
	 * names are all in the file or the shared headers reads none */
	if (v->loaded)
		error = follow_added(v, s, err);
	else
		strv_add(&v->added, &v->nr_added, &v->alloc_added, xstrdup(s));
	free(s);
	return error;
}

void ident_view_release(struct ident_view *v)
{
	if (!v->path)
		return;
	blob_free(v->file);
	buf_release(&v->text);
	if (v->words_built)
		watch_set_release(&v->words);
	free(v->folder);
	free(v->headers);
	free(v->path);
	strv_free(v->added, v->nr_added);
	if (v->kbuild)
		kconfig_set_release(v->kbuild);
	free(v->kbuild);
	memset(v, 0, sizeof(*v));
}

/* In the file, its folder (when read) or a header it includes. */
static bool near_has(struct ident_view *v, const char *name, size_t len)
{
	if (in_text(v, name, len))
		return true;
	for (size_t i = 0; i < v->nr_headers; i++)
		if (watch_set_find(&v->headers[i]->decls, name, len))
			return true;
	for (size_t i = 0; i < v->nr_folder; i++)
		if (watch_set_find(&v->folder[i]->names, name, len))
			return true;
	return false;
}

static bool has(struct ident_view *v, const char *name, size_t len)
{
	return near_has(v, name, len) ||
	       names_has(&v->x->shared, name, len) ||
	       (v->known && v->known(v->known_ctx, name, len));
}

/* A paste pattern "P*" or "*S" that builds name from a known name. */
static bool built_by(struct ident_view *v, const char *pat,
		     const char *name, size_t len)
{
	size_t n = strlen(pat) - 1;

	if (n == 0 || n >= len)
		return false;
	if (pat[n] == '*')
		return !memcmp(name, pat, n) && has(v, name + n, len - n);
	if (pat[0] == '*')
		return !memcmp(name + len - n, pat + 1, n) &&
		       has(v, name, len - n);
	return false;
}

static bool pasted(struct ident_view *v, const struct ident_blob *b,
		   const char *name, size_t len)
{
	for (size_t i = 0; i < b->nr_pastes; i++)
		if (built_by(v, b->pastes[i], name, len))
			return true;
	return false;
}

/* The shared pastes by stem: a name is tried at each split, not against
 * each of the thousand patterns of include/. */
static void index_pastes(struct ident_index *x)
{
	for (; x->nr_indexed_pastes < x->nr_shared_pastes;
	     x->nr_indexed_pastes++) {
		const char *pat = x->shared_pastes[x->nr_indexed_pastes];
		size_t n = strlen(pat);

		if (n < 2)
			continue;
		if (pat[n - 1] == '*')
			watch_set_add_n(&x->paste_pre, pat, n - 1, WATCH_ANY);
		else if (pat[0] == '*')
			watch_set_add_n(&x->paste_suf, pat + 1, n - 1,
					WATCH_ANY);
	}
}

/* Built by a shared "P*" pattern from a name the view has. */
static bool prefix_pasted(struct ident_view *v, const char *name, size_t len)
{
	for (size_t k = 1; k < len; k++)
		if (watch_set_find(&v->x->paste_pre, name, k) &&
		    has(v, name + k, len - k))
			return true;
	return false;
}

static bool any_pasted(struct ident_view *v, const char *name, size_t len)
{
	struct ident_index *x = v->x;

	if (pasted(v, file_names(v), name, len))
		return true;
	for (size_t i = 0; i < v->nr_headers; i++)
		if (pasted(v, v->headers[i], name, len))
			return true;
	for (size_t i = 0; i < v->nr_folder; i++)
		if (pasted(v, v->folder[i], name, len))
			return true;
	/* as built_by for each: a stem of 1 to len - 1 bytes */
	index_pastes(x);
	for (size_t k = 1; k < len; k++) {
		if (watch_set_find(&x->paste_pre, name, k) &&
		    has(v, name + k, len - k))
			return true;
		/* trace_##name##_enabled: "*_enabled" onto "trace_*" */
		if (watch_set_find(&x->paste_suf, name + k, len - k) &&
		    (has(v, name, k) || prefix_pasted(v, name, k)))
			return true;
	}
	return false;
}

/* Pattern "P*" or "*S" around stem names something the view has. */
static bool pastes_to_known(struct ident_view *v, const char *pat,
			    const char *stem, size_t len)
{
	size_t n = strlen(pat);
	bool yes;
	char *full;

	if (n < 2 || (pat[n - 1] != '*' && pat[0] != '*'))
		return false;
	full = pat[n - 1] == '*' ? xstrfmt("%.*s%.*s", (int)(n - 1), pat,
					   (int)len, stem)
				 : xstrfmt("%.*s%s", (int)len, stem, pat + 1);
	yes = has(v, full, strlen(full));
	free(full);
	return yes;
}

static bool blob_pastes_onto(struct ident_view *v, const struct ident_blob *b,
			     const char *stem, size_t len)
{
	for (size_t i = 0; b && i < b->nr_pastes; i++)
		if (pastes_to_known(v, b->pastes[i], stem, len))
			return true;
	return false;
}

bool ident_view_pastes_onto(struct ident_view *v, const char *stem,
			    size_t len)
{
	if (!v->loaded || blob_pastes_onto(v, file_names(v), stem, len))
		return true;
	for (size_t i = 0; i < v->nr_headers; i++)
		if (blob_pastes_onto(v, v->headers[i], stem, len))
			return true;
	for (size_t i = 0; i < v->nr_folder; i++)
		if (blob_pastes_onto(v, v->folder[i], stem, len))
			return true;
	return false;
}

/* Whether something the view has read declares name. */
static bool declared(struct ident_view *v, const char *name, size_t len)
{
	if (watch_set_find(&file_names(v)->decls, name, len) ||
	    names_has(&v->x->shared, name, len) ||
	    kconfig_set_has(&v->x->kbuild, name, len) ||
	    (v->kbuild && kconfig_set_has(v->kbuild, name, len)))
		return true;
	for (size_t i = 0; i < v->nr_headers; i++)
		if (watch_set_find(&v->headers[i]->decls, name, len))
			return true;
	for (size_t i = 0; i < v->nr_folder; i++)
		if (watch_set_find(&v->folder[i]->decls, name, len))
			return true;
	return any_pasted(v, name, len);
}

/* How much of what the file uses is declared where the view looks. */
static void measure_coverage(struct ident_view *v)
{
	const struct watch_set *names = &file_names(v)->names;
	const struct watch_set_entry *e;
	size_t used = 0, found = 0, pos = 0;

	while ((e = watch_set_next(names, &pos))) {
		if (watch_set_find(&v->file->decls, e->name, e->len) ||
		    watch_set_find(&v->file->locals, e->name, e->len))
			continue;
		used++;
		found += declared(v, e->name, e->len);
	}
	v->coverage = used ? (unsigned)(found * 100 / used) : 100;
}

int ident_view_find(bool *found, struct ident_view *v, const char *name,
		    size_t len, struct err *err)
{
	struct ident_index *x = v->x;
	int error;

	/* cheapest first: the file, the shared headers (kept across
	 * runs), the file's headers, and only then the folder */
	*found = in_text(v, name, len);
	if (*found)
		return 0;
	/* the shared set before the file's headers: one lookup, where the
	 * headers are blobs to read and scan (the answer is the same: found
	 * anywhere is found) */
	if (!x->shared_built && (error = build_shared(x, &v->tree, err)) < 0)
		return error;
	if (names_has(&x->shared, name, len)) {
		*found = true;
		return 0;
	}
	if (!v->loaded && (error = view_load(v, err)) < 0)
		return error;
	if (!v->complete || near_has(v, name, len)) {
		*found = true;
		return 0;
	}
	if (!v->folder_loaded) {
		if ((error = view_folder(v, err)) < 0)
			return error;
		if (near_has(v, name, len)) {
			*found = true;
			return 0;
		}
	}
	if ((error = kbuild_has(found, v, name, len, err)) < 0 || *found)
		return error;
	if (!v->measured) {
		v->measured = true;
		measure_coverage(v);
		if (v->coverage < IDENT_COVERAGE)
			v->complete = false;
	}
	*found = !v->complete || any_pasted(v, name, len);
	return 0;
}

#define KCONFIG_MAGIC "kcarry-kconfig/2\n"

static void add_symbol(void *ctx, const char *p, size_t len)
{
	if (len)
		kconfig_set_add(ctx, p, len);
}

int ident_kconfig_decls(struct kconfig_set *s, struct ident_index *x,
			const struct tree_oid *tree, struct err *err)
{
	int error;

	if (cache_list_read(x, tree, ".kconfig", KCONFIG_MAGIC, add_symbol, s))
		return 0;
	if ((error = kconfig_tree_decls(s, x->repo, tree, err)) < 0)
		return error;
	cache_list_write(x, tree, ".kconfig", KCONFIG_MAGIC, s->names, s->nr);
	return 0;
}
