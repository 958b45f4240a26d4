#include "rebase.h"

#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "fs.h"
#include "mail.h"

#define MAX_ALIGN_LINES 20000 /* larger hunks are not aligned by content */

const char *rebase_status_name(enum rebase_status s)
{
	static const char *const names[] = { "reused", "updated", "new",
					     "dropped", "needs a person" };
	return names[s];
}

/* ---- the interdiff of one file ---------------------------------------- */

struct line {
	struct span text;
	char kind;
	bool no_eol;
};

/* One hunk laid on the base: its preimage lines and where they start. */
struct laid {
	const struct patch_hunk *h;
	long start;         /* 0-based base line of its first preimage line */
	long count;         /* preimage lines */
	struct line *pre;   /* its preimage (' ' and '-') */
	bool side2;
};

static void lay(struct laid *l, const struct patch_hunk *h, bool side2)
{
	memset(l, 0, sizeof(*l));
	l->h = h;
	l->side2 = side2;
	l->count = (long)h->old_count;
	l->start = h->old_count ? (long)h->old_start - 1 : (long)h->old_start;
	l->pre = xcalloc(h->nr_lines + 1, sizeof(*l->pre));
	for (size_t i = 0, n = 0; i < h->nr_lines; i++)
		if (h->lines[i].kind != '+') {
			l->pre[n].text = h->lines[i].text;
			l->pre[n].kind = h->lines[i].kind;
			l->pre[n++].no_eol = h->lines[i].no_eol;
		}
}

static bool same_text(struct span a, struct span b)
{
	return a.len == b.len && !memcmp(a.ptr, b.ptr, a.len);
}

/* The side-1 preimage line at base position pos, or NULL. */
static const struct line *known1(const struct laid *h1, size_t n1, long pos)
{
	for (size_t m = 0; m < n1; m++)
		if (pos >= h1[m].start && pos < h1[m].start + h1[m].count)
			return &h1[m].pre[pos - h1[m].start];
	return NULL;
}

struct fit {
	long equal, drift;
	bool bad;
};

/* How h2's preimage fits side 1's known lines when shifted by delta. */
static struct fit fit(const struct laid *h1, size_t n1, const struct laid *h2,
		      long delta)
{
	struct fit f = { 0, 0, false };

	for (long p = 0; p < h2->count && !f.bad; p++) {
		const struct line *k = known1(h1, n1, h2->start + delta + p);
		if (!k)
			continue;
		if (same_text(k->text, h2->pre[p].text))
			f.equal++;
		else if (k->kind == ' ' && h2->pre[p].kind == ' ')
			f.drift++; /* the base changed under the context */
		else
			f.bad = true; /* an edited line differs */
	}
	return f;
}

static bool fits(struct fit f)
{
	return !f.bad && f.drift <= f.equal;
}

/*
 * Shift every hunk of side 2 onto side 1's base: the shift that makes the
 * most lines agree with side 1's preimage (the smallest one of equals),
 * else the shift of the nearest hunk before it that has one.
 */
static int align(struct laid *h1, size_t n1, struct laid *h2, size_t n2,
		 struct err *err)
{
	long *shift = xcalloc(n2 + 1, sizeof(long));
	bool *found = xcalloc(n2 + 1, sizeof(bool));
	int error = 0;

	for (size_t k = 0; k < n2; k++) {
		long best_equal = 0, best = 0;

		if (h2[k].count > MAX_ALIGN_LINES)
			continue;
		for (size_t m = 0; m < n1; m++) {
			if (!h1[m].count || h1[m].count > MAX_ALIGN_LINES)
				continue;
			/* every shift that makes the two overlap */
			long first = h1[m].start - h2[k].start -
				     h2[k].count + 1;
			long last = h1[m].start + h1[m].count - 1 -
				    h2[k].start;

			for (long d = first; d <= last; d++) {
				struct fit f = fit(h1, n1, &h2[k], d);
				if (!fits(f) || !f.equal)
					continue;
				if (f.equal > best_equal ||
				    (f.equal == best_equal &&
				     labs(d) < labs(best))) {
					best_equal = f.equal;
					best = d;
				}
			}
		}
		if (best_equal) {
			shift[k] = best;
			found[k] = true;
		}
	}
	for (size_t k = 0; k < n2; k++) {
		if (!found[k]) {
			long s = 0;
			bool have = false;
			for (size_t b = k; b-- > 0 && !have;)
				if (found[b]) {
					s = shift[b];
					have = true;
				}
			for (size_t a = k + 1; a < n2 && !have; a++)
				if (found[a]) {
					s = shift[a];
					have = true;
				}
			shift[k] = s;
		}
		h2[k].start += shift[k];
	}
	for (size_t k = 0; k < n2 && !error; k++) {
		struct fit f = fit(h1, n1, &h2[k], 0);
		if (!fits(f))
			error = err_set(err, ERR_CONFLICT,
					"hunk %zu of V2 edits lines V1's hunks "
					"have otherwise",
					k + 1);
		else if (k && h2[k].start < h2[k - 1].start + h2[k - 1].count)
			error = err_set(
				err, ERR_CONFLICT,
				"the hunks of V2 do not lie in V1's order");
	}
	free(shift);
	free(found);
	return error;
}

