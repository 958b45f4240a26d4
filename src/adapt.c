#include "adapt.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "apply.h"
#include "cause.h"
#include "cursor.h"
#include "fs.h"
#include "lex.h"

/* How many lines of the target's context an adapted hunk carries. */
#define ADAPT_CONTEXT 3

struct tline {
	struct span s;
	bool eol;
};

struct tlines {
	struct tline *v;
	size_t nr, alloc;
};

static void tlines_split(struct tlines *t, struct span text)
{
	struct cursor c;
	struct span line, full;

	cursor_init(&c, text.ptr ? text.ptr : "", text.len);
	while (cursor_next(&c, &line, &full)) {
		ALLOC_GROW(t->v, t->nr + 1, t->alloc);
		t->v[t->nr].s = line;
		t->v[t->nr].eol = full.len > line.len;
		t->nr++;
	}
}

static bool same_text(struct span a, struct span b)
{
	return a.len == b.len && !memcmp(a.ptr, b.ptr, a.len);
}

/* A line with at least two letters, digits or '_': not "}" nor blank. */
static bool significant(struct span s)
{
	size_t n = 0;

	for (size_t i = 0; i < s.len; i++)
		n += isalnum((unsigned char)s.ptr[i]) || s.ptr[i] == '_';
	return n >= 2;
}

/* A line with 12 letters, digits or '_' or more: one that tells. */
static bool distinctive(struct span s)
{
	size_t n = 0;

	for (size_t i = 0; i < s.len; i++)
		n += isalnum((unsigned char)s.ptr[i]) || s.ptr[i] == '_';
	return n >= 12;
}

const char *adapt_rule_name(enum adapt_rule r)
{
	switch (r) {
	case ADAPT_MOVED:
		return "moved-code";
	case ADAPT_RENAMED_FUNCTION:
		return "renamed-function";
	case ADAPT_RENAMED_IDENTS:
		return "renamed-identifiers";
	case ADAPT_DRIFT:
		return "drifted-context";
	case ADAPT_SERIES_CONVERSION:
		return "series-conversion";
	}
	return "unknown";
}

void adaptation_free(struct adaptation *a)
{
	if (!a)
		return;
	free(a->original);
	free(a->adapted);
	free(a->note);
	free(a->hunk.lines);
	for (size_t i = 0; i < a->nr_texts; i++)
		free(a->texts[i]);
	free(a->texts);
	free(a);
}

struct adaptation *adaptation_dup(const struct adaptation *a)
{
	struct adaptation *d;

	if (!a)
		return NULL;
	d = xcalloc(1, sizeof(*d));
	*d = *a;
	d->original = a->original ? xstrdup(a->original) : NULL;
	d->adapted = a->adapted ? xstrdup(a->adapted) : NULL;
	d->note = a->note ? xstrdup(a->note) : NULL;
	d->hunk.lines = NULL;
	d->hunk.nr_lines = 0;
	d->texts = NULL;
	d->nr_texts = 0;
	return d;
}

static void add_range(struct buf *b, unsigned long start, unsigned long count)
{
	if (count == 1)
		buf_addf(b, "%lu", start);
	else
		buf_addf(b, "%lu,%lu", start, count);
}

void adapt_hunk_place(struct adaptation *a, const struct patch_hunk *h)
{
	struct patch_hunk *n = &a->hunk;

	n->new_start =
		(unsigned long)((long)n->old_start +
				((long)h->new_start - (long)h->old_start));
	if ((long)n->new_start < 1)
		n->new_start = 1;
	n->lineno = h->lineno;
	a->line = n->old_start;
}

void adapt_hunk_text(struct buf *out, const struct patch_hunk *h)
{
	buf_adds(out, "@@ -");
	add_range(out, h->old_start, h->old_count);
	buf_adds(out, " +");
	add_range(out, h->new_start, h->new_count);
	buf_adds(out, " @@");
	if (h->section.len) {
		buf_addc(out, ' ');
		buf_addspan(out, h->section);
	}
	buf_addc(out, '\n');
	for (size_t i = 0; i < h->nr_lines; i++) {
		buf_addc(out, h->lines[i].kind);
		buf_addspan(out, h->lines[i].text);
		buf_addc(out, '\n');
		if (h->lines[i].no_eol)
			buf_adds(out, "\\ No newline at end of file\n");
	}
}

/* The hunk lines [lo, hi] that anchor it, and what they must meet. */
struct core {
	size_t lo, hi;	  /* hunk lines, inclusive */
	struct span *pre; /* their ' ' and '-' lines */
	size_t nr;
	bool removes; /* some are '-' lines */
};

/*
 * The changed lines, from the first to the last, with the context between
 * them; for a hunk that only adds, the context line on each side of the
 * insertion.  False when there is nothing to anchor on.
 */
static bool find_core(struct core *c, const struct patch_hunk *h)
{
	size_t first = h->nr_lines, last = 0;
	bool sig = false;

	for (size_t i = 0; i < h->nr_lines; i++) {
		if (h->lines[i].no_eol)
			return false;
		if (h->lines[i].kind == ' ')
			continue;
		if (first == h->nr_lines)
			first = i;
		last = i;
		c->removes |= h->lines[i].kind == '-';
	}
	if (first == h->nr_lines)
		return false;
	c->lo = first;
	c->hi = last;
	if (!c->removes) {
		if (first == 0 || last + 1 == h->nr_lines)
			return false; /* no line on each side: ambiguous */
		c->lo = first - 1;
		c->hi = last + 1;
	}
	c->pre = xcalloc(c->hi - c->lo + 2, sizeof(*c->pre));
	for (size_t i = c->lo; i <= c->hi; i++) {
		const struct patch_line *l = &h->lines[i];

		if (l->kind == '+')
			continue;
		c->pre[c->nr++] = l->text;
		sig |= significant(l->text) && (l->kind == '-' || !c->removes);
	}
	return sig;
}

/* The function the core's first line is in, as the hunk shows it. */
static char *hunk_function(const struct patch_hunk *h, const struct core *c,
			   const char *func)
{
	struct buf pre = BUF_INIT;
	unsigned long n = 0;
	char *name;

	for (size_t i = 0; i <= c->lo; i++) {
		if (h->lines[i].kind == '+')
			continue;
		buf_addspan(&pre, h->lines[i].text);
		buf_addc(&pre, '\n');
		n++;
	}
	name = apply_enclosing_function((struct span){ pre.ptr, pre.len }, n);
	buf_release(&pre);
	if (!name && func)
		name = xstrdup(func);
	return name;
}

/* Whether lines v[0..n) stand at target line p, each with its newline. */
static bool block_at(const struct tlines *t, const struct span *v, size_t n,
		     size_t p)
{
	if (p + n > t->nr)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!t->v[p + i].eol || !same_text(t->v[p + i].s, v[i]))
			return false;
	return true;
}

static bool core_at(const struct tlines *t, const struct core *c, size_t p)
{
	return block_at(t, c->pre, c->nr, p);
}

static bool in_function(struct span old, const struct tlines *t, size_t p,
			const char *func)
{
	const char *end = t->v[p].s.ptr + t->v[p].s.len;
	char *name;
	bool ok;

	if (!func)
		return true;
	name = apply_enclosing_function(
		(struct span){ old.ptr, (size_t)(end - old.ptr) }, p + 1);
	ok = name && !strcmp(name, func);
	free(name);
	return ok;
}

/*
 * The one place of the core in func; (size_t)-1 when none or several.
 * With alone, also when the core stands anywhere else in the file.
 */
static size_t anchor(const struct tlines *t, const struct core *c,
		     struct span old, const char *func, bool alone)
{
	size_t at = (size_t)-1, n = 0, all = 0;

	for (size_t p = 0; p + c->nr <= t->nr && n < 2; p++) {
		if (!core_at(t, c, p))
			continue;
		if (alone && ++all > 1)
			return (size_t)-1;
		if (in_function(old, t, p, func)) {
			at = p;
			n++;
		}
	}
	return n == 1 ? at : (size_t)-1;
}

/* line with each identifier token "from" written "to" (new string). */
static char *rename_ident(struct span line, const char *from, const char *to)
{
	struct buf b = BUF_INIT;
	struct lexer lx;
	struct token t;
	const char *cur = line.ptr;
	size_t fl = strlen(from);

	lexer_init(&lx, line.ptr, line.len, 1, line.ptr);
	for (lex(&lx, &t); t.type != TOK_EOF; lex(&lx, &t)) {
		if (t.type != TOK_IDENT || !tok_is(&t, from, fl))
			continue;
		buf_add(&b, cur, (size_t)(t.p - cur));
		buf_adds(&b, to);
		cur = t.p + t.len;
	}
	buf_add(&b, cur, (size_t)(line.ptr + line.len - cur));
	return buf_detach(&b, NULL);
}

