#include "watch.h"

#include <stdlib.h>
#include <string.h>

#include "ctok.h"
#include "lex.h"

/* Small owned strings that tokens and refs point at. */
struct pool {
	char **v;
	size_t nr, alloc;
};

/* ------------------------------------------------------------------ */
/* Exports */

struct macro {
	struct span name;
	bool funclike;
	bool variadic;
	struct span *params;
	size_t nparams, params_alloc;
	struct ctok_list body;
};

struct file_ctx {
	const char *path;
	bool header;
};

struct exports_ctx {
	struct watch_exports *ex;
	struct macro *macros;
	size_t nmacros, macros_alloc;
	struct pool pool;        /* pasted token texts */
	char **fwd;              /* tags a header declares without a body */
	size_t nfwd, fwd_alloc;
	struct watch_symbol *ctags; /* tags a .c file defines */
	size_t nctags, ctags_alloc;
	/* one file's symbols, put in text order before they are added */
	struct watch_symbol *found;
	size_t nfound, found_alloc;
	int expand_depth;
};

static struct watch_symbol *find_symbol(struct watch_symbol *v, size_t nr,
					const char *name)
{
	for (size_t i = 0; i < nr; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

/* Takes name and sig. */
static void add_symbol(struct watch_symbol **v, size_t *nr, size_t *alloc,
		       const struct watch_symbol *s)
{
	if (find_symbol(*v, *nr, s->name)) {
		free(s->name);
		free(s->path);
		free(s->signature);
		return;
	}
	ALLOC_GROW(*v, *nr + 1, *alloc);
	(*v)[(*nr)++] = *s;
}

static void export(struct exports_ctx *x, const struct file_ctx *f,
		   char *name, enum watch_kind kind, size_t line, char *sig)
{
	struct watch_symbol s = { name, kind, xstrdup(f->path), line, sig };

	ALLOC_GROW(x->found, x->nfound + 1, x->found_alloc);
	x->found[x->nfound++] = s;
}

/*
 * Macros are read while lexing, declarations after: a stable merge sort by
 * line puts them back in text order, so the first one seen wins a name.
 */
static void sort_by_line(struct watch_symbol *v, size_t n)
{
	struct watch_symbol *tmp;

	if (n < 2)
		return;
	tmp = xmalloc(n * sizeof(*tmp));
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n;
			size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;

			while (i < mid && j < hi)
				tmp[k++] = v[j].line < v[i].line ? v[j++] :
								   v[i++];
			while (i < mid)
				tmp[k++] = v[i++];
			while (j < hi)
				tmp[k++] = v[j++];
		}
		memcpy(v, tmp, n * sizeof(*v));
	}
	free(tmp);
}

static void flush_found(struct exports_ctx *x)
{
	sort_by_line(x->found, x->nfound);
	for (size_t i = 0; i < x->nfound; i++)
		add_symbol(&x->ex->v, &x->ex->nr, &x->ex->alloc, &x->found[i]);
	x->nfound = 0;
}

static const struct macro *find_macro(const struct exports_ctx *x,
				      const struct token *t)
{
	for (size_t i = x->nmacros; i-- > 0;)
		if (x->macros[i].name.len == t->len &&
		    !memcmp(x->macros[i].name.ptr, t->p, t->len))
			return &x->macros[i];
	return NULL;
}

/* Output of normalised token text, with canonical spacing. */
struct emit {
	struct buf *out;
	int last; /* 0 nothing, 'w' word, '*', '(', ')', ',', 'o' other */
};

static void emit_tok(struct emit *e, const char *p, size_t len)
{
	char c = *p;
	int cls = is_ident_char((unsigned char)c) || c == '"' || c == '\'' ?
			  'w' :
		  c == '*' && len == 1			 ? '*' :
		  (c == '(' || c == '[') && len == 1	 ? '(' :
		  (c == ')' || c == ']') && len == 1	 ? ')' :
		  (c == ',' || c == ';') && len == 1	 ? ',' :
							   'o';
	bool space = true;

	if (!e->last || e->last == '(' || cls == ')' || cls == ',')
		space = false;
	else if (e->last == '*' && (cls == '*' || cls == '(' || cls == 'w'))
		space = false;
	else if (e->last == ')' && cls == '(')
		space = false;
	else if (cls == '(' && c == '[')
		space = false;
	if (space)
		buf_addc(e->out, ' ');
	buf_add(e->out, p, len);
	e->last = cls;
}

static void emit_params(struct emit *e, const struct token *t, size_t a,
			size_t b);

/*
 * Emit t[a..b) without the token at drop, attributes and storage classes;
 * a parenthesised group after ')' or after the dropped name is a parameter
 * list, whose names go too.
 */
static void emit_range(struct emit *e, const struct token *t, size_t a,
		       size_t b, size_t drop)
{
	for (size_t k = a; k < b; k++) {
		enum word_class wc;

		if (k == drop)
			continue;
		wc = word_class(&t[k]);
		if (wc == WORD_ATTR) {
			k = ctok_skip_attr(t, k, b) - 1;
			continue;
		}
		if (wc == WORD_STORAGE)
			continue;
		if (ctok_is_open(&t[k])) {
			size_t m = ctok_match_group(t, k, b);
			bool params = tok_punct(&t[k], '(') && k > a &&
				      (tok_punct(&t[k - 1], ')') ||
				       k - 1 == drop);

			emit_tok(e, t[k].p, 1);
			if (params)
				emit_params(e, t, k + 1, m);
			else
				emit_range(e, t, k + 1, m, drop);
			if (m < b)
				emit_tok(e, t[m].p, 1);
			k = m;
			continue;
		}
		emit_tok(e, t[k].p, t[k].len);
	}
}

