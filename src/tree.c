#include "tree.h"

#include <git2.h>
#include <stdlib.h>
#include <string.h>

struct tree_repo {
	git_repository *repo;
	char *path;
};

/* libgit2's last error text, for "our words: <libgit2 text>" messages. */
static const char *git_text(void)
{
	const git_error *e = git_error_last();
	return e && e->message ? e->message : "unknown libgit2 error";
}

int tree_global_init(struct err *err)
{
	if (git_libgit2_init() < 0)
		return err_set(err, ERR_IO, "cannot initialise libgit2: %s",
			       git_text());
	return 0;
}

void tree_global_shutdown(void)
{
	git_libgit2_shutdown();
}

int tree_merge_file(struct buf *out, bool *conflicts, struct span base,
		    struct span ours, struct span theirs,
		    const struct tree_merge_labels *labels, struct err *err)
{
	git_merge_file_input in_base = GIT_MERGE_FILE_INPUT_INIT;
	git_merge_file_input in_ours = GIT_MERGE_FILE_INPUT_INIT;
	git_merge_file_input in_theirs = GIT_MERGE_FILE_INPUT_INIT;
	git_merge_file_options opts = GIT_MERGE_FILE_OPTIONS_INIT;
	git_merge_file_result res = { 0 };

	in_base.ptr = base.ptr ? base.ptr : "";
	in_base.size = base.len;
	in_ours.ptr = ours.ptr ? ours.ptr : "";
	in_ours.size = ours.len;
	in_theirs.ptr = theirs.ptr ? theirs.ptr : "";
	in_theirs.size = theirs.len;
	opts.flags = GIT_MERGE_FILE_STYLE_DIFF3;
	if (labels) {
		opts.ancestor_label = labels->ancestor;
		opts.our_label = labels->ours;
		opts.their_label = labels->theirs;
	}
	if (git_merge_file(&res, &in_base, &in_ours, &in_theirs, &opts) < 0)
		return err_set(err, ERR_IO, "cannot merge: %s", git_text());
	buf_reset(out);
	buf_add(out, res.ptr, res.len);
	*conflicts = !res.automergeable;
	git_merge_file_result_free(&res);
	return 0;
}
