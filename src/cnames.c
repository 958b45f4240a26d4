/*
 * cnames: see cnames.h.
 */
#include "cnames.h"

#include <stdlib.h>
#include <string.h>

#include "ctok.h"
#include "lex.h"

/* ------------------------------------------------------------------ */
/* Names of C text */

#define BUILTIN(s) { s, sizeof(s) - 1 }
static const struct {
	const char *s;
	size_t len;
} builtins[] = {
	BUILTIN("NULL"), BUILTIN("_Alignof"), BUILTIN("_Generic"),
	BUILTIN("__COUNTER__"), BUILTIN("__DATE__"), BUILTIN("__FILE__"),
	BUILTIN("__FUNCTION__"), BUILTIN("__LINE__"),
	BUILTIN("__PRETTY_FUNCTION__"), BUILTIN("__TIME__"),
	BUILTIN("__VA_ARGS__"), BUILTIN("__VA_OPT__"), BUILTIN("__alignof__"),
	BUILTIN("__builtin_va_list"), BUILTIN("__extension__"),
	BUILTIN("__func__"), BUILTIN("__has_attribute"),
	BUILTIN("__has_builtin"), BUILTIN("__has_include"),
	BUILTIN("__int128"), BUILTIN("__label__"), BUILTIN("__real__"),
	BUILTIN("__imag__"), BUILTIN("alignof"), BUILTIN("bool"),
	BUILTIN("defined"), BUILTIN("false"), BUILTIN("goto"),
	BUILTIN("offsetof"), BUILTIN("true"),
};
#undef BUILTIN

/* A name of the compiler's that is no keyword (word_lookup said so). */
static bool builtin_name(const char *name, size_t len)
{
	if (!strchr("N_abdfgot", *name))
		return false;
	if ((len > 10 && !memcmp(name, "__builtin_", 10)) ||
	    (len > 9 && !memcmp(name, "__atomic_", 9)) ||
	    (len > 7 && !memcmp(name, "__sync_", 7)))
		return true;
	for (size_t i = 0; i < sizeof(builtins) / sizeof(*builtins); i++)
		if (builtins[i].len == len && !memcmp(builtins[i].s, name, len))
			return true;
	return false;
}

bool cnames_is_builtin(const char *name, size_t len)
{
	return word_lookup(name, len) != WORD_NAME || builtin_name(name, len);
}

void cnames_init(struct cnames *c)
{
	memset(c, 0, sizeof(*c));
}

void cnames_release(struct cnames *c)
{
	free(c->ids);
	free(c->funcs);
	free(c->includes);
	ctok_pool_free(c->pastes, c->nr_pastes);
	cnames_init(c);
}

enum cctx_kind {
	CCTX_TOP,    /* file scope, or the unknown start of a fragment */
	CCTX_BLOCK,  /* a function body or a compound statement */
	CCTX_RECORD, /* a struct or union body */
	CCTX_ENUM,
	CCTX_INIT,   /* initializer braces */
};

struct cctx {
	enum cctx_kind kind;
	long func;        /* index in funcs of the definition it is the body of */
	bool declarators; /* after its '}', the names up to ';' are declared */
	bool is_typedef;
};

/* The scanning state conditional branches put back. */
struct cstate {
	size_t depth;
	int paren;
	size_t unit;
};

struct cscan {
	struct cnames *out;
	unsigned flags;
	struct lexer lx;
	struct ctok_conds cs;
	struct cstate *saved; /* per open #if: at the #if, then the first
			       * branch's end */
	bool *seen_else;
	size_t nr_saved, alloc_saved, alloc_seen;
	struct ctok_list unit;
	struct cctx *stack; /* stack[0] is the top */
	size_t depth, alloc;
	int paren;
	bool after_record; /* the unit declares what follows a record's '}' */
	bool after_typedef;
	enum cnames_decl_kind after_kind;
	int *cls;         /* per unit token: its kind, -1 for none */
	int *decl;
	size_t cls_alloc, decl_alloc;
};

static bool upper_name(const struct token *t)
{
	bool letter = false;

	for (size_t i = 0; i < t->len; i++) {
		if (t->p[i] >= 'a' && t->p[i] <= 'z')
			return false;
		letter |= t->p[i] >= 'A' && t->p[i] <= 'Z';
	}
	return letter;
}

