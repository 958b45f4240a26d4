/*
 * cmd_apply: apply a series version to targets, in memory, one commit per
 * patch on kcarry/NAME/VERSION/TARGET, and write the refreshed series.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cmds.h"
#include "fs.h"
#include "job.h"
#include "report.h"

/* kcarry apply --help: usage, text, text after the options */
const char apply_usage[] =
	"kcarry apply [options] NAME[@VERSION] TARGET...";
const char apply_help[] =
	"Apply every patch of the version (newest by default) to each\n"
	"target's tree in memory, never touching a working tree.  Each\n"
	"applied patch becomes one commit (author, date and message kept)\n"
	"on branch kcarry/NAME/VERSION/TARGET of the target's repository, and\n"
	"the refreshed series (patches that apply exactly, with a note of\n"
	"what was adjusted) is written to patches/NAME/VERSION/TARGET/.\n"
	"\n"
	"Per hunk, in order: exact, offset (nearest first), fuzz (outer\n"
	"context dropped), 3-way with the preimage blob of the index line,\n"
	"3-way at hunk level, else conflict.  A hunk whose result is already\n"
	"there is 'already applied'; a patch made only of such hunks is\n"
	"skipped, a mix is 'partial'.  A placement risk is a hunk that may\n"
	"sit in the wrong place, or do nothing, although it applied: placed\n"
	"by offset or fuzz outside the function its header names, a nearer\n"
	"or equally good match elsewhere, its result already present\n"
	"elsewhere, a definition the target already has, a name (or Kconfig\n"
	"symbol, or makefile CONFIG_ word) the target declares nowhere, or an\n"
	"added #ifdef under the target's own opposite test (never built).\n";
const char apply_more[] =
	"exit status: 0 every patch applied (clean, offset, fuzz, 3-way) or\n"
	"already applied; 1 conflicts, partial patches, placement risks or\n"
	"adapted hunks (unless --accept-adapted); 2 bad arguments; 3\n"
	"repository, network or I/O trouble.\n";

struct apply_cli {
	char *name, *version;
	const char **args; /* the series, then the targets */
	size_t nr_args;
	const char **targets;
	size_t nr_targets;
	bool json, no_refresh;
	bool accept_adapted; /* adapted patches count as applied (exit 0) */
	const char *output;
	struct carry_opts co;
};

const struct opt apply_options[] = {
	OPT_CARRY(struct apply_cli, co),
	{ OPT_FLAG, 0, "stop", NULL, "stop at the first failing patch",
	  offsetof(struct apply_cli, co.stop) },
	{ OPT_FLAG, 0, "accept-adapted", NULL,
	  "an adapted hunk does not fail the run (exit 0)",
	  offsetof(struct apply_cli, accept_adapted) },
	{ OPT_FLAG, 0, "json", NULL,
	  "print the per-patch, per-hunk result as JSON\n"
	  "(docs/json-schema.md)",
	  offsetof(struct apply_cli, json) },
	OPT_OUTPUT(struct apply_cli, output),
	{ OPT_FLAG, 0, "no-refresh", NULL,
	  "do not write patches/NAME/VERSION/TARGET/",
	  offsetof(struct apply_cli, no_refresh) },
	{ OPT_END },
};

static int parse_args(struct apply_cli *c, int argc, char **argv,
		      const struct options *opts, struct err *err)
{
	const char **args;
	size_t nr;
	int error = 0;

	c->co.apply.fuzz = APPLY_DEFAULT_FUZZ;
	if (cli_parse("apply", apply_options, c, argc, argv, &args, &nr,
		      opts) < 0)
		error = -1;
	else if (!nr)
		error = usage_error("apply", opts, "no series named");
	else if (nr < 2)
		error = usage_error("apply", opts, "no target named");
	else if (series_parse_spec(args[0], &c->name, &c->version, err) < 0)
		error = usage_error("apply", opts, "%s", err->msg.ptr);
	c->args = args;
	c->nr_args = nr;
	if (!error) {
		c->targets = args + 1;
		c->nr_targets = nr - 1;
	}
	return error ? -1 : 0;
}

int cmd_apply(int argc, char **argv, struct cli_ctx *cx)
{
	const struct options *opts = cx->opts;
	struct apply_cli cli = { 0 };
	struct err err = ERR_INIT;
	struct series_version v;
	struct carry_result *results = NULL;
	size_t nres = 0;
	const char *root = NULL;
	char *stacks_on = NULL;
	bool failed = false;
	int rc = EXIT_DONE;

	series_version_init(&v, NULL, NULL);
	if (parse_args(&cli, argc, argv, opts, &err) < 0) {
		rc = EXIT_USAGE;
		goto out;
	}
	if (cli_workspace(cx, &root, &err) < 0 ||
	    series_load_version(&v, root, cli.name, cli.version, &err) < 0)
		goto fail;
	if (series_stacks_on(&stacks_on, root, v.name, &err) < 0)
		goto fail;
	results = xcalloc(cli.nr_targets, sizeof(*results));
	for (size_t i = 0; i < cli.nr_targets; i++) {
		struct job j;
		struct target_progress tp = { progress_target, (void *)opts };
		struct progress_ctx pc = { opts, cli.targets[i] };
		struct carry_opts co = cli.co;
		int error;

		if ((error = job_open(&j, root, cli.targets[i], &tp, &err)) < 0) {
			job_close(&j);
			failed = true;
			break;
		}
		/* DESIGN: apply and rebase carry on the target's base */
		if (stacks_on)
			note(opts,
			     "note: apply carries %s@%s onto %s's base: "
			     "series.stacks-on = %s is followed by check, "
			     "build and export only",
			     v.name, v.version, cli.targets[i], stacks_on);
		co.progress = progress_patch;
		co.ctx = &pc;
		/* nothing diffs the blobs the carry reads: not kept (issue
		 * 18: up to 26 MB on Debian's series) */
		if (cli.no_refresh && !co.patch_texts)
			tree_keep_read_blobs(j.repo, false);
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
		if (results[i].nr_failed || results[i].risk ||
		    check_adapted_open(&results[i], cli.accept_adapted
							    ? ACCEPT_ALL
							    : ACCEPT_PERSON))
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
	free(stacks_on);
	series_version_release(&v);
	free(cli.args);
	free(cli.name);
	free(cli.version);
	err_release(&err);
	return rc;
}
