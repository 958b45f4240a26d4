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
#include "report_diff.h"
#include "report_html.h"

#include <jansson.h>

enum format {
	FMT_TEXT,
	FMT_JSON,
	FMT_JUNIT,
	FMT_MARKDOWN,
	FMT_EMAIL,
	FMT_HTML,
	NR_FORMATS
};

/* kcarry check --help: usage, text, text after the options */
const char check_usage[] =
	"kcarry check [options] [NAME[@VERSION]...] [TARGET...]";
const char check_help[] =
	"Carry every selected series (default: every series with a stored\n"
	"version, newest version) onto every selected target (default: all)\n"
	"and print the matrix: one row per patch, one column per target.\n"
	"A series whose .conf says 'stacks-on = OTHER' is carried on top of\n"
	"OTHER's result.  Targets are worked on in parallel.  For each target\n"
	"the watched files of the series (watch.file; default\n"
	"fs/btrfs/async-thread.c and .h) are audited: exported symbols the\n"
	"series removes or changes, callers in the target it leaves\n"
	"unconverted, callers it converts that the target does not have.\n";
const char check_more[] =
	"matrix symbols: . clean  o offset  ~ fuzz  3 3-way  = already applied\n"
	"p partial  a adapted  X conflict  - not tried  ? did not run\n"
	"! placement risk  w touches a watched file or a caller of its API.\n"
	"build row: B builds  W new warnings  E new errors  - nothing to build\n"
	"? did not build.  With --build, A: adapted, and it builds (or a\n"
	"person accepted it); an adapted hunk on which the build pins a new\n"
	"diagnostic is a conflict again (X), the diagnostic its cause, and\n"
	"the branch (the refreshed series with --refresh) is carried again\n"
	"without that adaptation.  The refusal is recorded in\n"
	"patches/NAME/.resolutions/ for that patch, version and target tree:\n"
	"apply, resolve, export and check without --build keep the hunk a\n"
	"conflict, the build's diagnostic its cause.\n"
	"\n"
	"exit status: 0 every patch applied or already applied, no risk, no\n"
	"unconverted caller, every build clean of new errors; 1 otherwise\n"
	"(conflicts, risks, adapted hunks not accepted, unconverted callers, a\n"
	"failed build, a target that could not be prepared; with --baseline,\n"
	"only regressions); 2 bad arguments; 3 repository, network or I/O\n"
	"trouble.\n";

/* NULL-terminated: the --format option's choices (opt.h) */
const char *const check_format_names[] = { "text",  "json", "junit",
					   "markdown", "email", "html",
					   NULL };

