#include "build.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "debsrc.h"
#include "fs.h"
#include "patch.h"
#include "profile.h"

extern char **environ;

#define UNIT_MARK "\x1dunit "

char *build_cache_dir(void)
{
	char *c = debsrc_cache_dir(), *b = fs_join(c, "build");
	free(c);
	return b;
}

static char *sanitize(const char *s)
{
	char *o = xstrdup(s);
	for (char *p = o; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr(".-_+~", *p))
			*p = '_';
	if (o[0] == '.')
		o[0] = '_';
	return o;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void free_list(char **l, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(l[i]);
	free(l);
}

/* Words separated by blanks (no quoting: make flags and targets). */
static size_t split_words(char ***out, const char *s)
{
	size_t nr = 0;

	*out = NULL;
	while (*s) {
		const char *e;
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		for (e = s; *e && *e != ' ' && *e != '\t'; e++)
			;
		*out = xrealloc(*out, (nr + 1) * sizeof(char *));
		(*out)[nr++] = xstrndup(s, (size_t)(e - s));
		s = e;
	}
	return nr;
}

static void list_add(char ***l, size_t *nr, char *s)
{
	for (size_t i = 0; i < *nr; i++)
		if (!strcmp((*l)[i], s)) {
			free(s);
			return;
		}
	*l = xrealloc(*l, (*nr + 1) * sizeof(char *));
	(*l)[(*nr)++] = s;
}

void build_result_release(struct build_result *r)
{
	free(r->error);
	free(r->cc);
	free(r->profile);
	free(r->kbuild_rule);
	free(r->target_var);
	free(r->out_dir);
	free_list(r->targets, r->nr_targets);
	for (size_t i = 0; r->attr && i < r->diags.nr; i++)
		blame_attribution_release(&r->attr[i]);
	free(r->attr);
	diag_list_release(&r->diags);
	free_list(r->failed_objects, r->nr_failed_objects);
	free_list(r->broken_objects, r->nr_broken_objects);
	free(r->steps);
	buf_release(&r->log);
	memset(r, 0, sizeof(*r));
}

/* ---- source folder ---- */

struct manifest_entry {
	char *path;
	char hex[41];
	unsigned mode;
	unsigned long long size;
};

static void manifest_free(struct manifest_entry *m, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(m[i].path);
	free(m);
}

static int cmp_manifest(const void *a, const void *b)
{
	return strcmp(((const struct manifest_entry *)a)->path,
		      ((const struct manifest_entry *)b)->path);
}

static void manifest_load(struct manifest_entry **out, size_t *nr,
			  const char *path)
{
	struct buf b = BUF_INIT;
	struct err err = ERR_INIT;
	size_t alloc = 0;
	char *p;

	*out = NULL;
	*nr = 0;
	if (fs_read_file(&b, path, 0, &err) < 0) {
		err_release(&err);
		return;
	}
	for (p = b.ptr; *p;) {
		char *e = strchr(p, '\n'), *sp1, *sp2, *sp3;
		if (!e)
			break;
		*e = '\0';
		sp1 = strchr(p, ' ');
		sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
		sp3 = sp2 ? strchr(sp2 + 1, ' ') : NULL;
		if (sp3 && sp2 - sp1 - 1 == 40) {
			struct manifest_entry *m;
			ALLOC_GROW(*out, *nr + 1, alloc);
			m = &(*out)[(*nr)++];
			m->mode = (unsigned)strtoul(p, NULL, 8);
			memcpy(m->hex, sp1 + 1, 40);
			m->hex[40] = '\0';
			m->size = strtoull(sp2 + 1, NULL, 10);
			m->path = xstrdup(sp3 + 1);
		}
		p = e + 1;
	}
	if (*nr)
		qsort(*out, *nr, sizeof(**out), cmp_manifest);
	buf_release(&b);
}

static const struct manifest_entry *
manifest_find(const struct manifest_entry *m, size_t nr, const char *path)
{
	struct manifest_entry key = { (char *)path, "", 0, 0 };
	return nr ? bsearch(&key, m, nr, sizeof(*m), cmp_manifest) : NULL;
}

/*
 * Make every folder between the source folder (its path is root_len
 * bytes of path) and path's file a real folder: a file or a symlink there
 * (foo.c became foo/, or a link a series added) goes, and is never
 * followed out of the source folder.
 */
static int ensure_parent(char **last_dir, size_t root_len, const char *path,
			 struct err *err)
{
	const char *slash = strrchr(path, '/');
	char *d;
	int error = 0;

	if (!slash || (size_t)(slash - path) <= root_len)
		return 0;
	d = xstrndup(path, (size_t)(slash - path));
	if (*last_dir && !strcmp(*last_dir, d)) {
		free(d);
		return 0;
	}
	for (char *s = strchr(d + root_len + 1, '/');; s = strchr(s + 1, '/')) {
		struct stat st;
		if (s)
			*s = '\0';
		if (lstat(d, &st) == 0 && !S_ISDIR(st.st_mode))
			unlink(d);
		if (mkdir(d, 0755) < 0 && errno != EEXIST) {
			error = err_set(err, ERR_IO, "cannot create '%s': %s",
					d, strerror(errno));
			break;
		}
		if (!s)
			break;
		*s = '/';
	}
	free(*last_dir);
	*last_dir = error ? NULL : d;
	if (error)
		free(d);
	return error;
}

/* Every folder between the source folder and path's file is a real one. */
static bool parents_real(size_t root_len, const char *path)
{
	char *d = xstrdup(path);
	bool ok = true;

	for (char *s = strchr(d + root_len + 1, '/'); s && ok;
	     s = strchr(s + 1, '/')) {
		struct stat st;
		*s = '\0';
		ok = lstat(d, &st) == 0 && S_ISDIR(st.st_mode);
		*s = '/';
	}
	free(d);
	return ok;
}

/* A path of the tree git itself would refuse to check out ("..", .git in
 * any spelling): refused before anything is written. */
static int check_paths(const struct tree_entry_info *e, size_t ne,
		       const struct tree_oid *commit, struct err *err)
{
	for (size_t i = 0; i < ne; i++) {
		const char *why;
		char hex[41];
		if (e[i].mode == 0160000 ||
		    !(why = patch_path_refused(e[i].path, e[i].mode)))
			continue;
		tree_oid_hex(hex, commit);
		return err_set(err, ERR_CONFLICT,
			       "the tree of commit %.12s holds the path "
			       "'%s', which %s: git refuses to check it "
			       "out, and kcarry will not build it",
			       hex, e[i].path, why);
	}
	return 0;
}

/* The file on disk has the blob's content (hashed the way git does). */
static bool same_content(const char *path, const char *hex, unsigned mode)
{
	struct buf b = BUF_INIT;
	struct err err = ERR_INIT;
	char h[41];
	bool same = false;

	if (mode == 0120000) {
		char link[4096];
		ssize_t n = readlink(path, link, sizeof(link));
		if (n >= 0) {
			tree_hash(h, link, (size_t)n);
			same = !strcmp(h, hex);
		}
		return same;
	}
	if (fs_read_file(&b, path, 0, &err) == 0) {
		struct stat st;
		tree_hash(h, b.ptr, b.len);
		same = !strcmp(h, hex) && lstat(path, &st) == 0 &&
		       S_ISREG(st.st_mode) &&
		       !!(st.st_mode & S_IXUSR) == (mode == 0100755);
	}
	buf_release(&b);
	err_release(&err);
	return same;
}

/* rename, replacing a folder the old tree had at path */
static int replace_path(const char *tmp, const char *path)
{
	if (rename(tmp, path) == 0)
		return 0;
	if (errno == EISDIR || errno == ENOTEMPTY || errno == EEXIST) {
		struct err e2 = ERR_INIT;
		fs_remove_tree(path, &e2);
		err_release(&e2);
		return rename(tmp, path);
	}
	return -1;
}

static int write_entry(struct tree_repo *repo, const struct tree_entry_info *e,
		       const char *path, struct buf *data, struct err *err)
{
	char *tmp;
	int fd, error = 0;

	if ((error = tree_read_blob_by_id(data, repo, e->hex, err)) < 0)
		return error;
	tmp = xstrfmt("%s.kcarry-tmp", path);
	if (e->mode == 0120000) {
		unlink(tmp);
		if (symlink(data->ptr, tmp) < 0 || replace_path(tmp, path) < 0)
			error = err_set(err, ERR_IO, "cannot write '%s': %s",
					path, strerror(errno));
		free(tmp);
		return error;
	}
	/* a new file: never through a link the tree put at that name */
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  e->mode == 0100755 ? 0755 : 0644);
	if (fd < 0) {
		error = err_set(err, ERR_IO, "cannot write '%s': %s", tmp,
				strerror(errno));
		free(tmp);
		return error;
	}
	for (size_t off = 0; off < data->len;) {
		ssize_t n = write(fd, data->ptr + off, data->len - off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			error = err_set(err, ERR_IO, "cannot write '%s': %s",
					tmp, strerror(errno));
			break;
		}
		off += (size_t)n;
	}
	if (close(fd) < 0 && !error)
		error = err_set(err, ERR_IO, "cannot write '%s'", tmp);
	/*
	 * A new inode, stamped with the fine-grained clock: the file
	 * system's own stamp is coarse (a kernel tick), and an object
	 * compiled in the same tick would look as new as the source.
	 */
	if (!error) {
		struct timespec ts[2];
		clock_gettime(CLOCK_REALTIME, &ts[0]);
		ts[1] = ts[0];
		utimensat(AT_FDCWD, tmp, ts, 0);
	}
	if (!error && replace_path(tmp, path) < 0)
		error = err_set(err, ERR_IO, "cannot write '%s': %s", path,
				strerror(errno));
	if (error)
		unlink(tmp);
	free(tmp);
	return error;
}