/* Rename from to to in the hunk's added lines and in its section. */
static void rename_in(struct adaptation *a, const char *from, const char *to)
{
	struct patch_hunk *n = &a->hunk;

	a->texts = xcalloc(n->nr_lines + 2, sizeof(*a->texts));
	for (size_t i = 0; i < n->nr_lines; i++) {
		char *r;

		if (n->lines[i].kind != '+')
			continue;
		r = rename_ident(n->lines[i].text, from, to);
		a->texts[a->nr_texts++] = r;
		n->lines[i].text = (struct span){ r, strlen(r) };
	}
	if (n->section.len) {
		char *r = rename_ident(n->section, from, to);

		a->texts[a->nr_texts++] = r;
		n->section = (struct span){ r, strlen(r) };
	}
}

static void add_line(struct patch_hunk *h, char kind, struct span s)
{
	h->lines[h->nr_lines].kind = kind;
	h->lines[h->nr_lines].no_eol = false;
	h->lines[h->nr_lines].text = s;
	h->nr_lines++;
}

/* The hunk rewritten: the core at target line p, context from t. */
static void rewrite(struct adaptation *a, const struct adapt_in *in,
		    const struct tlines *t, const struct core *c, size_t p)
{
	const struct patch_hunk *h = in->h;
	struct patch_hunk *n = &a->hunk;
	size_t lead = p < ADAPT_CONTEXT ? p : ADAPT_CONTEXT, trail = 0;
	size_t end = p + c->nr, added = 0;

	while (trail < ADAPT_CONTEXT && end + trail < t->nr &&
	       t->v[end + trail].eol)
		trail++;
	n->lines = xcalloc(lead + (c->hi - c->lo + 1) + trail + 1,
			   sizeof(*n->lines));
	for (size_t i = p - lead; i < p; i++)
		add_line(n, ' ', t->v[i].s);
	for (size_t i = c->lo; i <= c->hi; i++) {
		add_line(n, h->lines[i].kind, h->lines[i].text);
		added += h->lines[i].kind == '+';
	}
	for (size_t i = end; i < end + trail; i++)
		add_line(n, ' ', t->v[i].s);
	n->section = h->section;
	n->old_start = p - lead + 1;
	n->old_count = lead + c->nr + trail;
	n->new_count = n->old_count + added;
	for (size_t i = c->lo; i <= c->hi; i++)
		n->new_count -= h->lines[i].kind == '-';
	adapt_hunk_place(a, h);
}

static void adapt_drift_changes(struct adaptation **out,
				const struct adapt_in *in);

/*
 * Whether the lines hunk h adds in [lo, hi] stand in the target already,
 * a file of lines that mean the same wherever they stand (Kconfig,
 * Makefile, text: not C, where a statement may repeat in another
 * function): it adds a distinctive line, and each such line stands there
 * somewhere (the change may be in, elsewhere: adding it again would make
 * it twice).
 */
static bool added_there(const struct tlines *t, const struct patch_hunk *h,
			size_t lo, size_t hi, const char *path)
{
	const char *ext = path ? strrchr(path, '.') : NULL;
	bool any = false;

	if (ext && (!strcmp(ext, ".c") || !strcmp(ext, ".h")))
		return false;

	for (size_t i = lo; i <= hi; i++) {
		size_t p;

		if (h->lines[i].kind != '+' || !distinctive(h->lines[i].text))
			continue;
		for (p = 0; p < t->nr; p++)
			if (same_text(t->v[p].s, h->lines[i].text))
				break;
		if (p == t->nr)
			return false;
		any = true;
	}
	return any;
}

/* Whether adapted hunk a only adds, and what it adds stands in t already. */
static bool adds_twice(const struct adaptation *a, const struct tlines *t,
		       const char *path)
{
	const struct patch_hunk *n = &a->hunk;

	for (size_t i = 0; i < n->nr_lines; i++)
		if (n->lines[i].kind == '-')
			return false;
	return n->nr_lines && added_there(t, n, 0, n->nr_lines - 1, path);
}

void adapt_drift(struct adaptation **out, const struct adapt_in *in)
{
	struct core c = { 0 };
	struct tlines t = { NULL, 0, 0 };
	struct adaptation *a = NULL;
	struct buf b = BUF_INIT;
	char *func = NULL;
	size_t p;

	*out = NULL;
	if (!find_core(&c, in->h))
		goto out;
	tlines_split(&t, in->old);
	func = hunk_function(in->h, &c, in->func);
	if (!c.removes && added_there(&t, in->h, c.lo, c.hi, in->path))
		goto out;
	if ((p = anchor(&t, &c, in->old, func, false)) == (size_t)-1)
		goto out;
	a = xcalloc(1, sizeof(*a));
	a->rule = ADAPT_DRIFT;
	rewrite(a, in, &t, &c, p);
	adapt_hunk_text(&b, in->h);
	a->original = buf_detach(&b, NULL);
	adapt_hunk_text(&b, &a->hunk);
	a->adapted = buf_detach(&b, NULL);
	a->note = xstrfmt("context taken from the target: %s stand once "
			  "%s%s%s, at line %lu",
			  c.removes ? "the lines it removes"
				    : "the lines around its insertion",
			  func ? "in " : "in the file", func ? func : "",
			  func && !strchr(func, '(') ? "()" : "",
			  (unsigned long)p + 1);
	*out = a;
out:
	free(func);
	free(c.pre);
	free(t.v);
	buf_release(&b);
	if (!*out)
		adapt_drift_changes(out, in);
}

/* ---- rule 4, change by change ----------------------------------------- */

/*
 * When the hunk's changed lines no longer stand together (an insertion
 * whose neighbours drifted apart, two changes with new lines between
 * them), each run of changed lines (a change) is anchored on its own, in
 * the hunk's order: a change that removes lines on those lines, one that
 * only adds on the context next to it, on one side when the other side
 * is gone.
 */

#define ADAPT_SIDE 3	    /* context lines looked at on each side */
#define ADAPT_MAX_CHANGES 8 /* changes in one hunk */
#define ADAPT_MAX_SORTED 16 /* lines between two anchors sorted through */
#define ADAPT_MAX_SPREAD 16 /* new target lines between two changes */

enum side_found { SIDE_NONE, SIDE_ONE, SIDE_AMBIG };

enum change_how {
	HOW_REMOVED, /* on the lines it removes */
	HOW_BETWEEN, /* between the context on both sides */
	HOW_AFTER,   /* after the context before it; the rest is gone */
	HOW_BEFORE,  /* before the context after it; the rest is gone */
	HOW_SORTED,  /* in order in a sorted list between both sides */
};

struct change {
	size_t lo, hi; /* its hunk lines, inclusive */
	size_t at;     /* the target line it starts at (0-based) */
	size_t nr_old; /* target lines it removes */
	enum change_how how;
	/* HOW_AFTER, HOW_BEFORE: where the other side's nearest lines
	 * stand, outside the function or the hunk's window (1-based line;
	 * 0: nowhere), and how many times */
	size_t other_at, other_hits;
};

/*
 * The nearest lines of one side of an insertion (v[0..n), in the hunk's
 * order; lead: they come before it) that stand once in func: the most of
 * them that stand somewhere (*k of them); *ins the target line the
 * insertion goes before.  SIDE_AMBIG when they stand twice, SIDE_NONE
 * when no block with a significant line stands at all.
 */
/* Whether 0-based target line p lies between the other hunks. */
static bool in_window(const struct adapt_in *in, size_t p)
{
	return (!in->after || p + 1 > in->after) &&
	       (!in->before || p + 1 < in->before);
}

static enum side_found side_find(const struct tlines *t,
				 const struct adapt_in *in, const char *func,
				 const struct span *v, size_t n, bool lead,
				 size_t *ins, size_t *kk)
{
	for (size_t k = n; k > 0; k--) {
		const struct span *b = lead ? v + n - k : v;
		size_t hits = 0, at = 0;
		bool sig = false;

		for (size_t i = 0; i < k; i++)
			sig |= significant(b[i]);
		if (!sig)
			return SIDE_NONE;
		for (size_t p = 0; p + k <= t->nr && hits < 2; p++) {
			if (!block_at(t, b, k, p) ||
			    !in_window(in, lead ? p + k : p) ||
			    !in_function(in->old, t, lead ? p + k - 1 : p,
					 func))
				continue;
			at = p;
			hits++;
		}
		*kk = k;
		if (hits > 1)
			return SIDE_AMBIG;
		if (hits == 1) {
			*ins = lead ? at + k : at;
			return SIDE_ONE;
		}
	}
	return SIDE_NONE;
}

