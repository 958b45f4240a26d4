#include "debsrc.h"

#include <archive.h>
#include <archive_entry.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cursor.h"
#include "fetch.h"
#include "fs.h"

#define MAX_TAR_MEMBER (64UL * 1024 * 1024)

static bool safe_token(const char *s)
{
	if (!*s || *s == '-')
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(".+~:-_", *s))
			return false;
	return true;
}

void debsrc_release(struct debsrc *d)
{
	for (size_t i = 0; i < d->nr; i++) {
		free(d->files[i].uri);
		free(d->files[i].name);
		free(d->files[i].sha256);
	}
	free(d->files);
	free(d->package);
	free(d->version);
	memset(d, 0, sizeof(*d));
}

const struct debsrc_file *debsrc_find(const struct debsrc *d,
				      const char *suffix)
{
	for (size_t i = 0; i < d->nr; i++)
		if (ends_with(d->files[i].name, suffix))
			return &d->files[i];
	return NULL;
}

bool debsrc_safe_name(const char *name)
{
	if (!*name || !strcmp(name, ".") || !strcmp(name, "..") ||
	    name[0] == '.' || name[0] == '-')
		return false;
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr(".+~:-_", *p))
			return false;
	return strlen(name) < 256;
}

/*
 * One line of --print-uris: 'URI' NAME SIZE SHA256:HEX.  NAME becomes a
 * path in the cache: only its last component is kept, and it must be a
 * plain Debian file name (*bad_name otherwise).
 */
static bool parse_uri_line(struct debsrc_file *f, struct span line,
			   char **bad_name)
{
	char *s = span_dup(line), *p = s, *q, *base;
	bool ok = false;

	memset(f, 0, sizeof(*f));
	if (*p != '\'' || !(q = strchr(p + 1, '\'')))
		goto out;
	f->uri = xstrndup(p + 1, (size_t)(q - p - 1));
	p = q + 1;
	while (*p == ' ')
		p++;
	q = strchr(p, ' ');
	if (!q)
		goto out;
	*q = '\0';
	base = strrchr(p, '/') ? strrchr(p, '/') + 1 : p;
	if (!debsrc_safe_name(base)) {
		if (!*bad_name)
			*bad_name = xstrdup(p);
		goto out;
	}
	f->name = xstrdup(base);
	*q = ' ';
	f->size = strtoull(q + 1, &p, 10);
	while (*p == ' ')
		p++;
	if (starts_with(p, "SHA256:"))
		f->sha256 = xstrdup(p + 7);
	ok = true;
out:
	if (!ok) {
		free(f->uri);
		free(f->name);
		memset(f, 0, sizeof(*f));
	}
	free(s);
	return ok;
}

int debsrc_locate(struct debsrc *d, const char *package, const char *version,
		  struct err *err)
{
	struct buf cmd = BUF_INIT, out = BUF_INIT;
	struct cursor c;
	struct span line;
	size_t alloc = 0;
	char chunk[8192];
	size_t n;
	FILE *p;
	char *bad_name = NULL;
	int status, error = 0;