/* A callee that is a macro by the kernel's naming: FOO() or __foo(). */
static bool macro_like(const struct token *t)
{
	return t->type == TOK_IDENT &&
	       (upper_name(t) || (t->len > 2 && t->p[0] == '_' && t->p[1] == '_'));
}

static void add_id(struct cnames *c, const struct token *t,
		   enum cnames_id_kind kind, enum cnames_decl_kind decl,
		   bool directive)
{
	struct cnames_id *id;

	ALLOC_GROW(c->ids, c->nr + 1, c->alloc);
	id = &c->ids[c->nr++];
	id->name = t->p;
	id->len = t->len;
	id->line = t->line;
	id->kind = kind;
	id->decl = decl;
	id->directive = directive;
}

static struct cctx *ctop(struct cscan *s)
{
	return &s->stack[s->depth - 1];
}

static void cpush(struct cscan *s, enum cctx_kind kind, long func)
{
	ALLOC_GROW(s->stack, s->depth + 1, s->alloc);
	s->stack[s->depth].kind = kind;
	s->stack[s->depth].func = func;
	s->stack[s->depth].declarators = false;
	s->stack[s->depth].is_typedef = false;
	s->depth++;
}

static void mark(struct cscan *s, size_t i, enum cnames_decl_kind kind)
{
	s->cls[i] = CNAMES_ID_DECL;
	s->decl[i] = (int)kind;
}

/*
 * Does t[0..n) start a declaration: a type, then a declarator?  top: at
 * file scope, where "u8 *f(" can only be a prototype (in a body it may
 * be a product with a call).
 */
static bool looks_declaration(const struct token *t, size_t n, bool top)
{
	size_t i = 0, j;

	for (; i < n; i++) {
		enum word_class wc;

		if (t[i].type != TOK_IDENT)
			return false;
		wc = word_class(&t[i]);
		if (wc == WORD_STORAGE || wc == WORD_QUAL)
			continue;
		if (wc == WORD_ATTR) {
			i = ctok_skip_attr(t, i, n) - 1;
			continue;
		}
		if (wc == WORD_TYPE || wc == WORD_TAG || wc == WORD_TYPEOF)
			return true;
		if (wc != WORD_NAME)
			return false;
		break;
	}
	if (i >= n)
		return false;
	/* a name: it is a type when a declarator follows */
	for (j = i + 1; j < n && t[j].type == TOK_IDENT &&
			(word_class(&t[j]) == WORD_QUAL ||
			 word_class(&t[j]) == WORD_ATTR);)
		j = word_class(&t[j]) == WORD_ATTR ? ctok_skip_attr(t, j, n)
						   : j + 1;
	if (j < n && t[j].type == TOK_IDENT && word_class(&t[j]) == WORD_NAME)
		return true;
	if (j < n && tok_punct(&t[j], '*')) {
		while (j < n && (tok_punct(&t[j], '*') ||
				 (t[j].type == TOK_IDENT &&
				  (word_class(&t[j]) == WORD_QUAL ||
				   word_class(&t[j]) == WORD_ATTR))))
			j++;
		/* "u8 *(*alloc_t)(size_t n)" */
		if (top && j + 1 < n && tok_punct(&t[j], '(') &&
		    tok_punct(&t[j + 1], '*'))
			return true;
		return j < n && t[j].type == TOK_IDENT &&
		       word_class(&t[j]) == WORD_NAME &&
		       (j + 1 == n || tok_punct(&t[j + 1], ';') ||
			tok_punct(&t[j + 1], ',') || tok_punct(&t[j + 1], '=') ||
			tok_punct(&t[j + 1], '[') || tok_punct(&t[j + 1], ')') ||
			tok_punct(&t[j + 1], ':') ||
			(top && tok_punct(&t[j + 1], '(')));
	}
	return j + 1 < n && tok_punct(&t[j], '(') && tok_punct(&t[j + 1], '*');
}

