/*
 * cmd_init: create an empty workspace.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "fs.h"

/* kcarry init --help: usage, text, text after the options */
const char init_usage[] =
	"kcarry init [DIR]";
const char init_help[] =
	"Create series/, kernels/ and patches/ in DIR (default: the current\n"
	"directory).  An existing workspace is left as it is.\n";

static const char readme[] =
	"# kcarry workspace\n"
	"\n"
	"series/   one NAME.conf per tracked series (git-config syntax)\n"
	"kernels/  one TARGET.conf per target tree (git-config syntax)\n"
	"patches/  patches/NAME/VERSION/ imported versions (quilt layout)\n";

const struct opt init_options[] = {
	{ OPT_END },
};

int cmd_init(int argc, char **argv, struct cli_ctx *cx)
{
	const struct options *opts = cx->opts;
	static const char *const dirs[] = { "series", "kernels", "patches" };
	struct err err = ERR_INIT;
	const char **args = NULL;
	size_t nr = 0;
	char *root = NULL;
	bool created = false;
	int rc = EXIT_DONE;

	if (cli_parse("init", init_options, NULL, argc, argv, &args, &nr,
		      opts) < 0) {
		rc = EXIT_USAGE;
		goto out;
	}
	if (nr > 1) {
		rc = usage_error("init", opts, "too many arguments");
		goto out;
	}
	root = fs_absolute(nr ? args[0] : ".");
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char *d = fs_join(root, dirs[i]);
		if (!fs_is_dir(d)) {
			created = true;
			if (fs_mkdirs(d, &err) < 0) {
				free(d);
				rc = err_report(&err, opts);
				goto out;
			}
		}
		free(d);
	}
	{
		char *r = fs_join(root, "README.kcarry");
		if (created && !fs_is_file(r) &&
		    fs_write_atomic(r, readme, strlen(readme), &err) < 0)
			rc = err_report(&err, opts);
		free(r);
	}
	if (rc == EXIT_DONE)
		printf("%s kcarry workspace in %s\n",
		       created ? "Initialized empty" : "Reinitialized existing",
		       root);
out:
	free(args);
	free(root);
	err_release(&err);
	return rc;
}
