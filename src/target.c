#include "target.h"

#include <ctype.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf.h"
#include "debsrc.h"
#include "fetch.h"
#include "fs.h"
#include "name.h"
#include "series.h"
#include "settings.h"

#define BASE_REF "refs/heads/kcarry-base"

char *target_cache_dir(void)
{
	char *c = debsrc_cache_dir(), *t = fs_join(c, "trees");
	free(c);
	return t;
}

static char *sanitize(const char *s)
{
	char *o = xstrdup(s);
	for (char *p = o; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr(".-_+~", *p))
			*p = '_';
	return o;
}

static bool is_url(const char *s)
{
	return strstr(s, "://") != NULL;
}

/*
 * A URL in one spelling: scheme and host lower-cased, a fragment
 * dropped.  The rest stays as given (paths are case-sensitive).
 */
static char *normalise_url(const char *url)
{
	const char *sep = strstr(url, "://");
	const char *host = sep + 3, *end = host + strcspn(host, "/?#");
	const char *hash = strchr(end, '#');
	struct buf b = BUF_INIT;

	for (const char *p = url; p < end; p++)
		buf_addc(&b, (char)tolower((unsigned char)*p));
	buf_add(&b, end, hash ? (size_t)(hash - end) : strlen(end));
	return buf_detach(&b, NULL);
}

/*
 * The cache folder name of a source: a readable stem and a hash of the
 * normalised source, so that two sources with the same file name (a path
 * and a URL, two hosts) never share a cached tree.
 */
static char *cache_key(const char *stem, const char *normalised)
{
	char hex[41], *s = sanitize(stem), *key;

	tree_hash(hex, normalised, strlen(normalised));
	key = xstrfmt("%s-%.16s", s, hex);
	free(s);
	return key;
}

static const char *base_name(const char *s)
{
	const char *slash = strrchr(s, '/');
	return slash && slash[1] ? slash + 1 : s;
}

void target_release(struct target *t)
{
	free(t->name);
	free(t->root);
	free(t->conf_path);
	free(t->url);
	free(t->ref);
	free(t->tarball);
	free(t->repo_path);
	free(t->source);
	free(t->history);
	free(t->build_command);
	conf_free_list(t->build_config, t->nr_build_config);
	lock_release(&t->lock);
	conf_free_list(t->build_targets, t->nr_build_targets);
	free(t->build_cc);
	free(t->build_make_flags);
	free(t->build_profile);
	memset(t, 0, sizeof(*t));
	t->lock.fd = -1;
}

int target_load(struct target *t, const char *root, const char *name,
		struct err *err)
{
	struct conf *c = NULL;
	char *cache = NULL;
	int error;