static int span_cmp(struct span a, struct span b)
{
	int c = memcmp(a.ptr, b.ptr, a.len < b.len ? a.len : b.len);

	return c ? c : (a.len > b.len) - (a.len < b.len);
}

/* The indentation and first word of s ("\tselect"), or 0 without one. */
static size_t first_word(struct span s)
{
	size_t i = 0, w;

	while (i < s.len && (s.ptr[i] == ' ' || s.ptr[i] == '\t'))
		i++;
	w = i;
	while (i < s.len && !isspace((unsigned char)s.ptr[i]))
		i++;
	return i > w && i < s.len ? i : 0;
}

static bool same_word(struct span a, struct span b)
{
	size_t n = first_word(a);

	return n && n == first_word(b) && !memcmp(a.ptr, b.ptr, n);
}

/*
 * The two sides of an insertion stand apart (lines [from, to) between
 * them): the one place where the added lines keep a sorted list sorted
 * (Kconfig's selects, a Makefile's objects), every line from the one
 * before from to the one at to of one kind (same first word) and in
 * strictly ascending order.
 */
static bool sorted_slot(const struct tlines *t, size_t from, size_t to,
			const struct span *add, size_t nr_add, size_t *ins)
{
	if (!from || to >= t->nr || to < from || to - from > ADAPT_MAX_SORTED)
		return false;
	for (size_t i = from - 1; i < to; i++)
		if (!same_word(t->v[i].s, t->v[i + 1].s) ||
		    span_cmp(t->v[i].s, t->v[i + 1].s) >= 0)
			return false;
	for (size_t i = 0; i < nr_add; i++)
		if (!same_word(add[i], t->v[to].s) ||
		    (i && span_cmp(add[i - 1], add[i]) >= 0))
			return false;
	for (size_t i = from; i <= to; i++)
		if (span_cmp(t->v[i - 1].s, add[0]) < 0 &&
		    span_cmp(add[nr_add - 1], t->v[i].s) < 0) {
			*ins = i;
			return true;
		}
	return false;
}

/*
 * The function a change at hunk line lo is in: NULL (the whole file) when
 * the nearest line of the hunk before it that opens a definition is a
 * declaration at file scope ("static int x = 1;"), else as
 * hunk_function says.
 */
static char *change_function(const struct patch_hunk *h, size_t lo,
			     const char *func)
{
	struct core c = { 0 };

	for (size_t i = lo; i-- > 0;) {
		struct span s = h->lines[i].text;
		size_t n = s.len;

		if (h->lines[i].kind == '+' || !s.len ||
		    !(isalpha((unsigned char)s.ptr[0]) || s.ptr[0] == '_'))
			continue;
		while (n && isspace((unsigned char)s.ptr[n - 1]))
			n--;
		if (n && s.ptr[n - 1] == ';')
			return NULL;
		break;
	}
	c.lo = lo;
	return hunk_function(h, &c, func);
}

/* The context lines of h in [lo, hi), at most ADAPT_SIDE nearest to
 * near_end (the end of the range) or its start. */
static size_t side_lines(struct span *v, const struct patch_hunk *h, size_t lo,
			 size_t hi, bool near_end)
{
	size_t n = 0;

	if (hi - lo > ADAPT_SIDE) {
		if (near_end)
			lo = hi - ADAPT_SIDE;
		else
			hi = lo + ADAPT_SIDE;
	}
	for (size_t i = lo; i < hi; i++)
		v[n++] = h->lines[i].text;
	return n;
}

/*
 * Where the side v[0..n) of an insertion that side_find() found nowhere
 * in the function stands in the whole file: its nearest lines, the most
 * of them that stand somewhere (one significant line at least).  The
 * 1-based line of the one next to the insertion, or 0; *hits how often.
 */
static size_t side_elsewhere(const struct tlines *t, const struct span *v,
			     size_t n, bool lead, size_t *hits)
{
	size_t at = 0;

	*hits = 0;
	for (size_t k = n; k > 0 && !*hits; k--) {
		const struct span *b = lead ? v + n - k : v;
		bool sig = false;

		for (size_t i = 0; i < k; i++)
			sig |= significant(b[i]);
		if (!sig)
			break;
		for (size_t p = 0; p + k <= t->nr; p++)
			if (block_at(t, b, k, p) && !(*hits)++)
				at = lead ? p + k : p + 1;
	}
	return at;
}

/* The lines change g removes (rm, g->nr_old of them) stand once in
 * func, between the other hunks: g->at. */
static bool removed_once(struct change *g, const struct adapt_in *in,
			 const struct tlines *t, const struct span *rm,
			 const char *func)
{
	size_t hits = 0;

	for (size_t p = 0; p + g->nr_old <= t->nr && hits < 2; p++)
		if (block_at(t, rm, g->nr_old, p) && in_window(in, p) &&
		    in_function(in->old, t, p, func)) {
			g->at = p;
			hits++;
		}
	return hits == 1;
}

/* Anchor change g (its context runs from hunk line from to line to). */
static bool anchor_change(struct change *g, const struct adapt_in *in,
			  const struct tlines *t, size_t from, size_t to)
{
	const struct patch_hunk *h = in->h;
	struct span pre[ADAPT_SIDE + 1], post[ADAPT_SIDE + 1], *rm, *add;
	size_t nr_rm = 0, nr_add = 0, npre, npost, li = 0, ri = 0, lk = 0,
	       rk = 0;
	enum side_found l, r;
	char *func = change_function(h, g->lo, in->func);
	bool ok = false, sig = false;

	g->other_at = g->other_hits = 0;
	rm = xcalloc(g->hi - g->lo + 2, sizeof(*rm));
	add = xcalloc(g->hi - g->lo + 2, sizeof(*add));
	for (size_t i = g->lo; i <= g->hi; i++) {
		if (h->lines[i].kind == '-') {
			rm[nr_rm++] = h->lines[i].text;
			sig |= significant(h->lines[i].text);
		} else {
			add[nr_add++] = h->lines[i].text;
		}
	}
	g->nr_old = nr_rm;
	if (nr_rm) {
		g->how = HOW_REMOVED;
		ok = sig && removed_once(g, in, t, rm, func);
		goto out;
	}
	if (added_there(t, h, g->lo, g->hi, in->path))
		goto out;
	npre = side_lines(pre, h, from, g->lo, true);
	npost = side_lines(post, h, g->hi + 1, to, false);
	l = side_find(t, in, func, pre, npre, true, &li, &lk);
	r = side_find(t, in, func, post, npost, false, &ri, &rk);
	/* a side that stands in several places, one of them next to the
	 * other side's one place, confirms it; where none is, it tells
	 * nothing about this place */
	if (l == SIDE_ONE && r == SIDE_AMBIG &&
	    !(rk && block_at(t, post, rk, li)))
		r = SIDE_NONE;
	else if (r == SIDE_ONE && l == SIDE_AMBIG &&
		 (ri < lk || !block_at(t, pre + npre - lk, lk, ri - lk)))
		l = SIDE_NONE;
	if (l == SIDE_ONE && r == SIDE_AMBIG)
		r = SIDE_ONE, ri = li;
	else if (r == SIDE_ONE && l == SIDE_AMBIG)
		l = SIDE_ONE, li = ri;
	if (l == SIDE_ONE && r == SIDE_ONE) {
		if (li == ri) {
			g->at = li;
			g->how = HOW_BETWEEN;
			ok = true;
		} else if (sorted_slot(t, li, ri, add, nr_add, &g->at)) {
			g->how = HOW_SORTED;
			ok = true;
		}
	} else if (l == SIDE_ONE && r == SIDE_NONE) {
		g->at = li;
		g->how = HOW_AFTER;
		g->other_at = side_elsewhere(t, post, npost, false,
					     &g->other_hits);
		ok = true;
	} else if (r == SIDE_ONE && l == SIDE_NONE) {
		g->at = ri;
		g->how = HOW_BEFORE;
		g->other_at = side_elsewhere(t, pre, npre, true,
					     &g->other_hits);
		ok = true;
	}
out:
	free(func);
	free(rm);
	free(add);
	return ok;
}

