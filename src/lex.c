#include "lex.h"

#include <string.h>

/*
 * The lexer.  One pass over the bytes; comments and continuations are
 * whitespace, a '#' first on a line starts a directive token that runs to
 * the end of the logical line.  Directive bodies are lexed again by a
 * sub-lexer over that token.
 */

void lexer_init(struct lexer *lx, const char *p, size_t len,
		size_t line, const char *line_start)
{
	lx->p = p;
	lx->end = p + len;
	lx->line_start = line_start;
	lx->line = line;
	lx->bol = true;
	lx->in_directive = false;
}

/* At a backslash: the length of a following line splice, or 0. */
static inline size_t splice_len(const char *p, const char *end)
{
	if (p + 1 < end && p[1] == '\n')
		return 2;
	if (p + 2 < end && p[1] == '\r' && p[2] == '\n')
		return 3;
	return 0;
}

static void newline(struct lexer *lx, const char *nl)
{
	lx->line++;
	lx->line_start = nl + 1;
}

static void skip_block_comment(struct lexer *lx)
{
	const char *p = lx->p + 2;

	for (;;) {
		const char *star = memchr(p, '*', (size_t)(lx->end - p));
		const char *stop = star ? star : lx->end;
		const char *nl;

		while ((nl = memchr(p, '\n', (size_t)(stop - p)))) {
			newline(lx, nl);
			p = nl + 1;
		}
		if (!star) {
			lx->p = lx->end;
			return;
		}
		if (star + 1 < lx->end && star[1] == '/') {
			lx->p = star + 2;
			return;
		}
		p = star + 1;
	}
}

/* Up to the newline ending the comment (a spliced newline does not). */
static void skip_line_comment(struct lexer *lx)
{
	const char *p = lx->p + 2;

	while (p < lx->end && *p != '\n') {
		size_t s;

		if (*p == '\\' && (s = splice_len(p, lx->end))) {
			newline(lx, p + s - 1);
			p += s;
			continue;
		}
		p++;
	}
	lx->p = p;
}

static void skip_blanks(struct lexer *lx)
{
	while (lx->p < lx->end) {
		char c = *lx->p;
		size_t s;

		if (c == '\n') {
			newline(lx, lx->p);
			lx->p++;
			lx->bol = !lx->in_directive;
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' ||
			   c == '\v') {
			lx->p++;
		} else if (c == '\\' && (s = splice_len(lx->p, lx->end))) {
			newline(lx, lx->p + s - 1);
			lx->p += s;
		} else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '*') {
			skip_block_comment(lx);
		} else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '/') {
			skip_line_comment(lx);
		} else {
			return;
		}
	}
}

/* A string or character literal; an unescaped newline ends it too. */
static void skip_literal(struct lexer *lx, char quote)
{
	const char *p = lx->p + 1;

	while (p < lx->end && *p != quote && *p != '\n') {
		if (*p == '\\' && p + 1 < lx->end) {
			size_t s = splice_len(p, lx->end);

			if (s)
				newline(lx, p + s - 1);
			p += s ? s : 2;
			continue;
		}
		p++;
	}
	lx->p = p < lx->end && *p == quote ? p + 1 : p;
}

/* From '#' to the end of the logical line, past comments and literals. */
static void skip_directive(struct lexer *lx)
{
	lx->p++;
	while (lx->p < lx->end && *lx->p != '\n') {
		char c = *lx->p;
		size_t s;

		if (c == '\\' && (s = splice_len(lx->p, lx->end))) {
			newline(lx, lx->p + s - 1);
			lx->p += s;
		} else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '*') {
			skip_block_comment(lx);
		} else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '/') {
			skip_line_comment(lx);
		} else if (c == '"' || c == '\'') {
			skip_literal(lx, c);
		} else {
			lx->p++;
		}
	}
}

static void skip_number(struct lexer *lx)
{
	const char *p = lx->p + 1;

	while (p < lx->end) {
		char c = *p;

		if ((c == '+' || c == '-') &&
		    ((p[-1] | 32) == 'e' || (p[-1] | 32) == 'p'))
			p++;
		else if (is_ident_char((unsigned char)c) || c == '.')
			p++;
		else
			break;
	}
	lx->p = p;
}

static size_t punct_len(const char *p, const char *end)
{
	char c = p[0], d = p + 1 < end ? p[1] : '\0';

	if (c == '-' && d == '>')
		return 2;
	if (c == '#' && d == '#')
		return 2;
	if (c == '.' && d == '.' && p + 2 < end && p[2] == '.')
		return 3;
	if ((c == '<' || c == '>') && d == c)
		return p + 2 < end && p[2] == '=' ? 3 : 2;
	if ((c == '&' || c == '|' || c == '+' || c == '-') && d == c)
		return 2;
	if (d == '=' && strchr("=!<>+-*/%&|^", c))
		return 2;
	return 1;
}