	memset(t, 0, sizeof(*t));
	t->lock.fd = -1;
	if ((error = name_check(NAME_TARGET, name, err)) < 0) {
		err_hint(err, "'kcarry kernels' lists the targets");
		goto out;
	}
	t->name = xstrdup(name);
	t->root = xstrdup(root);
	t->conf_path = xstrfmt("%s/kernels/%s.conf", root, name);
	if (!fs_is_file(t->conf_path)) {
		error = err_set(err, ERR_NOTFOUND, "no target '%s' (no %s)",
				name, t->conf_path);
		err_hint(err, "'kcarry kernels' lists the targets");
		goto out;
	}
	if ((error = conf_open(&c, t->conf_path, false, err)) < 0)
		goto out;
	t->url = conf_get_or(c, "kernel.url", NULL);
	t->ref = conf_get_or(c, "kernel.ref", NULL);
	t->tarball = conf_get_or(c, "kernel.tarball", NULL);
	t->history = conf_get_or(c, "kernel.history", NULL);
	t->build_command = conf_get_or(c, "build.command", NULL);
	if ((error = conf_get_all(c, "build.config", &t->build_config,
				  &t->nr_build_config, err)) < 0 ||
	    (error = conf_get_all(c, "build.targets", &t->build_targets,
				  &t->nr_build_targets, err)) < 0) {
		conf_free(c);
		goto out;
	}
	t->build_cc = conf_get_or(c, "build.cc", NULL);
	t->build_make_flags = conf_get_or(c, "build.make-flags", NULL);
	t->build_profile = conf_get_or(c, "build.profile", NULL);
	{
		char *jobs = conf_get_or(c, "build.jobs", NULL);
		if (jobs) {
			char *end;
			long n = strtol(jobs, &end, 10);
			if (*end || n < 0 || n > 4096)
				error = err_set(err, ERR_PARSE,
						"%s: build.jobs: bad number "
						"'%s'",
						t->conf_path, jobs);
			t->build_jobs = (unsigned)(n < 0 ? 0 : n);
			free(jobs);
		}
	}
	conf_free(c);
	if (error)
		goto out;
	if (t->build_profile && strcmp(t->build_profile, "auto") &&
	    strcmp(t->build_profile, "none")) {
		error = err_set(err, ERR_PARSE,
				"%s: build.profile: '%s' (auto or none)",
				t->conf_path, t->build_profile);
		goto out;
	}
	cache = target_cache_dir();
	if (t->tarball && !starts_with(t->tarball, "apt:") &&
	    !is_url(t->tarball) && t->tarball[0] != '/') {
		/* a relative path is relative to the workspace, like url */
		char *abs = fs_join(root, t->tarball);
		free(t->tarball);
		t->tarball = abs;
	}
	if (t->history && t->history[0] != '/') {
		char *abs = fs_join(root, t->history);
		free(t->history);
		t->history = abs;
	}
	if (t->tarball) {
		char *key;
		if (starts_with(t->tarball, "apt:"))
			t->source = xstrdup(t->tarball);
		else if (is_url(t->tarball))
			t->source = normalise_url(t->tarball);
		else
			t->source = fs_normalise(t->tarball);
		key = cache_key(starts_with(t->tarball, "apt:")
					? t->tarball
					: base_name(t->source),
				t->source);
		t->kind = TARGET_TARBALL;
		t->repo_path = xstrfmt("%s/%s.git", cache, key);
		free(key);
	} else if (t->url && is_url(t->url)) {
		/* any URL, file:// included, is cloned once into the cache */
		char *key;
		t->source = normalise_url(t->url);
		key = cache_key(base_name(t->source), t->source);
		t->kind = TARGET_REMOTE;
		t->repo_path = xstrfmt("%s/%s.git", cache, key);
		free(key);
	} else if (t->url) {
		t->kind = TARGET_LOCAL;
		t->repo_path = t->url[0] == '/' ? xstrdup(t->url)
						: fs_join(root, t->url);
	} else {
		error = err_set(err, ERR_PARSE,
				"%s: neither kernel.url nor kernel.tarball "
				"is set",
				t->conf_path);
	}
	if (!error && t->kind != TARGET_TARBALL && !t->ref)
		error = err_set(err, ERR_PARSE, "%s: kernel.ref is not set",
				t->conf_path);
out:
	free(cache);
	if (error < 0)
		target_release(t); /* the caller has nothing to free */
	return error;
}

static int cmp_names(const void *a, const void *b)
{
	return series_version_cmp(*(char *const *)a, *(char *const *)b);
}

int target_list(const char *root, char ***names, size_t *nr,
		struct err *err)
{
	char *dir = fs_join(root, "kernels");
	char **all = NULL;
	size_t n = 0, k = 0;
	int error = fs_list_dir(dir, &all, &n, err);