/* The first plain name of t[a..b) that is not declared: its type. */
static void mark_type_name(struct cscan *s, size_t a, size_t b)
{
	const struct token *t = s->unit.v;

	for (size_t k = a; k < b; k++) {
		if (ctok_is_open(&t[k]) || tok_punct(&t[k], '=') ||
		    tok_punct(&t[k], '*'))
			return;
		if (t[k].type != TOK_IDENT)
			continue;
		if (word_class(&t[k]) == WORD_TAG)
			return; /* struct x: a tag */
		if (word_class(&t[k]) == WORD_NAME) {
			if (s->cls[k] == CNAMES_ID_USE)
				s->cls[k] = CNAMES_ID_TYPE;
			return;
		}
	}
}

/* Mark the declarators of the declaration t[a..b) of the unit. */
static void mark_declarators(struct cscan *s, size_t a, size_t b,
			     enum cnames_decl_kind kind, bool need_type)
{
	const struct token *t = s->unit.v;
	size_t first = a, idx;

	for (size_t k = a; k <= b; k++) {
		if (k < b && ctok_is_open(&t[k])) {
			k = ctok_match_group(t, k, b);
			continue;
		}
		if (k < b && !tok_punct(&t[k], ','))
			continue;
		if (first < k &&
		    ctok_find_name(t + first, k - first,
				   need_type && first == a, &idx)) {
			mark(s, first + idx, kind);
			if (first == a && need_type)
				mark_type_name(s, a, first + idx);
		}
		first = k + 1;
	}
}

/* Lone names in the argument list of a call at t[open] (its '('). */
static void mark_macro_args(struct cscan *s, size_t open, size_t n)
{
	const struct token *t = s->unit.v;
	size_t close = ctok_match_group(t, open, n), a = open + 1;

	for (size_t k = open + 1; k <= close && k < n; k++) {
		if (k < close && ctok_is_open(&t[k])) {
			k = ctok_match_group(t, k, close);
			continue;
		}
		if (k < close && !tok_punct(&t[k], ','))
			continue;
		if (k == a + 1 && t[a].type == TOK_IDENT &&
		    word_class(&t[a]) == WORD_NAME)
			mark(s, a, CNAMES_DECL_MACRO_ARG);
		a = k + 1;
	}
}

/* Macro calls anywhere in t[a..b) hand their lone names over. */
static void mark_all_macro_args(struct cscan *s, size_t a, size_t b)
{
	const struct token *t = s->unit.v;

	for (size_t k = a; k + 1 < b; k++)
		if (macro_like(&t[k]) && tok_punct(&t[k + 1], '(') &&
		    word_class(&t[k]) == WORD_NAME)
			mark_macro_args(s, k + 1, b);
}

/* The parameters in the group t[open] opens: locals. */
static void mark_param_group(struct cscan *s, size_t open, size_t n)
{
	const struct token *t = s->unit.v;
	size_t close = ctok_match_group(t, open, n), a = open + 1, idx;

	for (size_t k = open + 1; k <= close && k < n; k++) {
		if (k < close && ctok_is_open(&t[k])) {
			k = ctok_match_group(t, k, close);
			continue;
		}
		if (k < close && !tok_punct(&t[k], ','))
			continue;
		if (a < k && ctok_find_name(t + a, k - a, true, &idx)) {
			mark(s, a + idx, CNAMES_DECL_LOCAL);
			mark_type_name(s, a, a + idx);
		} else if (a < k) {
			mark_type_name(s, a, k); /* unnamed: "btrfs_func_t" */
		}
		a = k + 1;
	}
}

/* The parameters of the definition whose name is at t[name]. */
static void mark_params(struct cscan *s, size_t name, size_t n)
{
	mark_param_group(s, name + 1, n);
}

/* Parameter lists of function declarators in t[a..b): "(*f)(int x)". */
static void mark_declarator_params(struct cscan *s, size_t a, size_t b)
{
	const struct token *t = s->unit.v;

	for (size_t k = a + 1; k < b; k++) {
		if (tok_punct(&t[k], '=') )
			return;
		if (tok_punct(&t[k], '(') && tok_punct(&t[k - 1], ')'))
			mark_param_group(s, k, b);
		if (ctok_is_open(&t[k]))
			k = ctok_match_group(t, k, b);
	}
}

