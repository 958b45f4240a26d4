#include "tree.h"
#include "strmap.h"

#include <archive.h>
#include <ctype.h>
#include <archive_entry.h>
#include <git2.h>
#include <git2/sys/alloc.h>
#include <git2/sys/odb_backend.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct tree_repo {
	git_repository *repo;
	char *path;
	/*
	 * Blobs are written through a loose backend of our own at zlib
	 * level 1 once we know they are new: libgit2's blob writer deflates
	 * at the default level before it knows whether the blob exists,
	 * which was a third of the time of carrying a series.
	 */
	git_odb *fast;
	git_odb_backend *loose; /* owned by fast */
	/*
	 * The blobs written and read last, by id: a series touches the same
	 * files again and again, reading back what we just wrote would
	 * inflate it once more, and refreshing a carried series diffs the
	 * blobs its patches read and wrote.  FIFO, bounded in bytes, a hash
	 * of the ids (slot + 1 in bucket, chained by next) to find them.
	 * libgit2 reads them here too (mem_backend), before its own stores.
	 * The read ones only when a refresh may diff them (drop_reads).
	 */
	struct cached_blob {
		git_oid id;
		struct buf data;
		size_t next; /* the next slot of its bucket, + 1; 0: none */
	} *cache;
	size_t *buckets;
	size_t cache_nr, cache_next, cache_bytes;
	bool drop_reads; /* tree_keep_read_blobs(r, false): written ones only */
	struct mem_backend *mem; /* owned by the repository's odb */
	struct prefetch *pf;	 /* or NULL */
};

/*
 * Reading ahead: the files a series will read from the tree it starts
 * on, inflated by a thread of their own (on its own git_repository, as
 * libgit2 wants) while the patches before them are applied.  The reader
 * takes a file by path, and only when the blob it wants is the one read
 * ahead: what comes from here is always what git_blob_lookup would give.
 */
struct prefetch_slot {
	char *path;
	git_oid id;
	struct buf data;
	enum { PF_WAITING, PF_READY, PF_GONE } state;
};

struct prefetch {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t room;
	git_repository *repo;
	git_oid tree;
	struct prefetch_slot *slots;
	size_t nr;
	struct strmap index; /* path -> slot */
	size_t pending;      /* bytes read ahead and not taken */
	bool stop, done;
};

/* what is read ahead and not yet taken, at most */
#define PREFETCH_MAX_BYTES (32UL * 1024 * 1024)

#define CACHE_SLOTS 4096
#define CACHE_BUCKETS (2 * CACHE_SLOTS) /* a power of 2 */
#define CACHE_MAX_BYTES (64UL * 1024 * 1024)

static size_t *cache_bucket(const struct tree_repo *r, const git_oid *id)
{
	uint32_t h;

	memcpy(&h, id->id, sizeof(h)); /* an id is uniformly distributed */
	return &r->buckets[h & (CACHE_BUCKETS - 1)];
}

/* Drop the oldest slot. */
static void cache_drop_oldest(struct tree_repo *r)
{
	size_t oldest =
		(r->cache_next + CACHE_SLOTS - r->cache_nr) % CACHE_SLOTS;
	struct cached_blob *c = &r->cache[oldest];
	size_t *link = cache_bucket(r, &c->id);

	while (*link != oldest + 1)
		link = &r->cache[*link - 1].next;
	*link = c->next;
	c->next = 0;
	r->cache_bytes -= c->data.len;
	buf_release(&c->data);
	r->cache_nr--;
}

static void cache_put(struct tree_repo *r, const git_oid *id, const void *data,
		      size_t len)
{
	struct cached_blob *c;
	size_t *bucket;

	if (len > CACHE_MAX_BYTES / 4)
		return;
	if (!r->cache) {
		r->cache = xcalloc(CACHE_SLOTS, sizeof(*r->cache));
		r->buckets = xcalloc(CACHE_BUCKETS, sizeof(*r->buckets));
	}
	/* make room: the oldest slots go first */
	while (r->cache_nr && (r->cache_nr == CACHE_SLOTS ||
			       r->cache_bytes + len > CACHE_MAX_BYTES))
		cache_drop_oldest(r);
	c = &r->cache[r->cache_next];
	bucket = cache_bucket(r, id);
	c->next = *bucket;
	*bucket = r->cache_next + 1;
	r->cache_next = (r->cache_next + 1) % CACHE_SLOTS;
	r->cache_nr++;
	git_oid_cpy(&c->id, id);
	buf_init(&c->data, 0);
	buf_add(&c->data, data, len);
	r->cache_bytes += len;
}

static const struct buf *cache_get(const struct tree_repo *r, const git_oid *id)
{
	if (!r->cache)
		return NULL;
	for (size_t i = *cache_bucket(r, id); i; i = r->cache[i - 1].next)
		if (git_oid_equal(&r->cache[i - 1].id, id))
			return &r->cache[i - 1].data;
	return NULL;
}

void tree_keep_read_blobs(struct tree_repo *r, bool keep)
{
	r->drop_reads = !keep;
}

size_t tree_held_bytes(const struct tree_repo *r)
{
	return r->cache_bytes;
}

/*
 * The blobs of the cache, as an object store libgit2 asks before its own
 * (priority above the loose and packed stores, and above tree_count_reads'
 * counter): what the carry read or wrote is not inflated again when a
 * blob is looked up, as refreshing does for the diffs.  A cached blob is
 * the object of its id, byte for byte, so what libgit2 makes of it is
 * unchanged.  Reads only: existence, headers and writes go to the others.
 */
struct mem_backend {
	git_odb_backend parent;
	struct tree_repo *r; /* NULL once tree_close began */
};

#define MEM_BACKEND_PRIORITY 1000

static int mem_read(void **data, size_t *len, git_object_t *type,
		    git_odb_backend *be, const git_oid *id)
{
	struct mem_backend *m = (struct mem_backend *)be;
	const struct buf *hit = m->r ? cache_get(m->r, id) : NULL;

	if (!hit)
		return GIT_ENOTFOUND;
	/* NUL-terminated, as libgit2's own stores give an object */
	*data = git_odb_backend_data_alloc(be, hit->len + 1);
	if (!*data)
		return -1;
	memcpy(*data, hit->ptr, hit->len);
	((char *)*data)[hit->len] = '\0';
	*len = hit->len;
	*type = GIT_OBJECT_BLOB;
	return 0;
}

static void mem_free(git_odb_backend *be)
{
	free(be);
}

/* Put the cache in front of r's object stores (see mem_backend). */
static int mem_backend_add(struct tree_repo *r)
{
	struct mem_backend *m = xcalloc(1, sizeof(*m));
	git_odb *odb = NULL;
	int rc = -1;

	if (git_odb_init_backend(&m->parent, GIT_ODB_BACKEND_VERSION) == 0 &&
	    git_repository_odb(&odb, r->repo) == 0) {
		m->parent.read = mem_read;
		m->parent.free = mem_free;
		m->r = r;
		rc = git_odb_add_backend(odb, &m->parent, MEM_BACKEND_PRIORITY);
	}
	git_odb_free(odb);
	if (rc < 0) {
		free(m);
		return rc;
	}
	r->mem = m; /* the odb owns it now */
	return 0;
}

/* libgit2's last error text, for "our words: <libgit2 text>" messages. */
static const char *git_text(void)
{
	const git_error *e = git_error_last();
	return e && e->message ? e->message : "unknown libgit2 error";
}

static int wrap_repo(struct tree_repo **out, git_repository *repo,
		     const char *path, struct err *err)
{
	struct tree_repo *r = xcalloc(1, sizeof(*r));
	git_odb_backend *loose = NULL;
	char *objdir = xstrfmt("%s/objects", git_repository_path(repo));
	int error = 0;

	r->repo = repo;
	r->path = xstrdup(path);
	if (git_odb_new(&r->fast) < 0 ||
	    git_odb_backend_loose(&loose, objdir, 1, 0, 0, 0) < 0)
		error = err_set(err, ERR_IO, "cannot open the objects of '%s'",
				path);
	else if (git_odb_add_backend(r->fast, loose, 1) < 0) {
		/* not owned by the odb yet */
		loose->free(loose);
		error = err_set(err, ERR_IO, "cannot open the objects of '%s'",
				path);
	} else
		r->loose = loose;
	if (!error && mem_backend_add(r) < 0)
		error = err_set(err, ERR_IO, "cannot open the objects of '%s'",
				path);
	free(objdir);
	if (error) {
		tree_close(r);
		return error;
	}
	*out = r;
	return 0;
}

static void to_git(git_oid *o, const struct tree_oid *t)
{
	memcpy(o->id, t->id, 20);
}

static void from_git(struct tree_oid *t, const git_oid *o)
{
	memcpy(t->id, o->id, 20);
}

/*
 * libgit2's allocations fail as kcarry's own do: "out of memory", exit
 * status 3 (xmalloc).  libgit2 1.5 does not survive its own failures:
 * loading a config it uses a map entry it never checked (a crash), keeps
 * a value whose copy failed as a key without a value, and leaks on
 * several paths (tests/unit/test_alloc.c).
 */
static void *lg_malloc(size_t n, const char *file, int line)
{
	return xmalloc(n);
}

static void *lg_calloc(size_t nelem, size_t elsize, const char *file, int line)
{
	return xcalloc(nelem, elsize);
}

static char *lg_strdup(const char *s, const char *file, int line)
{
	return xstrdup(s);
}

static char *lg_strndup(const char *s, size_t n, const char *file, int line)
{
	return xstrndup(s, strnlen(s, n));
}

static char *lg_substrdup(const char *s, size_t n, const char *file, int line)
{
	return xstrndup(s, n);
}

static void *lg_realloc(void *p, size_t n, const char *file, int line)
{
	return xrealloc(p, n);
}

static void *lg_reallocarray(void *p, size_t nelem, size_t elsize,
			     const char *file, int line)
{
	if (elsize && nelem > SIZE_MAX / elsize)
		die_oom(SIZE_MAX);
	return xrealloc(p, nelem * elsize);
}

static void *lg_mallocarray(size_t nelem, size_t elsize, const char *file,
			    int line)
{
	return lg_reallocarray(NULL, nelem, elsize, file, line);
}

static void lg_free(void *p)
{
	free(p);
}

int tree_global_init(struct err *err)
{
	static git_allocator alloc = { lg_malloc,	lg_calloc,
				       lg_strdup,	lg_strndup,
				       lg_substrdup,	lg_realloc,
				       lg_reallocarray, lg_mallocarray,
				       lg_free };

	/* before the first allocation of libgit2's own */
	git_libgit2_opts(GIT_OPT_SET_ALLOCATOR, &alloc);
	if (git_libgit2_init() < 0)
		return err_set(err, ERR_IO, "cannot initialise libgit2: %s",
			       git_text());
	/*
	 * Like git itself, trust the object store: do not re-hash every
	 * object read, nor look up every object a new tree names.
	 */
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_OBJECT_CREATION, 0);
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
	/*
	 * libgit2 caches no tree over 4 KiB: a kernel folder (drivers/,
	 * fs/btrfs/) is larger, and every path looked up in it inflated it
	 * again (a patch adding 100,000 files took 75 s to refresh).
	 */
	git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, GIT_OBJECT_TREE,
			 (size_t)4 << 20);
	return 0;
}

void tree_global_shutdown(void)
{
	git_libgit2_shutdown();
}

int tree_merge_file(struct buf *out, bool *conflicts, struct span base,
		    struct span ours, struct span theirs,
		    const struct tree_merge_labels *labels, struct err *err)
{
	git_merge_file_input in_base = GIT_MERGE_FILE_INPUT_INIT;
	git_merge_file_input in_ours = GIT_MERGE_FILE_INPUT_INIT;
	git_merge_file_input in_theirs = GIT_MERGE_FILE_INPUT_INIT;
	git_merge_file_options opts = GIT_MERGE_FILE_OPTIONS_INIT;
	git_merge_file_result res = { 0 };

	in_base.ptr = base.ptr ? base.ptr : "";
	in_base.size = base.len;
	in_ours.ptr = ours.ptr ? ours.ptr : "";
	in_ours.size = ours.len;
	in_theirs.ptr = theirs.ptr ? theirs.ptr : "";
	in_theirs.size = theirs.len;
	opts.flags = GIT_MERGE_FILE_STYLE_DIFF3;
	if (labels) {
		opts.ancestor_label = labels->ancestor;
		opts.our_label = labels->ours;
		opts.their_label = labels->theirs;
	}
	if (git_merge_file(&res, &in_base, &in_ours, &in_theirs, &opts) < 0)
		return err_set(err, ERR_IO, "cannot merge: %s", git_text());
	buf_reset(out);
	buf_add(out, res.ptr, res.len);
	*conflicts = !res.automergeable;
	git_merge_file_result_free(&res);
	return 0;
}

static int diff_hunk_cb(const git_diff_delta *delta, const git_diff_hunk *h,
			void *payload)
{
	struct tree_diff *d = payload;
	struct tree_diff_hunk *th;

	ALLOC_GROW(d->hunks, d->nr_hunks + 1, d->alloc_hunks);
	th = &d->hunks[d->nr_hunks++];
	th->old_start = (size_t)h->old_start;
	th->old_count = (size_t)h->old_lines;
	th->new_start = (size_t)h->new_start;
	th->new_count = (size_t)h->new_lines;
	th->first = d->nr_lines;
	th->nr = 0;
	return 0;
}

static int diff_line_cb(const git_diff_delta *delta, const git_diff_hunk *h,
			const git_diff_line *l, void *payload)
{
	struct tree_diff *d = payload;
	struct tree_diff_line *tl;

	/* "\ No newline at end of file" marks are not lines */
	if (l->origin != GIT_DIFF_LINE_CONTEXT &&
	    l->origin != GIT_DIFF_LINE_ADDITION &&
	    l->origin != GIT_DIFF_LINE_DELETION)
		return 0;
	if (!d->nr_hunks)
		return -1;
	ALLOC_GROW(d->lines, d->nr_lines + 1, d->alloc_lines);
	tl = &d->lines[d->nr_lines++];
	tl->kind = l->origin == GIT_DIFF_LINE_CONTEXT	 ? ' '
		   : l->origin == GIT_DIFF_LINE_ADDITION ? '+'
							 : '-';
	tl->old_no = l->old_lineno > 0 ? (size_t)l->old_lineno : 0;
	tl->new_no = l->new_lineno > 0 ? (size_t)l->new_lineno : 0;
	d->hunks[d->nr_hunks - 1].nr++;
	return 0;
}

