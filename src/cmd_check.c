/*
 * cmd_check: every selected series on every selected target, as a matrix
 * for people and as JSON, JUnit, Markdown or stable-style email for CI.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cmds.h"
#include "fs.h"
#include "report.h"
#include "report_ci.h"

enum format { FMT_TEXT, FMT_JSON, FMT_JUNIT, FMT_MARKDOWN, FMT_EMAIL };

static const char *const format_names[] = { "text", "json", "junit",
					    "markdown", "email" };

struct check_cli {
	enum format format;
	const char *output;
	const char *reports; /* folder for every format at once */
	char **specs;
	size_t nr_specs;
	struct check_opts co;
};

/* The progress line: one "target: series i/n" part per target. */
struct progress_state {
	const struct options *opts;
	char **targets;
	char **parts;
	size_t nr;
};

static void on_progress(void *vctx, const char *target, const char *series,
			size_t i, size_t nr)
{
	struct progress_state *ps = vctx;
	size_t k;

	if (!ps->opts->progress)
		return;
	for (k = 0; k < ps->nr && strcmp(ps->targets[k], target); k++)
		;
	if (k == ps->nr) {
		ps->targets = xrealloc(ps->targets, (k + 1) * sizeof(char *));
		ps->parts = xrealloc(ps->parts, (k + 1) * sizeof(char *));
		ps->targets[k] = xstrdup(target);
		ps->parts[k] = NULL;
		ps->nr++;
	}
	free(ps->parts[k]);
	ps->parts[k] = xstrfmt("%s: %s %zu/%zu", target, series, i + 1, nr);
	fputs("\r\033[K", stderr);
	for (k = 0; k < ps->nr; k++)
		fprintf(stderr, "%s%s", k ? " | " : "", ps->parts[k]);
	fflush(stderr);
}

static void on_stage(void *vctx, const char *target, const char *what)
{
	struct progress_state *ps = vctx;

	if (ps->opts->progress)
		fputs("\r\033[K", stderr);
	note(ps->opts, "%s: %s", target, what);
}

static int parse_args(struct check_cli *c, int argc, char **argv,
		      struct err *err)
{
	c->specs = xcalloc((size_t)argc, sizeof(char *));
	c->co.carry.apply.fuzz = APPLY_DEFAULT_FUZZ;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = NULL;

		if (!strncmp(a, "--format=", 9))
			v = a + 9;
		else if (!strcmp(a, "--format") || !strcmp(a, "-f")) {
			if (++i >= argc)
				return err_set(err, ERR_USAGE,
					       "--format needs a format");
			v = argv[i];
		}
		if (v) {
			size_t k;
			for (k = 0; k < 5 && strcmp(v, format_names[k]); k++)
				;
			if (k == 5)
				return err_set(err, ERR_USAGE,
					       "unknown format '%s' (text, json, "
					       "junit, markdown, email)",
					       v);
			c->format = (enum format)k;
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			if (++i >= argc)
				return err_set(err, ERR_USAGE, "%s needs a file",
					       a);
			c->output = argv[i];
		} else if (!strcmp(a, "--reports")) {
			if (++i >= argc)
				return err_set(err, ERR_USAGE,
					       "--reports needs a folder");
			c->reports = argv[i];
		} else if (!strcmp(a, "--no-3way"))
			c->co.carry.apply.no_3way = true;
		else if (!strcmp(a, "--strict"))
			c->co.carry.strict = true;
		else if (!strcmp(a, "--refresh"))
			c->co.refresh = true;
		else if (!strcmp(a, "--no-refresh"))
			c->co.refresh = false;
		else if (!strcmp(a, "--fuzz") || !strcmp(a, "-F") ||
			 !strcmp(a, "--jobs") || !strcmp(a, "-j")) {
			char *end;
			long n;
			bool fuzz = a[2] == 'f' || a[1] == 'F';
			if (++i >= argc)
				return err_set(err, ERR_USAGE, "%s needs a number",
					       a);
			n = strtol(argv[i], &end, 10);
			if (*end || n < 0 || (fuzz && n > 3) || n > 256)
				return err_set(err, ERR_USAGE,
					       "%s: bad number '%s'", a, argv[i]);
			if (fuzz)
				c->co.carry.apply.fuzz = (unsigned)n;
			else
				c->co.jobs = (unsigned)n;
		} else if (a[0] == '-' && a[1])
			return err_set(err, ERR_USAGE, "unknown option '%s'", a);
		else
			c->specs[c->nr_specs++] = argv[i];
	}
	return 0;
}

