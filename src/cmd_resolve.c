/*
 * cmd_resolve, cmd_refresh: hand a conflicting patch to a person in a
 * scratch folder, then take the resolution back, record it, and carry the
 * rest of the series on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "fs.h"
#include "job.h"
#include "report.h"
#include "resolve.h"

/* Patch by number (3, 0003) or file name (or its unique prefix). */
static long find_patch(const struct series_version *v, const char *arg)
{
	char *end;
	unsigned long n = strtoul(arg, &end, 10);
	long found = -1;

	if (*arg && !*end && n >= 1 && n <= v->nr)
		return (long)n - 1;
	for (size_t i = 0; i < v->nr; i++) {
		if (!strcmp(v->items[i].file, arg))
			return (long)i;
		if (starts_with(v->items[i].file, arg)) {
			if (found >= 0)
				return -2;
			found = (long)i;
		}
	}
	return found;
}

static void on_target(void *vctx, const char *target, const char *what)
{
	note(vctx, "%s: %s", target, what);
}

static char *rel(const char *root, const char *path)
{
	size_t n = strlen(root);
	if (!strncmp(path, root, n) && path[n] == '/')
		return xstrdup(path + n + 1);
	return xstrdup(path);
}

int cmd_resolve(int argc, char **argv, const struct options *opts)
{
	struct err err = ERR_INIT;
	struct series_version v;
	struct carry_result res;
	struct resolve_summary sum = { 0 };
	struct job j = { 0 };
	struct carry_opts co = { .apply = APPLY_OPTS_INIT };
	struct target_progress tp = { on_target, (void *)opts };
	char *root = NULL, *name = NULL, *version = NULL, *dir = NULL;
	struct lock wl = LOCK_INIT;
	long k;
	int rc = EXIT_DONE;

	memset(&res, 0, sizeof(res));
	series_version_init(&v, NULL, NULL);
	if (argc != 4)
		return usage_error("resolve", opts,
				   "expected NAME[@VERSION] TARGET PATCH");
	if (series_parse_spec(argv[1], &name, &version, &err) < 0 ||
	    workspace_find(&root, opts, &err) < 0 ||
	    workspace_lock(&wl, root, opts, &err) < 0 ||
	    series_load_version(&v, root, name, version, &err) < 0)
		goto fail;
	k = find_patch(&v, argv[3]);
	if (k < 0) {
		err_set(&err, ERR_NOTFOUND, "%s@%s has %s patch '%s'", v.name,
			v.version, k == -2 ? "more than one" : "no", argv[3]);
		err_hint(&err, "name it by number (1-%zu) or file name", v.nr);
		goto fail;
	}
	if (job_open(&j, root, argv[2], &tp, &err) < 0)
		goto fail;
	co.until = (size_t)k + 1;
	co.no_ref = true;
	if (job_carry(&res, &j, &v, &co, false, &err) < 0)
		goto fail;
	dir = resolve_dir(root, v.name, v.version, j.target.name);
	if (resolve_prepare(&sum, dir, j.repo, &res.head, &v.items[k],
			    (size_t)k + 1, &co.apply, &err) < 0)
		goto fail;
	if (sum.outcome <= OUTCOME_3WAY || sum.outcome == OUTCOME_ALREADY) {
		printf("%s applies to %s after the patches before it (%s): "
		       "nothing to resolve\n",
		       v.items[k].file, j.target.name,
		       apply_outcome_name(sum.outcome));
		struct err e2 = ERR_INIT;
		fs_remove_tree(dir, &e2);
		err_release(&e2);
		goto out;
	}
	printf("%s (%s) conflicts on %s.\n", v.items[k].file,
	       v.items[k].patch.subject ? v.items[k].patch.subject : "",
	       j.target.name);
	printf("Edit these files (diff3 markers; rejected hunks in .rej):\n");
	for (size_t i = 0; i < sum.nr_paths; i++) {
		char *r = rel(root, sum.paths[i]);
		printf("  %s\n", r);
		free(r);
	}
	printf("then run: kcarry refresh %s@%s %s\n", v.name, v.version,
	       j.target.name);
	goto out;
fail:
	rc = err_report(&err, opts);
out:
	resolve_summary_release(&sum);
	carry_result_release(&res);
	job_close(&j);
	series_version_release(&v);
	free(dir);
	free(name);
	free(version);
	free(root);
	lock_release(&wl);
	err_release(&err);
	return rc;
}

int cmd_refresh(int argc, char **argv, const struct options *opts)
{
	struct err err = ERR_INIT;
	struct series_version v;
	struct carry_result res;
	struct resolve_state st = { 0 };
	struct job j = { 0 };
	struct carry_opts co = { .apply = APPLY_OPTS_INIT };
	struct target_progress tp = { on_target, (void *)opts };
	struct buf text = BUF_INIT;
	char *root = NULL, *name = NULL, *version = NULL, *dir = NULL;
	struct lock wl = LOCK_INIT;
	int rc = EXIT_DONE, error;

	memset(&res, 0, sizeof(res));
	series_version_init(&v, NULL, NULL);
	if (argc != 3)
		return usage_error("refresh", opts,
				   "expected NAME[@VERSION] TARGET");
	if (series_parse_spec(argv[1], &name, &version, &err) < 0 ||
	    workspace_find(&root, opts, &err) < 0 ||
	    workspace_lock(&wl, root, opts, &err) < 0 ||
	    series_load_version(&v, root, name, version, &err) < 0 ||
	    job_open(&j, root, argv[2], &tp, &err) < 0)
		goto fail;
	dir = resolve_dir(root, v.name, v.version, j.target.name);
	error = resolve_load(&st, dir, &err);
	if (error < 0 && error != ERR_NOTFOUND)
		goto fail;
	if (!error) {
		if (!st.index || st.index > v.nr ||
		    strcmp(v.items[st.index - 1].file, st.patch_file)) {
			err_set(&err, ERR_NOTFOUND,
				"%s: the pending resolution names %s, which "
				"%s@%s does not have",
				dir, st.patch_file, v.name, v.version);
			goto fail;
		}
		if (resolve_collect(&text, &st, j.repo, &v.items[st.index - 1],
				    &err) < 0 ||
		    series_write_resolution(root, v.name, st.fingerprint,
					    text.ptr, text.len, &err) < 0)
			goto fail;
		note(opts, "recorded the resolution of %s (%.12s)",
		     st.patch_file, st.fingerprint);
	}
	if (job_carry(&res, &j, &v, &co, true, &err) < 0)
		goto fail;
	if (!error) {
		struct err e2 = ERR_INIT;
		fs_remove_tree(dir, &e2);
		err_release(&e2);
	}
	{
		struct report_opts ro = { opts->color_out, opts->verbosity };
		report_apply_text(stdout, &res, &ro);
		printf("refreshed series: patches/%s/%s/%s/\n", v.name,
		       v.version, j.target.name);
	}
	if (res.nr_failed || res.risk)
		rc = EXIT_NOT_DONE;
	goto out;
fail:
	rc = err_report(&err, opts);
out:
	resolve_state_release(&st);
	carry_result_release(&res);
	job_close(&j);
	series_version_release(&v);
	buf_release(&text);
	free(dir);
	free(name);
	free(version);
	free(root);
	lock_release(&wl);
	err_release(&err);
	return rc;
}