int tree_diff_text(struct tree_diff *out, struct span a, struct span b,
		   unsigned context, struct err *err)
{
	git_diff_options opts = GIT_DIFF_OPTIONS_INIT;

	memset(out, 0, sizeof(*out));
	opts.flags = GIT_DIFF_FORCE_TEXT;
	opts.context_lines = context;
	opts.interhunk_lines = 0;
	if (git_diff_buffers(a.ptr ? a.ptr : "", a.len, "a", b.ptr ? b.ptr : "",
			     b.len, "b", &opts, NULL, NULL, diff_hunk_cb,
			     diff_line_cb, out) < 0) {
		tree_diff_release(out);
		return err_set(err, ERR_IO, "cannot diff two texts: %s",
			       git_text());
	}
	return 0;
}

void tree_diff_release(struct tree_diff *d)
{
	free(d->hunks);
	free(d->lines);
	memset(d, 0, sizeof(*d));
}

int tree_open(struct tree_repo **out, const char *path, struct err *err)
{
	git_repository *repo = NULL;

	*out = NULL;
	if (git_repository_open_ext(&repo, path, GIT_REPOSITORY_OPEN_NO_SEARCH,
				    NULL) < 0)
		return err_set(err, ERR_IO, "cannot open repository '%s': %s",
			       path, git_text());
	return wrap_repo(out, repo, path, err);
}

void tree_close(struct tree_repo *r)
{
	if (!r)
		return;
	tree_prefetch_stop(r);
	if (r->mem)
		r->mem->r = NULL;
	for (size_t i = 0; r->cache && i < CACHE_SLOTS; i++)
		buf_release(&r->cache[i].data);
	free(r->cache);
	free(r->buckets);
	git_odb_free(r->fast);
	git_repository_free(r->repo);
	free(r->path);
	free(r);
}

const char *tree_path(const struct tree_repo *r)
{
	return r->path;
}

const char *tree_git_dir(const struct tree_repo *r)
{
	return git_repository_path(r->repo);
}

int tree_read_blob_by_id(struct buf *out, struct tree_repo *r,
			 const char *hex, struct err *err)
{
	git_oid oid;
	git_blob *blob = NULL;
	size_t len = strlen(hex);
	int rc;

	if (len < 4 || len > GIT_OID_HEXSZ ||
	    git_oid_fromstrn(&oid, hex, len) < 0)
		return err_set(err, ERR_PARSE, "'%s' is not an object id", hex);
	rc = git_blob_lookup_prefix(&blob, r->repo, &oid, len);
	if (rc == GIT_ENOTFOUND || rc == GIT_EAMBIGUOUS)
		return err_set(err, ERR_NOTFOUND, "no blob '%s' in '%s'", hex,
			       r->path);
	if (rc < 0)
		return err_set(err, ERR_IO, "cannot read blob '%s': %s", hex,
			       git_text());
	buf_reset(out);
	buf_add(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	git_blob_free(blob);
	return 0;
}

void tree_commit_patches_free(struct tree_commit_patch *p, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		buf_release(&p[i].text);
	free(p);
}

static int format_commit(struct buf *out, git_commit *commit,
			 struct err *err)
{
	git_buf email = GIT_BUF_INIT;
	git_email_create_options eo = GIT_EMAIL_CREATE_OPTIONS_INIT;

	eo.flags = GIT_EMAIL_CREATE_OMIT_NUMBERS;
	eo.diff_opts.flags |= GIT_DIFF_SHOW_BINARY;
	if (git_email_create_from_commit(&email, commit, &eo) < 0)
		return err_set(err, ERR_IO, "cannot format commit %s: %s",
			       git_oid_tostr_s(git_commit_id(commit)),
			       git_text());
	buf_reset(out);
	buf_add(out, email.ptr, email.size);
	git_buf_dispose(&email);
	return 0;
}

/* The tree of commit (into *t). */
static int tree_of_commit(git_tree **t, struct tree_repo *r,
			  const git_oid *commit, struct err *err)
{
	git_commit *c = NULL;
	int error = 0;

	*t = NULL;
	if (git_commit_lookup(&c, r->repo, commit) < 0 ||
	    git_commit_tree(t, c) < 0)
		error = err_set(err, ERR_IO, "cannot read commit: %s",
				git_text());
	git_commit_free(c);
	return error;
}

/*
 * The blob at path in tree t: its id and mode, *found false when there
 * is none (a folder or a submodule is not one).
 */
static int blob_entry_at(git_oid *id, unsigned *mode, bool *found, git_tree *t,
			 const char *path, struct err *err)
{
	git_tree_entry *e = NULL;
	int rc, error = 0;

	*found = false;
	*mode = 0;
	rc = git_tree_entry_bypath(&e, t, path);
	if (rc == 0 && git_tree_entry_type(e) == GIT_OBJECT_BLOB) {
		*found = true;
		*mode = (unsigned)git_tree_entry_filemode(e);
		git_oid_cpy(id, git_tree_entry_id(e));
	} else if (rc < 0 && rc != GIT_ENOTFOUND)
		error = err_set(err, ERR_IO, "cannot read '%s': %s", path,
				git_text());
	git_tree_entry_free(e);
	return error;
}

/* The blob id (path's) into *blob when found, else NULL. */
static int blob_of(git_blob **blob, struct tree_repo *r, const git_oid *id,
		   bool found, const char *path, struct err *err)
{
	*blob = NULL;
	if (found && git_blob_lookup(blob, r->repo, id) < 0)
		return err_set(err, ERR_IO, "cannot read '%s': %s", path,
			       git_text());
	return 0;
}

/* A git mode as git writes it: 100644, 100755 (any execute bit), 120000. */
static unsigned git_mode(unsigned mode)
{
	if ((mode & 0170000) == 0120000)
		return 0120000;
	return mode & 0111 ? 0100755 : 0100644;
}

/* path as git quotes it in a "diff --git" line (core.quotePath on) */
static void add_git_path(struct buf *out, const char *prefix, const char *path)
{
	bool quote = false;

	for (const unsigned char *c = (const unsigned char *)path; *c; c++)
		quote |= *c < 0x20 || *c >= 0x7f || *c == '"' || *c == '\\';
	if (!quote) {
		buf_addf(out, "%s%s", prefix, path);
		return;
	}
	buf_addf(out, "\"%s", prefix);
	for (const unsigned char *c = (const unsigned char *)path; *c; c++) {
		if (*c == '"' || *c == '\\')
			buf_addf(out, "\\%c", *c);
		else if (*c == '\t')
			buf_adds(out, "\\t");
		else if (*c == '\n')
			buf_adds(out, "\\n");
		else if (*c < 0x20 || *c >= 0x7f)
			buf_addf(out, "\\%03o", *c);
		else
			buf_addc(out, (char)*c);
	}
	buf_addc(out, '"');
}

/*
 * libgit2's diff of two blobs knows no modes: it writes 100644 for both.
 * Put the modes of the trees in its header, as git diff writes them:
 * "new file mode 100755", "deleted file mode 120000", "old mode 100644" /
 * "new mode 100755" before the index line, or the mode on the index line
 * when it did not change.
 */
static void add_with_modes(struct buf *out, const char *text, size_t len,
			   unsigned ma, unsigned mb)
{
	const char *p = text, *end = text + len;
	bool header = true;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t n = eol ? (size_t)(eol - p) + 1 : (size_t)(end - p);
		struct span l = { p, n };

		if (header && (span_starts_with(l, "--- ") ||
			       span_starts_with(l, "Binary files ") ||
			       span_starts_with(l, "GIT binary patch")))
			header = false;
		if (header && span_starts_with(l, "new file mode ")) {
			buf_addf(out, "new file mode %06o\n", mb);
		} else if (header && span_starts_with(l, "deleted file mode ")) {
			buf_addf(out, "deleted file mode %06o\n", ma);
		} else if (header && span_starts_with(l, "index ") && ma && mb) {
			const char *sp = memchr(p + 6, ' ', n - 6);
			size_t idx = sp ? (size_t)(sp - p) : n - 1;
			if (ma != mb)
				buf_addf(out, "old mode %06o\nnew mode %06o\n", ma,
					 mb);
			buf_add(out, p, idx);
			if (ma == mb)
				buf_addf(out, " %06o", ma);
			buf_addc(out, '\n');
		} else {
			buf_add(out, p, n);
		}
		p += n;
	}
}

/*
 * A windowed diff (issue 18): a patch changes a few lines of files of
 * thousands, and xdiff hashes and classifies every line of both.  The
 * diff is taken instead of a window of the two texts, the changed lines
 * and WIN_MARGIN unchanged lines each side, then its hunk headers are
 * moved back to the whole file's line numbers; the text must be the one
 * the whole-file diff writes, byte for byte, so the window is used only
 * where every input of xdiff's choices is provably the same:
 *
 *  - xdiff trims the common first and last lines, then the rest (the
 *    middle) is the same lines in both diffs;
 *  - it discards middle lines with no match, or with many matches amid
 *    unmatched ones, from the Myers pass (xdl_cleanup_records): that
 *    depends on how often each middle line occurs in the other whole
 *    file and on the file's length.  Copies of middle lines are put
 *    after both windows (common last lines, trimmed) so that xdiff counts
 *    them in the same classes (none, a few, many) as in the whole texts,
 *    and the choice is computed for the window and the whole texts: it
 *    must agree line for line;
 *  - it slides changed groups along equal lines and writes 3 lines of
 *    context: no hunk of the window's diff may touch an edge of the
 *    window that is not an edge of the file;
 *  - the function name after the second @@ is the nearest line at or
 *    above the hunk starting with a letter, '_' or '$' (libgit2's
 *    default driver; the "diff" attribute must be unset): a hunk whose
 *    window found none takes the nearest above the window.
 *
 * Anything else (small or binary texts, a "diff" attribute, core.abbrev
 * set, changes far apart) takes the whole-file diff.
 */
#define WIN_MARGIN 20          /* unchanged lines kept each side */
#define WIN_MIN_BYTES 16384    /* below: the whole diff costs little */
#define WIN_NUL_BYTES 8000     /* libgit2 looks this far for a NUL */
#define WIN_MAX_EQLIMIT 1024   /* xdiff's XDL_MAX_EQLIMIT */
#define WIN_SIMSCAN 100        /* xdiff's XDL_SIMSCAN_WINDOW */
#define WIN_KPDIS_RUN 4        /* xdiff's XDL_KPDIS_RUN */
#define WIN_FUNC_BYTES 80      /* xdiff's function line buffer */

/* One distinct line of the middles and where it occurs. */
struct win_entry {
	const char *p;
	size_t n;
	size_t in_a, in_b; /* in the windows */
	size_t out;        /* outside the windows (the same in both) */
	size_t pad;        /* copies put after both windows */
	bool mid_a, mid_b; /* a line of a's middle, of b's */
};

struct win_table {
	struct win_entry *e;
	size_t *slot; /* index + 1 into e, 0: free */
	size_t nr, alloc, mask;
	uint64_t sigs[1024]; /* win_sig() of the lines present */
};

/* a line's length and first and last bytes, in 16 bits: a quick filter */
static size_t win_sig(const char *p, size_t n)
{
	uint32_t h = (uint32_t)n * 2654435761u;

	h ^= (uint32_t)(unsigned char)p[0] * 40503u;
	h ^= (uint32_t)(unsigned char)p[n > 1 ? n - 2 : 0] * 9973u;
	return (h ^ (h >> 16)) & 0xffff;
}

static size_t win_hash(const char *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
	return (size_t)(h ^ (h >> 29));
}

/* the entry of line p[0..n), or SIZE_MAX; add: insert when absent */
static size_t win_find(struct win_table *t, const char *p, size_t n, bool add)
{
	size_t i = win_hash(p, n) & t->mask;

	for (;; i = (i + 1) & t->mask) {
		size_t k = t->slot[i];

		if (!k)
			break;
		if (t->e[k - 1].n == n && !memcmp(t->e[k - 1].p, p, n))
			return k - 1;
	}
	if (!add)
		return SIZE_MAX;
	ALLOC_GROW(t->e, t->nr + 1, t->alloc);
	t->e[t->nr] = (struct win_entry){ .p = p, .n = n };
	t->slot[i] = ++t->nr;
	i = win_sig(p, n);
	t->sigs[i / 64] |= 1ull << (i & 63);
	return t->nr - 1;
}

/* lines of p[0..n): starts[0..nr] (starts[nr] == n) */
static size_t win_lines(size_t **starts, const char *p, size_t n)
{
	size_t nr = 0, alloc = 0, at = 0;

	*starts = NULL;
	while (at < n) {
		const char *nl = memchr(p + at, '\n', n - at);

		ALLOC_GROW(*starts, nr + 1, alloc);
		(*starts)[nr++] = at;
		at = nl ? (size_t)(nl - p) + 1 : n;
	}
	ALLOC_GROW(*starts, nr + 1, alloc);
	(*starts)[nr] = n;
	return nr;
}

/*
 * Count the lines of p[0..n) into *lines and, for those that are lines of
 * the middles, their occurrences outside the windows.
 */
static void win_count_outside(struct win_table *t, const char *p, size_t n,
			      size_t *lines)
{
	size_t at = 0;

	while (at < n) {
		const char *nl = memchr(p + at, '\n', n - at);
		size_t end = nl ? (size_t)(nl - p) + 1 : n, len = end - at, k;
		size_t sig = win_sig(p + at, len);

		(*lines)++;
		if ((t->sigs[sig / 64] >> (sig & 63)) & 1 &&
		    (k = win_find(t, p + at, len, false)) != SIZE_MAX)
			t->e[k].out++;
		at = end;
	}
}

/* xdiff's xdl_bogosqrt, capped at XDL_MAX_EQLIMIT */
static size_t win_mlim(size_t n)
{
	size_t i = 1;

	for (; n > 0; n >>= 2)
		i <<= 1;
	return i > WIN_MAX_EQLIMIT ? WIN_MAX_EQLIMIT : i;
}

/* xdiff's xdl_clean_mmatch on dis[s..e] */
static bool win_clean_mmatch(const char *dis, size_t i, size_t s, size_t e)
{
	size_t r, rdis0, rpdis0, rdis1, rpdis1;

	if (i - s > WIN_SIMSCAN)
		s = i - WIN_SIMSCAN;
	if (e - i > WIN_SIMSCAN)
		e = i + WIN_SIMSCAN;
	for (r = 1, rdis0 = 0, rpdis0 = 1; i >= s + r; r++) {
		if (!dis[i - r])
			rdis0++;
		else if (dis[i - r] == 2)
			rpdis0++;
		else
			break;
	}
	if (rdis0 == 0)
		return false;
	for (r = 1, rdis1 = 0, rpdis1 = 1; i + r <= e; r++) {
		if (!dis[i + r])
			rdis1++;
		else if (dis[i + r] == 2)
			rpdis1++;
		else
			break;
	}
	if (rdis1 == 0)
		return false;
	rdis1 += rdis0;
	rpdis1 += rpdis0;
	return rpdis1 * WIN_KPDIS_RUN < rpdis1 + rdis1;
}

