#include "series.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "cursor.h"
#include "fs.h"
#include "name.h"

#define SERIES_FILE "series"
#define ORIGINS_FILE "origins"
#define COVER_FILE "0000-cover-letter.patch"
#define MAX_PATCH_FILE (64UL * 1024 * 1024)

void series_version_init(struct series_version *v, const char *name,
			 const char *version)
{
	memset(v, 0, sizeof(*v));
	v->name = name ? xstrdup(name) : NULL;
	v->version = version ? xstrdup(version) : NULL;
	buf_init(&v->cover, 0);
}

void series_version_release(struct series_version *v)
{
	for (size_t i = 0; i < v->nr; i++) {
		free(v->items[i].file);
		free(v->items[i].origin);
		buf_release(&v->items[i].text);
		patch_release(&v->items[i].patch);
	}
	free(v->items);
	free(v->name);
	free(v->version);
	buf_release(&v->cover);
	memset(v, 0, sizeof(*v));
}

static char *origin_slug(const char *origin)
{
	const char *base = strrchr(origin, '/');
	char *s, *slug;
	size_t n;

	base = base ? base + 1 : origin;
	s = xstrdup(base);
	n = strlen(s);
	if (n > 6 && !strcmp(s + n - 6, ".patch"))
		s[n - 6] = '\0';
	else if (n > 5 && !strcmp(s + n - 5, ".diff"))
		s[n - 5] = '\0';
	/* a stored name already has its NNNN- prefix */
	if (strlen(s) > 5 && s[4] == '-' && strspn(s, "0123456789") == 4)
		memmove(s, s + 5, strlen(s + 5) + 1);
	slug = patch_slug(s);
	free(s);
	return slug;
}

void series_version_add(struct series_version *v, struct patch *p,
			struct buf *text, const char *origin)
{
	struct series_item *it;
	char *slug;

	ALLOC_GROW(v->items, v->nr + 1, v->alloc);
	it = &v->items[v->nr++];
	memset(it, 0, sizeof(*it));
	if (p->subject && *p->subject)
		slug = patch_slug(p->subject);
	else
		slug = origin_slug(origin ? origin : "patch");
	if (!*slug) {
		free(slug);
		slug = xstrdup("patch");
	}
	it->file = xstrfmt("%04zu-%s.patch", v->nr, slug);
	free(slug);
	it->origin = xstrdup(origin ? origin : "");
	it->strip = 1;
	it->patch = *p;
	patch_init(p);
	buf_init(&it->text, 0);
	buf_swap(&it->text, text);
}

/* dpkg's order of one character in a non-digit run: '~' first, then the
 * end of the run, then letters, then everything else. */
static int order(int c)
{
	if (isdigit(c))
		return 0;
	if (isalpha(c))
		return c;
	if (c == '~')
		return -1;
	if (c)
		return c + 256;
	return 0;
}

/*
 * Debian's version order (dpkg's verrevcmp): digit runs compare as
 * numbers, the rest character by character with '~' before anything, so
 * v2 < v10 and 6.1.170-3~deb11u1 < 6.1.170-3 < 6.1.176-1.
 */
int series_version_cmp(const char *a, const char *b)
{
	while (*a || *b) {
		int first_diff = 0;

		while ((*a && !isdigit((unsigned char)*a)) ||
		       (*b && !isdigit((unsigned char)*b))) {
			int ac = order((unsigned char)*a);
			int bc = order((unsigned char)*b);
			if (ac != bc)
				return ac - bc;
			a++;
			b++;
		}
		while (*a == '0')
			a++;
		while (*b == '0')
			b++;
		while (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			if (!first_diff)
				first_diff = *a - *b;
			a++;
			b++;
		}
		if (isdigit((unsigned char)*a))
			return 1;
		if (isdigit((unsigned char)*b))
			return -1;
		if (first_diff)
			return first_diff;
	}
	return 0;
}

static int cmp_versions(const void *a, const void *b)
{
	return series_version_cmp(*(char *const *)a, *(char *const *)b);
}

void series_free_list(char **list, size_t nr)
{
	fs_free_list(list, nr);
}

/* The files a version directory holds, as (name, bytes) pairs. */
struct dir_file {
	char *name;
	struct buf data;
};

