/*
 * tree: target trees and repositories through libgit2: opening
 * repositories, resolving refs, reading blobs, writing trees and commits on
 * kcarry branches, walking commit ranges, and libgit2's merge-file for
 * 3-way merges.  The only module (with conf.c) that includes <git2.h>.
 */
#ifndef KCARRY_TREE_H
#define KCARRY_TREE_H

#include "err.h"

struct tree_repo; /* an open repository */

int tree_global_init(struct err *err);
void tree_global_shutdown(void);

/*
 * 3-way merge of whole texts with libgit2's merge-file (diff3 markers with
 * the given labels on conflict).  *conflicts is set to true when markers
 * were written.  Needs no repository.
 */
struct tree_merge_labels {
	const char *ancestor, *ours, *theirs;
};
int tree_merge_file(struct buf *out, bool *conflicts, struct span base,
		    struct span ours, struct span theirs,
		    const struct tree_merge_labels *labels, struct err *err);

int tree_open(struct tree_repo **out, const char *path, struct err *err);
void tree_close(struct tree_repo *r);
const char *tree_path(const struct tree_repo *r);

/*
 * Read the blob whose (possibly abbreviated, at least 7 hex digits) id is
 * hex.  ERR_NOTFOUND when the repository does not hold it.
 */
int tree_read_blob_by_id(struct buf *out, struct tree_repo *r,
			 const char *hex, struct err *err);

/* One commit of a range, as git format-patch would write it. */
struct tree_commit_patch {
	char id[41];
	struct buf text; /* git format-patch form */
};

/* Commits of A..B (oldest first), each as format-patch text. */
int tree_range_patches(struct tree_commit_patch **out, size_t *nr,
		       struct tree_repo *r, const char *range,
		       struct err *err);
void tree_commit_patches_free(struct tree_commit_patch *p, size_t nr);

#endif
