/*
 * cmd_report: reports made from reports.  'kcarry report merge' joins the
 * JSON of several 'kcarry check --shard I/N' runs (or any check runs over
 * the same series and targets that together cover every cell) into one
 * report in any format.  'kcarry report diff BASE.json NEW.json' lists
 * what changed between two reports: regressions, fixes, patches newly
 * upstreamed (report_diff.h).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cmds.h"
#include "fs.h"
#include "report_diff.h"
#include "report_html.h"
#include "report_load.h"

#include <jansson.h>
/* kcarry report --help: usage, text, text after the options */
const char report_usage[] =
	"kcarry report merge [--format F] [-o FILE] CHECK.json...\n"
	"       kcarry report diff [--format F] [-o FILE] BASE.json NEW.json";
const char report_help[] =
	"merge: join the JSON reports (kcarry-check/1) of 'kcarry check\n"
	"--shard I/N' runs into one report, as one run of every cell would\n"
	"have written it, in any format: text (default), json, junit,\n"
	"markdown, email, html.  The series are read from the workspace for\n"
	"subjects and authors.\n"
	"diff: what changed from BASE to NEW: regressions, fixes, patches\n"
	"newly upstreamed (text, json, markdown, or html: NEW led by them).\n";
const char report_more[] =
	"exit status: merge as for check: 0 every cell clean, 1 otherwise;\n"
	"diff: 0 no regression, 1 regressions; 2 bad arguments or reports\n"
	"that do not fit together.\n";

struct report_cli {
	int format; /* check_format_names */
	const char *output, *reports;
	enum check_accept accept_adapted;
};

const struct opt report_options[] = {
	OPT_CHECK_FORMATS(struct report_cli, format, output, reports),
	OPT_ACCEPT_ADAPTED(struct report_cli, accept_adapted,
			   "merge: an adapted hunk does not fail (exit\n"
			   "0); =built: only one a build compiled"),
	{ OPT_END },
};

/* paths: the JSON reports */
static int merge(const struct report_cli *cli, const char **paths, size_t nr,
		 struct cli_ctx *cx)
{
	const struct options *opts = cx->opts;
	struct check_report r = { 0 };
	struct check_writer w = { cli->format, false, NULL, opts };
	struct err err = ERR_INIT;
	const char *root = NULL;
	int rc;

	if (!nr)
		return usage_error("report", opts,
				   "name the JSON reports to merge");
	if (cli_workspace(cx, &root, &err) < 0 ||
	    report_load_merge(&r, root, (char *const *)paths, nr, &err) < 0 ||
	    (cli->reports && check_write_all(cli->reports, &w, &r, &err) < 0))
		goto fail;
	w.color = !cli->output && opts->color_out && cli->format == 0;
	if (cli->output ? check_write_to(cli->output, &w, &r, &err) < 0
			: check_write_format(&w, stdout, &r, &err) < 0)
		goto fail;
	/* the same verdict as one check run of every cell */
	rc = check_exit_code(&r);
	if (!rc && check_any_adapted(&r, cli->accept_adapted))
		rc = 1;
	goto out;
fail:
	rc = err_report(&err, opts);
out:
	check_report_release(&r);
	err_release(&err);
	return rc;
}

/* The diff in the format asked for: text, json, markdown or html. */
static int write_diff(const struct report_cli *cli, FILE *out,
		      const json_t *diff, const json_t *cur, struct err *err)
{
	const char *name = check_format_names[cli->format];
	char *text;

	if (!strcmp(name, "html"))
		return report_html_write(out, cur, diff, err);
	if (!strcmp(name, "markdown"))
		report_diff_markdown(out, diff);
	else if (!strcmp(name, "json")) {
		text = json_dumps(diff, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fprintf(out, "%s\n", text ? text : "null");
		free(text);
	} else
		report_diff_text(out, diff);
	return fflush(out) || ferror(out)
		       ? err_set(err, ERR_IO, "cannot write the diff")
		       : 0;
}

static int write_diff_to(const struct report_cli *cli, const json_t *diff,
			 const json_t *cur, struct err *err)
{
	struct fs_atomic a;
	int error;

	if (!cli->output)
		return write_diff(cli, stdout, diff, cur, err);
	if ((error = fs_atomic_open(&a, cli->output, err)) < 0)
		return error;
	if ((error = write_diff(cli, a.f, diff, cur, err)) < 0) {
		fs_atomic_abort(&a);
		return error;
	}
	return fs_atomic_commit(&a, err);
}

/* paths: BASE.json NEW.json; exit 1 when NEW has regressions */
static int diff_reports(const struct report_cli *cli, const char **paths,
			size_t nr, const struct options *opts)
{
	json_t *base = NULL, *cur = NULL, *diff = NULL;
	const char *name = check_format_names[cli->format];
	struct err err = ERR_INIT;
	int rc;

	if (nr != 2)
		return usage_error("report", opts,
				   "report diff takes BASE.json NEW.json");
	if (!strcmp(name, "junit") || !strcmp(name, "email"))
		return usage_error("report", opts,
				   "report diff writes text, json, markdown "
				   "or html");
	if (report_diff_load(&base, paths[0], &err) < 0 ||
	    report_diff_load(&cur, paths[1], &err) < 0)
		goto fail;
	diff = report_diff_compare(base, cur);
	if (write_diff_to(cli, diff, cur, &err) < 0)
		goto fail;
	rc = report_diff_regressions(diff) ? 1 : 0;
	goto out;
fail:
	rc = err_report(&err, opts);
out:
	json_decref(base);
	json_decref(cur);
	json_decref(diff);
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
				 "name a report command (merge, diff)");
	else if (!strcmp(args[0], "merge"))
		rc = merge(&cli, args + 1, nr - 1, cx);
	else if (!strcmp(args[0], "diff"))
		rc = diff_reports(&cli, args + 1, nr - 1, opts);
	else
		rc = usage_error("report", opts, "unknown report command '%s'",
				 args[0]);
	free(args);
	return rc;
}