int build_sync(size_t *written, struct tree_repo *repo,
	       const struct tree_oid *commit, const char *dir,
	       const char *manifest, struct err *err)
{
	struct tree_entry_info *e = NULL;
	struct manifest_entry *m = NULL;
	size_t ne = 0, nm = 0;
	struct tree_oid tree;
	struct buf data = BUF_INIT, out = BUF_INIT;
	char *last_dir = NULL;
	size_t root_len = strlen(dir);
	int error;

	*written = 0;
	if ((error = tree_commit_tree(&tree, repo, commit, err)) < 0 ||
	    (error = tree_walk_blobs(&e, &ne, repo, &tree, err)) < 0)
		return error;
	if ((error = check_paths(e, ne, commit, err)) < 0)
		goto out;
	if ((error = fs_mkdirs(dir, err)) < 0)
		goto out;
	manifest_load(&m, &nm, manifest);
	/* an interrupted sync must not leave a manifest that lies */
	unlink(manifest);
	for (size_t i = 0; i < ne; i++) {
		const struct manifest_entry *me = manifest_find(m, nm, e[i].path);
		char *path = fs_join(dir, e[i].path);
		struct stat st;
		bool ok = false;

		if (e[i].mode == 0160000) {
			free(path);
			continue;
		}
		/* a link where the tree has a folder is replaced first:
		 * nothing is read or written through it */
		if ((error = ensure_parent(&last_dir, root_len, path, err)) < 0) {
			free(path);
			goto out;
		}
		if (me && !strcmp(me->hex, e[i].hex) && me->mode == e[i].mode &&
		    lstat(path, &st) == 0 &&
		    (unsigned long long)st.st_size == me->size)
			ok = true;
		else if (!me && lstat(path, &st) == 0)
			ok = same_content(path, e[i].hex, e[i].mode);
		if (!ok) {
			if ((error = write_entry(repo, &e[i], path, &data,
						 err)) < 0) {
				free(path);
				goto out;
			}
			(*written)++;
			if (lstat(path, &st) < 0)
				st.st_size = 0;
		}
		buf_addf(&out, "%06o %s %llu %s\n", e[i].mode, e[i].hex,
			 (unsigned long long)st.st_size, e[i].path);
		free(path);
	}
	/* files the tree no longer has */
	for (size_t i = 0; i < nm; i++) {
		struct tree_entry_info key = { m[i].path, "", 0 };
		size_t lo = 0, hi = ne;
		bool found = false;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			int c = strcmp(e[mid].path, key.path);
			if (!c) {
				found = true;
				break;
			}
			if (c < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (!found) {
			char *path = fs_join(dir, m[i].path);
			/* never through a link that replaced its folder */
			if (parents_real(root_len, path) && unlink(path) == 0)
				(*written)++;
			free(path);
		}
	}
	error = fs_write_atomic(manifest, out.ptr, out.len, err);
out:
	free(last_dir);
	buf_release(&data);
	buf_release(&out);
	manifest_free(m, nm);
	tree_entries_free(e, ne);
	return error;
}

/* ---- running commands ---- */

struct runner {
	const char *target;
	const struct build_progress *progress;
	const char *phase;
	double t0, phase_t0;
	size_t done, total;
	char **env;
	int signal;   /* the last command was killed by it, or 0 */
};

static char **make_env(const char *src, const char *out, const char *ccache,
		       const char *makeflags, const char *makefiles)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	env = xcalloc(n + 8, sizeof(char *));
	for (size_t i = 0; i < n; i++) {
		if (starts_with(environ[i], "LANG=") ||
		    starts_with(environ[i], "LC_ALL=") ||
		    starts_with(environ[i], "LANGUAGE=") ||
		    starts_with(environ[i], "MAKEFLAGS=") ||
		    starts_with(environ[i], "MFLAGS=") ||
		    starts_with(environ[i], "MAKEFILES=") ||
		    starts_with(environ[i], "KCARRY_BUILD=") ||
		    starts_with(environ[i], "KCARRY_SRC=") ||
		    (ccache && starts_with(environ[i], "CCACHE_DIR=")))
			continue;
		env[k++] = xstrdup(environ[i]);
	}
	/* the kernel Makefile unexports LC_ALL: LANG too, or gcc quotes
	 * typographically */
	env[k++] = xstrdup("LANG=C");
	env[k++] = xstrdup("LC_ALL=C");
	env[k++] = xstrfmt("KCARRY_SRC=%s", src);
	env[k++] = xstrfmt("KCARRY_BUILD=%s", out);
	if (ccache)
		env[k++] = xstrfmt("CCACHE_DIR=%s", ccache);
	if (makeflags)
		env[k++] = xstrfmt("MAKEFLAGS=%s", makeflags);
	if (makefiles)
		env[k++] = xstrfmt("MAKEFILES=%s", makefiles);
	env[k] = NULL;
	return env;
}

static void free_env(char **env)
{
	for (size_t i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}

static bool is_cc_line(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && s[i] == ' ')
		i++;
	return i > 0 && n - i > 4 && !strncmp(s + i, "CC ", 3) &&
	       (memmem(s, n, ".o", 2) != NULL);
}

static void tell(struct runner *rn, struct build_tick *t)
{
	double at = now();

	if (!rn->progress || !rn->progress->fn)
		return;
	t->target = rn->target;
	t->phase = rn->phase;
	t->done = rn->done;
	t->total = rn->total;
	t->elapsed = at - rn->t0;
	t->seconds = at - rn->phase_t0;
	rn->progress->fn(rn->progress->ctx, t);
}

static void report(struct runner *rn)
{
	struct build_tick t = { .event = BUILD_TICK };

	tell(rn, &t);
}

/* command: what the phase runs, for the log ("make fs/btrfs/"), or NULL */
static void phase_begin(struct runner *rn, const char *phase,
			const char *command, size_t total)
{
	struct build_tick t = { .event = BUILD_BEGIN, .command = command };

	rn->phase = phase;
	rn->done = 0;
	rn->total = total;
	rn->phase_t0 = now();
	tell(rn, &t);
}

static void phase_end(struct runner *rn, struct build_tick *t)
{
	t->event = BUILD_END;
	tell(rn, t);
}

/*
 * Run argv in dir with rn->env; stdout and stderr together into out.
 * *status gets the exit status (or 128 + signal).
 */
static int run_cmd(int *status, struct buf *out, struct runner *rn,
		   const char *dir, char *const *argv, struct err *err)
{
	int fds[2];
	pid_t pid;
	char chunk[65536];
	size_t scanned = out->len;
	int ws;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return err_set(err, ERR_IO, "cannot create a pipe: %s",
			       strerror(errno));
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return err_set(err, ERR_IO, "cannot start '%s': %s", argv[0],
			       strerror(errno));
	}
	if (pid == 0) {
		int nul = open("/dev/null", O_RDONLY);
		if (nul >= 0)
			dup2(nul, 0);
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		if (dir && chdir(dir) < 0)
			_exit(126);
		execvpe(argv[0], argv, rn->env);
		_exit(127);
	}
	close(fds[1]);
	report(rn);
	for (;;) {
		ssize_t n = read(fds[0], chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		buf_add(out, chunk, (size_t)n);
		while (scanned < out->len) {
			char *e = memchr(out->ptr + scanned, '\n',
					 out->len - scanned);
			if (!e)
				break;
			if (is_cc_line(out->ptr + scanned,
				       (size_t)(e - out->ptr) - scanned)) {
				rn->done++;
				report(rn);
			}
			scanned = (size_t)(e - out->ptr) + 1;
		}
	}
	close(fds[0]);
	while (waitpid(pid, &ws, 0) < 0)
		if (errno != EINTR)
			return err_set(err, ERR_IO, "cannot wait for '%s'",
				       argv[0]);
	*status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	rn->signal = WIFSIGNALED(ws) ? WTERMSIG(ws) : 0;
	if (*status == 127 && !out->len)
		return err_set(err, ERR_IO, "cannot run '%s'", argv[0]);
	report(rn);
	return 0;
}

/* Output of a shell command line (first line trimmed), or NULL. */
static char *probe(const char *cmd, char **env)
{
	struct runner rn = { 0 };
	struct buf out = BUF_INIT;
	struct err err = ERR_INIT;
	char *argv[] = { "sh", "-c", (char *)cmd, NULL };
	int status = -1;
	char *r = NULL;

	rn.env = env;
	if (run_cmd(&status, &out, &rn, NULL, argv, &err) == 0 && status == 0) {
		char *e = strchr(out.ptr, '\n');
		if (e)
			*e = '\0';
		r = xstrdup(out.ptr);
	}
	buf_release(&out);
	err_release(&err);
	return r;
}

/* ---- what to build ---- */

static bool compiled_source(const char *p)
{
	return ends_with(p, ".c") || ends_with(p, ".S");
}

void build_default_targets(char ***out, size_t *nr,
			   const struct carry_result *cr,
			   const struct audit_opts *watch)
{
	char **folders = NULL;
	size_t nf = 0;

	*out = NULL;
	*nr = 0;
	if (watch && watch->nr_watch)
		for (size_t i = 0; i < watch->nr_watch; i++) {
			const char *s = strrchr(watch->watch[i], '/');
			list_add(&folders, &nf,
				 s ? xstrfmt("%.*s/",
					     (int)(s - watch->watch[i]),
					     watch->watch[i])
				   : xstrdup("./"));
		}
	else
		list_add(&folders, &nf, xstrdup("fs/btrfs/"));
	for (size_t i = 0; i < cr->nr; i++) {
		const struct carry_patch *cp = &cr->patches[i];
		if (!cp->committed || !cp->item)
			continue;
		for (size_t f = 0; f < cp->item->patch.nr_files; f++) {
			const struct carry_file *cf =
				f < cp->nr_files ? &cp->files[f] : NULL;
			/* adaptation rule 1: the files it went to are built,
			 * one per hunk when it went hunk by hunk */
			size_t nh = cf && cf->hunk_to ? cf->nr_hunks : 1;

			for (size_t h = 0; h < nh; h++) {
				const char *p =
					cp->item->patch.files[f].new_path;
				bool covered = false;

				if (cf && (cf->moved_to || cf->hunk_to))
					p = carry_hunk_path(cf, h);
				if (!p || !compiled_source(p))
					continue;
				for (size_t k = 0; k < nf && !covered; k++)
					covered = starts_with(p, folders[k]);
				if (!covered) {
					char *o = xstrdup(p);
					o[strlen(o) - 1] = 'o';
					list_add(out, nr, o);
				}
			}
		}
	}
	for (size_t k = 0; k < nf; k++)
		list_add(out, nr, folders[k]);
	free(folders);
}

