#include "adapt_move.h"

#include <stdlib.h>
#include <string.h>

#include "adapt.h"
#include "cause.h"
#include "cnames.h"
#include "lex.h"

/* Files of one folder probed at most (fs/btrfs: 60 .c, 40 .h). */
#define MOVED_MAX_FILES 256
/*
 * Files under a folder probed at most for rule 1 hunk by hunk, where each
 * is only searched for the hunks' function names (drivers/gpu/drm/i915
 * and its subfolders: about 500 .c files).
 */
#define MOVED_MAX_SPLIT 1024

/*
 * Whether every hunk of pf applies exactly (or offset) to text; with
 * drift, a hunk may also be adapted there by rule 4 (drifted context:
 * its changed lines anchored exactly, once, in its function), and no other
 * rule.
 */
static bool holds(struct apply_file_result *res, const struct patch_file *pf,
		  struct span text, const struct apply_opts *opts, bool drift)
{
	struct apply_opts ao = *opts;
	struct err err = ERR_INIT;
	bool ok;

	ao.no_3way = true;
	ao.no_adapt = !drift;
	ao.no_adapt_hunk = NULL; /* carry.c runs rule 1 only without them */
	ao.markers = false;
	ao.fuzz = 0;
	apply_file_result_init(res);
	ok = apply_file(res, pf, text, true, &ao, &err) == 0 &&
	     (res->outcome == OUTCOME_CLEAN ||
	      res->outcome == OUTCOME_OFFSET ||
	      (drift && res->outcome == OUTCOME_ADAPTED)) &&
	     !res->risk;
	for (size_t k = 0; ok && k < res->nr_hunks; k++) {
		const struct apply_hunk_result *r = &res->hunks[k];

		ok = r->rule == RULE_EXACT || r->rule == RULE_OFFSET ||
		     (r->rule == RULE_ADAPTED && r->adapt &&
		      r->adapt->rule == ADAPT_DRIFT);
	}
	err_release(&err);
	return ok;
}

