/*
 * already: a hunk's change standing in edited form.
 *
 * Both sides are lexed whole (the region of the target; the hunk's
 * postimage and preimage, context included, so that a comment opened on
 * a context line is one), and a directive becomes '#' and the tokens of
 * its body: whitespace and comments drop out everywhere.  An added block
 * is looked for as a run of tokens that starts a target line and ends
 * one, at or after where the previous block ended (the earliest place
 * first, which finds the blocks in order whenever they stand so).  A
 * removed line is looked for the same way, alone, anywhere in the region.
 *
 * A hunk that only adds has no removed line gone to show for it: lines it
 * adds may stand in the function before the change, on another path
 * ("mutex_lock(&d->lock);" above, "if (ret) goto out;" after another
 * call).  So it needs a block of two significant lines, and each block
 * standing once in the region.
 *
 * Renamed locals are not matched: a line stands only token for token.
 */
#include "already.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "lex.h"

struct atok {
	const char *p;
	size_t len;
	unsigned long line; /* target line, or line of the lexed image */
	bool sig;	    /* a name, a number, a literal or a directive */
};

struct atoks {
	struct atok *v;
	size_t nr, alloc;
};

static void push(struct atoks *a, const struct token *t, bool sig)
{
	ALLOC_GROW(a->v, a->nr + 1, a->alloc);
	a->v[a->nr++] = (struct atok){ t->p, t->len, t->line, sig };
}

static bool tok_sig(const struct token *t)
{
	if (t->type == TOK_IDENT)
		return word_class(t) == WORD_NAME;
	return t->type != TOK_PUNCT;
}

/* The tokens of text, its first line numbered first. */
static void lex_all(struct atoks *out, struct span text, unsigned long first)
{
	struct lexer lx;
	struct token t = { 0 };

	lexer_init(&lx, text.ptr, text.len, first, text.ptr);
	for (lex(&lx, &t); t.type != TOK_EOF; lex(&lx, &t)) {
		struct lexer sub;
		struct token s = { 0 }, hash = t;

		if (t.type != TOK_DIRECTIVE) {
			push(out, &t, tok_sig(&t));
			continue;
		}
		hash.len = 1;
		push(out, &hash, true);
		directive_lexer(&sub, &t, lx.line_start);
		for (lex(&sub, &s); s.type != TOK_EOF; lex(&sub, &s))
			push(out, &s, tok_sig(&s));
	}
}

static bool tok_eq(const struct atok *a, const struct atok *b)
{
	return a->len == b->len && !memcmp(a->p, b->p, a->len);
}

/* Tokens [from, from + n) of pat stand at t's token at, which starts a
 * line, and the last of them ends one. */
static bool stands_at(const struct atoks *t, size_t at, const struct atok *pat,
		      size_t n)
{
	size_t i;

	if (at + n > t->nr)
		return false;
	if (at && t->v[at - 1].line == t->v[at].line)
		return false;
	if (at + n < t->nr && t->v[at + n].line == t->v[at + n - 1].line)
		return false;
	for (i = 0; i < n; i++)
		if (!tok_eq(&t->v[at + i], &pat[i]))
			return false;
	return true;
}

/* The first place at or after from where pat stands as whole lines. */
static size_t find_run(const struct atoks *t, size_t from,
		       const struct atok *pat, size_t n)
{
	for (size_t at = from; at + n <= t->nr; at++)
		if (stands_at(t, at, pat, n))
			return at;
	return (size_t)-1;
}

/* One side of a hunk: its image lexed, and for each image line (1-based)
 * the hunk line it is and its tokens. */
struct side {
	struct buf text; /* the image; the tokens point into it */
	struct atoks toks;
	size_t *hline; /* image line -> index in the hunk */
	size_t *first; /* image line -> its first token */
	size_t *count; /* image line -> how many tokens start on it */
	size_t nr;
};

/* The image without the lines of kind skip. */
static void side_init(struct side *s, const struct patch_hunk *h, char skip)
{
	memset(s, 0, sizeof(*s));
	buf_init(&s->text, 0);
	s->hline = xcalloc(h->nr_lines + 2, sizeof(*s->hline));
	s->first = xcalloc(h->nr_lines + 2, sizeof(*s->first));
	s->count = xcalloc(h->nr_lines + 2, sizeof(*s->count));
	for (size_t i = 0; i < h->nr_lines; i++) {
		if (h->lines[i].kind == skip)
			continue;
		s->hline[++s->nr] = i;
		buf_add(&s->text, h->lines[i].text.ptr, h->lines[i].text.len);
		buf_addc(&s->text, '\n');
	}
	lex_all(&s->toks, (struct span){ s->text.ptr, s->text.len }, 1);
	for (size_t i = s->toks.nr; i-- > 0;) {
		size_t l = s->toks.v[i].line;

		s->first[l] = i;
		s->count[l]++;
	}
}

static void side_release(struct side *s)
{
	buf_release(&s->text);
	free(s->toks.v);
	free(s->hline);
	free(s->first);
	free(s->count);
}