/* The hunk's changes, each with the target's lines between them. */
static void rewrite_changes(struct adaptation *a, const struct patch_hunk *h,
			    const struct tlines *t, const struct change *g,
			    size_t ng)
{
	struct patch_hunk *n = &a->hunk;
	size_t first = g[0].at, end = g[ng - 1].at + g[ng - 1].nr_old;
	size_t lead = first < ADAPT_CONTEXT ? first : ADAPT_CONTEXT, trail = 0;
	size_t added = 0, removed = 0;

	while (trail < ADAPT_CONTEXT && end + trail < t->nr &&
	       t->v[end + trail].eol)
		trail++;
	n->lines = xcalloc(lead + (end - first) + trail + h->nr_lines + 1,
			   sizeof(*n->lines));
	for (size_t i = first - lead; i < first; i++)
		add_line(n, ' ', t->v[i].s);
	for (size_t k = 0; k < ng; k++) {
		for (size_t i = g[k].lo; i <= g[k].hi; i++) {
			add_line(n, h->lines[i].kind, h->lines[i].text);
			added += h->lines[i].kind == '+';
			removed += h->lines[i].kind == '-';
		}
		for (size_t i = g[k].at + g[k].nr_old;
		     k + 1 < ng && i < g[k + 1].at; i++)
			add_line(n, ' ', t->v[i].s);
	}
	for (size_t i = end; i < end + trail; i++)
		add_line(n, ' ', t->v[i].s);
	n->section = h->section;
	n->old_start = first - lead + 1;
	n->old_count = lead + (end - first) + trail;
	n->new_count = n->old_count - removed + added;
	adapt_hunk_place(a, h);
}

/*
 * How change g was anchored, into b.  When one side was not found where
 * the change goes, the note says whether it is gone or stands apart
 * (then a person chooses between the two places).
 */
static void how_text(struct buf *b, const struct change *g)
{
	const char *other = g->how == HOW_AFTER ? "after" : "before";

	switch (g->how) {
	case HOW_REMOVED:
		buf_adds(b, "on the lines it removes");
		return;
	case HOW_BETWEEN:
		buf_adds(b, "between its context lines");
		return;
	case HOW_SORTED:
		buf_adds(b, "in sorted order between its context lines, "
			    "which stand apart");
		return;
	case HOW_AFTER:
		buf_adds(b, "after the context before it");
		break;
	case HOW_BEFORE:
		buf_adds(b, "before the context after it");
		break;
	}
	if (!g->other_hits)
		buf_addf(b, " (the context %s it is gone)", other);
	else if (g->other_hits == 1 &&
		 g->other_at == (g->how == HOW_AFTER ? g->at + 1 : g->at))
		/* the next definition's first lines, say: beside it */
		buf_addf(b, " (the context %s it stands right there, outside "
			    "the function)", other);
	else if (g->other_hits == 1)
		buf_addf(b, " (the context %s it stands apart, at line %zu)",
			 other, g->other_at);
	else
		buf_addf(b, " (the context %s it stands apart, in %zu places)",
			 other, g->other_hits);
}

/* Split h into its changes; false when there are too many, or none. */
static size_t split_changes(struct change *g, const struct patch_hunk *h)
{
	size_t ng = 0;

	for (size_t i = 0; i < h->nr_lines; i++) {
		if (h->lines[i].no_eol)
			return 0;
		if (h->lines[i].kind == ' ')
			continue;
		if (ng && g[ng - 1].hi + 1 == i) {
			g[ng - 1].hi = i;
			continue;
		}
		if (ng == ADAPT_MAX_CHANGES)
			return 0;
		g[ng].lo = g[ng].hi = i;
		ng++;
	}
	return ng;
}

/*
 * Rule 4 change by change: each change of the hunk anchored on its own
 * (see above), in the hunk's order, no two overlapping, at most
 * ADAPT_MAX_SPREAD new lines between two of them.
 */
static void adapt_drift_changes(struct adaptation **out,
				const struct adapt_in *in)
{
	struct change g[ADAPT_MAX_CHANGES];
	struct tlines t = { NULL, 0, 0 };
	struct adaptation *a;
	struct buf b = BUF_INIT;
	size_t ng = split_changes(g, in->h);

	*out = NULL;
	if (!ng)
		return;
	tlines_split(&t, in->old);
	for (size_t k = 0; k < ng; k++) {
		size_t from = k ? g[k - 1].hi + 1 : 0;
		size_t to = k + 1 < ng ? g[k + 1].lo : in->h->nr_lines;
		size_t prev_end = k ? g[k - 1].at + g[k - 1].nr_old : 0;

		if (!anchor_change(&g[k], in, &t, from, to) ||
		    (k && (g[k].at < prev_end ||
			   g[k].at - prev_end >
				   (g[k].lo - from) + ADAPT_MAX_SPREAD)))
			goto out;
	}
	for (size_t i = g[0].at; i < g[ng - 1].at + g[ng - 1].nr_old; i++)
		if (!t.v[i].eol)
			goto out;
	a = xcalloc(1, sizeof(*a));
	a->rule = ADAPT_DRIFT;
	rewrite_changes(a, in->h, &t, g, ng);
	adapt_hunk_text(&b, in->h);
	a->original = buf_detach(&b, NULL);
	adapt_hunk_text(&b, &a->hunk);
	a->adapted = buf_detach(&b, NULL);
	buf_adds(&b, "context taken from the target, each change anchored "
		     "alone: ");
	for (size_t k = 0; k < ng; k++) {
		buf_addf(&b, "%sat line %lu ", k ? "; " : "",
			 (unsigned long)g[k].at + 1);
		how_text(&b, &g[k]);
	}
	a->note = buf_detach(&b, NULL);
	*out = a;
out:
	free(t.v);
	buf_release(&b);
}

void adapt_renamed_function(struct adaptation **out, const struct adapt_in *in)
{
	struct core c = { 0 };
	struct tlines t = { NULL, 0, 0 };
	struct adaptation *a = NULL;
	struct buf b = BUF_INIT;
	char *func = NULL, *alias = NULL;
	unsigned pct = 0;
	size_t p;

	*out = NULL;
	if (!in->func || !in->path || !find_core(&c, in->h))
		goto out;
	/* the changed lines must be in the named function, not in one the
	 * hunk's leading context shows */
	func = hunk_function(in->h, &c, in->func);
	if (!func || strcmp(func, in->func))
		goto out;
	cause_similar_function(&alias, &pct, in->old, in->path, in->h,
			       in->func);
	if (!alias)
		goto out;
	tlines_split(&t, in->old);
	if ((p = anchor(&t, &c, in->old, alias, true)) == (size_t)-1)
		goto out;
	a = xcalloc(1, sizeof(*a));
	a->rule = ADAPT_RENAMED_FUNCTION;
	rewrite(a, in, &t, &c, p);
	rename_in(a, in->func, alias);
	adapt_hunk_text(&b, in->h);
	a->original = buf_detach(&b, NULL);
	adapt_hunk_text(&b, &a->hunk);
	a->adapted = buf_detach(&b, NULL);
	a->note = xstrfmt("%s() is %s() here (%u%% of the hunk's lines): "
			  "placed in it at line %lu, context taken from the "
			  "target",
			  in->func, alias, pct, (unsigned long)p + 1);
	if (adds_twice(a, &t, in->path)) {
		adaptation_free(a);
		goto out;
	}
	*out = a;
out:
	free(func);
	free(alias);
	free(c.pre);
	free(t.v);
	buf_release(&b);
}

/* ---- rule 3: names renamed ------------------------------------------- */

/* A line as tokens, and a hash of its shape (names masked). */
struct tline_toks {
	struct token *v;
	size_t nr, alloc;
	uint64_t shape;
};

static bool is_name(struct token *t)
{
	return t->type == TOK_IDENT && word_class(t) == WORD_NAME;
}

static void lex_line(struct tline_toks *tl, struct span s)
{
	struct lexer lx;
	struct token t;
	uint64_t h = 1469598103934665603ULL;

	lexer_init(&lx, s.ptr, s.len, 1, s.ptr);
	for (lex(&lx, &t); t.type != TOK_EOF; lex(&lx, &t)) {
		ALLOC_GROW(tl->v, tl->nr + 1, tl->alloc);
		tl->v[tl->nr++] = t;
		if (is_name(&tl->v[tl->nr - 1])) {
			h = (h ^ 'I') * 1099511628211ULL;
		} else {
			for (size_t i = 0; i < t.len; i++)
				h = (h ^ (unsigned char)t.p[i]) *
				    1099511628211ULL;
			h = (h ^ 0xff) * 1099511628211ULL;
		}
		h = (h ^ 0x1f) * 1099511628211ULL;
	}
	tl->shape = h;
}