/* Enum items in t[a..b): NAME [= value], separated by commas. */
static void mark_enum_items(struct cscan *s, size_t a, size_t b)
{
	const struct token *t = s->unit.v;
	bool at_start = true;

	for (size_t k = a; k < b; k++) {
		if (ctok_is_open(&t[k])) {
			k = ctok_match_group(t, k, b);
			at_start = false;
			continue;
		}
		if (tok_punct(&t[k], ',')) {
			at_start = true;
			continue;
		}
		if (at_start && t[k].type == TOK_IDENT &&
		    word_class(&t[k]) == WORD_NAME)
			mark(s, k, CNAMES_DECL_ENUM_CONST);
		at_start = false;
	}
}

/* A fragment's run of "A, B = 2, C" with upper-case names: enum items. */
static bool looks_enum_items(const struct token *t, size_t a, size_t b)
{
	bool at_start = true, any = false;

	for (size_t k = a; k < b; k++) {
		if (tok_punct(&t[k], ',')) {
			at_start = true;
			continue;
		}
		if (at_start) {
			if (!upper_name(&t[k]) || (k + 1 < b &&
						   !tok_punct(&t[k + 1], ',') &&
						   !tok_punct(&t[k + 1], '=')))
				return false;
			any = true;
			at_start = false;
			continue;
		}
		if (ctok_is_open(&t[k]))
			k = ctok_match_group(t, k, b);
	}
	return any;
}

static bool is_word(const struct token *t, const char *w)
{
	return t->type == TOK_IDENT && tok_is(t, w, strlen(w));
}

static bool control_word(const struct token *t)
{
	static const char *const w[] = { "if", "else", "for", "while", "do",
					 "switch", "return", "goto", "break",
					 "continue", "case", "default" };

	for (size_t i = 0; i < sizeof(w) / sizeof(*w); i++)
		if (is_word(t, w[i]))
			return true;
	return false;
}

/* The first '=' at depth 0 of t[a..b), or b. */
static size_t top_assign(const struct token *t, size_t a, size_t b)
{
	for (size_t k = a; k < b; k++) {
		if (ctok_is_open(&t[k]))
			k = ctok_match_group(t, k, b);
		else if (tok_punct(&t[k], '='))
			return k;
	}
	return b;
}

/*
 * A declaration (or a prototype) t[a..n) in a context where it declares
 * kind; is_typedef from the unit.
 */
static void mark_declaration(struct cscan *s, size_t a, size_t n,
			     enum cnames_decl_kind kind)
{
	const struct token *t = s->unit.v;
	size_t name;

	if (ctok_has_storage(t + a, n - a, "typedef"))
		kind = CNAMES_DECL_TYPEDEF;
	/* a prototype, or a function type: "typedef void f_t(void *ctx)" */
	if (ctok_find_function(t + a, n - a, &name)) {
		mark(s, a + name,
		     kind == CNAMES_DECL_MEMBER || kind == CNAMES_DECL_TYPEDEF
			     ? kind
			     : CNAMES_DECL_FUNCTION);
		mark_type_name(s, a, a + name);
		mark_params(s, a + name, n);
		return;
	}
	mark_declarators(s, a, n, kind, true);
	mark_declarator_params(s, a, n);
}

/*
 * "struct x *" outside parentheses, at file scope or in a record's
 * members: the use declares struct x, an incomplete type a pointer may
 * name (C's rule; include/linux/dmapool.h never defines struct dma_pool,
 * module.h's "struct module_sect_attrs *sect_attrs;").  In a parameter
 * list the tag is the prototype's alone, and in a body a local pointer
 * to a type the tree lacks stays a use (a backport's struct folio).
 */
static void mark_pointer_tags(struct cscan *s, size_t n)
{
	const struct token *t = s->unit.v;

	for (size_t i = 0; i + 1 < n; i++) {
		if (ctok_is_open(&t[i])) {
			i = ctok_match_group(t, i, n);
			continue;
		}
		if (s->cls[i] == CNAMES_ID_TAG && tok_punct(&t[i + 1], '*'))
			mark(s, i, CNAMES_DECL_INCOMPLETE);
	}
}

/* Classify the tokens of the unit that ends with term ('{', ';', '}' or
 * 0 at the end of the text), then open a context for '{'. */
