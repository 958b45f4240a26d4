/*
 * cmd_build: carry a series onto targets and build each result with the
 * target's own Kbuild; print the diagnostics the series brought, each
 * pinned on a patch and hunk or tied to the finding that explains it.
 * cmd_gc: free the build folders.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "check.h"
#include "cmds.h"
#include "fs.h"
#include "report.h"
#include "report_ci.h"

struct build_cli {
	bool json;
	const char *output;
	const char **specs;
	size_t nr_specs;
	struct check_opts co;
};

struct progress {
	const struct options *opts;
	bool shown;
};

static void on_build(void *vctx, const char *target, const char *phase,
		     size_t done, size_t total, double elapsed)
{
	struct progress *p = vctx;

	if (!p->opts->progress)
		return;
	fputs("\r\033[K", stderr);
	if (total)
		fprintf(stderr, "%s: %s: %zu/%zu objects, %.0f s", target, phase,
			done, total, elapsed);
	else if (done)
		fprintf(stderr, "%s: %s: %zu objects, %.0f s", target, phase,
			done, elapsed);
	else
		fprintf(stderr, "%s: %s, %.0f s", target, phase, elapsed);
	fflush(stderr);
	p->shown = true;
}

static void on_patch(void *vctx, const char *target, const char *series,
		     size_t i, size_t nr)
{
	struct progress *p = vctx;

	if (!p->opts->progress)
		return;
	fprintf(stderr, "\r\033[K%s: carrying %s %zu/%zu", target, series,
		i + 1, nr);
	fflush(stderr);
	p->shown = true;
}

static void on_stage(void *vctx, const char *target, const char *what)
{
	struct progress *p = vctx;

	if (p->opts->progress && p->shown)
		fputs("\r\033[K", stderr);
	p->shown = false;
	note(p->opts, "%s: %s", target, what);
}

const struct opt build_options[] = {
	{ OPT_FLAG, 0, "each", NULL,
	  "build after each patch that touches a compiled file\n"
	  "and name the first patch after which it breaks",
	  offsetof(struct build_cli, co.build_opts.each) },
	{ OPT_FLAG, 0, "full", NULL,
	  "run build.command (or make's default goal)",
	  offsetof(struct build_cli, co.build_opts.full) },
	{ OPT_FLAG, 0, "json", NULL,
	  "print the result as JSON (kcarry-build/1)",
	  offsetof(struct build_cli, json) },
	OPT_OUTPUT(struct build_cli, output),
	OPT_JOBS(struct build_cli, co.jobs),
	OPT_CARRY(struct build_cli, co.carry),
	{ OPT_END },
};

static int parse_args(struct build_cli *c, int argc, char **argv,
		      const struct options *opts)
{
	c->co.carry.apply.fuzz = APPLY_DEFAULT_FUZZ;
	c->co.build = true;
	c->co.refresh = false;
	if (cli_parse("build", build_options, c, argc, argv, &c->specs,
		      &c->nr_specs, opts) < 0)
		return -1;
	if (c->nr_specs < 2) {
		usage_error("build", opts, "name a series and a target");
		return -1;
	}
	return 0;
}

static void write_text(FILE *out, const struct check_report *r,
		       const struct options *opts)
{
	for (size_t s = 0; s < r->nr_series; s++)
		for (size_t t = 0; t < r->nr_targets; t++) {
			const struct check_cell *c = check_cell(r, s, t);
			const struct check_series *cs = &r->series[s];

			if (!c->ok) {
				fprintf(out, "build, %s@%s on %s: not carried: "
					     "%s\n",
					cs->name, cs->v.version, r->targets[t],
					c->error);
				continue;
			}
			if (c->carry.nr_failed)
				fprintf(out, "note: %zu patch%s of %s did not "
					     "apply on %s and %s not built "
					     "('kcarry check' tells why)\n",
					c->carry.nr_failed,
					c->carry.nr_failed == 1 ? "" : "es",
					cs->name, r->targets[t],
					c->carry.nr_failed == 1 ? "is" : "are");
			if (!c->build.ran && !c->build.error) {
				fprintf(out, "build, %s@%s on %s: nothing to "
					     "build\n",
					cs->name, cs->v.version, r->targets[t]);
				continue;
			}
			{
				char *label = xstrfmt("%s@%s", cs->name,
						      cs->v.version);
				/* report_build_text indents for check */
				report_build_text(out, label, r->targets[t],
						  &c->build,
						  opts->verbosity);
				free(label);
			}
		}
}

