/*
 * cmd_check: every selected series on every selected target, as a matrix
 * for people and as JSON, JUnit, Markdown or stable-style email for CI.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cmds.h"
#include "fs.h"
#include "report.h"
#include "report_ci.h"

enum format { FMT_TEXT, FMT_JSON, FMT_JUNIT, FMT_MARKDOWN, FMT_EMAIL };

/* NULL-terminated: the --format option's choices (opt.h) */
const char *const check_format_names[] = { "text",     "json",  "junit",
					   "markdown", "email", NULL };

struct check_cli {
	int format; /* enum format */
	const char *output;
	const char *reports; /* folder for every format at once */
	const char **specs;
	size_t nr_specs;
	struct check_opts co;
	bool accept_adapted; /* adapted patches count as applied (exit 0) */
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

static void on_build(void *vctx, const struct build_tick *t)
{
	struct progress_state *ps = vctx;

	if (build_tick_show(ps->opts, "build, ", t) && !ps->nr) {
		/* so that the line is cleared at the end */
		ps->targets = xrealloc(ps->targets, sizeof(char *));
		ps->parts = xrealloc(ps->parts, sizeof(char *));
		ps->targets[0] = xstrdup(t->target);
		ps->parts[0] = xstrdup("");
		ps->nr = 1;
	}
}

int check_parse_shard(unsigned *shard, unsigned *nr, const char *s,
		      struct err *err)
{
	char *end;
	unsigned long i = strtoul(s, &end, 10), n;

	if (end == s || *end != '/')
		goto bad;
	s = end + 1;
	n = strtoul(s, &end, 10);
	if (end == s || *end || !n || !i || i > n || n > 10000)
		goto bad;
	*shard = (unsigned)i;
	*nr = (unsigned)n;
	return 0;
bad:
	return err_set(err, ERR_USAGE, "expected I/N with 1 <= I <= N");
}

int check_write_all(const char *dir, const struct check_report *r,
		    const struct options *opts, struct err *err)
{
	static const char *const files[] = { "check.txt", "check.json",
					     "check.xml", "check.md",
					     "check.mbox" };
	int error;

	if ((error = fs_mkdirs(dir, err)) < 0)
		return error;
	for (int f = 0; f < 5; f++) {
		char *p = fs_join(dir, files[f]);
		error = check_write_to(p, f, r, opts, err);
		free(p);
		if (error < 0)
			return error;
	}
	note(opts, "reports written to %s/: %s, %s, %s, %s, %s", dir, files[0],
	     files[1], files[2], files[3], files[4]);
	return 0;
}

static int take_shard(const char *value, void *target, struct err *err)
{
	struct check_opts *co = target;

	return check_parse_shard(&co->shard, &co->nr_shards, value, err);
}

/* Whether some cell has an adapted patch (exit 1 unless accepted). */
static bool any_adapted(const struct check_report *r)
{
	for (size_t s = 0; s < r->nr_series; s++)
		for (size_t t = 0; t < r->nr_targets; t++) {
			const struct check_cell *c = check_cell(r, s, t);

			if (!c->other_shard && c->carry.counts[OUTCOME_ADAPTED])
				return true;
		}
	return false;
}

const struct opt check_options[] = {
	OPT_CHECK_FORMATS(struct check_cli, format, output, reports),
	OPT_JOBS(struct check_cli, co.jobs),
	OPT_CARRY(struct check_cli, co.carry),
	{ OPT_FLAG, 0, "accept-adapted", NULL,
	  "an adapted hunk does not fail the run (exit 0)",
	  offsetof(struct check_cli, accept_adapted) },
	{ OPT_FLAG, 0, "refresh", NULL,
	  "also write the refreshed series of every cell\n"
	  "(patches/NAME/VERSION/TARGET/; apply always does)",
	  offsetof(struct check_cli, co.refresh) },
	{ OPT_FLAG, 0, "no-refresh", NULL,
	  "do not write refreshed series (the default)",
	  offsetof(struct check_cli, co.refresh), .negate = true },
	{ OPT_FLAG, 0, "build", NULL,
	  "also build every cell (see 'kcarry build'): a build\n"
	  "row in the matrix, the new diagnostics",
	  offsetof(struct check_cli, co.build) },
	{ OPT_FLAG, 0, "each", NULL,
	  "build after each patch (implies --build)",
	  offsetof(struct check_cli, co.build_opts.each),
	  .also = { OPT_ALSO(struct check_cli, co.build) } },
	{ OPT_FLAG, 0, "full", NULL,
	  "run build.command (implies --build)",
	  offsetof(struct check_cli, co.build_opts.full),
	  .also = { OPT_ALSO(struct check_cli, co.build) } },
	{ OPT_FUNC, 0, "shard", "I/N",
	  "run only cells k with k % N == I - 1 (k = series\n"
	  "index * targets + target index); merge the JSON of\n"
	  "all shards with 'kcarry report merge'",
	  offsetof(struct check_cli, co), .parse = take_shard },
	{ OPT_END },
};

int check_write_format(int f, FILE *out, const struct check_report *r,
		       const struct options *opts, bool color, struct err *err)
{
	struct report_opts ro = { color, opts->verbosity };
	struct report_email_opts eo = { 0 };

	switch ((enum format)f) {
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

int check_write_to(const char *path, int f, const struct check_report *r,
		   const struct options *opts, struct err *err)
{
	struct fs_atomic a;
	int error;

	if ((error = fs_atomic_open(&a, path, err)) < 0)
		return error;
	if ((error = check_write_format(f, a.f, r, opts, false, err)) < 0) {
		fs_atomic_abort(&a);
		return error;
	}
	return fs_atomic_commit(&a, err);
}

int cmd_check(int argc, char **argv, const struct options *opts)
{
	struct check_cli cli = { 0 };
	struct check_report r = { 0 };
	struct progress_state ps = { opts, NULL, NULL, 0 };
	struct check_progress cp = { on_progress, on_stage, on_build, &ps };
	struct err err = ERR_INIT;
	char *root = NULL;
	struct lock wl = LOCK_INIT;
	int rc;

	cli.co.carry.apply.fuzz = APPLY_DEFAULT_FUZZ;
	if (cli_parse("check", check_options, &cli, argc, argv, &cli.specs,
		      &cli.nr_specs, opts) < 0) {
		rc = EXIT_USAGE;
		goto out;
	}
	if (opts->verbosity >= 0)
		cli.co.progress = &cp;
	if (workspace_find(&root, opts, &err) < 0 ||
	    workspace_lock(&wl, root, opts, &err) < 0 ||
	    check_run(&r, root, (char *const *)cli.specs, cli.nr_specs, &cli.co,
		      &err) < 0)
		goto fail;
	if (ps.nr)
		fputs("\r\033[K", stderr);
	if (cli.reports && check_write_all(cli.reports, &r, opts, &err) < 0)
		goto fail;
	if (cli.output) {
		if (check_write_to(cli.output, cli.format, &r, opts, &err) < 0)
			goto fail;
	} else if (check_write_format(cli.format, stdout, &r, opts,
				opts->color_out && cli.format == FMT_TEXT,
				&err) < 0)
		goto fail;
	rc = check_exit_code(&r);
	if (!rc && !cli.accept_adapted && any_adapted(&r))
		rc = 1;
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
