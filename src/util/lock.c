#include "lock.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs.h"

static long read_holder(int fd)
{
	char b[32];
	ssize_t n = pread(fd, b, sizeof(b) - 1, 0);

	if (n <= 0)
		return 0;
	b[n] = '\0';
	return strtol(b, NULL, 10);
}

int lock_take(struct lock *l, const char *path, const struct lock_wait *w,
	      struct err *err)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	char pid[32];
	int n;

	l->fd = -1;
	l->path = NULL;
	if (fd < 0)
		return err_set(err, ERR_IO, "cannot open the lock '%s': %s",
			       path, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK) {
			close(fd);
			return err_set(err, ERR_IO, "cannot lock '%s': %s",
				       path, strerror(errno));
		}
		if (w && w->fn)
			w->fn(w->ctx, path, read_holder(fd));
		while (flock(fd, LOCK_EX) < 0)
			if (errno != EINTR) {
				close(fd);
				return err_set(err, ERR_IO,
					       "cannot lock '%s': %s", path,
					       strerror(errno));
			}
	}
	/* who holds it, for the next one waiting */
	n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, (size_t)n, 0) != n) {
		/* the pid is only a courtesy to others waiting */
	}
	l->fd = fd;
	l->path = xstrdup(path);
	return 0;
}

void lock_release(struct lock *l)
{
	if (l->fd >= 0) {
		if (ftruncate(l->fd, 0) < 0) {
			/* a stale pid only misleads a waiting message */
		}
		close(l->fd);
	}
	free(l->path);
	l->fd = -1;
	l->path = NULL;
}

/* The pid at the end of a leftover name (".tmp-6.1-1234", "x.tmp.1234",
 * "x.conf.tmp-1234"), or 0. */
static long name_pid(const char *name)
{
	const char *p = name + strlen(name);

	while (p > name && p[-1] >= '0' && p[-1] <= '9')
		p--;
	if (!*p || p == name || (p[-1] != '-' && p[-1] != '.'))
		return 0;
	return strtol(p, NULL, 10);
}

static bool alive(long pid)
{
	return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

static void add(char ***list, size_t *nr, size_t *alloc, const char *s)
{
	ALLOC_GROW(*list, *nr + 1, *alloc);
	(*list)[(*nr)++] = xstrdup(s);
}

/* A leftover of an interrupted writer in a folder listing? */
static bool stale_name(const char *name)
{
	long pid;

	if (ends_with(name, ".conf.lock"))
		return true;
	if (!strstr(name, ".tmp-") && !strstr(name, ".tmp."))
		return false;
	pid = name_pid(name);
	return pid && pid != (long)getpid() && !alive(pid);
}

/* Clear the stale entries of one folder (rel: its path under root). */
static int clear_dir(const char *root, const char *rel, char ***removed,
		     size_t *nr, size_t *alloc, struct err *err)
{
	char *dir = *rel ? fs_join(root, rel) : xstrdup(root);
	char **names = NULL;
	size_t n = 0;
	int error = 0;

	if (!fs_is_dir(dir))
		goto out;
	if ((error = fs_list_dir(dir, &names, &n, err)) < 0)
		goto out;
	for (size_t i = 0; i < n && !error; i++) {
		char *path, *r;

		if (!stale_name(names[i]))
			continue;
		path = fs_join(dir, names[i]);
		r = *rel ? fs_join(rel, names[i]) : xstrdup(names[i]);
		if (fs_is_dir(path))
			error = fs_remove_tree(path, err);
		else if (unlink(path) < 0 && errno != ENOENT)
			error = err_set(err, ERR_IO, "cannot remove '%s': %s",
					path, strerror(errno));
		if (!error)
			add(removed, nr, alloc, r);
		free(r);
		free(path);
	}
out:
	fs_free_list(names, n);
	free(dir);
	return error;
}

int lock_clear_stale(char ***removed, size_t *nr, const char *root,
		     struct err *err)
{
	size_t alloc = 0;
	char **series = NULL;
	size_t ns = 0;
	char *pdir = fs_join(root, "patches");
	int error;

	*removed = NULL;
	*nr = 0;
	if ((error = clear_dir(root, "series", removed, nr, &alloc, err)) < 0 ||
	    (error = clear_dir(root, "patches", removed, nr, &alloc, err)) < 0)
		goto out;
	if (fs_is_dir(pdir) && (error = fs_list_dir(pdir, &series, &ns, err)) < 0)
		goto out;
	for (size_t i = 0; i < ns && !error; i++) {
		char *rel = xstrfmt("patches/%s", series[i]);
		char **vs = NULL;
		size_t nv = 0;
		char *sdir = fs_join(root, rel);

		if (fs_is_dir(sdir) &&
		    (error = clear_dir(root, rel, removed, nr, &alloc, err)) == 0 &&
		    (error = fs_list_dir(sdir, &vs, &nv, err)) == 0)
			for (size_t k = 0; k < nv && !error; k++) {
				char *vrel = xstrfmt("%s/%s", rel, vs[k]);
				error = clear_dir(root, vrel, removed, nr,
						  &alloc, err);
				free(vrel);
			}
		fs_free_list(vs, nv);
		free(sdir);
		free(rel);
	}
out:
	fs_free_list(series, ns);
	free(pdir);
	return error;
}

/* Walk dir (rel under gitdir) for *.lock files and remove them. */
static int clear_locks(const char *gitdir, const char *rel, char ***removed,
		       size_t *nr, size_t *alloc, int depth, struct err *err)
{
	char *dir = fs_join(gitdir, rel);
	char **names = NULL;
	size_t n = 0;
	int error = 0;

	if (depth > 32 || !fs_is_dir(dir))
		goto out;
	if ((error = fs_list_dir(dir, &names, &n, err)) < 0)
		goto out;
	for (size_t i = 0; i < n && !error; i++) {
		char *path = fs_join(dir, names[i]);
		char *r = fs_join(rel, names[i]);
		struct stat st;

		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
			error = clear_locks(gitdir, r, removed, nr, alloc,
					    depth + 1, err);
		else if (ends_with(names[i], ".lock")) {
			if (unlink(path) < 0 && errno != ENOENT)
				error = err_set(err, ERR_IO,
						"cannot remove '%s': %s", path,
						strerror(errno));
			else
				add(removed, nr, alloc, r);
		}
		free(r);
		free(path);
	}
out:
	fs_free_list(names, n);
	free(dir);
	return error;
}

int lock_clear_repo(char ***removed, size_t *nr, const char *gitdir,
		    struct err *err)
{
	size_t alloc = 0;

	*removed = NULL;
	*nr = 0;
	return clear_locks(gitdir, "refs/heads/kcarry", removed, nr, &alloc,
			   0, err);
}
