/*
 * adapt_move: adaptation rule 1, moved code (issue 18).  A file patch
 * whose file is missing, or whose every hunk conflicts in a function its
 * file no longer defines, is tried on the other files of its folder (and
 * of its name nearby), as the patch has left them: it needs the tree, so
 * carry.c calls it with a reader of those files.
 */
#ifndef KCARRY_ADAPT_MOVE_H
#define KCARRY_ADAPT_MOVE_H

#include "apply.h"
#include "tree.h"

struct overlay;

/* What adapt_moved() looks in. */
struct moved_ctx {
	/* path as the patch has left it so far (carry.c's overlay) */
	int (*read)(struct buf *out, bool *exists, unsigned *mode,
		    const char *path, const struct moved_ctx *mc,
		    struct err *err);
	struct overlay *ov;
	struct tree_repo *repo;
	const struct tree_oid *tree;
	const struct apply_opts *apply;
};

/*
 * Rule 1: pf's file is missing; the one file of the same folder with the
 * same extension to which every hunk of pf applies exactly (offsets
 * allowed, no fuzz, no merge, no risk) takes it: *ar becomes that result,
 * every hunk adapted, and *moved_to that path.  When no file of the
 * folder takes it, the files of the same name under the folder above
 * (the file moved into a subfolder, or out of one: arch/arm/boot/dts/
 * into arch/arm/boot/dts/marvell/ in 6.5) are tried the same way.  Two
 * such files: it stays a conflict (a file that exists twice).  gone: the
 * file exists but lacks the hunks' function (functions_gone): only the
 * folder is tried.
 */
int adapt_moved(struct apply_file_result *ar, char **moved_to,
		unsigned *mode, const struct patch_file *pf, const char *gone,
		struct moved_ctx *mc, struct err *err);

#endif
