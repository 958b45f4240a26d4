#include "adapt_move.h"

#include <stdlib.h>
#include <string.h>

#include "adapt.h"

/* Files of one folder probed at most (fs/btrfs: 60 .c, 40 .h). */
#define MOVED_MAX_FILES 256

/* Whether every hunk of pf applies exactly (or offset) to text. */
static bool holds_exactly(struct apply_file_result *res,
			  const struct patch_file *pf, struct span text,
			  const struct apply_opts *opts)
{
	struct apply_opts ao = *opts;
	struct err err = ERR_INIT;
	bool ok;

	ao.no_3way = true;
	ao.no_adapt = true;
	ao.markers = false;
	ao.fuzz = 0;
	apply_file_result_init(res);
	ok = apply_file(res, pf, text, true, &ao, &err) == 0 &&
	     (res->outcome == OUTCOME_CLEAN ||
	      res->outcome == OUTCOME_OFFSET) &&
	     !res->risk;
	err_release(&err);
	return ok;
}

/* The folder of path ("" at the top) and its extension (".h"), or NULL. */
static char *folder_of(const char *path, const char **ext)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;

	*ext = strrchr(base, '.');
	return xstrndup(path, slash ? (size_t)(slash - path) : 0);
}

/* Whether paths a and b are in the same folder. */
static bool same_folder(const char *a, const char *b)
{
	const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
	size_t la = sa ? (size_t)(sa - a) : 0, lb = sb ? (size_t)(sb - b) : 0;

	return la == lb && !memcmp(a, b, la);
}

/*
 * Mark every hunk of res moved from pf's path to path; gone: the function
 * pf's file no longer defines (the file exists), or NULL (it does not).
 */
static void mark_moved(struct apply_file_result *res,
		       const struct patch_file *pf, const char *path,
		       const char *gone)
{
	const char *from = patch_file_path(pf);

	for (size_t k = 0; k < res->nr_hunks; k++) {
		struct apply_hunk_result *r = &res->hunks[k];
		struct adaptation *a = xcalloc(1, sizeof(*a));
		struct patch_hunk here;
		struct buf b = BUF_INIT;

		a->rule = ADAPT_MOVED;
		adapt_hunk_text(&b, &pf->hunks[k]);
		a->original = xstrdup(b.ptr);
		buf_reset(&b);
		buf_addf(&b, "--- a/%s\n+++ b/%s\n", path, path);
		here = pf->hunks[k];
		if (r->line) { /* the line numbers of that file */
			here.new_start =
				(unsigned long)((long)r->line +
						((long)here.new_start -
						 (long)here.old_start));
			here.old_start = r->line;
		}
		adapt_hunk_text(&b, &here);
		a->adapted = buf_detach(&b, NULL);
		a->note = xstrfmt("moved from %s to %s: %s %s%s%s, and its "
				  "lines stand exactly in %s alone of %s",
				  from, path, from,
				  gone ? "has no " : "does not exist in this "
						     "tree",
				  gone ? gone : "", gone ? "()" : "", path,
				  same_folder(from, path)
					  ? "its folder"
					  : "the files of its name nearby");
		a->line = r->line;
		r->rule = RULE_ADAPTED;
		free(r->reason);
		r->reason = xstrdup(a->note);
		r->adapt = a;
	}
	res->outcome = OUTCOME_ADAPTED;
}

/* Where adapt_moved() looks, and what it found. */
struct moved_search {
	const struct patch_file *pf;
	struct apply_file_result best;
	char *found;   /* the one file taking the patch (new), or NULL */
	unsigned mode; /* its mode */
	size_t holders;
};

/*
 * Try each file of blobs (but pf's own path; with name, only the files
 * called name) on pf: every hunk exact or at an offset.  Stops at a
 * second file that takes it.
 */
static int try_holders(struct moved_search *ms, const struct tree_blob *blobs,
		       size_t nr, const char *name, struct moved_ctx *mc,
		       struct err *err)
{
	struct apply_file_result cand;
	struct buf text = BUF_INIT;
	int error = 0;

	for (size_t i = 0; i < nr && ms->holders < 2; i++) {
		const char *base = strrchr(blobs[i].path, '/');
		bool exists = false;
		unsigned m = 0;

		base = base ? base + 1 : blobs[i].path;
		if (!strcmp(blobs[i].path, ms->pf->old_path) ||
		    (name && strcmp(base, name)))
			continue;
		if ((error = mc->read(&text, &exists, &m, blobs[i].path, mc,
				      err)) < 0)
			break;
		if (!exists ||
		    !holds_exactly(&cand, ms->pf,
				   (struct span){ text.ptr, text.len },
				   mc->apply)) {
			if (exists)
				apply_file_result_release(&cand);
			continue;
		}
		if (!ms->holders++) {
			ms->best = cand;
			ms->found = xstrdup(blobs[i].path);
			ms->mode = m;
		} else {
			apply_file_result_release(&cand);
		}
	}
	buf_release(&text);
	return error;
}

/* List the blobs of lo and try them (see try_holders). */
static int search_holders(struct moved_search *ms,
			  const struct tree_list_opts *lo, const char *name,
			  struct moved_ctx *mc, struct err *err)
{
	struct tree_blob *blobs = NULL;
	size_t nr = 0;
	int error;

	if ((error = tree_list_blobs(&blobs, &nr, mc->repo, mc->tree, lo,
				     err)) < 0)
		return error;
	if (nr <= MOVED_MAX_FILES)
		error = try_holders(ms, blobs, nr, name, mc, err);
	tree_blobs_free(blobs, nr);
	return error;
}

/* Rule 1 (adapt_move.h). */
int adapt_moved(struct apply_file_result *ar, char **moved_to,
		       unsigned *mode, const struct patch_file *pf,
		       const char *gone, struct moved_ctx *mc, struct err *err)
{
	struct moved_search ms = { pf, { 0 }, NULL, 0, 0 };
	const char *ext, *exts[2] = { NULL, NULL }, *base;
	struct tree_list_opts lo = { NULL, false, NULL };
	char *dir = NULL, *up = NULL;
	int error = 0;

	*moved_to = NULL;
	if (mc->apply->no_adapt || pf->op != PATCH_MODIFY ||
	    !pf->old_path || !pf->nr_hunks)
		return 0;
	dir = folder_of(pf->old_path, &ext);
	if (!ext)
		goto out;
	exts[0] = ext;
	lo.dir = dir;
	lo.exts = exts;
	if ((error = search_holders(&ms, &lo, NULL, mc, err)) < 0)
		goto out;
	if (!ms.holders && *dir && !gone) {
		base = strrchr(pf->old_path, '/') + 1;
		up = xstrndup(dir, strrchr(dir, '/')
					   ? (size_t)(strrchr(dir, '/') - dir)
					   : 0);
		exts[0] = base;
		lo.dir = up;
		lo.recursive = true;
		if ((error = search_holders(&ms, &lo, base, mc, err)) < 0)
			goto out;
	}
	if (ms.holders == 1) {
		mark_moved(&ms.best, pf, ms.found, gone);
		apply_file_result_release(ar);
		*ar = ms.best;
		*moved_to = ms.found;
		*mode = ms.mode;
		ms.found = NULL;
		ms.holders = 0;
	}
out:
	if (ms.holders)
		apply_file_result_release(&ms.best);
	free(ms.found);
	free(dir);
	free(up);
	return error;
}