/* The worst of the cells: a target that cannot be read or built for
 * the environment's sake (3) or its configuration's (2) says so, as
 * 'kcarry apply' would; a failed build or patch is 1. */
static int build_exit_code(const struct check_report *r)
{
	int rc = EXIT_DONE;

	for (size_t k = 0; k < r->nr_series * r->nr_targets; k++) {
		const struct check_cell *c = &r->cells[k];
		int code = !c->ok ? c->error_code : c->build.error_code;
		int e = EXIT_DONE;

		if (!c->ok || c->build.error) {
			struct err tmp = { code, BUF_INIT, BUF_INIT };
			e = err_exit_code(&tmp);
			if (e == EXIT_DONE)
				e = EXIT_NOT_DONE;
		} else if (c->carry.nr_failed || c->build.failed)
			e = EXIT_NOT_DONE;
		if (e == EXIT_ENV || (e == EXIT_USAGE && rc != EXIT_ENV) ||
		    (e == EXIT_NOT_DONE && rc == EXIT_DONE))
			rc = e;
	}
	return rc;
}

int cmd_build(int argc, char **argv, const struct options *opts)
{
	struct build_cli cli = { 0 };
	struct check_report r = { 0 };
	struct progress pg = { opts, false };
	struct check_progress cp = { on_patch, on_stage, on_build, &pg };
	struct err err = ERR_INIT;
	char *root = NULL;
	struct fs_atomic out = { stdout, NULL, NULL };
	int rc;

	if (parse_args(&cli, argc, argv, opts) < 0) {
		rc = EXIT_USAGE;
		goto out;
	}
	if (opts->verbosity >= 0)
		cli.co.progress = &cp;
	if (workspace_find(&root, opts, &err) < 0 ||
	    check_run(&r, root, (char *const *)cli.specs, cli.nr_specs, &cli.co,
		      &err) < 0)
		goto fail;
	if (pg.shown)
		fputs("\r\033[K", stderr);
	if (r.nr_series != 1) {
		err_set(&err, ERR_USAGE, "name one series to build");
		goto fail;
	}
	if (cli.output && fs_atomic_open(&out, cli.output, &err) < 0)
		goto fail;
	if (cli.json) {
		if (report_build_doc_json(out.f, &r, &err) < 0)
			goto fail;
	} else
		write_text(out.f, &r, opts);
	if (cli.output && fs_atomic_commit(&out, &err) < 0)
		goto fail;
	rc = build_exit_code(&r);
	goto out;
fail:
	if (pg.shown)
		fputs("\r\033[K", stderr);
	if (out.f != stdout)
		fs_atomic_abort(&out);
	rc = err_report(&err, opts);
out:
	check_report_release(&r);
	free(cli.specs);
	free(root);
	err_release(&err);
	return rc;
}

const struct opt gc_options[] = {
	{ OPT_END },
};

int cmd_gc(int argc, char **argv, const struct options *opts)
{
	struct err err = ERR_INIT;
	unsigned long long freed = 0;
	char *dir = NULL;
	const char **args = NULL;
	size_t nr = 0;
	int rc = EXIT_DONE;

	if (cli_parse("gc", gc_options, NULL, argc, argv, &args, &nr, opts) <
	    0) {
		rc = EXIT_USAGE;
		goto out;
	}
	dir = build_cache_dir();
	if (build_gc(&freed, (char *const *)args, nr, &err) < 0)
		rc = err_report(&err, opts);
	else
		printf("freed %.1f MB of build folders in %s\n",
		       (double)freed / (1024.0 * 1024.0), dir);
out:
	free(args);
	free(dir);
	err_release(&err);
	return rc;
}