static void emit_params(struct emit *e, const struct token *t, size_t a,
			size_t b)
{
	size_t s = a;

	for (size_t k = a; k <= b; k++) {
		size_t idx;

		if (k < b && ctok_is_open(&t[k])) {
			k = ctok_match_group(t, k, b);
			continue;
		}
		if (k < b && !tok_punct(&t[k], ','))
			continue;
		if (s < k) {
			if (s > a)
				emit_tok(e, ",", 1);
			if (ctok_find_name(t + s, k - s, true, &idx))
				emit_range(e, t, s, k, s + idx);
			else
				emit_range(e, t, s, k, SIZE_MAX);
		}
		s = k + 1;
	}
}

static char *normalise(const struct token *t, size_t a, size_t b,
		       size_t drop)
{
	struct buf out = BUF_INIT;
	struct emit e = { &out, 0 };

	emit_range(&e, t, a, b, drop);
	return buf_detach(&out, NULL);
}

static char *function_signature(const struct token *t, size_t name,
				size_t lparen, size_t rparen)
{
	struct buf out = BUF_INIT;
	struct emit e = { &out, 0 };

	emit_range(&e, t, 0, name, SIZE_MAX);
	emit_tok(&e, "(", 1);
	emit_params(&e, t, lparen + 1, rparen);
	emit_tok(&e, ")", 1);
	return buf_detach(&out, NULL);
}

static char *tok_dup(const struct token *t)
{
	return xstrndup(t->p, t->len);
}

static void export_function(struct exports_ctx *x, const struct file_ctx *f,
			    const struct token *t, size_t n, size_t name,
			    bool definition)
{
	size_t rparen = ctok_match_group(t, name + 1, n);

	if (!f->header &&
	    (!definition || ctok_has_storage(t, name, "static")))
		return;
	export(x, f, tok_dup(&t[name]), WATCH_FUNCTION, t[name].line,
	       function_signature(t, name, name + 1, rparen));
}

static void export_enum_consts(struct exports_ctx *x, const struct file_ctx *f,
			       const struct token *t, size_t a, size_t b)
{
	bool at_start = true;

	for (size_t k = a; k < b; k++) {
		if (ctok_is_open(&t[k])) {
			k = ctok_match_group(t, k, b);
			continue;
		}
		if (tok_punct(&t[k], ',')) {
			at_start = true;
			continue;
		}
		if (at_start && t[k].type == TOK_IDENT)
			export(x, f, tok_dup(&t[k]), WATCH_ENUM_CONST,
			       t[k].line, NULL);
		at_start = false;
	}
}

static char *tag_name(const struct token *kw, const struct token *name)
{
	return xstrfmt("%.*s %.*s", (int)kw->len, kw->p, (int)name->len,
		       name->p);
}

static void parse_decls(struct exports_ctx *x, const struct file_ctx *f,
			const struct token *t, size_t n);

/* Expand a helper macro invoked at t[0] with arguments t[2..rparen). */
static void expand(struct exports_ctx *x, const struct file_ctx *f,
		   const struct macro *m, const struct token *t,
		   size_t rparen)
{
	struct arg {
		const struct token *t;
		size_t n;
	} args[32];
	size_t nargs = 0, s = 2;
	struct ctok_list out = { NULL, 0, 0 };
	bool paste = false;

	for (size_t k = 2; k <= rparen; k++) {
		if (k < rparen && ctok_is_open(&t[k])) {
			k = ctok_match_group(t, k, rparen);
			continue;
		}
		if (k < rparen && !tok_punct(&t[k], ','))
			continue;
		if (nargs == sizeof(args) / sizeof(*args))
			return;
		args[nargs].t = t + s;
		args[nargs++].n = k - s;
		s = k + 1;
	}
	if (nargs == 1 && !args[0].n && !m->nparams)
		nargs = 0;
	if (nargs < m->nparams || (nargs > m->nparams && !m->variadic))
		return;
	for (size_t b = 0; b < m->body.nr; b++) {
		const struct token *bt = &m->body.v[b];
		const struct token *src = bt;
		size_t nsrc = 1;

		if (TOK_IS(bt, "##") && bt->type == TOK_PUNCT) {
			paste = out.nr > 0;
			continue;
		}
		if (tok_punct(bt, '#') && b + 1 < m->body.nr) {
			static const struct token str = { TOK_STRING, "\"\"", 2,
							  0, 0 };
			ctok_list_push(&out, &str);
			b++;
			paste = false;
			continue;
		}
		for (size_t p = 0; bt->type == TOK_IDENT && p < m->nparams; p++)
			if (m->params[p].len == bt->len &&
			    !memcmp(m->params[p].ptr, bt->p, bt->len)) {
				src = args[p].t;
				nsrc = args[p].n;
			}
		if (bt->type == TOK_IDENT && m->variadic &&
		    TOK_IS(bt, "__VA_ARGS__") && nargs > m->nparams) {
			src = args[m->nparams].t;
			nsrc = (size_t)(args[nargs - 1].t + args[nargs - 1].n -
					src);
		}
		for (size_t k = 0; k < nsrc; k++) {
			if (paste && !k) {
				struct token *last = &out.v[out.nr - 1];
				char *joined = xstrfmt("%.*s%.*s",
						       (int)last->len, last->p,
						       (int)src->len, src->p);

				ctok_pool_add(&x->pool.v, &x->pool.nr,
					 &x->pool.alloc, joined);
				last->p = joined;
				last->len = strlen(joined);
				last->wc = 0;
				if (is_ident_start((unsigned char)*joined))
					last->type = TOK_IDENT;
				continue;
			}
			ctok_list_push(&out, &src[k]);
		}
		paste = false;
	}
	for (size_t k = 0; k < out.nr; k++) {
		out.v[k].line = t[0].line;
		out.v[k].col = t[0].col;
	}
	x->expand_depth++;
	parse_decls(x, f, out.v, out.nr);
	x->expand_depth--;
	free(out.v);
}

