/*
 * cmd_build: carry a series onto targets and build each result with the
 * target's own Kbuild; print the diagnostics the series brought, each
 * pinned on a patch and hunk or tied to the finding that explains it.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "check.h"
#include "cmds.h"
#include "fs.h"
#include "job.h"
#include "report.h"
#include "report_ci.h"

/* kcarry build --help: usage, text, text after the options */
const char build_usage[] =
	"kcarry build [options] NAME[@VERSION] TARGET...";
const char build_help[] =
	"Carry the series onto each TARGET as 'apply' does (branch\n"
	"kcarry/NAME/VERSION/TARGET), then build the result with the target's\n"
	"own Kbuild and print the diagnostics the series brought:\n"
	"\n"
	"  path:line: error: message  <- 0003 (hunk 2)\n"
	"  path:line: error: message  <- 0001 | unconverted caller of f changed by 0001\n"
	"\n"
	"A diagnostic on a line a patch changed is pinned on that patch and\n"
	"hunk; one on a line no patch changed is tied to an unconverted caller\n"
	"(watch audit), a declaration a patch changed, an identifier a patch\n"
	"removed or renamed, or else called a pre-existing line broken by the\n"
	"series.  The target's base is built once (cached) and what it already\n"
	"reports is never blamed on the series.\n"
	"\n"
	"Sources are kept per target in <cache>/build/TARGET/src and brought\n"
	"to each tree by rewriting only the files that differ, so make rebuilds\n"
	"only what changed; objects go to an O= folder per configuration.  The\n"
	"target repository and any checkout are only read.  kernels/TARGET.conf:\n"
	"\n"
	"  [build]\n"
	"      config = defconfig            # make target, CONFIG_X=y|m|n,\n"
	"      config = CONFIG_BTRFS_FS=m    # or file:PATH (tree or workspace)\n"
	"      targets = fs/btrfs/           # default: objects of the .c files\n"
	"                                    # the series changes + the watched\n"
	"                                    # files' folders\n"
	"      cc = ccache gcc               # gcc, clang, distcc gcc, icecc\n"
	"      jobs = 2\n"
	"      make-flags = W=1\n"
	"      profile = none                # no compatibility profile\n"
	"      command = make -j2 O=$KCARRY_BUILD   # what --full runs\n"
	"\n"
	"The config lines run in order, then make olddefconfig.  Without\n"
	"build.config lines nothing configures the O= folder: make runs with\n"
	"what it holds (nothing at first), and a kernel's make stops for\n"
	"want of a .config.  Give 'config = defconfig' (x86_64_defconfig,\n"
	"...) or 'config = file:PATH' with the distro's own config.\n"
	"\n"
	"Old trees get a compatibility profile chosen from the tree's and the\n"
	"compiler's versions: see COMPATIBILITY PROFILES in kcarry(1).\n"
	"\n"
	"Adapted hunks (see apply) are built with their patches; the report\n"
	"lists each: 'adapted, builds' (its .c file compiled with no new\n"
	"diagnostic in it), 'adapted (not built)', or 'conflict again' when\n"
	"a new diagnostic is pinned on it: the branch is then carried again\n"
	"without that adaptation, the patch a conflict on it, and the refusal\n"
	"is recorded (patches/NAME/.resolutions/) for the carries that do\n"
	"not build: apply, resolve, export and check keep that hunk a\n"
	"conflict on the same patch, version and target tree.\n"
	"\n"
	"On a terminal a progress line shows the phase, the objects compiled\n"
	"and the time.  Elsewhere (a CI log) -v prints a line as each phase\n"
	"begins and ends: 'build 6.1: base: make fs/btrfs/ (55 objects)'.\n";
const char build_more[] =
	"exit status: 0 every target builds without new errors (new warnings\n"
	"alone exit 0: W in check's build row); 1 new errors, a patch that\n"
	"did not apply, or a build that could not run; 2 bad arguments; 3\n"
	"repository, compiler, make or I/O trouble.\n";

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

static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

bool build_tick_show(const struct options *opts, const char *what,
		     const struct build_tick *t)
{
	if (opts->progress) {
		fputs("\r\033[K", stderr);
		if (t->total)
			fprintf(stderr, "%s: %s%s: %zu/%zu objects, %.0f s",
				t->target, what, t->phase, t->done, t->total,
				t->elapsed);
		else if (t->done)
			fprintf(stderr, "%s: %s%s: %zu objects, %.0f s",
				t->target, what, t->phase, t->done, t->elapsed);
		else
			fprintf(stderr, "%s: %s%s, %.0f s", t->target, what,
				t->phase, t->elapsed);
		fflush(stderr);
		return true;
	}
	/* a log (CI): a line when a phase begins or ends, none per object */
	if (opts->verbosity < 1)
		return false;
	if (t->event == BUILD_BEGIN && t->command) {
		fprintf(stderr, "build %s: %s: %s", t->target, t->phase,
			t->command);
		if (t->total)
			fprintf(stderr, " (%zu object%s)", t->total,
				plural(t->total));
		fputc('\n', stderr);
	} else if (t->event == BUILD_END && t->written)
		fprintf(stderr, "build %s: %s: %zu file%s written in %.0f s\n",
			t->target, t->phase, t->written, plural(t->written),
			t->seconds);
	else if (t->event == BUILD_END && t->counted) {
		if (t->cached)
			fprintf(stderr, "build %s: %s: from the cache",
				t->target, t->phase);
		else
			fprintf(stderr, "build %s: %s: done in %.0f s",
				t->target, t->phase, t->seconds);
		fprintf(stderr, ", %zu error%s, %zu warning%s\n", t->errors,
			plural(t->errors), t->warnings, plural(t->warnings));
	}
	return false;
}

