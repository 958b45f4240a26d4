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

int tree_open(struct tree_repo **out, const char *path, struct err *err)
{
	struct tree_repo *r;
	git_repository *repo = NULL;

	*out = NULL;
	if (git_repository_open_ext(&repo, path, GIT_REPOSITORY_OPEN_NO_SEARCH,
				    NULL) < 0)
		return err_set(err, ERR_IO, "cannot open repository '%s': %s",
			       path, git_text());
	r = xcalloc(1, sizeof(*r));
	r->repo = repo;
	r->path = xstrdup(path);
	*out = r;
	return 0;
}

void tree_close(struct tree_repo *r)
{
	if (!r)
		return;
	git_repository_free(r->repo);
	free(r->path);
	free(r);
}

const char *tree_path(const struct tree_repo *r)
{
	return r->path;
}

int tree_read_blob_by_id(struct buf *out, struct tree_repo *r,
			 const char *hex, struct err *err)
{
	git_oid oid;
	git_blob *blob = NULL;
	size_t len = strlen(hex);
	int rc;

	if (len < 4 || len > GIT_OID_HEXSZ ||
	    git_oid_fromstrn(&oid, hex, len) < 0)
		return err_set(err, ERR_PARSE, "'%s' is not an object id", hex);
	rc = git_blob_lookup_prefix(&blob, r->repo, &oid, len);
	if (rc == GIT_ENOTFOUND || rc == GIT_EAMBIGUOUS)
		return err_set(err, ERR_NOTFOUND, "no blob '%s' in '%s'", hex,
			       r->path);
	if (rc < 0)
		return err_set(err, ERR_IO, "cannot read blob '%s': %s", hex,
			       git_text());
	buf_reset(out);
	buf_add(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	git_blob_free(blob);
	return 0;
}

void tree_commit_patches_free(struct tree_commit_patch *p, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		buf_release(&p[i].text);
	free(p);
}

int tree_range_patches(struct tree_commit_patch **out, size_t *nr,
		       struct tree_repo *r, const char *range,
		       struct err *err)
{
	git_revwalk *walk = NULL;
	git_oid oid;
	size_t alloc = 0;
	int rc, error = 0;

	*out = NULL;
	*nr = 0;
	if (!strstr(range, ".."))
		return err_set(err, ERR_USAGE,
			       "'%s' is not a range (expected A..B)", range);
	if (git_revwalk_new(&walk, r->repo) < 0 ||
	    git_revwalk_push_range(walk, range) < 0) {
		error = err_set(err, ERR_NOTFOUND,
				"cannot resolve range '%s' in '%s': %s", range,
				r->path, git_text());
		goto out;
	}
	git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
	while ((rc = git_revwalk_next(&oid, walk)) == 0) {
		git_commit *commit = NULL;
		git_buf email = GIT_BUF_INIT;
		git_email_create_options eo = GIT_EMAIL_CREATE_OPTIONS_INIT;
		struct tree_commit_patch *p;

		if (git_commit_lookup(&commit, r->repo, &oid) < 0) {
			error = err_set(err, ERR_IO, "cannot read commit: %s",
					git_text());
			goto out;
		}
		if (git_commit_parentcount(commit) > 1) {
			git_commit_free(commit);
			continue; /* merges carry no patch of their own */
		}
		eo.flags = GIT_EMAIL_CREATE_OMIT_NUMBERS;
		eo.diff_opts.flags |= GIT_DIFF_SHOW_BINARY;
		if (git_email_create_from_commit(&email, commit, &eo) < 0) {
			error = err_set(err, ERR_IO,
					"cannot format commit %s: %s",
					git_oid_tostr_s(&oid), git_text());
			git_commit_free(commit);
			goto out;
		}
		ALLOC_GROW(*out, *nr + 1, alloc);
		p = &(*out)[(*nr)++];
		git_oid_tostr(p->id, sizeof(p->id), &oid);
		buf_init(&p->text, 0);
		buf_add(&p->text, email.ptr, email.size);
		git_buf_dispose(&email);
		git_commit_free(commit);
	}
	if (rc != GIT_ITEROVER && !error)
		error = err_set(err, ERR_IO, "cannot walk '%s': %s", range,
				git_text());
	if (!error && !*nr)
		error = err_set(err, ERR_NOTFOUND, "range '%s' has no commits",
				range);
out:
	git_revwalk_free(walk);
	if (error) {
		tree_commit_patches_free(*out, *nr);
		*out = NULL;
		*nr = 0;
	}
	return error;
}