	free(dir);
	*names = NULL;
	*nr = 0;
	if (error == ERR_NOTFOUND)
		return 0;
	if (error < 0)
		return error;
	for (size_t i = 0; i < n; i++) {
		if (all[i][0] != '.' && ends_with(all[i], ".conf")) {
			all[i][strlen(all[i]) - 5] = '\0';
			/* a file whose name is no target name is no target:
			 * it never becomes a path */
			if (name_valid(NAME_TARGET, all[i])) {
				all[k++] = all[i];
				continue;
			}
		}
		free(all[i]);
	}
	if (k)
		qsort(all, k, sizeof(*all), cmp_names);
	*names = all;
	*nr = k;
	return 0;
}

bool target_ready(const struct target *t, char **detail)
{
	struct err err = ERR_INIT;
	struct tree_repo *r = NULL;
	struct tree_oid c;
	bool ready = false;

	*detail = NULL;
	if (!fs_is_dir(t->repo_path)) {
		*detail = xstrdup(t->kind == TARGET_LOCAL
					  ? "repository missing"
				  : t->kind == TARGET_REMOTE
					  ? "not cloned yet"
					  : "tarball not imported yet");
		return false;
	}
	if (tree_open(&r, t->repo_path, &err) < 0) {
		*detail = xstrdup(err.msg.ptr);
		goto out;
	}
	if (t->kind == TARGET_TARBALL)
		ready = tree_get_ref(&c, r, BASE_REF, &err) == 0;
	else
		ready = tree_resolve(&c, r, t->ref, &err) == 0;
	if (!ready)
		*detail = xstrdup(t->kind == TARGET_TARBALL
					  ? "tarball not imported yet"
					  : err.msg.ptr);
	else {
		char hex[41];
		tree_oid_hex(hex, &c);
		*detail = xstrfmt("%.12s", hex);
	}
out:
	tree_close(r);
	err_release(&err);
	return ready;
}

static void say(const struct target_progress *p, const struct target *t,
		const char *what)
{
	if (p && p->fn)
		p->fn(p->ctx, t->name, what);
}

/* fetch's check of a tarball download before it is cached. */
static int verify_tarball(const char *tmp, void *ctx, struct err *err)
{
	return tree_check_tarball(tmp, err);
}

/*
 * The tarball on local disk: downloaded (into <cache>/tarballs/HOST/PATH,
 * revalidated when cached) or located as needed.
 */
static int local_tarball(char **path, struct target *t,
			 const struct settings *set,
			 const struct target_progress *progress,
			 struct err *err)
{
	int error = 0;

	*path = NULL;
	if (starts_with(t->tarball, "apt:")) {
		char *spec = xstrdup(t->tarball + 4), *eq = strchr(spec, '=');
		struct debsrc d = { 0 };
		const struct debsrc_file *f;

		if (!eq) {
			free(spec);
			return err_set(err, ERR_PARSE,
				       "%s: '%s': expected apt:PACKAGE=VERSION",
				       t->conf_path, t->tarball);
		}
		*eq = '\0';
		say(progress, t, "asking apt for the source package");
		if ((error = debsrc_locate(&d, spec, eq + 1, err)) == 0) {
			f = debsrc_find(&d, ".orig.tar.xz");
			if (!f)
				f = debsrc_find(&d, ".orig.tar.gz");
			if (!f)
				error = err_set(err, ERR_NOTFOUND,
						"%s has no .orig tarball",
						t->tarball + 4);
			else {
				say(progress, t, "downloading the tarball");
				error = debsrc_fetch(path, f, &set->fetch, err);
			}
		}
		debsrc_release(&d);
		free(spec);
		return error;
	}
	if (is_url(t->tarball)) {
		struct fetch_request req = { 0 };
		struct fetch_result res;
		char *p = fetch_cache_path("tarballs", t->tarball);

		say(progress, t, "downloading the tarball");
		req.url = t->tarball;
		req.path = p;
		req.verify = verify_tarball;
		error = fetch_url(&res, &req, &set->fetch, err);
		fetch_result_release(&res);
		if (error)
			free(p);
		else
			*path = p;
		return error;
	}
	if (!fs_is_file(t->tarball))
		return err_set(err, ERR_NOTFOUND, "%s: tarball '%s' does not "
			       "exist", t->conf_path, t->tarball);
	*path = fs_absolute(t->tarball);
	return 0;
}

