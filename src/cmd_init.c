/*
 * cmd_init: create an empty workspace.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "fs.h"

static const char readme[] =
	"# kcarry workspace\n"
	"\n"
	"series/   one NAME.conf per tracked series (git-config syntax)\n"
	"kernels/  one TARGET.conf per target tree (git-config syntax)\n"
	"patches/  patches/NAME/VERSION/ imported versions (quilt layout)\n";

int cmd_init(int argc, char **argv, const struct options *opts)
{
	static const char *const dirs[] = { "series", "kernels", "patches" };
	struct err err = ERR_INIT;
	const char *dir = ".";
	char *root = NULL;
	bool created = false;
	int rc = EXIT_DONE;

	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '-' && argv[i][1])
			return usage_error("init", opts, "unknown option '%s'",
					   argv[i]);
		if (dir != argv[i] && strcmp(dir, "."))
			return usage_error("init", opts, "too many arguments");
		dir = argv[i];
	}
	root = fs_absolute(dir);
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
	free(root);
	err_release(&err);
	return rc;
}
