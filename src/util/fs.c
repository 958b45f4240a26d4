#include "fs.h"

#include <dirent.h>
#include <openssl/evp.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int fs_read_file(struct buf *out, const char *path, size_t limit,
		 struct err *err)
{
	/* O_NONBLOCK: opening a FIFO must not wait for a writer */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	ssize_t n;

	if (fd < 0)
		return err_set(err, errno == ENOENT ? ERR_NOTFOUND : ERR_IO,
			       "cannot open '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		return err_set(err, ERR_IO, "cannot read '%s': %s", path,
			       strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		/* a folder, FIFO or device where a file belongs: bad input,
		 * and reading one could block or never end */
		close(fd);
		return err_set(err, ERR_PARSE, "'%s' is %s", path,
			       S_ISDIR(st.st_mode) ? "a folder, not a file"
						   : "not a regular file");
	}
	if (fcntl(fd, F_SETFL, 0) < 0) {
		int e = errno;
		close(fd);
		return err_set(err, ERR_IO, "cannot read '%s': %s", path,
			       strerror(e));
	}
	if (limit && st.st_size > 0 && (size_t)st.st_size > limit) {
		close(fd);
		return err_set(err, ERR_PARSE,
			       "'%s' is larger than the %zu-byte limit", path,
			       limit);
	}
	buf_reset(out);
	if (st.st_size > 0)
		buf_grow(out, (size_t)st.st_size);
	for (;;) {
		buf_grow(out, 65536);
		n = read(fd, out->ptr + out->len, out->alloc - out->len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			return err_set(err, ERR_IO, "cannot read '%s': %s",
				       path, strerror(errno));
		}
		if (n == 0)
			break;
		out->len += (size_t)n;
		out->ptr[out->len] = '\0';
		if (limit && out->len > limit) {
			close(fd);
			return err_set(err, ERR_PARSE,
				       "'%s' is larger than the %zu-byte limit",
				       path, limit);
		}
	}
	close(fd);
	return 0;
}

/*
 * For -o FILE: a path that is a FIFO or a character device (/dev/null)
 * is written straight into, itself or through a symlink (-o
 * /dev/stdout), since a rename over it would put a regular file in its
 * place.  *fd is the node opened, or -1 when the write goes through a
 * temporary file renamed over path (absent, a regular file, a dangling
 * symlink).  A folder, a block device or a socket is refused.
 */
static int open_node(int *fd, const char *path, struct err *err)
{
	struct stat st;
	const char *what = NULL;

	*fd = -1;
	if (stat(path, &st) < 0 || S_ISREG(st.st_mode))
		return 0;
	if (S_ISDIR(st.st_mode))
		what = "a folder";
	else if (S_ISBLK(st.st_mode))
		what = "a block device";
	else if (S_ISSOCK(st.st_mode))
		what = "a socket";
	if (what)
		return err_set(err, ERR_IO, "cannot write '%s': it is %s", path,
			       what);
	*fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (*fd < 0)
		return err_set(err, ERR_IO, "cannot write '%s': %s", path,
			       strerror(errno));
	/* replaced since the stat: never write into a regular file in
	 * place, where a reader could see half of it */
	if (fstat(*fd, &st) < 0 ||
	    (!S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode))) {
		close(*fd);
		*fd = -1;
		return err_set(err, ERR_IO,
			       "cannot write '%s': it changed while it was "
			       "opened",
			       path);
	}
	return 0;
}

int fs_write_atomic(const char *path, const void *data, size_t len,
		    struct err *err)
{
	struct buf tmp = BUF_INIT;
	const char *p = data;
	int fd, error = 0;

	buf_addf(&tmp, "%s.tmp.%ld", path, (long)getpid());
	fd = open(tmp.ptr, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0) {
		error = err_set(err, ERR_IO, "cannot create '%s': %s", tmp.ptr,
				strerror(errno));
		goto out;
	}
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			error = err_set(err, ERR_IO, "cannot write '%s': %s",
					tmp.ptr, strerror(errno));
			close(fd);
			unlink(tmp.ptr);
			goto out;
		}
		p += n;
		len -= (size_t)n;
	}
	if (close(fd) < 0 || rename(tmp.ptr, path) < 0) {
		error = err_set(err, ERR_IO, "cannot write '%s': %s", path,
				strerror(errno));
		unlink(tmp.ptr);
	}
out:
	buf_release(&tmp);
	return error;
}

int fs_mkdirs(const char *path, struct err *err)
{
	char *p, *s;
	int error = 0;

	if (!*path)
		return err_set(err, ERR_USAGE, "an empty path is no directory");
	p = xstrdup(path);
	for (s = p + 1;; s++) {
		char c = *s;
		if (c != '/' && c != '\0')
			continue;
		*s = '\0';
		if (mkdir(p, 0777) < 0 && errno != EEXIST) {
			error = err_set(err, ERR_IO, "cannot create '%s': %s",
					p, strerror(errno));
			break;
		}
		*s = c;
		if (!c)
			break;
	}
	if (!error && !fs_is_dir(path))
		error = err_set(err, ERR_IO, "'%s' is not a directory", path);
	free(p);
	return error;
}