static void toks_release(struct tline_toks *v, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(v[i].v);
	free(v);
}

#define ADAPT_MAX_RENAMED 4    /* names one hunk may see renamed */
#define ADAPT_MAX_PAIRS 64     /* name pairs, kept ones included */
#define ADAPT_MAX_SUB_LINES 64 /* hunk lines a substitution is checked on */

/* name -> name, both into the texts compared; kept names map to
 * themselves, so that a name is never both kept and renamed */
struct name_map {
	struct span from[ADAPT_MAX_PAIRS], to[ADAPT_MAX_PAIRS];
	size_t nr, renamed;
	size_t same, names; /* name tokens alike, name tokens in all */
	/*
	 * One expression of several tokens written another way on every
	 * line that has it (btrfs_root_id(root) -> root->root_key.objectid):
	 * its tokens in the hunk's line, and both texts.
	 */
	const struct token *sub;
	size_t sub_nr;
	struct span sub_from, sub_to;
	bool sub_line; /* the last line aligned through it */
};

static bool pair_renamed(const struct name_map *m, size_t j)
{
	return !same_text(m->from[j], m->to[j]);
}

/*
 * Record a -> b; false when it contradicts the map or overflows it, or
 * when a name is both the hunk's and the target's for different things
 * (a -> b while b -> c, or c -> a): that is a block shifted by a line, no
 * rename.
 */
static bool map_add(struct name_map *m, const struct token *a,
		    const struct token *b)
{
	bool renamed = !(a->len == b->len && !memcmp(a->p, b->p, a->len));

	for (size_t i = 0; i < m->nr; i++) {
		bool fa = tok_is(a, m->from[i].ptr, m->from[i].len);
		bool tb = tok_is(b, m->to[i].ptr, m->to[i].len);

		if (fa || tb)
			return fa && tb;
		if (tok_is(b, m->from[i].ptr, m->from[i].len) ||
		    tok_is(a, m->to[i].ptr, m->to[i].len))
			return false;
	}
	if (m->nr == ADAPT_MAX_PAIRS ||
	    (renamed && m->renamed == ADAPT_MAX_RENAMED))
		return false;
	m->from[m->nr] = (struct span){ a->p, a->len };
	m->to[m->nr] = (struct span){ b->p, b->len };
	m->nr++;
	m->renamed += renamed;
	return true;
}

static bool tok_same(const struct token *x, const struct token *y)
{
	return x->type == y->type && x->len == y->len &&
	       !memcmp(x->p, y->p, x->len);
}

/*
 * An expression that may stand for another: names, numbers and the
 * punctuation of calls, members, indexes and addresses only, brackets
 * balanced, a ',' only inside them, a name first.
 */
static bool expression(const struct token *v, size_t n)
{
	int depth = 0;

	if (!n || v[0].type != TOK_IDENT)
		return false;
	for (size_t i = 0; i < n; i++) {
		const struct token *t = &v[i];

		if (t->type == TOK_IDENT || t->type == TOK_NUMBER)
			continue;
		if (t->type != TOK_PUNCT)
			return false;
		if (TOK_IS(t, "(") || TOK_IS(t, "["))
			depth++;
		else if (TOK_IS(t, ")") || TOK_IS(t, "]"))
			depth--;
		else if (TOK_IS(t, ","))
			depth -= depth ? 0 : 1;
		else if (!TOK_IS(t, ".") && !TOK_IS(t, "->") &&
			 !TOK_IS(t, "*") && !TOK_IS(t, "&"))
			return false;
		if (depth < 0)
			return false;
	}
	return depth == 0;
}

static struct span toks_span(const struct token *v, size_t n)
{
	return (struct span){ v[0].p,
			      (size_t)(v[n - 1].p + v[n - 1].len - v[0].p) };
}

/* Where tokens v[0..n) start the run sub[0..nr) of m; false if not. */
static bool sub_at(const struct name_map *m, const struct token *v, size_t n)
{
	if (!m->sub || n < m->sub_nr)
		return false;
	for (size_t i = 0; i < m->sub_nr; i++)
		if (!tok_same(&v[i], &m->sub[i]))
			return false;
	return true;
}

/*
 * Lines that differ in one run of tokens between a common start and end,
 * each run an expression, at least one of several tokens: the one
 * substitution of m (set here, or the same again); the names around it
 * are kept.
 */
static bool align_sub(struct name_map *m, struct tline_toks *a,
		      struct tline_toks *b)
{
	size_t p = 0, s = 0, na, nb;
	struct span from, to;

	if (!a->nr || !b->nr)	/* an empty line is no expression (and v NULL) */
		return false;
	while (p < a->nr && p < b->nr && tok_same(&a->v[p], &b->v[p]))
		p++;
	while (s < a->nr - p && s < b->nr - p &&
	       tok_same(&a->v[a->nr - 1 - s], &b->v[b->nr - 1 - s]))
		s++;
	na = a->nr - p - s;
	nb = b->nr - p - s;
	if ((na < 2 && nb < 2) || !expression(a->v + p, na) ||
	    !expression(b->v + p, nb))
		return false;
	from = toks_span(a->v + p, na);
	to = toks_span(b->v + p, nb);
	if (m->sub &&
	    (!same_text(m->sub_from, from) || !same_text(m->sub_to, to)))
		return false;
	m->sub = a->v + p;
	m->sub_nr = na;
	m->sub_from = from;
	m->sub_to = to;
	for (size_t i = 0; i < a->nr; i++) {
		if (i == p) {
			i += na - 1;
			continue;
		}
		if (!is_name(&a->v[i]))
			continue;
		m->names++;
		m->same++;
		if (!map_add(m, &a->v[i], &a->v[i]))
			return false;
	}
	m->sub_line = true;
	return true;
}

/*
 * Align one line pair into m; false when they differ but in names (or in
 * the one substitution).
 */
static bool align_line(struct name_map *m, struct tline_toks *a,
		       struct tline_toks *b)
{
	m->sub_line = false;
	if (a->nr != b->nr || a->shape != b->shape)
		return align_sub(m, a, b);
	for (size_t i = 0; i < a->nr; i++) {
		struct token *x = &a->v[i], *y = &b->v[i];
		bool same = x->len == y->len && !memcmp(x->p, y->p, x->len);

		if (is_name(x) && is_name(y)) {
			m->names++;
			m->same += same;
			if (!map_add(m, x, y))
				return false;
		} else if (!same || x->type != y->type) {
			return false;
		}
	}
	return true;
}

/* Some name renamed or substituted, and half the name tokens kept. */
static bool map_plausible(const struct name_map *m)
{
	return (m->renamed > 0 || m->sub) && m->same * 2 >= m->names;
}

/* How many times line l holds the substitution's run. */
static size_t sub_count(const struct name_map *m, const struct tline_toks *l)
{
	size_t n = 0;

	for (size_t i = 0; i < l->nr; i++)
		n += sub_at(m, l->v + i, l->nr - i);
	return n;
}

static bool span_is(struct span s, const char *p, size_t len)
{
	return s.len == len && !memcmp(s.ptr, p, len);
}

/* name contains key as an '_'-separated part (folio in folio_size). */
static bool has_part(const char *p, size_t len, struct span key)
{
	for (size_t i = 0; i + key.len <= len; i++) {
		if (memcmp(p + i, key.ptr, key.len))
			continue;
		if ((i == 0 || p[i - 1] == '_') &&
		    (i + key.len == len || p[i + key.len] == '_'))
			return true;
	}
	return false;
}

/* Whether tokens v[0..n) start a run of the tokens of text. */
static bool run_at(const struct token *v, size_t n, struct span text)
{
	struct tline_toks r = { NULL, 0, 0, 0 };
	bool ok;

	lex_line(&r, text);
	ok = r.nr && n >= r.nr;
	for (size_t i = 0; ok && i < r.nr; i++)
		ok = tok_same(&v[i], &r.v[i]);
	free(r.v);
	return ok;
}

/*
 * Whether tokens v[0..n) start the substitution's run in part only: two
 * of its tokens or more (btrfs_root_id( with another argument), or its
 * first name where the map never saw that name kept.
 */