/*
 * Whether xdiff keeps the same middle lines for its Myers pass in the
 * window (padded) as in the whole text: ent[i] is the entry of middle
 * line i; side_a: the middle is a's, whose lines are counted in b.
 */
static bool win_same_keep(const struct win_table *t, const size_t *ent,
			  size_t m, bool side_a, size_t nwin, size_t nwhole)
{
	char *dw = xmalloc(2 * m + 1), *dh = dw + m;
	size_t lw = win_mlim(nwin), lh = win_mlim(nwhole);
	bool same = true;

	for (size_t i = 0; i < m; i++) {
		const struct win_entry *e = &t->e[ent[i]];
		size_t in = (side_a ? e->in_b : e->in_a) + e->pad;
		size_t all = (side_a ? e->in_b : e->in_a) + e->out;

		dw[i] = in == 0 ? 0 : in >= lw ? 2 : 1;
		dh[i] = all == 0 ? 0 : all >= lh ? 2 : 1;
	}
	for (size_t i = 0; i < m && same; i++) {
		bool kw = dw[i] == 1 ||
			  (dw[i] == 2 && !win_clean_mmatch(dw, i, 0, m - 1));
		bool kh = dh[i] == 1 ||
			  (dh[i] == 2 && !win_clean_mmatch(dh, i, 0, m - 1));
		same = kw == kh;
	}
	free(dw);
	return same;
}

/*
 * Narrow [*lo, *hi], the copies of a line to put after the windows, so
 * that with `in` occurrences in the window of lw lines' limit it falls in
 * the class xdiff gives it with `all` occurrences in the whole (limit lh):
 * none, a few (kept), many (dropped amid unmatched lines).
 */
static void win_narrow(size_t *lo, size_t *hi, size_t in, size_t all,
		       size_t lw, size_t lh)
{
	if (all == 0) {
		*hi = 0;
	} else if (all < lh) {
		if (in >= lw)
			*hi = 0, *lo = 1; /* cannot: too many in the window */
		else if (*hi > lw - 1 - in)
			*hi = lw - 1 - in;
		if (!in && *lo < 1)
			*lo = 1;
	} else if (in < lw && *lo < lw - in) {
		*lo = lw - in;
	}
}

/*
 * The copies of each middle line to put after both windows (where xdiff
 * trims them as common last lines) so that it counts them as it counts
 * the lines outside the window in the whole texts; their sum.
 */
static size_t win_padding(struct win_table *t, size_t wla, size_t wlb,
			  size_t na, size_t nb)
{
	size_t lha = win_mlim(na), lhb = win_mlim(nb), padn = 0;

	/* the window's limits depend on the padding: settle in turns */
	for (int round = 0; round < 4; round++) {
		size_t lwa = win_mlim(wla + padn), lwb = win_mlim(wlb + padn);
		size_t sum = 0;

		for (size_t i = 0; i < t->nr; i++) {
			struct win_entry *e = &t->e[i];
			size_t lo = 0, hi = SIZE_MAX;

			if (e->mid_a)
				win_narrow(&lo, &hi, e->in_b, e->in_b + e->out,
					   lwa, lha);
			if (e->mid_b)
				win_narrow(&lo, &hi, e->in_a, e->in_a + e->out,
					   lwb, lhb);
			e->pad = lo <= hi ? lo : 0;
			sum += e->pad;
		}
		if (sum == padn)
			break;
		padn = sum;
	}
	return padn;
}

static size_t common_prefix(const char *a, const char *b, size_t n)
{
	size_t i = 0;

	while (n - i >= 64 && !memcmp(a + i, b + i, 64))
		i += 64;
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/* the common suffix of a[0..na) and b[0..nb), at most max bytes */
static size_t common_suffix(const char *a, size_t na, const char *b,
			    size_t nb, size_t max)
{
	size_t i = 0;

	while (max - i >= 64 && !memcmp(a + na - i - 64, b + nb - i - 64, 64))
		i += 64;
	while (i < max && a[na - i - 1] == b[nb - i - 1])
		i++;
	return i;
}

static bool win_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' ||
	       c == '\v';
}

/*
 * The function line libgit2's default driver finds at or above the line
 * ending at text[end - 1], searching up: rtrimmed, at most 80 bytes.
 * Empty when there is none.
 */
static struct span win_func_above(const char *text, size_t end)
{
	while (end > 0) {
		const char *nl = end > 1 ? memrchr(text, '\n', end - 1) : NULL;
		size_t start = nl ? (size_t)(nl - text) + 1 : 0, n = end - start;
		char c;

		while (n && win_space(text[start + n - 1]))
			n--;
		c = text[start];
		if (n && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  c == '_' || c == '$'))
			return (struct span){ text + start,
					      n > WIN_FUNC_BYTES ? WIN_FUNC_BYTES :
								   n };
		end = start;
	}
	return (struct span){ text, 0 };
}

/* "@@ -a[,b] +c[,d] @@" into *s, *n; the rest after " @@" into *rest */
static bool win_parse_hunk(struct span l, size_t *s1, size_t *c1,
			   size_t *s2, size_t *c2, struct span *rest)
{
	const char *p = l.ptr, *end = l.ptr + l.len;
	size_t *v[4] = { s1, c1, s2, c2 };

	for (int k = 0; k < 4; k += 2) {
		if (end - p < 2 || memcmp(p, k ? " +" : "@@ -", k ? 2 : 4))
			return false;
		p += k ? 2 : 4;
		for (int j = k; j < k + 2; j++) {
			if (j == k + 1) {
				if (p >= end || *p != ',') {
					*v[j] = 1;
					break;
				}
				p++;
			}
			if (p >= end || *p < '0' || *p > '9')
				return false;
			for (*v[j] = 0; p < end && *p >= '0' && *p <= '9'; p++) {
				if (*v[j] > SIZE_MAX / 10 - 1)
					return false;
				*v[j] = *v[j] * 10 + (size_t)(*p - '0');
			}
		}
	}
	if (end - p < 3 || memcmp(p, " @@", 3))
		return false;
	*rest = (struct span){ p + 3, (size_t)(end - p - 3) };
	return true;
}

static void win_add_hunk_numbers(struct buf *out, size_t s1, size_t c1,
				 size_t s2, size_t c2)
{
	buf_addf(out, "@@ -%zu", s1);
	if (c1 != 1)
		buf_addf(out, ",%zu", c1);
	buf_addf(out, " +%zu", s2);
	if (c2 != 1)
		buf_addf(out, ",%zu", c2);
	buf_adds(out, " @@");
}

/* A text to diff and the id of its blob. */
struct win_text {
	struct span text;
	const git_oid *id;
};

/* A window of two texts a and b: what diff_window() works out. */
struct win {
	struct span a, b;
	size_t ws, ea, eb;     /* the window: a[ws..ea), b[ws..eb) */
	size_t *la, *lb;       /* its lines' starts (win_lines()) */
	size_t wla, wlb;       /* its lines */
	size_t pre, suf;       /* its common first and last lines */
	size_t top, below;     /* lines of a above and below it */
	size_t padn;           /* copies of middle lines put after it */
	struct span above;     /* the function line above it */
	char ida[GIT_OID_HEXSZ + 1], idb[GIT_OID_HEXSZ + 1];
};

/*
 * Move the window's diff text back to the whole file: the ids of the
 * whole texts on the index line, hunk headers off by w->top lines and the
 * function lines the window could not see.  False when a hunk touches an
 * edge of the window that is not the file's, or the text is not of the
 * form expected.
 */
static bool win_rewrite(struct buf *out, struct span diff,
			const struct win *w)
{
	const char *p = diff.ptr, *end = diff.ptr + diff.len;
	bool header = true, hunks = false;
	bool cut_below = w->below > 0 || w->padn > 0;
	struct buf num = BUF_INIT;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t n = eol ? (size_t)(eol - p) + 1 : (size_t)(end - p);
		struct span l = { p, n }, rest;
		size_t s1, c1, s2, c2, f1, f2;

		p += n;
		if (header && span_starts_with(l, "index ")) {
			const char *dots = memchr(l.ptr, '.', l.len);
			const char *sp = memchr(l.ptr + 6, ' ', l.len - 6);

			if (!dots || !sp || dots > sp || sp - dots != 9 ||
			    dots - l.ptr != 13)
				goto no;
			buf_addf(out, "index %s..%s", w->ida, w->idb);
			buf_add(out, sp, (size_t)(l.ptr + l.len - sp));
			continue;
		}
		if (!span_starts_with(l, "@@ ")) {
			if (header && (span_starts_with(l, "Binary files ") ||
				       span_starts_with(l, "GIT binary patch")))
				goto no;
			buf_addspan(out, l);
			continue;
		}
		header = false;
		hunks = true;
		if (!win_parse_hunk(l, &s1, &c1, &s2, &c2, &rest))
			goto no;
		/* the header as xdiff writes it, or not what we expect */
		buf_reset(&num);
		win_add_hunk_numbers(&num, s1, c1, s2, c2);
		if (num.len + rest.len != l.len || memcmp(num.ptr, l.ptr, num.len))
			goto no;
		/* first lines, from 0; a count of 0 names the line before */
		f1 = c1 ? s1 - 1 : s1;
		f2 = c2 ? s2 - 1 : s2;
		if (!c1 && !c2)
			goto no;
		if (w->top && (f1 == 0 || f2 == 0))
			goto no;
		if (cut_below && (f1 + c1 >= w->wla || f2 + c2 >= w->wlb))
			goto no;
		buf_reset(&num);
		win_add_hunk_numbers(&num, s1 + w->top, c1, s2 + w->top, c2);
		/* xdiff's header buffer holds 128 bytes with the function */
		if (num.len > 45)
			goto no;
		buf_addspan(out, (struct span){ num.ptr, num.len });
		if (rest.len == 1 && rest.ptr[0] == '\n' && w->above.len) {
			buf_addc(out, ' ');
			buf_addspan(out, w->above);
			buf_addc(out, '\n');
		} else {
			buf_addspan(out, rest);
		}
	}
	buf_release(&num);
	return hunks;
no:
	buf_release(&num);
	return false;
}

/* The window around what changed: false when none pays or can serve. */
static bool win_bounds(struct win *w)
{
	const char *a = w->a.ptr, *b = w->b.ptr;
	size_t na = w->a.len, nb = w->b.len, d, ls, c, pa, pb;

	if (na < WIN_MIN_BYTES || nb < WIN_MIN_BYTES ||
	    memchr(a, 0, na < WIN_NUL_BYTES ? na : WIN_NUL_BYTES) ||
	    memchr(b, 0, nb < WIN_NUL_BYTES ? nb : WIN_NUL_BYTES))
		return false;
	d = common_prefix(a, b, na < nb ? na : nb);
	if (d == na && d == nb)
		return false;
	/* the first line that differs starts at ls in both */
	ls = 0;
	if (d) {
		const char *nl = memrchr(a, '\n', d);
		ls = nl ? (size_t)(nl - a) + 1 : 0;
	}
	/* the last lines in common, not reaching above ls (xdl_trim_ends) */
	c = common_suffix(a, na, b, nb, (na < nb ? na : nb) - ls);
	pa = na - c;
	pb = nb - c;
	if (!((pa == 0 || a[pa - 1] == '\n') && (pb == 0 || b[pb - 1] == '\n'))) {
		const char *nl = memchr(a + pa, '\n', na - pa);
		pa = nl ? (size_t)(nl - a) + 1 : na;
	}
	/* the window: WIN_MARGIN more lines each side */
	w->ws = ls;
	for (int k = 0; k < WIN_MARGIN && w->ws; k++) {
		const char *nl = w->ws > 1 ? memrchr(a, '\n', w->ws - 1) : NULL;
		w->ws = nl ? (size_t)(nl - a) + 1 : 0;
	}
	w->ea = pa;
	for (int k = 0; k < WIN_MARGIN && w->ea < na; k++) {
		const char *nl = memchr(a + w->ea, '\n', na - w->ea);
		w->ea = nl ? (size_t)(nl - a) + 1 : na;
	}
	w->eb = nb - (na - w->ea);
	/* a window of most of the text gains little */
	if (w->ea < w->ws || w->eb < w->ws || (w->ea - w->ws) > na / 4 * 3 ||
	    (w->eb - w->ws) > nb / 4 * 3)
		return false;
	return !memchr(a + w->ws, 0, w->ea - w->ws < WIN_NUL_BYTES
					     ? w->ea - w->ws : WIN_NUL_BYTES) &&
	       !memchr(b + w->ws, 0, w->eb - w->ws < WIN_NUL_BYTES
					     ? w->eb - w->ws : WIN_NUL_BYTES);
}

/* The window's lines and its middle (what xdl_trim_ends leaves). */
static void win_middle(struct win *w)
{
	const char *a = w->a.ptr + w->ws, *b = w->b.ptr + w->ws;
	size_t *la, *lb, lim;

	w->wla = win_lines(&w->la, a, w->ea - w->ws);
	w->wlb = win_lines(&w->lb, b, w->eb - w->ws);
	la = w->la;
	lb = w->lb;
	lim = w->wla < w->wlb ? w->wla : w->wlb;
	for (w->pre = 0; w->pre < lim; w->pre++)
		if (la[w->pre + 1] - la[w->pre] != lb[w->pre + 1] - lb[w->pre] ||
		    memcmp(a + la[w->pre], b + lb[w->pre],
			   la[w->pre + 1] - la[w->pre]))
			break;
	for (w->suf = 0; w->suf < lim - w->pre; w->suf++) {
		size_t i = w->wla - 1 - w->suf, j = w->wlb - 1 - w->suf;

		if (la[i + 1] - la[i] != lb[j + 1] - lb[j] ||
		    memcmp(a + la[i], b + lb[j], la[i + 1] - la[i]))
			break;
	}
}

/* The entries of the middle lines of one side, marked as such; and how
 * often each of them occurs in that window. */
static size_t *win_side(struct win_table *t, const char *text,
			const size_t *l, size_t nl, const struct win *w,
			bool side_a)
{
	size_t *ent = xmalloc((nl - w->pre - w->suf + 1) * sizeof(*ent));

	for (size_t i = w->pre; i < nl - w->suf; i++) {
		ent[i - w->pre] = win_find(t, text + l[i], l[i + 1] - l[i], true);
		if (side_a)
			t->e[ent[i - w->pre]].mid_a = true;
		else
			t->e[ent[i - w->pre]].mid_b = true;
	}
	return ent;
}

static void win_count_window(struct win_table *t, const char *text,
			     const size_t *l, size_t nl, bool side_a)
{
	for (size_t i = 0; i < nl; i++) {
		size_t k = win_find(t, text + l[i], l[i + 1] - l[i], false);

		if (k != SIZE_MAX && side_a)
			t->e[k].in_a++;
		else if (k != SIZE_MAX)
			t->e[k].in_b++;
	}
}

