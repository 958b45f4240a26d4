/*
 * cmd_refresh: take a resolution back from resolve's scratch folder,
 * record it, and carry the rest of the series on.
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
#include "resolve.h"

/* kcarry refresh --help: usage, text, text after the options */
const char refresh_usage[] =
	"kcarry refresh NAME[@VERSION] TARGET";
const char refresh_help[] =
	"Take the resolution back from the scratch folder (refused while\n"
	"conflict markers remain), record it under\n"
	"patches/NAME/.resolutions/FINGERPRINT.patch, apply the whole series\n"
	"again with it, move kcarry/NAME/VERSION/TARGET and write the\n"
	"refreshed series to patches/NAME/VERSION/TARGET/.  A recorded\n"
	"resolution is replayed wherever the same patch meets the same file\n"
	"contents again: later versions of the series, other targets.\n"
	"When the files are kcarry's proposal for an adapted patch as resolve\n"
	"showed it, the acceptance is recorded instead\n"
	"(patches/NAME/.resolutions/FINGERPRINT.accepted): the patch stays\n"
	"adapted, its note kept in the refreshed patch, and no longer makes\n"
	"the exit status 1 while the same proposal meets the same files.\n"
	"Without a pending resolution, it re-applies and rewrites the\n"
	"refreshed series.\n";
const char refresh_more[] =
	"exit status as for apply.\n";

const struct opt refresh_options[] = {
	{ OPT_END },
};

int cmd_refresh(int argc, char **argv, struct cli_ctx *cx)
{
	const struct options *opts = cx->opts;
	struct err err = ERR_INIT;
	struct resolve_cell rc = { 0 };
	struct resolve_state st = { 0 };
	struct buf text = BUF_INIT;
	const struct series_version *v = &rc.v;
	const char **args = NULL;
	size_t nr = 0;
	int rc_exit = EXIT_DONE, error;

	if (cli_parse("refresh", refresh_options, NULL, argc, argv, &args, &nr,
		      opts) < 0) {
		rc_exit = EXIT_USAGE;
		goto out;
	}
	if (nr != 2) {
		rc_exit = usage_error("refresh", opts,
				      "expected NAME[@VERSION] TARGET");
		goto out;
	}
	if (resolve_cell_open(&rc, args[0], args[1], RESOLVE_CELL_TARGET, cx,
			      &err) < 0)
		goto fail;
	error = resolve_load(&st, rc.dir, &err);
	if (error < 0 && error != ERR_NOTFOUND)
		goto fail;
	if (!error) {
		if (!st.index || st.index > v->nr ||
		    strcmp(v->items[st.index - 1].file, st.patch_file)) {
			err_set(&err, ERR_NOTFOUND,
				"%s: the pending resolution names %s, which "
				"%s@%s does not have",
				rc.dir, st.patch_file, v->name, v->version);
			goto fail;
		}
		bool accepted;

		if (resolve_collect(&text, &accepted, &st, rc.j.repo,
				    &v->items[st.index - 1], &err) < 0 ||
		    (accepted ? resolve_record_acceptance(rc.root, v->name,
							  &st, &err)
			      : series_write_resolution(
					rc.root, v->name, st.fingerprint,
					text.ptr, text.len, &err)) < 0)
			goto fail;
		note(opts, "recorded the %s of %s (%.12s)",
		     accepted ? "acceptance of kcarry's adaptation"
			      : "resolution",
		     st.patch_file, st.fingerprint);
	}
	if (job_carry(&rc.res, &rc.j, v, &rc.co, true, &err) < 0)
		goto fail;
	if (!error) {
		struct err e2 = ERR_INIT;
		resolve_discard(rc.dir, &e2);
		err_release(&e2);
	}
	{
		struct report_opts ro = { opts->color_out, opts->verbosity };
		report_apply_text(stdout, &rc.res, &ro);
		printf("refreshed series: patches/%s/%s/%s/\n", v->name,
		       v->version, rc.j.target.name);
	}
	if (rc.res.nr_failed || rc.res.risk ||
	    check_adapted_open(&rc.res, ACCEPT_PERSON))
		rc_exit = EXIT_NOT_DONE;
	goto out;
fail:
	rc_exit = err_report(&err, opts);
out:
	resolve_state_release(&st);
	resolve_cell_close(&rc);
	buf_release(&text);
	free(args);
	err_release(&err);
	return rc_exit;
}