/* A declaration t[0..n) without its ';' that defines no function. */
static void parse_decl(struct exports_ctx *x, const struct file_ctx *f,
		       const struct token *t, size_t n)
{
	bool is_typedef, is_static, is_extern;
	size_t spec_end = 0, name, first = 0, head = 0, end;
	const struct macro *m;

	if (!n)
		return;
	if (t[0].type == TOK_IDENT && n >= 3 && tok_punct(&t[1], '(') &&
	    (m = find_macro(x, &t[0])) && m->funclike &&
	    x->expand_depth < 4) {
		size_t r = ctok_match_group(t, 1, n);

		if (r < n)
			expand(x, f, m, t, r);
		return;
	}
	is_typedef = ctok_has_storage(t, n, "typedef");
	is_static = ctok_has_storage(t, n, "static");
	is_extern = ctok_has_storage(t, n, "extern");

	/* struct/union/enum with a body, or a forward declaration */
	for (size_t i = 0; i < n; i++) {
		size_t open, close;
		char *tag = NULL;

		if (word_class(&t[i]) != WORD_TAG)
			continue;
		open = i + 1;
		if (open < n && t[open].type == TOK_IDENT)
			open++;
		if (open >= n || !tok_punct(&t[open], '{')) {
			if (open == n && open == i + 2 && f->header &&
			    !is_typedef) {
				ALLOC_GROW(x->fwd, x->nfwd + 1, x->fwd_alloc);
				x->fwd[x->nfwd++] = tag_name(&t[i], &t[i + 1]);
				return;
			}
			break;
		}
		close = ctok_match_group(t, open, n);
		if (open == i + 2)
			tag = tag_name(&t[i], &t[i + 1]);
		if (tag && f->header) {
			export(x, f, tag, WATCH_TYPE, t[i + 1].line,
			       normalise(t, open + 1, close, SIZE_MAX));
		} else if (tag) {
			struct watch_symbol s = {
				tag, WATCH_TYPE, xstrdup(f->path),
				t[i + 1].line,
				normalise(t, open + 1, close, SIZE_MAX)
			};
			add_symbol(&x->ctags, &x->nctags, &x->ctags_alloc, &s);
		}
		if (TOK_IS(&t[i], "enum") && f->header)
			export_enum_consts(x, f, t, open + 1, close);
		spec_end = close + 1;
		break;
	}

	if (!spec_end && ctok_find_function(t, n, &name)) {
		export_function(x, f, t, n, name, false);
		return;
	}
	if (!f->header && (is_static || is_extern || is_typedef))
		return;

	/* declarators, split at top-level commas */
	for (size_t k = spec_end; k <= n; k++) {
		size_t idx;
		bool need_type = first == 0 && !spec_end;

		if (k < n && ctok_is_open(&t[k])) {
			k = ctok_match_group(t, k, n);
			continue;
		}
		if (k < n && !tok_punct(&t[k], ','))
			continue;
		end = first;
		while (end < k && !tok_punct(&t[end], '='))
			end = ctok_is_open(&t[end])
				      ? ctok_match_group(t, end, k) + 1
				      : end + 1;
		if (end > k)
			end = k;
		if (end > first && ctok_find_name(t + first, end - first,
						  need_type, &idx)) {
			size_t at = first + idx;
			enum watch_kind kind = is_typedef ? WATCH_TYPE :
							    WATCH_VARIABLE;
			char *sig;

			/* the type is the specifiers plus this declarator */
			if (first == 0) {
				sig = normalise(t, 0, end, at);
				for (head = 0; head < at; head++) {
					if (tok_punct(&t[head], '*') ||
					    tok_punct(&t[head], '('))
						break;
					if (ctok_is_open(&t[head]))
						head = ctok_match_group(t, head,
									at);
				}
			} else {
				struct buf b = BUF_INIT;
				char *tail = normalise(t, first, end, at);
				char *spec = normalise(t, 0, head, SIZE_MAX);

				buf_addf(&b, "%s%s%s", spec, *tail ? " " : "",
					 tail);
				free(spec);
				free(tail);
				sig = buf_detach(&b, NULL);
			}
			if (at + 1 < n && tok_punct(&t[at + 1], '(') &&
			    !is_typedef)
				free(sig); /* int a, f(void): rare, ignored */
			else
				export(x, f, tok_dup(&t[at]), kind,
				       t[at].line, sig);
		}
		first = k + 1;
	}
}

/*
 * Whether t[0..n) is a macro call "NAME(...)" at the start of a declaration
 * that the next line ends although no ';' follows, as in
 * "DECLARE_BTRFS_SETGET_BITS(8)" followed by a declaration on the next
 * line; t has room for total tokens.
 */
static bool ends_macro_call(const struct token *t, size_t n, size_t total)
{
	return n >= 3 && n < total && t[0].type == TOK_IDENT &&
	       word_class(&t[0]) == WORD_NAME && tok_punct(&t[1], '(') &&
	       ctok_match_group(t, 1, n) == n - 1 &&
	       t[n].line > t[n - 1].line &&
	       t[n].type == TOK_IDENT && word_class(&t[n]) != WORD_ATTR;
}

