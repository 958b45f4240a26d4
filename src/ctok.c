/*
 * ctok: see ctok.h.  Moved out of watch.c, whose two scanners and
 * cnames.c's share it.
 */
#include "ctok.h"

#include <stdlib.h>
#include <string.h>

static bool expr_is_literal(struct lexer *sub, const char *lit)
{
	struct token t, u;

	lex(sub, &t);
	lex(sub, &u);
	return t.type == TOK_NUMBER && tok_is(&t, lit, strlen(lit)) &&
	       u.type == TOK_EOF;
}

/*
 * Apply one conditional directive; sub is positioned after its name (for
 * #if, to tell '#if 0' apart).
 */
void ctok_cond_apply(struct ctok_conds *cs, enum ctok_op op,
		     struct lexer *sub, struct ctok_depths *d)
{
	struct ctok_cond *c;

	if (op == CTOK_OP_IF) {
		struct ctok_cond n = { CTOK_COND_ANY, cs->dead, false, *d, *d };
		struct lexer probe = *sub;

		if (expr_is_literal(&probe, "0"))
			n.kind = CTOK_COND_IF0;
		else if (expr_is_literal(sub, "1"))
			n.kind = CTOK_COND_IF1;
		ALLOC_GROW(cs->v, cs->nr + 1, cs->alloc);
		cs->v[cs->nr++] = n;
		cs->dead = n.outer_dead || n.kind == CTOK_COND_IF0;
		return;
	}
	if (!cs->nr)
		return; /* stray: ignore */
	c = &cs->v[cs->nr - 1];
	if (op == CTOK_OP_ENDIF) {
		if (c->kind == CTOK_COND_ANY && c->seen_else)
			*d = c->first;
		cs->dead = c->outer_dead;
		cs->nr--;
		return;
	}
	switch (c->kind) {
	case CTOK_COND_ANY:
		if (!c->seen_else) {
			c->seen_else = true;
			c->first = *d;
		}
		*d = c->at_if;
		break;
	case CTOK_COND_IF0:
		/* the first branch that may be compiled starts here */
		c->kind = op == CTOK_OP_ELIF ? CTOK_COND_ANY : CTOK_COND_TAKEN;
		c->at_if = *d;
		break;
	case CTOK_COND_IF1:
	case CTOK_COND_TAKEN:
		c->kind = CTOK_COND_IF1; /* everything after is dead */
		cs->dead = true;
		return;
	}
	cs->dead = c->outer_dead;
}

/* The conditional op a directive name means, or -1. */
int ctok_cond_op(const struct token *name, bool *is_if)
{
	*is_if = false;
	if (TOK_IS(name, "if") || TOK_IS(name, "ifdef") ||
	    TOK_IS(name, "ifndef")) {
		*is_if = true;
		return CTOK_OP_IF;
	}
	if (TOK_IS(name, "elif") || TOK_IS(name, "elifdef") ||
	    TOK_IS(name, "elifndef"))
		return CTOK_OP_ELIF;
	if (TOK_IS(name, "else"))
		return CTOK_OP_ELSE;
	if (TOK_IS(name, "endif"))
		return CTOK_OP_ENDIF;
	return -1;
}

char *ctok_pool_add(char ***v, size_t *nr, size_t *alloc, char *s)
{
	ALLOC_GROW(*v, *nr + 1, *alloc);
	(*v)[(*nr)++] = s;
	return s;
}

void ctok_pool_free(char **v, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(v[i]);
	free(v);
}

bool ctok_has_nul(const char *text, size_t len)
{
	return memchr(text, '\0', len) != NULL;
}

void ctok_list_push(struct ctok_list *tv, const struct token *t)
{
	ALLOC_GROW(tv->v, tv->nr + 1, tv->alloc);
	tv->v[tv->nr++] = *t;
}

