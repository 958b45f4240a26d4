/*
 * cmd_kernels: the targets of the workspace and whether each tree is
 * ready (cloned, imported) or will be fetched on first use.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "target.h"

/* kcarry kernels --help: usage, text, text after the options */
const char kernels_usage[] =
	"kcarry kernels [--prepare]\n"
	"   or: kcarry kernels --path TARGET";
const char kernels_help[] =
	"One line per kernels/TARGET.conf: kind (local repository, remote\n"
	"git URL, tarball), state (ready, or fetched on first use) and\n"
	"source.\n";

struct kernels_cli {
	bool prepare;
	const char *path_of;
};

const struct opt kernels_options[] = {
	{ OPT_FLAG, 0, "prepare", NULL,
	  "clone, download or import every tree now",
	  offsetof(struct kernels_cli, prepare) },
	{ OPT_STRING, 0, "path", "TARGET",
	  "print the path of TARGET's repository (where its\n"
	  "kcarry branches are), for scripts",
	  offsetof(struct kernels_cli, path_of) },
	{ OPT_END },
};

int cmd_kernels(int argc, char **argv, struct cli_ctx *cx)
{
	const struct options *opts = cx->opts;
	struct err err = ERR_INIT;
	const char *root = NULL;
	char **names = NULL;
	struct kernels_cli cli = { 0 };
	const char **args = NULL;
	size_t nr = 0, nr_args = 0;
	int rc = EXIT_DONE;

	if (cli_parse("kernels", kernels_options, &cli, argc, argv, &args,
		      &nr_args, opts) < 0) {
		rc = EXIT_USAGE;
		goto out;
	}
	if (nr_args) {
		rc = usage_error("kernels", opts, "unknown argument '%s'",
				 args[0]);
		goto out;
	}
	if (cli.path_of) {
		/* for scripts: where the target's repository is */
		struct target t;
		if (cli_workspace(cx, &root, &err) < 0 ||
		    target_load(&t, root, cli.path_of, &err) < 0) {
			rc = err_report(&err, opts);
			goto out;
		}
		printf("%s\n", t.repo_path);
		target_release(&t);
		goto out;
	}
	if (cli_workspace(cx, &root, &err) < 0 ||
	    target_list(root, &names, &nr, &err) < 0) {
		rc = err_report(&err, opts);
		goto out;
	}
	if (!nr) {
		note(opts, "no targets yet: add kernels/NAME.conf");
		goto out;
	}
	printf("%-12s %-8s %-9s %s\n", "TARGET", "KIND", "STATE", "SOURCE");
	for (size_t i = 0; i < nr; i++) {
		struct target t;
		char *detail = NULL;
		bool ready;

		if (target_load(&t, root, names[i], &err) < 0) {
			rc = err_report(&err, opts);
			err_release(&err);
			continue;
		}
		if (cli.prepare) {
			struct tree_repo *r = NULL;
			struct tree_oid base;
			note(opts, "%s: preparing the tree", t.name);
			if (target_prepare(&r, &base, &t, NULL, &err) < 0) {
				rc = err_report(&err, opts);
				err_release(&err);
			}
			tree_close(r);
		}
		ready = target_ready(&t, &detail);
		if (t.kind == TARGET_TARBALL)
			printf("%-12s %-8s %-9s %s\n", t.name, "tarball",
			       ready ? "ready" : "not yet", t.tarball);
		else
			printf("%-12s %-8s %-9s %s %s\n", t.name,
			       t.kind == TARGET_LOCAL ? "local" : "remote",
			       ready ? "ready" : "not yet", t.url, t.ref);
		if (opts->verbosity > 0 || !ready)
			printf("%-12s %s (%s)\n", "", detail ? detail : "",
			       t.repo_path);
		free(detail);
		target_release(&t);
	}
out:
	for (size_t i = 0; i < nr; i++)
		free(names[i]);
	free(names);
	free(args);
	err_release(&err);
	return rc;
}