static int cmp_laid(const void *x, const void *y)
{
	const struct laid *a = *(const struct laid *const *)x;
	const struct laid *b = *(const struct laid *const *)y;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->side2 != b->side2)
		return a->side2 ? 1 : -1;
	return a < b ? -1 : a > b;
}

struct lines {
	struct line *v;
	size_t nr, alloc;
};

static void push(struct lines *ls, struct span text, char kind, bool no_eol)
{
	ALLOC_GROW(ls->v, ls->nr + 1, ls->alloc);
	ls->v[ls->nr].text = text;
	ls->v[ls->nr].kind = kind;
	ls->v[ls->nr++].no_eol = no_eol;
}

/* The lines [lo, hi) of the base, base[0] being line lo. */
struct base_range {
	const struct line *base;
	long lo, hi;
};

/* What one side's hunks make of the range br of the base. */
static void post_image(struct lines *out, struct laid *const *g, size_t ng,
		       bool side2, const struct base_range *br)
{
	const struct line *base = br->base;
	long lo = br->lo, hi = br->hi;
	long pos = lo;

	for (size_t i = 0; i < ng; i++) {
		const struct laid *l = g[i];
		if (l->side2 != side2)
			continue;
		for (; pos < l->start; pos++)
			push(out, base[pos - lo].text, ' ',
			     base[pos - lo].no_eol);
		for (size_t k = 0; k < l->h->nr_lines; k++) {
			const struct patch_line *pl = &l->h->lines[k];
			if (pl->kind == ' ') {
				/* the base's text: side 2's context may have
				 * drifted */
				push(out, base[pos - lo].text, ' ', pl->no_eol);
				pos++;
			} else if (pl->kind == '-')
				pos++;
			else
				push(out, pl->text, '+', pl->no_eol);
		}
	}
	for (; pos < hi; pos++)
		push(out, base[pos - lo].text, ' ', base[pos - lo].no_eol);
}

static void join(struct buf *out, const struct lines *ls)
{
	buf_reset(out);
	for (size_t i = 0; i < ls->nr; i++) {
		buf_addspan(out, ls->v[i].text);
		buf_addc(out, '\n');
	}
}

static void add_line(struct buf *out, char kind, const struct line *l)
{
	buf_addc(out, kind);
	buf_addspan(out, l->text);
	buf_addc(out, '\n');
	if (l->no_eol)
		buf_adds(out, "\\ No newline at end of file\n");
}

/* The interdiff hunks of one group of overlapping hunks. */
static int group_hunks(struct buf *out, long *new_shift,
		       struct laid *const *g, size_t ng, long p1_start,
		       struct err *err)
{
	long lo = g[0]->start, hi = lo;
	struct line *base;
	struct lines post1 = { 0 }, post2 = { 0 };
	struct buf t1 = BUF_INIT, t2 = BUF_INIT;
	struct tree_diff td;
	struct span section = SPAN_NULL;
	int error;