static void version_files(struct dir_file **out, size_t *nr,
			  const struct series_version *v)
{
	struct buf series = BUF_INIT, origins = BUF_INIT;
	size_t n = 0, total = v->nr + 3;
	struct dir_file *f = xcalloc(total, sizeof(*f));

	for (size_t i = 0; i < v->nr; i++) {
		if (v->items[i].strip != 1)
			buf_addf(&series, "%s -p%d\n", v->items[i].file,
				 v->items[i].strip);
		else
			buf_addf(&series, "%s\n", v->items[i].file);
		buf_addf(&origins, "%s\t%s\n", v->items[i].file,
			 v->items[i].origin);
		f[n].name = xstrdup(v->items[i].file);
		buf_init(&f[n].data, 0);
		buf_add(&f[n].data, v->items[i].text.ptr, v->items[i].text.len);
		n++;
	}
	f[n].name = xstrdup(SERIES_FILE);
	f[n++].data = series;
	f[n].name = xstrdup(ORIGINS_FILE);
	f[n++].data = origins;
	if (v->cover.len) {
		f[n].name = xstrdup(COVER_FILE);
		buf_init(&f[n].data, 0);
		buf_add(&f[n].data, v->cover.ptr, v->cover.len);
		n++;
	}
	*out = f;
	*nr = n;
}

static void free_files(struct dir_file *f, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		free(f[i].name);
		buf_release(&f[i].data);
	}
	free(f);
}

/* True when dir holds exactly these files with these bytes. */
static bool dir_matches(const char *dir, const struct dir_file *f, size_t nr)
{
	struct err err = ERR_INIT;
	struct buf data = BUF_INIT;
	char **names;
	size_t nnames;
	bool same;

	if (fs_list_dir(dir, &names, &nnames, &err) < 0) {
		err_release(&err);
		return false;
	}
	/* subdirectories hold refreshed per-target series: not content */
	{
		size_t files = 0;
		for (size_t i = 0; i < nnames; i++) {
			char *p = fs_join(dir, names[i]);
			files += !fs_is_dir(p);
			free(p);
		}
		same = files == nr;
	}
	for (size_t i = 0; i < nr && same; i++) {
		char *path = fs_join(dir, f[i].name);
		same = fs_read_file(&data, path, 0, &err) == 0 &&
		       data.len == f[i].data.len &&
		       !memcmp(data.ptr, f[i].data.ptr, data.len);
		free(path);
	}
	fs_free_list(names, nnames);
	buf_release(&data);
	err_release(&err);
	return same;
}

/* The keys of [version "V"], in the order they are written. */
enum { NR_VERSION_KEYS = 7 };
static void version_pairs(struct conf_pair *pairs, const char *patches,
			  const char *stamp,
			  const struct series_provenance *prov)
{
	const struct conf_pair p[NR_VERSION_KEYS] = {
		{ "kind", prov->kind },
		{ "source", prov->source },
		{ "imported", stamp },
		{ "patches", patches },
		{ "cover", prov->cover_subject },
		{ "base-commit", prov->base_commit },
		/* the thread's root (cover letter, else first patch): what
		 * a fetch downloads again; each patch's own Message-ID is
		 * in 'origins' */
		{ "msgid", prov->nr_msgids ? prov->msgids[0] : NULL },
	};

	memcpy(pairs, p, sizeof(p));
}

/*
 * The whole file again through libgit2 (a batch: one rename): for a
 * version stored before, or a file without its [series] name yet.
 */
static int rewrite_conf(struct conf *c, const struct series_version *v,
			const struct conf_pair *pairs, struct err *err)
{
	struct buf key = BUF_INIT;
	char *existing;
	int error;

	if ((error = conf_begin(c, err)) < 0)
		return error;
	existing = conf_get_or(c, "series.name", NULL);
	if (!existing)
		error = conf_set(c, "series.name", v->name, err);
	free(existing);
	if (!error)
		error = conf_remove_section(c, "version", v->version, err);
	for (size_t i = 0; i < NR_VERSION_KEYS && !error; i++) {
		if (!pairs[i].value)
			continue;
		buf_reset(&key);
		buf_addf(&key, "version.%s.%s", v->version, pairs[i].key);
		error = conf_set(c, key.ptr, pairs[i].value, err);
	}
	buf_release(&key);
	/* on error conf_free drops the batch: the file keeps its text */
	return error ? error : conf_commit(c, err);
}

/*
 * series/NAME.conf records v: a new version's section is appended in one
 * write (storing a version costs its section, not the file: --all-versions
 * of 1000 versions was quadratic); a version stored before is rewritten.
 */