static bool sub_part(const struct name_map *m, const struct token *v, size_t n)
{
	size_t k = 0;

	while (k < m->sub_nr && k < n && tok_same(&v[k], &m->sub[k]))
		k++;
	if (k >= 2)
		return true;
	if (k == 0)
		return false;
	for (size_t j = 0; j < m->nr; j++)
		if (!pair_renamed(m, j) && span_is(m->from[j], v->p, v->len))
			return false;
	return true;
}

/*
 * line with the map applied to its names and its substitution (new
 * string); NULL when it uses a name the map maps to, one resembling a
 * name it maps from, the substitution's result, or its first name
 * outside it (btrfs_root_id(reloc) where the map knows
 * btrfs_root_id(root)).
 */
static char *map_line(const struct name_map *m, struct span line)
{
	struct buf b = BUF_INIT;
	struct tline_toks l = { NULL, 0, 0, 0 };
	const char *cur = line.ptr;

	lex_line(&l, line);
	for (size_t i = 0; i < l.nr; i++) {
		const struct token *t = &l.v[i];
		size_t j;

		if (t->type == TOK_DIRECTIVE)
			goto refuse; /* names inside it are not seen */
		if (sub_at(m, l.v + i, l.nr - i)) {
			buf_add(&b, cur, (size_t)(t->p - cur));
			buf_addspan(&b, m->sub_to);
			cur = l.v[i + m->sub_nr - 1].p +
			      l.v[i + m->sub_nr - 1].len;
			i += m->sub_nr - 1;
			continue;
		}
		if (m->sub && (sub_part(m, l.v + i, l.nr - i) ||
			       run_at(l.v + i, l.nr - i, m->sub_to)))
			goto refuse;
		if (!is_name(&l.v[i]))
			continue;
		for (j = 0; j < m->nr; j++)
			if (pair_renamed(m, j) &&
			    span_is(m->from[j], t->p, t->len))
				break;
		if (j < m->nr) {
			buf_add(&b, cur, (size_t)(t->p - cur));
			buf_addspan(&b, m->to[j]);
			cur = t->p + t->len;
			continue;
		}
		for (j = 0; j < m->nr; j++)
			if (pair_renamed(m, j) &&
			    (span_is(m->to[j], t->p, t->len) ||
			     has_part(t->p, t->len, m->from[j])))
				goto refuse;
	}
	buf_add(&b, cur, (size_t)(line.ptr + line.len - cur));
	free(l.v);
	return buf_detach(&b, NULL);
refuse:
	free(l.v);
	buf_release(&b);
	return NULL;
}

struct block {
	struct tline_toks *pre; /* the hunk's preimage lines */
	size_t nr;
	struct tline_toks *t; /* the target's lines */
	size_t nr_t;
};

/* The one block of the target aligning with a map; (size_t)-1 if not. */
static size_t align_block(struct name_map *out, const struct block *b,
			  const struct tlines *tl, struct span old,
			  const char *func)
{
	size_t at = (size_t)-1;

	for (size_t p = 0; p + b->nr <= b->nr_t; p++) {
		struct name_map m = { 0 };
		size_t i;

		bool subs[ADAPT_MAX_SUB_LINES] = { false };

		for (i = 0; i < b->nr; i++) {
			if (!tl->v[p + i].eol ||
			    !align_line(&m, &b->pre[i], &b->t[p + i]))
				break;
			subs[i < ADAPT_MAX_SUB_LINES ? i : 0] |= m.sub_line;
		}
		if (i < b->nr)
			continue;
		if (!m.renamed && !m.sub)
			return (size_t)-1; /* it stands as it is: not this rule */
		/* the substitution on every line that had the expression */
		for (i = 0; m.sub && i < b->nr; i++)
			if (i >= ADAPT_MAX_SUB_LINES ||
			    sub_count(&m, &b->pre[i]) != (size_t)subs[i])
				break;
		if (m.sub && i < b->nr)
			continue;
		if (!map_plausible(&m))
			continue;
		if (at != (size_t)-1)
			return (size_t)-1; /* two places */
		at = p;
		*out = m;
	}
	if (at != (size_t)-1 && func) {
		const char *fn = func;

		for (size_t j = 0; j < out->nr; j++)
			if (pair_renamed(out, j) &&
			    span_is(out->from[j], func, strlen(func))) {
				char *to = xstrndup(out->to[j].ptr,
						    out->to[j].len);
				bool ok = in_function(old, tl, at, to);

				free(to);
				return ok ? at : (size_t)-1;
			}
		if (!in_function(old, tl, at, fn))
			return (size_t)-1;
	}
	return at;
}

/* The hunk: the target's block with the added lines, names mapped. */
static bool map_hunk(struct adaptation *a, const struct adapt_in *in,
		     const struct tlines *tl, size_t p,
		     const struct name_map *m)
{
	const struct patch_hunk *h = in->h;
	struct patch_hunk *n = &a->hunk;
	size_t j = p, removed = 0, added = 0;

	n->lines = xcalloc(h->nr_lines + 1, sizeof(*n->lines));
	a->texts = xcalloc(h->nr_lines + 2, sizeof(*a->texts));
	for (size_t i = 0; i < h->nr_lines; i++) {
		char *r;

		if (h->lines[i].kind != '+') {
			add_line(n, h->lines[i].kind, tl->v[j++].s);
			removed += h->lines[i].kind == '-';
			continue;
		}
		if (!(r = map_line(m, h->lines[i].text)))
			return false;
		a->texts[a->nr_texts++] = r;
		add_line(n, '+', (struct span){ r, strlen(r) });
		added++;
	}
	n->section = h->section;
	if (h->section.len) {
		char *r = map_line(m, h->section);

		if (r) {
			a->texts[a->nr_texts++] = r;
			n->section = (struct span){ r, strlen(r) };
		}
	}
	n->old_start = p + 1;
	n->old_count = j - p;
	n->new_count = n->old_count - removed + added;
	adapt_hunk_place(a, h);
	return true;
}

static void map_text(struct buf *b, const struct name_map *m)
{
	bool first = !m->sub;

	if (m->sub) {
		buf_addspan(b, m->sub_from);
		buf_adds(b, " -> ");
		buf_addspan(b, m->sub_to);
	}
	for (size_t j = 0; j < m->nr; j++) {
		if (!pair_renamed(m, j))
			continue;
		buf_adds(b, first ? "" : ", ");
		first = false;
		buf_addspan(b, m->from[j]);
		buf_adds(b, " -> ");
		buf_addspan(b, m->to[j]);
	}
}

/*
 * Every renamed name and the substituted expression of m stand in a
 * context line of the hunk (ctx: which preimage lines are context), or
 * the name is one part of the other (third -> x_third): a name that
 * differs only in a line the hunk removes, into an unrelated one, shows
 * no rename but another line standing there (another counter initialised
 * at that spot), which the proposal would remove.
 */
static bool shown_by_context(const struct name_map *m, const struct block *b,
			     const bool *ctx)
{
	for (size_t j = 0; j < m->nr; j++) {
		bool seen = false;

		if (!pair_renamed(m, j) ||
		    has_part(m->to[j].ptr, m->to[j].len, m->from[j]) ||
		    has_part(m->from[j].ptr, m->from[j].len, m->to[j]))
			continue;
		for (size_t i = 0; i < b->nr && !seen; i++)
			for (size_t t = 0; ctx[i] && t < b->pre[i].nr && !seen;
			     t++)
				seen = tok_is(&b->pre[i].v[t], m->from[j].ptr,
					      m->from[j].len);
		if (!seen)
			return false;
	}
	if (m->sub) {
		size_t i;

		for (i = 0; i < b->nr; i++)
			if (ctx[i] && sub_count(m, &b->pre[i]))
				break;
		if (i == b->nr)
			return false;
	}
	return true;
}

/*
 * Whether renaming a to b keeps half of a's '_'-separated parts
 * (HAVE_FAST_GUP -> HAVE_GUP_FAST keeps all three): a name reworded, not
 * another name standing where it stood.
 */
static bool related_names(struct span a, struct span b)
{
	size_t parts = 0, kept = 0, i = 0;

	while (i < a.len) {
		size_t j = i;

		while (j < a.len && a.ptr[j] != '_')
			j++;
		if (j - i >= 2) {
			parts++;
			kept += has_part(b.ptr, b.len,
					 (struct span){ a.ptr + i, j - i });
		}
		i = j + 1;
	}
	return parts && kept * 2 >= parts;
}

/* The removed lines rm[0..n) aligned with target lines [at, at + n):
 * names renamed only (no substitution), each rename related. */