/*
 * How often each middle line occurs, in the windows and outside; the
 * padding (w->padn) that keeps xdiff's choice of the lines it keeps the
 * whole texts'.  False when that choice differs or the window does not
 * pay.
 */
static bool win_counts(struct win *w, struct win_table *t)
{
	const char *a = w->a.ptr, *b = w->b.ptr;
	size_t na = w->a.len, *ent_a, *ent_b;
	bool ok = false;

	t->mask = 1;
	while (t->mask < 2 * (w->wla + w->wlb) + 16)
		t->mask <<= 1;
	t->slot = xcalloc(t->mask, sizeof(*t->slot));
	t->mask--;
	ent_a = win_side(t, a + w->ws, w->la, w->wla, w, true);
	ent_b = win_side(t, b + w->ws, w->lb, w->wlb, w, false);
	win_count_window(t, a + w->ws, w->la, w->wla, true);
	win_count_window(t, b + w->ws, w->lb, w->wlb, false);
	win_count_outside(t, a, w->ws, &w->top);
	win_count_outside(t, a + w->ea, na - w->ea, &w->below);
	/* no padding after a last line without its newline */
	if (w->ea > w->ws && w->eb > w->ws && a[w->ea - 1] == '\n' &&
	    b[w->eb - 1] == '\n')
		w->padn = win_padding(t, w->wla, w->wlb,
				      w->top + w->wla + w->below,
				      w->top + w->wlb + w->below);
	/* more copies than lines left out: the whole diff is cheaper */
	if (w->padn <= w->top + w->below &&
	    win_same_keep(t, ent_a, w->wla - w->pre - w->suf, true,
			  w->wla + w->padn, w->top + w->wla + w->below) &&
	    win_same_keep(t, ent_b, w->wlb - w->pre - w->suf, false,
			  w->wlb + w->padn, w->top + w->wlb + w->below))
		ok = true;
	free(ent_a);
	free(ent_b);
	return ok;
}

/* The window's texts, a and b, with the padding after each. */
static void win_texts(struct buf *wa, struct buf *wb, const struct win *w,
		      const struct win_table *t)
{
	buf_add(wa, w->a.ptr + w->ws, w->ea - w->ws);
	buf_add(wb, w->b.ptr + w->ws, w->eb - w->ws);
	for (size_t i = 0; i < t->nr && w->padn; i++)
		for (size_t k = 0; k < t->e[i].pad; k++) {
			buf_add(wa, t->e[i].p, t->e[i].n);
			buf_add(wb, t->e[i].p, t->e[i].n);
		}
}

/*
 * The diff of ta to tb (texts and ids) from a window around what changed, into
 * out as libgit2 writes the whole diff (modes not yet put in).  1 when
 * written, 0 when the window cannot give the same text (out unchanged),
 * or an error.
 */
static int diff_window(struct buf *out, const char *path,
		       struct win_text ta, struct win_text tb, struct err *err)
{
	struct span a = ta.text, b = tb.text;
	struct win w = { .a = a, .b = b, .above = { a.ptr, 0 } };
	struct win_table t = { 0 };
	struct buf wa = BUF_INIT, wb = BUF_INIT;
	git_patch *patch = NULL;
	git_buf text = GIT_BUF_INIT;
	git_diff_options o = GIT_DIFF_OPTIONS_INIT;
	size_t len = out->len;
	int rc = 0;

	if (!win_bounds(&w))
		return 0;
	win_middle(&w);
	if (!win_counts(&w, &t))
		goto out;
	win_texts(&wa, &wb, &w, &t);
	if (w.top)
		w.above = win_func_above(a.ptr, w.ws);
	for (size_t i = 0; i < w.above.len; i++)
		if ((unsigned char)w.above.ptr[i] >= 0x80)
			goto out;
	o.flags |= GIT_DIFF_SHOW_BINARY;
	if (git_patch_from_buffers(&patch, wa.ptr, wa.len, path, wb.ptr,
				   wb.len, path, &o) < 0 ||
	    git_patch_to_buf(&text, patch) < 0) {
		rc = err_set(err, ERR_IO, "cannot diff '%s': %s", path,
			     git_text());
		goto out;
	}
	git_oid_tostr(w.ida, 8, ta.id);
	git_oid_tostr(w.idb, 8, tb.id);
	if (win_rewrite(out, (struct span){ text.ptr, text.size }, &w))
		rc = 1;
	else
		buf_truncate(out, len);
out:
	git_buf_dispose(&text);
	git_patch_free(patch);
	buf_release(&wa);
	buf_release(&wb);
	free(t.e);
	free(t.slot);
	free(w.la);
	free(w.lb);
	return rc;
}

/* One side of a diff: a blob (NULL: absent) and its mode. */
struct blob_side {
	git_blob *blob;
	unsigned mode;
};

/*
 * Whether libgit2 diffs path with its default driver in a's repository:
 * no "diff" attribute (a driver's function lines, or binary, differ).
 */
static bool diff_attr_unset(git_blob *a, const char *path)
{
	const char *v = NULL;

	if (git_attr_get(&v, git_blob_owner(a), 0, path, "diff") < 0) {
		git_error_clear();
		return false;
	}
	return git_attr_value(v) == GIT_ATTR_VALUE_UNSPECIFIED;
}

/*
 * Whether the index lines of libgit2's diffs in r carry 7 hex digits,
 * as the windowed diff writes them: core.abbrev unset.
 */
static bool default_abbrev(git_repository *repo)
{
	git_config *cfg = NULL;
	git_config_entry *e = NULL;
	bool unset = false;

	if (git_repository_config_snapshot(&cfg, repo) == 0) {
		unset = git_config_get_entry(&e, cfg, "core.abbrev") ==
			GIT_ENOTFOUND;
		git_config_entry_free(e);
	}
	git_config_free(cfg);
	git_error_clear();
	return unset;
}

/* The diff of one path from side sa to side sb; window: may diff a window */
static int diff_blobs(struct buf *out, const char *path, struct blob_side sa,
		      struct blob_side sb, bool window, struct err *err)
{
	git_blob *a = sa.blob, *b = sb.blob;
	unsigned ma = sa.mode, mb = sb.mode;
	git_patch *patch = NULL;
	git_buf text = GIT_BUF_INIT;
	git_diff_options o = GIT_DIFF_OPTIONS_INIT;
	int error = 0;

	ma = a ? git_mode(ma) : 0;
	mb = b ? git_mode(mb) : 0;
	/* a file that became a symlink (or back) is a deletion and an
	 * addition, as git writes it */
	if (a && b && (ma == 0120000) != (mb == 0120000)) {
		struct blob_side none = { NULL, 0 };

		if ((error = diff_blobs(out, path, (struct blob_side){ a, ma },
					none, false, err)) < 0)
			return error;
		return diff_blobs(out, path, none, (struct blob_side){ b, mb },
				  false, err);
	}
	if (a && b && git_oid_equal(git_blob_id(a), git_blob_id(b))) {
		/* the content is the same: libgit2 writes nothing */
		buf_adds(out, "diff --git ");
		add_git_path(out, "a/", path);
		buf_addc(out, ' ');
		add_git_path(out, "b/", path);
		buf_addf(out, "\nold mode %06o\nnew mode %06o\n", ma, mb);
		return 0;
	}
	if (window && a && b && (ma & 0170000) == 0100000 &&
	    (mb & 0170000) == 0100000 && diff_attr_unset(a, path)) {
		struct buf w = BUF_INIT;
		struct win_text ta = { { git_blob_rawcontent(a),
					 (size_t)git_blob_rawsize(a) },
				       git_blob_id(a) };
		struct win_text tb = { { git_blob_rawcontent(b),
					 (size_t)git_blob_rawsize(b) },
				       git_blob_id(b) };

		error = diff_window(&w, path, ta, tb, err);
		if (error > 0)
			add_with_modes(out, w.ptr, w.len, ma, mb);
		buf_release(&w);
		if (error)
			return error < 0 ? error : 0;
	}
	o.flags |= GIT_DIFF_SHOW_BINARY;
	if (git_patch_from_blobs(&patch, a, a ? path : NULL, b, b ? path : NULL,
				 &o) < 0 ||
	    git_patch_to_buf(&text, patch) < 0)
		error = err_set(err, ERR_IO, "cannot diff '%s': %s", path,
				git_text());
	else
		add_with_modes(out, text.ptr, text.size, ma, mb);
	git_buf_dispose(&text);
	git_patch_free(patch);
	return error;
}

int tree_diff_texts(struct buf *out, const char *path, struct span a,
		    struct span b, bool window, struct err *err)
{
	git_patch *patch = NULL;
	git_buf text = GIT_BUF_INIT;
	git_diff_options o = GIT_DIFF_OPTIONS_INIT;
	git_oid ia, ib;
	int error = 0;

	buf_reset(out);
	if (git_odb_hash(&ia, a.ptr, a.len, GIT_OBJECT_BLOB) < 0 ||
	    git_odb_hash(&ib, b.ptr, b.len, GIT_OBJECT_BLOB) < 0)
		return err_set(err, ERR_IO, "cannot hash '%s': %s", path,
			       git_text());
	if (window && (error = diff_window(out, path,
					   (struct win_text){ a, &ia },
					   (struct win_text){ b, &ib }, err)))
		return error;
	o.flags |= GIT_DIFF_SHOW_BINARY;
	if (git_patch_from_buffers(&patch, a.ptr, a.len, path, b.ptr, b.len,
				   path, &o) < 0 ||
	    git_patch_to_buf(&text, patch) < 0)
		error = err_set(err, ERR_IO, "cannot diff '%s': %s", path,
				git_text());
	else
		buf_add(out, text.ptr, text.size);
	git_buf_dispose(&text);
	git_patch_free(patch);
	return error;
}

int tree_diff_paths(struct buf *out, struct tree_repo *r,
		    const struct tree_oid *old_commit,
		    const struct tree_oid *new_commit,
		    const char *const *paths, size_t nr, struct err *err)
{
	git_oid oc, nc;
	git_tree *ot = NULL, *nt = NULL;
	bool window;
	int error = 0;

	struct strmap seen = STRMAP_INIT;

	to_git(&oc, old_commit);
	to_git(&nc, new_commit);
	buf_reset(out);
	if (nr && ((error = tree_of_commit(&ot, r, &oc, err)) < 0 ||
		   (error = tree_of_commit(&nt, r, &nc, err)) < 0))
		goto out;
	window = nr && default_abbrev(r->repo);
	for (size_t i = 0; i < nr && !error; i++) {
		git_blob *a = NULL, *b = NULL;
		git_oid ia, ib;
		unsigned ma, mb;
		bool fa, fb;

		/* a path named twice is diffed once (a hash: a patch may name
		 * 100,000 files) */
		if (strmap_get(&seen, paths[i]) != (size_t)-1)
			continue;
		strmap_put(&seen, paths[i], i);
		if ((error = blob_entry_at(&ia, &ma, &fa, ot, paths[i], err)) <
			    0 ||
		    (error = blob_entry_at(&ib, &mb, &fb, nt, paths[i], err)) <
			    0)
			break;
		/* the same blob and mode, or none: nothing to read */
		if ((!fa && !fb) || (fa && fb && git_mode(ma) == git_mode(mb) &&
				     git_oid_equal(&ia, &ib)))
			continue;
		if ((error = blob_of(&a, r, &ia, fa, paths[i], err)) == 0 &&
		    (error = blob_of(&b, r, &ib, fb, paths[i], err)) == 0)
			error = diff_blobs(out, paths[i],
					   (struct blob_side){ a, ma },
					   (struct blob_side){ b, mb }, window,
					   err);
		git_blob_free(a);
		git_blob_free(b);
	}
out:
	git_tree_free(ot);
	git_tree_free(nt);
	strmap_release(&seen);
	return error;
}

int tree_diff_renames(struct buf *out, bool *renamed, struct tree_repo *r,
		      const struct tree_oid *old_commit,
		      const struct tree_oid *new_commit,
		      const char *const *from, const char *const *to,
		      size_t nr, struct err *err)
{
	git_oid oc, nc;
	git_tree *ot = NULL, *nt = NULL;
	git_diff *diff = NULL;
	git_diff_options o = GIT_DIFF_OPTIONS_INIT;
	git_diff_find_options fo = GIT_DIFF_FIND_OPTIONS_INIT;
	char **specs;
	int error = 0;

	for (size_t i = 0; i < nr; i++)
		renamed[i] = false;
	if (!nr)
		return 0;
	to_git(&oc, old_commit);
	to_git(&nc, new_commit);
	if ((error = tree_of_commit(&ot, r, &oc, err)) < 0 ||
	    (error = tree_of_commit(&nt, r, &nc, err)) < 0)
		goto out;
	/* the pairs' paths alone: no walk of the whole tree */
	specs = xcalloc(2 * nr, sizeof(*specs));
	for (size_t i = 0; i < nr; i++) {
		specs[2 * i] = (char *)from[i];
		specs[2 * i + 1] = (char *)to[i];
	}
	o.pathspec.strings = specs;
	o.pathspec.count = 2 * nr;
	o.flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH | GIT_DIFF_SHOW_BINARY;
	fo.flags = GIT_DIFF_FIND_RENAMES;
	if (git_diff_tree_to_tree(&diff, r->repo, ot, nt, &o) < 0 ||
	    git_diff_find_similar(diff, &fo) < 0)
		error = err_set(err, ERR_IO, "cannot find renames: %s",
				git_text());
	for (size_t d = 0; !error && d < git_diff_num_deltas(diff); d++) {
		const git_diff_delta *dl = git_diff_get_delta(diff, d);
		git_patch *patch = NULL;
		git_buf text = GIT_BUF_INIT;
		size_t i;

		if (dl->status != GIT_DELTA_RENAMED)
			continue;
		for (i = 0; i < nr; i++)
			if (!renamed[i] && !strcmp(from[i], dl->old_file.path) &&
			    !strcmp(to[i], dl->new_file.path))
				break;
		if (i == nr)
			continue;
		if (git_patch_from_diff(&patch, diff, d) < 0 ||
		    git_patch_to_buf(&text, patch) < 0) {
			error = err_set(err, ERR_IO, "cannot diff '%s': %s",
					to[i], git_text());
		} else {
			buf_add(out, text.ptr, text.size);
			renamed[i] = true;
		}
		git_buf_dispose(&text);
		git_patch_free(patch);
	}
	git_diff_free(diff);
	free(specs);
out:
	git_tree_free(ot);
	git_tree_free(nt);
	return error;
}

int tree_format_commit(struct buf *out, struct tree_repo *r,
		       const struct tree_oid *commit, struct err *err)
{
	git_commit *c = NULL;
	git_oid o;
	int error;

	to_git(&o, commit);
	if (git_commit_lookup(&c, r->repo, &o) < 0)
		return err_set(err, ERR_IO, "cannot read commit: %s",
			       git_text());
	error = format_commit(out, c, err);
	git_commit_free(c);
	return error;
}