static int write_conf(const char *root, const struct series_version *v,
		      const struct series_provenance *prov, struct err *err)
{
	char *dir = fs_join(root, "series");
	char *path = xstrfmt("%s/%s.conf", dir, v->name);
	struct conf_pair pairs[NR_VERSION_KEYS];
	struct conf *c = NULL;
	char stamp[64], patches[32], *name = NULL;
	time_t now = time(NULL);
	struct tm tm;
	int error;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(patches, sizeof(patches), "%zu", v->nr);
	version_pairs(pairs, patches, stamp, prov);
	if ((error = fs_mkdirs(dir, err)) < 0 ||
	    (error = conf_open(&c, path, true, err)) < 0)
		goto out;
	name = conf_get_or(c, "series.name", NULL);
	if (name) {
		struct err e2 = ERR_INIT;

		error = conf_append_section(c, "version", v->version, pairs,
					    NR_VERSION_KEYS, &e2);
		/* there already, or a value only libgit2 writes: rewrite */
		if (error == ERR_EXISTS || error == ERR_PARSE)
			error = 1;
		else if (error < 0)
			err_set(err, error, "%s", e2.msg.ptr);
		err_release(&e2);
		if (error <= 0)
			goto out;
	}
	error = rewrite_conf(c, v, pairs, err);
out:
	free(name);
	conf_free(c);
	free(path);
	free(dir);
	return error;
}

static struct series_record *record_of(struct series_records *r,
				       const char *version)
{
	struct series_record *rec;
	size_t at;

	/* a section's keys come together: the last one first */
	if (r->nr && !strcmp(r->items[r->nr - 1].version, version))
		return &r->items[r->nr - 1];
	if ((at = strmap_get(&r->index, version)) != (size_t)-1)
		return &r->items[at];
	ALLOC_GROW(r->items, r->nr + 1, r->alloc);
	rec = &r->items[r->nr];
	memset(rec, 0, sizeof(*rec));
	rec->version = xstrdup(version);
	/* the key is the record's own string: it moves with no realloc */
	strmap_put(&r->index, rec->version, r->nr++);
	return rec;
}

static void set_value(char **field, const char *value)
{
	free(*field);
	*field = xstrdup(value);
}

static int take_version_key(const char *sub, const char *key,
			    const char *value, void *data)
{
	struct series_record *rec;

	if (!sub)
		return 0;
	/* a section with keys kcarry does not know is still a version */
	rec = record_of(data, sub);
	if (!strcmp(key, "kind"))
		set_value(&rec->kind, value);
	else if (!strcmp(key, "source"))
		set_value(&rec->source, value);
	else if (!strcmp(key, "imported"))
		set_value(&rec->imported, value);
	else if (!strcmp(key, "patches"))
		set_value(&rec->patches, value);
	else if (!strcmp(key, "cover"))
		set_value(&rec->cover, value);
	else if (!strcmp(key, "base-commit"))
		set_value(&rec->base_commit, value);
	else if (!strcmp(key, "msgid")) {
		size_t n = strlen(value);

		rec->msgids = xrealloc(rec->msgids, (rec->nr_msgids + 1) *
						    sizeof(*rec->msgids));
		/* written by hand, perhaps as <ID> */
		rec->msgids[rec->nr_msgids++] =
			n > 1 && value[0] == '<' && value[n - 1] == '>'
				? xstrndup(value + 1, n - 2)
				: xstrdup(value);
	}
	return 0;
}

static int take_series_key(const char *sub, const char *key,
			   const char *value, void *data)
{
	struct series_records *r = data;

	if (!sub && !strcmp(key, "list-url"))
		set_value(&r->list_url, value);
	return 0;
}

int series_provenance_load(struct series_records *r, const char *root,
			   const char *name, struct err *err)
{
	char *path = xstrfmt("%s/series/%s.conf", root, name);
	struct conf *c = NULL;
	int error = 0;

	memset(r, 0, sizeof(*r));
	r->exists = fs_is_file(path);
	if (r->exists &&
	    ((error = conf_open(&c, path, false, err)) < 0 ||
	     (error = conf_each(c, "series", take_series_key, r, err)) < 0 ||
	     (error = conf_each(c, "version", take_version_key, r, err)) < 0))
		series_records_release(r);
	conf_free(c);
	free(path);
	return error;
}

void series_records_release(struct series_records *r)
{
	for (size_t i = 0; i < r->nr; i++) {
		struct series_record *rec = &r->items[i];

		free(rec->version);
		free(rec->kind);
		free(rec->source);
		free(rec->imported);
		free(rec->patches);
		free(rec->cover);
		free(rec->base_commit);
		series_free_list(rec->msgids, rec->nr_msgids);
	}
	free(r->items);
	free(r->list_url);
	strmap_release(&r->index);
	memset(r, 0, sizeof(*r));
}

const struct series_record *series_records_find(const struct series_records *r,
						const char *version)
{
	size_t at = strmap_get(&r->index, version);

	return at == (size_t)-1 ? NULL : &r->items[at];
}

const char *series_record_msgid(const struct series_record *rec)
{
	return rec && rec->nr_msgids ? rec->msgids[rec->nr_msgids - 1] : NULL;
}

/*
 * The provenance of v is recorded completely?  Every key prov has must be
 * there, and the patch count right; a different source is not a defect
 * (the same content imported from elsewhere keeps its first record).
 */