static bool align_removed(struct name_map *m, const struct tlines *t,
			  size_t at, const struct span *rm, size_t n)
{
	bool ok = true;

	for (size_t i = 0; ok && i < n; i++) {
		struct tline_toks x = { NULL, 0, 0, 0 }, y = { NULL, 0, 0, 0 };

		lex_line(&x, rm[i]);
		lex_line(&y, t->v[at + i].s);
		ok = t->v[at + i].eol && x.nr == y.nr && x.shape == y.shape &&
		     align_line(m, &x, &y) && !m->sub;
		free(x.v);
		free(y.v);
	}
	for (size_t j = 0; ok && j < m->nr; j++)
		ok = !pair_renamed(m, j) || related_names(m->from[j], m->to[j]);
	return ok && m->renamed && map_plausible(m);
}

/*
 * One edit between the line a hunk removes and the target's line in its
 * place: a run of at most ADAPT_MAX_EDIT tokens added or dropped between
 * two common tokens before it and one after (STRICT, | LEGACY -> STRICT,
 * EMULATED, | LEGACY: an enum member added).
 */
#define ADAPT_MAX_EDIT 4

struct line_edit {
	struct tline_toks a, b; /* the removed line, the target's */
	size_t p, s;		/* common tokens at the start, at the end */
	size_t g0, g1;		/* the bracketed list of a holding the edit */
	struct span to;		/* the target's text between them */
};

static bool opener(const struct token *t)
{
	return TOK_IS(t, "(") || TOK_IS(t, "[") || TOK_IS(t, "{");
}

static bool closer(const struct token *t)
{
	return TOK_IS(t, ")") || TOK_IS(t, "]") || TOK_IS(t, "}");
}

/*
 * The innermost bracketed list of the removed line around the edit (from
 * its opening to its closing token), or the whole line: the added lines
 * must hold it unchanged, so that the edit lands in a list the hunk does
 * not change itself (a call whose argument the hunk drops, meeting a
 * target call with one more argument, is not).
 */
static void edit_group(struct line_edit *e)
{
	size_t na = e->a.nr;
	int depth = 0;

	e->g0 = 0;
	e->g1 = na - 1;
	for (size_t i = e->p; i-- > 0;) {
		if (closer(&e->a.v[i]))
			depth++;
		else if (opener(&e->a.v[i]) && !depth--) {
			e->g0 = i;
			break;
		}
	}
	depth = 0;
	for (size_t i = na - e->s; i < na; i++) {
		if (opener(&e->a.v[i]))
			depth++;
		else if (closer(&e->a.v[i]) && !depth--) {
			e->g1 = i;
			break;
		}
	}
	if (e->g0 == 0 || e->g1 == na - 1) {
		e->g0 = 0;
		e->g1 = na - 1;
	}
}

static bool plain_tokens(const struct token *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].type != TOK_IDENT && v[i].type != TOK_NUMBER &&
		    v[i].type != TOK_PUNCT)
			return false;
	return true;
}

static bool find_edit(struct line_edit *e, struct span rm, struct span tg)
{
	size_t na, nb, key_names = 0;

	lex_line(&e->a, rm);
	lex_line(&e->b, tg);
	na = e->a.nr;
	nb = e->b.nr;
	while (e->p < na && e->p < nb && tok_same(&e->a.v[e->p], &e->b.v[e->p]))
		e->p++;
	while (e->s < na - e->p && e->s < nb - e->p &&
	       tok_same(&e->a.v[na - 1 - e->s], &e->b.v[nb - 1 - e->s]))
		e->s++;
	/* tokens added or dropped, never written another way: a name
	 * changed (fs->evictable against fs->dirty) is another line standing
	 * there unless rule 3's kindred-name test says it is a rename */
	if (e->p < 2 || !e->s || (na - e->p - e->s && nb - e->p - e->s) ||
	    na == nb || na - e->p - e->s > ADAPT_MAX_EDIT ||
	    nb - e->p - e->s > ADAPT_MAX_EDIT ||
	    !plain_tokens(e->a.v + e->p - 2, na - e->p - e->s + 3) ||
	    !plain_tokens(e->b.v + e->p, nb - e->p - e->s))
		return false;
	key_names += is_name(&e->a.v[e->p - 2]) + is_name(&e->a.v[e->p - 1]) +
		     is_name(&e->a.v[na - e->s]);
	e->to.ptr = e->b.v[e->p - 1].p + e->b.v[e->p - 1].len;
	e->to.len = (size_t)(e->b.v[nb - e->s].p - e->to.ptr);
	edit_group(e);
	return key_names > 0;
}

/*
 * line with the edit made where the removed line's list around it
 * (edit_group) stands unchanged, once; *done whether it stood.  NULL
 * when it stands twice in the line.
 */
static char *edit_line(const struct line_edit *e, struct span line, bool *done)
{
	struct tline_toks l = { NULL, 0, 0, 0 };
	const struct token *key = e->a.v + e->g0;
	size_t nk = e->g1 - e->g0 + 1, at = (size_t)-1, hits = 0;
	struct buf b = BUF_INIT;

	lex_line(&l, line);
	for (size_t i = 0; i + nk <= l.nr; i++) {
		size_t k = 0;

		while (k < nk && tok_same(&l.v[i + k], &key[k]))
			k++;
		if (k == nk) {
			at = i;
			hits++;
		}
	}
	*done = hits == 1;
	if (hits > 1) {
		free(l.v);
		return NULL;
	}
	if (!hits) {
		buf_addspan(&b, line);
	} else {
		const struct token *before = &l.v[at + e->p - 1 - e->g0];
		const char *from = before->p + before->len;
		const char *to = l.v[at + e->a.nr - e->s - e->g0].p;

		buf_add(&b, line.ptr, (size_t)(from - line.ptr));
		buf_addspan(&b, e->to);
		buf_add(&b, to, (size_t)(line.ptr + line.len - to));
	}
	free(l.v);
	return buf_detach(&b, NULL);
}

/* One change of a hunk, its removed and added lines and its sides. */
struct drift_change {
	struct span *rm, *add;
	size_t nr_rm, nr_add;
	size_t at, end; /* the target lines between its two sides */
};

/* A declaration at file scope ("static enum { ... } x = A;"): it names
 * no function the change is in (the whole file is). */
static bool file_scope_decl(struct span s)
{
	size_t n = s.len;

	while (n && isspace((unsigned char)s.ptr[n - 1]))
		n--;
	return n && (isalpha((unsigned char)s.ptr[0]) || s.ptr[0] == '_') &&
	       s.ptr[n - 1] == ';';
}

/*
 * Where the change of h (hunk lines lo..hi) goes: its context on both
 * sides stands once in its function (the file, for a declaration at file
 * scope), exactly nr_rm target lines apart.
 */
static bool sides_apart(struct drift_change *d, const struct adapt_in *in,
			const struct tlines *t, size_t lo, size_t hi)
{
	const struct patch_hunk *h = in->h;
	struct span pre[ADAPT_SIDE + 1], post[ADAPT_SIDE + 1];
	size_t npre = side_lines(pre, h, 0, lo, true);
	size_t npost = side_lines(post, h, hi + 1, h->nr_lines, false);
	size_t li = 0, ri = 0, lk = 0, rk = 0;
	char *func = file_scope_decl(h->lines[lo].text)
			     ? NULL
			     : change_function(h, lo, in->func);
	bool ok = npre && npost &&
		  side_find(t, in, func, pre, npre, true, &li, &lk) == SIDE_ONE &&
		  side_find(t, in, func, post, npost, false, &ri, &rk) == SIDE_ONE &&
		  ri >= li && ri - li == d->nr_rm;

	free(func);
	d->at = li;
	d->end = ri;
	return ok;
}

/* The added lines of d with the names of m (new strings); NULL when
 * map_line refuses one. */
static char **renamed_adds(const struct drift_change *d,
			   const struct name_map *m)
{
	char **v = xcalloc(d->nr_add + 1, sizeof(*v));

	for (size_t i = 0; i < d->nr_add; i++)
		if (!(v[i] = map_line(m, d->add[i]))) {
			fs_free_list(v, i);
			return NULL;
		}
	return v;
}

/* The added lines of d with the edit made (new strings); NULL when its
 * key stands twice in a line, or in none (the edit would be lost). */
static char **edited_adds(const struct drift_change *d,
			  const struct line_edit *e)
{
	char **v = xcalloc(d->nr_add + 1, sizeof(*v));
	bool any = false, done;

	for (size_t i = 0; i < d->nr_add; i++) {
		if (!(v[i] = edit_line(e, d->add[i], &done))) {
			fs_free_list(v, i);
			return NULL;
		}
		any |= done;
	}
	if (!any) {
		fs_free_list(v, d->nr_add);
		return NULL;
	}
	return v;
}