/* Whether every hunk of pf applies exactly (or offset) to text. */
static bool holds_exactly(struct apply_file_result *res,
			  const struct patch_file *pf, struct span text,
			  const struct apply_opts *opts)
{
	return holds(res, pf, text, opts, false);
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
		       const char *gone, const char *under, const char *alone)
{
	const char *from = patch_file_path(pf);
	long delta = 0; /* lines the hunks before k in that file add */

	for (size_t k = 0; k < res->nr_hunks; k++) {
		struct apply_hunk_result *r = &res->hunks[k];
		/* rule 4 anchored it there (hunk by hunk): its text, its
		 * note after rule 1's */
		struct adaptation *drift = r->adapt;
		struct adaptation *a = xcalloc(1, sizeof(*a));
		struct patch_hunk here;
		struct buf b = BUF_INIT;
		char *why;

		a->rule = ADAPT_MOVED;
		adapt_hunk_text(&b, &pf->hunks[k]);
		a->original = xstrdup(b.ptr);
		buf_reset(&b);
		buf_addf(&b, "--- a/%s\n+++ b/%s\n", path, path);
		here = drift ? drift->hunk : pf->hunks[k];
		if (drift) { /* its own target lines, at their place there */
			here.new_start =
				(unsigned long)((long)here.old_start + delta);
		} else if (r->line) { /* the line numbers of that file */
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
		why = drift ? xstrfmt("; %s", drift->note)
			    : xstrdup(", where its lines stand exactly");
		if (under)
			a->note = xstrfmt("moved from %s to %s: %s %s%s%s, and "
					  "%s alone of the files under %s "
					  "defines %s%s%s",
					  from, path, from,
					  gone ? "has no " : "does not exist "
							     "in this tree",
					  gone ? r->func : "", gone ? "()" : "",
					  path, *under ? under : "the top",
					  gone ? "it" : r->func,
					  gone ? "" : "()", why);
		else
			a->note = xstrfmt(
				"moved from %s to %s: %s %s%s%s, and its "
				"lines stand exactly in %s alone of %s",
				from, path, from,
				gone ? "has no " : "does not exist in this "
						   "tree",
				gone ? gone : "", gone ? "()" : "", path,
				alone);
		free(why);
		adaptation_free(drift);
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
	char *second;  /* a second one (new), or NULL */
	unsigned mode; /* its mode */
	size_t holders;
};

/* Whether path ends with tail, a whole name or names ("s5p-mfc/x.c"). */
static bool path_ends_with(const char *path, const char *tail)
{
	size_t pl = strlen(path), tl = strlen(tail);

	return ends_with(path, tail) && (pl == tl || path[pl - tl - 1] == '/');
}

/*
 * Try each file of blobs (but pf's own path; with name, only the files
 * whose path ends with name, a file name or folder/file) on pf: every
 * hunk exact or at an offset.  Stops at a second file that takes it.
 */
static int try_holders(struct moved_search *ms, const struct tree_blob *blobs,
		       size_t nr, const char *name, struct moved_ctx *mc,
		       struct err *err)
{
	struct apply_file_result cand;
	struct buf text = BUF_INIT;
	int error = 0;

	for (size_t i = 0; i < nr && ms->holders < 2; i++) {
		bool exists = false;
		unsigned m = 0;

		if (!strcmp(blobs[i].path, ms->pf->old_path) ||
		    (name && !path_ends_with(blobs[i].path, name)))
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
			ms->second = xstrdup(blobs[i].path);
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
 * Rule 1 farther: up, the folder above dir (pf's folder, missing), is not
 * in the tree either, so a folder was put in or taken out between them
 * (Linux 6.1 moved drivers/media/platform/s5p-mfc/ into samsung/): under
 * the nearest folder above that the tree has (a top folder at most), the
 * files whose path ends with dir's last name and pf's file name
 * ("s5p-mfc/s5p_mfc_ctrl.c") are tried.  *alone: what was searched, for
 * the note ("the files s5p-mfc/s5p_mfc_ctrl.c under
 * drivers/media/platform"; new), when it was.
 */
static int search_farther(struct moved_search *ms, const char *dir,
			  const char *up, struct moved_ctx *mc, char **alone,
			  struct err *err)
{
	const char *own = strrchr(dir, '/'), *base;
	const char *exts[2] = { NULL, NULL };
	struct tree_list_opts lo = { NULL, true, exts };
	char *anc = xstrdup(up), *slash, *tail;
	struct tree_oid id;
	bool exists = false;
	int error;

	if ((error = tree_dir_id(&id, &exists, mc->repo, mc->tree, anc,
				 err)) < 0 ||
	    exists || !*anc)
		goto out; /* the folder above was searched (or is the top) */
	while (!exists && (slash = strrchr(anc, '/'))) {
		*slash = '\0';
		if ((error = tree_dir_id(&id, &exists, mc->repo, mc->tree, anc,
					 err)) < 0)
			goto out;
	}
	if (!exists)
		goto out; /* not even its top folder: not looked for */
	base = strrchr(ms->pf->old_path, '/') + 1;
	tail = xstrfmt("%s/%s", own ? own + 1 : dir, base);
	exts[0] = base;
	lo.dir = anc;
	error = search_holders(ms, &lo, tail, mc, err);
	*alone = xstrfmt("the files %s under %s", tail, anc);
	free(tail);
out:
	free(anc);
	return error;
}

/* Append why to r's reason ("...; why"): why rule 1 left it. */
static void add_reason(struct apply_hunk_result *r, const char *why)
{
	char *s = r->reason && *r->reason ? xstrfmt("%s; %s", r->reason, why)
					  : xstrdup(why);

	free(r->reason);
	r->reason = s;
}

/* Two files take every hunk of ms->pf: which is meant is not known. */
static void holders_refused(struct apply_file_result *ar,
			    const struct moved_search *ms)
{
	char *why = xstrfmt("not moved: every hunk stands exactly in both %s "
			    "and %s",
			    ms->found, ms->second);

	for (size_t k = 0; k < ar->nr_hunks; k++)
		add_reason(&ar->hunks[k], why);
	free(why);
}

/*
 * Whether text (of path) defines func: in a C file its body (a prototype
 * or a call is no definition: the code is not there), in a header its
 * prototype too (cause.c).
 */
static bool defines(struct span text, const char *path, const char *func)
{
	struct cnames c;
	struct err err = ERR_INIT;
	size_t fl = strlen(func);
	bool yes = false;

	if (!ends_with(path, ".c"))
		return cause_defines_function(text, path, func);
	cnames_init(&c);
	if (cnames_scan(&c, path, text.ptr ? text.ptr : "", text.len, 0,
			&err) == 0)
		for (size_t i = 0; i < c.nr_funcs && !yes; i++)
			yes = c.funcs[i].len == fl &&
			      !memcmp(c.funcs[i].name, func, fl);
	err_release(&err);
	cnames_release(&c);
	return yes;
}

/* Whether hunk h's header names func as a function ("int func(..."). */
static bool header_names(const struct patch_hunk *h, const char *func)
{
	const char *p = h->section.ptr, *end = p + h->section.len;
	size_t fl = strlen(func);

	while (p && (size_t)(end - p) >= fl &&
	       (p = memmem(p, (size_t)(end - p), func, fl))) {
		const char *q = p + fl;

		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		if (q < end && *q == '(' &&
		    (p == h->section.ptr ||
		     !is_ident_char((unsigned char)p[-1])))
			return true;
		p++;
	}
	return false;
}

/*
 * Rule 1 hunk by hunk: per hunk of a file patch, the one file under a
 * folder that defines the function its header names.
 */
struct moved_split {
	const struct patch_file *pf;
	struct apply_file_result *ar; /* the hunks' functions and reasons */
	const char *gone;  /* adapt_moved()'s */
	const char *under; /* the folder def was searched under */
	/* per hunk: whether its function is looked for (NULL: every hunk's);
	 * set when pf's file keeps the others (adapt_mixed()) */
	const bool *want;
	const struct moved_file *own; /* that file: its path, mode, text */
	struct moved_ctx *mc;
	char **def;	/* per hunk: the first file defining it (new), or NULL */
	char **other;	/* per hunk: a second one (new), or NULL */
	size_t *nr_def; /* per hunk: how many files define it */
	bool *drifted;	/* per hunk: its lines do not stand in its one file */
	bool too_many;	/* too many files under the folder: none searched */
	/* per hunk: its result where place_split() placed it */
	struct apply_file_result *got;
};

static void split_alloc(struct moved_split *sp)
{
	size_t n = sp->pf->nr_hunks + 1;

	sp->def = xcalloc(n, sizeof(*sp->def));
	sp->other = xcalloc(n, sizeof(*sp->other));
	sp->nr_def = xcalloc(n, sizeof(*sp->nr_def));
	sp->drifted = xcalloc(n, sizeof(*sp->drifted));
	sp->too_many = false;
}

static void split_free(struct moved_split *sp)
{
	for (size_t k = 0; sp->def && k < sp->pf->nr_hunks; k++) {
		free(sp->def[k]);
		free(sp->other[k]);
	}
	free(sp->def);
	free(sp->other);
	free(sp->nr_def);
	free(sp->drifted);
	sp->def = sp->other = NULL;
	sp->nr_def = NULL;
	sp->drifted = NULL;
}

/* Whether hunk k's function is looked for. */
static bool split_wants(const struct moved_split *sp, size_t k)
{
	return !sp->want || sp->want[k];
}

/* The one file defining hunk k's function, or NULL. */
static const char *split_one(const struct moved_split *sp, size_t k)
{
	return sp->nr_def[k] == 1 ? sp->def[k] : NULL;
}

/*
 * Fill sp->def from the files of lo (but pf's own path) as the patch has
 * left them, for the hunks wanted.  Too many files: none.
 */
static int find_definers(struct moved_split *sp,
			 const struct tree_list_opts *lo, struct err *err)
{
	struct tree_blob *blobs = NULL;
	struct buf text = BUF_INIT;
	size_t nr = 0;
	int error;

	if ((error = tree_list_blobs(&blobs, &nr, sp->mc->repo, sp->mc->tree,
				     lo, err)) < 0)
		return error;
	sp->too_many = nr > MOVED_MAX_SPLIT;
	for (size_t i = 0; i < nr && !sp->too_many; i++) {
		const char *path = blobs[i].path;
		bool exists = false;
		unsigned m = 0;

		if (!strcmp(path, sp->pf->old_path))
			continue;
		if ((error = sp->mc->read(&text, &exists, &m, path, sp->mc,
					  err)) < 0)
			break;
		for (size_t k = 0; exists && k < sp->pf->nr_hunks; k++) {
			const char *func = sp->ar->hunks[k].func;

			/* the name first: a scan for definitions costs more */
			if (!func || !split_wants(sp, k) ||
			    !memmem(text.ptr, text.len, func, strlen(func)) ||
			    !defines((struct span){ text.ptr, text.len }, path,
				     func))
				continue;
			if (!sp->nr_def[k]++)
				sp->def[k] = xstrdup(path);
			else if (!sp->other[k])
				sp->other[k] = xstrdup(path);
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
		n += split_one(sp, k) != NULL;
	return n;
}

/* Whether some file defines the function of a hunk of sp looked for. */
static bool split_defined(const struct moved_split *sp)
{
	for (size_t k = 0; k < sp->pf->nr_hunks; k++)
		if (sp->nr_def[k] || sp->too_many)
			return true;
	return false;
}

/* How many hunks of sp are looked for. */
static size_t split_wanted(const struct moved_split *sp)
{
	size_t n = 0;

	for (size_t k = 0; k < sp->pf->nr_hunks; k++)
		n += split_wants(sp, k);
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
 * Whether the hunks of sub (pick_hunks) apply exactly to text, together,
 * or anchored there by rule 4 where their context drifted (the file is the
 * one defining each hunk's function); when not, sub->hunks is freed.
 */
static bool hunks_hold(struct apply_file_result *res, struct patch_file *sub,
		       struct span text, const struct apply_opts *opts)
{
	if (holds(res, sub, text, opts, true))
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

	mark_moved(res, sub, path, sp->gone, sp->under, NULL);
	for (size_t j = 0; j < sub->nr_hunks; j++) {
		tmp = got->hunks[idx[j]];
		got->hunks[idx[j]] = res->hunks[j];
		res->hunks[j] = tmp;
		hunk_to[idx[j]] = xstrdup(path);
	}
}

/*
 * Order idx[0..n) (hunks of pf) by where each lands alone in text, the
 * order they take in that file.  False when one does not hold alone:
 * drifted[] marks each such hunk.
 */
static bool order_by_landing(size_t *idx, size_t n,
			     const struct patch_file *pf, struct span text,
			     const struct apply_opts *opts, bool *drifted)
{
	unsigned long *line = xcalloc(n + 1, sizeof(*line));
	struct apply_file_result res;
	struct patch_file sub;
	bool ok = true;

	for (size_t j = 0; j < n; j++) {
		pick_hunks(&sub, pf, &idx[j], 1);
		if (!hunks_hold(&res, &sub, text, opts)) {
			drifted[idx[j]] = true;
			ok = false;
			continue;
		}
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
 * Place hunks idx[0..n) of sp together in f (a file as the patch has
 * left it), in the order they land there, each exactly (offsets
 * allowed): out gets the file, sp->got their results.  When they do not
 * hold there, sp->drifted marks them.
 */
static void place_in(struct moved_out *out, const struct moved_split *sp,
		     size_t *idx, size_t n, struct moved_file *f)
{
	const struct apply_opts *opts = sp->mc->apply;
	struct span t = { f->text.ptr, f->text.len };
	struct apply_file_result res;
	struct patch_file sub;
	struct moved_file *mf;

	if (!order_by_landing(idx, n, sp->pf, t, opts, sp->drifted))
		return;
	pick_hunks(&sub, sp->pf, idx, n);
	if (!hunks_hold(&res, &sub, t, opts)) {
		for (size_t j = 0; j < n; j++)
			sp->drifted[idx[j]] = true;
		return;
	}
	take_moved(sp, out->hunk_to, &res, &sub, idx, f->path);
	ALLOC_GROW(out->files, out->nr_files + 1, out->alloc_files);
	mf = &out->files[out->nr_files++];
	mf->path = xstrdup(f->path);
	mf->mode = f->mode;
	buf_init(&mf->text, 0);
	buf_swap(&mf->text, &res.out);
	apply_file_result_release(&res);
	free(sub.hunks);
}

/*
 * Place each hunk of sp there where its one file is: the hunks of one
 * file together (their functions may come in another order now), each
 * exactly as adapt_moved() asks of a whole file patch.  sp->got: the
 * results of those placed (the others' stay empty); sp->drifted: those
 * whose lines do not stand there.
 */
static int place_split(struct moved_out *out, const struct moved_split *sp,
		       struct err *err)
{
	const struct patch_file *pf = sp->pf;
	size_t *idx = xcalloc(pf->nr_hunks + 1, sizeof(*idx));
	struct moved_file f = { NULL, 0, BUF_INIT };
	int error = 0;

	out->hunk_to = xcalloc(pf->nr_hunks + 1, sizeof(*out->hunk_to));
	out->nr_hunks = pf->nr_hunks;
	for (size_t k = 0; k < pf->nr_hunks; k++) {
		const char *path = split_one(sp, k);
		bool exists = false;
		size_t n = 0;

		if (!path || out->hunk_to[k] || sp->drifted[k])
			continue; /* its file was done with an earlier hunk */
		for (size_t j = k; j < pf->nr_hunks; j++)
			if (split_one(sp, j) && !sp->drifted[j] &&
			    !strcmp(split_one(sp, j), path))
				idx[n++] = j;
		f.path = (char *)path;
		if ((error = sp->mc->read(&f.text, &exists, &f.mode, path,
					  sp->mc, err)) < 0)
			break;
		if (exists)
			place_in(out, sp, idx, n, &f);
		else
			for (size_t j = 0; j < n; j++)
				sp->drifted[idx[j]] = true;
	}
	free(idx);
	buf_release(&f.text);
	return error;
}

/*
 * Look for the hunks' functions under sp->under (recursively, files with
 * ext); for a missing file (not gone), under the folder above too when
 * that finds more.  *up: that folder (new), when taken.
 */
static int split_search(struct moved_split *sp, const char *ext, char **up,
			struct err *err)
{
	const char *exts[2] = { ext, NULL };
	struct tree_list_opts lo = { sp->under, true, exts };
	const char *dir = sp->under, *slash = strrchr(dir, '/');
	struct moved_split wide = *sp;
	int error;

	if ((error = find_definers(sp, &lo, err)) < 0)
		return error;
	if (split_found(sp) == split_wanted(sp) || !*dir || sp->gone)
		return 0;
	/* i915's display/intel_vblank.c back onto i915_irq.c */
	split_alloc(&wide);
	wide.under = lo.dir =
		*up = xstrndup(dir, slash ? (size_t)(slash - dir) : 0);
	error = find_definers(&wide, &lo, err);
	if (!error && split_found(&wide) > split_found(sp)) {
		split_free(sp);
		*sp = wide;
	} else {
		split_free(&wide);
	}
	return error;
}

/* Why hunk k of sp, its function looked for, was not moved. */
static char *split_why(const struct moved_split *sp,
		       const struct moved_out *out, size_t k)
{
	const char *func = sp->ar->hunks[k].func;
	const char *under = *sp->under ? sp->under : "the top";
	size_t j = 0;

	if (!func)
		return xstrdup("not moved: its header names no function");
	if (sp->too_many)
		return xstrfmt("not moved: too many files under %s to look "
			       "for %s() in",
			       under, func);
	if (!sp->nr_def[k])
		return xstrfmt("not moved: %s() is defined in no file under "
			       "%s",
			       func, under);
	if (sp->nr_def[k] == 2)
		return xstrfmt("not moved: %s() is defined in both %s and %s",
			       func, sp->def[k], sp->other[k]);
	if (sp->nr_def[k] > 2)
		return xstrfmt("not moved: %s() is defined in %s, %s and %zu "
			       "other files",
			       func, sp->def[k], sp->other[k],
			       sp->nr_def[k] - 2);
	if (sp->drifted[k])
		return xstrfmt("not moved: drifted lines in %s, the one file "
			       "defining %s()",
			       sp->def[k], func);
	while (j < sp->pf->nr_hunks &&
	       (j == k || (out->hunk_to && out->hunk_to[j]) ||
		sp->ar->hunks[j].rule != RULE_CONFLICT))
		j++;
	return xstrfmt("not moved to %s, the one file defining %s(): hunk "
		       "%zu stays a conflict (a file patch moves whole or not "
		       "at all)",
		       sp->def[k], func, j + 1);
}

/* Rule 1 declined sp: each hunk looked for says why. */
static void split_refused(const struct moved_split *sp,
			  const struct moved_out *out)
{
	for (size_t k = 0; k < sp->pf->nr_hunks; k++) {
		char *why;

		if (!split_wants(sp, k))
			continue;
		why = split_why(sp, out, k);
		add_reason(&sp->ar->hunks[k], why);
		free(why);
	}
}

/*
 * Every conflicting hunk of sp placed (out->hunk_to): sp->ar takes their
 * results, adapted; pf's own file, when it keeps the others, is written
 * as they left it.
 */
static void split_take(struct moved_split *sp, struct moved_out *out)
{
	struct apply_file_result *ar = sp->ar;

	ar->risk = false;
	for (size_t k = 0; k < sp->pf->nr_hunks; k++) {
		if (out->hunk_to[k]) {
			struct apply_hunk_result tmp = ar->hunks[k];

			ar->hunks[k] = sp->got->hunks[k];
			sp->got->hunks[k] = tmp;
			if (!out->moved_to)
				out->moved_to = xstrdup(out->hunk_to[k]);
		}
		ar->risk |= ar->hunks[k].risk;
	}
	if (sp->own) {
		struct moved_file *mf;

		ALLOC_GROW(out->files, out->nr_files + 1, out->alloc_files);
		mf = &out->files[out->nr_files++];
		mf->path = xstrdup(sp->own->path);
		mf->mode = sp->own->mode;
		buf_init(&mf->text, 0);
		buf_swap(&mf->text, &ar->out);
	}
	ar->outcome = OUTCOME_ADAPTED;
	free(ar->reason);
	ar->reason = NULL;
	buf_reset(&ar->rej);
	buf_reset(&ar->out);
}

/*
 * Rule 1 hunk by hunk, set up in sp: the files under its folder with the
 * extension ext are searched for each wanted hunk's function, and each
 * goes to its one file; when every conflicting hunk is placed so, ar
 * takes them, else each wanted hunk's reason says why not.
 */
static int split_run(struct moved_split *sp, struct moved_out *out,
		     const char *ext, struct err *err)
{
	struct apply_file_result got;
	char *up = NULL;
	bool whole = true;
	int error;

	apply_file_result_init(&got);
	sp->got = &got;
	split_alloc(sp);
	if ((error = split_search(sp, ext, &up, err)) < 0)
		goto out;
	got.hunks = xcalloc(sp->pf->nr_hunks + 1, sizeof(*got.hunks));
	got.nr_hunks = sp->pf->nr_hunks;
	if (split_found(sp) && (error = place_split(out, sp, err)) < 0)
		goto out;
	for (size_t k = 0; k < sp->pf->nr_hunks; k++)
		if (!(out->hunk_to && out->hunk_to[k]) &&
		    sp->ar->hunks[k].rule == RULE_CONFLICT)
			whole = false;
	if (whole) {
		split_take(sp, out);
	} else {
		/* a file patch is moved whole or not at all: a person
		 * places the rest better knowing where this went; for a file
		 * that exists, only when some function was found elsewhere
		 * (else its cause, "F has no f()", says it all) */
		if (!sp->gone || split_defined(sp))
			split_refused(sp, out);
		moved_out_release(out);
	}
out:
	if (error < 0)
		moved_out_release(out);
	apply_file_result_release(&got);
	split_free(sp);
	free(up);
	return error;
}

/*
 * Rule 1 hunk by hunk (no one file takes the file patch, missing or
 * having lost every hunk's function): every hunk conflicts, and each is
 * looked for.
 */
static int adapt_split(struct apply_file_result *ar, struct moved_out *out,
		       const struct patch_file *pf, const char *gone,
		       struct moved_ctx *mc, struct err *err)
{
	struct moved_split sp = { 0 };
	const char *ext;
	char *dir = folder_of(pf->old_path, &ext);
	int error = 0;

	if (!c_source(pf->old_path) || ar->nr_hunks != pf->nr_hunks)
		goto out;
	for (size_t k = 0; k < pf->nr_hunks; k++)
		if (ar->hunks[k].rule != RULE_CONFLICT)
			goto out;
	sp.pf = pf;
	sp.ar = ar;
	sp.gone = gone;
	sp.under = dir;
	sp.mc = mc;
	error = split_run(&sp, out, ext, err);
out:
	free(dir);
	return error;
}

/*
 * Rule 1 for a file that exists and keeps some hunks (own: it as the
 * patch has left it, ar's result there): each hunk that conflicts in a
 * function its header names and own no longer defines (btrfs 6.2 moved
 * the defrag code out of ioctl.c into defrag.c) is looked for under the
 * folder; the others stay in own.
 */
static int adapt_mixed(struct apply_file_result *ar, struct moved_out *out,
		       const struct patch_file *pf,
		       const struct moved_file *own, struct moved_ctx *mc,
		       struct err *err)
{
	struct moved_split sp = { 0 };
	struct span old = { own->text.ptr, own->text.len };
	bool *want = xcalloc(pf->nr_hunks + 1, sizeof(*want));
	const char *ext, *gone = NULL;
	char *dir = folder_of(pf->old_path, &ext);
	int error = 0;

	if (!c_source(pf->old_path) || ar->nr_hunks != pf->nr_hunks)
		goto out;
	for (size_t k = 0; k < pf->nr_hunks; k++) {
		const struct apply_hunk_result *r = &ar->hunks[k];

		want[k] = r->rule == RULE_CONFLICT && r->func &&
			  header_names(&pf->hunks[k], r->func) &&
			  !defines(old, pf->old_path, r->func);
		if (want[k] && !gone)
			gone = r->func;
	}
	if (!gone)
		goto out;
	sp.pf = pf;
	sp.ar = ar;
	sp.gone = gone;
	sp.under = dir;
	sp.want = want;
	sp.own = own;
	sp.mc = mc;
	error = split_run(&sp, out, ext, err);
out:
	free(want);
	free(dir);
	return error;
}

/*
 * Rule 1 for pf's file, which exists (gone: its hunks' functions are all
 * gone from it): hunk by hunk when it keeps some of its hunks.
 */
static int moved_kept(struct apply_file_result *ar, struct moved_out *out,
		      const struct patch_file *pf, struct moved_ctx *mc,
		      bool *exists, struct err *err)
{
	struct moved_file own = { (char *)pf->old_path, 0, BUF_INIT };
	int error;

	if ((error = mc->read(&own.text, exists, &own.mode, pf->old_path, mc,
			      err)) == 0 &&
	    *exists)
		error = adapt_mixed(ar, out, pf, &own, mc, err);
	buf_release(&own.text);
	return error;
}

/* Rule 1 (adapt_move.h). */
int adapt_moved(struct apply_file_result *ar, struct moved_out *out,
		const struct patch_file *pf, const char *gone,
		struct moved_ctx *mc, struct err *err)
{
	struct moved_search ms = { pf, { 0 }, NULL, NULL, 0, 0 };
	const char *ext, *exts[2] = { NULL, NULL }, *base;
	struct tree_list_opts lo = { NULL, false, NULL };
	char *dir = NULL, *up = NULL, *alone = NULL;
	bool exists = false;
	int error = 0;

	memset(out, 0, sizeof(*out));
	if (mc->apply->no_adapt || pf->op != PATCH_MODIFY ||
	    !pf->old_path || !pf->nr_hunks)
		return 0;
	if (!gone && ((error = moved_kept(ar, out, pf, mc, &exists, err)) < 0 ||
		      exists))
		return error;
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
		if ((error = search_holders(&ms, &lo, base, mc, err)) < 0 ||
		    (!ms.holders &&
		     (error = search_farther(&ms, dir, up, mc, &alone, err)) <
			     0))
			goto out;
	}
	if (ms.holders == 1) {
		mark_moved(&ms.best, pf, ms.found, gone, NULL,
			   same_folder(pf->old_path, ms.found) ? "its folder"
			   : alone ? alone
				   : "the files of its name nearby");
		apply_file_result_release(ar);
		*ar = ms.best;
		out->moved_to = ms.found;
		out->mode = ms.mode;
		ms.found = NULL;
		ms.holders = 0;
	} else if (!ms.holders) {
		error = adapt_split(ar, out, pf, gone, mc, err);
	} else {
		holders_refused(ar, &ms);
	}
out:
	if (ms.holders)
		apply_file_result_release(&ms.best);
	free(ms.found);
	free(ms.second);
	free(dir);
	free(up);
	free(alone);
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