static bool conf_matches(const char *root, const struct series_version *v,
			 const struct series_provenance *prov)
{
	struct series_records r;
	struct err err = ERR_INIT;
	const struct series_record *rec = NULL;
	char n[32];
	bool same = false;

	snprintf(n, sizeof(n), "%zu", v->nr);
	if (series_provenance_load(&r, root, v->name, &err) == 0)
		rec = series_records_find(&r, v->version);
	if (rec) {
		const struct {
			const char *got, *want; /* want NULL: need not be there */
		} keys[] = {
			{ rec->kind, prov->kind },
			{ rec->source, prov->source },
			{ rec->imported, "" },
			{ rec->patches, n },
			{ rec->cover, prov->cover_subject },
			{ rec->base_commit, prov->base_commit },
			{ series_record_msgid(rec),
			  prov->nr_msgids ? prov->msgids[0] : NULL },
		};

		same = true;
		/* a wrong count is a defect; another source is not */
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]) && same;
		     i++)
			same = !keys[i].want ||
			       (keys[i].got &&
				(keys[i].want != n || !strcmp(keys[i].got, n)));
	}
	series_records_release(&r);
	err_release(&err);
	return same;
}

/*
 * The stored version came from the same source and its patches change
 * the same lines, in the same order: only what surrounds the diffs
 * differs (trailers that arrived since, a header kcarry now keeps).
 * Such an import updates the version without --force.
 */
static bool same_diffs(const char *root, const struct series_version *v,
		       const struct series_provenance *prov)
{
	struct series_version old;
	struct err err = ERR_INIT;
	struct series_records r = { 0 };
	const struct series_record *rec = NULL;
	const char *source = NULL;
	bool same = false;

	if (prov->source &&
	    series_provenance_load(&r, root, v->name, &err) == 0 &&
	    (rec = series_records_find(&r, v->version)))
		source = rec->source;
	if (source && !strcmp(source, prov->source) &&
	    series_load_version(&old, root, v->name, v->version, &err) == 0) {
		same = old.nr == v->nr;
		for (size_t i = 0; i < v->nr && same; i++) {
			struct span a = old.items[i].patch.diff;
			struct span b = v->items[i].patch.diff;
			same = a.len == b.len && !memcmp(a.ptr, b.ptr, a.len) &&
			       old.items[i].strip == v->items[i].strip;
		}
		series_version_release(&old);
	}
	series_records_release(&r);
	err_release(&err);
	return same;
}

int series_write_version(enum series_write_result *res, const char *root,
			 const struct series_version *v,
			 const struct series_provenance *prov, bool force,
			 struct err *err)
{
	char *sdir = xstrfmt("%s/patches/%s", root, v->name);
	char *vdir = fs_join(sdir, v->version);
	char *tmp = xstrfmt("%s/.tmp-%s-%ld", sdir, v->version, (long)getpid());
	struct dir_file *files;
	size_t nr;
	bool exists, updated = false;
	int error = 0;

	if ((error = name_check(NAME_SERIES, v->name, err)) < 0 ||
	    (error = name_check(NAME_VERSION, v->version, err)) < 0) {
		free(tmp);
		free(vdir);
		free(sdir);
		return error;
	}
	version_files(&files, &nr, v);
	exists = fs_is_dir(vdir);
	if (exists && dir_matches(vdir, files, nr)) {
		*res = SERIES_UNCHANGED;
		/* an import interrupted between the folder and the .conf
		 * (killed, disk full) is completed by importing again */
		if (!conf_matches(root, v, prov)) {
			*res = SERIES_REPAIRED;
			error = write_conf(root, v, prov, err);
		}
		goto out;
	}
	if (exists && !force && same_diffs(root, v, prov))
		updated = true;
	else if (exists && !force) {
		error = err_set(err, ERR_EXISTS,
				"%s@%s is already stored with other content",
				v->name, v->version);
		err_hint(err, "import as another version, or use --force to "
			      "replace patches/%s/%s",
			 v->name, v->version);
		goto out;
	}
	if ((error = fs_remove_tree(tmp, err)) < 0 ||
	    (error = fs_mkdirs(tmp, err)) < 0)
		goto out;
	for (size_t i = 0; i < nr && !error; i++) {
		char *path = fs_join(tmp, files[i].name);
		error = fs_write_atomic(path, files[i].data.ptr,
					files[i].data.len, err);
		free(path);
	}
	if (error)
		goto cleanup;
	if (exists) {
		/* swap in one step: readers see the old or the new version */
		if (renameat2(AT_FDCWD, tmp, AT_FDCWD, vdir,
			      RENAME_EXCHANGE) < 0) {
			error = err_set(err, ERR_IO, "cannot replace '%s': %s",
					vdir, strerror(errno));
			goto cleanup;
		}
		*res = updated ? SERIES_UPDATED : SERIES_REPLACED;
	} else {
		if (rename(tmp, vdir) < 0) {
			error = err_set(err, ERR_IO, "cannot create '%s': %s",
					vdir, strerror(errno));
			goto cleanup;
		}
		*res = SERIES_WRITTEN;
	}
	error = write_conf(root, v, prov, err);
cleanup:
	{
		struct err e2 = ERR_INIT;
		fs_remove_tree(tmp, &e2);
		err_release(&e2);
	}
out:
	free_files(files, nr);
	free(tmp);
	free(vdir);
	free(sdir);
	return error;
}