int tree_range_patches(struct tree_commit_patch **out, size_t *nr,
		       size_t *skipped, struct tree_repo *r,
		       const char *range, struct err *err)
{
	git_revwalk *walk = NULL;
	git_oid oid;
	size_t alloc = 0;
	int rc, error = 0;

	*out = NULL;
	*nr = 0;
	if (skipped)
		*skipped = 0;
	if (!strstr(range, ".."))
		return err_set(err, ERR_USAGE,
			       "'%s' is not a range (expected A..B)", range);
	{
		/* resolve both ends ourselves: libgit2 1.5's push_range leaks
		 * when the right end does not resolve */
		const char *dots = strstr(range, "..");
		char *left = xstrndup(range, (size_t)(dots - range));
		const char *right = dots + 2;
		struct tree_oid a, b;
		git_oid ga, gb;
		struct err e2 = ERR_INIT;
		bool ok = *left && *right && !strchr(right, '.') &&
			  tree_resolve(&a, r, left, &e2) == 0 &&
			  tree_resolve(&b, r, right, &e2) == 0;

		free(left);
		if (!ok) {
			error = err_set(err, ERR_NOTFOUND,
					"cannot resolve range '%s' in '%s': %s",
					range, r->path,
					e2.msg.len ? e2.msg.ptr : "not A..B");
			err_release(&e2);
			goto out;
		}
		err_release(&e2);
		to_git(&ga, &a);
		to_git(&gb, &b);
		if (git_revwalk_new(&walk, r->repo) < 0 ||
		    git_revwalk_push(walk, &gb) < 0 ||
		    git_revwalk_hide(walk, &ga) < 0) {
			error = err_set(err, ERR_IO, "cannot walk '%s': %s",
					range, git_text());
			goto out;
		}
	}
	if (git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE) <
	    0) {
		error = err_set(err, ERR_IO, "cannot walk '%s': %s", range,
				git_text());
		goto out;
	}
	while ((rc = git_revwalk_next(&oid, walk)) == 0) {
		git_commit *commit = NULL;
		struct tree_commit_patch *p;

		if (git_commit_lookup(&commit, r->repo, &oid) < 0) {
			error = err_set(err, ERR_IO, "cannot read commit: %s",
					git_text());
			goto out;
		}
		if (git_commit_parentcount(commit) > 1) {
			git_commit_free(commit);
			continue; /* merges carry no patch of their own */
		}
		if (git_commit_parentcount(commit) == 1) {
			git_commit *parent = NULL;
			bool empty = false;
			if (git_commit_parent(&parent, commit, 0) == 0)
				empty = git_oid_equal(git_commit_tree_id(commit),
						      git_commit_tree_id(parent));
			git_commit_free(parent);
			if (empty) {
				/* an empty commit has no patch to carry */
				if (skipped)
					(*skipped)++;
				git_commit_free(commit);
				continue;
			}
		}
		ALLOC_GROW(*out, *nr + 1, alloc);
		p = &(*out)[(*nr)++];
		git_oid_tostr(p->id, sizeof(p->id), &oid);
		buf_init(&p->text, 0);
		error = format_commit(&p->text, commit, err);
		git_commit_free(commit);
		if (error)
			goto out;
	}
	if (rc != GIT_ITEROVER && !error)
		error = err_set(err, ERR_IO, "cannot walk '%s': %s", range,
				git_text());
	if (!error && !*nr)
		error = err_set(err, ERR_NOTFOUND, "range '%s' has no commits",
				range);
out:
	git_revwalk_free(walk);
	if (error) {
		tree_commit_patches_free(*out, *nr);
		*out = NULL;
		*nr = 0;
	}
	return error;
}

/* Whether word stands in blob id as a word (a missing blob has none). */
static bool blob_has_word(git_repository *repo, const git_oid *id,
			  const char *word, size_t len)
{
	git_blob *b = NULL;
	bool yes;

	if (git_oid_is_zero(id) || git_blob_lookup(&b, repo, id) < 0)
		return false;
	yes = span_has_word((struct span){ git_blob_rawcontent(b),
					   (size_t)git_blob_rawsize(b) },
			    word, len);
	git_blob_free(b);
	return yes;
}

int tree_pickaxe(struct tree_pickaxe_hit *hit, struct tree_repo *r,
		 const struct tree_pickaxe_query *q, struct err *err)
{
	struct tree_oid *commit = &hit->commit;
	char **subject = &hit->subject;
	bool *found = &hit->found;
	const char *rev = q->rev, *word = q->word;
	const char *const *paths = q->paths;
	size_t nr_paths = q->nr_paths, max = q->max;
	git_revwalk *walk = NULL;
	git_object *start = NULL;
	git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
	git_oid id, best;
	size_t seen = 0, len = strlen(word);
	int error = 0;

	*found = false;
	*subject = NULL;
	opts.pathspec.strings = (char **)paths;
	opts.pathspec.count = paths ? nr_paths : 0;
	if (git_revparse_single(&start, r->repo, rev) < 0)
		return err_set(err, ERR_NOTFOUND, "cannot resolve '%s' in '%s': "
			       "%s", rev, r->path, git_text());
	if (git_revwalk_new(&walk, r->repo) < 0 ||
	    git_revwalk_sorting(walk, GIT_SORT_TIME) < 0 ||
	    git_revwalk_push(walk, git_object_id(start)) < 0) {
		error = err_set(err, ERR_IO, "cannot walk '%s': %s", r->path,
				git_text());
		goto out;
	}
	while (!error && (!max || seen < max) &&
	       git_revwalk_next(&id, walk) == 0) {
		git_commit *c = NULL, *parent = NULL;
		git_tree *t = NULL, *pt = NULL;
		git_diff *diff = NULL;

		seen++;
		if (git_commit_lookup(&c, r->repo, &id) < 0 ||
		    git_commit_parentcount(c) > 1 || git_commit_tree(&t, c) < 0 ||
		    (git_commit_parentcount(c) == 1 &&
		     (git_commit_parent(&parent, c, 0) < 0 ||
		      git_commit_tree(&pt, parent) < 0)) ||
		    git_diff_tree_to_tree(&diff, r->repo, pt, t, &opts) < 0)
			goto next;
		for (size_t i = 0; i < git_diff_num_deltas(diff); i++) {
			const git_diff_delta *d = git_diff_get_delta(diff, i);

			if (blob_has_word(r->repo, &d->new_file.id, word, len) &&
			    !blob_has_word(r->repo, &d->old_file.id, word,
					   len)) {
				/* the oldest such commit wins: keep going */
				git_oid_cpy(&best, &id);
				*found = true;
				break;
			}
		}
next:
		git_diff_free(diff);
		git_tree_free(t);
		git_tree_free(pt);
		git_commit_free(parent);
		git_commit_free(c);
	}
	if (*found) {
		git_commit *c = NULL;

		from_git(commit, &best);
		if (git_commit_lookup(&c, r->repo, &best) == 0) {
			*subject = xstrdup(git_commit_summary(c));
			git_commit_free(c);
		}
	}
out:
	git_revwalk_free(walk);
	git_object_free(start);
	return error;
}

int tree_diff_unified(struct buf *out, const char *path, struct span old,
		      struct span new, struct err *err)
{
	git_patch *patch = NULL;
	git_buf b = { 0 };
	int error = 0;

	if (git_patch_from_buffers(&patch, old.ptr, old.len, path, new.ptr,
				   new.len, path, NULL) < 0 ||
	    git_patch_to_buf(&b, patch) < 0) {
		error = err_set(err, ERR_IO, "cannot diff '%s': %s", path,
				git_text());
		goto out;
	}
	buf_add(out, b.ptr, b.size);
out:
	git_buf_dispose(&b);
	git_patch_free(patch);
	return error;
}

int tree_oid_parse(struct tree_oid *oid, const char *hex)
{
	git_oid o;

	if (strlen(hex) != GIT_OID_HEXSZ || git_oid_fromstr(&o, hex) < 0)
		return -1;
	from_git(oid, &o);
	return 0;
}

void tree_oid_hex(char out[41], const struct tree_oid *oid)
{
	git_oid o;
	memcpy(o.id, oid->id, 20);
	git_oid_tostr(out, 41, &o);
}

bool tree_oid_is_zero(const struct tree_oid *oid)
{
	for (size_t i = 0; i < 20; i++)
		if (oid->id[i])
			return false;
	return true;
}


int tree_init_bare(struct tree_repo **out, const char *path, struct err *err)
{
	git_repository *repo = NULL;

	*out = NULL;
	if (git_repository_open_bare(&repo, path) < 0 &&
	    git_repository_init(&repo, path, 1) < 0)
		return err_set(err, ERR_IO, "cannot create repository '%s': %s",
			       path, git_text());
	return wrap_repo(out, repo, path, err);
}

int tree_resolve(struct tree_oid *commit, struct tree_repo *r,
		 const char *rev, struct err *err)
{
	git_object *obj = NULL, *peeled = NULL;
	int error = 0;

	if (git_revparse_single(&obj, r->repo, rev) < 0)
		return err_set(err, ERR_NOTFOUND, "'%s' names no commit in '%s'",
			       rev, r->path);
	if (git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) < 0)
		error = err_set(err, ERR_NOTFOUND, "'%s' is not a commit: %s",
				rev, git_text());
	else
		from_git(commit, git_object_id(peeled));
	git_object_free(peeled);
	git_object_free(obj);
	return error;
}

int tree_commit_tree(struct tree_oid *tree, struct tree_repo *r,
		     const struct tree_oid *commit, struct err *err)
{
	git_commit *c = NULL;
	git_oid o;

	to_git(&o, commit);
	if (git_commit_lookup(&c, r->repo, &o) < 0)
		return err_set(err, ERR_IO, "cannot read commit: %s",
			       git_text());
	from_git(tree, git_commit_tree_id(c));
	git_commit_free(c);
	return 0;
}

static int promisor_cb(const git_config_entry *e, void *payload)
{
	int yes = 0;

	if (git_config_parse_bool(&yes, e->value) == 0 && yes)
		*(bool *)payload = true;
	return 0;
}

/* Whether r is a partial clone (a promisor remote, or git's extension). */
static bool partial_clone(struct tree_repo *r)
{
	git_config *cfg = NULL;
	git_buf v = GIT_BUF_INIT;
	bool yes = false;

	if (git_repository_config_snapshot(&cfg, r->repo) < 0)
		return false;
	if (git_config_get_string_buf(&v, cfg, "extensions.partialclone") == 0)
		yes = true;
	if (!yes)
		git_config_foreach_match(cfg, "^remote\\..*\\.promisor$",
					 promisor_cb, &yes);
	git_buf_dispose(&v);
	git_config_free(cfg);
	git_error_clear();
	return yes;
}

static void *prefetch_run(void *arg)
{
	struct prefetch *pf = arg;
	git_tree *t = NULL;
	size_t nr = git_tree_lookup(&t, pf->repo, &pf->tree) < 0 ? 0 : pf->nr;

	for (size_t i = 0; i < nr; i++) {
		struct prefetch_slot *s = &pf->slots[i];
		git_tree_entry *e = NULL;
		git_blob *b = NULL;
		bool want, stop;

		pthread_mutex_lock(&pf->lock);
		while (!pf->stop && pf->pending > PREFETCH_MAX_BYTES)
			pthread_cond_wait(&pf->room, &pf->lock);
		stop = pf->stop;
		want = s->state == PF_WAITING;
		pthread_mutex_unlock(&pf->lock);
		if (stop)
			break;
		/* errors are the reader's to find and report */
		if (want && git_tree_entry_bypath(&e, t, s->path) == 0 &&
		    git_tree_entry_type(e) == GIT_OBJECT_BLOB &&
		    git_blob_lookup(&b, pf->repo, git_tree_entry_id(e)) == 0) {
			struct buf data = BUF_INIT;

			buf_add(&data, git_blob_rawcontent(b),
				(size_t)git_blob_rawsize(b));
			pthread_mutex_lock(&pf->lock);
			if (s->state == PF_WAITING) {
				git_oid_cpy(&s->id, git_tree_entry_id(e));
				s->data = data;
				s->state = PF_READY;
				pf->pending += data.len;
				buf_init(&data, 0);
			}
			pthread_mutex_unlock(&pf->lock);
			buf_release(&data);
		}
		git_blob_free(b);
		git_tree_entry_free(e);
	}
	git_tree_free(t);
	pthread_mutex_lock(&pf->lock);
	pf->done = true;
	pthread_cond_broadcast(&pf->room);
	pthread_mutex_unlock(&pf->lock);
	return NULL;
}

void tree_prefetch_wait(struct tree_repo *r)
{
	struct prefetch *pf = r->pf;

	if (!pf)
		return;
	pthread_mutex_lock(&pf->lock);
	while (!pf->done && !pf->stop)
		pthread_cond_wait(&pf->room, &pf->lock);
	pthread_mutex_unlock(&pf->lock);
}

void tree_prefetch_start(struct tree_repo *r, const struct tree_oid *tree,
			 const char *const *paths, size_t nr)
{
	struct prefetch *pf;

	tree_prefetch_stop(r);
	if (!nr || !(git_libgit2_features() & GIT_FEATURE_THREADS))
		return;
	pf = xcalloc(1, sizeof(*pf));
	if (git_repository_open(&pf->repo, git_repository_path(r->repo)) < 0) {
		free(pf);
		return;
	}
	to_git(&pf->tree, tree);
	pf->slots = xcalloc(nr, sizeof(*pf->slots));
	for (size_t i = 0; i < nr; i++) {
		if (strmap_get(&pf->index, paths[i]) != (size_t)-1)
			continue;
		pf->slots[pf->nr].path = xstrdup(paths[i]);
		buf_init(&pf->slots[pf->nr].data, 0);
		strmap_put(&pf->index, pf->slots[pf->nr].path, pf->nr);
		pf->nr++;
	}
	pthread_mutex_init(&pf->lock, NULL);
	pthread_cond_init(&pf->room, NULL);
	if (pthread_create(&pf->thread, NULL, prefetch_run, pf)) {
		/* no thread: every file is read as it is wanted */
		pthread_mutex_destroy(&pf->lock);
		pthread_cond_destroy(&pf->room);
		for (size_t i = 0; i < pf->nr; i++)
			free(pf->slots[i].path);
		free(pf->slots);
		strmap_release(&pf->index);
		git_repository_free(pf->repo);
		free(pf);
		return;
	}
	r->pf = pf;
}