static void parse_decls(struct exports_ctx *x, const struct file_ctx *f,
			const struct token *t, size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t j = i, name;
		int depth = 0;
		bool done = false;

		for (; j < n; j++) {
			const struct token *tk = &t[j];

			if (tk->type != TOK_PUNCT || tk->len != 1)
				continue;
			if (*tk->p == '(' || *tk->p == '[') {
				depth++;
			} else if (*tk->p == ')' || *tk->p == ']') {
				if (depth && !--depth &&
				    ends_macro_call(t + i, j - i + 1, n - i))
					break;
			} else if (*tk->p == '{' && !depth) {
				size_t close = ctok_match_group(t, j, n);

				if (ctok_is_function_head(t + i, j - i,
							  &name)) {
					export_function(x, f, t + i, j - i,
							name, true);
					i = close + 1;
					done = true;
					break;
				}
				if (close == n) /* unmatched: stop */
					j = n - 1;
				else
					j = close;
			} else if (*tk->p == '}' && !depth) {
				break;
			} else if (*tk->p == ';' && !depth) {
				break;
			}
		}
		if (done)
			continue;
		if (j < n && tok_punct(&t[j], ')')) {
			parse_decl(x, f, t + i, j + 1 - i);
			i = j + 1;
			continue;
		}
		parse_decl(x, f, t + i, j - i);
		i = j + 1;
	}
}

/* #define: remember the macro; a header exports it unless it's a guard. */
static void read_define(struct exports_ctx *x, const struct file_ctx *f,
			struct lexer *sub, const struct token *guard)
{
	struct token name, t;
	struct macro m = { { NULL, 0 }, false, false, NULL, 0, 0,
			   { NULL, 0, 0 } };
	char *sig = NULL;

	lex(sub, &name);
	if (name.type != TOK_IDENT)
		return;
	m.name = (struct span){ name.p, name.len };
	if (sub->p < sub->end && *sub->p == '(') {
		struct buf b = BUF_INIT;

		m.funclike = true;
		lex(sub, &t);
		buf_addc(&b, '(');
		for (lex(sub, &t); t.type != TOK_EOF && !tok_punct(&t, ')');
		     lex(sub, &t)) {
			if (tok_punct(&t, ',')) {
				buf_adds(&b, ", ");
				continue;
			}
			buf_add(&b, t.p, t.len);
			if (t.type == TOK_PUNCT) {
				m.variadic = true; /* "..." or "args..." */
				continue;
			}
			ALLOC_GROW(m.params, m.nparams + 1, m.params_alloc);
			m.params[m.nparams++] = (struct span){ t.p, t.len };
		}
		buf_addc(&b, ')');
		sig = buf_detach(&b, NULL);
	}
	for (lex(sub, &t); t.type != TOK_EOF; lex(sub, &t))
		ctok_list_push(&m.body, &t);
	if (f->header && !(guard && !m.funclike && !m.body.nr &&
			   tok_is(guard, name.p, name.len)))
		export(x, f, tok_dup(&name), WATCH_MACRO, name.line, sig);
	else
		free(sig);
	ALLOC_GROW(x->macros, x->nmacros + 1, x->macros_alloc);
	x->macros[x->nmacros++] = m;
}

static int find_conflict_marker(const struct watch_source *s, size_t *line)
{
	const char *p = s->text, *end = s->text + s->len;

	for (*line = 1; p < end; (*line)++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p);

		if (len >= 7 && (!memcmp(p, "<<<<<<<", 7) ||
				 !memcmp(p, ">>>>>>>", 7) ||
				 (!memcmp(p, "=======", 7) &&
				  (len == 7 || p[7] == '\r'))))
			return -1;
		if (!nl)
			break;
		p = nl + 1;
	}
	return 0;
}

/* One declaration of a fragment: braces it leaves open are closed. */
static void parse_chunk(struct exports_ctx *x, const struct file_ctx *f,
			struct ctok_list *tv)
{
	static const struct token close = { TOK_PUNCT, "}", 1, 0, 0, 0 };
	size_t from = x->nfound, cfrom = x->nctags;
	int depth = 0;

	for (size_t i = 0; i < tv->nr && depth >= 0; i++)
		if (tok_punct(&tv->v[i], '{'))
			depth++;
		else if (tok_punct(&tv->v[i], '}'))
			depth--;
	if (depth < 0 || !tv->nr) {
		tv->nr = 0; /* the end of something that started before */
		return;
	}
	for (int i = 0; i < depth; i++)
		ctok_list_push(tv, &close);
	parse_decls(x, f, tv->v, tv->nr);
	for (size_t k = from; depth && k < x->nfound; k++)
		if (x->found[k].kind == WATCH_TYPE)
			x->found[k].partial = true;
	for (size_t k = cfrom; depth && k < x->nctags; k++)
		x->ctags[k].partial = true;
	tv->nr = 0;
}

static int scan_exports(struct exports_ctx *x, const struct watch_source *s,
			struct err *err)
{
	struct file_ctx f = { s->path, ends_with(s->path, ".h") };
	struct lexer lx;
	struct token t, guard = { TOK_EOF, NULL, 0, 0, 0 };
	struct ctok_list tv = { NULL, 0, 0 };
	struct ctok_conds cs = { NULL, 0, 0, false };
	struct ctok_depths d;
	size_t line;
	bool guard_next = false, started = false;
	int error = 0;

	memset(&d, 0, sizeof(d));

