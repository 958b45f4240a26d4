#include "adapt.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "apply.h"
#include "cause.h"
#include "cursor.h"
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
	size_t lo, hi;       /* hunk lines, inclusive */
	struct span *pre;    /* their ' ' and '-' lines */
	size_t nr;
	bool removes;        /* some are '-' lines */
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
		sig |= significant(l->text) &&
		       (l->kind == '-' || !c->removes);
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

static bool core_at(const struct tlines *t, const struct core *c, size_t p)
{
	if (p + c->nr > t->nr)
		return false;
	for (size_t i = 0; i < c->nr; i++)
		if (!t->v[p + i].eol || !same_text(t->v[p + i].s, c->pre[i]))
			return false;
	return true;
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
	n->new_start = (unsigned long)((long)n->old_start +
				       ((long)h->new_start - (long)h->old_start));
	if ((long)n->new_start < 1)
		n->new_start = 1;
	n->lineno = h->lineno;
	a->line = n->old_start;
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
			  func ? "()" : "", (unsigned long)p + 1);
	*out = a;
out:
	free(func);
	free(c.pre);
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
			  "target", in->func, alias, pct, (unsigned long)p + 1);
	*out = a;
out:
	free(func);
	free(alias);
	free(c.pre);
	free(t.v);
	buf_release(&b);
}