/* Index of the token closing the group opened at t[i], or n. */
size_t ctok_match_group(const struct token *t, size_t i, size_t n)
{
	int depth = 0;

	for (; i < n; i++) {
		if (t[i].type != TOK_PUNCT || t[i].len != 1)
			continue;
		switch (*t[i].p) {
		case '(':
		case '[':
		case '{':
			depth++;
			break;
		case ')':
		case ']':
		case '}':
			if (--depth == 0)
				return i;
			break;
		}
	}
	return n;
}

bool ctok_is_open(const struct token *t)
{
	return tok_punct(t, '(') || tok_punct(t, '[') || tok_punct(t, '{');
}

/* Past an attribute word at t[i] and its argument list. */
size_t ctok_skip_attr(const struct token *t, size_t i, size_t n)
{
	if (i + 1 < n && tok_punct(&t[i + 1], '('))
		return ctok_match_group(t, i + 1, n) + 1;
	return i + 1;
}

/*
 * The declarator name in a declaration or parameter t[0..n): inside a
 * "(*name)" group if there is one, else the last plain identifier before
 * '=', ':' or the end.  With need_type, a lone identifier is a type
 * ("btrfs_func_t" in a prototype), not a name.
 */
bool ctok_find_name(const struct token *t, size_t n, bool need_type,
		    size_t *idx)
{
	bool seen_type = false, cand_typed = false, have = false;
	size_t cand = 0;

	for (size_t i = 0; i < n; i++) {
		if (tok_punct(&t[i], '(') && i + 1 < n &&
		    (tok_punct(&t[i + 1], '*') || tok_punct(&t[i + 1], '^'))) {
			size_t m = ctok_match_group(t, i, n), j = i + 1, k;

			while (j < m && (tok_punct(&t[j], '*') ||
					 word_class(&t[j]) == WORD_QUAL ||
					 word_class(&t[j]) == WORD_ATTR))
				j++;
			if (ctok_find_name(t + j, m - j, false, &k)) {
				*idx = j + k;
				return true;
			}
		}
	}
	for (size_t i = 0; i < n; i++) {
		const struct token *tk = &t[i];

		if (tok_punct(tk, '=') || tok_punct(tk, ':'))
			break;
		if (ctok_is_open(tk)) {
			i = ctok_match_group(t, i, n);
			continue;
		}
		if (tk->type != TOK_IDENT)
			continue;
		switch (word_class(tk)) {
		case WORD_NAME:
			if (have)
				seen_type = true;
			cand = i;
			cand_typed = seen_type;
			have = true;
			break;
		case WORD_ATTR:
			i = ctok_skip_attr(t, i, n) - 1;
			break;
		case WORD_TYPE:
			seen_type = true;
			have = false;
			break;
		case WORD_TAG:
			seen_type = true;
			have = false;
			if (i + 1 < n && t[i + 1].type == TOK_IDENT)
				i++;
			break;
		case WORD_TYPEOF:
			seen_type = true;
			have = false;
			i = ctok_skip_attr(t, i, n) - 1;
			break;
		default:
			break;
		}
	}
	if (!have || (need_type && !cand_typed))
		return false;
	*idx = cand;
	return true;
}

/*
 * The function declarator in a declaration: the first identifier followed
 * by '(' that is not an attribute and comes after some type.
 */
bool ctok_find_function(const struct token *t, size_t n, size_t *name)
{
	bool typed = false;

	for (size_t i = 0; i < n; i++) {
		enum word_class wc;

		if (ctok_is_open(&t[i])) {
			i = ctok_match_group(t, i, n);
			continue;
		}
		if (tok_punct(&t[i], '=') || tok_punct(&t[i], ','))
			return false;
		if (t[i].type != TOK_IDENT)
			continue;
		wc = word_class(&t[i]);
		if (wc == WORD_ATTR || wc == WORD_TYPEOF) {
			typed |= wc == WORD_TYPEOF;
			i = ctok_skip_attr(t, i, n) - 1;
			continue;
		}
		if (wc == WORD_TAG) {
			typed = true;
			if (i + 1 < n && t[i + 1].type == TOK_IDENT)
				i++;
			continue;
		}
		if (wc == WORD_NAME && typed && i + 1 < n &&
		    tok_punct(&t[i + 1], '(')) {
			*name = i;
			return true;
		}
		if (wc == WORD_NAME || wc == WORD_TYPE)
			typed = true;
		if (wc == WORD_OTHER)
			return false;
	}
	return false;
}

