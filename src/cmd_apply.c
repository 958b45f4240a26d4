/*
 * cmd_apply: apply a series version to targets, in memory, one commit per
 * patch on kcarry/NAME/VERSION/TARGET, and write the refreshed series.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "fs.h"
#include "job.h"
#include "report.h"

struct apply_cli {
	char *name, *version;
	char **targets;
	size_t nr_targets;
	bool json, no_refresh;
	const char *output;
	struct carry_opts co;
};

struct progress_ctx {
	const struct options *opts;
	const char *target;
};

static void on_patch(void *vctx, size_t i, size_t nr, const char *subject)
{
	struct progress_ctx *ctx = vctx;

	if (!ctx->opts->progress)
		return;
	fprintf(stderr, "\r\033[K%s: patch %zu/%zu", ctx->target, i + 1, nr);
	if (i + 1 == nr)
		fputc('\n', stderr);
}

static void on_target(void *vctx, const char *target, const char *what)
{
	const struct options *opts = vctx;
	note(opts, "%s: %s", target, what);
}

static int parse_args(struct apply_cli *c, int argc, char **argv,
		      struct err *err)
{
	const char *spec = NULL;

	c->targets = xcalloc((size_t)argc, sizeof(char *));
	c->co.apply.fuzz = APPLY_DEFAULT_FUZZ;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--json"))
			c->json = true;
		else if (!strcmp(a, "--no-3way"))
			c->co.apply.no_3way = true;
		else if (!strcmp(a, "--strict"))
			c->co.strict = true;
		else if (!strcmp(a, "--stop"))
			c->co.stop = true;
		else if (!strcmp(a, "--no-refresh"))
			c->no_refresh = true;
		else if (!strcmp(a, "--fuzz") || !strncmp(a, "--fuzz=", 7) ||
			 !strncmp(a, "-F", 2)) {
			const char *v = a[1] == 'F' ? (a[2] ? a + 2 : NULL)
				      : a[6] == '=' ? a + 7
						    : NULL;
			char *end;
			long n;
			if (!v && i + 1 < argc)
				v = argv[++i];
			n = v ? strtol(v, &end, 10) : -1;
			if (!v || *end || n < 0 || n > 3)
				return err_set(err, ERR_USAGE,
					       "--fuzz takes 0 to 3");
			c->co.apply.fuzz = (unsigned)n;
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			if (++i >= argc)
				return err_set(err, ERR_USAGE,
					       "%s needs a file", a);
			c->output = argv[i];
		} else if (a[0] == '-' && a[1])
			return err_set(err, ERR_USAGE, "unknown option '%s'", a);
		else if (!spec)
			spec = a;
		else
			c->targets[c->nr_targets++] = argv[i];
	}
	if (!spec)
		return err_set(err, ERR_USAGE, "no series named");
	if (!c->nr_targets)
		return err_set(err, ERR_USAGE, "no target named");
	return series_parse_spec(spec, &c->name, &c->version, err);
}

int cmd_apply(int argc, char **argv, const struct options *opts)
{
	struct apply_cli cli = { 0 };
	struct err err = ERR_INIT;
	struct series_version v;
	struct carry_result *results = NULL;
	size_t nres = 0;
	char *root = NULL;
	struct lock wl = LOCK_INIT;
	bool failed = false;
	int rc = EXIT_DONE;

	series_version_init(&v, NULL, NULL);
	if (parse_args(&cli, argc, argv, &err) < 0) {
		rc = usage_error("apply", opts, "%s", err.msg.ptr);
		goto out;
	}
	if (workspace_find(&root, opts, &err) < 0 ||
	    workspace_lock(&wl, root, opts, &err) < 0 ||
	    series_load_version(&v, root, cli.name, cli.version, &err) < 0)
		goto fail;
	results = xcalloc(cli.nr_targets, sizeof(*results));
	for (size_t i = 0; i < cli.nr_targets; i++) {
		struct job j;
		struct target_progress tp = { on_target, (void *)opts };
		struct progress_ctx pc = { opts, cli.targets[i] };
		struct carry_opts co = cli.co;
		int error;

		if ((error = job_open(&j, root, cli.targets[i], &tp, &err)) < 0) {
			job_close(&j);
			failed = true;
			break;
		}
		co.progress = on_patch;
		co.ctx = &pc;
		error = job_carry(&results[nres], &j, &v, &co, !cli.no_refresh,
				  &err);
		if (!error)
			nres++;
		else
			carry_result_release(&results[nres]);
		job_close(&j);
		if (error < 0) {
			failed = true;
			break;
		}
	}
	{
		/* no colour codes in a file */
		struct report_opts ro = { cli.output ? false : opts->color_out,
					  opts->verbosity };
		struct fs_atomic a = { stdout, NULL, NULL };

		if (cli.output && fs_atomic_open(&a, cli.output, &err) < 0)
			goto fail;
		if (cli.json) {
			char *s = report_apply_json(results, nres);
			fprintf(a.f, "%s\n", s);
			free(s);
		} else
			for (size_t i = 0; i < nres; i++)
				report_apply_text(a.f, &results[i], &ro);
		if (cli.output && fs_atomic_commit(&a, &err) < 0)
			goto fail;
	}
	for (size_t i = 0; i < nres; i++)
		if (results[i].nr_failed || results[i].risk)
			rc = EXIT_NOT_DONE;
	/* the targets done before a failing one are reported first */
	if (failed)
		goto fail;
	goto out;
fail:
	rc = err_report(&err, opts);
out:
	for (size_t i = 0; i < nres; i++)
		carry_result_release(&results[i]);
	free(results);
	series_version_release(&v);
	free(cli.targets);
	free(cli.name);
	free(cli.version);
	free(root);
	lock_release(&wl);
	err_release(&err);
	return rc;
}