static void on_build(void *vctx, const struct build_tick *t)
{
	struct progress *p = vctx;

	if (build_tick_show(p->opts, "", t))
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
	OPT_JOBS_HELP(struct build_cli, co.jobs,
		      "targets built at once (default: CPUs);\n"
		      "make's own -j is build.jobs"),
	OPT_CARRY(struct build_cli, co.carry),
	{ OPT_END },
};

static int parse_args(struct build_cli *c, int argc, char **argv,
		      const struct options *opts)
{
	c->co.carry.apply.fuzz = APPLY_DEFAULT_FUZZ;
	c->co.build = true;
	c->co.build_no_bases = true;
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

/*
 * One series named (parse_args saw two names at least, so the others
 * are targets), said before anything is carried or built: a kernel
 * build takes minutes.  A spec is a target when check_select took it
 * for one.
 */
static int check_selection(const struct check_report *r,
			   const struct build_cli *c, struct err *err)
{
	struct buf series = BUF_INIT;
	size_t nr = 0;
	int error = 0;

	for (size_t i = 0; i < c->nr_specs; i++) {
		const char *spec = c->specs[i];
		bool is_target = false;

		for (size_t t = 0; t < r->nr_targets && !strchr(spec, '@'); t++)
			is_target = is_target || !strcmp(r->targets[t], spec);
		if (!is_target)
			buf_addf(&series, "%s%s", nr++ ? ", " : "", spec);
	}
	if (nr != 1) {
		if (nr)
			error = err_set(err, ERR_USAGE,
					"name one series to build, not %zu (%s)",
					nr, series.ptr);
		else
			error = err_set(err, ERR_USAGE,
					"name the series to build");
		err_hint(err, "one 'kcarry build' per series, or 'kcarry "
			      "check --build' for a matrix");
	}
	buf_release(&series);
	return error;
}

/* The adapted hunks of a built cell: "adapted, builds", "adapted (not
 * built)", or turned back into a conflict by the build; how many
 * patches hold one of the last (built, then carried again without it). */
static size_t write_adapted(FILE *out, const struct carry_result *cr)
{
	size_t back = 0;

	for (size_t i = 0; i < cr->nr; i++) {
		const struct carry_patch *cp = &cr->patches[i];
		bool again = false;

		for (size_t f = 0; f < cp->nr_files; f++)
			for (size_t h = 0; h < cp->files[f].nr_hunks; h++) {
				const struct apply_hunk_result *hr =
					&cp->files[f].hunks[h];
				const char *what;

				if (hr->rule == RULE_ADAPTED && hr->adapt)
					what = hr->adapt->built
						       ? "adapted, builds"
						       : "adapted (not built)";
				else if (hr->cause &&
					 hr->cause->kind == CAUSE_BUILD)
					what = "conflict again";
				else
					continue;
				report_printf(out, "%04zu %s hunk %zu: %s%s%s\n",
					      i + 1, cp->files[f].path, h + 1,
					      what,
					      hr->rule == RULE_CONFLICT ? ": "
									: "",
					      hr->rule == RULE_CONFLICT
						      ? hr->reason
						      : "");
				again = again || hr->rule == RULE_CONFLICT;
			}
		back += again;
	}
	return back;
}

static void write_text(FILE *out, const struct check_report *r,
		       const struct options *opts)
{
	for (size_t s = 0; s < r->nr_series; s++)
		for (size_t t = 0; t < r->nr_targets &&
				   !r->series[s].stacked_base;
		     t++) {
			const struct check_cell *c = check_cell(r, s, t);
			const struct check_series *cs = &r->series[s];

			if (!c->ok) {
				fprintf(out, "build, %s@%s on %s: not carried: "
					     "%s\n",
					cs->name, cs->v.version, r->targets[t],
					c->error);
				continue;
			}
			size_t back = write_adapted(out, &c->carry);
			size_t nf = c->carry.nr_failed - back;

			if (nf)
				fprintf(out, "note: %zu patch%s of %s did not "
					     "apply on %s and %s not built "
					     "('kcarry check' tells why)\n",
					nf, nf == 1 ? "" : "es", cs->name,
					r->targets[t], nf == 1 ? "is" : "are");
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

		/* what the series built stacks on was carried, not built */
		if (r->series[k / r->nr_targets].stacked_base)
			continue;
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

int cmd_build(int argc, char **argv, struct cli_ctx *cx)
{
	const struct options *opts = cx->opts;
	struct build_cli cli = { 0 };
	struct check_report r = { 0 };
	struct progress pg = { opts, false };
	struct check_progress cp = { on_patch, on_stage, on_build, &pg };
	struct err err = ERR_INIT;
	const char *root = NULL;
	struct fs_atomic out = { stdout, NULL, NULL };
	int rc;

	if (parse_args(&cli, argc, argv, opts) < 0) {
		rc = EXIT_USAGE;
		goto out;
	}
	if (opts->verbosity >= 0)
		cli.co.progress = &cp;
	if (cli_workspace(cx, &root, &err) < 0 ||
	    check_select(&r, root, (char *const *)cli.specs, cli.nr_specs,
			 &err) < 0 ||
	    check_selection(&r, &cli, &err) < 0)
		goto fail;
	check_execute(&r, &cli.co);
	if (pg.shown)
		fputs("\r\033[K", stderr);
	pg.shown = false;
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
	err_release(&err);
	return rc;
}
