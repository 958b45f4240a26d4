/*
 * cmd_resolve, cmd_refresh: hand a conflicting patch to a person in a
 * scratch folder, then take the resolution back, record it, and carry the
 * rest of the series on.
 */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
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

/* " 3 or 4 of 4" */
static void print_places(const char *what, uint32_t mask, size_t of)
{
	bool first = true;

	printf("%s", what);
	for (size_t k = 0; k < 32; k++) {
		if (!(mask & ((uint32_t)1 << k)))
			continue;
		printf("%s%zu", first ? " " : " or ", k + 1);
		first = false;
	}
	printf(" of %zu", of);
}

static void print_site(const struct audit_site *s)
{
	report_printf(stdout, "  %s:%zu %s%s: ", s->path, s->line,
		      s->func ? s->func : "(file scope)", s->func ? "()" : "");
}

/* A call over several lines on one: blanks folded. */
static void print_folded(const char *s)
{
	bool blank = false;
	char last = 0;

	for (; *s; s++) {
		if (isspace((unsigned char)*s)) {
			blank = true;
			continue;
		}
		if (blank && last != '(' && *s != ')')
			putchar(' ');
		blank = false;
		putchar(*s);
		last = *s;
	}
}

/* The conversion of the callers the series never converts, as the
 * series' own converted callers show it: into suggest/, no branch. */
static int resolve_suggest(const char *spec, const char *target,
			   const struct options *opts)
{
	struct err err = ERR_INIT;
	struct series_version v;
	struct carry_result res;
	struct audit_result a;
	struct audit_opts ao;
	struct audit_suggestions sg;
	struct job j = { 0 };
	struct carry_opts co = { .apply = APPLY_OPTS_INIT };
	struct target_progress tp = { on_target, (void *)opts };
	char *root = NULL, *name = NULL, *version = NULL, *dir = NULL;
	char *sdir = NULL, *path = NULL, *r;
	int rc = EXIT_DONE;

	memset(&res, 0, sizeof(res));
	memset(&a, 0, sizeof(a));
	memset(&ao, 0, sizeof(ao));
	memset(&sg, 0, sizeof(sg));
	series_version_init(&v, NULL, NULL);
	if (series_parse_spec(spec, &name, &version, &err) < 0 ||
	    workspace_find(&root, opts, &err) < 0 ||
	    series_load_version(&v, root, name, version, &err) < 0 ||
	    audit_opts_load(&ao, root, v.name, &err) < 0 ||
	    job_open(&j, root, target, &tp, &err) < 0)
		goto fail;
	co.no_ref = true;
	if (job_carry(&res, &j, &v, &co, false, &err) < 0 ||
	    audit_run(&a, j.repo, &v, &res, &ao, &err) < 0 ||
	    audit_suggest(&sg, j.repo, &v, &res, &a, &ao, &err) < 0)
		goto fail;
	for (size_t i = 0; i < sg.nr_rules; i++) {
		const struct audit_rule *ru = &sg.rules[i];

		printf("%s@%s converts %s", v.name, v.version, ru->symbol);
		if (ru->new_name)
			printf(" into %s", ru->new_name);
		if (ru->drops)
			print_places(", dropping argument", ru->drops,
				     ru->arity);
		if (ru->adds) {
			printf(", adding '%s' as argument", ru->add_text);
			print_places("", ru->adds, ru->arity + 1);
		}
		printf(" (learned from %zu converted call%s)\n", ru->examples,
		       ru->examples == 1 ? "" : "s");
	}
	for (size_t i = 0; i < sg.nr_fixes; i++) {
		const struct audit_fix *fx = &sg.fixes[i];

		print_site(&fx->site);
		print_folded(fx->old_call);
		printf(" -> ");
		print_folded(fx->new_call);
		printf("\n");
	}
	for (size_t i = 0; i < sg.nr_left; i++) {
		const struct audit_fix *fx = &sg.left[i];

		print_site(&fx->site);
		report_printf(stdout, "left as it is: %s\n", fx->why);
	}
	printf("%zu unconverted call%s rewritten, %zu left as %s\n",
	       sg.nr_fixes, sg.nr_fixes == 1 ? "" : "s", sg.nr_left,
	       sg.nr_left == 1 ? "it is" : "they are");
	if (sg.nr_fixes) {
		dir = resolve_dir(root, v.name, v.version, j.target.name);
		sdir = fs_join(dir, "suggest");
		if (fs_mkdirs(sdir, &err) < 0)
			goto fail;
		path = fs_join(sdir, "suggest.patch");
		if (fs_write_atomic(path, sg.patch.ptr, sg.patch.len, &err) < 0)
			goto fail;
		free(path);
		path = fs_join(sdir, "conversion.cocci");
		if (fs_write_atomic(path, sg.cocci.ptr, sg.cocci.len, &err) < 0)
			goto fail;
		r = rel(root, sdir);
		printf("wrote %s/suggest.patch (against the series carried on "
		       "%s) and %s/conversion.cocci; nothing was committed\n",
		       r, j.target.name, r);
		free(r);
	}
	if (sg.nr_left)
		rc = EXIT_NOT_DONE;
	goto out;
fail:
	rc = err_report(&err, opts);
out:
	audit_suggestions_release(&sg);
	audit_result_release(&a);
	audit_opts_release(&ao);
	carry_result_release(&res);
	job_close(&j);
	series_version_release(&v);
	free(path);
	free(sdir);
	free(dir);
	free(name);
	free(version);
	free(root);
	err_release(&err);
	return rc;
}