/*
 * A new file in the private folder series_write_target fills: no
 * temporary name and rename per file (fs_write_atomic), since the whole
 * folder takes the target's place in one rename.
 */
static int write_new_file(int dir, const char *dirpath, const char *name,
			  const char *p, size_t len, struct err *err)
{
	int fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			0666);

	if (fd < 0)
		return err_set(err, ERR_IO, "cannot create '%s/%s': %s",
			       dirpath, name, strerror(errno));
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : ENOSPC;

			close(fd);
			return err_set(err, ERR_IO, "cannot write '%s/%s': %s",
				       dirpath, name, strerror(e));
		}
		p += n;
		len -= (size_t)n;
	}
	if (close(fd) < 0)
		return err_set(err, ERR_IO, "cannot write '%s/%s': %s", dirpath,
			       name, strerror(errno));
	return 0;
}

int series_write_target(const char *root, const char *name,
			const char *version, const char *target,
			const struct series_target_file *files, size_t nr,
			struct err *err)
{
	char *vdir, *tdir, *tmp;
	int error, dir;

	if ((error = name_check(NAME_SERIES, name, err)) < 0 ||
	    (error = name_check(NAME_VERSION, version, err)) < 0 ||
	    (error = name_check(NAME_TARGET, target, err)) < 0)
		return error;
	vdir = xstrfmt("%s/patches/%s/%s", root, name, version);
	tdir = fs_join(vdir, target);
	tmp = xstrfmt("%s/.tmp-%s-%ld", vdir, target, (long)getpid());
	if (!fs_is_dir(vdir)) {
		error = err_set(err, ERR_NOTFOUND, "no stored version %s@%s",
				name, version);
		goto out;
	}
	if ((error = fs_remove_tree(tmp, err)) < 0 ||
	    (error = fs_mkdirs(tmp, err)) < 0)
		goto out;
	dir = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0) {
		error = err_set(err, ERR_IO, "cannot open '%s': %s", tmp,
				strerror(errno));
		goto cleanup;
	}
	for (size_t i = 0; i < nr && !error; i++)
		error = write_new_file(dir, tmp, files[i].name, files[i].text,
				       files[i].len, err);
	close(dir);
	if (error)
		goto cleanup;
	if (fs_is_dir(tdir)) {
		if (renameat2(AT_FDCWD, tmp, AT_FDCWD, tdir, RENAME_EXCHANGE) <
		    0)
			error = err_set(err, ERR_IO, "cannot replace '%s': %s",
					tdir, strerror(errno));
	} else if (rename(tmp, tdir) < 0)
		error = err_set(err, ERR_IO, "cannot create '%s': %s", tdir,
				strerror(errno));
cleanup:
	{
		struct err e2 = ERR_INIT;
		fs_remove_tree(tmp, &e2);
		err_release(&e2);
	}
out:
	free(tmp);
	free(tdir);
	free(vdir);
	return error;
}

static char *resolution_path(const char *root, const char *name,
			     const char *fingerprint)
{
	return xstrfmt("%s/patches/%s/.resolutions/%s.patch", root, name,
		       fingerprint);
}

int series_read_resolution(struct patch *out, const char *root,
			   const char *name, const char *fingerprint,
			   struct err *err)
{
	char *path = resolution_path(root, name, fingerprint);
	struct buf text = BUF_INIT;
	struct patch_parse_opts po = { 0 };
	int error;

	if (!fs_is_file(path)) {
		error = err_set(err, ERR_NOTFOUND, "no resolution %s recorded",
				fingerprint);
		free(path);
		return error;
	}
	po.name = path;
	if ((error = fs_read_file(&text, path, MAX_PATCH_FILE, err)) == 0) {
		if (strstr(text.ptr, "\n" SERIES_NOTHING_TO_APPLY "\n")) {
			/* a resolution that changes nothing: a patch with no
			 * file (carry_series reads it as already applied) */
			patch_release(out);
			patch_init(out);
		} else
			error = patch_parse(out, text.ptr, text.len, &po, err);
	}
	buf_release(&text);
	free(path);
	return error;
}