bool fs_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool fs_is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int fs_list_dir(const char *path, char ***names, size_t *nr, struct err *err)
{
	DIR *d = opendir(path);
	struct dirent *de;
	size_t alloc = 0;

	*names = NULL;
	*nr = 0;
	if (!d)
		return err_set(err, errno == ENOENT ? ERR_NOTFOUND : ERR_IO,
			       "cannot open directory '%s': %s", path,
			       strerror(errno));
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		ALLOC_GROW(*names, *nr + 1, alloc);
		(*names)[(*nr)++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (*nr)
		qsort(*names, *nr, sizeof(**names), cmp_names);
	return 0;
}

void fs_free_list(char **names, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(names[i]);
	free(names);
}

int fs_remove_tree(const char *path, struct err *err)
{
	struct stat st;
	char **names;
	size_t nr;
	int error;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0
				       : err_set(err, ERR_IO, "cannot stat '%s': %s",
						 path, strerror(errno));
	if (!S_ISDIR(st.st_mode)) {
		if (unlink(path) < 0)
			return err_set(err, ERR_IO, "cannot remove '%s': %s",
				       path, strerror(errno));
		return 0;
	}
	if ((error = fs_list_dir(path, &names, &nr, err)) < 0)
		return error;
	for (size_t i = 0; i < nr && !error; i++) {
		char *sub = fs_join(path, names[i]);
		error = fs_remove_tree(sub, err);
		free(sub);
	}
	fs_free_list(names, nr);
	if (!error && rmdir(path) < 0)
		error = err_set(err, ERR_IO, "cannot remove '%s': %s", path,
				strerror(errno));
	return error;
}

char *fs_join(const char *a, const char *b)
{
	size_t n = strlen(a);
	if (!n)
		return xstrdup(b);
	return xstrfmt("%s%s%s", a, a[n - 1] == '/' ? "" : "/", b);
}

char *fs_absolute(const char *path)
{
	char *cwd, *r;

	if (path[0] == '/')
		return xstrdup(path);
	cwd = getcwd(NULL, 0);
	if (!cwd)
		return xstrdup(path);
	r = fs_join(cwd, path);
	free(cwd);
	return r;
}

int fs_sha256_file(char hex[65], const char *path, struct err *err)
{
	FILE *fp = fopen(path, "rb");
	EVP_MD_CTX *ctx;
	unsigned char md[EVP_MAX_MD_SIZE], chunk[65536];
	unsigned int mdlen = 0;
	size_t n;
	int error = 0;

	hex[0] = '\0';
	if (!fp)
		return err_set(err, ERR_IO, "cannot open '%s': %s", path,
			       strerror(errno));
	ctx = EVP_MD_CTX_new();
	if (!ctx || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
		error = err_set(err, ERR_IO, "cannot start SHA-256");
		goto out;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0)
		EVP_DigestUpdate(ctx, chunk, n);
	if (ferror(fp) || EVP_DigestFinal_ex(ctx, md, &mdlen) != 1) {
		error = err_set(err, ERR_IO, "cannot read '%s'", path);
		goto out;
	}
	for (unsigned i = 0; i < mdlen; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
out:
	EVP_MD_CTX_free(ctx);
	fclose(fp);
	return error;
}

char *fs_normalise(const char *path)
{
	char *abs = fs_absolute(path);
	struct buf b = BUF_INIT;
	const char *p = abs;

	while (*p) {
		const char *e;
		size_t n;

		while (*p == '/')
			p++;
		e = p + strcspn(p, "/");
		n = (size_t)(e - p);
		if (n == 1 && p[0] == '.') {
			/* nothing */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			char *slash = strrchr(b.ptr, '/');
			buf_truncate(&b, slash ? (size_t)(slash - b.ptr) : 0);
		} else if (n) {
			buf_addc(&b, '/');
			buf_add(&b, p, n);
		}
		p = e;
	}
	if (!b.len)
		buf_addc(&b, '/');
	free(abs);
	return buf_detach(&b, NULL);
}

int fs_atomic_open(struct fs_atomic *a, const char *path, struct err *err)
{
	int fd, error;

	a->f = NULL;
	a->path = a->tmp = NULL;
	if ((error = open_node(&fd, path, err)) < 0)
		return error;
	a->path = xstrdup(path);
	if (fd >= 0) {
		if (!(a->f = fdopen(fd, "w"))) {
			error = err_set(err, ERR_IO, "cannot write '%s': %s",
					path, strerror(errno));
			close(fd);
			free(a->path);
			a->path = NULL;
		}
		return error;
	}
	a->tmp = xstrfmt("%s.tmp-%ld", path, (long)getpid());
	a->f = fopen(a->tmp, "w");
	if (!a->f) {
		error = err_set(err, ERR_IO, "cannot create '%s': %s", a->tmp,
				strerror(errno));
		free(a->path);
		free(a->tmp);
		a->path = a->tmp = NULL;
		return error;
	}
	return 0;
}

int fs_atomic_commit(struct fs_atomic *a, struct err *err)
{
	const char *name = a->tmp ? a->tmp : a->path;
	int error = 0;

	if (ferror(a->f) | (fclose(a->f) != 0))
		error = err_set(err, ERR_IO, "cannot write '%s': %s", name,
				strerror(errno));
	else if (a->tmp && rename(a->tmp, a->path) < 0)
		error = err_set(err, ERR_IO, "cannot write '%s': %s", a->path,
				strerror(errno));
	if (error && a->tmp)
		unlink(a->tmp);
	a->f = NULL;
	free(a->path);
	free(a->tmp);
	a->path = a->tmp = NULL;
	return error;
}

void fs_atomic_abort(struct fs_atomic *a)
{
	if (a->f) {
		fclose(a->f);
		if (a->tmp)
			unlink(a->tmp);
	}
	free(a->path);
	free(a->tmp);
	a->f = NULL;
	a->path = a->tmp = NULL;
}
