/*
 * cmd_gc: free the build folders and the identifier cache.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "build.h"
#include "cmds.h"
#include "fs.h"
#include "job.h"

/* kcarry gc --help: usage, text, text after the options */
const char gc_usage[] =
	"kcarry gc [--dry-run] [TARGET...]";
const char gc_help[] =
	"Remove the build folders of the named targets under <cache>/build/:\n"
	"the source folder, the O= folders, cached base-build diagnostics.\n"
	"Without names, every build folder and the identifier cache\n"
	"(<cache>/ident, what the trees' shared headers declare) go.  Cached\n"
	"trees, downloads and the ccache stay.  The next build starts from\n"
	"scratch; the next check scans the headers again.  A name that is\n"
	"neither built nor a target of the workspace is an error.\n";
const char gc_more[] =
	"exit status: 0 freed (or nothing to free); 2 an unknown target;\n"
	"3 I/O trouble.\n";

struct gc_cli {
	bool dry_run;
};

const struct opt gc_options[] = {
	{ OPT_FLAG, 0, "dry-run", NULL,
	  "list what would be freed, with sizes; free nothing",
	  offsetof(struct gc_cli, dry_run) },
	{ OPT_END },
};

int cmd_gc(int argc, char **argv, struct cli_ctx *cx)
{
	const struct options *opts = cx->opts;
	struct gc_cli cli = { 0 };
	struct err err = ERR_INIT;
	struct build_gc_result res = { 0 };
	struct build_gc_opts go = { 0 };
	char *ident = job_ident_dir(), **known = NULL;
	const char *root = NULL;
	const char **args = NULL;
	size_t nr = 0, nk = 0;
	int rc = EXIT_DONE;

	if (cli_parse("gc", gc_options, &cli, argc, argv, &args, &nr, opts) <
	    0) {
		rc = EXIT_USAGE;
		goto out;
	}
	if (nr) {
		/* in a workspace, a target never built has nothing to free:
		 * no error */
		struct err e2 = ERR_INIT;
		if (cli_workspace(cx, &root, &e2) == 0 &&
		    target_list(root, &known, &nk, &e2) < 0) {
			known = NULL;
			nk = 0;
		}
		err_release(&e2);
	}
	go.targets = (char *const *)args;
	go.nr_targets = nr;
	go.known = known;
	go.nr_known = nk;
	go.also = ident;
	go.dry_run = cli.dry_run;
	if (build_gc(&res, &go, &err) < 0) {
		rc = err_report(&err, opts);
		goto out;
	}
	if (!res.nr)
		printf("nothing to free\n");
	for (size_t i = 0; i < res.nr; i++)
		printf("%s %5.1f MB  %s\n", cli.dry_run ? "would free" : "freed",
		       (double)res.entries[i].bytes / (1024.0 * 1024.0),
		       res.entries[i].path);
	if (res.nr)
		printf("%s %5.1f MB in all\n",
		       cli.dry_run ? "would free" : "freed",
		       (double)res.bytes / (1024.0 * 1024.0));
out:
	build_gc_result_release(&res);
	fs_free_list(known, nk);
	free(args);
	free(ident);
	err_release(&err);
	return rc;
}
