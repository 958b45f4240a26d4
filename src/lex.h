/*
 * lex: a lexer for C text in memory, without a preprocessor.  One token at
 * a time; no allocation, tokens point into the caller's bytes.
 *
 * A token is one of: an identifier (keywords included: word_class() tells
 * them apart), a number (pp-number: "0x1fUL", "1e+5"), a string or
 * character literal (quotes included; an unescaped newline ends an
 * unterminated one), a punctuator ("->", "##", "<<=" and the other
 * multi-byte ones are one token), or a directive: '#' first on a line
 * (after blanks) through the end of its logical line, continuations and
 * comments included, as one token.  A directive's body is lexed again by
 * a sub-lexer from directive_lexer(), in which '#' and '##' are
 * punctuators and a newline ends nothing.  Comments, blanks and
 * backslash-newline splices are whitespace; lines and columns count from
 * 1 and follow the physical lines.  TOK_EOF ends the text, with len 0.
 */
#ifndef KCARRY_LEX_H
#define KCARRY_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

enum tok_type {
	TOK_EOF,
	TOK_IDENT,
	TOK_NUMBER,
	TOK_STRING,
	TOK_CHAR,
	TOK_PUNCT,
	TOK_DIRECTIVE,
};

struct token {
	enum tok_type type;
	const char *p;
	size_t len;
	size_t line;
	size_t col;
	unsigned char wc; /* word_class() + 1 once known; 0: not yet */
};

struct lexer {
	const char *p;
	const char *end;
	const char *line_start;
	size_t line;
	bool bol;          /* nothing but blanks since the last newline */
	bool in_directive; /* '#' is punctuation, newline ends nothing */
};

static inline bool is_ident_char(unsigned char c)
{
	return (unsigned char)((c | 32) - 'a') < 26 ||
	       (unsigned char)(c - '0') < 10 || c == '_' || c == '$' ||
	       c >= 0x80;
}

static inline bool is_ident_start(unsigned char c)
{
	return is_ident_char(c) && (unsigned char)(c - '0') >= 10;
}

static inline bool tok_is(const struct token *t, const char *s, size_t n)
{
	return t->len == n && !memcmp(t->p, s, n);
}

#define TOK_IS(t, lit) tok_is((t), (lit), sizeof(lit) - 1)

static inline bool tok_punct(const struct token *t, char c)
{
	return t->type == TOK_PUNCT && t->len == 1 && *t->p == c;
}

/*
 * Words that are not names: attributes and annotations (skipped, with
 * their argument list if any), storage classes, qualifiers and the
 * keywords naming types.
 */
enum word_class {
	WORD_NAME,
	WORD_ATTR,
	WORD_STORAGE,
	WORD_QUAL,
	WORD_TYPE,
	WORD_TAG,
	WORD_TYPEOF,
	WORD_OTHER, /* keywords such as sizeof or return */
};

/* A lexer over len bytes at p; the first line is numbered line. */
void lexer_init(struct lexer *lx, const char *p, size_t len,
		size_t line, const char *line_start);

/* The next token into t; TOK_EOF, again and again, at the end. */
void lex(struct lexer *lx, struct token *t);

/* A lexer over a directive token's bytes after the '#'. */
void directive_lexer(struct lexer *sub, const struct token *t,
		     const char *line_start);

/* What the word at p is: WORD_NAME for anything not in the table. */
enum word_class word_lookup(const char *p, size_t len);

/* word_lookup() of an identifier, cached in t; WORD_OTHER for others. */
enum word_class word_class(const struct token *t);

/*
 * The '=' of an initializer on a declaration line, when it comes before
 * any '(' ("int sm = IS_ENABLED(CONFIG_I": a variable, not a function
 * nor a macro call); NULL when there is none.  '==', '!=', '<=' and '>='
 * are no initializer.
 */
const char *line_initializer(const char *p, size_t len);

#endif