int series_write_resolution(const char *root, const char *name,
			    const char *fingerprint, const char *text,
			    size_t len, struct err *err)
{
	char *path = resolution_path(root, name, fingerprint);
	char *dir = xstrfmt("%s/patches/%s/.resolutions", root, name);
	int error;

	if ((error = fs_mkdirs(dir, err)) == 0)
		error = fs_write_atomic(path, text, len, err);
	free(dir);
	free(path);
	return error;
}

bool series_exists(const char *root, const char *name)
{
	char *c = xstrfmt("%s/series/%s.conf", root, name);
	char *p = xstrfmt("%s/patches/%s", root, name);
	bool yes = name_valid(NAME_SERIES, name) &&
		   (fs_is_file(c) || fs_is_dir(p));

	free(c);
	free(p);
	return yes;
}

int series_stacks_on(char **base, const char *root, const char *name,
		     struct err *err)
{
	char *path = xstrfmt("%s/series/%s.conf", root, name);
	struct conf *c = NULL;
	char *b = NULL;
	int error = 0;

	*base = NULL;
	if (fs_is_file(path) && (error = conf_open(&c, path, false, err)) == 0)
		b = conf_get_or(c, "series.stacks-on", NULL);
	conf_free(c);
	free(path);
	if (error < 0 || !b)
		return error;
	if ((error = name_check(NAME_SERIES, b, err)) < 0 ||
	    (!series_exists(root, b) &&
	     (error = err_set(err, ERR_NOTFOUND,
			      "no series '%s' in this workspace", b)) < 0)) {
		err_prefix(err, "series/%s.conf: stacks-on", name);
		free(b);
		return error;
	}
	if (!strcmp(b, name)) {
		free(b);
		return err_set(err, ERR_PARSE,
			       "series/%s.conf: a series cannot stack on "
			       "itself",
			       name);
	}
	*base = b;
	return 0;
}

void series_stack_release(struct series_stack *s)
{
	free(s->base);
	free(s->version);
	memset(s, 0, sizeof(*s));
}

int series_stacks_on_resolve(struct series_stack *s, const char *root,
			     const char *name, const char *version,
			     struct err *err)
{
	char **vs = NULL;
	size_t nv = 0;
	int error;

	memset(s, 0, sizeof(*s));
	if ((error = series_stacks_on(&s->base, root, name, err)) < 0 ||
	    !s->base)
		return error;
	error = series_list_versions(root, s->base, &vs, &nv, err);
	if (error == ERR_NOTFOUND) {
		/* the base exists (a .conf of its own): it has no version */
		err_release(err);
		err_init(err);
		error = 0;
	}
	if (error < 0)
		goto fail;
	for (size_t k = 0; k < nv && !s->version; k++)
		if (!strcmp(vs[k], version))
			s->version = xstrdup(vs[k]);
	if (!s->version && nv) {
		s->version = xstrdup(vs[nv - 1]);
		s->newest = true;
	}
	series_free_list(vs, nv);
	if (!s->version) {
		error = err_set(err, ERR_NOTFOUND,
				"'%s' has no stored version", s->base);
		err_hint(err, "'kcarry import %s SOURCE' adds one", s->base);
		goto fail;
	}
	return 0;
fail:
	err_prefix(err, "series '%s' stacks on '%s'", name, s->base);
	series_stack_release(s);
	return error;
}

int series_list_versions(const char *root, const char *name,
			 char ***versions, size_t *nr, struct err *err)
{
	char *dir;
	char **names;
	size_t n, k = 0;
	int error;

	*versions = NULL;
	*nr = 0;
	if ((error = name_check(NAME_SERIES, name, err)) < 0)
		return error;
	dir = xstrfmt("%s/patches/%s", root, name);
	error = fs_list_dir(dir, &names, &n, err);
	if (error == ERR_NOTFOUND) {
		err_set(err, ERR_NOTFOUND, "no series '%s' in this workspace",
			name);
		err_hint(err, "'kcarry list' shows the series; 'kcarry import "
			      "%s SOURCE' adds one",
			 name);
	}
	if (error < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		char *series = xstrfmt("%s/%s/%s", dir, names[i], SERIES_FILE);
		if (name_valid(NAME_VERSION, names[i]) && fs_is_file(series))
			names[k++] = names[i];
		else
			free(names[i]);
		free(series);
	}
	if (k)
		qsort(names, k, sizeof(*names), cmp_versions);
	*versions = names;
	*nr = k;
	if (!k) {
		free(names);
		*versions = NULL;
		error = err_set(err, ERR_NOTFOUND,
				"series '%s' has no stored version", name);
	}
out:
	free(dir);
	return error;
}

int series_list_names(const char *root, char ***names, size_t *nr,
		      struct err *err)
{
	char *pdir = fs_join(root, "patches"), *sdir = fs_join(root, "series");
	char **a = NULL, **b = NULL, **out = NULL;
	size_t na = 0, nb = 0, n = 0, alloc = 0;
	int error = 0;

