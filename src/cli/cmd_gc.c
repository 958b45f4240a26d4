/*
 * cmd_gc: free the build folders and the identifier cache, and remove
 * the build refusals that can no longer apply (resolve_gc_refusals).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "build.h"
#include "cmds.h"
#include "fs.h"
#include "job.h"
#include "resolve.h"

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
	"neither built nor a target of the workspace is an error.\n"
	"\n"
	"In a workspace, the records of adaptations a build refused\n"
	"(patches/NAME/.resolutions/KEY.refused) that can no longer apply go\n"
	"too (with names, those of the named targets): a target gone from\n"
	"kernels/, a series version gone from patches/, a patch fingerprint\n"
	"no patch of that version has on the tree the record names.  A live\n"
	"record stays, and so does one gc cannot judge (an older record that\n"
	"does not name its series; --dry-run and -v list them as kept).\n";
const char gc_more[] =
	"exit status: 0 freed (or nothing to free); 2 an unknown target;\n"
	"3 I/O trouble.\n";

struct gc_cli {
	bool dry_run;
};

const struct opt gc_options[] = {
	{ OPT_FLAG, 0, "dry-run", NULL,
	  "list what would be freed or removed; do neither",
	  offsetof(struct gc_cli, dry_run) },
	{ OPT_END },
};

/* The refusal records gc removed (or would), and, with --dry-run or
 * -v, those it kept; how many it removed. */
static size_t print_refusals(const struct resolve_gc_result *rg,
			     bool dry_run, int verbosity)
{
	size_t removed = 0;

	for (size_t i = 0; i < rg->nr; i++) {
		const struct resolve_gc_entry *e = &rg->entries[i];

		if (e->stale)
			removed++;
		if (e->stale || dry_run || verbosity > 0)
			printf("%s %s: %s\n",
			       !e->stale ? "kept"
			       : dry_run ? "would remove"
					 : "removed",
			       e->path, e->why);
	}
	return removed;
}

int cmd_gc(int argc, char **argv, struct cli_ctx *cx)
{
	const struct options *opts = cx->opts;
	struct gc_cli cli = { 0 };
	struct err err = ERR_INIT;
	struct build_gc_result res = { 0 };
	struct resolve_gc_result rg = { 0 };
	struct lock wl = LOCK_INIT;
	struct build_gc_opts go = { 0 };
	char *ident = job_ident_dir(), **known = NULL;
	const char *root = NULL;
	const char **args = NULL;
	size_t nr = 0, nk = 0, removed = 0;
	int rc = EXIT_DONE;

	if (cli_parse("gc", gc_options, &cli, argc, argv, &args, &nr, opts) <
	    0) {
		rc = EXIT_USAGE;
		goto out;
	}
	{
		/* outside a workspace gc frees the cache alone; in one, a
		 * target never built has nothing to free: no error */
		struct err e2 = ERR_INIT;
		if (cli_workspace(cx, &root, &e2) < 0)
			root = NULL;
		else if (nr && target_list(root, &known, &nk, &e2) < 0) {
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
	for (size_t i = 0; i < res.nr; i++)
		printf("%s %5.1f MB  %s\n", cli.dry_run ? "would free" : "freed",
		       (double)res.entries[i].bytes / (1024.0 * 1024.0),
		       res.entries[i].path);
	if (res.nr)
		printf("%s %5.1f MB in all\n",
		       cli.dry_run ? "would free" : "freed",
		       (double)res.bytes / (1024.0 * 1024.0));
	if (root) {
		struct resolve_gc_opts ro = { root, (char *const *)args, nr,
					      cli.dry_run };

		/* removing records writes the workspace: not beside a check
		 * or an import (a dry run writes nothing: no lock) */
		if ((!cli.dry_run &&
		     workspace_lock(&wl, root, opts, &err) < 0) ||
		    resolve_gc_refusals(&rg, &ro, &err) < 0) {
			/* what was removed before the trouble */
			print_refusals(&rg, cli.dry_run, opts->verbosity);
			rc = err_report(&err, opts);
			goto out;
		}
		removed = print_refusals(&rg, cli.dry_run, opts->verbosity);
	}
	if (!res.nr && !removed)
		printf("nothing to free\n");
out:
	lock_release(&wl);
	resolve_gc_result_release(&rg);
	build_gc_result_release(&res);
	fs_free_list(known, nk);
	free(args);
	free(ident);
	err_release(&err);
	return rc;
}