	memset(d, 0, sizeof(*d));
	if (!safe_token(package) || !safe_token(version))
		return err_set(err, ERR_USAGE,
			       "'%s=%s' is not a Debian package and version",
			       package, version);
	d->package = xstrdup(package);
	d->version = xstrdup(version);
	buf_addf(&cmd, "cd / && apt-get source --print-uris -qq '%s=%s' 2>&1",
		 package, version);
	p = popen(cmd.ptr, "r");
	if (!p) {
		error = err_set(err, ERR_IO, "cannot run apt-get: %s",
				strerror(errno));
		goto out;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
		buf_add(&out, chunk, n);
	status = pclose(p);
	cursor_init(&c, out.ptr, out.len);
	while (cursor_next(&c, &line, NULL)) {
		struct debsrc_file f;
		if (line.len && line.ptr[0] == '\'' &&
		    parse_uri_line(&f, line, &bad_name)) {
			ALLOC_GROW(d->files, d->nr + 1, alloc);
			d->files[d->nr++] = f;
		}
	}
	if (bad_name) {
		error = err_set(err, ERR_IO,
				"apt-get source --print-uris '%s=%s' names "
				"the file '%s', which is not a plain file "
				"name",
				package, version, bad_name);
		goto out;
	}
	if (d->nr)
		goto out;
	buf_rtrim(&out);
	if (strstr(out.ptr, "deb-src")) {
		error = err_set(err, ERR_IO,
				"apt has no source entries: cannot locate "
				"'%s=%s'",
				package, version);
		err_hint(err, "enable deb-src entries (as root: "
			      "scripts/enable-deb-src derives them from your "
			      "deb entries), then 'apt-get update'");
	} else if (strstr(out.ptr, "Unable to find") ||
		   strstr(out.ptr, "Can not find")) {
		error = err_set(err, ERR_NOTFOUND,
				"apt knows no source package '%s=%s'", package,
				version);
		err_hint(err, "'apt-cache showsrc %s | grep ^Version' lists "
			      "the versions apt knows",
			 package);
	} else {
		const char *last = strrchr(out.ptr, '\n');
		error = err_set(err, ERR_IO,
				"apt-get source --print-uris '%s=%s' failed "
				"(status %d): %s",
				package, version,
				WIFEXITED(status) ? WEXITSTATUS(status) : -1,
				last ? last + 1 : out.ptr);
	}
out:
	if (error)
		debsrc_release(d);
	free(bad_name);
	buf_release(&cmd);
	buf_release(&out);
	return error;
}

char *debsrc_cache_dir(void)
{
	return fetch_cache_dir();
}

/* The file has the size and (when apt gave one) the SHA-256 apt says. */
static bool file_matches(const char *path, const struct debsrc_file *f)
{
	struct err err = ERR_INIT;
	char hex[65] = "";
	FILE *fp = fopen(path, "rb");
	unsigned long long sz = 0;
	bool ok;

	if (!fp)
		return false;
	fseeko(fp, 0, SEEK_END);
	sz = (unsigned long long)ftello(fp);
	fclose(fp);
	ok = sz == f->size;
	if (ok && f->sha256)
		ok = fs_sha256_file(hex, path, &err) == 0 &&
		     !strcasecmp(hex, f->sha256);
	err_release(&err);
	return ok;
}

/* fetch's check of a download: apt's size and SHA-256, before caching. */
static int verify_download(const char *tmp, void *ctx, struct err *err)
{
	const struct debsrc_file *f = ctx;

	if (!file_matches(tmp, f))
		return err_set(err, ERR_IO, "does not have the size and "
			       "SHA-256 apt gives for it");
	return 0;
}

int debsrc_fetch(char **path, const struct debsrc_file *f,
		 const struct fetch_opts *o, struct err *err)
{
	char *cache = debsrc_cache_dir();
	char *dir = fs_join(cache, "debian");
	char *p = fs_join(dir, f->name);
	struct fetch_opts defaults;
	struct fetch_result res;
	struct fetch_request req = { 0 };
	int error;

	*path = NULL;
	if (!o) {
		fetch_opts_init(&defaults);
		o = &defaults;
	}
	if (!debsrc_safe_name(f->name)) {
		error = err_set(err, ERR_IO, "'%s' is not a plain file name",
				f->name);
		goto out;
	}
	if ((error = fs_mkdirs(dir, err)) < 0)
		goto out;
	/* named by apt with its checksum: a copy that matches is current */
	if (fs_is_file(p) && file_matches(p, f)) {
		*path = p;
		p = NULL;
		goto out;
	}
	unlink(p);
	req.url = f->uri;
	req.path = p;
	req.max_size = f->size;
	req.verify = verify_download;
	req.verify_ctx = (void *)f;
	error = fetch_url(&res, &req, o, err);
	fetch_result_release(&res);
	if (error < 0)
		goto out;
	*path = p;
	p = NULL;
out:
	free(p);
	free(dir);
	free(cache);
	return error;
}

void debsrc_tree_release(struct debsrc_tree *t)
{
	for (size_t i = 0; i < t->nr; i++) {
		free(t->names[i]);
		buf_release(&t->data[i]);
	}
	free(t->names);
	free(t->data);
	memset(t, 0, sizeof(*t));
}

long debsrc_tree_find(const struct debsrc_tree *t, const char *name)
{
	for (size_t i = 0; i < t->nr; i++)
		if (!strcmp(t->names[i], name))
			return (long)i;
	return -1;
}

int debsrc_read_tar(struct debsrc_tree *t, const char *tarball,
		    const char *prefix, struct err *err)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	size_t plen = strlen(prefix), alloc_d = 0;
	int rc, error = 0;

	memset(t, 0, sizeof(*t));
	archive_read_support_filter_all(a);
	archive_read_support_format_tar(a);
	if (archive_read_open_filename(a, tarball, 65536) != ARCHIVE_OK) {
		error = err_set(err, ERR_IO, "cannot open '%s': %s", tarball,
				archive_error_string(a));
		goto out;
	}
	while ((rc = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(e);
		la_int64_t size = archive_entry_size(e);
		struct buf data = BUF_INIT;

		if (starts_with(name, "./"))
			name += 2;
		if (strncmp(name, prefix, plen) ||
		    archive_entry_filetype(e) != AE_IFREG)
			continue;
		if (size < 0 || (unsigned long long)size > MAX_TAR_MEMBER) {
			error = err_set(err, ERR_PARSE,
					"%s: member '%s' is too large", tarball,
					name);
			goto out;
		}
		buf_grow(&data, (size_t)size);
		if (archive_read_data(a, data.ptr, (size_t)size) != size) {
			error = err_set(err, ERR_IO, "cannot read '%s' in '%s': %s",
					name, tarball, archive_error_string(a));
			buf_release(&data);
			goto out;
		}
		data.len = (size_t)size;
		data.ptr[data.len] = '\0';
		ALLOC_GROW(t->names, t->nr + 1, t->alloc);
		ALLOC_GROW(t->data, t->nr + 1, alloc_d);
		t->names[t->nr] = xstrdup(name + plen);
		t->data[t->nr] = data;
		t->nr++;
	}
	if (rc != ARCHIVE_EOF)
		error = err_set(err, ERR_IO, "cannot read '%s': %s", tarball,
				archive_error_string(a));
out:
	archive_read_free(a);
	return error;
}