/* A diagnostic's path or unit is among the make targets. */
static bool in_scope(const char *path, char *const *targets, size_t nr,
		     bool full)
{
	if (full)
		return true;
	for (size_t i = 0; i < nr; i++) {
		const char *t = targets[i];
		size_t n = strlen(t);
		if (n && t[n - 1] == '/') {
			if (!strncmp(path, t, n) || !strcmp(t, "./"))
				return true;
		} else if (diag_is_object(t)) {
			const char *dot = strrchr(t, '.');
			size_t stem = (size_t)(dot - t);
			if (!strncmp(path, t, stem) &&
			    (!strcmp(path + stem, ".c") ||
			     !strcmp(path + stem, ".S")))
				return true;
		} else if (!strncmp(path, t, n) && path[n] == '/')
			return true;
	}
	return false;
}

bool build_compiled(const struct build_result *r, const char *path)
{
	return r->ran && !r->skipped && compiled_source(path) &&
	       in_scope(path, r->targets, r->nr_targets, !r->nr_targets);
}

/* ---- the per-object diagnostics of an O= folder ---- */

struct unit_text {
	char *unit;
	struct buf text;
};

struct units {
	struct unit_text *u;
	size_t nr, alloc;
};

static void units_release(struct units *s)
{
	for (size_t i = 0; i < s->nr; i++) {
		free(s->u[i].unit);
		buf_release(&s->u[i].text);
	}
	free(s->u);
	memset(s, 0, sizeof(*s));
}

static struct unit_text *units_get(struct units *s, const char *unit,
				   bool create)
{
	for (size_t i = 0; i < s->nr; i++)
		if (!strcmp(s->u[i].unit, unit))
			return &s->u[i];
	if (!create)
		return NULL;
	ALLOC_GROW(s->u, s->nr + 1, s->alloc);
	s->u[s->nr].unit = xstrdup(unit);
	buf_init(&s->u[s->nr].text, 0);
	return &s->u[s->nr++];
}

static void units_load(struct units *s, const char *path)
{
	struct buf b = BUF_INIT;
	struct err err = ERR_INIT;
	struct unit_text *cur = NULL;
	const char *p, *end;

	memset(s, 0, sizeof(*s));
	if (fs_read_file(&b, path, 0, &err) < 0) {
		err_release(&err);
		return;
	}
	for (p = b.ptr, end = b.ptr + b.len; p < end;) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		size_t n = e ? (size_t)(e - p) : (size_t)(end - p);
		if (n > strlen(UNIT_MARK) && !strncmp(p, UNIT_MARK,
						       strlen(UNIT_MARK))) {
			char *u = xstrndup(p + strlen(UNIT_MARK),
					   n - strlen(UNIT_MARK));
			cur = units_get(s, u, true);
			free(u);
		} else if (cur) {
			buf_add(&cur->text, p, n);
			buf_addc(&cur->text, '\n');
		}
		p += n + 1;
	}
	buf_release(&b);
}

static int units_save(const struct units *s, const char *path,
		      struct err *err)
{
	struct buf b = BUF_INIT;
	int error;

	for (size_t i = 0; i < s->nr; i++) {
		if (!s->u[i].text.len)
			continue;
		buf_addf(&b, "%s%s\n", UNIT_MARK, s->u[i].unit);
		buf_add(&b, s->u[i].text.ptr, s->u[i].text.len);
	}
	error = fs_write_atomic(path, b.ptr, b.len, err);
	buf_release(&b);
	return error;
}

static char *object_of(const char *unit)
{
	char *o = xstrdup(unit);
	size_t n = strlen(o);
	if (n > 2 && (ends_with(o, ".c") || ends_with(o, ".S")))
		o[n - 1] = 'o';
	return o;
}

static char *unit_of_object(const char *obj)
{
	char *u = xstrdup(obj);
	size_t n = strlen(u);
	if (ends_with(u, ".o"))
		u[n - 1] = 'c';
	return u;
}

/* The mtime of a unit's object (0 when there is none). */
static struct timespec object_mtime(const char *out_dir, const char *unit)
{
	char *o = object_of(unit), *p = fs_join(out_dir, o);
	struct stat st;
	struct timespec ts = { 0, 0 };

	if (stat(p, &st) == 0)
		ts = st.st_mtim;
	free(o);
	free(p);
	return ts;
}

/* Before a make run: the objects of the units the store knows. */
static struct timespec *units_stamps(const struct units *s, const char *out_dir)
{
	struct timespec *ts = xcalloc(s->nr + 1, sizeof(*ts));
	for (size_t i = 0; i < s->nr; i++)
		ts[i] = object_mtime(out_dir, s->u[i].unit);
	return ts;
}

/* Fold one make run's output into the store; the errors and failed
 * objects it reports. */
static size_t units_update(struct units *s, const char *output, size_t len,
			   const struct diag_parse_opts *po,
			   const char *out_dir, const struct timespec *before)
{
	size_t explained = 0;

	struct diag_list l;
	struct units fresh = { 0 };

	diag_list_init(&l);
	diag_parse(&l, output, len, po);
	for (size_t i = 0; i < l.nr; i++) {
		const struct diag *d = &l.items[i];
		const char *u = d->unit ? d->unit : d->path;
		struct unit_text *ut = units_get(&fresh, u, true);
		if (!ut->text.len && compiled_source(u)) {
			char *o = object_of(u);
			buf_addf(&ut->text, "  CC      %s\n", o);
			free(o);
		}
		buf_add(&ut->text, d->text.ptr, d->text.len);
	}
	for (size_t i = 0; i < l.nr_failed; i++) {
		char *u = unit_of_object(l.failed[i]);
		struct unit_text *ut = units_get(&fresh, u, true);
		buf_addf(&ut->text, "make: *** [%s] Error 1\n", l.failed[i]);
		free(u);
	}
	/* compiled cleanly this time: forget what it said before */
	for (size_t i = 0; i < s->nr; i++) {
		struct timespec now_ts;
		if (units_get(&fresh, s->u[i].unit, false))
			continue;
		now_ts = object_mtime(out_dir, s->u[i].unit);
		if (now_ts.tv_sec != before[i].tv_sec ||
		    now_ts.tv_nsec != before[i].tv_nsec)
			buf_reset(&s->u[i].text);
	}
	for (size_t i = 0; i < fresh.nr; i++) {
		struct unit_text *ut = units_get(s, fresh.u[i].unit, true);
		buf_swap(&ut->text, &fresh.u[i].text);
	}
	for (size_t i = 0; i < l.nr; i++)
		explained += l.items[i].sev == DIAG_ERROR;
	explained += l.nr_failed;
	units_release(&fresh);
	diag_list_release(&l);
	return explained;
}

/* The stored text of every unit in scope. */
static void units_scope(struct buf *out, const struct units *s,
			char *const *targets, size_t nr, bool full)
{
	for (size_t i = 0; i < s->nr; i++)
		if (s->u[i].text.len &&
		    in_scope(s->u[i].unit, targets, nr, full))
			buf_add(out, s->u[i].text.ptr, s->u[i].text.len);
}

/* ---- one target's build ---- */

struct bctx {
	const struct build_request *rq;
	struct build_result *res;
	char *dir, *src, *manifest, *out, *units_path;
	char **args;       /* make arguments common to every call */
	size_t nr_args;
	struct profile_use prof;
	struct runner rn;
	struct units units;
	struct diag_parse_opts po;
	bool full;
	char *makeflags;   /* --full with build.command: MAKEFLAGS */
	enum kbuild_folder_rule folder_rule;
	char *target_var; /* added to the make calls of targets
			    * ("KBUILD_MODULES=1"), or NULL */
};

static void add_arg(struct bctx *c, char *a)
{
	c->args = xrealloc(c->args, (c->nr_args + 1) * sizeof(char *));
	c->args[c->nr_args++] = a;
}

/* make ARGS EXTRA... in src */
static int run_make(int *status, struct buf *out, struct bctx *c,
		    char *const *extra, size_t nr_extra, struct err *err)
{
	char **argv = xcalloc(c->nr_args + nr_extra + 2, sizeof(char *));
	size_t k = 0;
	int error;

	argv[k++] = "make";
	for (size_t i = 0; i < c->nr_args; i++)
		argv[k++] = c->args[i];
	for (size_t i = 0; i < nr_extra; i++)
		argv[k++] = extra[i];
	argv[k] = NULL;
	error = run_cmd(status, out, &c->rn, c->src, argv, err);
	free(argv);
	return error;
}

static void tail_of(struct buf *dst, const struct buf *log, size_t lines)
{
	size_t i = log->len, n = 0;

	while (i > 0 && n <= lines) {
		i--;
		if (log->ptr[i] == '\n' && i + 1 < log->len)
			n++;
	}
	if (n > lines)
		i++;
	buf_add(dst, log->ptr + i, log->len - i);
	buf_rtrim(dst);
}

/* A line that carries the error: make's "***" (with its file and line),
 * a compiler's "error:", make's "Error N". */