static void end_unit(struct cscan *s, char term, const struct token *brace)
{
	const struct token *t = s->unit.v;
	size_t n = s->unit.nr, a = 0, name;
	struct cctx *c = ctop(s);
	enum cctx_kind kind = c->kind;
	enum cctx_kind open = CCTX_BLOCK;
	long func = -1;
	bool decl_ctx = kind == CCTX_TOP || kind == CCTX_BLOCK;
	enum cnames_decl_kind dk = kind == CCTX_BLOCK ? CNAMES_DECL_LOCAL
						      : CNAMES_DECL_VARIABLE;

	ALLOC_GROW(s->cls, n + 1, s->cls_alloc);
	ALLOC_GROW(s->decl, n + 1, s->decl_alloc);
	for (size_t i = 0; i < n; i++) {
		const struct token *p = i ? &t[i - 1] : NULL;

		s->cls[i] = -1;
		if (t[i].type != TOK_IDENT || word_class(&t[i]) != WORD_NAME ||
		    builtin_name(t[i].p, t[i].len))
			continue;
		if (p && ctok_is_member_op(p))
			s->cls[i] = CNAMES_ID_MEMBER;
		else if (p && ctok_is_tag_keyword(p))
			s->cls[i] = CNAMES_ID_TAG;
		else if (p && is_word(p, "goto"))
			s->cls[i] = CNAMES_ID_LABEL;
		else if (i + 1 < n && tok_punct(&t[i + 1], '('))
			s->cls[i] = CNAMES_ID_CALL;
		else
			s->cls[i] = CNAMES_ID_USE;
	}
	if (kind == CCTX_TOP && !(s->flags & CNAMES_FRAGMENT))
		dk = CNAMES_DECL_VARIABLE;
	else if (kind == CCTX_TOP && n && t[0].col != 1)
		dk = CNAMES_DECL_LOCAL;
	/* labels, case and default lead a statement; at the top of a
	 * fragment a label is one of a function the hunk does not open
	 * (nothing else at file scope starts "name:") */
	while (decl_ctx && a < n) {
		if (a + 1 < n && t[a].type == TOK_IDENT &&
		    word_class(&t[a]) == WORD_NAME && tok_punct(&t[a + 1], ':') &&
		    (kind != CCTX_TOP || (s->flags & CNAMES_FRAGMENT))) {
			mark(s, a, CNAMES_DECL_LABEL);
			a += 2;
		} else if (is_word(&t[a], "case") || is_word(&t[a], "default")) {
			while (a < n && !tok_punct(&t[a], ':'))
				a++;
			a++;
		} else {
			break;
		}
	}
	if (s->after_record) {
		/* struct x { ... } a, *b; */
		s->after_record = false;
		mark_declarators(s, a, n, s->after_typedef ? CNAMES_DECL_TYPEDEF
							   : s->after_kind,
				 false);
	} else if (kind == CCTX_ENUM) {
		mark_enum_items(s, a, n);
	} else if (kind == CCTX_INIT) {
		/* designators are members already; nothing declares */
	} else if (term == '{' && (kind == CCTX_TOP || kind == CCTX_BLOCK) &&
		   a < n && ctok_is_function_head(t + a, n - a, &name) &&
		   (kind == CCTX_TOP || (s->flags & CNAMES_FRAGMENT))) {
		struct cnames_func *f;

		mark(s, a + name, CNAMES_DECL_FUNCTION);
		mark_type_name(s, a, a + name);
		mark_params(s, a + name, n);
		ALLOC_GROW(s->out->funcs, s->out->nr_funcs + 1,
			   s->out->alloc_funcs);
		f = &s->out->funcs[s->out->nr_funcs];
		f->name = t[a + name].p;
		f->len = t[a + name].len;
		f->first = t[a].line;
		f->last = 0;
		func = (long)s->out->nr_funcs++;
	} else if (term == '{' && a < n &&
		   ((n - a >= 1 && ctok_is_tag_keyword(&t[n - 1])) ||
		    (n - a >= 2 && ctok_is_tag_keyword(&t[n - 2]) &&
		     t[n - 1].type == TOK_IDENT))) {
		/* struct x {, typedef union {, enum {: the tag, then a body */
		size_t kw = ctok_is_tag_keyword(&t[n - 1]) ? n - 1 : n - 2;

		if (kw + 1 < n)
			mark(s, kw + 1, CNAMES_DECL_TAG);
		open = is_word(&t[kw], "enum") ? CCTX_ENUM : CCTX_RECORD;
		cpush(s, open, -1);
		ctop(s)->declarators = kw > a || kind == CCTX_RECORD;
		ctop(s)->is_typedef =
			ctok_has_storage(t + a, kw - a, "typedef");
		s->unit.nr = 0;
		goto emit;
	} else if (term == '{' && top_assign(t, a, n) < n) {
		/* an initializer: what comes before '=' declares */
		size_t eq = top_assign(t, a, n);

		if (decl_ctx && looks_declaration(t + a, eq - a, false))
			mark_declarators(s, a, eq, dk, true);
		open = CCTX_INIT;
	} else if (kind == CCTX_RECORD && a < n) {
		if (looks_declaration(t + a, n - a, false))
			mark_declaration(s, a, n, CNAMES_DECL_MEMBER);
		else
			mark_all_macro_args(s, a, n);
	} else if (decl_ctx && a < n && is_word(&t[a], "for") && a + 1 < n &&
		   tok_punct(&t[a + 1], '(')) {
		size_t close = ctok_match_group(t, a + 1, n), semi = a + 2;

		while (semi < close && !tok_punct(&t[semi], ';'))
			semi++;
		if (looks_declaration(t + a + 2, semi - (a + 2), false))
			mark_declarators(s, a + 2, semi, CNAMES_DECL_LOCAL,
					 true);
		mark_all_macro_args(s, a, n);
	} else if (decl_ctx && term == ';' && n - a == 2 &&
		   ctok_is_tag_keyword(&t[a]) && t[a + 1].type == TOK_IDENT) {
		mark(s, a + 1, CNAMES_DECL_TAG); /* struct x; */
	} else if (decl_ctx && a < n && !control_word(&t[a]) &&
		   looks_declaration(t + a, n - a,
				     kind == CCTX_TOP &&
					     (!(s->flags & CNAMES_FRAGMENT) ||
					      t[a].col == 1))) {
		mark_declaration(s, a, n, dk);
		mark_all_macro_args(s, a, n);
	} else if (decl_ctx && a < n && kind == CCTX_TOP &&
		   (s->flags & CNAMES_FRAGMENT) && term != ';' &&
		   looks_enum_items(t, a, n)) {
		mark_enum_items(s, a, n);
	} else if (a < n && kind == CCTX_TOP && t[a].type == TOK_IDENT &&
		   a + 1 < n && tok_punct(&t[a + 1], '(') &&
		   (!(s->flags & CNAMES_FRAGMENT) || t[a].col == 1)) {
		/* a call at file scope is a macro: module_param_named(x...) */
		mark_macro_args(s, a + 1, n);
		mark_all_macro_args(s, a, n);
	} else if (a < n) {
		mark_all_macro_args(s, a, n);
	}
	if (kind == CCTX_RECORD ||
	    (kind == CCTX_TOP &&
	     (!(s->flags & CNAMES_FRAGMENT) || (a < n && t[a].col == 1))))
		mark_pointer_tags(s, n);
	s->unit.nr = 0;
	if (term == '{') {
		cpush(s, open, func);
		goto emit;
	}
emit:
	for (size_t i = 0; i < n; i++)
		if (s->cls[i] >= 0)
			add_id(s->out, &t[i], (enum cnames_id_kind)s->cls[i],
			       s->cls[i] == CNAMES_ID_DECL
				       ? (enum cnames_decl_kind)s->decl[i]
				       : CNAMES_DECL_LOCAL,
			       false);
	(void)brace;
}