void tree_prefetch_stop(struct tree_repo *r)
{
	struct prefetch *pf = r->pf;

	if (!pf)
		return;
	pthread_mutex_lock(&pf->lock);
	pf->stop = true;
	pthread_cond_broadcast(&pf->room);
	pthread_mutex_unlock(&pf->lock);
	pthread_join(pf->thread, NULL);
	pthread_mutex_destroy(&pf->lock);
	pthread_cond_destroy(&pf->room);
	for (size_t i = 0; i < pf->nr; i++) {
		free(pf->slots[i].path);
		buf_release(&pf->slots[i].data);
	}
	free(pf->slots);
	strmap_release(&pf->index);
	git_repository_free(pf->repo);
	free(pf);
	r->pf = NULL;
}

/*
 * The file at path read ahead, when its blob is id (into out; NULL: not
 * wanted).  Taken or not, the path is done with: a later read of it goes
 * to the store.
 */
static bool prefetch_take(struct tree_repo *r, const char *path,
			  const git_oid *id, struct buf *out)
{
	struct prefetch *pf = r->pf;
	struct prefetch_slot *s;
	size_t i;
	bool hit = false;

	if (!pf || (i = strmap_get(&pf->index, path)) == (size_t)-1)
		return false;
	s = &pf->slots[i];
	pthread_mutex_lock(&pf->lock);
	if (s->state == PF_READY) {
		pf->pending -= s->data.len;
		if (out && git_oid_equal(&s->id, id)) {
			struct buf t = *out;

			*out = s->data;
			s->data = t;
			hit = true;
		}
		buf_release(&s->data);
		pthread_cond_broadcast(&pf->room);
	}
	s->state = PF_GONE;
	pthread_mutex_unlock(&pf->lock);
	return hit;
}