static char kind_of(const struct side *s, const struct patch_hunk *h,
		    size_t line)
{
	return h->lines[s->hline[line]].kind;
}

static bool line_sig(const struct side *s, size_t line)
{
	for (size_t i = 0; i < s->count[line]; i++)
		if (s->toks.v[s->first[line] + i].sig)
			return true;
	return false;
}

static bool runs_eq(const struct side *a, size_t la, const struct side *b,
		    size_t lb)
{
	if (a->count[la] != b->count[lb])
		return false;
	for (size_t i = 0; i < a->count[la]; i++)
		if (!tok_eq(&a->toks.v[a->first[la] + i],
			    &b->toks.v[b->first[lb] + i]))
			return false;
	return true;
}

/* What a look at one hunk has found. */
struct look {
	const struct patch_hunk *h;
	struct side post, pre;
	struct atoks t;	     /* the region */
	size_t *target_line; /* per hunk line: where it stands, or 0 */
	size_t added_sig;    /* significant added lines */
	size_t removed_sig;  /* significant removed lines, the neutral aside */
	size_t block_sig;    /* the most significant lines of one block */
	bool unique;	     /* every block stands once in the region */
};

/*
 * Each block of added lines stands in the region, in order.  A block is
 * the tokens of postimage lines that are added and consecutive; a
 * context line, even a blank one, ends it.
 */
static bool blocks_stand(struct look *lk)
{
	const struct side *s = &lk->post;
	size_t cur = 0, l = 1;

	while (l <= s->nr) {
		size_t from, n = 0, at, sig = 0;

		if (kind_of(s, lk->h, l) != '+') {
			l++;
			continue;
		}
		from = s->count[l] ? s->first[l] : s->toks.nr;
		for (; l <= s->nr && kind_of(s, lk->h, l) == '+'; l++) {
			if (s->count[l] && from == s->toks.nr)
				from = s->first[l];
			n += s->count[l];
			sig += line_sig(s, l);
		}
		if (!n)
			continue;
		lk->added_sig += sig;
		if (sig > lk->block_sig)
			lk->block_sig = sig;
		if ((at = find_run(&lk->t, cur, &s->toks.v[from], n)) ==
		    (size_t)-1)
			return false;
		if (find_run(&lk->t, 0, &s->toks.v[from], n) != at ||
		    find_run(&lk->t, at + 1, &s->toks.v[from], n) != (size_t)-1)
			lk->unique = false;
		for (size_t i = 0; i < n; i++) {
			size_t hl = s->hline[s->toks.v[from + i].line];

			if (!lk->target_line[hl])
				lk->target_line[hl] = lk->t.v[at + i].line;
		}
		cur = at + n;
	}
	return true;
}

/* Whether the hunk also adds a line of the same tokens as removed line l. */
static bool neutral(const struct look *lk, size_t l)
{
	for (size_t a = 1; a <= lk->post.nr; a++)
		if (kind_of(&lk->post, lk->h, a) == '+' &&
		    runs_eq(&lk->pre, l, &lk->post, a))
			return true;
	return false;
}

/* A significant removed line, not neutral, stands in the region. */
static bool removed_stands(struct look *lk)
{
	const struct side *s = &lk->pre;

	for (size_t l = 1; l <= s->nr; l++) {
		if (kind_of(s, lk->h, l) != '-' || !line_sig(s, l) ||
		    neutral(lk, l))
			continue;
		lk->removed_sig++;
		if (find_run(&lk->t, 0, &s->toks.v[s->first[l]], s->count[l]) !=
		    (size_t)-1)
			return true;
	}
	return false;
}

static void found_fill(struct already_found *out, const struct look *lk)
{
	const struct patch_hunk *h = lk->h;

	for (size_t i = 0; i < h->nr_lines; i++)
		out->nr += h->lines[i].kind == '+';
	out->lines = xcalloc(out->nr + 1, sizeof(*out->lines));
	out->nr = 0;
	for (size_t i = 0; i < h->nr_lines; i++)
		if (h->lines[i].kind == '+')
			out->lines[out->nr++] = lk->target_line[i];
}

bool already_edited(struct already_found *out, const struct patch_hunk *h,
		    struct span region, unsigned long first_line)
{
	struct look lk = { 0 };
	bool ok;

	memset(out, 0, sizeof(*out));
	lk.h = h;
	side_init(&lk.post, h, '-');
	side_init(&lk.pre, h, '+');
	lex_all(&lk.t, region, first_line);
	lk.target_line = xcalloc(h->nr_lines + 1, sizeof(*lk.target_line));
	lk.unique = true;
	ok = blocks_stand(&lk) && !removed_stands(&lk) && lk.added_sig &&
	     (lk.removed_sig || (lk.block_sig >= 2 && lk.unique));
	if (ok)
		found_fill(out, &lk);
	side_release(&lk.post);
	side_release(&lk.pre);
	free(lk.t.v);
	free(lk.target_line);
	return ok;
}

void already_found_release(struct already_found *af)
{
	free(af->lines);
	memset(af, 0, sizeof(*af));
}