void lex(struct lexer *lx, struct token *t)
{
	unsigned char c;

	skip_blanks(lx);
	t->wc = 0;
	t->p = lx->p;
	t->line = lx->line;
	t->col = (size_t)(lx->p - lx->line_start) + 1;
	if (lx->p >= lx->end) {
		t->type = TOK_EOF;
		t->len = 0;
		return;
	}
	c = (unsigned char)*lx->p;
	if (c == '#' && lx->bol) {
		t->type = TOK_DIRECTIVE;
		skip_directive(lx);
	} else if (is_ident_start(c)) {
		t->type = TOK_IDENT;
		do
			lx->p++;
		while (lx->p < lx->end && is_ident_char((unsigned char)*lx->p));
	} else if ((unsigned char)(c - '0') < 10 ||
		   (c == '.' && lx->p + 1 < lx->end &&
		    (unsigned char)(lx->p[1] - '0') < 10)) {
		t->type = TOK_NUMBER;
		skip_number(lx);
	} else if (c == '"' || c == '\'') {
		t->type = c == '"' ? TOK_STRING : TOK_CHAR;
		skip_literal(lx, (char)c);
	} else {
		t->type = TOK_PUNCT;
		lx->p += punct_len(lx->p, lx->end);
	}
	lx->bol = false;
	t->len = (size_t)(lx->p - t->p);
}

/* A lexer over a directive token's bytes after the '#'. */
void directive_lexer(struct lexer *sub, const struct token *t,
		     const char *line_start)
{
	lexer_init(sub, t->p + 1, t->len - 1, t->line, line_start);
	sub->bol = false;
	sub->in_directive = true;
}

/* The words that are not names, sorted for bsearch. */
struct word {
	const char *s;
	size_t len;
	enum word_class class;
};