struct lock_note {
	const struct target_progress *progress;
	const struct target *t;
};

static void on_lock_busy(void *vctx, const char *path, long holder)
{
	struct lock_note *n = vctx;
	char *what;

	if (holder == (long)getpid())
		return; /* another target of this run shares the repository */
	what = holder > 0 ? xstrfmt("waiting for another kcarry (pid %ld) "
				    "using this tree",
				    holder)
			  : xstrdup("waiting for another kcarry using this "
				    "tree");
	say(n->progress, n->t, what);
	free(what);
}

static int take_lock(struct target *t, const char *path,
		     const struct target_progress *progress, struct err *err)
{
	struct lock_note n = { progress, t };
	struct lock_wait w = { on_lock_busy, &n };

	if (t->lock.fd >= 0)
		return 0;
	return lock_take(&t->lock, path, &w, err);
}

/* With the lock held, ref locks of kcarry branches are leftovers. */
static int clear_repo(const struct target *t, struct tree_repo *r,
		      const struct target_progress *progress, struct err *err)
{
	char **removed = NULL;
	size_t nr = 0;
	int error = lock_clear_repo(&removed, &nr, tree_git_dir(r), err);

	for (size_t i = 0; i < nr; i++) {
		char *what = xstrfmt("removed %s, left by an interrupted "
				     "kcarry", removed[i]);
		say(progress, t, what);
		free(what);
	}
	fs_free_list(removed, nr);
	return error;
}

/*
 * What the cached tree was imported from, in the repository's config:
 * the normalised source and the tarball's SHA-256, plus the size and
 * mtime of a local file so that a changed file is noticed cheaply.
 */
static int record_tarball(const struct target *t, const char *tarball,
			  struct err *err)
{
	char *cfg = fs_join(t->repo_path, "config");
	struct conf *c = NULL;
	char hex[65], num[32];
	struct stat st;
	int error;

	if ((error = fs_sha256_file(hex, tarball, err)) < 0 ||
	    (error = conf_open(&c, cfg, true, err)) < 0)
		goto out;
	if ((error = conf_set(c, "kcarry.source", t->source, err)) < 0 ||
	    (error = conf_set(c, "kcarry.sha256", hex, err)) < 0)
		goto out;
	if (!starts_with(t->tarball, "apt:") && !is_url(t->tarball) &&
	    stat(tarball, &st) == 0) {
		snprintf(num, sizeof(num), "%lld", (long long)st.st_size);
		if ((error = conf_set(c, "kcarry.size", num, err)) < 0)
			goto out;
		snprintf(num, sizeof(num), "%lld.%09ld",
			 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
		error = conf_set(c, "kcarry.mtime", num, err);
	}
out:
	conf_free(c);
	free(cfg);
	return error;
}

/*
 * A local tarball replaced since it was imported: its size or mtime moved
 * and its SHA-256 differs from the recorded one.  The tree must then be
 * imported again; using the old one would give a wrong tree silently.
 */
static bool tarball_changed(const struct target *t,
			    const struct target_progress *progress)
{
	char *cfg, *size, *mtime, *sha, hex[65], now[64];
	struct conf *c = NULL;
	struct err err = ERR_INIT;
	struct stat st;
	bool changed = false;

	if (starts_with(t->tarball, "apt:") || is_url(t->tarball) ||
	    stat(t->tarball, &st) < 0)
		return false;
	cfg = fs_join(t->repo_path, "config");
	if (conf_open(&c, cfg, false, &err) < 0) {
		free(cfg);
		err_release(&err);
		return false;
	}
	size = conf_get_or(c, "kcarry.size", NULL);
	mtime = conf_get_or(c, "kcarry.mtime", NULL);
	sha = conf_get_or(c, "kcarry.sha256", NULL);
	snprintf(now, sizeof(now), "%lld.%09ld", (long long)st.st_mtim.tv_sec,
		 st.st_mtim.tv_nsec);
	if (!sha || !size || !mtime ||
	    strtoll(size, NULL, 10) != (long long)st.st_size ||
	    strcmp(mtime, now)) {
		changed = fs_sha256_file(hex, t->tarball, &err) < 0 || !sha ||
			  strcmp(hex, sha);
		if (changed)
			say(progress, t, "the tarball changed since it was "
					 "imported: importing it again");
		else {
			/* the same bytes (touched, copied): remember the
			 * new stamp so the next run does not hash again */
			char num[32];
			snprintf(num, sizeof(num), "%lld",
				 (long long)st.st_size);
			if (conf_set(c, "kcarry.size", num, &err) < 0 ||
			    conf_set(c, "kcarry.mtime", now, &err) < 0)
				err_release(&err);
		}
	}
	free(size);
	free(mtime);
	free(sha);
	conf_free(c);
	free(cfg);
	err_release(&err);
	return changed;
}

int target_prepare(struct tree_repo **repo, struct tree_oid *base,
		   struct target *t, const struct target_progress *progress,
		   struct err *err)
{
	struct tree_repo *r = NULL;
	char *tarball = NULL, *cache = NULL;
	int error = 0;