int tree_read_file(struct buf *out, bool *exists, unsigned *mode,
		   struct tree_repo *r, const struct tree_oid *tree,
		   const char *path, struct err *err)
{
	git_tree *t = NULL;
	git_tree_entry *e = NULL;
	git_blob *blob = NULL;
	git_oid o;
	int rc, error = 0;

	*exists = false;
	buf_reset(out);
	to_git(&o, tree);
	if (git_tree_lookup(&t, r->repo, &o) < 0)
		return err_set(err, ERR_IO, "cannot read tree: %s", git_text());
	rc = git_tree_entry_bypath(&e, t, path);
	if (rc == GIT_ENOTFOUND)
		goto out;
	if (rc < 0) {
		error = err_set(err, ERR_IO, "cannot read '%s': %s", path,
				git_text());
		goto out;
	}
	if (git_tree_entry_type(e) != GIT_OBJECT_BLOB)
		goto out; /* a directory is not the file the patch names */
	{
		const struct buf *hit = cache_get(r, git_tree_entry_id(e));
		bool ahead = prefetch_take(r, path, git_tree_entry_id(e),
					   hit ? NULL : out);

		if (hit)
			buf_add(out, hit->ptr, hit->len);
		else if (ahead && !r->drop_reads)
			cache_put(r, git_tree_entry_id(e), out->ptr, out->len);
		if (hit || ahead) {
			*exists = true;
			if (mode)
				*mode = (unsigned)git_tree_entry_filemode(e);
			goto out;
		}
	}
	if ((rc = git_blob_lookup(&blob, r->repo, git_tree_entry_id(e))) < 0) {
		char *why = xstrdup(git_text());

		/* what git would fetch from the promisor remote */
		if (rc == GIT_ENOTFOUND && partial_clone(r))
			error = err_set(err, ERR_IO, "cannot read '%s': %s; "
					"'%s' is a partial clone, whose missing "
					"objects kcarry cannot fetch: clone it "
					"in full", path, why, r->path);
		else
			error = err_set(err, ERR_IO, "cannot read '%s': %s",
					path, why);
		free(why);
		goto out;
	}
	buf_add(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	if (!r->drop_reads)
		cache_put(r, git_tree_entry_id(e), out->ptr, out->len);
	*exists = true;
	if (mode)
		*mode = (unsigned)git_tree_entry_filemode(e);
out:
	/* the path is done with, whatever it was */
	prefetch_take(r, path, NULL, NULL);
	git_blob_free(blob);
	git_tree_entry_free(e);
	git_tree_free(t);
	return error;
}

int tree_list_files(char ***paths, size_t *nr, struct tree_repo *r,
		    const struct tree_oid *tree, const char *dir,
		    const char *const *exts, struct err *err)
{
	struct tree_list_opts o = { dir, true, exts };
	struct tree_blob *v;
	size_t n;
	int error;

	*paths = NULL;
	*nr = 0;
	if ((error = tree_list_blobs(&v, &n, r, tree, &o, err)) < 0)
		return error;
	if (n) {
		*paths = xcalloc(n, sizeof(**paths));
		for (size_t i = 0; i < n; i++)
			(*paths)[i] = v[i].path; /* the strings change hands */
	}
	*nr = n;
	free(v);
	return 0;
}

struct blobs_ctx {
	const char *dir;
	bool recursive;
	const char *const *exts;
	const char *prefix;
	struct tree_blob *v;
	size_t nr, alloc;
};

static int blobs_cb(const char *root, const git_tree_entry *e, void *payload)
{
	struct blobs_ctx *c = payload;
	const char *name = git_tree_entry_name(e);
	bool want = !c->exts;

	if (git_tree_entry_type(e) == GIT_OBJECT_TREE)
		return c->recursive ? 0 : 1; /* 1: do not descend */
	if (git_tree_entry_type(e) != GIT_OBJECT_BLOB ||
	    (c->prefix && strncmp(name, c->prefix, strlen(c->prefix))))
		return 0;
	for (size_t i = 0; c->exts && c->exts[i] && !want; i++)
		want = ends_with(name, c->exts[i]);
	if (!want)
		return 0;
	ALLOC_GROW(c->v, c->nr + 1, c->alloc);
	c->v[c->nr].path = xstrfmt("%s%s%s%s", c->dir, *c->dir ? "/" : "",
				   root, name);
	from_git(&c->v[c->nr].id, git_tree_entry_id(e));
	c->nr++;
	return 0;
}

static int cmp_blobs(const void *a, const void *b)
{
	return strcmp(((const struct tree_blob *)a)->path,
		      ((const struct tree_blob *)b)->path);
}

int tree_list_blobs(struct tree_blob **out, size_t *nr, struct tree_repo *r,
		    const struct tree_oid *tree,
		    const struct tree_list_opts *lo, struct err *err)
{
	const char *dir = lo->dir;
	struct blobs_ctx c = { dir, lo->recursive, lo->exts, lo->prefix, NULL,
			       0, 0 };
	git_tree *t = NULL, *sub = NULL;
	git_tree_entry *e = NULL;
	git_oid o;
	int error = 0;

	*out = NULL;
	*nr = 0;
	to_git(&o, tree);
	if (git_tree_lookup(&t, r->repo, &o) < 0)
		return err_set(err, ERR_IO, "cannot read tree: %s", git_text());
	if (*dir) {
		if (git_tree_entry_bypath(&e, t, dir) < 0 ||
		    git_tree_entry_type(e) != GIT_OBJECT_TREE)
			goto out;
		if (git_tree_lookup(&sub, r->repo, git_tree_entry_id(e)) < 0) {
			error = err_set(err, ERR_IO, "cannot read '%s': %s", dir,
					git_text());
			goto out;
		}
	}
	if (git_tree_walk(sub ? sub : t, GIT_TREEWALK_PRE, blobs_cb, &c) < 0) {
		error = err_set(err, ERR_IO, "cannot walk '%s': %s", dir,
				git_text());
		goto out;
	}
	if (c.nr)
		qsort(c.v, c.nr, sizeof(*c.v), cmp_blobs);
	*out = c.v;
	*nr = c.nr;
	c.v = NULL;
out:
	tree_blobs_free(c.v, c.nr);
	git_tree_entry_free(e);
	git_tree_free(sub);
	git_tree_free(t);
	return error;
}

void tree_blobs_free(struct tree_blob *b, size_t nr)
{
	for (size_t i = 0; b && i < nr; i++)
		free(b[i].path);
	free(b);
}

int tree_list_dirs(char ***names, size_t *nr, struct tree_repo *r,
		   const struct tree_oid *tree, const char *dir,
		   struct err *err)
{
	struct tree_oid sub;
	git_tree *t = NULL;
	git_oid o;
	bool exists;
	size_t alloc = 0;
	int error;

	*names = NULL;
	*nr = 0;
	if ((error = tree_dir_id(&sub, &exists, r, tree, dir, err)) < 0 ||
	    !exists)
		return error;
	to_git(&o, &sub);
	if (git_tree_lookup(&t, r->repo, &o) < 0)
		return err_set(err, ERR_IO, "cannot read '%s': %s", dir,
			       git_text());
	for (size_t i = 0; i < git_tree_entrycount(t); i++) {
		const git_tree_entry *e = git_tree_entry_byindex(t, i);

		if (git_tree_entry_type(e) != GIT_OBJECT_TREE)
			continue;
		ALLOC_GROW(*names, *nr + 1, alloc);
		(*names)[(*nr)++] = xstrdup(git_tree_entry_name(e));
	}
	git_tree_free(t);
	return 0;
}

int tree_dir_id(struct tree_oid *out, bool *exists, struct tree_repo *r,
		const struct tree_oid *tree, const char *dir, struct err *err)
{
	git_tree *t = NULL;
	git_tree_entry *e = NULL;
	git_oid o;
	int rc, error = 0;

	*exists = false;
	memset(out, 0, sizeof(*out));
	to_git(&o, tree);
	if (!*dir) {
		*out = *tree;
		*exists = true;
		return 0;
	}
	if (git_tree_lookup(&t, r->repo, &o) < 0)
		return err_set(err, ERR_IO, "cannot read tree: %s", git_text());
	rc = git_tree_entry_bypath(&e, t, dir);
	if (rc == 0 && git_tree_entry_type(e) == GIT_OBJECT_TREE) {
		from_git(out, git_tree_entry_id(e));
		*exists = true;
	} else if (rc < 0 && rc != GIT_ENOTFOUND) {
		error = err_set(err, ERR_IO, "cannot read '%s': %s", dir,
				git_text());
	}
	git_tree_entry_free(e);
	git_tree_free(t);
	return error;
}

int tree_read_blob_oid(struct buf *out, struct tree_repo *r,
		       const struct tree_oid *blob, struct err *err)
{
	git_blob *b = NULL;
	git_oid o;

	to_git(&o, blob);
	if (git_blob_lookup(&b, r->repo, &o) < 0)
		return err_set(err, ERR_IO, "cannot read blob: %s", git_text());
	buf_reset(out);
	buf_add(out, git_blob_rawcontent(b), (size_t)git_blob_rawsize(b));
	git_blob_free(b);
	return 0;
}

int tree_file_id(char hex[41], bool *exists, struct tree_repo *r,
		 const struct tree_oid *tree, const char *path,
		 struct err *err)
{
	git_tree *t = NULL;
	git_tree_entry *e = NULL;
	git_oid o;
	int rc, error = 0;

	*exists = false;
	memcpy(hex, "none", 5);
	to_git(&o, tree);
	if (git_tree_lookup(&t, r->repo, &o) < 0)
		return err_set(err, ERR_IO, "cannot read tree: %s", git_text());
	rc = git_tree_entry_bypath(&e, t, path);
	if (rc == 0 && git_tree_entry_type(e) == GIT_OBJECT_BLOB) {
		git_oid_tostr(hex, 41, git_tree_entry_id(e));
		*exists = true;
	} else if (rc < 0 && rc != GIT_ENOTFOUND)
		error = err_set(err, ERR_IO, "cannot read '%s': %s", path,
				git_text());
	git_tree_entry_free(e);
	git_tree_free(t);
	return error;
}

void tree_hash(char hex[41], const void *data, size_t len)
{
	git_oid o;

	git_odb_hash(&o, data, len, GIT_OBJECT_BLOB);
	git_oid_tostr(hex, 41, &o);
}

int tree_write_blob(struct tree_oid *oid, struct tree_repo *r,
		    const void *data, size_t len, struct err *err)
{
	git_odb *odb = NULL;
	git_oid o;
	char head[64];
	int n, error = 0;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned int mdlen = 0;

	/*
	 * The blob id with OpenSSL's SHA-1: libgit2 hashes with collision
	 * detection, three times slower, and git_odb_write hashes again.
	 * The content is ours, so the loose backend writes it directly.
	 */
	n = snprintf(head, sizeof(head), "blob %zu", len);
	if (!ctx || EVP_DigestInit_ex(ctx, EVP_sha1(), NULL) != 1 ||
	    EVP_DigestUpdate(ctx, head, (size_t)n + 1) != 1 ||
	    EVP_DigestUpdate(ctx, data, len) != 1 ||
	    EVP_DigestFinal_ex(ctx, o.id, &mdlen) != 1 || mdlen != 20) {
		EVP_MD_CTX_free(ctx);
		return err_set(err, ERR_IO, "cannot hash a blob");
	}
	EVP_MD_CTX_free(ctx);
	if (git_repository_odb(&odb, r->repo) < 0)
		return err_set(err, ERR_IO, "cannot write blob: %s",
			       git_text());
	if (!git_odb_exists(odb, &o) &&
	    r->loose->write(r->loose, &o, data, len, GIT_OBJECT_BLOB) < 0)
		error = err_set(err, ERR_IO, "cannot write blob: %s",
				git_text());
	git_odb_free(odb);
	if (!error && !cache_get(r, &o))
		cache_put(r, &o, data, len);
	from_git(oid, &o);
	return error;
}

int tree_update(struct tree_oid *out, struct tree_repo *r,
		const struct tree_oid *base, const struct tree_change *ch,
		size_t nr, struct err *err)
{
	git_tree *t = NULL;
	git_tree_update *up = xcalloc(nr ? nr : 1, sizeof(*up));
	git_oid o;
	int error = 0;

	to_git(&o, base);
	if (git_tree_lookup(&t, r->repo, &o) < 0) {
		error = err_set(err, ERR_IO, "cannot read tree: %s", git_text());
		goto out;
	}
	/*
	 * Removals first, then the rest on their result: libgit2 refuses
	 * "thing/y.c" in one update that also removes the file "thing" (a
	 * D/F conflict), while git am turns a file into a folder, and a
	 * folder emptied into a file, in one patch.
	 */
	for (int pass = 0; pass < 2 && !error; pass++) {
		size_t n = 0;

		for (size_t i = 0; i < nr; i++) {
			if (ch[i].remove != (pass == 0))
				continue;
			up[n].action = ch[i].remove ? GIT_TREE_UPDATE_REMOVE
						    : GIT_TREE_UPDATE_UPSERT;
			to_git(&up[n].id, &ch[i].blob);
			up[n].filemode = ch[i].mode
						 ? (git_filemode_t)ch[i].mode
						 : GIT_FILEMODE_BLOB;
			up[n].path = ch[i].path;
			n++;
		}
		if (!n)
			continue;
		if (git_tree_create_updated(&o, r->repo, t, n, up) < 0) {
			error = err_set(err, ERR_IO, "cannot write tree: %s",
					git_text());
			goto out;
		}
		git_tree_free(t);
		t = NULL;
		if (git_tree_lookup(&t, r->repo, &o) < 0) {
			error = err_set(err, ERR_IO, "cannot read tree: %s",
					git_text());
			goto out;
		}
	}
	from_git(out, &o);
out:
	git_tree_free(t);
	free(up);
	return error;
}

/*
 * An identity as git writes it: without the characters a commit header
 * cannot hold ('<', '>', newlines), surrounding blanks and quotes
 * dropped, as git's ident code strips "crud".  "Eve <Ops>" is "Eve Ops".
 */
static char *clean_ident(const char *s, const char *def)
{
	struct buf b = BUF_INIT;

	for (; s && *s; s++)
		if (!strchr("<>\n\r", *s))
			buf_addc(&b, *s);
	while (b.len && strchr(" \t.,:;\"'", b.ptr[b.len - 1]))
		buf_truncate(&b, b.len - 1);
	{
		size_t k = 0;
		while (k < b.len && strchr(" \t.,:;\"'", b.ptr[k]))
			k++;
		if (k) {
			memmove(b.ptr, b.ptr + k, b.len - k);
			buf_truncate(&b, b.len - k);
		}
	}
	if (!b.len)
		buf_adds(&b, def);
	return buf_detach(&b, NULL);
}

static int make_sig(git_signature **sig, const struct tree_person *p,
		    struct err *err)
{
	char *name = clean_ident(p ? p->name : NULL, "kcarry");
	char *email = clean_ident(p ? p->email : NULL, "kcarry@localhost");
	int rc;

	if (p && p->when)
		rc = git_signature_new(sig, name, email, (git_time_t)p->when,
				       p->tz);
	else
		rc = git_signature_now(sig, name, email);
	if (rc < 0)
		err_set(err, ERR_PARSE, "bad identity '%s <%s>': %s", name,
			email, git_text());
	free(name);
	free(email);
	return rc < 0 ? ERR_PARSE : 0;
}

int tree_commit(struct tree_oid *out, struct tree_repo *r,
		const struct tree_oid *tree, const struct tree_oid *parent,
		const struct tree_person *author,
		const struct tree_person *committer, const char *message,
		struct err *err)
{
	git_signature *a = NULL, *c = NULL;
	git_tree *t = NULL;
	git_commit *p = NULL;
	const git_commit *parents[1];
	git_oid o;
	int error;

	if ((error = make_sig(&a, author, err)) < 0 ||
	    (error = make_sig(&c, committer, err)) < 0)
		goto out;
	to_git(&o, tree);
	if (git_tree_lookup(&t, r->repo, &o) < 0) {
		error = err_set(err, ERR_IO, "cannot read tree: %s", git_text());
		goto out;
	}
	if (parent && !tree_oid_is_zero(parent)) {
		to_git(&o, parent);
		if (git_commit_lookup(&p, r->repo, &o) < 0) {
			error = err_set(err, ERR_IO, "cannot read commit: %s",
					git_text());
			goto out;
		}
	}
	parents[0] = p;
	if (git_commit_create(&o, r->repo, NULL, a, c, NULL, message, t,
			      p ? 1 : 0, parents) < 0) {
		error = err_set(err, ERR_IO, "cannot write commit: %s",
				git_text());
		goto out;
	}
	from_git(out, &o);
out:
	git_commit_free(p);
	git_tree_free(t);
	git_signature_free(a);
	git_signature_free(c);
	return error;
}

int tree_set_ref(struct tree_repo *r, const char *refname,
		 const struct tree_oid *commit, const char *log,
		 struct err *err)
{
	git_reference *ref = NULL;
	git_oid o;

	to_git(&o, commit);
	if (git_reference_create(&ref, r->repo, refname, &o, 1, log) < 0)
		return err_set(err, ERR_IO, "cannot set '%s' in '%s': %s",
			       refname, r->path, git_text());
	git_reference_free(ref);
	return 0;
}

int tree_get_ref(struct tree_oid *commit, struct tree_repo *r,
		 const char *refname, struct err *err)
{
	git_oid o;
	int rc = git_reference_name_to_id(&o, r->repo, refname);

	if (rc == GIT_ENOTFOUND)
		return err_set(err, ERR_NOTFOUND, "no ref '%s' in '%s'",
			       refname, r->path);
	if (rc < 0)
		return err_set(err, ERR_IO, "cannot read '%s': %s", refname,
			       git_text());
	from_git(commit, &o);
	return 0;
}

/* One file of a tarball on its way into a tree. */
struct tar_entry {
	char *path;
	git_oid oid;
	git_filemode_t mode;
};

static int cmp_entries(const void *a, const void *b)
{
	return strcmp(((const struct tar_entry *)a)->path,
		      ((const struct tar_entry *)b)->path);
}

/*
 * Write the tree for the n entries at e that share the directory prefix of
 * length plen (sorted by path, so a directory's entries are adjacent).
 */
static int build_tree(git_oid *out, git_repository *repo,
		      const struct tar_entry *e, size_t n, size_t plen,
		      struct err *err)
{
	git_treebuilder *tb = NULL;
	int error = 0;

	if (git_treebuilder_new(&tb, repo, NULL) < 0)
		return err_set(err, ERR_IO, "cannot build tree: %s", git_text());
	for (size_t i = 0; i < n && !error;) {
		const char *rest = e[i].path + plen;
		const char *slash = strchr(rest, '/');

		if (!slash) {
			if (git_treebuilder_insert(NULL, tb, rest, &e[i].oid,
						   e[i].mode) < 0)
				error = err_set(err, ERR_IO,
						"cannot add '%s': %s",
						e[i].path, git_text());
			i++;
		} else {
			size_t dlen = (size_t)(slash - rest) + 1, j = i;
			git_oid sub;
			char *dname;

			while (j < n && !strncmp(e[j].path + plen, rest, dlen))
				j++;
			error = build_tree(&sub, repo, e + i, j - i, plen + dlen,
					   err);
			if (error)
				break;
			dname = xstrndup(rest, dlen - 1);
			if (git_treebuilder_insert(NULL, tb, dname, &sub,
						   GIT_FILEMODE_TREE) < 0)
				error = err_set(err, ERR_IO,
						"cannot add '%s': %s", dname,
						git_text());
			free(dname);
			i = j;
		}
	}
	if (!error && git_treebuilder_write(out, tb) < 0)
		error = err_set(err, ERR_IO, "cannot write tree: %s",
				git_text());
	git_treebuilder_free(tb);
	return error;
}

#define MAX_TAR_FILE (512UL * 1024 * 1024)

int tree_check_tarball(const char *path, struct err *err)
{
	struct archive *a = archive_read_new();
	struct archive_entry *ae;
	int error = 0;

	archive_read_support_filter_all(a);
	archive_read_support_format_tar(a);
	if (archive_read_open_filename(a, path, 65536) != ARCHIVE_OK ||
	    archive_read_next_header(a, &ae) != ARCHIVE_OK)
		error = err_set(err, ERR_PARSE, "not a tar archive (%s)",
				archive_error_string(a)
					? archive_error_string(a)
					: "no entry");
	archive_read_free(a);
	return error;
}

int tree_import_tarball(struct tree_oid *commit, struct tree_repo *r,
			const struct tree_tarball_import *in, struct err *err)
{
	static const struct tree_tarball_limits defaults = {
		TREE_TARBALL_MAX_BYTES, TREE_TARBALL_MAX_ENTRIES
	};
	const char *tarball = in->tarball;
	const struct tree_tarball_limits *limits = in->limits;
	const struct tree_import_progress *progress = in->progress;
	unsigned long nr_entries = 0;
	struct archive *a = archive_read_new();
	struct archive_entry *ae;
	struct tar_entry *entries = NULL;
	size_t nr = 0, alloc = 0;
	struct buf data = BUF_INIT;
	unsigned long long bytes = 0;
	git_odb *odb = NULL;
	git_odb_backend *loose = NULL;
	char *objdir = xstrfmt("%s/objects", git_repository_path(r->repo));
	git_oid root;
	struct tree_oid troot;
	int rc, error = 0;

	/*
	 * Blobs go through a loose backend of our own with zlib level 1 and
	 * no fsync: a kernel tree is ~75,000 files, and default compression
	 * would double the import time for objects read back rarely.
	 */
	if (git_odb_new(&odb) < 0 ||
	    git_odb_backend_loose(&loose, objdir, 1, 0, 0, 0) < 0) {
		error = err_set(err, ERR_IO, "cannot open '%s': %s", objdir,
				git_text());
		goto out;
	}
	if (git_odb_add_backend(odb, loose, 1) < 0) {
		loose->free(loose); /* not owned by the odb yet */
		error = err_set(err, ERR_IO, "cannot open '%s': %s", objdir,
				git_text());
		goto out;
	}
	archive_read_support_filter_all(a);
	archive_read_support_format_tar(a);
	if (archive_read_open_filename(a, tarball, 1 << 20) != ARCHIVE_OK) {
		error = err_set(err, ERR_IO, "cannot open '%s': %s", tarball,
				archive_error_string(a));
		goto out;
	}
	if (!limits)
		limits = &defaults;
	while ((rc = archive_read_next_header(a, &ae)) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(ae);
		mode_t type = archive_entry_filetype(ae);
		struct tar_entry *te;
		const char *slash;
		la_int64_t size;

		/* every entry counts, so that empty ones cannot flood us */
		if (limits->max_entries && ++nr_entries > limits->max_entries) {
			error = err_set(err, ERR_PARSE,
					"%s: more than %lu entries "
					"(tarball.max-entries)",
					tarball, limits->max_entries);
			err_hint(err, "raise tarball.max-entries in kcarry.conf "
				      "or KCARRY_TARBALL_MAX_ENTRIES if the "
				      "tarball is trusted");
			goto out;
		}
		if (type != AE_IFREG && type != AE_IFLNK)
			continue;
		/* drop the top directory: linux-6.1.170/Makefile */
		slash = name ? strchr(name, '/') : NULL;
		if (!slash || !slash[1])
			continue;
		name = slash + 1;
		if (name[0] == '/' || strstr(name, "../") || strstr(name, "//")) {
			error = err_set(err, ERR_PARSE,
					"%s: member '%s' escapes the tree",
					tarball, name);
			goto out;
		}
		buf_reset(&data);
		if (type == AE_IFLNK) {
			const char *target = archive_entry_symlink(ae);
			buf_adds(&data, target ? target : "");
		} else {
			size = archive_entry_size(ae);
			if (size < 0 || (unsigned long long)size > MAX_TAR_FILE) {
				error = err_set(err, ERR_PARSE,
						"%s: member '%s' is too large",
						tarball, name);
				goto out;
			}
			/* checked from the header, before a byte is read */
			if (limits->max_bytes &&
			    bytes + (unsigned long long)size >
				    limits->max_bytes) {
				error = err_set(err, ERR_PARSE,
						"%s: more than %llu bytes once "
						"uncompressed, at '%s' "
						"(tarball.max-size)",
						tarball, limits->max_bytes,
						name);
				err_hint(err, "raise tarball.max-size in "
					      "kcarry.conf or "
					      "KCARRY_TARBALL_MAX_SIZE if the "
					      "tarball is trusted");
				goto out;
			}
			buf_grow(&data, (size_t)size);
			if (size && archive_read_data(a, data.ptr, (size_t)size) !=
					    size) {
				error = err_set(err, ERR_IO,
						"cannot read '%s' in '%s': %s",
						name, tarball,
						archive_error_string(a));
				goto out;
			}
			data.len = (size_t)size;
		}
		ALLOC_GROW(entries, nr + 1, alloc);
		te = &entries[nr];
		if (git_odb_write(&te->oid, odb, data.ptr, data.len,
				  GIT_OBJECT_BLOB) < 0) {
			error = err_set(err, ERR_IO, "cannot write blob: %s",
					git_text());
			goto out;
		}
		te->path = xstrdup(name);
		te->mode = type == AE_IFLNK ? GIT_FILEMODE_LINK
			   : (archive_entry_perm(ae) & 0111)
				   ? GIT_FILEMODE_BLOB_EXECUTABLE
				   : GIT_FILEMODE_BLOB;
		nr++;
		bytes += data.len;
		if (progress && progress->fn && nr % 2000 == 0)
			progress->fn(progress->ctx, nr, bytes);
	}
	if (rc != ARCHIVE_EOF) {
		error = err_set(err, ERR_IO, "cannot read '%s': %s", tarball,
				archive_error_string(a));
		goto out;
	}
	if (!nr) {
		error = err_set(err, ERR_PARSE, "'%s' holds no files", tarball);
		goto out;
	}
	if (progress && progress->fn)
		progress->fn(progress->ctx, nr, bytes);
	qsort(entries, nr, sizeof(*entries), cmp_entries);
	if ((error = build_tree(&root, r->repo, entries, nr, 0, err)) < 0)
		goto out;
	from_git(&troot, &root);
	{
		struct tree_person who = { "kcarry", "kcarry@localhost", 0, 0 };
		if ((error = tree_commit(commit, r, &troot, NULL, &who, &who,
					 in->message, err)) < 0)
			goto out;
	}
	error = tree_set_ref(r, in->refname, commit, "kcarry: import tarball",
			     err);
out:
	for (size_t i = 0; i < nr; i++)
		free(entries[i].path);
	free(entries);
	buf_release(&data);
	archive_read_free(a);
	git_odb_free(odb);
	free(objdir);
	return error;
}

int tree_clone_bare(struct tree_repo **out, const char *url,
		    const char *path, struct err *err)
{
	git_repository *repo = NULL;
	git_clone_options co = GIT_CLONE_OPTIONS_INIT;

	*out = NULL;
	co.bare = 1;
	if (git_clone(&repo, url, path, &co) < 0)
		return err_set(err, ERR_IO, "cannot clone '%s': %s", url,
			       git_text());
	return wrap_repo(out, repo, path, err);
}

int tree_fetch(struct tree_repo *r, struct err *err)
{
	git_remote *remote = NULL;
	git_fetch_options fo = GIT_FETCH_OPTIONS_INIT;
	int error = 0;

	if (git_remote_lookup(&remote, r->repo, "origin") < 0)
		return err_set(err, ERR_IO, "'%s' has no origin: %s", r->path,
			       git_text());
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_ALL;
	if (git_remote_fetch(remote, NULL, &fo, "kcarry: fetch") < 0)
		error = err_set(err, ERR_IO, "cannot fetch into '%s': %s",
				r->path, git_text());
	git_remote_free(remote);
	return error;
}

/* ---- for export ------------------------------------------------------- */

struct changed_ctx {
	git_repository *repo;
	char **paths;
	size_t nr, alloc;
	struct buf path; /* the folder being walked, with a '/' */
};

static void add_changed(struct changed_ctx *c, const char *name)
{
	ALLOC_GROW(c->paths, c->nr + 1, c->alloc);
	c->paths[c->nr++] = xstrfmt("%s%s", c->path.ptr, name);
}

/*
 * The paths of the files that differ between trees a and b (either may
 * be NULL: empty), in tree order.  Entries with the same id are not
 * entered: a change to one file of the kernel costs the folders on its
 * path, not the 78,000 files of the tree.
 */
static int walk_changed(struct changed_ctx *c, const git_tree *a,
			const git_tree *b)
{
	size_t na = a ? git_tree_entrycount(a) : 0;
	size_t nb = b ? git_tree_entrycount(b) : 0;
	size_t i = 0, j = 0;
	int error = 0;

	while (!error && (i < na || j < nb)) {
		const git_tree_entry *ea = i < na ? git_tree_entry_byindex(a, i)
						  : NULL;
		const git_tree_entry *eb = j < nb ? git_tree_entry_byindex(b, j)
						  : NULL;
		int cmp = !ea ? 1 : !eb ? -1 : git_tree_entry_cmp(ea, eb);
		const git_tree_entry *one = cmp < 0 ? ea : eb;
		git_tree *ta = NULL, *tb = NULL;
		size_t len = c->path.len;

		if (cmp == 0) {
			i++;
			j++;
			if (git_oid_equal(git_tree_entry_id(ea),
					  git_tree_entry_id(eb)) &&
			    git_tree_entry_filemode(ea) ==
				    git_tree_entry_filemode(eb))
				continue;
		} else if (cmp < 0) {
			i++;
		} else {
			j++;
		}
		if (git_tree_entry_type(one) != GIT_OBJECT_TREE ||
		    (cmp == 0 && git_tree_entry_type(ea) != GIT_OBJECT_TREE)) {
			add_changed(c, git_tree_entry_name(one));
			continue;
		}
		/* a folder: on both sides, or on one */
		if ((cmp <= 0 &&
		     git_tree_lookup(&ta, c->repo, git_tree_entry_id(ea)) < 0) ||
		    (cmp >= 0 &&
		     git_tree_lookup(&tb, c->repo, git_tree_entry_id(eb)) < 0))
			error = -1;
		if (!error) {
			buf_addf(&c->path, "%s/", git_tree_entry_name(one));
			error = walk_changed(c, ta, tb);
			buf_truncate(&c->path, len);
		}
		git_tree_free(ta);
		git_tree_free(tb);
	}
	return error;
}

static int cmp_strs(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int commit_tree_of(git_tree **t, struct tree_repo *r,
			  const struct tree_oid *commit, struct err *err)
{
	git_commit *c = NULL;
	git_oid o;
	int rc;

	to_git(&o, commit);
	if (git_commit_lookup(&c, r->repo, &o) < 0)
		return err_set(err, ERR_IO, "cannot read commit: %s",
			       git_text());
	rc = git_commit_tree(t, c);
	git_commit_free(c);
	if (rc < 0)
		return err_set(err, ERR_IO, "cannot read tree: %s", git_text());
	return 0;
}

int tree_changed_paths(char ***paths, size_t *nr, struct tree_repo *r,
		       const struct tree_oid *old_commit,
		       const struct tree_oid *new_commit, struct err *err)
{
	git_tree *a = NULL, *b = NULL;
	struct changed_ctx c = { 0 };
	int error;

	*paths = NULL;
	*nr = 0;
	c.repo = r->repo;
	buf_init(&c.path, 0);
	if ((error = commit_tree_of(&a, r, old_commit, err)) < 0 ||
	    (error = commit_tree_of(&b, r, new_commit, err)) < 0)
		goto out;
	if (walk_changed(&c, a, b) < 0) {
		error = err_set(err, ERR_IO, "cannot compare trees: %s",
				git_text());
		goto out;
	}
	if (c.nr)
		qsort(c.paths, c.nr, sizeof(char *), cmp_strs);
	*paths = c.paths;
	*nr = c.nr;
	c.paths = NULL;
	c.nr = 0;
out:
	for (size_t i = 0; i < c.nr; i++)
		free(c.paths[i]);
	free(c.paths);
	buf_release(&c.path);
	git_tree_free(a);
	git_tree_free(b);
	return error;
}

static char *config_string(git_config *cfg, const char *key)
{
	git_buf v = GIT_BUF_INIT;
	char *s = NULL;

	if (git_config_get_string_buf(&v, cfg, key) == 0 && v.size)
		s = xstrndup(v.ptr, v.size);
	git_buf_dispose(&v);
	return s;
}

int tree_user(char **name, char **email, struct tree_repo *r,
	      struct err *err)
{
	git_config *cfg = NULL, *snap = NULL;

	*name = *email = NULL;
	if (git_repository_config(&cfg, r->repo) < 0 ||
	    git_config_snapshot(&snap, cfg) < 0) {
		git_config_free(cfg);
		return err_set(err, ERR_IO, "cannot read the configuration of "
			       "'%s': %s", r->path, git_text());
	}
	*name = config_string(snap, "user.name");
	*email = config_string(snap, "user.email");
	git_config_free(snap);
	git_config_free(cfg);
	return 0;
}

bool tree_branch_name_valid(const char *name)
{
	int valid = 0;

	return git_branch_name_is_valid(&valid, name) == 0 && valid;
}

bool tree_has_commit(struct tree_repo *r, const char *hex)
{
	git_commit *c = NULL;
	git_oid o;
	bool ok;

	if (strlen(hex) != 40 || git_oid_fromstr(&o, hex) < 0)
		return false;
	ok = git_commit_lookup(&c, r->repo, &o) == 0;
	git_commit_free(c);
	return ok;
}

/*
 * tree_count_reads: a backend in front of the repository's own ones that
 * reads through them and counts what they return.  libgit2 asks it first
 * and only on a miss of its cache; the rest (headers, existence, writes)
 * goes to the others directly.
 */
struct counting_backend {
	git_odb_backend parent;
	git_odb_backend **inner; /* the odb's backends, in its order */
	size_t nr;
	struct tree_reads *out;
};

static int counting_read(void **data, size_t *len, git_object_t *type,
			 git_odb_backend *be, const git_oid *id)
{
	struct counting_backend *c = (struct counting_backend *)be;

	for (size_t i = 0; i < c->nr; i++) {
		git_odb_backend *b = c->inner[i];
		int rc;

		if (!b->read)
			continue;
		rc = b->read(data, len, type, b, id);
		if (rc == GIT_PASSTHROUGH || rc == GIT_ENOTFOUND)
			continue;
		if (rc == 0) {
			c->out->objects++;
			c->out->bytes += *len;
		}
		return rc;
	}
	return GIT_PASSTHROUGH;
}

static void counting_free(git_odb_backend *be)
{
	struct counting_backend *c = (struct counting_backend *)be;

	free(c->inner);
	free(c);
}

int tree_count_reads(struct tree_repo *r, struct tree_reads *out,
		     struct err *err)
{
	struct counting_backend *c = xcalloc(1, sizeof(*c));
	git_odb *odb = NULL;
	int error = 0;
	bool ok;

	ok = git_repository_odb(&odb, r->repo) == 0 &&
	     git_odb_init_backend(&c->parent, GIT_ODB_BACKEND_VERSION) == 0;
	if (ok) {
		c->nr = git_odb_num_backends(odb);
		c->inner = xcalloc(c->nr + 1, sizeof(*c->inner));
	}
	for (size_t i = 0; ok && i < c->nr; i++)
		ok = git_odb_get_backend(&c->inner[i], odb, i) == 0;
	c->parent.read = counting_read;
	c->parent.free = counting_free;
	c->out = out;
	/* asked before the loose (1) and packed (2) ones, alternates too */
	ok = ok && git_odb_add_backend(odb, &c->parent, 100) == 0;
	if (!ok) {
		error = err_set(err, ERR_IO, "cannot count the reads of "
				"'%s': %s", r->path, git_text());
		counting_free(&c->parent);
	}
	/* on success the odb owns c, and the repository the odb */
	git_odb_free(odb);
	return error;
}

/* A mainline release tag: vX.Y or vX.Y-rcN; *rc is INT_MAX for a release. */
struct release_tag {
	char *name;
	long major, minor, rc;
	git_oid commit;
};

static bool parse_release(struct release_tag *t, const char *name)
{
	char *end;

	if (name[0] != 'v' || !isdigit((unsigned char)name[1]))
		return false;
	t->major = strtol(name + 1, &end, 10);
	if (*end != '.' || !isdigit((unsigned char)end[1]))
		return false;
	t->minor = strtol(end + 1, &end, 10);
	t->rc = 0x7fffffffL;
	if (!strncmp(end, "-rc", 3) && isdigit((unsigned char)end[3]))
		t->rc = strtol(end + 3, &end, 10);
	return *end == '\0';
}

static int cmp_release(const void *va, const void *vb)
{
	const struct release_tag *a = va, *b = vb;

	if (a->major != b->major)
		return a->major < b->major ? -1 : 1;
	if (a->minor != b->minor)
		return a->minor < b->minor ? -1 : 1;
	if (a->rc != b->rc)
		return a->rc < b->rc ? -1 : 1;
	return 0;
}

static bool tag_contains(git_repository *repo, const git_oid *tag_commit,
			 const git_oid *commit)
{
	return git_oid_equal(tag_commit, commit) ||
	       git_graph_descendant_of(repo, tag_commit, commit) == 1;
}

int tree_release_containing(char **tag, struct tree_repo *r, const char *hex,
			    struct err *err)
{
	git_strarray names = { 0 };
	struct release_tag *tags = NULL;
	size_t nr = 0, lo, hi;
	git_oid want;

	*tag = NULL;
	if (!tree_has_commit(r, hex))
		return 0;
	git_oid_fromstr(&want, hex);
	if (git_tag_list_match(&names, "v*", r->repo) < 0)
		return err_set(err, ERR_IO, "cannot list the tags of '%s': %s",
			       r->path, git_text());
	tags = xcalloc(names.count + 1, sizeof(*tags));
	for (size_t i = 0; i < names.count; i++) {
		struct release_tag t = { 0 };
		git_object *obj = NULL, *peeled = NULL;
		char *ref;

		if (!parse_release(&t, names.strings[i]))
			continue;
		ref = xstrfmt("refs/tags/%s", names.strings[i]);
		if (git_revparse_single(&obj, r->repo, ref) == 0 &&
		    git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) == 0) {
			git_oid_cpy(&t.commit, git_object_id(peeled));
			t.name = xstrdup(names.strings[i]);
			tags[nr++] = t;
		}
		git_object_free(peeled);
		git_object_free(obj);
		free(ref);
	}
	git_strarray_dispose(&names);
	if (nr)
		qsort(tags, nr, sizeof(*tags), cmp_release);
	/*
	 * Mainline releases descend from one another, so "contains" is
	 * false and then true along the sorted tags: a binary search costs
	 * a dozen ancestry walks on the kernel's history.
	 */
	if (nr && tag_contains(r->repo, &tags[nr - 1].commit, &want)) {
		lo = 0;
		hi = nr - 1;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (tag_contains(r->repo, &tags[mid].commit, &want))
				hi = mid;
			else
				lo = mid + 1;
		}
		*tag = xstrdup(tags[lo].name);
	}
	for (size_t i = 0; i < nr; i++)
		free(tags[i].name);
	free(tags);
	return 0;
}