static const struct word words[] = {
	{ "_Alignas", 8, WORD_ATTR },
	{ "_Atomic", 7, WORD_QUAL },
	{ "_Bool", 5, WORD_TYPE },
	{ "_Complex", 8, WORD_TYPE },
	{ "_Noreturn", 9, WORD_ATTR },
	{ "_Static_assert", 14, WORD_OTHER },
	{ "_Thread_local", 13, WORD_STORAGE },
	{ "____cacheline_aligned", 21, WORD_ATTR },
	{ "____cacheline_aligned_in_smp", 28, WORD_ATTR },
	{ "__acquires", 10, WORD_ATTR },
	{ "__aligned", 9, WORD_ATTR },
	{ "__alloc_size", 12, WORD_ATTR },
	{ "__always_inline", 15, WORD_STORAGE },
	{ "__always_unused", 15, WORD_ATTR },
	{ "__asm__", 7, WORD_ATTR },
	{ "__assume_aligned", 16, WORD_ATTR },
	{ "__attribute", 11, WORD_ATTR },
	{ "__attribute__", 13, WORD_ATTR },
	{ "__attribute_const__", 19, WORD_ATTR },
	{ "__bitwise", 9, WORD_ATTR },
	{ "__cacheline_aligned", 19, WORD_ATTR },
	{ "__cacheline_aligned_in_smp", 26, WORD_ATTR },
	{ "__cleanup", 9, WORD_ATTR },
	{ "__cold", 6, WORD_ATTR },
	{ "__cond_acquires", 15, WORD_ATTR },
	{ "__cond_releases", 15, WORD_ATTR },
	{ "__const", 7, WORD_QUAL },
	{ "__counted_by", 12, WORD_ATTR },
	{ "__deprecated", 12, WORD_ATTR },
	{ "__designated_init", 17, WORD_ATTR },
	{ "__diagnose_as", 13, WORD_ATTR },
	{ "__exit", 6, WORD_ATTR },
	{ "__exitdata", 10, WORD_ATTR },
	{ "__flatten", 9, WORD_ATTR },
	{ "__force", 7, WORD_ATTR },
	{ "__free", 6, WORD_ATTR },
	{ "__hot", 5, WORD_ATTR },
	{ "__init", 6, WORD_ATTR },
	{ "__initconst", 11, WORD_ATTR },
	{ "__initdata", 10, WORD_ATTR },
	{ "__inline", 8, WORD_STORAGE },
	{ "__inline__", 10, WORD_STORAGE },
	{ "__iomem", 7, WORD_ATTR },
	{ "__kernel", 8, WORD_ATTR },
	{ "__latent_entropy", 16, WORD_ATTR },
	{ "__malloc", 8, WORD_ATTR },
	{ "__maybe_unused", 14, WORD_ATTR },
	{ "__must_check", 12, WORD_ATTR },
	{ "__must_hold", 11, WORD_ATTR },
	{ "__no_randomize_layout", 21, WORD_ATTR },
	{ "__nocast", 8, WORD_ATTR },
	{ "__nocfi", 7, WORD_ATTR },
	{ "__noclone", 9, WORD_ATTR },
	{ "__nonstring", 11, WORD_ATTR },
	{ "__noreturn", 10, WORD_ATTR },
	{ "__packed", 8, WORD_ATTR },
	{ "__percpu", 8, WORD_ATTR },
	{ "__printf", 8, WORD_ATTR },
	{ "__private", 9, WORD_ATTR },
	{ "__pure", 6, WORD_ATTR },
	{ "__randomize_layout", 18, WORD_ATTR },
	{ "__rcu", 5, WORD_ATTR },
	{ "__read_mostly", 13, WORD_ATTR },
	{ "__ref", 5, WORD_ATTR },
	{ "__refdata", 9, WORD_ATTR },
	{ "__releases", 10, WORD_ATTR },
	{ "__restrict", 10, WORD_QUAL },
	{ "__restrict__", 12, WORD_QUAL },
	{ "__ro_after_init", 15, WORD_ATTR },
	{ "__scanf", 7, WORD_ATTR },
	{ "__sched", 7, WORD_ATTR },
	{ "__section", 9, WORD_ATTR },
	{ "__signed", 8, WORD_TYPE },
	{ "__signed__", 10, WORD_TYPE },
	{ "__thread", 8, WORD_STORAGE },
	{ "__typeof", 8, WORD_TYPEOF },
	{ "__typeof__", 10, WORD_TYPEOF },
	{ "__used", 6, WORD_ATTR },
	{ "__user", 6, WORD_ATTR },
	{ "__visible", 9, WORD_ATTR },
	{ "__volatile", 10, WORD_QUAL },
	{ "__volatile__", 12, WORD_QUAL },
	{ "__weak", 6, WORD_ATTR },
	{ "asm", 3, WORD_ATTR },
	{ "asmlinkage", 10, WORD_ATTR },
	{ "auto", 4, WORD_STORAGE },
	{ "break", 5, WORD_OTHER },
	{ "case", 4, WORD_OTHER },
	{ "char", 4, WORD_TYPE },
	{ "const", 5, WORD_QUAL },
	{ "continue", 8, WORD_OTHER },
	{ "default", 7, WORD_OTHER },
	{ "do", 2, WORD_OTHER },
	{ "double", 6, WORD_TYPE },
	{ "else", 4, WORD_OTHER },
	{ "enum", 4, WORD_TAG },
	{ "extern", 6, WORD_STORAGE },
	{ "float", 5, WORD_TYPE },
	{ "for", 3, WORD_OTHER },
	{ "goto", 4, WORD_OTHER },
	{ "if", 2, WORD_OTHER },
	{ "inline", 6, WORD_STORAGE },
	{ "int", 3, WORD_TYPE },
	{ "long", 4, WORD_TYPE },
	{ "noinline", 8, WORD_ATTR },
	{ "noinline_for_stack", 18, WORD_ATTR },
	{ "noinstr", 7, WORD_ATTR },
	{ "notrace", 7, WORD_ATTR },
	{ "register", 8, WORD_STORAGE },
	{ "restrict", 8, WORD_QUAL },
	{ "return", 6, WORD_OTHER },
	{ "short", 5, WORD_TYPE },
	{ "signed", 6, WORD_TYPE },
	{ "sizeof", 6, WORD_OTHER },
	{ "static", 6, WORD_STORAGE },
	{ "static_assert", 13, WORD_OTHER },
	{ "struct", 6, WORD_TAG },
	{ "switch", 6, WORD_OTHER },
	{ "typedef", 7, WORD_STORAGE },
	{ "typeof", 6, WORD_TYPEOF },
	{ "union", 5, WORD_TAG },
	{ "unsigned", 8, WORD_TYPE },
	{ "void", 4, WORD_TYPE },
	{ "volatile", 8, WORD_QUAL },
	{ "while", 5, WORD_OTHER },
};

static int word_cmp(const char *p, size_t len, const struct word *w)
{
	int c = memcmp(p, w->s, len < w->len ? len : w->len);

	if (c)
		return c;
	return len < w->len ? -1 : len > w->len;
}

enum word_class word_lookup(const char *p, size_t len)
{
	size_t lo = 0, hi = sizeof(words) / sizeof(*words);

	/* every word starts with '_' or a lower-case letter */
	if (len < 2 || len > 30 || !(*p == '_' || (*p >= 'a' && *p <= 'z')))
		return WORD_NAME;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = word_cmp(p, len, &words[mid]);

		if (!c)
			return words[mid].class;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return WORD_NAME;
}

enum word_class word_class(const struct token *t)
{
	enum word_class wc;

	if (t->type != TOK_IDENT)
		return WORD_OTHER;
	if (t->wc)
		return (enum word_class)(t->wc - 1);
	wc = word_lookup(t->p, t->len);
	/* a cache in the token: tokens live in the scanners' own arrays */
	((struct token *)t)->wc = (unsigned char)(wc + 1);
	return wc;
}

const char *line_initializer(const char *p, size_t len)
{
	for (size_t i = 0; i < len && p[i] != '('; i++) {
		if (p[i] != '=')
			continue;
		if ((i + 1 < len && p[i + 1] == '=') ||
		    (i && memchr("=!<>", p[i - 1], 4)))
			return NULL;
		return p + i;
	}
	return NULL;
}
