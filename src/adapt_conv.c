#include "adapt_conv.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "apply.h"
#include "audit.h"

/* How many lines of the target's context an adapted hunk carries. */
#define CONV_CONTEXT 3

int adapt_conv_learn(struct adapt_conv *c, const char *root,
		     const struct series_version *v, struct err *err)
{
	struct audit_opts o;
	int error;

	memset(c, 0, sizeof(*c));
	memset(&o, 0, sizeof(o));
	if ((error = audit_opts_load(&o, root, v->name, err)) == 0)
		error = audit_learn(&c->rules, &c->nr, v, &o, err);
	audit_opts_release(&o);
	return error;
}

void adapt_conv_release(struct adapt_conv *c)
{
	audit_rules_free(c->rules, c->nr);
	memset(c, 0, sizeof(*c));
}

static bool ident_ch(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* The text without blanks but one between two words: the same code
 * however it is wrapped. */
static char *squeezed(struct span s)
{
	struct buf b = BUF_INIT;
	bool blank = false;

	for (size_t i = 0; i < s.len; i++) {
		char c = s.ptr[i];

		if (isspace((unsigned char)c)) {
			blank = true;
			continue;
		}
		if (blank && b.len && ident_ch(b.ptr[b.len - 1]) && ident_ch(c))
			buf_addc(&b, ' ');
		blank = false;
		buf_addc(&b, c);
	}
	return buf_detach(&b, NULL);
}

/*
 * text with every rule applied, in turn: *out, and per rule how many
 * calls were rewritten (added to counts).  False when a call of a rule's
 * symbol cannot be rewritten.
 */
static bool convert(struct buf *out, size_t *counts, size_t *total,
		    const struct adapt_conv *cv, struct span text)
{
	struct buf tmp = BUF_INIT;
	bool ok = true;

	buf_reset(out);
	buf_addspan(out, text);
	*total = 0;
	for (size_t r = 0; r < cv->nr && ok; r++) {
		char *why = NULL;
		size_t n = 0;

		ok = audit_rule_rewrite(&tmp, &n, &why, &cv->rules[r],
					(struct span){ out->ptr, out->len });
		free(why);
		if (ok && n) {
			buf_swap(&tmp, out);
			counts[r] += n;
			*total += n;
		}
	}
	buf_release(&tmp);
	return ok;
}

/* Context lines a converted call may start in, before its block (as
 * audit.c learns from such calls). */
#define CALL_LINES 3

/*
 * Whether the block of changed lines [first, end) of h, with the ctx
 * context lines before it and tail after, is calls converted by the rules and nothing
 * else: its old side converted is its new side, blanks aside.  The calls
 * are added to counts then.
 */
static bool block_converts(size_t *counts, const struct patch_hunk *h,
			   size_t first, size_t end, size_t ctx, size_t tail,
			   const struct adapt_conv *cv)
{
	struct buf o = BUF_INIT, n = BUF_INIT, conv = BUF_INIT;
	size_t *got = xcalloc(cv->nr + 1, sizeof(*got)), total = 0;
	bool ok = true;
	char *a, *b;

	for (size_t l = first - ctx; l < end + tail; l++) {
		char kind = h->lines[l].kind;

		ok &= !h->lines[l].no_eol;
		if (kind != '+') {
			buf_addspan(&o, h->lines[l].text);
			buf_addc(&o, '\n');
		}
		if (kind != '-') {
			buf_addspan(&n, h->lines[l].text);
			buf_addc(&n, '\n');
		}
	}
	/* a block only removed or only added is no conversion */
	ok = ok && o.len && n.len &&
	     convert(&conv, got, &total, cv, (struct span){ o.ptr, o.len }) &&
	     total;
	if (ok) {
		a = squeezed((struct span){ conv.ptr, conv.len });
		b = squeezed((struct span){ n.ptr, n.len });
		ok = !strcmp(a, b);
		free(a);
		free(b);
	}
	for (size_t r = 0; ok && r < cv->nr; r++)
		counts[r] += got[r];
	free(got);
	buf_release(&o);
	buf_release(&n);
	buf_release(&conv);
	return ok;
}

/*
 * Whether every block of lines hunk h changes is calls converted by the
 * rules, and nothing else; counts: per rule, the calls it converts.  A
 * block that changes only some lines of a call over several lines is read
 * with the context lines the call starts and ends in, the fewest first.
 */
static bool only_conversions(size_t *counts, const struct patch_hunk *h,
			     const struct adapt_conv *cv)
{
	bool any = false;

	for (size_t l = 0; l < h->nr_lines;) {
		size_t first = l, lead = 0, trail = 0;
		bool ok = false;

		if (h->lines[l].kind == ' ') {
			l++;
			continue;
		}
		while (l < h->nr_lines && h->lines[l].kind != ' ')
			l++;
		while (lead < CALL_LINES && lead < first &&
		       h->lines[first - lead - 1].kind == ' ')
			lead++;
		while (trail < CALL_LINES && l + trail < h->nr_lines &&
		       h->lines[l + trail].kind == ' ')
			trail++;
		for (size_t n = 0; n <= lead + trail && !ok; n++)
			for (size_t ctx = 0; ctx <= n && ctx <= lead && !ok;
			     ctx++)
				ok = n - ctx <= trail &&
				     block_converts(counts, h, first, l, ctx,
						    n - ctx, cv);
		if (!ok)
			return false;
		any = true;
	}
	return any;
}

/* The function of the hunk's first changed line, as its lines show it;
 * func (its header's) when they do not. */
static char *hunk_function(const struct patch_hunk *h, const char *func)
{
	struct buf pre = BUF_INIT;
	unsigned long n = 0;
	char *name;

	for (size_t i = 0; i < h->nr_lines; i++) {
		if (h->lines[i].kind == '+')
			continue;
		buf_addspan(&pre, h->lines[i].text);
		buf_addc(&pre, '\n');
		n++;
		if (h->lines[i].kind == '-')
			break;
	}
	name = apply_enclosing_function((struct span){ pre.ptr, pre.len }, n);
	buf_release(&pre);
	if (!name && func)
		name = xstrdup(func);
	return name;
}

/* The target's lines: where each starts, and whether it ends in LF. */
struct tlines {
	size_t *start; /* nr + 1 entries: the last is the text's length */
	size_t nr;
	bool last_eol;
};

static void tlines_split(struct tlines *t, struct span text)
{
	size_t alloc = 0;

	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < text.len;) {
		const char *nl = memchr(text.ptr + i, '\n', text.len - i);

		ALLOC_GROW(t->start, t->nr + 2, alloc);
		t->start[t->nr++] = i;
		i = nl ? (size_t)(nl - text.ptr) + 1 : text.len;
		t->last_eol = nl != NULL;
	}
	ALLOC_GROW(t->start, t->nr + 1, alloc);
	t->start[t->nr] = text.len;
}