struct walk_ctx {
	struct tree_entry_info *e;
	size_t nr, alloc;
};

static int walk_cb(const char *root, const git_tree_entry *e, void *payload)
{
	struct walk_ctx *c = payload;
	struct tree_entry_info *x;

	if (git_tree_entry_type(e) != GIT_OBJECT_BLOB)
		return 0;
	ALLOC_GROW(c->e, c->nr + 1, c->alloc);
	x = &c->e[c->nr++];
	x->path = xstrfmt("%s%s", root, git_tree_entry_name(e));
	git_oid_tostr(x->hex, sizeof(x->hex), git_tree_entry_id(e));
	x->mode = (unsigned)git_tree_entry_filemode(e);
	return 0;
}

static int cmp_entry_paths(const void *a, const void *b)
{
	return strcmp(((const struct tree_entry_info *)a)->path,
		      ((const struct tree_entry_info *)b)->path);
}

void tree_entries_free(struct tree_entry_info *e, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(e[i].path);
	free(e);
}

int tree_walk_blobs(struct tree_entry_info **out, size_t *nr,
		    struct tree_repo *r, const struct tree_oid *tree,
		    struct err *err)
{
	struct walk_ctx c = { NULL, 0, 0 };
	git_tree *t = NULL;
	git_oid o;
	int error = 0;

	*out = NULL;
	*nr = 0;
	to_git(&o, tree);
	if (git_tree_lookup(&t, r->repo, &o) < 0)
		return err_set(err, ERR_IO, "cannot read tree: %s", git_text());
	if (git_tree_walk(t, GIT_TREEWALK_PRE, walk_cb, &c) < 0) {
		error = err_set(err, ERR_IO, "cannot walk a tree of '%s': %s",
				r->path, git_text());
		tree_entries_free(c.e, c.nr);
	} else {
		if (c.nr)
			qsort(c.e, c.nr, sizeof(*c.e), cmp_entry_paths);
		*out = c.e;
		*nr = c.nr;
	}
	git_tree_free(t);
	return error;
}

struct lines_ctx {
	struct tree_line_hunk *h;
	size_t nr, alloc;
};

static int lines_hunk_cb(const git_diff_delta *d, const git_diff_hunk *h,
			 void *payload)
{
	struct lines_ctx *c = payload;

	ALLOC_GROW(c->h, c->nr + 1, c->alloc);
	c->h[c->nr].old_start = (unsigned long)h->old_start;
	c->h[c->nr].old_lines = (unsigned long)h->old_lines;
	c->h[c->nr].new_start = (unsigned long)h->new_start;
	c->h[c->nr].new_lines = (unsigned long)h->new_lines;
	c->nr++;
	return 0;
}

int tree_diff_lines(struct tree_line_hunk **out, size_t *nr, struct span old,
		    struct span new_text, struct err *err)
{
	git_diff_options o = GIT_DIFF_OPTIONS_INIT;
	struct lines_ctx c = { NULL, 0, 0 };

	*out = NULL;
	*nr = 0;
	o.context_lines = 0;
	o.interhunk_lines = 0;
	o.flags |= GIT_DIFF_FORCE_TEXT;
	if (git_diff_buffers(old.ptr, old.len, NULL, new_text.ptr,
			     new_text.len, NULL, &o, NULL, NULL, lines_hunk_cb,
			     NULL, &c) < 0) {
		free(c.h);
		return err_set(err, ERR_IO, "cannot diff two texts: %s",
			       git_text());
	}
	*out = c.h;
	*nr = c.nr;
	return 0;
}