static bool error_line(const char *p, size_t n)
{
	const char *e;

	if (memmem(p, n, "***", 3) || memmem(p, n, "error:", 6) ||
	    memmem(p, n, "Error:", 6))
		return true;
	for (const char *q = p; (e = memmem(q, n - (size_t)(q - p), "Error ",
					    6)); q = e + 6)
		if (e + 6 < p + n && isdigit((unsigned char)e[6]))
			return true;
	return false;
}

/* The log's lines that carry the error (at most max); false when none. */
static bool error_lines(struct buf *dst, const struct buf *log, size_t max)
{
	size_t found = 0;

	for (size_t i = 0; i < log->len && found < max;) {
		const char *p = log->ptr + i;
		const char *e = memchr(p, '\n', log->len - i);
		size_t n = e ? (size_t)(e - p) : log->len - i;
		if (error_line(p, n)) {
			buf_add(dst, p, n);
			buf_addc(dst, '\n');
			found++;
		}
		i += n + 1;
	}
	buf_rtrim(dst);
	return found > 0;
}

static int fail_env(struct bctx *c, const char *what, const struct buf *log,
		    struct err *err)
{
	struct buf m = BUF_INIT;

	if (c->rn.signal)
		buf_addf(&m, "%s: make was killed by signal %d (%s)", what,
			 c->rn.signal, strsignal(c->rn.signal));
	else
		buf_addf(&m, "%s failed", what);
	if (log && log->len) {
		/* the lines that carry the error; else the first lines say
		 * what went wrong, the last where */
		size_t lines = 0, head = 0;
		struct buf el = BUF_INIT;
		for (size_t i = 0; i < log->len; i++)
			if (log->ptr[i] == '\n' && ++lines == 4 && !head)
				head = i + 1;
		buf_adds(&m, ":\n");
		if (error_lines(&el, log, 20))
			buf_add(&m, el.ptr, el.len);
		else if (lines <= 16)
			tail_of(&m, log, 16);
		else {
			struct buf t = BUF_INIT;
			buf_add(&m, log->ptr, head);
			buf_adds(&m, "...\n");
			tail_of(&t, log, 10);
			buf_add(&m, t.ptr, t.len);
			buf_release(&t);
		}
		buf_release(&el);
	}
	c->res->error = buf_detach(&m, NULL);
	c->res->error_code = ERR_CONFLICT;
	c->res->failed = true;
	return 0;
}

static char *read_tree_text(struct tree_repo *r, const struct tree_oid *commit,
			    const char *path)
{
	struct tree_oid tree;
	struct buf b = BUF_INIT;
	struct err err = ERR_INIT;
	bool exists = false;
	unsigned mode;
	char *s = NULL;

	if (tree_commit_tree(&tree, r, commit, &err) == 0 &&
	    tree_read_file(&b, &exists, &mode, r, &tree, path, &err) == 0 &&
	    exists)
		s = buf_detach(&b, NULL);
	buf_release(&b);
	err_release(&err);
	return s;
}

static bool tree_has(struct tree_repo *r, const struct tree_oid *commit,
		     const char *path)
{
	struct tree_oid tree;
	struct err err = ERR_INIT;
	char hex[41];
	bool exists = false;

	if (tree_commit_tree(&tree, r, commit, &err) == 0) {
		if (ends_with(path, "/")) {
			char **paths = NULL;
			size_t n = 0;
			char *d = xstrndup(path, strlen(path) - 1);
			if (!strcmp(path, "./"))
				exists = true;
			else if (tree_list_files(&paths, &n, r, &tree, d, NULL,
						 &err) == 0)
				exists = n > 0;
			free_list(paths, n);
			free(d);
		} else if (diag_is_object(path)) {
			char *u = unit_of_object(path);
			tree_file_id(hex, &exists, r, &tree, u, &err);
			if (!exists) {
				u[strlen(u) - 1] = 'S';
				tree_file_id(hex, &exists, r, &tree, u, &err);
			}
			free(u);
		} else if (tree_file_id(hex, &exists, r, &tree, path, &err) ==
				   0 &&
			   !exists) {
			/* "fs/btrfs" names a folder too */
			char **paths = NULL;
			size_t n = 0;
			if (tree_list_files(&paths, &n, r, &tree, path, NULL,
					    &err) == 0)
				exists = n > 0;
			free_list(paths, n);
		}
	}
	err_release(&err);
	return exists;
}

/* The targets that exist at commit. */
static void targets_at(char ***out, size_t *nr, struct bctx *c,
		       const struct tree_oid *commit)
{
	*out = NULL;
	*nr = 0;
	for (size_t i = 0; i < c->res->nr_targets; i++)
		if (tree_has(c->rq->repo, commit, c->res->targets[i]))
			list_add(out, nr, xstrdup(c->res->targets[i]));
}

static size_t count_sources(struct bctx *c, const struct tree_oid *commit,
			    char *const *targets, size_t nr)
{
	static const char *const exts[] = { ".c", NULL };
	struct tree_oid tree;
	struct err err = ERR_INIT;
	size_t total = 0;

	if (tree_commit_tree(&tree, c->rq->repo, commit, &err) < 0) {
		err_release(&err);
		return 0;
	}
	for (size_t i = 0; i < nr; i++) {
		size_t n = strlen(targets[i]);
		if (n && targets[i][n - 1] == '/') {
			char **paths = NULL;
			size_t np = 0;
			char *d = xstrndup(targets[i], n - 1);
			if (tree_list_files(&paths, &np, c->rq->repo, &tree,
					    strcmp(d, ".") ? d : "", exts,
					    &err) == 0)
				total += np;
			free_list(paths, np);
			free(d);
		} else
			total++;
	}
	err_release(&err);
	return total;
}

/* Bring the source folder to commit, saying how many files it rewrote. */
static int sync_to(struct bctx *c, const struct tree_oid *commit,
		   struct err *err)
{
	struct build_tick t = { 0 };
	int error;

	phase_begin(&c->rn, "sync", NULL, 0);
	if ((error = build_sync(&t.written, c->rq->repo, commit, c->src,
				c->manifest, err)) < 0)
		return error;
	phase_end(&c->rn, &t);
	return 0;
}

/* "make T1 T2 ...", as the log names a make phase */
static void join_make(struct buf *out, char *const *words, size_t nr)
{
	buf_adds(out, "make");
	for (size_t i = 0; i < nr; i++)
		buf_addf(out, " %s", words[i]);
}

/* Sync to commit and make targets; *scope gets the diagnostics of every
 * object in scope as last compiled. */
static int make_at(struct bctx *c, const struct tree_oid *commit,
		   char *const *targets, size_t nr, const char *phase,
		   struct buf *scope, int *status, struct err *err)
{
	struct buf log = BUF_INIT;
	struct timespec *before;
	int error;

	if ((error = sync_to(c, commit, err)) < 0)
		return error;
	{
		struct buf cmd = BUF_INIT;

		if (c->full)
			buf_adds(&cmd, c->rq->target->build_command
					       ? c->rq->target->build_command
					       : "make");
		else {
			join_make(&cmd, targets, nr);
			if (c->target_var)
				buf_addf(&cmd, " %s", c->target_var);
		}
		phase_begin(&c->rn, phase, cmd.ptr,
			    c->full ? 0 : count_sources(c, commit, targets, nr));
		buf_release(&cmd);
	}
	before = units_stamps(&c->units, c->out);
	if (c->full && c->rq->target->build_command) {
		char *argv[] = { "sh", "-c", c->rq->target->build_command,
				 NULL };
		char **env = c->rn.env;
		char **fenv = NULL;
		size_t n = 0;
		while (env[n])
			n++;
		fenv = xcalloc(n + 2, sizeof(char *));
		memcpy(fenv, env, n * sizeof(char *));
		fenv[n] = c->makeflags;
		c->rn.env = fenv;
		error = run_cmd(status, &log, &c->rn, c->src, argv, err);
		c->rn.env = env;
		free(fenv);
	} else {
		char **w = xcalloc(nr + 1, sizeof(char *));
		size_t n = nr;
		memcpy(w, targets, nr * sizeof(char *));
		if (c->target_var)
			w[n++] = c->target_var;
		error = run_make(status, &log, c, w, n, err);
		free(w);
	}
	if (error < 0) {
		free(before);
		buf_release(&log);
		return error;
	}
	if ((!units_update(&c->units, log.ptr, log.len, &c->po, c->out,
			   before) ||
	     c->rn.signal) &&
	    *status && !c->res->error) {
		/* make failed and said of no object why: not a build of
		 * the series at all (no makefile, no such target, a tool
		 * missing); never report that as "builds" */
		char *what = xstrfmt("make (%s)", phase);
		fail_env(c, what, &log, err);
		free(what);
	}
	free(before);
	buf_release(&log);
	if ((error = units_save(&c->units, c->units_path, err)) < 0)
		return error;
	units_scope(scope, &c->units, targets, nr, c->full);
	return 0;
}

