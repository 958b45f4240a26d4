/*
 * adapt_move: adaptation rule 1, moved code (issue 18).  A file patch
 * whose file is missing, or whose hunks conflict in functions its file
 * no longer defines, is tried on the other files of its folder (and of
 * its name nearby), as the patch has left them: it needs the tree, so
 * carry.c calls it, on every file patch that conflicts, with a reader of
 * those files.
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

/* A file rule 1 wrote hunk by hunk: its path, mode and new content. */
struct moved_file {
	char *path;
	unsigned mode;
	struct buf text;
};

/* Where rule 1 moved a file patch (moved_out_release). */
struct moved_out {
	/* the file taking every hunk, or the first one a hunk went to;
	 * NULL: nothing moved */
	char *moved_to;
	unsigned mode; /* the file taking every hunk: its mode */
	/*
	 * Hunk by hunk (a file split in several, or keeping some hunks):
	 * per hunk of the file patch, the file it went to (NULL: it stays,
	 * in the file that keeps it), and the files written with their new
	 * content (that file too); NULL and 0 otherwise, when the result's
	 * out is moved_to's new content.
	 */
	char **hunk_to;
	size_t nr_hunks;
	struct moved_file *files;
	size_t nr_files, alloc_files;
};

void moved_out_release(struct moved_out *o);

/*
 * Rule 1: pf's file is missing; the one file of the same folder with the
 * same extension to which every hunk of pf applies exactly (offsets
 * allowed, no fuzz, no merge, no risk) takes it: *ar becomes that result,
 * every hunk adapted, and out->moved_to that path.  When no file of the
 * folder takes it, the files of the same name under the folder above
 * (the file moved into a subfolder, or out of one: arch/arm/boot/dts/
 * into arch/arm/boot/dts/marvell/ in 6.5) are tried the same way; when
 * that folder is missing too (a vendor folder put in between:
 * drivers/media/platform/samsung/s5p-mfc/ in 6.1), the files ending with
 * its folder and name under the nearest folder above that the tree has.
 * Two such files: it stays a conflict (a file that exists twice).  gone: the
 * file exists but lacks the hunks' function (carry.c's functions_gone):
 * only the folder is tried.
 *
 * When no file takes it (a C file split in several: i915_irq.c into
 * display/ files), hunk by hunk: each hunk goes to the one file with the
 * extension under the folder (recursively; for a missing file, under
 * the folder above when that finds more) that defines the function its
 * header names (a C file: with its body), where it applies exactly.  A
 * hunk whose function two files define, or none, or whose lines do not
 * stand there stays a conflict in *ar, and so does the file then; the
 * others are adapted (out->hunk_to, out->files).
 *
 * A file that exists and keeps some hunks (gone NULL: ioctl.c after
 * btrfs moved its defrag code into defrag.c): its conflicting hunks
 * whose function it no longer defines are placed the same way, the
 * others stay; out->files then holds that file's new text too.
 *
 * Declined, each hunk rule 1 looked at has why appended to its reason
 * ("not moved: F() is defined in both A and B", ...).
 */
int adapt_moved(struct apply_file_result *ar, struct moved_out *out,
		const struct patch_file *pf, const char *gone,
		struct moved_ctx *mc, struct err *err);

#endif