struct check_cli {
	int format; /* enum format */
	const char *output;
	const char *reports; /* folder for every format at once */
	const char *baseline; /* a kcarry-check/1 report to compare with */
	const char **specs;
	size_t nr_specs;
	struct check_opts co;
	/* which adapted hunks count as applied (exit 0) */
	enum check_accept accept_adapted;
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

int check_write_all(const char *dir, const struct check_writer *w,
		    const struct check_report *r, struct err *err)
{
	static const char *const files[NR_FORMATS] = {
		"check.txt", "check.json", "check.xml",
		"check.md",  "check.mbox", "check.html"
	};
	struct check_writer one = *w;
	int error;

	if ((error = fs_mkdirs(dir, err)) < 0)
		return error;
	for (int f = 0; f < NR_FORMATS; f++) {
		char *p = fs_join(dir, files[f]);
		one.format = f;
		one.color = false;
		error = check_write_to(p, &one, r, err);
		free(p);
		if (error < 0)
			return error;
	}
	note(w->opts, "reports written to %s/: %s, %s, %s, %s, %s, %s", dir,
	     files[0], files[1], files[2], files[3], files[4], files[5]);
	return 0;
}

static int take_shard(const char *value, void *target, struct err *err)
{
	struct check_opts *co = target;

	return check_parse_shard(&co->shard, &co->nr_shards, value, err);
}

int parse_accept_adapted(const char *value, void *target, struct err *err)
{
	enum check_accept *how = target;

	if (!value)
		*how = ACCEPT_ALL;
	else if (!strcmp(value, "built"))
		*how = ACCEPT_BUILT;
	else
		return err_set(err, ERR_USAGE,
			       "takes no value or 'built', not '%s'", value);
	return 0;
}

const struct opt check_options[] = {
	OPT_CHECK_FORMATS(struct check_cli, format, output, reports),
	OPT_JOBS(struct check_cli, co.jobs),
	OPT_CARRY(struct check_cli, co.carry),
	OPT_ACCEPT_ADAPTED(struct check_cli, accept_adapted,
			   "an adapted hunk does not fail the run (exit\n"
			   "0); =built: only one a build compiled (with\n"
			   "--build: 'adapted, builds')"),
	{ OPT_FLAG, 0, "refresh", NULL,
	  "also write the refreshed series of every cell\n"
	  "(patches/NAME/VERSION/TARGET/; apply always does)",
	  offsetof(struct check_cli, co.refresh) },
	{ OPT_FLAG, 0, "no-refresh", NULL,
	  "do not write refreshed series (the default)",
	  offsetof(struct check_cli, co.refresh), .negate = true },
	{ OPT_FLAG, 0, "no-patch-text", NULL,
	  "leave the refreshed patches' text out of the JSON and\n"
	  "HTML reports (they then name the commit only)",
	  offsetof(struct check_cli, co.carry.patch_texts), .negate = true },
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
	{ OPT_STRING, 0, "baseline", "BASE.json",
	  "compare with an earlier --format json report: the\n"
	  "reports lead with regressions, fixes and patches\n"
	  "newly upstreamed; exit 1 only on regressions",
	  offsetof(struct check_cli, baseline) },
	{ OPT_END },
};

int check_write_format(const struct check_writer *w, FILE *out,
		       const struct check_report *r, struct err *err)
{
	struct report_opts ro = { w->color, w->opts->verbosity };
	struct report_email_opts eo = { 0 };

	switch ((enum format)w->format) {
	case FMT_TEXT:
		if (w->diff)
			report_diff_text(out, w->diff);
		report_check_text(out, r, &ro);
		return ferror(out) ? err_set(err, ERR_IO, "cannot write the "
					     "report") : 0;
	case FMT_JSON:
		return report_check_json(out, r, err);
	case FMT_JUNIT:
		return report_check_junit(out, r, err);
	case FMT_MARKDOWN:
		if (w->diff)
			report_diff_markdown(out, w->diff);
		return report_check_markdown(out, r, err);
	case FMT_EMAIL:
		if (w->diff)
			report_diff_email(out, w->diff, 0);
		return report_check_email(out, r, &eo, err);
	case FMT_HTML:
		return report_check_html(out, r, w->diff, err);
	case NR_FORMATS:
		break;
	}
	return 0;
}

int check_write_to(const char *path, const struct check_writer *w,
		   const struct check_report *r, struct err *err)
{
	struct fs_atomic a;
	int error;

	if ((error = fs_atomic_open(&a, path, err)) < 0)
		return error;
	if ((error = check_write_format(w, a.f, r, err)) < 0) {
		fs_atomic_abort(&a);
		return error;
	}
	return fs_atomic_commit(&a, err);
}

/* The differences from the baseline report base (NULL: none). */
static int compare_baseline(json_t **diff, const json_t *base,
			    const struct check_report *r, struct err *err)
{
	json_t *cur = NULL;
	int error;

	*diff = NULL;
	if (!base)
		return 0;
	if ((error = report_check_doc(&cur, r, err)) < 0)
		return error;
	*diff = report_diff_compare(base, cur);
	json_decref(cur);
	return 0;
}

/* A stacked series carried on a base version not named like its own. */
static void note_stacks(const struct check_report *r,
			const struct options *opts)
{
	for (size_t s = 0; s < r->nr_series; s++) {
		const struct check_series *cs = &r->series[s];
		const struct check_series *b;

		if (cs->stacks_on < 0 || !cs->base_newest)
			continue;
		b = &r->series[cs->stacks_on];
		note(opts,
		     "note: '%s' has no version %s: %s@%s is carried on "
		     "%s@%s, its newest",
		     b->name, cs->v.version, cs->name, cs->v.version, b->name,
		     b->v.version);
	}
}

int cmd_check(int argc, char **argv, struct cli_ctx *cx)
{
	const struct options *opts = cx->opts;
	struct check_cli cli = { 0 };
	struct check_report r = { 0 };
	struct progress_state ps = { opts, NULL, NULL, 0 };
	struct check_progress cp = { on_progress, on_stage, on_build, &ps };
	struct err err = ERR_INIT;
	const char *root = NULL;
	struct check_writer w = { 0, false, NULL, opts };
	json_t *diff = NULL, *base = NULL;
	int rc;

	cli.co.carry.apply.fuzz = APPLY_DEFAULT_FUZZ;
	cli.co.carry.patch_texts = true;
	if (cli_parse("check", check_options, &cli, argc, argv, &cli.specs,
		      &cli.nr_specs, opts) < 0) {
		rc = EXIT_USAGE;
		goto out;
	}
	if (opts->verbosity >= 0)
		cli.co.progress = &cp;
	/* a baseline that does not read stops the check before it runs */
	if ((cli.baseline &&
	     report_diff_load(&base, cli.baseline, &err) < 0) ||
	    cli_workspace(cx, &root, &err) < 0 ||
	    check_select(&r, root, (char *const *)cli.specs, cli.nr_specs,
			 &err) < 0)
		goto fail;
	w.format = cli.format;
	note_stacks(&r, opts);
	check_execute(&r, &cli.co);
	if (ps.nr)
		fputs("\r\033[K", stderr);
	if (compare_baseline(&diff, base, &r, &err) < 0)
		goto fail;
	w.diff = diff;
	if (cli.reports && check_write_all(cli.reports, &w, &r, &err) < 0)
		goto fail;
	w.color = !cli.output && opts->color_out && cli.format == FMT_TEXT;
	if (cli.output ? check_write_to(cli.output, &w, &r, &err) < 0
		       : check_write_format(&w, stdout, &r, &err) < 0)
		goto fail;
	/* against a baseline only regressions fail the job */
	rc = diff ? (report_diff_regressions(diff) ? 1 : 0)
		  : check_exit_code(&r);
	if (!diff && !rc && check_any_adapted(&r, cli.accept_adapted))
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
	json_decref(diff);
	json_decref(base);
	free(cli.specs);
	err_release(&err);
	return rc;
}