/* Probe the compiler, the tree and make; choose the profile; fill args. */
static int setup(struct bctx *c, struct err *err)
{
	const struct target *t = c->rq->target;
	struct profile_facts f = { 0 };
	const char *cc = t->build_cc && *t->build_cc ? t->build_cc : "gcc";
	char *ver, *mk, *cgh = NULL, *tbi, *cmd;
	struct buf h = BUF_INIT;
	char hex[41];
	unsigned jobs = t->build_jobs;

	cmd = xstrfmt("%s -dumpversion", cc);
	ver = probe(cmd, c->rn.env);
	free(cmd);
	if (!ver) {
		err_set(err, ERR_IO, "cannot run the compiler '%s'", cc);
		err_hint(err, "set build.cc in %s", t->conf_path);
		return ERR_IO;
	}
	f.cc_major = atoi(ver);
	free(ver);
	cmd = xstrfmt("%s --version", cc);
	ver = probe(cmd, c->rn.env);
	free(cmd);
	f.clang = ver && strstr(ver, "clang");
	/* another compiler release is another configuration: its own O=
	 * folder and base build, never the old one's diagnostics */
	buf_addf(&h, "compiler=%s\n", ver ? ver : "");
	free(ver);
	ver = probe("make --version", c->rn.env);
	if (!ver) {
		err_set(err, ERR_IO, "cannot run 'make'");
		err_hint(err, "install GNU make");
		return ERR_IO;
	}
	if (starts_with(ver, "GNU Make ")) {
		f.make_major = atoi(ver + 9);
		f.make_minor = strchr(ver + 9, '.') ? atoi(strchr(ver + 9, '.') + 1)
						    : 0;
	}
	free(ver);
	mk = read_tree_text(c->rq->repo, &c->rq->carry->base, "Makefile");
	f.makefile = mk;
	c->folder_rule = profile_folder_rule(mk);
	profile_kernel_version(mk, &f.kernel_version, &f.kernel_patchlevel);
	if (f.kernel_version >= 0 && !f.clang) {
		cgh = read_tree_text(c->rq->repo, &c->rq->carry->base,
				     "include/linux/compiler-gcc.h");
		f.compiler_gcc_h = cgh;
		for (int n = 1; n <= 30; n++) {
			char *p = xstrfmt("include/linux/compiler-gcc%d.h", n);
			if (tree_has(c->rq->repo, &c->rq->carry->base, p)) {
				f.highest_gcc_header = n;
				if (n == f.cc_major)
					f.has_own_gcc_header = true;
			}
			free(p);
		}
	}
	tbi = read_tree_text(c->rq->repo, &c->rq->carry->base,
			     "tools/build/Build.include");
	f.tools_build_include = tbi;
	if (!t->build_profile || strcmp(t->build_profile, "none"))
		profile_choose(&c->prof, &f);
	free(cgh);
	free(tbi);
	c->res->cc = c->prof.cc_flags ? xstrfmt("%s %s", cc, c->prof.cc_flags)
				      : xstrdup(cc);
	if (c->prof.id && c->prof.tools_id)
		c->res->profile = xstrfmt("%s+%s", c->prof.id,
					  c->prof.tools_id);
	else if (c->prof.id || c->prof.tools_id)
		c->res->profile = xstrdup(c->prof.id ? c->prof.id
						     : c->prof.tools_id);

	/* the configuration, hashed: it names the O= folder */
	buf_addf(&h, "cc=%s\nprofile=%s\nflags=%s\n", c->res->cc,
		 c->res->profile ? c->res->profile : "", t->build_make_flags
						       ? t->build_make_flags
						       : "");
	for (size_t i = 0; i < c->prof.nr_make_vars; i++)
		buf_addf(&h, "var=%s\n", c->prof.make_vars[i]);
	for (size_t i = 0; i < t->nr_build_config; i++) {
		const char *l = t->build_config[i];
		buf_addf(&h, "config=%s\n", l);
		if (starts_with(l, "file:") && l[5] == '/') {
			/* a distro's config where it lives (/boot/config-*):
			 * read at build time */
			struct buf b = BUF_INIT;
			struct err e2 = ERR_INIT;
			if (fs_read_file(&b, l + 5, 0, &e2) < 0) {
				free(mk);
				buf_release(&h);
				buf_release(&b);
				err_set(err, ERR_NOTFOUND,
					"%s: build.config '%s': %s",
					t->conf_path, l, e2.msg.ptr);
				err_release(&e2);
				return ERR_NOTFOUND;
			}
			tree_hash(hex, b.ptr, b.len);
			buf_addf(&h, "file=%s\n", hex);
			buf_release(&b);
			err_release(&e2);
		} else if (starts_with(l, "file:")) {
			char *txt = read_tree_text(c->rq->repo,
						   &c->rq->carry->base, l + 5);
			if (!txt) {
				struct buf b = BUF_INIT;
				struct err e2 = ERR_INIT;
				char *p = fs_join(c->rq->root, l + 5);
				if (fs_read_file(&b, p, 0, &e2) == 0)
					txt = buf_detach(&b, NULL);
				buf_release(&b);
				err_release(&e2);
				free(p);
			}
			if (!txt) {
				free(mk);
				buf_release(&h);
				return err_set(err, ERR_NOTFOUND,
					       "%s: build.config '%s': no such "
					       "file in the tree or the "
					       "workspace",
					       t->conf_path, l);
			}
			tree_hash(hex, txt, strlen(txt));
			buf_addf(&h, "file=%s\n", hex);
			free(txt);
		}
	}
	tree_hash(hex, h.ptr, h.len);
	buf_release(&h);
	c->out = xstrfmt("%s/out-%.12s", c->dir, hex);
	c->units_path = fs_join(c->out, ".kcarry-units");
	c->res->out_dir = xstrdup(c->out);
	free(mk);

	if (!jobs) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		jobs = n > 0 ? (unsigned)n : 1;
	}
	add_arg(c, xstrfmt("O=%s", c->out));
	add_arg(c, xstrdup("-k"));
	add_arg(c, xstrdup("-Otarget"));
	add_arg(c, xstrfmt("-j%u", jobs));
	add_arg(c, xstrfmt("CC=%s", c->res->cc));
	for (size_t i = 0; i < c->prof.nr_make_vars; i++)
		add_arg(c, xstrdup(c->prof.make_vars[i]));
	if (t->build_make_flags) {
		char **w = NULL;
		size_t n = split_words(&w, t->build_make_flags);
		for (size_t i = 0; i < n; i++)
			add_arg(c, w[i]);
		free(w);
	}
	{
		/* --full with build.command: the same settings through
		 * MAKEFLAGS (spaces escaped as make wants) */
		struct buf m = BUF_INIT;
		buf_addf(&m, "MAKEFLAGS=-k -Otarget -j%u --", jobs);
		for (size_t i = 4; i < c->nr_args; i++) {
			buf_addc(&m, ' ');
			for (const char *p = c->args[i]; *p; p++) {
				if (*p == ' ' || *p == '\\')
					buf_addc(&m, '\\');
				buf_addc(&m, *p);
			}
		}
		buf_addf(&m, " O=%s", c->out);
		c->makeflags = buf_detach(&m, NULL);
	}
	return 0;
}

static int set_config_line(const char *path, const char *line,
			   struct err *err)
{
	struct buf b = BUF_INIT, out = BUF_INIT;
	struct err e2 = ERR_INIT;
	const char *eq = strchr(line, '=');
	char *name = xstrndup(line, (size_t)(eq - line));
	char *set = xstrfmt("%s=", name), *unset = xstrfmt("# %s is not set",
							   name);
	int error;

	fs_read_file(&b, path, 0, &e2);
	err_release(&e2);
	for (char *p = b.ptr; *p;) {
		char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (!(starts_with(p, set) ||
		      (n == strlen(unset) && !strncmp(p, unset, n)))) {
			buf_add(&out, p, n);
			buf_addc(&out, '\n');
		}
		p += n + (e ? 1 : 0);
	}
	if (!strcmp(eq + 1, "n"))
		buf_addf(&out, "%s\n", unset);
	else
		buf_addf(&out, "%s\n", line);
	error = fs_write_atomic(path, out.ptr, out.len, err);
	buf_release(&b);
	buf_release(&out);
	free(name);
	free(set);
	free(unset);
	return error;
}