	if (fs_is_dir(pdir) && (error = fs_list_dir(pdir, &a, &na, err)) < 0)
		goto done;
	if (fs_is_dir(sdir) && (error = fs_list_dir(sdir, &b, &nb, err)) < 0)
		goto done;
	for (size_t i = 0; i < na + nb; i++) {
		char *s = i < na ? a[i] : b[i - na];
		char *name;
		bool seen = false;

		if (s[0] == '.')
			continue;
		if (i >= na) {
			if (!ends_with(s, ".conf"))
				continue;
			name = xstrndup(s, strlen(s) - 5);
		} else {
			/* a folder of patches/ is a series once it holds a
			 * version (a folder with a 'series' file) */
			char *d = fs_join(pdir, s);
			char **vs = NULL;
			size_t nv = 0, found = 0;
			struct err e2 = ERR_INIT;
			if (fs_is_dir(d) && fs_list_dir(d, &vs, &nv, &e2) == 0)
				for (size_t k = 0; k < nv && !found; k++) {
					char *sf = xstrfmt("%s/%s/series", d,
							   vs[k]);
					found = vs[k][0] != '.' && fs_is_file(sf);
					free(sf);
				}
			fs_free_list(vs, nv);
			err_release(&e2);
			free(d);
			if (!found)
				continue;
			name = xstrdup(s);
		}
		/* a file or folder whose name is not a series name is not
		 * a series: it never becomes a path or a ref */
		if (!name_valid(NAME_SERIES, name)) {
			free(name);
			continue;
		}
		for (size_t j = 0; j < n && !seen; j++)
			seen = !strcmp(out[j], name);
		if (seen) {
			free(name);
			continue;
		}
		ALLOC_GROW(out, n + 1, alloc);
		out[n++] = name;
	}
	if (n)
		qsort(out, n, sizeof(*out), cmp_versions);
done:
	fs_free_list(a, na);
	fs_free_list(b, nb);
	free(pdir);
	free(sdir);
	*names = out;
	*nr = n;
	return error;
}

void series_quilt_release(struct series_quilt *q)
{
	for (size_t i = 0; i < q->nr; i++)
		free(q->items[i].file);
	free(q->items);
	memset(q, 0, sizeof(*q));
}

/* The next blank-separated word of *rest (advanced past it). */
static struct span next_word(struct span *rest)
{
	struct span w;
	size_t n = 0;

	*rest = span_trim(*rest);
	while (n < rest->len && rest->ptr[n] != ' ' && rest->ptr[n] != '\t')
		n++;
	w.ptr = rest->ptr;
	w.len = n;
	rest->ptr += n;
	rest->len -= n;
	return w;
}

/* A strip count: 1 to 2 digits, at most 64. */
static bool strip_count(struct span s, int *out)
{
	int v = 0;

	if (!s.len || s.len > 2)
		return false;
	for (size_t i = 0; i < s.len; i++) {
		if (s.ptr[i] < '0' || s.ptr[i] > '9')
			return false;
		v = v * 10 + (s.ptr[i] - '0');
	}
	if (v > 64)
		return false;
	*out = v;
	return true;
}

int series_quilt_parse(struct series_quilt *out, struct span text,
		       const char *name, int default_strip, struct err *err)
{
	struct cursor cur;
	struct span line;

	memset(out, 0, sizeof(*out));
	cursor_init(&cur, text.ptr, text.len);
	while (cursor_next(&cur, &line, NULL)) {
		size_t lineno = cur.lineno - 1;
		const char *hash = memchr(line.ptr, '#', line.len);
		struct span rest, file;
		struct series_quilt_entry *e;
		int strip = default_strip;
		char *f;

		if (hash)
			line.len = (size_t)(hash - line.ptr);
		rest = span_trim(line);
		if (!rest.len)
			continue;
		file = next_word(&rest);
		for (;;) {
			struct span opt = next_word(&rest);
			if (!opt.len)
				break;
			if (span_eq(opt, "-R")) {
				err_set(err, ERR_PARSE,
					"%s:%zu: reversed patches (-R) are not "
					"supported",
					name, lineno);
				goto fail;
			}
			if (span_eq(opt, "-p"))
				opt = next_word(&rest);
			else if (span_starts_with(opt, "-p")) {
				opt.ptr += 2;
				opt.len -= 2;
			} else {
				err_set(err, ERR_PARSE,
					"%s:%zu: unknown option '%.*s'", name,
					lineno, (int)opt.len, opt.ptr);
				goto fail;
			}
			if (!strip_count(opt, &strip)) {
				err_set(err, ERR_PARSE,
					"%s:%zu: -p takes 0 to 64 path "
					"components",
					name, lineno);
				goto fail;
			}
		}
		f = span_dup(file);
		if (f[0] == '/' || !strcmp(f, "..") || starts_with(f, "../") ||
		    strstr(f, "/../") || ends_with(f, "/..")) {
			err_set(err, ERR_PARSE,
				"%s:%zu: '%s' escapes the patch directory", name,
				lineno, f);
			free(f);
			goto fail;
		}
		ALLOC_GROW(out->items, out->nr + 1, out->alloc);
		e = &out->items[out->nr++];
		e->file = f;
		e->strip = strip;
		e->lineno = lineno;
	}
	return 0;
fail:
	series_quilt_release(out);
	return ERR_PARSE;
}