	for (size_t i = 0; i < ng; i++)
		if (g[i]->start + g[i]->count > hi)
			hi = g[i]->start + g[i]->count;
	base = xcalloc((size_t)(hi - lo) + 1, sizeof(*base));
	/* side 1's text wins where both know a line */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < ng; i++)
			if (g[i]->side2 == !pass)
				for (long p = 0; p < g[i]->count; p++)
					base[g[i]->start + p - lo] =
						g[i]->pre[p];
	for (size_t i = 0; i < ng && !section.len; i++)
		if (!g[i]->side2)
			section = g[i]->h->section;
	for (size_t i = 0; i < ng && !section.len; i++)
		section = g[i]->h->section;
	{
		struct base_range br = { base, lo, hi };

		post_image(&post1, g, ng, false, &br);
		post_image(&post2, g, ng, true, &br);
	}
	join(&t1, &post1);
	join(&t2, &post2);
	if ((error = tree_diff_text(&td, (struct span){ t1.ptr, t1.len },
				    (struct span){ t2.ptr, t2.len }, 3, err)) <
	    0)
		goto out;
	for (size_t h = 0; h < td.nr_hunks; h++) {
		const struct tree_diff_hunk *th = &td.hunks[h];
		/* (for an insertion, the line before it, as diff says) */
		long a = p1_start + (long)th->old_start - 1;

		if (a < 0)
			a = 0;
		buf_addf(out, "@@ -%ld,%zu +%ld,%zu @@", a, th->old_count,
			 a + *new_shift, th->new_count);
		if (section.len) {
			buf_addc(out, ' ');
			buf_addspan(out, section);
		}
		buf_addc(out, '\n');
		for (size_t k = th->first; k < th->first + th->nr; k++) {
			const struct tree_diff_line *l = &td.lines[k];
			if (l->kind == '+')
				add_line(out, '+', &post2.v[l->new_no - 1]);
			else
				add_line(out, l->kind, &post1.v[l->old_no - 1]);
		}
		*new_shift += (long)th->new_count - (long)th->old_count;
	}
	tree_diff_release(&td);
out:
	free(base);
	free(post1.v);
	free(post2.v);
	buf_release(&t1);
	buf_release(&t2);
	return error;
}

int rebase_interdiff(struct buf *out, const struct patch_file *f1,
		     const struct patch_file *f2, struct err *err)
{
	size_t n1 = f1->nr_hunks, n2 = f2->nr_hunks, n = n1 + n2;
	struct laid *h1 = xcalloc(n1 + 1, sizeof(*h1));
	struct laid *h2 = xcalloc(n2 + 1, sizeof(*h2));
	struct laid **all = xcalloc(n + 1, sizeof(*all));
	struct buf hunks = BUF_INIT;
	long new_shift = 0, p1_shift = 0;
	int error = 0;

	buf_reset(out);
	for (size_t i = 0; i < n1; i++) {
		lay(&h1[i], &f1->hunks[i], false);
		all[i] = &h1[i];
	}
	for (size_t i = 0; i < n2; i++) {
		lay(&h2[i], &f2->hunks[i], true);
		all[n1 + i] = &h2[i];
	}
	for (size_t i = 1; i < n1 && !error; i++)
		if (h1[i].start < h1[i - 1].start + h1[i - 1].count)
			error = err_set(err, ERR_CONFLICT,
					"the hunks of V1 overlap");
	if (!error)
		error = align(h1, n1, h2, n2, err);
	if (error)
		goto out;
	qsort(all, n, sizeof(*all), cmp_laid);
	for (size_t i = 0; i < n && !error;) {
		long hi = all[i]->start + all[i]->count;
		size_t j = i + 1;

		/* overlapping or touching hunks form one group */
		while (j < n && all[j]->start <= hi) {
			if (all[j]->start + all[j]->count > hi)
				hi = all[j]->start + all[j]->count;
			j++;
		}
		error = group_hunks(&hunks, &new_shift, all + i, j - i,
				    all[i]->start + 1 + p1_shift, err);
		for (size_t k = i; k < j; k++)
			if (!all[k]->side2)
				p1_shift += (long)all[k]->h->new_count -
					    (long)all[k]->h->old_count;
		i = j;
	}
	if (!error && hunks.len) {
		const char *p = patch_file_path(f2);
		buf_addf(out, "--- a/%s\n+++ b/%s\n", p, p);
		buf_add(out, hunks.ptr, hunks.len);
	}
out:
	for (size_t i = 0; i < n1; i++)
		free(h1[i].pre);
	for (size_t i = 0; i < n2; i++)
		free(h2[i].pre);
	free(h1);
	free(h2);
	free(all);
	buf_release(&hunks);
	return error;
}

/* ---- carrying V2 ------------------------------------------------------- */

void rebase_result_release(struct rebase_result *r)
{
	for (size_t i = 0; i < r->nr; i++)
		free(r->patches[i].why);
	free(r->patches);
	free(r->series);
	free(r->v1);
	free(r->v2);
	free(r->target);
	carry_result_release(&r->carry);
	memset(r, 0, sizeof(*r));
}

/* The same hunks, line numbers and sections aside. */
static bool same_hunks(const struct patch_file *a, const struct patch_file *b)
{
	if (a->nr_hunks != b->nr_hunks || a->binary || b->binary)
		return false;
	for (size_t h = 0; h < a->nr_hunks; h++) {
		const struct patch_hunk *x = &a->hunks[h], *y = &b->hunks[h];
		if (x->nr_lines != y->nr_lines)
			return false;
		for (size_t l = 0; l < x->nr_lines; l++)
			if (x->lines[l].kind != y->lines[l].kind ||
			    x->lines[l].no_eol != y->lines[l].no_eol ||
			    !same_text(x->lines[l].text, y->lines[l].text))
				return false;
	}
	return true;
}