static void close_context(struct cscan *s, const struct token *brace)
{
	struct cctx *c;

	if (s->depth <= 1) {
		/* a fragment that starts inside something */
		s->unit.nr = 0;
		return;
	}
	c = ctop(s);
	if (c->func >= 0)
		s->out->funcs[c->func].last = brace->line;
	if (c->declarators) {
		enum cctx_kind outer = s->stack[s->depth - 2].kind;

		s->after_record = true;
		s->after_typedef = c->is_typedef;
		s->after_kind = outer == CCTX_RECORD ? CNAMES_DECL_MEMBER
				: outer == CCTX_BLOCK ? CNAMES_DECL_LOCAL
						      : CNAMES_DECL_VARIABLE;
	}
	s->depth--;
}

static void add_paste(struct cnames *c, bool prefix, const struct token *t)
{
	char *p = prefix ? xstrfmt("%.*s*", (int)t->len, t->p)
			 : xstrfmt("*%.*s", (int)t->len, t->p);

	for (size_t i = 0; i < c->nr_pastes; i++)
		if (!strcmp(c->pastes[i], p)) {
			free(p);
			return;
		}
	ctok_pool_add(&c->pastes, &c->nr_pastes, &c->alloc_pastes, p);
}

/* #define NAME(params) body: the name, the body's names, its pastes. */
static void c_define(struct cscan *s, struct lexer *sub)
{
	struct token name, t;
	struct ctok_list params = { NULL, 0, 0 }, body = { NULL, 0, 0 };

	lex(sub, &name);
	if (name.type != TOK_IDENT)
		return;
	add_id(s->out, &name, CNAMES_ID_DECL, CNAMES_DECL_MACRO, false);
	if (sub->p < sub->end && *sub->p == '(') {
		lex(sub, &t);
		for (lex(sub, &t); t.type != TOK_EOF && !tok_punct(&t, ')');
		     lex(sub, &t))
			if (t.type == TOK_IDENT)
				ctok_list_push(&params, &t);
	}
	for (lex(sub, &t); t.type != TOK_EOF; lex(sub, &t))
		ctok_list_push(&body, &t);
	for (size_t i = 0; i < body.nr; i++) {
		const struct token *b = &body.v[i];
		bool param = false, pasted;

		if (b->type != TOK_IDENT)
			continue;
		for (size_t k = 0; k < params.nr && !param; k++)
			param = tok_is(&params.v[k], b->p, b->len);
		param |= TOK_IS(b, "__VA_ARGS__");
		pasted = (i + 1 < body.nr && TOK_IS(&body.v[i + 1], "##")) ||
			 (i && TOK_IS(&body.v[i - 1], "##"));
		if (pasted && !param) {
			/* b##name builds "b...", name##b builds "...b" */
			add_paste(s->out,
				  i + 1 < body.nr && TOK_IS(&body.v[i + 1], "##"),
				  b);
			continue;
		}
		if (param || pasted || (i && tok_punct(&body.v[i - 1], '#')) ||
		    word_class(b) != WORD_NAME || builtin_name(b->p, b->len))
			continue;
		add_id(s->out, b,
		       i && ctok_is_member_op(&body.v[i - 1])
			       ? CNAMES_ID_MEMBER
		       : i && ctok_is_tag_keyword(&body.v[i - 1])
			       ? CNAMES_ID_TAG
		       : i + 1 < body.nr && tok_punct(&body.v[i + 1], '(')
			       ? CNAMES_ID_CALL
			       : CNAMES_ID_USE,
		       CNAMES_DECL_LOCAL, true);
	}
	free(params.v);
	free(body.v);
}