/* The 0-based line of byte off. */
static size_t line_of(const struct tlines *t, size_t off)
{
	size_t lo = 0, hi = t->nr;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->start[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Line i without its LF. */
static struct span tline(const struct tlines *t, struct span text, size_t i)
{
	size_t a = t->start[i], b = t->start[i + 1];

	if (b > a && text.ptr[b - 1] == '\n')
		b--;
	return (struct span){ text.ptr + a, b - a };
}

static bool has_eol(const struct tlines *t, size_t i)
{
	return i + 1 < t->nr || t->last_eol;
}

/* A range of target lines holding converted calls. */
struct range {
	size_t lo, hi; /* inclusive */
};

/*
 * The calls of the rules' symbols in func of the target: as many as the
 * hunk converts, each rule's; their lines, merged into ranges in order.
 */
static bool find_calls(struct range **out, size_t *nr, const size_t *counts,
		       const struct adapt_conv *cv, const struct tlines *t,
		       struct span old, const char *func)
{
	bool *line_hit = xcalloc(t->nr + 1, sizeof(*line_hit));
	size_t alloc = 0;
	bool ok = true;

	*out = NULL;
	*nr = 0;
	for (size_t r = 0; r < cv->nr && ok; r++) {
		size_t start, end, nargs, found = 0, from = 0;

		if (!counts[r])
			continue;
		while (audit_find_call(&start, &end, &nargs, old, from,
				       cv->rules[r].symbol)) {
			size_t l = line_of(t, start), e = line_of(t, end - 1);
			char *fn = apply_enclosing_function(old, l + 1);

			from = end;
			if (fn && !strcmp(fn, func)) {
				found++;
				for (size_t i = l; i <= e; i++)
					line_hit[i] = true;
			}
			free(fn);
		}
		ok = found == counts[r];
	}
	for (size_t i = 0; ok && i < t->nr; i++) {
		if (!line_hit[i])
			continue;
		ok = has_eol(t, i);
		if (*nr && (*out)[*nr - 1].hi + 1 == i) {
			(*out)[*nr - 1].hi = i;
			continue;
		}
		ALLOC_GROW(*out, *nr + 1, alloc);
		(*out)[(*nr)++] = (struct range){ i, i };
	}
	free(line_hit);
	return ok && *nr;
}

static void add_line(struct patch_hunk *h, char kind, struct span s)
{
	h->lines[h->nr_lines].kind = kind;
	h->lines[h->nr_lines].no_eol = false;
	h->lines[h->nr_lines].text = s;
	h->nr_lines++;
}

/* Added lines of text (LF-separated, the last LF optional), owned by a. */
static size_t add_texts(struct adaptation *a, struct span text)
{
	size_t n = 0;

	for (size_t i = 0; i < text.len;) {
		const char *nl = memchr(text.ptr + i, '\n', text.len - i);
		size_t e = nl ? (size_t)(nl - text.ptr) : text.len;
		char *s = xstrndup(text.ptr + i, e - i);

		a->texts[a->nr_texts++] = s;
		add_line(&a->hunk, '+', (struct span){ s, e - i });
		n++;
		i = e + 1;
	}
	return n;
}

/*
 * The adapted hunk: the target's lines from the first range to the last,
 * each range's calls converted, with context around.  False when a call
 * of the target cannot be converted (another arity).
 */
static bool build(struct adaptation *a, const struct patch_hunk *h,
		  const struct adapt_conv *cv, const struct tlines *t,
		  struct span old, const struct range *rg, size_t nr)
{
	struct patch_hunk *n = &a->hunk;
	size_t lo = rg[0].lo, hi = rg[nr - 1].hi, total;
	size_t lead = lo < CONV_CONTEXT ? lo : CONV_CONTEXT, trail = 0;
	size_t *counts = xcalloc(cv->nr + 1, sizeof(*counts));
	size_t removed = 0, added = 0, cap;
	struct buf conv = BUF_INIT;
	bool ok = true;

	while (trail < CONV_CONTEXT && hi + 1 + trail < t->nr &&
	       has_eol(t, hi + 1 + trail))
		trail++;
	/* every line of the span may be added once more, split finer */
	cap = (hi - lo + 1) + lead + trail;
	for (size_t i = lo; i <= hi; i++)
		cap += t->start[i + 1] - t->start[i];
	n->lines = xcalloc(cap + 1, sizeof(*n->lines));
	a->texts = xcalloc(cap + 1, sizeof(*a->texts));
	for (size_t i = lo - lead; i < lo; i++)
		add_line(n, ' ', tline(t, old, i));
	for (size_t k = 0; k < nr && ok; k++) {
		struct span s = { old.ptr + t->start[rg[k].lo],
				  t->start[rg[k].hi + 1] - t->start[rg[k].lo] };

		if (k)
			for (size_t i = rg[k - 1].hi + 1; i < rg[k].lo; i++)
				add_line(n, ' ', tline(t, old, i));
		if (!convert(&conv, counts, &total, cv, s) || !total) {
			ok = false;
			break;
		}
		for (size_t i = rg[k].lo; i <= rg[k].hi; i++) {
			add_line(n, '-', tline(t, old, i));
			removed++;
		}
		added += add_texts(a, (struct span){ conv.ptr, conv.len });
	}
	for (size_t i = hi + 1; ok && i < hi + 1 + trail; i++)
		add_line(n, ' ', tline(t, old, i));
	n->section = h->section;
	n->old_start = lo - lead + 1;
	n->old_count = lead + (hi - lo + 1) + trail;
	n->new_count = n->old_count - removed + added;
	adapt_hunk_place(a, h);
	free(counts);
	buf_release(&conv);
	return ok;
}

void adapt_series_conversion(struct adaptation **out, const struct adapt_in *in,
			     const struct adapt_conv *cv)
{
	size_t *counts = NULL, nr = 0, calls = 0;
	struct range *rg = NULL;
	struct tlines t = { 0 };
	struct adaptation *a = NULL;
	struct buf b = BUF_INIT;
	char *func = NULL;

	*out = NULL;
	if (!cv || !cv->nr)
		return;
	counts = xcalloc(cv->nr + 1, sizeof(*counts));
	if (!only_conversions(counts, in->h, cv) ||
	    !(func = hunk_function(in->h, in->func)))
		goto out;
	tlines_split(&t, in->old);
	if (!find_calls(&rg, &nr, counts, cv, &t, in->old, func))
		goto out;
	a = xcalloc(1, sizeof(*a));
	a->rule = ADAPT_SERIES_CONVERSION;
	if (!build(a, in->h, cv, &t, in->old, rg, nr)) {
		adaptation_free(a);
		a = NULL;
		goto out;
	}
	adapt_hunk_text(&b, in->h);
	a->original = buf_detach(&b, NULL);
	adapt_hunk_text(&b, &a->hunk);
	a->adapted = buf_detach(&b, NULL);
	buf_adds(&b, "the series' conversion, ");
	for (size_t r = 0, k = 0; r < cv->nr; r++) {
		if (!counts[r])
			continue;
		if (k++)
			buf_adds(&b, "; ");
		audit_rule_text(&b, &cv->rules[r]);
	}
	for (size_t r = 0; r < cv->nr; r++)
		calls += counts[r];
	if (calls == 1)
		buf_addf(&b,
			 ", applied to the call in %s() as the target has "
			 "it, at line %zu",
			 func, rg[0].lo + 1);
	else
		buf_addf(&b,
			 ", applied to the %zu calls in %s() as the target "
			 "has them, from line %zu",
			 calls, func, rg[0].lo + 1);
	buf_adds(&b, "; the rest of the hunk is the target's");
	a->note = buf_detach(&b, NULL);
	*out = a;
out:
	free(counts);
	free(rg);
	free(t.start);
	free(func);
	buf_release(&b);
}