static bool same_paths(const struct patch_file *a, const struct patch_file *b)
{
	return a->op == b->op &&
	       !strcmp(a->old_path ? a->old_path : "",
		       b->old_path ? b->old_path : "") &&
	       !strcmp(a->new_path ? a->new_path : "",
		       b->new_path ? b->new_path : "");
}

/* Everything the walk needs to know of the target and of V1's backport. */
struct walk {
	struct job *j;
	const struct series_version *v1, *v2;
	const struct rebase_opts *opts;
	struct carry_opts co; /* with the job's blob loader */
	struct carry_result c1;
	struct tree_oid *pre1, *post1; /* trees around each V1 patch */
	struct tree_oid tree, commit;  /* V2 so far */
	struct buf why;
};

struct file_change {
	char *path;
	bool remove;
	struct buf data;
	unsigned mode;
};

struct changes {
	struct file_change *v;
	size_t nr, alloc;
};

/* What carrying one patch through V1's backport gives. */
struct carried {
	bool ok;        /* every file could be carried */
	bool interdiff; /* some file needed the interdiff */
	struct changes ch;
};

static void changes_release(struct changes *c)
{
	for (size_t i = 0; i < c->nr; i++) {
		free(c->v[i].path);
		buf_release(&c->v[i].data);
	}
	free(c->v);
	memset(c, 0, sizeof(*c));
}

static struct file_change *change_for(struct changes *c, const char *path)
{
	struct file_change *fc;

	ALLOC_GROW(c->v, c->nr + 1, c->alloc);
	fc = &c->v[c->nr++];
	memset(fc, 0, sizeof(*fc));
	fc->path = xstrdup(path);
	buf_init(&fc->data, 0);
	return fc;
}

struct file_state {
	struct buf data;
	bool exists;
	unsigned mode;
};

static int read_state(struct file_state *s, struct walk *w,
		      const struct tree_oid *tree, const char *path,
		      struct err *err)
{
	buf_init(&s->data, 0);
	s->exists = false;
	s->mode = 0;
	return tree_read_file(&s->data, &s->exists, &s->mode, w->j->repo, tree,
			      path, err);
}

static struct span state_span(const struct file_state *s)
{
	return (struct span){ s->data.ptr, s->data.len };
}

/*
 * One file of V2's patch applied as apply would apply it; false (and why)
 * when it does not apply cleanly enough to be taken without a person.
 */
static int plain_file(struct carried *cd, struct walk *w,
		      const struct patch_file *f, struct err *err)
{
	struct changes *out = &cd->ch;
	const char *src = f->old_path ? f->old_path : f->new_path;
	struct file_state x;
	struct apply_file_result ar;
	struct err ferr = ERR_INIT;
	int error;

	cd->ok = false;
	if ((error = read_state(&x, w, &w->tree, src, err)) < 0)
		return error;
	apply_file_result_init(&ar);
	if (apply_file(&ar, f, state_span(&x), x.exists, &w->co.apply, &ferr) <
		    0 ||
	    ar.risk ||
	    (ar.outcome > OUTCOME_3WAY && ar.outcome != OUTCOME_ALREADY)) {
		buf_addf(&w->why, "%s: %s's change %s", patch_file_path(f),
			 w->v2->version,
			 ferr.msg.len ? ferr.msg.ptr
			 : ar.risk    ? "lands at a risky place"
				      : "conflicts");
	} else if (ar.outcome != OUTCOME_ALREADY) {
		if (ar.deleted)
			change_for(out, f->old_path)->remove = true;
		else {
			struct file_change *fc = change_for(out, f->new_path);
			buf_swap(&fc->data, &ar.out);
			fc->mode = f->new_mode ? f->new_mode : x.mode;
			if (f->op == PATCH_RENAME)
				change_for(out, f->old_path)->remove = true;
		}
		cd->ok = true;
	} else
		cd->ok = true;
	err_release(&ferr);
	apply_file_result_release(&ar);
	buf_release(&x.data);
	return 0;
}

/*
 * V1's backported change of one file brought to the tree as it is now (a
 * 3-way merge of the file before and after V1's patch into it), then the
 * interdiff applied on top.
 */
