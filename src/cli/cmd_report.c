/*
 * cmd_report: reports made from reports.  'kcarry report merge' joins the
 * JSON of several 'kcarry check --shard I/N' runs (or any check runs over
 * the same series and targets that together cover every cell) into one
 * report in any format.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cmds.h"
#include "report_load.h"

/* kcarry report --help: usage, text, text after the options */
const char report_usage[] =
	"kcarry report merge [--format F] [-o FILE] CHECK.json...";
const char report_help[] =
	"Join the JSON reports (kcarry-check/1) of 'kcarry check --shard I/N'\n"
	"runs into one report, as one run of every cell would have written it,\n"
	"in any format: text (default), json, junit, markdown, email.  The\n"
	"series are read from the workspace for subjects and authors.\n";
const char report_more[] =
	"exit status as for check: 0 every cell clean, 1 otherwise; 2 bad\n"
	"arguments or reports that do not fit together.\n";

struct report_cli {
	int format; /* check_format_names */
	const char *output, *reports;
};

const struct opt report_options[] = {
	OPT_CHECK_FORMATS(struct report_cli, format, output, reports),
	{ OPT_END },
};

/* paths: the JSON reports */
static int merge(const struct report_cli *cli, const char **paths, size_t nr,
		 struct cli_ctx *cx)
{
	const struct options *opts = cx->opts;
	struct check_report r = { 0 };
	struct err err = ERR_INIT;
	const char *root = NULL;
	int rc;

	if (!nr)
		return usage_error("report", opts,
				   "name the JSON reports to merge");
	if (cli_workspace(cx, &root, &err) < 0 ||
	    report_load_merge(&r, root, (char *const *)paths, nr, &err) < 0 ||
	    (cli->reports && check_write_all(cli->reports, &r, opts, &err) < 0))
		goto fail;
	if (cli->output) {
		if (check_write_to(cli->output, cli->format, &r, opts, &err) <
		    0)
			goto fail;
	} else if (check_write_format(cli->format, stdout, &r, opts,
				      opts->color_out && cli->format == 0,
				      &err) < 0)
		goto fail;
	rc = check_exit_code(&r);
	goto out;
fail:
	rc = err_report(&err, opts);
out:
	check_report_release(&r);
	err_release(&err);
	return rc;
}

int cmd_report(int argc, char **argv, struct cli_ctx *cx)
{
	const struct options *opts = cx->opts;
	struct report_cli cli = { 0 };
	const char **args = NULL;
	size_t nr = 0;
	int rc;

	if (cli_parse("report", report_options, &cli, argc, argv, &args, &nr,
		      opts) < 0)
		rc = EXIT_USAGE;
	else if (!nr)
		rc = usage_error("report", opts,
				 "name a report command (merge)");
	else if (!strcmp(args[0], "merge"))
		rc = merge(&cli, args + 1, nr - 1, cx);
	else
		rc = usage_error("report", opts, "unknown report command '%s'",
				 args[0]);
	free(args);
	return rc;
}