	*repo = NULL;
	if (t->kind != TARGET_LOCAL) {
		char *lp = xstrfmt("%s.kcarry-lock", t->repo_path);
		cache = target_cache_dir();
		if ((error = fs_mkdirs(cache, err)) == 0)
			error = take_lock(t, lp, progress, err);
		free(lp);
		if (error)
			goto out;
	}
	switch (t->kind) {
	case TARGET_LOCAL:
		if ((error = tree_open(&r, t->repo_path, err)) < 0)
			goto out;
		{
			char *lp = fs_join(tree_git_dir(r), "kcarry.lock");
			error = take_lock(t, lp, progress, err);
			free(lp);
			if (error)
				goto out;
		}
		error = tree_resolve(base, r, t->ref, err);
		break;
	case TARGET_REMOTE:
		if (fs_is_dir(t->repo_path)) {
			if ((error = tree_open(&r, t->repo_path, err)) < 0)
				goto out;
			if (tree_resolve(base, r, t->ref, err) == 0)
				break;
			say(progress, t, "fetching");
			if ((error = tree_fetch(r, err)) < 0)
				goto out;
		} else {
			say(progress, t, "cloning (once; later runs reuse it)");
			if ((error = tree_clone_bare(&r, t->url, t->repo_path,
						     err)) < 0)
				goto out;
		}
		error = tree_resolve(base, r, t->ref, err);
		break;
	case TARGET_TARBALL:
		if ((error = tree_init_bare(&r, t->repo_path, err)) < 0)
			goto out;
		if (tree_get_ref(base, r, BASE_REF, err) == 0 &&
		    !tarball_changed(t, progress))
			break;
		{
			struct settings set;
			char *msg = xstrfmt("Import %s\n", t->tarball);
			if ((error = settings_load(&set, t->root, err)) == 0 &&
			    (error = local_tarball(&tarball, t, &set, progress,
						   err)) == 0) {
				struct tree_tarball_import in = {
					tarball, BASE_REF, msg, &set.tarball,
					NULL
				};

				say(progress, t, "importing the tarball (once; "
						 "later runs reuse it)");
				error = tree_import_tarball(base, r, &in, err);
			}
			settings_release(&set);
			free(msg);
		}
		if (!error)
			error = record_tarball(t, tarball, err);
		break;
	}
	if (!error)
		error = clear_repo(t, r, progress, err);
out:
	if (error) {
		tree_close(r);
		lock_release(&t->lock);
	} else
		*repo = r;
	free(tarball);
	free(cache);
	return error;
}