static int backport_file(struct carried *cd, struct walk *w, size_t i,
			 const struct patch_file *f1,
			 const struct patch_file *f2, struct err *err)
{
	const char *path = f2->new_path;
	struct file_state x, x1, y1;
	struct buf merged = BUF_INIT, idiff = BUF_INIT;
	struct patch ip;
	struct err ierr = ERR_INIT;
	bool conflicts = false;
	int error;

	cd->ok = false;
	patch_init(&ip);
	if ((error = read_state(&x, w, &w->tree, path, err)) < 0)
		return error;
	if ((error = read_state(&x1, w, &w->pre1[i], path, err)) < 0 ||
	    (error = read_state(&y1, w, &w->post1[i], path, err)) < 0)
		goto out;
	if (!y1.exists) {
		buf_addf(&w->why, "%s: %s's backport has no such file", path,
			 w->v1->version);
		goto out;
	}
	if (x.exists != x1.exists) {
		buf_addf(&w->why, "%s: the file %s since %s's backport", path,
			 x.exists ? "appeared" : "went away", w->v1->version);
		goto out;
	}
	if (!x.exists || (x.data.len == x1.data.len &&
			  !memcmp(x.data.ptr, x1.data.ptr, x.data.len)))
		buf_add(&merged, y1.data.ptr, y1.data.len);
	else if ((error = tree_merge_file(&merged, &conflicts, state_span(&x1),
					  state_span(&x), state_span(&y1), NULL,
					  err)) < 0)
		goto out;
	if (conflicts) {
		buf_addf(&w->why, "%s: %s's backport conflicts with the "
				  "patches before it",
			 path, w->v1->version);
		goto out;
	}
	if (!same_hunks(f1, f2)) {
		struct apply_file_result ar;
		struct apply_opts ao = w->co.apply;
		struct patch_parse_opts po = { "interdiff", 1, true };

		if (rebase_interdiff(&idiff, f1, f2, &ierr) < 0) {
			buf_addf(&w->why, "%s: %s", path, ierr.msg.ptr);
			goto out;
		}
		if (idiff.len) {
			if ((error = patch_parse(&ip, idiff.ptr, idiff.len, &po,
						 err)) < 0)
				goto out;
			if (ip.nr_files != 1)
				BUG("an interdiff of %zu files", ip.nr_files);
			ao.load_blob = NULL;
			apply_file_result_init(&ar);
			if (apply_file(&ar, &ip.files[0],
				       (struct span){ merged.ptr, merged.len },
				       true, &ao, &ierr) < 0 ||
			    ar.risk ||
			    (ar.outcome > OUTCOME_3WAY &&
			     ar.outcome != OUTCOME_ALREADY)) {
				buf_addf(&w->why,
					 "%s: the %s->%s interdiff %s on %s's "
					 "backport",
					 path, w->v1->version, w->v2->version,
					 ar.risk ? "lands at a risky place"
						 : "conflicts",
					 w->v1->version);
				apply_file_result_release(&ar);
				goto out;
			}
			if (ar.outcome != OUTCOME_ALREADY)
				buf_swap(&merged, &ar.out);
			apply_file_result_release(&ar);
			cd->interdiff = true;
		}
	}
	{
		struct file_change *fc = change_for(&cd->ch, path);
		buf_swap(&fc->data, &merged);
		fc->mode = f2->new_mode ? f2->new_mode
			   : y1.mode	? y1.mode
					: x.mode;
	}
	cd->ok = true;
out:
	patch_release(&ip);
	err_release(&ierr);
	buf_release(&merged);
	buf_release(&idiff);
	buf_release(&x.data);
	buf_release(&x1.data);
	buf_release(&y1.data);
	return error;
}

/* V2's patch carried through V1's backport of patch i: *out, cd->ok. */
static int backport(struct carried *cd, struct tree_oid *out, struct walk *w,
		    size_t i, const struct patch *p2, struct err *err)
{
	const struct patch *p1 = &w->v1->items[i].patch;
	struct tree_change *tc = NULL;
	int error = 0;

	cd->ok = true;
	for (size_t f = 0; f < p2->nr_files && cd->ok && !error; f++) {
		const struct patch_file *f2 = &p2->files[f];
		const struct patch_file *f1 = NULL;

		for (size_t g = 0; g < p1->nr_files && !f1; g++)
			if (same_paths(&p1->files[g], f2))
				f1 = &p1->files[g];
		if (f1 && !f2->binary &&
		    (f2->op == PATCH_MODIFY || f2->op == PATCH_ADD))
			error = backport_file(cd, w, i, f1, f2, err);
		else
			error = plain_file(cd, w, f2, err);
	}
	if (error || !cd->ok)
		return error;
	tc = xcalloc(cd->ch.nr + 1, sizeof(*tc));
	for (size_t k = 0; k < cd->ch.nr && !error; k++) {
		const struct file_change *fc = &cd->ch.v[k];
		tc[k].path = fc->path;
		tc[k].remove = fc->remove;
		tc[k].mode = fc->mode ? fc->mode : 0100644;
		if (!tc[k].remove)
			error = tree_write_blob(&tc[k].blob, w->j->repo,
						fc->data.ptr, fc->data.len,
						err);
	}
	if (!error)
		error = tree_update(out, w->j->repo, &w->tree, tc, cd->ch.nr,
				    err);
	free(tc);
	return error;
}