static bool is_config_setting(const char *l)
{
	const char *eq = strchr(l, '=');
	if (!starts_with(l, "CONFIG_") || !eq || strchr(l, ' '))
		return false;
	for (const char *p = l; p < eq; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return false;
	return true;
}

/* Configure the O= folder once per configuration hash. */
static int configure(struct bctx *c, struct err *err)
{
	const struct target *t = c->rq->target;
	char *stamp = fs_join(c->out, ".kcarry-config");
	char *config = fs_join(c->out, ".config");
	struct buf log = BUF_INIT, have = BUF_INIT;
	struct err e2 = ERR_INIT;
	char *mk = NULL;
	int status = 0, error = 0;

	if (fs_read_file(&have, stamp, 0, &e2) == 0 &&
	    !strcmp(have.ptr, "configured\n"))
		goto out;
	err_release(&e2);
	if ((error = sync_to(c, &c->rq->carry->base, err)) < 0)
		goto out;
	/* 3.x needs O= to exist before the first make */
	if ((error = fs_mkdirs(c->out, err)) < 0)
		goto out;
	if (c->prof.makefiles_path) {
		char *p = fs_join(c->out, c->prof.makefiles_path);
		error = fs_write_atomic(p, c->prof.makefiles_text,
					strlen(c->prof.makefiles_text), err);
		free(p);
		if (error)
			goto out;
	}
	if (c->prof.shim_path) {
		char *p = fs_join(c->out, c->prof.shim_path);
		char *d = xstrndup(p, (size_t)(strrchr(p, '/') - p));
		if ((error = fs_mkdirs(d, err)) == 0)
			error = fs_write_atomic(p, c->prof.shim_text,
						strlen(c->prof.shim_text), err);
		free(d);
		free(p);
		if (error)
			goto out;
	}
	for (size_t i = 0; i < t->nr_build_config && !error; i++) {
		const char *l = t->build_config[i];
		if (is_config_setting(l))
			error = set_config_line(config, l, err);
		else if (starts_with(l, "file:")) {
			struct buf b = BUF_INIT;
			char *p = l[5] == '/' ? xstrdup(l + 5)
					      : fs_join(c->src, l + 5);
			if (l[5] != '/' && !fs_is_file(p)) {
				free(p);
				p = fs_join(c->rq->root, l + 5);
			}
			if ((error = fs_read_file(&b, p, 0, err)) == 0)
				error = fs_write_atomic(config, b.ptr, b.len,
							err);
			buf_release(&b);
			free(p);
		} else {
			char **words = NULL;
			size_t n = split_words(&words, l);
			struct buf cmd = BUF_INIT;
			join_make(&cmd, words, n);
			phase_begin(&c->rn, "config", cmd.ptr, 0);
			buf_release(&cmd);
			error = run_make(&status, &log, c, words, n, err);
			free_list(words, n);
			if (!error && status) {
				char *what = xstrfmt("make %s", l);
				fail_env(c, what, &log, err);
				free(what);
				goto out;
			}
		}
	}
	if (error)
		goto out;
	if (t->nr_build_config) {
		char *w[] = { "olddefconfig" };
		phase_begin(&c->rn, "config", "make olddefconfig", 0);
		buf_reset(&log);
		if ((error = run_make(&status, &log, c, w, 1, err)) < 0)
			goto out;
		if (status) {
			fail_env(c, "make olddefconfig", &log, err);
			goto out;
		}
	}
	mk = read_tree_text(c->rq->repo, &c->rq->carry->base, "Makefile");
	if (!c->full && mk && strstr(mk, "\nmodules_prepare:")) {
		char *w[] = { "modules_prepare" };
		phase_begin(&c->rn, "prepare", "make modules_prepare", 0);
		buf_reset(&log);
		if ((error = run_make(&status, &log, c, w, 1, err)) < 0)
			goto out;
		if (status) {
			fail_env(c, "make modules_prepare", &log, err);
			goto out;
		}
	}
	error = fs_write_atomic(stamp, "configured\n", 11, err);
out:
	free(mk);
	free(stamp);
	free(config);
	buf_release(&log);
	buf_release(&have);
	err_release(&e2);
	return error;
}

/* ---- which diagnostics are new, and why ---- */

static bool same_key(const struct diag *a, const char *path,
		     unsigned long line, const struct diag *b)
{
	return a->sev == b->sev && !strcmp(a->path, path) &&
	       (!line || a->line == line) && !strcmp(a->message, b->message);
}

/*
 * The diagnostics of cur (the build after patch upto) that the base does
 * not have, compared by file and message with lines mapped through the
 * series; new ones go to *fresh (attributed when attr is set).
 */
static int new_diags(struct diag_list *fresh, struct blame_attribution **attr,
		     size_t *kept, const struct diag_list *base,
		     const struct diag_list *cur, struct bctx *c, size_t upto,
		     struct err *err)
{
	struct blame b;
	bool *used = xcalloc(base->nr + 1, sizeof(bool));
	size_t alloc = 0;
	int error = 0;

	blame_init(&b, c->rq->repo, c->rq->carry, upto);
	*kept = 0;
	for (size_t i = 0; i < cur->nr; i++) {
		const struct diag *d = &cur->items[i];
		struct blame_line bl;
		bool found = false;

		if ((error = blame_line(&bl, &b, d->path, d->line, err)) < 0)
			break;
		for (size_t k = 0; k < base->nr && !found; k++)
			if (!used[k] && bl.base_path &&
			    same_key(&base->items[k], bl.base_path,
				     bl.base_line, d))
				found = used[k] = true;
		/* a line a patch changed may keep its old warning */
		for (size_t k = 0; bl.patch && k < base->nr && !found; k++)
			if (!used[k] && same_key(&base->items[k], d->path, 0, d))
				found = used[k] = true;
		blame_line_release(&bl);
		if (found) {
			(*kept)++;
			continue;
		}
		diag_list_add_copy(fresh, d);
		if (attr) {
			ALLOC_GROW(*attr, fresh->nr, alloc);
			if ((error = blame_attribute(&(*attr)[fresh->nr - 1], &b,
						     d, c->rq->audit, err)) < 0) {
				memset(&(*attr)[fresh->nr - 1], 0,
				       sizeof(**attr));
				break;
			}
		}
	}
	for (size_t i = 0; i < cur->nr_failed; i++) {
		bool in_base = false;
		for (size_t k = 0; k < base->nr_failed && !in_base; k++)
			in_base = !strcmp(base->failed[k], cur->failed[i]);
		if (!in_base)
			list_add(&fresh->failed, &fresh->nr_failed,
				 xstrdup(cur->failed[i]));
	}
	blame_release(&b);
	free(used);
	return error;
}

static void count(const struct diag_list *l, size_t *errors, size_t *warnings)
{
	*errors = *warnings = 0;
	for (size_t i = 0; i < l->nr; i++) {
		if (l->items[i].sev == DIAG_ERROR)
			(*errors)++;
		else if (l->items[i].sev == DIAG_WARNING)
			(*warnings)++;
	}
}

/* The end of a make phase, with what its objects report (l), from the
 * cache or not. */
static void make_end(struct bctx *c, const char *phase,
		     const struct diag_list *l, bool cached)
{
	struct build_tick t = { .counted = true, .cached = cached };

	c->rn.phase = phase;
	count(l, &t.errors, &t.warnings);
	phase_end(&c->rn, &t);
}

static bool touches_compiled(const struct carry_patch *cp)
{
	for (size_t f = 0; cp->item && f < cp->item->patch.nr_files; f++) {
		const char *p = patch_file_path(&cp->item->patch.files[f]);
		const char *base = strrchr(p, '/') ? strrchr(p, '/') + 1 : p;
		if (ends_with(p, ".c") || ends_with(p, ".h") ||
		    ends_with(p, ".S") || !strncmp(base, "Makefile", 8) ||
		    !strncmp(base, "Kbuild", 6) || !strncmp(base, "Kconfig", 7))
			return true;
	}
	return false;
}

/* Some object file under dir (recursively). */
static bool has_object(const char *dir, int depth)
{
	char **names = NULL;
	size_t n = 0;
	struct err err = ERR_INIT;
	bool found = false;

	if (depth > 12 || fs_list_dir(dir, &names, &n, &err) < 0) {
		err_release(&err);
		return false;
	}
	for (size_t i = 0; i < n && !found; i++) {
		char *p = fs_join(dir, names[i]);
		if (ends_with(names[i], ".o"))
			found = fs_is_file(p);
		else if (names[i][0] != '.' && fs_is_dir(p))
			found = has_object(p, depth + 1);
		free(p);
	}
	fs_free_list(names, n);
	err_release(&err);
	return found;
}

/* The base build left an object for some target (or failed one). */
static bool built_something(struct bctx *c, char *const *targets, size_t nr)
{
	if (c->full || !nr)
		return has_object(c->out, 0);
	for (size_t i = 0; i < nr; i++) {
		const char *t = targets[i];
		size_t n = strlen(t);
		char *p = fs_join(c->out, t);
		bool yes;
		if (diag_is_object(t))
			yes = fs_is_file(p);
		else {
			if (n && p[strlen(p) - 1] == '/')
				p[strlen(p) - 1] = '\0';
			yes = has_object(p, 0);
		}
		free(p);
		if (yes)
			return true;
	}
	return false;
}

/* The value of CONFIG_X in the O= folder's .config ("y", "m", "16"), or
 * NULL when unset. */
static char *config_value(struct bctx *c, const char *sym)
{
	char *path = fs_join(c->out, ".config");
	struct buf b = BUF_INIT;
	struct err err = ERR_INIT;
	size_t n = strlen(sym);
	char *v = NULL;

	if (fs_read_file(&b, path, 0, &err) == 0)
		for (const char *p = b.ptr; p && *p && !v;) {
			const char *e = strchr(p, '\n');
			if (!strncmp(p, sym, n) && p[n] == '=')
				v = e ? xstrndup(p + n + 1, (size_t)(e - p - n - 1))
				      : xstrdup(p + n + 1);
			p = e ? e + 1 : NULL;
		}
	free(path);
	buf_release(&b);
	err_release(&err);
	return v;
}

/* The symbol of "obj-$(CONFIG_X) += name/" in the parent's Makefile. */
static char *folder_symbol(const char *mk, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = mk; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
		const char *e = strchr(p, '\n'), *q;
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (strncmp(p, "obj-$(CONFIG_", 13))
			continue;
		for (q = p; (q = memmem(q, len - (size_t)(q - p), name, n));
		     q += n) {
			char before = q > p ? q[-1] : ' ', after = q[n];
			if ((before == ' ' || before == '\t' || before == '=') &&
			    (q + n == p + len || after == ' ' || after == '\t' ||
			     after == '\\'))
				return xstrndup(p + 6, strcspn(p + 6, ")"));
		}
	}
	return NULL;
}

/*
 * Why make built nothing of folder (fs/btrfs/): the symbol its parent's
 * Makefile builds it under and its value in .config, and what this
 * tree's Kbuild does with a folder target.  Nothing when unknown.
 */
static void explain_folder(struct buf *m, struct bctx *c, const char *folder)
{
	char *d = xstrndup(folder, strlen(folder) - 1);
	char *slash = strrchr(d, '/');
	char *parent_mk, *name, *sym = NULL, *val = NULL;

	if (!slash) {
		free(d);
		return;
	}
	*slash = '\0';
	parent_mk = xstrfmt("%s/Makefile", d);
	name = xstrfmt("%s/", slash + 1);
	{
		char *mk = read_tree_text(c->rq->repo, &c->rq->carry->base,
					  parent_mk);
		if (!mk) {
			strcpy(parent_mk + strlen(d) + 1, "Kbuild");
			mk = read_tree_text(c->rq->repo, &c->rq->carry->base,
					    parent_mk);
		}
		sym = mk ? folder_symbol(mk, name) : NULL;
		free(mk);
	}
	if (sym) {
		val = config_value(c, sym);
		if (!val || !strcmp(val, "n"))
			buf_addf(m, ": %s builds %s under %s, which .config "
				    "leaves unset, so the folder is off (see "
				    "build.config)",
				 parent_mk, folder, sym);
		else
			buf_addf(m, ": %s builds %s under %s=%s, which is on; "
				    "make compiled nothing because of this "
				    "Kbuild's folder targets (%s%s%s)",
				 parent_mk, folder, sym, val,
				 profile_folder_rule_name(c->folder_rule),
				 c->target_var ? "; kcarry passed " : "",
				 c->target_var ? c->target_var : "");
	}
	free(sym);
	free(val);
	free(name);
	free(parent_mk);
	free(d);
}