int series_load_version(struct series_version *v, const char *root,
			const char *name, const char *version,
			struct err *err)
{
	char **versions = NULL;
	size_t nv = 0;
	char *vdir = NULL, *path = NULL;
	struct buf data = BUF_INIT, origins = BUF_INIT, text = BUF_INIT;
	struct series_quilt q = { 0 };
	int error;

	series_version_init(v, name, NULL);
	if ((error = series_list_versions(root, name, &versions, &nv, err)) < 0)
		goto out;
	if (!version)
		version = versions[nv - 1];
	else {
		bool found = false;
		for (size_t i = 0; i < nv && !found; i++)
			found = !strcmp(versions[i], version);
		if (!found) {
			error = err_set(err, ERR_NOTFOUND,
					"series '%s' has no version '%s'", name,
					version);
			err_hint(err, "'kcarry show %s' lists the stored "
				      "versions", name);
			goto out;
		}
	}
	v->version = xstrdup(version);
	vdir = xstrfmt("%s/patches/%s/%s", root, name, version);
	path = fs_join(vdir, SERIES_FILE);
	if ((error = fs_read_file(&data, path, 0, err)) < 0)
		goto out;
	free(path);
	path = fs_join(vdir, ORIGINS_FILE);
	if (fs_is_file(path) && (error = fs_read_file(&origins, path, 0, err)) < 0)
		goto out;
	free(path);
	path = fs_join(vdir, COVER_FILE);
	if (fs_is_file(path) &&
	    (error = fs_read_file(&v->cover, path, 0, err)) < 0)
		goto out;
	free(path);
	path = fs_join(vdir, SERIES_FILE);
	if ((error = series_quilt_parse(&q, (struct span){ data.ptr, data.len },
					path, 1, err)) < 0)
		goto out;
	for (size_t k = 0; k < q.nr; k++) {
		struct patch p;
		struct patch_parse_opts popts = { 0 };
		char *file = q.items[k].file, *origin = NULL;
		const char *o;

		free(path);
		path = fs_join(vdir, file);
		if ((error = fs_read_file(&text, path, MAX_PATCH_FILE, err)) <
		    0)
			goto out;
		/* origins: "FILE\tORIGIN\n" lines */
		for (o = origins.ptr; o && *o; o = strchr(o, '\n') ? strchr(o, '\n') + 1 : NULL) {
			size_t fl = strlen(file);
			if (!strncmp(o, file, fl) && o[fl] == '\t') {
				const char *e = strchr(o + fl + 1, '\n');
				origin = e ? xstrndup(o + fl + 1, (size_t)(e - o - fl - 1))
					   : xstrdup(o + fl + 1);
				break;
			}
		}
		popts.name = path;
		popts.strip = q.items[k].strip;
		popts.strip_set = true;
		patch_init(&p);
		error = patch_parse(&p, text.ptr, text.len, &popts, err);
		if (error < 0) {
			patch_release(&p);
			free(origin);
			goto out;
		}
		series_version_add(v, &p, &text, origin ? origin : file);
		v->items[v->nr - 1].strip = q.items[k].strip;
		free(v->items[v->nr - 1].file);
		v->items[v->nr - 1].file = xstrdup(file);
		free(origin);
	}
out:
	series_quilt_release(&q);
	buf_release(&data);
	buf_release(&origins);
	buf_release(&text);
	free(path);
	free(vdir);
	series_free_list(versions, nv);
	return error;
}

int series_parse_spec(const char *spec, char **name, char **version,
		      struct err *err)
{
	const char *at = strchr(spec, '@');
	char *n = at ? xstrndup(spec, (size_t)(at - spec)) : xstrdup(spec);
	int error;

	*name = NULL;
	*version = NULL;
	if ((error = name_check(NAME_SERIES, n, err)) < 0 ||
	    (at && (error = name_check(NAME_VERSION, at + 1, err)) < 0)) {
		free(n);
		return error;
	}
	*name = n;
	if (at)
		*version = xstrdup(at + 1);
	return 0;
}