static void c_include(struct cscan *s, struct lexer *sub)
{
	const char *p = sub->p, *end = sub->end, *q;
	struct cnames_include *inc;
	char close;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p >= end || (*p != '<' && *p != '"'))
		return;
	close = *p == '<' ? '>' : '"';
	q = memchr(p + 1, close, (size_t)(end - p - 1));
	if (!q)
		return;
	ALLOC_GROW(s->out->includes, s->out->nr_includes + 1,
		   s->out->alloc_includes);
	inc = &s->out->includes[s->out->nr_includes++];
	inc->line = sub->line;
	inc->path = p + 1;
	inc->len = (size_t)(q - p - 1);
	inc->angle = close == '>';
}

/* Tokens that are nothing but macro calls: NAME(...) NAME(...) ... */
static bool macro_calls_only(const struct token *t, size_t n)
{
	size_t i = 0;

	while (i < n) {
		if (i + 1 >= n || t[i].type != TOK_IDENT ||
		    word_class(&t[i]) != WORD_NAME || !tok_punct(&t[i + 1], '('))
			return false;
		i = ctok_match_group(t, i + 1, n);
		if (i == n)
			return false;
		i++;
	}
	return n > 0;
}

static void c_directive(struct cscan *s, const struct token *dt)
{
	struct lexer sub;
	struct token name;
	struct ctok_depths dummy;
	bool is_if;
	int op;

	memset(&dummy, 0, sizeof(dummy));
	directive_lexer(&sub, dt, s->lx.line_start);
	lex(&sub, &name);
	op = ctok_cond_op(&name, &is_if);
	if (op >= 0) {
		struct cstate now = { s->depth, s->paren, s->unit.nr };

		if (op == CTOK_OP_IF) {
			ALLOC_GROW(s->saved, s->nr_saved + 1, s->alloc_saved);
			ALLOC_GROW(s->seen_else, s->nr_saved + 1, s->alloc_seen);
			s->saved[s->nr_saved] = now;
			s->seen_else[s->nr_saved++] = false;
		} else if (s->nr_saved) {
			struct cstate *at = &s->saved[s->nr_saved - 1];

			if (op == CTOK_OP_ENDIF) {
				if (s->seen_else[s->nr_saved - 1]) {
					s->depth = at->depth;
					s->paren = at->paren;
				}
				s->nr_saved--;
			} else {
				struct cstate if_state = *at;

				if (!s->seen_else[s->nr_saved - 1]) {
					s->seen_else[s->nr_saved - 1] = true;
					*at = now; /* the first branch's end */
				}
				/* a branch of whole macro calls ends them
				 * (SCHED_FEAT(x, true) lines take no ';') */
				if (!if_state.unit && !s->paren &&
				    macro_calls_only(s->unit.v, s->unit.nr))
					end_unit(s, ';', NULL);
				if (if_state.depth <= s->depth)
					s->depth = if_state.depth;
				s->paren = if_state.paren;
				if (if_state.unit <= s->unit.nr)
					s->unit.nr = if_state.unit;
				(void)if_state;
			}
		}
		ctok_cond_apply(&s->cs, (enum ctok_op)op, &sub, &dummy);
		return;
	}
	if (s->cs.dead)
		return;
	if (TOK_IS(&name, "define"))
		c_define(s, &sub);
	else if (TOK_IS(&name, "include"))
		c_include(s, &sub);
}

