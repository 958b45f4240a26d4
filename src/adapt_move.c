#include "adapt_move.h"

#include <stdlib.h>
#include <string.h>

#include "adapt.h"
#include "cause.h"

/* Files of one folder probed at most (fs/btrfs: 60 .c, 40 .h). */
#define MOVED_MAX_FILES 256
/*
 * Files under a folder probed at most for rule 1 hunk by hunk, where each
 * is only searched for the hunks' function names (drivers/gpu/drm/i915
 * and its subfolders: about 500 .c files).
 */
#define MOVED_MAX_SPLIT 1024

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

/* Whether path is C (cause.c finds its functions). */
static bool c_source(const char *path)
{
	return ends_with(path, ".c") || ends_with(path, ".h");
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
 * under: the folder path alone of whose files defines each hunk's
 * function (rule 1 hunk by hunk), or NULL (path takes the file patch).
 */
static void mark_moved(struct apply_file_result *res,
		       const struct patch_file *pf, const char *path,
		       const char *gone, const char *under)
{
	const char *from = patch_file_path(pf);
	long delta = 0; /* lines the hunks before k in that file add */

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
			/* hunk by hunk, the hunks before it there are others
			 * than in pf's file */
			long shift = under ? delta
					   : (long)here.new_start -
						     (long)here.old_start;

			here.new_start = (unsigned long)((long)r->line + shift);
			here.old_start = r->line;
		}
		delta += (long)here.new_count - (long)here.old_count;
		adapt_hunk_text(&b, &here);
		a->adapted = buf_detach(&b, NULL);
		if (under)
			a->note = xstrfmt("moved from %s to %s: %s %s%s%s, and "
					  "%s alone of the files under %s "
					  "defines %s%s, where its lines "
					  "stand exactly",
					  from, path, from,
					  gone ? "has no " : "does not exist "
							     "in this tree",
					  gone ? r->func : "", gone ? "()" : "",
					  path, *under ? under : "the top",
					  gone ? "it" : r->func,
					  gone ? "" : "()");
		else
			a->note = xstrfmt(
				"moved from %s to %s: %s %s%s%s, and its "
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

/*
 * Rule 1 hunk by hunk: per hunk of a file patch, the one file under a
 * folder that defines the function its header names.
 */
struct moved_split {
	const struct patch_file *pf;
	const struct apply_file_result *ar; /* the hunks' functions */
	const char *gone;  /* adapt_moved()'s */
	const char *under; /* the folder def was searched under */
	char **def;  /* per hunk: the one file defining it (new), or NULL */
	bool *twice; /* per hunk: two files define it */
	/* per hunk: its result where place_split() placed it */
	struct apply_file_result *got;
};

static void split_reset(struct moved_split *sp)
{
	for (size_t k = 0; k < sp->pf->nr_hunks; k++) {
		free(sp->def[k]);
		sp->def[k] = NULL;
		sp->twice[k] = false;
	}
}

/*
 * Fill sp->def from the files of lo (but pf's own path) as the patch has
 * left them: a file defines a hunk's function when cause.c finds its
 * definition (in a header, its prototype) there.  Too many files: none.
 */
static int find_definers(struct moved_split *sp,
			 const struct tree_list_opts *lo, struct moved_ctx *mc,
			 struct err *err)
{
	struct tree_blob *blobs = NULL;
	struct buf text = BUF_INIT;
	size_t nr = 0;
	int error;

	if ((error = tree_list_blobs(&blobs, &nr, mc->repo, mc->tree, lo,
				     err)) < 0)
		return error;
	for (size_t i = 0; i < nr && nr <= MOVED_MAX_SPLIT; i++) {
		const char *path = blobs[i].path;
		bool exists = false;
		unsigned m = 0;

		if (!strcmp(path, sp->pf->old_path))
			continue;
		if ((error = mc->read(&text, &exists, &m, path, mc, err)) < 0)
			break;
		for (size_t k = 0; exists && k < sp->pf->nr_hunks; k++) {
			const char *func = sp->ar->hunks[k].func;

			/* the name first: a scan for definitions costs more */
			if (!func || sp->twice[k] ||
			    !memmem(text.ptr, text.len, func, strlen(func)) ||
			    !cause_defines_function(
				    (struct span){ text.ptr, text.len }, path,
				    func))
				continue;
			if (sp->def[k]) {
				free(sp->def[k]);
				sp->def[k] = NULL;
				sp->twice[k] = true;
			} else {
				sp->def[k] = xstrdup(path);
			}
		}
	}
	buf_release(&text);
	tree_blobs_free(blobs, nr);
	return error;
}

/* How many hunks of sp have their one file. */
static size_t split_found(const struct moved_split *sp)
{
	size_t n = 0;

	for (size_t k = 0; k < sp->pf->nr_hunks; k++)
		n += sp->def[k] != NULL;
	return n;
}

/* sub: pf with only its hunks idx[0..n) (sub->hunks new). */
static void pick_hunks(struct patch_file *sub, const struct patch_file *pf,
		       const size_t *idx, size_t n)
{
	*sub = *pf;
	sub->hunks = xcalloc(n + 1, sizeof(*sub->hunks));
	sub->nr_hunks = n;
	for (size_t j = 0; j < n; j++)
		sub->hunks[j] = pf->hunks[idx[j]];
}

/*
 * Whether the hunks of sub (pick_hunks) apply exactly to text, together;
 * when not, sub->hunks is freed.
 */
static bool hunks_hold(struct apply_file_result *res, struct patch_file *sub,
		       struct span text, const struct apply_opts *opts)
{
	if (holds_exactly(res, sub, text, opts))
		return true;
	apply_file_result_release(res);
	free(sub->hunks);
	sub->hunks = NULL;
	return false;
}

/*
 * Hunks idx[0..sub->nr_hunks) of sp->got, moved to path (marked moved
 * from under sp->under), take the results of res (a file patch sub of
 * those hunks).
 */
static void take_moved(const struct moved_split *sp, char **hunk_to,
		       struct apply_file_result *res,
		       const struct patch_file *sub, const size_t *idx,
		       const char *path)
{
	struct apply_file_result *got = sp->got;
	struct apply_hunk_result tmp;

	mark_moved(res, sub, path, sp->gone, sp->under);
	for (size_t j = 0; j < sub->nr_hunks; j++) {
		tmp = got->hunks[idx[j]];
		got->hunks[idx[j]] = res->hunks[j];
		res->hunks[j] = tmp;
		hunk_to[idx[j]] = xstrdup(path);
	}
}

/*
 * Order idx[0..n) (hunks of pf) by where each lands alone in text, the
 * order they take in that file.  False when one does not hold alone.
 */
static bool order_by_landing(size_t *idx, size_t n,
			     const struct patch_file *pf, struct span text,
			     const struct apply_opts *opts)
{
	unsigned long *line = xcalloc(n + 1, sizeof(*line));
	struct apply_file_result res;
	struct patch_file sub;
	bool ok = true;

	for (size_t j = 0; j < n && ok; j++) {
		pick_hunks(&sub, pf, &idx[j], 1);
		ok = hunks_hold(&res, &sub, text, opts);
		if (!ok)
			break;
		line[j] = res.hunks[0].line;
		apply_file_result_release(&res);
		free(sub.hunks);
	}
	for (size_t j = 1; j < n && ok; j++) /* a handful: insertion */
		for (size_t i = j; i > 0 && line[i - 1] > line[i]; i--) {
			unsigned long l = line[i];
			size_t x = idx[i];

			line[i] = line[i - 1];
			idx[i] = idx[i - 1];
			line[i - 1] = l;
			idx[i - 1] = x;
		}
	free(line);
	return ok;
}

/*
 * Place each hunk of sp there where its one file is: the hunks of one
 * file together, in the order they land there (their functions may come
 * in another order now), each exactly (offsets allowed) as adapt_moved()
 * asks of a whole file patch.  sp->got: the results of those placed
 * (the others' stay empty); stops at the first file that does not take
 * its hunks (a file patch moves whole or not at all).
 */
static int place_split(struct moved_out *out, const struct moved_split *sp,
		       struct moved_ctx *mc, struct err *err)
{
	const struct patch_file *pf = sp->pf;
	size_t *idx = xcalloc(pf->nr_hunks + 1, sizeof(*idx));
	struct buf text = BUF_INIT;
	int error = 0;

	out->hunk_to = xcalloc(pf->nr_hunks + 1, sizeof(*out->hunk_to));
	out->nr_hunks = pf->nr_hunks;
	for (size_t k = 0; k < pf->nr_hunks; k++) {
		const char *path = sp->def[k];
		struct apply_file_result res;
		struct patch_file sub;
		struct moved_file *mf;
		struct span t;
		bool exists = false;
		unsigned m = 0;
		size_t n = 0;

		if (!path || out->hunk_to[k])
			continue; /* its file was done with an earlier hunk */
		for (size_t j = k; j < pf->nr_hunks; j++)
			if (sp->def[j] && !strcmp(sp->def[j], path))
				idx[n++] = j;
		if ((error = mc->read(&text, &exists, &m, path, mc, err)) < 0)
			break;
		t = (struct span){ text.ptr, text.len };
		if (!exists || !order_by_landing(idx, n, pf, t, mc->apply))
			break;
		pick_hunks(&sub, pf, idx, n);
		if (!hunks_hold(&res, &sub, t, mc->apply))
			break;
		take_moved(sp, out->hunk_to, &res, &sub, idx, path);
		ALLOC_GROW(out->files, out->nr_files + 1, out->alloc_files);
		mf = &out->files[out->nr_files++];
		mf->path = xstrdup(path);
		mf->mode = m;
		buf_init(&mf->text, 0);
		buf_swap(&mf->text, &res.out);
		apply_file_result_release(&res);
		free(sub.hunks);
	}
	free(idx);
	buf_release(&text);
	return error;
}

/*
 * Rule 1 hunk by hunk (no one file takes the file patch): the files
 * under the folder (recursively; a missing file's under the folder
 * above too, when the folder alone does not define every hunk's
 * function) with its extension are searched for each hunk's function.
 */
static int adapt_split(struct apply_file_result *ar, struct moved_out *out,
		       const struct patch_file *pf, const char *gone,
		       struct moved_ctx *mc, struct err *err)
{
	struct apply_file_result got;
	struct moved_split sp = { pf, ar, gone, NULL, NULL, NULL, &got };
	const char *ext, *exts[2] = { NULL, NULL };
	struct tree_list_opts lo = { NULL, true, exts };
	char *dir = folder_of(pf->old_path, &ext), *up = NULL;
	size_t placed = 0;
	int error = 0;

	apply_file_result_init(&got);
	if (!c_source(pf->old_path) || ar->nr_hunks != pf->nr_hunks)
		goto out;
	for (size_t k = 0; k < pf->nr_hunks; k++)
		if (ar->hunks[k].rule != RULE_CONFLICT)
			goto out;
	sp.def = xcalloc(pf->nr_hunks + 1, sizeof(*sp.def));
	sp.twice = xcalloc(pf->nr_hunks + 1, sizeof(*sp.twice));
	exts[0] = ext;
	lo.dir = dir;
	sp.under = dir;
	if ((error = find_definers(&sp, &lo, mc, err)) < 0)
		goto out;
	if (split_found(&sp) < pf->nr_hunks && *dir && !gone) {
		struct moved_split wide = sp;

		/* i915's display/intel_vblank.c back onto i915_irq.c */
		wide.def = xcalloc(pf->nr_hunks + 1, sizeof(*wide.def));
		wide.twice = xcalloc(pf->nr_hunks + 1, sizeof(*wide.twice));
		up = xstrndup(dir, strrchr(dir, '/')
					   ? (size_t)(strrchr(dir, '/') - dir)
					   : 0);
		lo.dir = up;
		wide.under = up;
		error = find_definers(&wide, &lo, mc, err);
		if (!error && split_found(&wide) > split_found(&sp)) {
			split_reset(&sp);
			free(sp.def);
			free(sp.twice);
			sp = wide;
		} else {
			split_reset(&wide);
			free(wide.def);
			free(wide.twice);
		}
		if (error < 0)
			goto out;
	}
	if (split_found(&sp) < pf->nr_hunks)
		goto out;
	got.hunks = xcalloc(pf->nr_hunks + 1, sizeof(*got.hunks));
	got.nr_hunks = pf->nr_hunks;
	if ((error = place_split(out, &sp, mc, err)) < 0)
		goto out;
	for (size_t k = 0; k < pf->nr_hunks; k++)
		placed += out->hunk_to[k] != NULL;
	if (placed < pf->nr_hunks) {
		/* a file patch is moved whole or not at all: a person
		 * places the rest better knowing where this went */
		moved_out_release(out);
		goto out;
	}
	out->moved_to = xstrdup(out->hunk_to[0]);
	for (size_t k = 0; k < pf->nr_hunks; k++) {
		struct apply_hunk_result tmp = ar->hunks[k];

		ar->hunks[k] = got.hunks[k];
		got.hunks[k] = tmp;
	}
	ar->outcome = OUTCOME_ADAPTED;
	ar->risk = false;
	free(ar->reason);
	ar->reason = NULL;
	buf_reset(&ar->rej);
	buf_reset(&ar->out);
out:
	if (error < 0)
		moved_out_release(out);
	apply_file_result_release(&got);
	if (sp.def)
		split_reset(&sp);
	free(sp.def);
	free(sp.twice);
	free(dir);
	free(up);
	return error;
}

/* Rule 1 (adapt_move.h). */
int adapt_moved(struct apply_file_result *ar, struct moved_out *out,
		const struct patch_file *pf, const char *gone,
		struct moved_ctx *mc, struct err *err)
{
	struct moved_search ms = { pf, { 0 }, NULL, 0, 0 };
	const char *ext, *exts[2] = { NULL, NULL }, *base;
	struct tree_list_opts lo = { NULL, false, NULL };
	char *dir = NULL, *up = NULL;
	int error = 0;

	memset(out, 0, sizeof(*out));
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
		mark_moved(&ms.best, pf, ms.found, gone, NULL);
		apply_file_result_release(ar);
		*ar = ms.best;
		out->moved_to = ms.found;
		out->mode = ms.mode;
		ms.found = NULL;
		ms.holders = 0;
	} else if (!ms.holders) {
		error = adapt_split(ar, out, pf, gone, mc, err);
	}
out:
	if (ms.holders)
		apply_file_result_release(&ms.best);
	free(ms.found);
	free(dir);
	free(up);
	return error;
}

void moved_out_release(struct moved_out *o)
{
	for (size_t k = 0; o->hunk_to && k < o->nr_hunks; k++)
		free(o->hunk_to[k]);
	free(o->hunk_to);
	for (size_t i = 0; i < o->nr_files; i++) {
		free(o->files[i].path);
		buf_release(&o->files[i].text);
	}
	free(o->files);
	free(o->moved_to);
	memset(o, 0, sizeof(*o));
}