	if (ctok_has_nul(s->text, s->len))
		return err_set(err, ERR_PARSE, "%s: not C source (NUL byte)",
			       s->path);
	if (find_conflict_marker(s, &line) < 0)
		return err_set(err, ERR_PARSE, "%s:%zu: conflict marker",
			       s->path, line);
	if (s->fragment) {
		size_t start = ctok_fragment_start(s->text, s->len), l = 1;

		for (size_t i = 0; i < start; i++)
			l += s->text[i] == '\n';
		lexer_init(&lx, s->text + start, s->len - start, l,
			   s->text + start);
	} else {
		lexer_init(&lx, s->text, s->len, 1, s->text);
	}
	for (lex(&lx, &t); t.type != TOK_EOF; lex(&lx, &t)) {
		if (t.type == TOK_DIRECTIVE) {
			struct lexer sub;
			struct token name;
			bool is_if;
			int op;

			directive_lexer(&sub, &t, lx.line_start);
			lex(&sub, &name);
			op = ctok_cond_op(&name, &is_if);
			if (op >= 0) {
				/*
				 * Tokens go to one flat list: the branches
				 * after one that leaves braces unbalanced are
				 * dropped rather than rewound.
				 */
				struct ctok_cond *top =
					cs.nr ? &cs.v[cs.nr - 1] : NULL;
				bool unbalanced = top && !is_if &&
						  op != CTOK_OP_ENDIF &&
						  top->kind == CTOK_COND_ANY &&
						  d.brace != top->at_if.brace;

				if (TOK_IS(&name, "ifndef") && !tv.nr &&
				    !cs.nr) {
					struct lexer probe = sub;

					lex(&probe, &guard);
					guard_next = true;
				}
				if (unbalanced) {
					top->kind = CTOK_COND_IF1;
					cs.dead = true;
					continue;
				}
				ctok_cond_apply(&cs, (enum ctok_op)op, &sub,
						&d);
				continue;
			}
			if (!cs.dead && TOK_IS(&name, "define"))
				read_define(x, &f, &sub,
					    guard_next ? &guard : NULL);
			guard_next = false;
			continue;
		}
		guard_next = false;
		if (cs.dead)
			continue;
		if (s->fragment) {
			/* a name in the first column starts a declaration */
			if (t.col == 1 && t.type == TOK_IDENT) {
				parse_chunk(x, &f, &tv);
				started = true;
			}
			if (started)
				ctok_list_push(&tv, &t);
			continue;
		}
		if (tok_punct(&t, '{'))
			d.brace++;
		else if (tok_punct(&t, '}'))
			d.brace--;
		ctok_list_push(&tv, &t);
	}
	if (s->fragment)
		parse_chunk(x, &f, &tv);
	else if (d.brace)
		error = err_set(err, ERR_PARSE, "%s: unbalanced braces",
				s->path);
	else
		parse_decls(x, &f, tv.v, tv.nr);
	flush_found(x);
	free(tv.v);
	free(cs.v);
	return error;
}

void watch_exports_init(struct watch_exports *ex)
{
	ex->v = NULL;
	ex->nr = 0;
	ex->alloc = 0;
}

static void free_symbols(struct watch_symbol *v, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		free(v[i].name);
		free(v[i].path);
		free(v[i].signature);
	}
	free(v);
}

void watch_exports_release(struct watch_exports *ex)
{
	free_symbols(ex->v, ex->nr);
	watch_exports_init(ex);
}

int watch_exports(struct watch_exports *ex, const struct watch_source *files,
		  size_t nr, struct err *err)
{
	struct exports_ctx x;
	int error = 0;

	memset(&x, 0, sizeof(x));
	x.ex = ex;
	for (int pass = 0; pass < 2 && !error; pass++)
		for (size_t i = 0; i < nr && !error; i++)
			if (ends_with(files[i].path, ".h") == !pass)
				error = scan_exports(&x, &files[i], err);
	for (size_t i = 0; i < x.nctags; i++) {
		bool declared = false;

		for (size_t k = 0; k < x.nfwd && !declared; k++)
			declared = !strcmp(x.fwd[k], x.ctags[i].name);
		if (declared && !error) {
			add_symbol(&ex->v, &ex->nr, &ex->alloc, &x.ctags[i]);
			x.ctags[i].name = NULL;
			x.ctags[i].path = NULL;
			x.ctags[i].signature = NULL;
		}
	}
	free_symbols(x.ctags, x.nctags);
	free_symbols(x.found, x.nfound);
	ctok_pool_free(x.fwd, x.nfwd);
	ctok_pool_free(x.pool.v, x.pool.nr);
	for (size_t i = 0; i < x.nmacros; i++) {
		free(x.macros[i].params);
		free(x.macros[i].body.v);
	}
	free(x.macros);
	return error;
}

const struct watch_symbol *watch_exports_find(const struct watch_exports *ex,
					      const char *name)
{
	return find_symbol(ex->v, ex->nr, name);
}

const char *watch_kind_name(enum watch_kind kind)
{
	switch (kind) {
	case WATCH_FUNCTION:
		return "function";
	case WATCH_MACRO:
		return "macro";
	case WATCH_TYPE:
		return "type";
	case WATCH_ENUM_CONST:
		return "enum constant";
	case WATCH_VARIABLE:
		return "variable";
	case WATCH_ANY:
		break;
	}
	return "symbol";
}

/* ------------------------------------------------------------------ */
/* Diff */

void watch_diff_init(struct watch_diff *d)
{
	d->v = NULL;
	d->nr = 0;
	d->alloc = 0;
}

void watch_diff_release(struct watch_diff *d)
{
	free(d->v);
	watch_diff_init(d);
}

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static void add_delta(struct watch_diff *d, enum watch_change c,
		      const struct watch_symbol *old,
		      const struct watch_symbol *new)
{
	ALLOC_GROW(d->v, d->nr + 1, d->alloc);
	d->v[d->nr].change = c;
	d->v[d->nr].old = old;
	d->v[d->nr].new = new;
	d->nr++;
}

void watch_diff_exports(struct watch_diff *out, const struct watch_exports *old,
			const struct watch_exports *new)
{
	for (size_t i = 0; i < old->nr; i++) {
		const struct watch_symbol *o = &old->v[i];
		const struct watch_symbol *n = watch_exports_find(new, o->name);

		if (!n)
			add_delta(out, WATCH_REMOVED, o, NULL);
		else if (n->kind != o->kind ||
			 !str_eq(n->signature, o->signature))
			add_delta(out, WATCH_CHANGED, o, n);
	}
	for (size_t i = 0; i < new->nr; i++)
		if (!watch_exports_find(old, new->v[i].name))
			add_delta(out, WATCH_ADDED, NULL, &new->v[i]);
}