struct resolve_cli {
	bool suggest;
};

const struct opt resolve_options[] = {
	{ OPT_FLAG, 0, "suggest", NULL,
	  "carry the whole series (no branch moved), learn how\n"
	  "it converts the callers of the API it changes (a\n"
	  "callee renamed, an argument dropped or added) and\n"
	  "write that conversion of the callers it never\n"
	  "converts to .kcarry/resolve/NAME/VERSION/TARGET/\n"
	  "suggest/: suggest.patch (against the carried result)\n"
	  "and conversion.cocci (for spatch).  Nothing is\n"
	  "committed.  Exit 1 when some unconverted call has no\n"
	  "suggestion.",
	  offsetof(struct resolve_cli, suggest) },
	{ OPT_END },
};

const struct opt refresh_options[] = {
	{ OPT_END },
};

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
	struct resolve_cli cli = { 0 };
	const char **args = NULL;
	size_t nr = 0;
	long k;
	int rc = EXIT_DONE;

	memset(&res, 0, sizeof(res));
	series_version_init(&v, NULL, NULL);
	if (cli_parse("resolve", resolve_options, &cli, argc, argv, &args, &nr,
		      opts) < 0) {
		rc = EXIT_USAGE;
		goto out;
	}
	if (cli.suggest) {
		if (nr != 2)
			rc = usage_error("resolve", opts,
					 "expected --suggest NAME[@VERSION] "
					 "TARGET");
		else
			rc = resolve_suggest(args[0], args[1], opts);
		goto out;
	}
	if (nr != 3) {
		rc = usage_error("resolve", opts,
				 "expected NAME[@VERSION] TARGET PATCH");
		goto out;
	}
	if (series_parse_spec(args[0], &name, &version, &err) < 0 ||
	    workspace_find(&root, opts, &err) < 0 ||
	    workspace_lock(&wl, root, opts, &err) < 0 ||
	    series_load_version(&v, root, name, version, &err) < 0)
		goto fail;
	k = find_patch(&v, args[2]);
	if (k < 0) {
		err_set(&err, ERR_NOTFOUND, "%s@%s has %s patch '%s'", v.name,
			v.version, k == -2 ? "more than one" : "no", args[2]);
		err_hint(&err, "name it by number (1-%zu) or file name", v.nr);
		goto fail;
	}
	if (job_open(&j, root, args[1], &tp, &err) < 0)
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
		resolve_discard(dir, &e2);
		err_release(&e2);
		goto out;
	}
	printf("%s (%s) conflicts on %s.\n", v.items[k].file,
	       v.items[k].patch.subject ? v.items[k].patch.subject : "",
	       j.target.name);
	printf("Edit these files (diff3 markers; rejected hunks in .rej):\n");
	for (size_t i = 0; i < sum.nr_paths; i++) {
		char *r = rel(root, sum.paths[i]);
		report_printf(stdout, "  %s\n", r);
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
	free(args);
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
	const char **args = NULL;
	size_t nr = 0;
	int rc = EXIT_DONE, error;

	memset(&res, 0, sizeof(res));
	series_version_init(&v, NULL, NULL);
	if (cli_parse("refresh", refresh_options, NULL, argc, argv, &args, &nr,
		      opts) < 0) {
		rc = EXIT_USAGE;
		goto out;
	}
	if (nr != 2) {
		rc = usage_error("refresh", opts,
				 "expected NAME[@VERSION] TARGET");
		goto out;
	}
	if (series_parse_spec(args[0], &name, &version, &err) < 0 ||
	    workspace_find(&root, opts, &err) < 0 ||
	    workspace_lock(&wl, root, opts, &err) < 0 ||
	    series_load_version(&v, root, name, version, &err) < 0 ||
	    job_open(&j, root, args[1], &tp, &err) < 0)
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
		resolve_discard(dir, &e2);
		err_release(&e2);
	}
	{
		struct report_opts ro = { opts->color_out, opts->verbosity };
		report_apply_text(stdout, &res, &ro);
		printf("refreshed series: patches/%s/%s/%s/\n", v.name,
		       v.version, j.target.name);
	}
	if (res.nr_failed || res.risk || res.counts[OUTCOME_ADAPTED])
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
	free(args);
	free(dir);
	free(name);
	free(version);
	free(root);
	lock_release(&wl);
	err_release(&err);
	return rc;
}