/* Whether t[0..n) before a '{' is a function definition's head. */
bool ctok_is_function_head(const struct token *t, size_t n, size_t *name)
{
	size_t m;

	if (!ctok_find_function(t, n, name))
		return false;
	m = ctok_match_group(t, *name + 1, n);
	for (size_t i = m + 1; i < n; i++) {
		if (word_class(&t[i]) != WORD_ATTR)
			return false;
		i = ctok_skip_attr(t, i, n) - 1;
	}
	return m < n;
}

bool ctok_has_storage(const struct token *t, size_t n, const char *word)
{
	size_t len = strlen(word);

	for (size_t i = 0; i < n; i++) {
		if (ctok_is_open(&t[i]))
			i = ctok_match_group(t, i, n);
		else if (t[i].type == TOK_IDENT && tok_is(&t[i], word, len))
			return true;
	}
	return false;
}

bool ctok_is_member_op(const struct token *t)
{
	return t->type == TOK_PUNCT &&
	       ((t->len == 1 && *t->p == '.') || TOK_IS(t, "->"));
}

bool ctok_is_tag_keyword(const struct token *t)
{
	return t->type == TOK_IDENT && t->len >= 4 && t->len <= 6 &&
	       (TOK_IS(t, "struct") || TOK_IS(t, "union") || TOK_IS(t, "enum"));
}

/*
 * Where the code of a fragment starts: past a comment it starts inside
 * (a "*" "/" with no opening before it, or else its leading lines in
 * kernel comment style) and past the rest of a macro body it starts
 * inside (lines ending in a backslash, no #define).
 */
size_t ctok_fragment_start(const char *text, size_t len)
{
	const char *end = text + len, *p = text;
	const char *close = NULL;

	for (const char *q = text; q + 1 < end; q++) {
		if (q[0] == '/' && q[1] == '*')
			break;
		if (q[0] == '*' && q[1] == '/') {
			close = q + 2;
			break;
		}
	}
	if (close)
		p = close;
	else
		/* a comment whose opener is above and whose close is
		 * below: its lines in kernel style (" * text", " *"), which
		 * no statement starts with ("*p = x" has no blank after
		 * the star) */
		for (;;) {
			const char *b = p;

			while (b < end && (*b == ' ' || *b == '\t'))
				b++;
			if (b < end && *b == '*' &&
			    (b + 1 == end || b[1] == ' ' || b[1] == '\t' ||
			     b[1] == '\n' || b[1] == '\r')) {
				const char *nl = memchr(b, '\n',
							(size_t)(end - b));
				p = nl ? nl + 1 : end;
				continue;
			}
			break;
		}
	/* leading blank lines and spaces */
	for (;;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end, *b = p;
		bool backslash;

		while (b < e && (*b == ' ' || *b == '\t'))
			b++;
		if (b == e && nl) {
			p = nl + 1;
			continue;
		}
		if (b < e && *b == '#')
			return (size_t)(p - text);
		while (e > b && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
			e--;
		backslash = e > b && e[-1] == '\\';
		if (!backslash)
			return (size_t)(p - text);
		/* a macro body: skip to the line after the last one
		 * continued */
		while (nl) {
			const char *n2 = memchr(nl + 1, '\n',
						(size_t)(end - nl - 1));
			const char *e2 = n2 ? n2 : end;

			while (e2 > nl + 1 && (e2[-1] == ' ' || e2[-1] == '\t' ||
					       e2[-1] == '\r'))
				e2--;
			if (!(e2 > nl + 1 && e2[-1] == '\\'))
				return n2 ? (size_t)(n2 + 1 - text) : len;
			nl = n2;
		}
		return len;
	}
}