const char *watch_change_name(enum watch_change change)
{
	switch (change) {
	case WATCH_REMOVED:
		return "removed";
	case WATCH_ADDED:
		return "added";
	case WATCH_CHANGED:
		break;
	}
	return "changed";
}

/* ------------------------------------------------------------------ */
/* Symbol set */

static uint32_t hash_bytes(uint32_t h, const char *p, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)p[i];
		h *= 16777619u;
	}
	return h;
}

#define HASH_SEED 2166136261u

void watch_set_init(struct watch_set *set)
{
	set->slots = NULL;
	set->cap = 0;
	set->nr = 0;
	set->lens = 0;
}

void watch_set_release(struct watch_set *set)
{
	for (size_t i = 0; i < set->cap; i++)
		free(set->slots[i].name);
	free(set->slots);
	watch_set_init(set);
}

static struct watch_set_entry *set_slot(const struct watch_set *set,
					uint32_t h, const char *a, size_t alen,
					const char *b, size_t blen)
{
	size_t mask = set->cap - 1;

	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct watch_set_entry *e = &set->slots[i];

		if (!e->name)
			return e;
		if (e->hash == h && e->len == alen + blen &&
		    !memcmp(e->name, a, alen) &&
		    !memcmp(e->name + alen, b, blen))
			return e;
	}
}

static void set_grow(struct watch_set *set)
{
	struct watch_set old = *set;

	set->cap = old.cap ? old.cap * 2 : 64;
	set->slots = xcalloc(set->cap, sizeof(*set->slots));
	for (size_t i = 0; i < old.cap; i++) {
		struct watch_set_entry *e = &old.slots[i];

		if (e->name)
			*set_slot(set, e->hash, e->name, e->len, "", 0) = *e;
	}
	free(old.slots);
}

void watch_set_add(struct watch_set *set, const char *name,
		   enum watch_kind kind)
{
	watch_set_add_n(set, name, strlen(name), kind);
}

void watch_set_add_n(struct watch_set *set, const char *name, size_t len,
		     enum watch_kind kind)
{
	uint32_t h = hash_bytes(HASH_SEED, name, len);
	struct watch_set_entry *e;
	const char *sp = memchr(name, ' ', len);
	/* "struct x" is looked up by x's length */
	size_t key_len = sp ? len - (size_t)(sp + 1 - name) : len;

	if ((set->nr + 1) * 2 > set->cap)
		set_grow(set);
	e = set_slot(set, h, name, len, "", 0);
	if (e->name)
		return;
	e->name = xstrndup(name, len);
	e->len = len;
	e->hash = h;
	e->kind = kind;
	set->nr++;
	set->lens |= key_len < 64 ? (uint64_t)1 << key_len : (uint64_t)1 << 63;
}

void watch_set_add_exports(struct watch_set *set,
			   const struct watch_exports *ex)
{
	for (size_t i = 0; i < ex->nr; i++)
		watch_set_add(set, ex->v[i].name, ex->v[i].kind);
}

static inline bool set_may_have(const struct watch_set *set, size_t len)
{
	return set->lens & ((uint64_t)1 << (len < 64 ? len : 63));
}

size_t watch_set_count(const struct watch_set *set)
{
	return set->nr;
}

const struct watch_set_entry *watch_set_next(const struct watch_set *set,
					     size_t *pos)
{
	while (*pos < set->cap) {
		const struct watch_set_entry *e = &set->slots[(*pos)++];

		if (e->name)
			return e;
	}
	return NULL;
}

/* Lookup of prefix + name without building the string. */
static const struct watch_set_entry *set_find2(const struct watch_set *set,
					       const char *a, size_t alen,
					       const char *b, size_t blen)
{
	uint32_t h;
	const struct watch_set_entry *e;

	if (!set->nr || !set_may_have(set, blen))
		return NULL;
	h = hash_bytes(hash_bytes(HASH_SEED, a, alen), b, blen);
	e = set_slot(set, h, a, alen, b, blen);
	return e->name ? e : NULL;
}

const struct watch_set_entry *watch_set_find(const struct watch_set *set,
					     const char *name, size_t len)
{
	const char *sp = memchr(name, ' ', len);

	if (sp)
		return set_find2(set, name, (size_t)(sp + 1 - name), sp + 1,
				 len - (size_t)(sp + 1 - name));
	return set_find2(set, "", 0, name, len);
}

/* ------------------------------------------------------------------ */
/* References */

void watch_refs_init(struct watch_refs *refs)
{
	memset(refs, 0, sizeof(*refs));
}

void watch_refs_release(struct watch_refs *refs)
{
	free(refs->v);
	ctok_pool_free(refs->pool, refs->pool_nr);
	watch_refs_init(refs);
}

const char *watch_ref_kind_name(enum watch_ref_kind kind)
{
	switch (kind) {
	case WATCH_REF_CALL:
		return "call";
	case WATCH_REF_DECL:
		return "declaration";
	case WATCH_REF_USE:
		break;
	}
	return "use";
}

/* Tokens read ahead; directives wait here until their turn. */
struct tokq {
	struct token *v;
	size_t head, nr, alloc;
};

/*
 * Scanner state.  At file scope it follows the current declaration closely
 * enough to tell a declarator from a use and a function body from an
 * initializer; inside a function body every name is a use.
 */
struct scan {
	struct watch_refs *out;
	const struct watch_set *set;
	const char *path;
	const char *path_str;   /* interned on the first ref */
	struct lexer lx;
	struct tokq q;
	struct ctok_conds cs;
	struct ctok_depths d;
	const char *func_str;   /* d.func interned, when func_key matches */
	const char *func_key;
	size_t decl_ref;        /* first ref of the current declaration */
	int enum_brace;         /* brace depth of an enum body, or -1 */
	struct token prev2, prev, cur, next;
};

static const char *intern(struct watch_refs *out, const char *p, size_t len)
{
	return ctok_pool_add(&out->pool, &out->pool_nr, &out->pool_alloc,
			xstrndup(p, len));
}