static bool same_oid(const struct tree_oid *a, const struct tree_oid *b)
{
	return !memcmp(a->id, b->id, sizeof(a->id));
}

/* A commit of tree on the walk's head, as carry makes it. */
static int commit_patch(struct tree_oid *commit, struct walk *w,
			const struct tree_oid *tree,
			const struct series_item *it, struct err *err)
{
	const struct patch *p = &it->patch;
	struct tree_person author = { p->author_name, p->author_email, 0, 0 };
	struct tree_person committer = { "kcarry", "kcarry@localhost", 0, 0 };
	struct buf msg = BUF_INIT;
	long long epoch = 0;
	int tz = 0, error;

	if (p->date && mail_parse_date(p->date, &epoch, &tz)) {
		author.when = committer.when = epoch;
		author.tz = committer.tz = tz;
	}
	buf_adds(&msg, p->subject && *p->subject ? p->subject : it->file);
	buf_addc(&msg, '\n');
	if (p->message.len) {
		buf_addc(&msg, '\n');
		buf_add(&msg, p->message.ptr, p->message.len);
		if (msg.ptr[msg.len - 1] != '\n')
			buf_addc(&msg, '\n');
	}
	error = tree_commit(commit, w->j->repo, tree, &w->commit, &author,
			    &committer, msg.ptr, err);
	buf_release(&msg);
	return error;
}

/* V1 carried again: its trees before and after each patch. */
static int carry_v1(struct walk *w, struct err *err)
{
	struct carry_opts co = w->opts->carry;
	struct tree_oid commit = w->j->base;
	int error;

	co.no_ref = true;
	co.progress = NULL;
	if ((error = job_carry(&w->c1, w->j, w->v1, &co, false, err)) < 0)
		return error;
	w->pre1 = xcalloc(w->v1->nr + 1, sizeof(*w->pre1));
	w->post1 = xcalloc(w->v1->nr + 1, sizeof(*w->post1));
	for (size_t i = 0; i < w->v1->nr; i++) {
		if ((error = tree_commit_tree(&w->pre1[i], w->j->repo, &commit,
					      err)) < 0)
			return error;
		if (w->c1.patches[i].committed)
			commit = w->c1.patches[i].commit;
		if ((error = tree_commit_tree(&w->post1[i], w->j->repo, &commit,
					      err)) < 0)
			return error;
	}
	return 0;
}

/*
 * One patch of V2 (use: or a resolution standing for it) carried onto the
 * walk's head exactly as carry_series carries it, through carry_series
 * itself on a version of that one patch: res->patches[0] says how it went
 * and *tree is the tree after it (unchanged when it was not committed).
 */
static int carry_one(struct carry_result *res, struct tree_oid *tree,
		     struct walk *w, const struct series_item *it,
		     const struct patch *use, struct err *err)
{
	struct series_version one;
	struct series_item item = *it; /* borrowed: never released here */
	struct carry_opts co = w->co;
	int error;

	if (use)
		item.patch = *use;
	series_version_init(&one, w->v2->name, w->v2->version);
	one.items = &item;
	one.nr = 1;
	co.no_ref = true;
	co.stop = false;
	co.until = 0;
	co.progress = NULL;
	co.resolution = NULL;
	error = carry_series(res, w->j->repo, &w->commit, &one,
			     w->j->target.name, &co, err);
	one.items = NULL;
	one.nr = 0;
	series_version_release(&one);
	if (!error)
		error = tree_commit_tree(tree, w->j->repo, &res->head, err);
	return error;
}

/* V2's patch went in as carry commits a patch. */
static bool committed_outcome(const struct carry_result *res)
{
	return res->nr == 1 && res->patches[0].committed;
}

