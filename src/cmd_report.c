/*
 * cmd_report: reports made from reports.  'kcarry report merge' joins the
 * JSON of several 'kcarry check --shard I/N' runs (or any check runs over
 * the same series and targets that together cover every cell) into one
 * report in any format.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cmds.h"
#include "report_load.h"

static int merge(int argc, char **argv, const struct options *opts)
{
	struct check_report r = { 0 };
	struct err err = ERR_INIT;
	const char *output = NULL, *reports = NULL;
	char **paths = xcalloc((size_t)argc + 1, sizeof(char *));
	size_t nr = 0;
	char *root = NULL;
	int format = 0, rc;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--format") || !strcmp(a, "-f") ||
		    !strncmp(a, "--format=", 9)) {
			const char *v = a[2] == 'f' && a[8] == '=' ? a + 9 : NULL;
			if (!v && ++i >= argc) {
				rc = usage_error("report", opts,
						 "--format needs a format");
				goto out;
			}
			if ((format = check_parse_format(v ? v : argv[i], &err)) <
			    0) {
				rc = usage_error("report", opts, "%s", err.msg.ptr);
				goto out;
			}
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output") ||
			   !strcmp(a, "--reports")) {
			if (++i >= argc) {
				rc = usage_error("report", opts, "%s needs a path",
						 a);
				goto out;
			}
			if (a[2] == 'r')
				reports = argv[i];
			else
				output = argv[i];
		} else if (a[0] == '-' && a[1]) {
			rc = usage_error("report", opts, "unknown option '%s'", a);
			goto out;
		} else
			paths[nr++] = argv[i];
	}
	if (!nr) {
		rc = usage_error("report", opts, "name the JSON reports to merge");
		goto out;
	}
	if (workspace_find(&root, opts, &err) < 0 ||
	    report_load_merge(&r, root, paths, nr, &err) < 0 ||
	    (reports && check_write_all(reports, &r, opts, &err) < 0))
		goto fail;
	if (output) {
		if (check_write_to(output, format, &r, opts, &err) < 0)
			goto fail;
	} else if (check_write_format(format, stdout, &r, opts,
				      opts->color_out && format == 0, &err) < 0)
		goto fail;
	rc = check_exit_code(&r);
	goto out;
fail:
	rc = err_report(&err, opts);
out:
	check_report_release(&r);
	free(paths);
	free(root);
	err_release(&err);
	return rc;
}

int cmd_report(int argc, char **argv, const struct options *opts)
{
	if (argc < 2)
		return usage_error("report", opts, "name a report command "
				   "(merge)");
	if (!strcmp(argv[1], "merge"))
		return merge(argc - 1, argv + 1, opts);
	return usage_error("report", opts, "unknown report command '%s'",
			   argv[1]);
}