int cnames_scan(struct cnames *out, const char *path, const char *text,
		size_t len, unsigned flags, struct err *err)
{
	struct cscan s;
	struct token t;
	size_t start = 0, line = 1;

	if (ctok_has_nul(text, len))
		return err_set(err, ERR_PARSE, "%s: not C source (NUL byte)",
			       path);
	memset(&s, 0, sizeof(s));
	s.out = out;
	s.flags = flags;
	if (flags & CNAMES_FRAGMENT)
		start = ctok_fragment_start(text, len);
	for (size_t i = 0; i < start; i++)
		line += text[i] == '\n';
	lexer_init(&s.lx, text + start, len - start, line,
		   text + start);
	cpush(&s, CCTX_TOP, -1);
	for (lex(&s.lx, &t); t.type != TOK_EOF; lex(&s.lx, &t)) {
		if (t.type == TOK_DIRECTIVE) {
			c_directive(&s, &t);
			continue;
		}
		if (s.cs.dead)
			continue;
		if (t.type == TOK_PUNCT && t.len == 1 && s.paren <= 0) {
			char c = *t.p;

			if (c == ';' && ctop(&s)->kind != CCTX_INIT &&
			    ctop(&s)->kind != CCTX_ENUM) {
				end_unit(&s, ';', &t);
				continue;
			}
			if (c == '{') {
				end_unit(&s, '{', &t);
				continue;
			}
			if (c == '}') {
				end_unit(&s, '}', &t);
				close_context(&s, &t);
				continue;
			}
		}
		if (t.type == TOK_PUNCT && t.len == 1 &&
		    (*t.p == '(' || *t.p == '['))
			s.paren++;
		else if (t.type == TOK_PUNCT && t.len == 1 &&
			 (*t.p == ')' || *t.p == ']'))
			s.paren--;
		ctok_list_push(&s.unit, &t);
	}
	if (s.unit.nr)
		end_unit(&s, 0, NULL);
	free(s.unit.v);
	free(s.stack);
	free(s.saved);
	free(s.seen_else);
	free(s.cls);
	free(s.decl);
	free(s.cs.v);
	return 0;
}