/* The adapted hunk: the target's lines around and removed, then the
 * added lines adds (taken over). */
static void rewrite_drifted(struct adaptation *a, const struct patch_hunk *h,
			    const struct tlines *t,
			    const struct drift_change *d, char **adds)
{
	struct patch_hunk *n = &a->hunk;
	size_t lead = d->at < ADAPT_CONTEXT ? d->at : ADAPT_CONTEXT, trail = 0;

	while (trail < ADAPT_CONTEXT && d->end + trail < t->nr &&
	       t->v[d->end + trail].eol)
		trail++;
	n->lines = xcalloc(lead + d->nr_rm + d->nr_add + trail + 1,
			   sizeof(*n->lines));
	a->texts = adds;
	a->nr_texts = d->nr_add;
	for (size_t i = d->at - lead; i < d->end; i++)
		add_line(n, i < d->at ? ' ' : '-', t->v[i].s);
	for (size_t i = 0; i < d->nr_add; i++)
		add_line(n, '+', (struct span){ adds[i], strlen(adds[i]) });
	for (size_t i = d->end; i < d->end + trail; i++)
		add_line(n, ' ', t->v[i].s);
	n->section = h->section;
	n->old_start = d->at - lead + 1;
	n->old_count = lead + d->nr_rm + trail;
	n->new_count = lead + d->nr_add + trail;
	adapt_hunk_place(a, h);
}

/* The note of an edit: the old run and the new, with the tokens around. */
static void edit_text(struct buf *b, const struct line_edit *e)
{
	const struct token *a0 = &e->a.v[e->p - 2];
	const struct token *a1 = &e->a.v[e->a.nr - e->s];
	const struct token *b0 = &e->b.v[e->p - 2];
	const struct token *b1 = &e->b.v[e->b.nr - e->s];

	buf_add(b, a0->p, (size_t)(a1->p + a1->len - a0->p));
	buf_adds(b, " -> ");
	buf_add(b, b0->p, (size_t)(b1->p + b1->len - b0->p));
}

/*
 * The added lines of d for the target's lines [d->at, d->end): names
 * renamed as the removed lines show (*m), or, for one removed line, its
 * one edit made (*e); the note's words into note.  NULL when neither.
 */
static char **drifted_adds(struct drift_change *d, const struct tlines *t,
			   struct name_map *m, struct line_edit *e,
			   struct buf *note)
{
	char **adds = NULL;

	if (align_removed(m, t, d->at, d->rm, d->nr_rm)) {
		if ((adds = renamed_adds(d, m))) {
			buf_adds(note, "names renamed here, as the lines it "
				       "removes show between its context "
				       "lines: ");
			map_text(note, m);
		}
	} else if (d->nr_rm == 1 && t->v[d->at].eol &&
		   find_edit(e, d->rm[0], t->v[d->at].s) &&
		   (adds = edited_adds(d, e))) {
		buf_adds(note, "the line it removes reads otherwise here, and "
			       "its added lines take the same change: ");
		edit_text(note, e);
	}
	return adds;
}

/*
 * Rule 3 where the context drifted as well (Debian's RT patch on 6.12,
 * where HAVE_FAST_GUP became HAVE_GUP_FAST and a select was added after
 * it; Debian's mips patch, where 6.12 added EMULATED to the enum the
 * hunk rewrites): a hunk of one change whose removed lines stand
 * nowhere, while its context on both sides stands once in its function
 * with exactly as many lines between them as it removes.  Those lines
 * align with the removed ones token by token, names renamed and nothing
 * else, each new name keeping half the parts of the old; or, for one
 * removed line, differ from it in one run of a few tokens between
 * common ones (find_edit).  The added lines take the same renames
 * (map_line: never a name the alignment did not show), or the same edit
 * where the tokens around it stand (in one line at least, else the
 * target's change would be lost).
 */
static void adapt_renamed_drift(struct adaptation **out,
				const struct adapt_in *in)
{
	const struct patch_hunk *h = in->h;
	struct change g[ADAPT_MAX_CHANGES];
	struct drift_change d = { 0 };
	struct tlines t = { NULL, 0, 0 };
	struct name_map m = { 0 };
	struct line_edit e = { 0 };
	struct adaptation *a = NULL;
	struct buf b = BUF_INIT, note = BUF_INIT;
	char **adds;

	*out = NULL;
	if (split_changes(g, h) != 1)
		return;
	d.rm = xcalloc(g[0].hi - g[0].lo + 2, sizeof(*d.rm));
	d.add = xcalloc(g[0].hi - g[0].lo + 2, sizeof(*d.add));
	for (size_t i = g[0].lo; i <= g[0].hi; i++) {
		if (h->lines[i].kind == '-')
			d.rm[d.nr_rm++] = h->lines[i].text;
		else
			d.add[d.nr_add++] = h->lines[i].text;
	}
	tlines_split(&t, in->old);
	if (!d.nr_rm || !sides_apart(&d, in, &t, g[0].lo, g[0].hi) ||
	    !(adds = drifted_adds(&d, &t, &m, &e, &note)))
		goto out;
	a = xcalloc(1, sizeof(*a));
	a->rule = ADAPT_RENAMED_IDENTS;
	rewrite_drifted(a, h, &t, &d, adds);
	adapt_hunk_text(&b, h);
	a->original = buf_detach(&b, NULL);
	adapt_hunk_text(&b, &a->hunk);
	a->adapted = buf_detach(&b, NULL);
	buf_addf(&note, " (at line %lu)", (unsigned long)d.at + 1);
	a->note = buf_detach(&note, NULL);
	if (adds_twice(a, &t, in->path)) {
		adaptation_free(a);
		goto out;
	}
	*out = a;
out:
	free(e.a.v);
	free(e.b.v);
	free(d.rm);
	free(d.add);
	free(t.v);
	buf_release(&b);
	buf_release(&note);
}

void adapt_renamed_idents(struct adaptation **out, const struct adapt_in *in)
{
	const struct patch_hunk *h = in->h;
	struct tlines tl = { NULL, 0, 0 };
	struct block b = { 0 };
	struct name_map m = { 0 };
	struct adaptation *a = NULL;
	struct buf txt = BUF_INIT;
	struct core c = { 0 };
	char *func = NULL;
	bool *ctx = NULL;
	size_t p;

	*out = NULL;
	if (!find_core(&c, h))
		goto out;
	func = hunk_function(h, &c, in->func);
	tlines_split(&tl, in->old);
	b.pre = xcalloc(h->nr_lines + 1, sizeof(*b.pre));
	ctx = xcalloc(h->nr_lines + 1, sizeof(*ctx));
	for (size_t i = 0; i < h->nr_lines; i++)
		if (h->lines[i].kind != '+') {
			ctx[b.nr] = h->lines[i].kind == ' ';
			lex_line(&b.pre[b.nr++], h->lines[i].text);
		}
	if (b.nr < 2)
		goto out;
	b.t = xcalloc(tl.nr + 1, sizeof(*b.t));
	for (b.nr_t = 0; b.nr_t < tl.nr; b.nr_t++)
		lex_line(&b.t[b.nr_t], tl.v[b.nr_t].s);
	if ((p = align_block(&m, &b, &tl, in->old, func)) == (size_t)-1 ||
	    !shown_by_context(&m, &b, ctx))
		goto out;
	a = xcalloc(1, sizeof(*a));
	a->rule = ADAPT_RENAMED_IDENTS;
	if (!map_hunk(a, in, &tl, p, &m)) {
		adaptation_free(a);
		a = NULL;
		goto out;
	}
	adapt_hunk_text(&txt, h);
	a->original = buf_detach(&txt, NULL);
	adapt_hunk_text(&txt, &a->hunk);
	a->adapted = buf_detach(&txt, NULL);
	buf_adds(&txt, "names renamed here, as the lines around it show: ");
	map_text(&txt, &m);
	buf_addf(&txt, " (at line %lu)", (unsigned long)p + 1);
	a->note = buf_detach(&txt, NULL);
	if (adds_twice(a, &tl, in->path)) {
		adaptation_free(a);
		a = NULL;
		goto out;
	}
	*out = a;
out:
	toks_release(b.pre, b.nr);
	toks_release(b.t, b.nr_t);
	free(ctx);
	free(func);
	free(c.pre);
	free(tl.v);
	buf_release(&txt);
	if (!*out)
		adapt_renamed_drift(out, in);
}
