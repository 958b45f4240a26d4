/*
 * ctok: token-level reading of C text that watch.c's scanners (exports,
 * references) and cnames.c's (the names of a text) share: which branches
 * of #if are live and what scanning state they put back, lists of tokens,
 * bracket groups, the name a declaration declares, function heads, where
 * the code of a hunk's lines starts.  Works on lex.c's tokens; owns no
 * scanner of its own.
 */
#ifndef KCARRY_CTOK_H
#define KCARRY_CTOK_H

#include "buf.h"
#include "lex.h"

/*
 * What conditional bookkeeping puts back: depths and, for the reference
 * scanner, the function it is in and its view of the current file-scope
 * declaration.
 */
struct ctok_depths {
	int brace, paren;
	struct span func;      /* the function whose body we are in */
	bool typed;            /* a type was seen: "name(" declares */
	bool have_cand;        /* a function declarator was seen */
	bool cand_typed;       /* ...after a type, not a macro call */
	struct span cand;
	bool saw_eq;           /* in an initializer */
	size_t decl_toks;      /* tokens in the declaration so far */
};

/*
 * Conditional compilation.  Every branch is live except those a literal
 * '#if 0' or '#if 1' rules out.  The scanning state (depths, declaration
 * being read) is put back at #else/#elif to its value at #if, and at #endif
 * set to what the first branch left, so that branches which each open a
 * function body (a prototype per configuration) do not unbalance the file.
 */
enum ctok_cond_kind {
	CTOK_COND_ANY, /* scan all branches */
	CTOK_COND_IF0, /* dead until #else/#elif */
	CTOK_COND_IF1, /* live until #else/#elif, then dead */
	CTOK_COND_TAKEN, /* the live #else of an '#if 0' */
};

struct ctok_cond {
	enum ctok_cond_kind kind;
	bool outer_dead;
	bool seen_else;
	struct ctok_depths at_if, first;
};

struct ctok_conds {
	struct ctok_cond *v;
	size_t nr, alloc;
	bool dead;
};

enum ctok_op { CTOK_OP_IF, CTOK_OP_ELIF, CTOK_OP_ELSE, CTOK_OP_ENDIF };

struct ctok_list {
	struct token *v;
	size_t nr, alloc;
};

/*
 * Apply one conditional directive; sub is positioned after its name (for
 * #if, to tell '#if 0' apart).  *d is the scanning state a branch puts
 * back.
 */
void ctok_cond_apply(struct ctok_conds *cs, enum ctok_op op,
		     struct lexer *sub, struct ctok_depths *d);
/* The conditional op (enum ctok_op) a directive name means, or -1;
 * *is_if tells #if, #ifdef and #ifndef. */
int ctok_cond_op(const struct token *name, bool *is_if);

/* Append the owned string s to a pool (*v, *nr, *alloc); returns s. */
char *ctok_pool_add(char ***v, size_t *nr, size_t *alloc, char *s);
/* Free every string of a pool and the pool. */
void ctok_pool_free(char **v, size_t nr);
bool ctok_has_nul(const char *text, size_t len);
void ctok_list_push(struct ctok_list *tv, const struct token *t);

/* Index of the token closing the group opened at t[i], or n. */
size_t ctok_match_group(const struct token *t, size_t i, size_t n);
/* '(', '[' or '{'. */
bool ctok_is_open(const struct token *t);
/* Past an attribute word at t[i] and its argument list. */
size_t ctok_skip_attr(const struct token *t, size_t i, size_t n);
/*
 * The declarator name in a declaration or parameter t[0..n) in *idx: in
 * a "(*name)" group if there is one, else the last plain identifier
 * before '=', ':' or the end.  With need_type, a lone identifier is a
 * type, not a name.
 */
bool ctok_find_name(const struct token *t, size_t n, bool need_type,
		    size_t *idx);
/* The function declarator in a declaration, in *name: the first
 * identifier followed by '(' that is not an attribute and comes after
 * some type. */
bool ctok_find_function(const struct token *t, size_t n, size_t *name);
/* Whether t[0..n) before a '{' is a function definition's head. */
bool ctok_is_function_head(const struct token *t, size_t n, size_t *name);
/* Whether the storage word ("static", "typedef") stands in t[0..n)
 * outside brackets. */
bool ctok_has_storage(const struct token *t, size_t n, const char *word);
/* '.' or '->'. */
bool ctok_is_member_op(const struct token *t);
/* struct, union or enum. */
bool ctok_is_tag_keyword(const struct token *t);
/*
 * Where the code of a fragment (the lines of a hunk) starts: past a
 * comment it starts inside and past the rest of a macro body it starts
 * inside.
 */
size_t ctok_fragment_start(const char *text, size_t len);

#endif