static int record(struct walk *w, const char *fingerprint,
		  const struct tree_oid *commit, struct err *err)
{
	struct buf text = BUF_INIT;
	int error;

	if ((error = tree_format_commit(&text, w->j->repo, commit, err)) == 0)
		error = series_write_resolution(w->j->root, w->v2->name,
						fingerprint, text.ptr, text.len,
						err);
	buf_release(&text);
	return error;
}

/* V2's patch k: carried onto the walk's tree, or left to a person. */
static int walk_patch(struct rebase_patch *rp, bool *committed, struct walk *w,
		      size_t k, long i, struct err *err)
{
	const struct series_item *it = &w->v2->items[k];
	const struct patch *p2 = &it->patch;
	struct carry_result cr;
	struct patch replay;
	struct tree_oid plain = w->tree, next = w->tree, commit;
	char fp[41];
	bool take_backport = false, plain_ok, plain_already;
	int rc, error;

	*committed = false;
	buf_reset(&w->why);
	patch_init(&replay);
	memset(&cr, 0, sizeof(cr));
	if (i >= 0)
		rp->v1_resolved = w->c1.patches[i].resolved;
	if ((error = carry_fingerprint(fp, w->j->repo, &w->tree, p2, err)) < 0)
		return error;

	/* a resolution recorded for this patch meeting this tree: carry
	 * will replay it, so does the walk */
	rc = series_read_resolution(&replay, w->j->root, w->v2->name, fp, err);
	if (rc < 0 && rc != ERR_NOTFOUND)
		return rc;
	if (rc == 0 && !replay.nr_files) {
		/* resolved as "nothing to apply here": as carry does */
		err_release(err);
		rp->how = REBASE_HOW_REPLAYED;
		rp->outcome = OUTCOME_ALREADY;
		goto out;
	}
	if (rc == 0) {
		err_release(err);
		if ((error = carry_one(&cr, &next, w, it, &replay, err)) < 0)
			goto out;
		if (!committed_outcome(&cr)) {
			rp->why = xstrfmt("the resolution recorded for it does "
					  "not apply (%s)",
					  apply_outcome_name(cr.worst));
			goto out;
		}
		rp->how = REBASE_HOW_REPLAYED;
		*committed = true;
		goto commit;
	}
	err_release(err);

	if ((error = carry_one(&cr, &plain, w, it, NULL, err)) < 0)
		goto out;
	plain_ok = committed_outcome(&cr);
	plain_already = cr.patches[0].outcome == OUTCOME_ALREADY;
	rp->outcome = cr.patches[0].outcome;
	if (i >= 0 && w->c1.patches[i].committed &&
	    (w->c1.patches[i].resolved || (!plain_ok && !plain_already))) {
		struct carried cd = { false, false, { NULL, 0, 0 } };
		struct tree_oid bp;
		bool ok;

		error = backport(&cd, &bp, w, (size_t)i, p2, err);
		ok = cd.ok;
		changes_release(&cd.ch);
		if (error < 0)
			goto out;
		if (ok && same_oid(&bp, &w->tree)) {
			ok = false;
			buf_addf(&w->why, "%s's backport changes nothing here",
				 w->v1->version);
		}
		if (ok) {
			next = bp;
			rp->how = cd.interdiff ? REBASE_HOW_INTERDIFF
					       : REBASE_HOW_BACKPORT;
			take_backport = true;
			*committed = true;
		} else if (plain_ok) {
			/* V2 applies by itself where V1 needed a person */
			rp->v1_dropped = w->c1.patches[i].resolved;
		} else if (!plain_already) {
			rp->why = buf_detach(&w->why, NULL);
			goto out;
		}
	}
	if (!take_backport) {
		if (plain_ok) {
			next = plain;
			rp->how = REBASE_HOW_APPLIED;
			*committed = true;
		} else if (!plain_already) {
			bool v1_too = i >= 0 && !w->c1.patches[i].committed;
			rp->why = xstrfmt("%s's patch does not apply here "
					  "(%s)%s%s%s",
					  w->v2->version,
					  apply_outcome_name(
						  cr.patches[0].outcome),
					  v1_too ? ", and " : "",
					  v1_too ? w->v1->version : "",
					  v1_too ? "'s did too" : "");
			goto out;
		}
	}
	if (!*committed)
		goto out;
commit:
	if ((error = commit_patch(&commit, w, &next, it, err)) < 0)
		goto out;
	/* what only the backport gives is recorded for V2's patch */
	if (take_backport && !(plain_ok && same_oid(&plain, &next)) &&
	    !w->opts->dry_run) {
		if ((error = record(w, fp, &commit, err)) < 0)
			goto out;
		rp->recorded = true;
	}
	w->tree = next;
	w->commit = commit;
out:
	carry_result_release(&cr);
	patch_release(&replay);
	return error;
}