/*
 * A folder target compiles the folder's objects, built-in or modular, on
 * every Kbuild: where the tree's rule builds built-in objects only (5.10),
 * KBUILD_MODULES=1 goes on the make command line of the targets (with
 * CONFIG_MODULES set; without it there are no modules to build).
 */
static void choose_target_var(struct bctx *c)
{
	bool folder = false;
	char *mods;

	for (size_t i = 0; i < c->res->nr_targets; i++)
		folder = folder || ends_with(c->res->targets[i], "/");
	if (!folder || c->full || c->folder_rule == KBUILD_FOLDER_UNKNOWN)
		return;
	c->res->kbuild_rule = xstrdup(profile_folder_rule_name(c->folder_rule));
	if (c->folder_rule != KBUILD_FOLDER_BUILTIN)
		return;
	mods = config_value(c, "CONFIG_MODULES");
	if (mods && !strcmp(mods, "y")) {
		c->target_var = xstrdup("KBUILD_MODULES=1");
		c->res->target_var = xstrdup(c->target_var);
	}
	free(mods);
}

/* The base build's diagnostics: from the cache, or built now. */
static int base_diags(struct diag_list *base, struct bctx *c,
		      struct err *err)
{
	const struct carry_result *cr = c->rq->carry;
	struct buf key = BUF_INIT, scope = BUF_INIT;
	char **tg = NULL;
	size_t nt = 0;
	char hex[41], bhex[41];
	char *path;
	int status = 0, error = 0;
	double t0 = now();

	targets_at(&tg, &nt, c, &cr->base);
	tree_oid_hex(bhex, &cr->base);
	buf_addf(&key, "%s\n%d\n", bhex, c->full);
	if (c->target_var && !c->full)
		buf_addf(&key, "var=%s\n", c->target_var);
	for (size_t i = 0; i < nt; i++)
		buf_addf(&key, "%s\n", tg[i]);
	tree_hash(hex, key.ptr, key.len);
	path = xstrfmt("%s/base-%.12s.log", c->out, hex);
	if (fs_is_file(path) &&
	    (error = fs_read_file(&scope, path, 0, err)) == 0) {
		c->res->base_cached = true;
		diag_parse(base, scope.ptr, scope.len, &c->po);
		make_end(c, "base", base, true);
	} else if (!error) {
		if (nt || c->full)
			error = make_at(c, &cr->base, tg, nt, "base", &scope,
					&status, err);
		/* make may succeed and build nothing (a folder target of a
		 * tree without Kbuild, a feature not configured): that is
		 * no build, and its "no new diagnostic" would be a lie */
		if (!error && !c->res->error &&
		    ((!nt && !c->full) ||
		     (!scope.len && !built_something(c, tg, nt)))) {
			struct buf m = BUF_INIT;
			if (!nt && !c->full) {
				/* nothing to run make on: say what is missing */
				buf_adds(&m, "the base tree has none of the build "
					     "targets:");
				for (size_t i = 0; i < c->res->nr_targets; i++)
					buf_addf(&m, "%s %s", i ? "," : "",
						 c->res->targets[i]);
				buf_adds(&m, " (see build.targets)");
			} else {
				size_t len;
				buf_adds(&m, "make built no object of");
				for (size_t i = 0; i < nt; i++)
					buf_addf(&m, " %s", tg[i]);
				buf_adds(&m, " in the base tree");
				len = m.len;
				for (size_t i = 0; i < nt; i++)
					if (ends_with(tg[i], "/"))
						explain_folder(&m, c, tg[i]);
				if (m.len == len)
					buf_adds(&m, " (is it configured? see "
						     "build.config and "
						     "build.targets)");
			}
			c->res->error = buf_detach(&m, NULL);
			c->res->error_code = ERR_CONFLICT;
			c->res->failed = true;
		}
		if (!error && !c->res->error)
			error = fs_write_atomic(path, scope.ptr, scope.len,
						err);
		c->res->seconds_base = now() - t0;
		if (!error) {
			diag_parse(base, scope.ptr, scope.len, &c->po);
			if (!c->res->error)
				make_end(c, "base", base, false);
		}
	}
	count(base, &c->res->base_errors, &c->res->base_warnings);
	free(path);
	free_list(tg, nt);
	buf_release(&key);
	buf_release(&scope);
	return error;
}

/* The series removed every build target the base tree had. */
static void build_none_left(struct bctx *c)
{
	struct buf m = BUF_INIT;

	buf_adds(&m, "the series leaves none of the build targets:");
	for (size_t i = 0; i < c->res->nr_targets; i++)
		buf_addf(&m, "%s %s", i ? "," : "", c->res->targets[i]);
	buf_adds(&m, " (see build.targets)");
	c->res->error = buf_detach(&m, NULL);
	c->res->error_code = ERR_CONFLICT;
	c->res->failed = true;
}

/* --each: build after each patch that touches a compiled file. */
static int build_each(struct bctx *c, const struct diag_list *base,
		      struct err *err)
{
	const struct carry_result *cr = c->rq->carry;
	struct diag_list prev;
	int error = 0;

	diag_list_init(&prev);
	for (size_t i = 0; i < cr->nr && !error && !c->res->error; i++) {
		const struct carry_patch *cp = &cr->patches[i];
		struct diag_list cur, fresh;
		struct buf scope = BUF_INIT;
		char **tg = NULL;
		size_t nt = 0, kept, introduced = 0;
		struct build_step *st;
		char phase[32];
		int status;

		if (!cp->committed || !touches_compiled(cp))
			continue;
		diag_list_init(&cur);
		diag_list_init(&fresh);
		targets_at(&tg, &nt, c, &cp->commit);
		snprintf(phase, sizeof(phase), "after %04zu", i + 1);
		if (!nt && !c->full)
			build_none_left(c);
		else
			error = make_at(c, &cp->commit, tg, nt, phase, &scope,
					&status, err);
		if (!error && !c->res->error) {
			diag_parse(&cur, scope.ptr, scope.len, &c->po);
			if (!c->res->error)
				make_end(c, phase, &cur, false);
			error = new_diags(&fresh, NULL, &kept, base, &cur, c,
					  i + 1, err);
		}
		if (!error) {
			c->res->steps = xrealloc(c->res->steps,
						 (c->res->nr_steps + 1) *
							 sizeof(*c->res->steps));
			st = &c->res->steps[c->res->nr_steps++];
			memset(st, 0, sizeof(*st));
			st->patch = i + 1;
			count(&fresh, &st->errors, &st->warnings);
			/* errors the step before did not have: what this
			 * patch broke, not what it inherited */
			{
				bool *used = xcalloc(prev.nr + 1, sizeof(bool));
				for (size_t k = 0; k < fresh.nr; k++) {
					bool seen = false;
					if (fresh.items[k].sev != DIAG_ERROR)
						continue;
					for (size_t m = 0; m < prev.nr && !seen; m++)
						if (!used[m] &&
						    same_key(&prev.items[m],
							     fresh.items[k].path,
							     0, &fresh.items[k]))
							seen = used[m] = true;
					if (!seen)
						introduced++;
				}
				free(used);
			}
			for (size_t k = 0; k < fresh.nr_failed; k++) {
				bool seen = false;
				for (size_t m = 0; m < prev.nr_failed && !seen; m++)
					seen = !strcmp(prev.failed[m],
						       fresh.failed[k]);
				if (!seen && !st->errors)
					introduced++;
			}
			st->introduced = introduced;
			st->failed = st->errors || fresh.nr_failed;
			if (st->failed && introduced && !c->res->first_breaking)
				c->res->first_breaking = i + 1;
			diag_list_release(&prev);
			prev = fresh;
		} else
			diag_list_release(&fresh);
		diag_list_release(&cur);
		buf_release(&scope);
		free_list(tg, nt);
	}
	diag_list_release(&prev);
	return error;
}

static int cmp_diag(const struct diag *a, const struct diag *b)
{
	int c = strcmp(a->path, b->path);
	if (c)
		return c;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	if (a->col != b->col)
		return a->col < b->col ? -1 : 1;
	return strcmp(a->message, b->message);
}

/* by path, line and column, for reports that read the same every run */
static void sort_diags(struct build_result *r)
{
	for (size_t i = 1; i < r->diags.nr; i++)
		for (size_t j = i; j > 0 &&
				   cmp_diag(&r->diags.items[j - 1],
					    &r->diags.items[j]) > 0;
		     j--) {
			struct diag d = r->diags.items[j];
			struct blame_attribution a = r->attr[j];
			r->diags.items[j] = r->diags.items[j - 1];
			r->diags.items[j - 1] = d;
			r->attr[j] = r->attr[j - 1];
			r->attr[j - 1] = a;
		}
}

static int lock_dir(int *fd, const char *dir, struct err *err)
{
	char *p = fs_join(dir, "lock");

	*fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	free(p);
	if (*fd < 0 || flock(*fd, LOCK_EX) < 0) {
		int e = errno;
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		return err_set(err, ERR_IO, "cannot lock the build folder "
			       "'%s': %s", dir, strerror(e));
	}
	return 0;
}

int build_run(struct build_result *res, const struct build_request *rq,
	      struct err *err)
{
	const struct target *t = rq->target;
	struct bctx c = { 0 };
	struct diag_list base, cur;
	struct buf scope = BUF_INIT;
	char *cache = build_cache_dir(), *name = sanitize(t->name);
	char *ccache = NULL;
	int lockfd = -1, status = 0, error;
	double t0;

	memset(res, 0, sizeof(*res));
	diag_list_init(&res->diags);
	buf_init(&res->log, 0);
	diag_list_init(&base);
	diag_list_init(&cur);
	c.rq = rq;
	c.res = res;
	c.full = rq->opts && rq->opts->full;
	c.dir = xstrfmt("%s/%s", cache, name);
	c.src = fs_join(c.dir, "src");
	c.manifest = fs_join(c.dir, "src.manifest");
	c.rn.target = t->name;
	c.rn.progress = rq->opts ? rq->opts->progress : NULL;
	c.rn.t0 = c.rn.phase_t0 = t0 = now();
	c.po.src_root = c.src;