static const char *current_func(struct scan *s)
{
	if (!s->d.func.ptr)
		return NULL;
	if (s->func_key != s->d.func.ptr) {
		s->func_str = intern(s->out, s->d.func.ptr, s->d.func.len);
		s->func_key = s->d.func.ptr;
	}
	return s->func_str;
}

static void add_ref(struct scan *s, const struct watch_set_entry *e,
		    const struct token *t, enum watch_ref_kind kind,
		    const char *macro)
{
	struct watch_ref *r;

	if (!s->path_str)
		s->path_str = intern(s->out, s->path, strlen(s->path));
	ALLOC_GROW(s->out->v, s->out->nr + 1, s->out->alloc);
	r = &s->out->v[s->out->nr++];
	r->name = e->name;
	r->path = s->path_str;
	r->line = t->line;
	r->col = t->col;
	r->func = current_func(s);
	r->macro = macro;
	r->kind = kind;
}

/* The set entry t names; prev tells the tag name space apart. */
static const struct watch_set_entry *lookup(const struct scan *s,
					    const struct token *prev,
					    const struct token *t)
{
	if (ctok_is_tag_keyword(prev)) {
		char kw[8];

		memcpy(kw, prev->p, prev->len);
		kw[prev->len] = ' ';
		return set_find2(s->set, kw, prev->len + 1, t->p, t->len);
	}
	return set_find2(s->set, "", 0, t->p, t->len);
}

static bool at_file_scope(const struct scan *s)
{
	return s->d.brace == 0 && !s->d.func.ptr;
}

/* Names in a directive: #define bodies, #if expressions, #undef. */
static void scan_directive(struct scan *s, const struct token *dt)
{
	struct lexer sub;
	struct token name, t, prev = { TOK_EOF, NULL, 0, 0, 0 }, next;
	const struct watch_set_entry *e;
	struct span macro = { NULL, 0 };
	const char *macro_str = NULL;
	bool is_if;
	int op;

	directive_lexer(&sub, dt, s->lx.line_start);
	lex(&sub, &name);
	op = ctok_cond_op(&name, &is_if);
	if (op >= 0) {
		bool was_dead = s->cs.dead;
		struct lexer probe = sub;

		ctok_cond_apply(&s->cs, (enum ctok_op)op, &probe, &s->d);
		if (op == CTOK_OP_ELSE || op == CTOK_OP_ENDIF || s->cs.dead ||
		    (was_dead && is_if))
			return;
	} else if (s->cs.dead) {
		return;
	} else if (TOK_IS(&name, "define")) {
		lex(&sub, &t);
		if (t.type != TOK_IDENT)
			return;
		if ((e = lookup(s, &prev, &t)))
			add_ref(s, e, &t, WATCH_REF_DECL, NULL);
		macro = (struct span){ t.p, t.len };
		if (sub.p < sub.end && *sub.p == '(') {
			do
				lex(&sub, &t);
			while (t.type != TOK_EOF && !tok_punct(&t, ')'));
		}
	} else if (!TOK_IS(&name, "undef")) {
		return;
	}
	lex(&sub, &t);
	while (t.type != TOK_EOF) {
		lex(&sub, &next);
		/* skip members, defined(), #param and the parts of a##b */
		if (t.type == TOK_IDENT && set_may_have(s->set, t.len) &&
		    !ctok_is_member_op(&prev) && !TOK_IS(&t, "defined") &&
		    !(prev.type == TOK_PUNCT && *prev.p == '#') &&
		    !(next.type == TOK_PUNCT && TOK_IS(&next, "##")) &&
		    (e = lookup(s, &prev, &t))) {
			if (macro.ptr && !macro_str)
				macro_str = intern(s->out, macro.ptr,
						   macro.len);
			add_ref(s, e, &t,
				tok_punct(&next, '(') ? WATCH_REF_CALL :
							WATCH_REF_USE,
				macro_str);
		}
		prev = t;
		t = next;
	}
	/* a function opening after this line does not hold these refs */
	if (at_file_scope(s) && !s->d.decl_toks)
		s->decl_ref = s->out->nr;
}

/* Start a new file-scope declaration. */
static void decl_reset(struct scan *s)
{
	s->d.typed = false;
	s->d.have_cand = false;
	s->d.cand_typed = false;
	s->d.saw_eq = false;
	s->d.decl_toks = 0;
	s->decl_ref = s->out->nr;
}

/* What the use of a watched name at s->cur is. */
static enum watch_ref_kind classify(const struct scan *s,
				    const struct watch_set_entry *e)
{
	const struct token *p = &s->prev, *t = &s->cur, *n = &s->next;
	bool call = tok_punct(n, '(');

	if (ctok_is_tag_keyword(p)) {
		if (tok_punct(n, '{'))
			return WATCH_REF_DECL;
		if (tok_punct(n, ';') && at_file_scope(s) &&
		    s->d.decl_toks == 2)
			return WATCH_REF_DECL; /* struct x; */
		return WATCH_REF_USE;
	}
	if (s->enum_brace >= 0 && s->d.brace == s->enum_brace &&
	    (tok_punct(p, '{') || tok_punct(p, ',')) &&
	    (tok_punct(n, ',') || tok_punct(n, '=') || tok_punct(n, '}')))
		return WATCH_REF_DECL;
	if (!at_file_scope(s) || s->d.saw_eq)
		return call ? WATCH_REF_CALL : WATCH_REF_USE;
	if (call) {
		/* a function declarator; a macro call at file scope is not */
		if (e->kind != WATCH_MACRO && !s->d.paren && s->d.typed &&
		    (!s->d.cand_typed ||
		     (s->d.cand.ptr == t->p && s->d.cand.len == t->len)))
			return WATCH_REF_DECL;
		return WATCH_REF_CALL;
	}
	if (!s->d.paren && s->d.typed &&
	    (tok_punct(n, ';') || tok_punct(n, ',') || tok_punct(n, '=') ||
	     tok_punct(n, '[') || word_class(n) == WORD_ATTR))
		return WATCH_REF_DECL;
	if (s->d.paren == 1 && tok_punct(p, '*') && tok_punct(n, ')') &&
	    !s->d.have_cand)
		return WATCH_REF_DECL; /* typedef void (*name)(...) */
	return WATCH_REF_USE;
}