static int job_load_blob(void *ctx, const char *hex, struct buf *out,
			 struct err *err)
{
	return tree_read_blob_by_id(out, ctx, hex, err);
}

int rebase_target(struct rebase_result *r, struct job *j,
		  const struct series_version *v1,
		  const struct series_version *v2, const struct vdiff *d,
		  const struct rebase_opts *opts, struct err *err)
{
	struct walk w;
	bool *committed = xcalloc(v2->nr + 1, sizeof(bool));
	int error;

	memset(r, 0, sizeof(*r));
	memset(&w, 0, sizeof(w));
	r->series = xstrdup(v2->name);
	r->v1 = xstrdup(v1->version);
	r->v2 = xstrdup(v2->version);
	r->target = xstrdup(j->target.name);
	r->patches = xcalloc(d->nr_pairs + 1, sizeof(*r->patches));
	w.j = j;
	w.v1 = v1;
	w.v2 = v2;
	w.opts = opts;
	w.co = opts->carry;
	w.co.apply.load_blob = job_load_blob;
	w.co.apply.ctx = j->repo;
	buf_init(&w.why, 0);
	if ((error = carry_v1(&w, err)) < 0 ||
	    (error = tree_commit_tree(&w.tree, j->repo, &j->base, err)) < 0)
		goto out;
	w.commit = j->base;
	for (size_t n = 0; n < d->nr_pairs; n++) {
		const struct vdiff_pair *p = &d->pairs[n];
		struct rebase_patch *rp = &r->patches[r->nr++];
		long i = p->status == VDIFF_SAME || p->status == VDIFF_CHANGED
				 ? p->a
				 : -1;

		rp->pairing = p->status;
		rp->v1 = p->a;
		rp->v2 = p->b;
		if (p->b < 0) {
			rp->status = REBASE_DROPPED;
			r->counts[REBASE_DROPPED]++;
			continue;
		}
		if (opts->carry.progress)
			opts->carry.progress(opts->carry.ctx, (size_t)p->b,
					     v2->nr,
					     v2->items[p->b].patch.subject);
		if (p->status != VDIFF_SAME)
			r->nr_changed++;
		if ((error = walk_patch(rp, &committed[p->b], &w, (size_t)p->b,
					i, err)) < 0) {
			err_prefix(err, "%s", v2->items[p->b].file);
			goto out;
		}
		rp->committed = committed[p->b];
		rp->status = rp->why			  ? REBASE_PERSON
			     : p->status == VDIFF_SAME	  ? REBASE_REUSED
			     : p->status == VDIFF_CHANGED ? REBASE_UPDATED
							  : REBASE_NEW;
		r->counts[rp->status]++;
	}
	if (opts->dry_run)
		goto out;

	/* the branch and the refreshed series, as every command carries V2 */
	{
		struct carry_opts co = opts->carry;
		struct tree_oid head;

		if ((error = job_carry(&r->carry, j, v2, &co, opts->refresh,
				       err)) < 0)
			goto out;
		r->carried = true;
		if ((error = tree_commit_tree(&head, j->repo, &r->carry.head,
					      err)) < 0)
			goto out;
		for (size_t n = 0; n < r->nr; n++) {
			struct rebase_patch *rp = &r->patches[n];
			const struct carry_patch *cp;

			if (rp->v2 < 0)
				continue;
			cp = &r->carry.patches[rp->v2];
			rp->outcome = cp->outcome;
			if (cp->committed != rp->committed) {
				error = err_set(err, ERR_CONFLICT,
						"%s: carrying %s@%s with the "
						"recorded resolutions %s the "
						"patch the rebase %s",
						v2->items[rp->v2].file,
						v2->name, v2->version,
						cp->committed ? "commits"
							      : "leaves out",
						rp->committed ? "carried"
							      : "left out");
				goto out;
			}
		}
		if (!same_oid(&head, &w.tree))
			error = err_set(err, ERR_CONFLICT,
					"carrying %s@%s with the recorded "
					"resolutions gives another tree than "
					"the rebase",
					v2->name, v2->version);
		if (error)
			err_hint(err, "this is a bug in kcarry: the branch "
				      "holds what apply gives; please report "
				      "it with the series");
	}
out:
	carry_result_release(&w.c1);
	free(w.pre1);
	free(w.post1);
	buf_release(&w.why);
	free(committed);
	return error;
}