	if (t->nr_build_targets)
		for (size_t i = 0; i < t->nr_build_targets; i++) {
			/* "targets = a.o b.o" names two targets */
			char **w = NULL;
			size_t n = split_words(&w, t->build_targets[i]);
			for (size_t k = 0; k < n; k++)
				list_add(&res->targets, &res->nr_targets, w[k]);
			free(w);
		}
	else if (!c.full)
		build_default_targets(&res->targets, &res->nr_targets,
				      rq->carry, rq->watch);
	if (!c.full && !res->nr_targets) {
		res->skipped = true;
		error = 0;
		goto out;
	}
	if ((error = fs_mkdirs(c.dir, err)) < 0 ||
	    (error = lock_dir(&lockfd, c.dir, err)) < 0)
		goto out;
	if (t->build_cc && strstr(t->build_cc, "ccache") &&
	    !getenv("CCACHE_DIR")) {
		/* <cache>/ccache, beside build/: gc frees build folders and
		 * keeps the compiler cache */
		char *top = debsrc_cache_dir();
		ccache = fs_join(top, "ccache");
		free(top);
	}
	c.rn.env = make_env(c.src, "", ccache, NULL, NULL);
	if ((error = setup(&c, err)) < 0)
		goto out;
	free_env(c.rn.env);
	{
		char *mf = c.prof.makefiles_path
				   ? fs_join(c.out, c.prof.makefiles_path)
				   : NULL;
		c.rn.env = make_env(c.src, c.out, ccache, NULL, mf);
		free(mf);
	}
	c.po.obj_root = c.out;
	res->ran = true;
	units_load(&c.units, c.units_path);

	/* configure and prepare on the base tree */
	if ((error = configure(&c, err)) < 0 || res->error)
		goto out;
	choose_target_var(&c);
	res->seconds_prepare = now() - t0;
	if ((error = base_diags(&base, &c, err)) < 0 || res->error)
		goto out;
	t0 = now();
	if (rq->opts && rq->opts->each &&
	    ((error = build_each(&c, &base, err)) < 0 || res->error))
		goto out;
	{
		char **tg = NULL;
		size_t nt = 0;
		size_t kept;
		targets_at(&tg, &nt, &c, &rq->carry->head);
		/* no target left at head: never a bare make (the whole
		 * tree), say so */
		if (!nt && !c.full)
			build_none_left(&c);
		else
			error = make_at(&c, &rq->carry->head, tg, nt,
					"series", &scope, &status, err);
		free_list(tg, nt);
		if (error < 0 || res->error)
			goto out;
		diag_parse(&cur, scope.ptr, scope.len, &c.po);
		make_end(&c, "series", &cur, false);
		error = new_diags(&res->diags, &res->attr, &kept, &base, &cur,
				  &c, 0, err);
		if (error < 0)
			goto out;
		res->kept = kept;
		for (size_t i = 0; i < cur.nr_failed; i++)
			for (size_t k = 0; k < base.nr_failed; k++)
				if (!strcmp(cur.failed[i], base.failed[k])) {
					list_add(&res->broken_objects,
						 &res->nr_broken_objects,
						 xstrdup(cur.failed[i]));
					break;
				}
	}
	sort_diags(res);
	count(&res->diags, &res->errors, &res->warnings);
	/* a failed object is worth a line only when no new error says why */
	for (size_t i = 0; i < res->diags.nr_failed; i++) {
		char *u = unit_of_object(res->diags.failed[i]);
		bool told = false;
		for (size_t k = 0; k < res->diags.nr && !told; k++)
			told = res->diags.items[k].sev == DIAG_ERROR &&
			       res->diags.items[k].unit &&
			       !strcmp(res->diags.items[k].unit, u);
		if (!told)
			list_add(&res->failed_objects, &res->nr_failed_objects,
				 xstrdup(res->diags.failed[i]));
		else
			res->failed = true;
		free(u);
	}
	for (size_t i = 0; i < res->diags.nr; i++)
		buf_add(&res->log, res->diags.items[i].text.ptr,
			res->diags.items[i].text.len);
	for (size_t i = 0; i < res->nr_failed_objects; i++)
		buf_addf(&res->log, "make: *** [%s] Error 1\n",
			 res->failed_objects[i]);
	res->failed = res->failed || res->errors || res->nr_failed_objects ||
		      res->nr_broken_objects;
	res->seconds_build = now() - t0;
out:
	if (lockfd >= 0)
		close(lockfd);
	diag_list_release(&base);
	diag_list_release(&cur);
	buf_release(&scope);
	units_release(&c.units);
	profile_use_release(&c.prof);
	free_list(c.args, c.nr_args);
	free_env(c.rn.env);
	free(c.makeflags);
	free(c.target_var);
	free(c.dir);
	free(c.src);
	free(c.manifest);
	free(c.out);
	free(c.units_path);
	free(ccache);
	free(cache);
	free(name);
	return error;
}

/* ---- gc ---- */

static unsigned long long du(const char *path)
{
	struct stat st;
	unsigned long long total = 0;
	char **names = NULL;
	size_t n = 0;
	struct err err = ERR_INIT;

	if (lstat(path, &st) < 0)
		return 0;
	total = (unsigned long long)st.st_blocks * 512;
	if (S_ISDIR(st.st_mode) && fs_list_dir(path, &names, &n, &err) == 0)
		for (size_t i = 0; i < n; i++) {
			char *p = fs_join(path, names[i]);
			total += du(p);
			free(p);
		}
	fs_free_list(names, n);
	err_release(&err);
	return total;
}

void build_gc_result_release(struct build_gc_result *res)
{
	for (size_t i = 0; i < res->nr; i++)
		free(res->entries[i].path);
	free(res->entries);
	memset(res, 0, sizeof(*res));
}

static bool in_list(char *const *l, size_t nr, const char *s)
{
	for (size_t i = 0; i < nr; i++)
		if (!strcmp(l[i], s))
			return true;
	return false;
}

/* Measure path and, unless dry_run, remove it (under its build lock when
 * lock is set: never under a running build). */
static int gc_one(struct build_gc_result *res, size_t *alloc,
		  const char *path, bool lock, bool dry_run, struct err *err)
{
	struct build_gc_entry *e;
	unsigned long long sz;
	int fd = -1, error = 0;

	if (lock && !dry_run && (error = lock_dir(&fd, path, err)) < 0)
		return error;
	sz = du(path);
	if (!dry_run)
		error = fs_remove_tree(path, err);
	if (fd >= 0)
		close(fd);
	if (error)
		return error;
	ALLOC_GROW(res->entries, res->nr + 1, *alloc);
	e = &res->entries[res->nr++];
	e->path = xstrdup(path);
	e->bytes = sz;
	res->bytes += sz;
	return 0;
}

/* The folders under the build cache: one per target built. */
static int built_targets(char ***names, size_t *nr, const char *cache,
			 struct err *err)
{
	size_t k = 0;
	int error;

	*names = NULL;
	*nr = 0;
	if (!fs_is_dir(cache))
		return 0;
	if ((error = fs_list_dir(cache, names, nr, err)) < 0)
		return error;
	for (size_t i = 0; i < *nr; i++) {
		char *p = fs_join(cache, (*names)[i]);
		if (fs_is_dir(p))
			(*names)[k++] = (*names)[i];
		else
			free((*names)[i]);
		free(p);
	}
	*nr = k;
	return 0;
}

static int no_such_target(const char *name, const char *cache,
			  char *const *have, size_t nr, struct err *err)
{
	struct buf h = BUF_INIT;

	err_set(err, ERR_NOTFOUND, "no target '%s' has a build folder in '%s'",
		name, cache);
	if (nr) {
		buf_adds(&h, "gc can free the build folders of ");
		for (size_t i = 0; i < nr; i++)
			buf_addf(&h, "%s%s", i ? ", " : "", have[i]);
		buf_adds(&h, "; without names also the identifier cache");
	} else
		buf_adds(&h, "there is no build folder; without names gc "
			     "frees the identifier cache");
	err_hint(err, "%s", h.ptr);
	buf_release(&h);
	return ERR_NOTFOUND;
}

int build_gc(struct build_gc_result *res, const struct build_gc_opts *o,
	     struct err *err)
{
	char *cache = build_cache_dir();
	char **have = NULL, **names = NULL;
	size_t nh = 0, n = 0, alloc = 0;
	int error;

	memset(res, 0, sizeof(*res));
	if ((error = built_targets(&have, &nh, cache, err)) < 0)
		goto out;
	/* every name is checked before anything is freed */
	names = xcalloc(o->nr_targets + 1, sizeof(char *));
	for (size_t i = 0; i < o->nr_targets && !error; i++) {
		char *s = sanitize(o->targets[i]);
		if (in_list(have, nh, s) && !in_list(names, n, s))
			names[n++] = s;
		else {
			if (!in_list(have, nh, s) &&
			    !in_list(o->known, o->nr_known, o->targets[i]))
				error = no_such_target(o->targets[i], cache,
						       have, nh, err);
			free(s);
		}
	}
	if (!o->nr_targets) {
		free(names);
		names = have;
		n = nh;
		have = NULL;
		nh = 0;
	}
	for (size_t i = 0; i < n && !error; i++) {
		char *p = fs_join(cache, names[i]);
		error = gc_one(res, &alloc, p, true, o->dry_run, err);
		free(p);
	}
	if (!error && !o->nr_targets && o->also && fs_is_dir(o->also))
		error = gc_one(res, &alloc, o->also, false, o->dry_run, err);
out:
	fs_free_list(names, n);
	fs_free_list(have, nh);
	free(cache);
	return error;
}
