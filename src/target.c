#include "target.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "debsrc.h"
#include "fetch.h"
#include "fs.h"
#include "series.h"

#define BASE_REF "refs/heads/kcarry-base"
#define MAX_TARBALL (4ULL * 1024 * 1024 * 1024)

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

void target_release(struct target *t)
{
	free(t->name);
	free(t->conf_path);
	free(t->url);
	free(t->ref);
	free(t->tarball);
	free(t->repo_path);
	free(t->history);
	free(t->build_command);
	conf_free_list(t->build_config, t->nr_build_config);
	memset(t, 0, sizeof(*t));
}

int target_load(struct target *t, const char *root, const char *name,
		struct err *err)
{
	struct conf *c = NULL;
	char *cache = NULL;
	int error;

	memset(t, 0, sizeof(*t));
	t->name = xstrdup(name);
	t->conf_path = xstrfmt("%s/kernels/%s.conf", root, name);
	if (!fs_is_file(t->conf_path)) {
		error = err_set(err, ERR_NOTFOUND, "no target '%s' (no %s)",
				name, t->conf_path);
		err_hint(err, "'kcarry kernels' lists the targets");
		return error;
	}
	if ((error = conf_open(&c, t->conf_path, false, err)) < 0)
		return error;
	t->url = conf_get_or(c, "kernel.url", NULL);
	t->ref = conf_get_or(c, "kernel.ref", NULL);
	t->tarball = conf_get_or(c, "kernel.tarball", NULL);
	t->history = conf_get_or(c, "kernel.history", NULL);
	t->build_command = conf_get_or(c, "build.command", NULL);
	conf_get_all(c, "build.config", &t->build_config, &t->nr_build_config,
		     err);
	conf_free(c);
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
		char *key = sanitize(starts_with(t->tarball, "apt:")
					     ? t->tarball
					     : strrchr(t->tarball, '/')
						       ? strrchr(t->tarball, '/') + 1
						       : t->tarball);
		t->kind = TARGET_TARBALL;
		t->repo_path = xstrfmt("%s/%s.git", cache, key);
		free(key);
	} else if (t->url && is_url(t->url)) {
		/* any URL, file:// included, is cloned once into the cache */
		char *key = sanitize(t->url);
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
	free(cache);
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
			all[k++] = all[i];
		} else
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

/* The tarball on local disk: downloaded or located as needed. */
static int local_tarball(char **path, struct target *t,
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
				error = debsrc_fetch(path, f, NULL, err);
			}
		}
		debsrc_release(&d);
		free(spec);
		return error;
	}
	if (is_url(t->tarball)) {
		char *cache = debsrc_cache_dir();
		const char *base = strrchr(t->tarball, '/') + 1;
		char *dir = fs_join(cache, "tarballs");
		char *p = fs_join(dir, *base ? base : "tarball");
		free(cache);
		if (!fs_is_file(p)) {
			say(progress, t, "downloading the tarball");
			if ((error = fs_mkdirs(dir, err)) == 0)
				error = fetch_to_file(p, t->tarball, MAX_TARBALL,
						      NULL, err);
		}
		free(dir);
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

int target_prepare(struct tree_repo **repo, struct tree_oid *base,
		   struct target *t, const struct target_progress *progress,
		   struct err *err)
{
	struct tree_repo *r = NULL;
	char *tarball = NULL, *cache = NULL;
	int error = 0;

	*repo = NULL;
	switch (t->kind) {
	case TARGET_LOCAL:
		if ((error = tree_open(&r, t->repo_path, err)) < 0)
			goto out;
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
			cache = target_cache_dir();
			if ((error = fs_mkdirs(cache, err)) < 0)
				goto out;
			say(progress, t, "cloning (once; later runs reuse it)");
			if ((error = tree_clone_bare(&r, t->url, t->repo_path,
						     err)) < 0)
				goto out;
		}
		error = tree_resolve(base, r, t->ref, err);
		break;
	case TARGET_TARBALL:
		cache = target_cache_dir();
		if ((error = fs_mkdirs(cache, err)) < 0 ||
		    (error = tree_init_bare(&r, t->repo_path, err)) < 0)
			goto out;
		if (tree_get_ref(base, r, BASE_REF, err) == 0)
			break;
		if ((error = local_tarball(&tarball, t, progress, err)) < 0)
			goto out;
		say(progress, t, "importing the tarball (once; later runs "
				 "reuse it)");
		{
			char *msg = xstrfmt("Import %s\n", t->tarball);
			error = tree_import_tarball(base, r, tarball, BASE_REF,
						    msg, NULL, err);
			free(msg);
		}
		break;
	}
out:
	if (error)
		tree_close(r);
	else
		*repo = r;
	free(tarball);
	free(cache);
	return error;
}