static int write_format(enum format f, FILE *out, const struct check_report *r,
			const struct options *opts, bool color, struct err *err)
{
	struct report_opts ro = { color, opts->verbosity };
	struct report_email_opts eo = { 0 };

	switch (f) {
	case FMT_TEXT:
		report_check_text(out, r, &ro);
		return ferror(out) ? err_set(err, ERR_IO, "cannot write the "
					     "report") : 0;
	case FMT_JSON:
		return report_check_json(out, r, err);
	case FMT_JUNIT:
		return report_check_junit(out, r, err);
	case FMT_MARKDOWN:
		return report_check_markdown(out, r, err);
	case FMT_EMAIL:
		return report_check_email(out, r, &eo, err);
	}
	return 0;
}

static int write_to(const char *path, enum format f,
		    const struct check_report *r, const struct options *opts,
		    struct err *err)
{
	struct fs_atomic a;
	int error;

	if ((error = fs_atomic_open(&a, path, err)) < 0)
		return error;
	if ((error = write_format(f, a.f, r, opts, false, err)) < 0) {
		fs_atomic_abort(&a);
		return error;
	}
	return fs_atomic_commit(&a, err);
}

int cmd_check(int argc, char **argv, const struct options *opts)
{
	static const char *const files[] = { "check.txt", "check.json",
					     "check.xml", "check.md",
					     "check.mbox" };
	struct check_cli cli = { 0 };
	struct check_report r = { 0 };
	struct progress_state ps = { opts, NULL, NULL, 0 };
	struct check_progress cp = { on_progress, on_stage, &ps };
	struct err err = ERR_INIT;
	char *root = NULL;
	struct lock wl = LOCK_INIT;
	int rc;

	if (parse_args(&cli, argc, argv, &err) < 0) {
		rc = usage_error("check", opts, "%s", err.msg.ptr);
		goto out;
	}
	if (opts->verbosity >= 0)
		cli.co.progress = &cp;
	if (workspace_find(&root, opts, &err) < 0 ||
	    workspace_lock(&wl, root, opts, &err) < 0 ||
	    check_run(&r, root, cli.specs, cli.nr_specs, &cli.co, &err) < 0)
		goto fail;
	if (ps.nr)
		fputs("\r\033[K", stderr);
	if (cli.reports) {
		if (fs_mkdirs(cli.reports, &err) < 0)
			goto fail;
		for (size_t f = 0; f < 5; f++) {
			char *p = fs_join(cli.reports, files[f]);
			int e = write_to(p, (enum format)f, &r, opts, &err);
			free(p);
			if (e < 0)
				goto fail;
		}
		note(opts, "reports written to %s/: %s, %s, %s, %s, %s",
		     cli.reports, files[0], files[1], files[2], files[3],
		     files[4]);
	}
	if (cli.output) {
		if (write_to(cli.output, cli.format, &r, opts, &err) < 0)
			goto fail;
	} else if (write_format(cli.format, stdout, &r, opts,
				opts->color_out && cli.format == FMT_TEXT,
				&err) < 0)
		goto fail;
	rc = check_exit_code(&r);
	goto out;
fail:
	if (ps.nr)
		fputs("\r\033[K", stderr);
	rc = err_report(&err, opts);
out:
	for (size_t i = 0; i < ps.nr; i++) {
		free(ps.targets[i]);
		free(ps.parts[i]);
	}
	free(ps.targets);
	free(ps.parts);
	check_report_release(&r);
	free(cli.specs);
	free(root);
	lock_release(&wl);
	err_release(&err);
	return rc;
}