/* File-scope bookkeeping for the identifier at s->cur. */
static void file_scope_ident(struct scan *s)
{
	const struct token *t = &s->cur;
	enum word_class wc;

	if (s->d.paren || s->d.saw_eq)
		return;
	wc = word_class(t);
	if (tok_punct(&s->next, '(')) {
		if (wc == WORD_TYPEOF)
			s->d.typed = true;
		if (wc != WORD_NAME)
			return;
		/* a declarator after a type beats a macro call before it */
		if (!s->d.have_cand || (s->d.typed && !s->d.cand_typed)) {
			s->d.have_cand = true;
			s->d.cand_typed = s->d.typed;
			s->d.cand = (struct span){ t->p, t->len };
		}
		return;
	}
	if (wc == WORD_NAME || wc == WORD_TYPE || wc == WORD_TAG)
		s->d.typed = true;
}

static void open_brace(struct scan *s)
{
	if (TOK_IS(&s->prev, "enum") ||
	    (s->prev.type == TOK_IDENT && TOK_IS(&s->prev2, "enum")))
		s->enum_brace = s->d.brace + 1;
	if (at_file_scope(s) && !s->d.paren && s->d.have_cand && !s->d.saw_eq &&
	    (tok_punct(&s->prev, ')') || word_class(&s->prev) == WORD_ATTR)) {
		s->d.func = s->d.cand;
		/* refs in the head (its parameter types) are in it too */
		for (size_t i = s->decl_ref; i < s->out->nr; i++)
			s->out->v[i].func = current_func(s);
	}
	s->d.brace++;
}

static void close_brace(struct scan *s)
{
	if (s->d.brace > 0)
		s->d.brace--;
	if (s->enum_brace > s->d.brace)
		s->enum_brace = -1;
	if (s->d.brace == 0 && s->d.func.ptr) {
		s->d.func = (struct span){ NULL, 0 };
		decl_reset(s);
	}
}

static void scan_punct(struct scan *s)
{
	bool decl = at_file_scope(s) && !s->d.paren;

	if (s->cur.len != 1)
		return;
	switch (*s->cur.p) {
	case '(':
	case '[':
		s->d.paren++;
		break;
	case ')':
	case ']':
		if (s->d.paren > 0)
			s->d.paren--;
		/* "NAME(...)" then a new line: a macro call without ';' */
		if (at_file_scope(s) && !s->d.paren && s->d.have_cand &&
		    !s->d.typed &&
		    s->next.type == TOK_IDENT && s->next.line > s->cur.line &&
		    word_class(&s->next) != WORD_ATTR)
			decl_reset(s);
		break;
	case '{':
		open_brace(s);
		break;
	case '}':
		close_brace(s);
		break;
	case '=':
		if (decl)
			s->d.saw_eq = true;
		break;
	case ',':
		if (decl)
			s->d.saw_eq = false;
		break;
	case ';':
		if (decl)
			decl_reset(s);
		break;
	case '*':
		if (decl)
			s->d.typed = true;
		break;
	}
}

static struct token *tokq_at(struct scan *s, size_t i)
{
	struct tokq *q = &s->q;

	if (q->head + i == q->nr) {
		if (q->head && q->head == q->nr)
			q->head = q->nr = 0;
		ALLOC_GROW(q->v, q->nr + 1, q->alloc);
		lex(&s->lx, &q->v[q->nr++]);
	}
	return &q->v[q->head + i];
}

/* The first token after the head that is not a directive. */
static struct token *peek_code(struct scan *s)
{
	for (size_t i = 1;; i++) {
		struct token *t = tokq_at(s, i);

		if (t->type != TOK_DIRECTIVE)
			return t;
	}
}

int watch_scan_refs(struct watch_refs *out, const struct watch_set *set,
		    const char *path, const char *text, size_t len,
		    struct err *err)
{
	struct scan s;
	struct token t;

	if (ctok_has_nul(text, len))
		return err_set(err, ERR_PARSE, "%s: not C source (NUL byte)",
			       path);
	memset(&s, 0, sizeof(s));
	s.out = out;
	s.set = set;
	s.path = path;
	s.enum_brace = -1;
	lexer_init(&s.lx, text, len, 1, text);
	decl_reset(&s);
	for (;;) {
		t = *tokq_at(&s, 0);
		if (t.type == TOK_EOF)
			break;
		if (t.type == TOK_DIRECTIVE) {
			s.q.head++;
			scan_directive(&s, &t);
			continue;
		}
		s.next = *peek_code(&s);
		s.q.head++;
		if (s.cs.dead)
			continue;
		s.cur = t;
		if (at_file_scope(&s))
			s.d.decl_toks++;
		if (t.type == TOK_IDENT) {
			const struct watch_set_entry *e;

			if (set_may_have(set, t.len) &&
			    !ctok_is_member_op(&s.prev) &&
			    (e = lookup(&s, &s.prev, &t)))
				add_ref(&s, e, &t, classify(&s, e), NULL);
			if (at_file_scope(&s))
				file_scope_ident(&s);
		} else if (t.type == TOK_PUNCT) {
			scan_punct(&s);
		}
		s.prev2 = s.prev;
		s.prev = s.cur;
	}
	free(s.q.v);
	free(s.cs.v);
	return 0;
}
