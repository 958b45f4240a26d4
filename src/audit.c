#include "audit.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "fs.h"

/* A statement longer than this is cut: enough for a call's arguments. */
#define STMT_MAX_LINES 12

static const char *const default_watch[] = { AUDIT_DEFAULT_WATCH_C,
					      AUDIT_DEFAULT_WATCH_H };
static const char *const c_exts[] = { ".c", ".h", NULL };

/* ---- string lists ---- */

struct strv {
	char **v;
	size_t nr, alloc;
};

static void strv_push(struct strv *s, const char *str)
{
	ALLOC_GROW(s->v, s->nr + 1, s->alloc);
	s->v[s->nr++] = xstrdup(str);
}

static bool strv_has(const struct strv *s, const char *str)
{
	for (size_t i = 0; i < s->nr; i++)
		if (!strcmp(s->v[i], str))
			return true;
	return false;
}

static void strv_release(struct strv *s)
{
	for (size_t i = 0; i < s->nr; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- options ---- */

void audit_opts_release(struct audit_opts *o)
{
	for (size_t i = 0; i < o->nr_watch; i++)
		free(o->watch[i]);
	free(o->watch);
	for (size_t i = 0; i < o->nr_scope; i++)
		free(o->scope[i]);
	free(o->scope);
	memset(o, 0, sizeof(*o));
}

/* "./fs/btrfs/" -> "fs/btrfs"; "." or "/" -> "" (the whole tree) */
static void normalise_path(char *p)
{
	size_t n;

	while (p[0] == '.' && p[1] == '/')
		memmove(p, p + 2, strlen(p + 2) + 1);
	while (p[0] == '/')
		memmove(p, p + 1, strlen(p + 1) + 1);
	n = strlen(p);
	while (n && p[n - 1] == '/')
		p[--n] = '\0';
	if (!strcmp(p, "."))
		p[0] = '\0';
}

static void add_path(char ***v, size_t *nr, const char *path)
{
	*v = xrealloc(*v, (*nr + 1) * sizeof(**v));
	(*v)[*nr] = xstrdup(path);
	normalise_path((*v)[(*nr)++]);
}

void audit_opts_add_watch(struct audit_opts *o, const char *path)
{
	add_path(&o->watch, &o->nr_watch, path);
}

void audit_opts_add_scope(struct audit_opts *o, const char *dir)
{
	add_path(&o->scope, &o->nr_scope, dir);
}

int audit_opts_load(struct audit_opts *o, const char *root, const char *name,
		    struct err *err)
{
	char *rel = xstrfmt("series/%s.conf", name);
	char *path = fs_join(root, rel);
	struct conf *c = NULL;
	int error;

	memset(o, 0, sizeof(*o));
	error = conf_open(&c, path, false, err);
	if (error == ERR_NOTFOUND) {
		err_release(err);
		error = 0;
	} else if (error < 0) {
		goto out;
	} else if ((error = conf_get_all(c, "watch.file", &o->watch,
					 &o->nr_watch, err)) < 0 ||
		   (error = conf_get_all(c, "watch.scope", &o->scope,
					 &o->nr_scope, err)) < 0) {
		goto out;
	}
	for (size_t i = 0; i < o->nr_watch; i++)
		normalise_path(o->watch[i]);
	for (size_t i = 0; i < o->nr_scope; i++)
		normalise_path(o->scope[i]);
	if (!o->nr_watch) {
		free(o->watch);
		o->watch = xcalloc(2, sizeof(char *));
		o->watch[0] = xstrdup(default_watch[0]);
		o->watch[1] = xstrdup(default_watch[1]);
		o->nr_watch = 2;
	}
out:
	if (error < 0)
		audit_opts_release(o);
	conf_free(c);
	free(path);
	free(rel);
	return error;
}

/* The watched files of opts, or the defaults; borrowed. */
static const char *const *watched_files(const struct audit_opts *opts,
					size_t *nr)
{
	if (opts && opts->nr_watch) {
		*nr = opts->nr_watch;
		return (const char *const *)opts->watch;
	}
	*nr = 2;
	return default_watch;
}

static bool is_watched(const char *const *w, size_t nw, const char *path)
{
	for (size_t i = 0; path && i < nw; i++)
		if (!strcmp(w[i], path))
			return true;
	return false;
}

/* ---- results ---- */

static void site_release(struct audit_site *s)
{
	free(s->path);
	free(s->func);
	free(s->symbol);
	free(s->text);
}

void audit_sites_free(struct audit_site *sites, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		site_release(&sites[i]);
	free(sites);
}

void audit_result_release(struct audit_result *r)
{
	for (size_t i = 0; i < r->nr_watched; i++)
		free(r->watched[i]);
	free(r->watched);
	for (size_t i = 0; i < r->nr_changes; i++) {
		free(r->changes[i].name);
		free(r->changes[i].old_sig);
		free(r->changes[i].new_sig);
	}
	free(r->changes);
	audit_sites_free(r->unconverted, r->nr_unconverted);
	audit_sites_free(r->absent, r->nr_absent);
	for (size_t i = 0; i < r->nr_patches; i++) {
		struct audit_patch *p = &r->patches[i];
		for (size_t j = 0; j < p->nr_hunks; j++) {
			free(p->hunks[j].path);
			free(p->hunks[j].symbol);
		}
		free(p->hunks);
	}
	free(r->patches);
	for (size_t i = 0; i < r->nr_intents; i++) {
		free(r->intents[i].name);
		free(r->intents[i].old_sig);
		free(r->intents[i].new_sig);
		free(r->intents[i].target_sig);
	}
	free(r->intents);
	for (size_t i = 0; i < r->nr_target_api; i++) {
		free(r->target_api[i].name);
		free(r->target_api[i].path);
		free(r->target_api[i].signature);
	}
	free(r->target_api);
	for (size_t i = 0; i < r->nr_callers; i++) {
		site_release(&r->callers[i].site);
		free(r->callers[i].file);
	}
	free(r->callers);
	memset(r, 0, sizeof(*r));
}

const char *audit_target_state_name(enum audit_target_state s)
{
	switch (s) {
	case AUDIT_TARGET_PRESENT:
		return "present";
	case AUDIT_TARGET_OTHER:
		return "other";
	case AUDIT_TARGET_ALREADY:
		return "already";
	case AUDIT_TARGET_ABSENT:
		break;
	}
	return "absent";
}

const char *audit_caller_class_name(enum audit_caller_class c)
{
	switch (c) {
	case AUDIT_CONVERTED:
		return "converted";
	case AUDIT_CONFLICTED:
		return "conflicted";
	case AUDIT_TARGET_ONLY:
		break;
	}
	return "target-only";
}

/* A growing list of sites. */
struct sites {
	struct audit_site *v;
	size_t nr, alloc;
};

/* A site of path: where ref says (its line, function, name and kind). */
static struct audit_site *sites_add(struct sites *s, const char *path,
				    const struct watch_ref *ref,
				    struct span text)
{
	size_t line = ref->line;
	const char *func = ref->func, *symbol = ref->name;
	enum watch_ref_kind kind = ref->kind;
	struct audit_site *site;

	ALLOC_GROW(s->v, s->nr + 1, s->alloc);
	site = &s->v[s->nr++];
	memset(site, 0, sizeof(*site));
	site->path = xstrdup(path);
	site->line = line;
	site->func = func ? xstrdup(func) : NULL;
	site->symbol = xstrdup(symbol);
	site->kind = kind;
	site->text = span_dup(span_trim(text));
	return site;
}

/* ---- lines of a text ---- */

struct lines {
	const char *text;
	size_t *start; /* offset of line i (0-based); start[nr]: the end */
	size_t nr;
};

static void lines_init(struct lines *l, const char *text, size_t len)
{
	size_t alloc = 0;

	l->text = text;
	l->start = NULL;
	l->nr = 0;
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		ALLOC_GROW(l->start, l->nr + 1, alloc);
		l->start[l->nr++] = i;
		i = nl ? (size_t)(nl - text) + 1 : len;
	}
	ALLOC_GROW(l->start, l->nr + 1, alloc);
	l->start[l->nr] = len;
}

static void lines_release(struct lines *l)
{
	free(l->start);
	l->start = NULL;
	l->nr = 0;
}

/* Line i (0-based) without its LF; empty past the end. */
static struct span line_at(const struct lines *l, size_t i)
{
	size_t a, b;

	if (i >= l->nr)
		return (struct span){ "", 0 };
	a = l->start[i];
	b = l->start[i + 1];
	if (b > a && l->text[b - 1] == '\n')
		b--;
	return (struct span){ l->text + a, b - a };
}

/*
 * The last line (0-based) of the statement that starts on line first: the
 * first line that ends outside parentheses in ';', '{', '}', ',', ')' or
 * ':' (a call, a condition, an initializer's member), or that ends a
 * preprocessor line or a macro body; at most STMT_MAX_LINES lines.
 * Comments and literals are skipped; this only has to find where a
 * statement that the scanner already located ends.
 */
static size_t stmt_last(const struct lines *l, size_t first)
{
	bool comment = false, directive = false, in_macro = false;
	int depth = 0;
	size_t i;

	if (first >= l->nr)
		return first;
	for (i = first; i < l->nr && i < first + STMT_MAX_LINES; i++) {
		struct span s = line_at(l, i);
		char last = 0;
		bool cont = false;

		for (size_t j = 0; j < s.len; j++) {
			char c = s.ptr[j], d = j + 1 < s.len ? s.ptr[j + 1] : 0;

			if (comment) {
				if (c == '*' && d == '/') {
					comment = false;
					j++;
				}
				continue;
			}
			if (c == '/' && d == '*') {
				comment = true;
				j++;
				continue;
			}
			if (c == '/' && d == '/')
				break;
			if (isspace((unsigned char)c))
				continue;
			if (c == '#' && i == first && !last)
				directive = true;
			if (c == '"' || c == '\'') {
				for (j++; j < s.len && s.ptr[j] != c; j++)
					if (s.ptr[j] == '\\')
						j++;
			} else if (c == '(' || c == '[') {
				depth++;
			} else if (c == ')' || c == ']') {
				depth--;
			}
			last = c;
		}
		if (last == '\\') {
			cont = true;
			if (i == first)
				in_macro = true;
			/* the character before the backslash decides */
			last = 0;
			for (size_t j = s.len; j-- > 0;) {
				char c = s.ptr[j];
				if (c == '\\' || isspace((unsigned char)c))
					continue;
				last = c;
				break;
			}
		}
		if ((directive || in_macro) && !cont)
			break;
		if (depth <= 0 && last && strchr(";{},):", last))
			break;
	}
	return i < l->nr && i < first + STMT_MAX_LINES ? i : i - 1;
}

/*
 * Whether lines first..last of l appear, leading and trailing blanks
 * aside, as consecutive lines of base; *at gets the 1-based base line of
 * the match nearest to first.
 */
static bool block_in(size_t *at, const struct lines *base,
		     const struct lines *l, size_t first, size_t last)
{
	size_t n = last - first + 1, best = 0, best_dist = (size_t)-1;
	struct span head = span_trim(line_at(l, first));

	for (size_t i = 0; i + n <= base->nr; i++) {
		struct span a = span_trim(line_at(base, i));
		size_t k, dist;

		if (a.len != head.len || memcmp(a.ptr, head.ptr, a.len))
			continue;
		for (k = 1; k < n; k++) {
			struct span x = span_trim(line_at(base, i + k));
			struct span y = span_trim(line_at(l, first + k));
			if (x.len != y.len || memcmp(x.ptr, y.ptr, x.len))
				break;
		}
		if (k < n)
			continue;
		dist = i > first ? i - first : first - i;
		if (dist < best_dist) {
			best_dist = dist;
			best = i + 1;
		}
	}
	*at = best;
	return best != 0;
}

/* ---- trees ---- */

/* A tree of a repository, and the files watched in it. */
struct watched_tree {
	struct tree_repo *repo;
	const struct tree_oid *tree;
	const char *const *watched;
	size_t nw;
};

/*
 * Exports of the watched files in t; with have, the watched files the
 * tree holds are appended to it.
 */
static int load_exports(struct watch_exports *ex, struct strv *have,
			const struct watched_tree *t, struct err *err)
{
	struct tree_repo *repo = t->repo;
	const struct tree_oid *tree = t->tree;
	const char *const *watched = t->watched;
	size_t nw = t->nw;
	struct buf *texts = xcalloc(nw ? nw : 1, sizeof(*texts));
	struct watch_source *src = xcalloc(nw ? nw : 1, sizeof(*src));
	size_t n = 0;
	int error = 0;

	for (size_t i = 0; i < nw; i++)
		buf_init(&texts[i], 0);
	for (size_t i = 0; i < nw; i++) {
		bool exists;

		if ((error = tree_read_file(&texts[i], &exists, NULL, repo,
					    tree, watched[i], err)) < 0)
			goto out;
		if (!exists)
			continue;
		src[n++] = (struct watch_source){ watched[i], texts[i].ptr,
						  texts[i].len };
		if (have)
			strv_push(have, watched[i]);
	}
	error = watch_exports(ex, src, n, err);
out:
	for (size_t i = 0; i < nw; i++)
		buf_release(&texts[i]);
	free(texts);
	free(src);
	return error;
}

/*
 * The .c and .h files of t under the scope: the folders of the watched
 * files and opts->scope, sorted, each once.
 */
static int list_scope(struct strv *files, const struct watched_tree *t,
		      const struct audit_opts *opts, struct err *err)
{
	struct tree_repo *repo = t->repo;
	const struct tree_oid *tree = t->tree;
	const char *const *watched = t->watched;
	size_t nw = t->nw;
	struct strv dirs = { 0 };
	int error = 0;

	for (size_t i = 0; i < nw; i++) {
		const char *slash = strrchr(watched[i], '/');
		char *d = slash ? xstrndup(watched[i],
					   (size_t)(slash - watched[i]))
				: xstrdup("");
		if (!strv_has(&dirs, d))
			strv_push(&dirs, d);
		free(d);
	}
	for (size_t i = 0; opts && i < opts->nr_scope; i++) {
		char *d = xstrdup(opts->scope[i]);
		normalise_path(d);
		if (!strv_has(&dirs, d))
			strv_push(&dirs, d);
		free(d);
	}
	for (size_t i = 0; i < dirs.nr; i++) {
		char **paths;
		size_t nr;

		if ((error = tree_list_files(&paths, &nr, repo, tree,
					     dirs.v[i], c_exts, err)) < 0)
			goto out;
		ALLOC_GROW(files->v, files->nr + nr, files->alloc);
		memcpy(files->v + files->nr, paths, nr * sizeof(*paths));
		files->nr += nr;
		free(paths);
	}
	if (files->nr)
		qsort(files->v, files->nr, sizeof(*files->v), cmp_str);
	/* nested scopes list a file twice */
	if (files->nr) {
		size_t kept = 1;
		for (size_t i = 1; i < files->nr; i++) {
			if (!strcmp(files->v[i], files->v[kept - 1]))
				free(files->v[i]);
			else
				files->v[kept++] = files->v[i];
		}
		files->nr = kept;
	}
out:
	strv_release(&dirs);
	return error;
}

/*
 * Scan one file of tree for refs to set.  A file that is not C text (a
 * NUL byte) has none.  *exists tells whether tree has the file.
 */
static int scan_file(struct watch_refs *refs, struct buf *text, bool *exists,
		     struct tree_repo *repo, const struct tree_oid *tree,
		     const char *path, const struct watch_set *set,
		     struct err *err)
{
	int error;

	if ((error = tree_read_file(text, exists, NULL, repo, tree, path,
				    err)) < 0 ||
	    !*exists)
		return error;
	error = watch_scan_refs(refs, set, path, text->ptr, text->len, err);
	if (error == ERR_PARSE) {
		err_release(err);
		*exists = false;
		return 0;
	}
	return error;
}

/* ---- calls ---- */

#define MAX_ARGS 32

/* A call "name(args)" in a text: where it is, and its arguments. */
struct call {
	size_t start, name_end, close; /* offsets */
	struct span args[MAX_ARGS];    /* trimmed, pointing into the text */
	size_t nargs;
};

static bool ident_ch(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* The first call of name at or after from in text[0..len). */
static bool find_call(struct call *c, const char *text, size_t len, size_t from,
		      const char *name)
{
	size_t n = strlen(name);

	for (size_t i = from; i + n < len; i++) {
		size_t j = i + n, a;
		int depth = 0;

		if (memcmp(text + i, name, n) || (i && ident_ch(text[i - 1])) ||
		    ident_ch(text[j]))
			continue;
		while (j < len && isspace((unsigned char)text[j]))
			j++;
		if (j >= len || text[j] != '(')
			continue;
		c->start = i;
		c->name_end = i + n;
		c->nargs = 0;
		a = j + 1;
		for (size_t k = j; k < len; k++) {
			char ch = text[k];

			if (ch == '"' || ch == '\'') {
				for (k++; k < len && text[k] != ch; k++)
					if (text[k] == '\\')
						k++;
				continue;
			}
			if (ch == '(' || ch == '[' || ch == '{') {
				depth++;
			} else if ((ch == ')' || ch == ']' || ch == '}') &&
				   --depth == 0) {
				struct span s = span_trim(
					(struct span){ text + a, k - a });

				if (s.len && c->nargs < MAX_ARGS)
					c->args[c->nargs++] = s;
				c->close = k;
				return c->nargs < MAX_ARGS;
			} else if (ch == ',' && depth == 1 &&
				   c->nargs < MAX_ARGS) {
				c->args[c->nargs++] = span_trim(
					(struct span){ text + a, k - a });
				a = k + 1;
			}
		}
		return false;
	}
	return false;
}

/* ---- the new form of a call ---- */

/*
 * How many parameters a function signature ("void (struct x *, int)")
 * takes: its last parenthesised group; -1 when variadic or not known.
 */
static long sig_arity(const char *sig)
{
	size_t len = sig ? strlen(sig) : 0, open = len;
	int depth = 0;
	long commas = 0;
	struct span in;

	if (!len || sig[len - 1] != ')')
		return -1;
	while (open-- > 0) {
		if (sig[open] == ')')
			depth++;
		else if (sig[open] == '(' && --depth == 0)
			break;
	}
	if (depth)
		return -1;
	in = span_trim((struct span){ sig + open + 1, len - open - 2 });
	if (!in.len || (in.len == 4 && !memcmp(in.ptr, "void", 4)))
		return 0;
	for (size_t i = 0; i < in.len; i++) {
		char c = in.ptr[i];

		if (c == '.')
			return -1;
		if (c == '(' || c == '[')
			depth++;
		else if (c == ')' || c == ']')
			depth--;
		else if (c == ',' && !depth)
			commas++;
	}
	return commas + 1;
}

/* A function whose number of parameters the series changes. */
struct shape {
	const char *name; /* borrowed */
	long old_n, new_n;
};

struct shapes {
	struct shape *v;
	size_t nr, alloc;
};

/* Add name when its old and new signatures take different counts. */
static void shapes_add(struct shapes *s, const char *name, const char *old_sig,
		       const char *new_sig)
{
	long o = sig_arity(old_sig), n = sig_arity(new_sig);

	if (o < 0 || n < 0 || o == n)
		return;
	ALLOC_GROW(s->v, s->nr + 1, s->alloc);
	s->v[s->nr++] = (struct shape){ name, o, n };
}

/* A statement a hunk of the series leaves using a symbol (its '+' side). */
struct form {
	char *path, *symbol;
	char *text; /* its lines trimmed, joined by LF */
};

struct forms {
	struct form *v;
	size_t nr, alloc;
};

static void forms_release(struct forms *f)
{
	for (size_t i = 0; i < f->nr; i++) {
		free(f->v[i].path);
		free(f->v[i].symbol);
		free(f->v[i].text);
	}
	free(f->v);
	memset(f, 0, sizeof(*f));
}

/*
 * The statement at line first of l, from byte skip of that line on: its
 * lines trimmed, joined by LF.
 */
static char *stmt_text(const struct lines *l, size_t first, size_t skip)
{
	struct buf b = BUF_INIT;
	size_t last = stmt_last(l, first);

	for (size_t i = first; i <= last && i < l->nr; i++) {
		struct span t = line_at(l, i);

		if (i > first) {
			buf_addc(&b, '\n');
		} else if (skip < t.len) {
			t.ptr += skip;
			t.len -= skip;
		}
		buf_addspan(&b, span_trim(t));
	}
	return buf_detach(&b, NULL);
}

/* What a call already in the new API looks like. */
struct new_api {
	const struct forms *forms;   /* the series' converted statements */
	const struct shapes *shapes; /* parameter counts it changes */
};

/*
 * Whether the use ref (of path, text l) is already in the form the series
 * leaves: the statement a hunk of the series makes, or a call with the
 * changed function's new number of arguments.
 */
static bool in_new_form(const struct new_api *api, const char *path,
			const struct watch_ref *ref, const struct lines *l)
{
	char *text = stmt_text(l, ref->line - 1, 0);
	char *from = NULL; /* the call of ref itself, on */
	struct call c;
	bool yes = false;

	for (size_t i = 0; api->forms && i < api->forms->nr && !yes; i++) {
		const struct form *f = &api->forms->v[i];
		yes = !strcmp(f->path, path) && !strcmp(f->symbol, ref->name) &&
		      !strcmp(f->text, text);
	}
	for (size_t i = 0; api->shapes && i < api->shapes->nr && !yes; i++) {
		const struct shape *s = &api->shapes->v[i];

		if (strcmp(s->name, ref->name))
			continue;
		if (!from)
			from = stmt_text(l, ref->line - 1,
					 ref->col ? ref->col - 1 : 0);
		yes = find_call(&c, from, strlen(from), 0, ref->name) &&
		      (long)c.nargs == s->new_n;
	}
	free(text);
	free(from);
	return yes;
}

/* ---- unconverted callers ---- */

/*
 * A removed symbol breaks every use; a changed one too, unless it is a
 * tag whose member list changed (see audit_result.unconverted).
 */
static bool breaks_uses(const struct watch_delta *d)
{
	const char *n;

	if (d->change == WATCH_ADDED)
		return false;
	if (d->change == WATCH_REMOVED)
		return true;
	n = d->old->name;
	return !(d->old->kind == WATCH_TYPE && d->new->kind == WATCH_TYPE &&
		 (starts_with(n, "struct ") || starts_with(n, "union ") ||
		  starts_with(n, "enum ")));
}

struct run {
	struct audit_result *out;
	struct tree_repo *repo;
	struct tree_oid base, head; /* trees */
	const char *const *watched;
	size_t nw;
	const struct audit_opts *opts;
	struct watch_set breaks; /* removed and changed symbols */
	struct watch_set all;    /* every export, before and after */
	struct sites absent;
	struct forms forms;   /* the statements the series converts to */
	struct shapes shapes; /* of breaks, as the result has them */
};

/*
 * Refs in file path of the result that use a broken symbol in a
 * statement the target had as it is (somewhere in the same file).
 */
static int unconverted_in(struct run *r, struct sites *out, const char *path,
			  struct err *err)
{
	struct watch_refs refs;
	struct buf text = BUF_INIT, old = BUF_INIT;
	struct lines tl = { 0 }, ol = { 0 };
	bool exists, any = false;
	int error;

	watch_refs_init(&refs);
	if ((error = scan_file(&refs, &text, &exists, r->repo, &r->head, path,
			       &r->breaks, err)) < 0 ||
	    !exists)
		goto out;
	r->out->nr_files_scanned++;
	for (size_t i = 0; i < refs.nr && !any; i++)
		any = refs.v[i].kind != WATCH_REF_DECL;
	if (!any)
		goto out;
	/* a file the series creates has no caller it could leave alone */
	if ((error = tree_read_file(&old, &exists, NULL, r->repo, &r->base,
				    path, err)) < 0 ||
	    !exists)
		goto out;
	lines_init(&tl, text.ptr, text.len);
	lines_init(&ol, old.ptr, old.len);
	for (size_t i = 0; i < refs.nr; i++) {
		const struct watch_ref *ref = &refs.v[i];
		size_t first = ref->line - 1, at;
		struct audit_site *s;

		if (ref->kind == WATCH_REF_DECL || first >= tl.nr)
			continue;
		if (!block_in(&at, &ol, &tl, first, stmt_last(&tl, first)) ||
		    in_new_form(&(struct new_api){ &r->forms, &r->shapes },
				path, ref, &tl))
			continue;
		s = sites_add(out, path, ref, line_at(&tl, first));
		s->base_line = at;
	}
out:
	lines_release(&tl);
	lines_release(&ol);
	buf_release(&text);
	buf_release(&old);
	watch_refs_release(&refs);
	return error;
}

static int find_unconverted(struct run *r, struct err *err)
{
	struct strv files = { 0 };
	struct sites out = { 0 };
	int error;

	if ((error = list_scope(&files,
				&(struct watched_tree){ r->repo, &r->head,
							r->watched, r->nw },
				r->opts, err)) < 0)
		goto out;
	for (size_t i = 0; i < files.nr; i++) {
		if (is_watched(r->watched, r->nw, files.v[i]))
			continue;
		if ((error = unconverted_in(r, &out, files.v[i], err)) < 0)
			goto out;
	}
out:
	r->out->unconverted = out.v;
	r->out->nr_unconverted = out.nr;
	strv_release(&files);
	return error;
}

/* ---- hunks ---- */

/* One side of a hunk as text, and where its lines come from. */
struct side {
	struct buf text;
	struct lines lines;
	size_t *hunk_line; /* index in the hunk of each line */
	bool *changed;     /* a '-' (old side) or '+' (new side) line */
	size_t nr, alloc;
};

static void side_build(struct side *s, const struct patch_hunk *h, char kind)
{
	size_t alloc2 = 0;

	memset(s, 0, sizeof(*s));
	buf_init(&s->text, 0);
	for (size_t i = 0; i < h->nr_lines; i++) {
		const struct patch_line *pl = &h->lines[i];
		if (pl->kind != ' ' && pl->kind != kind)
			continue;
		ALLOC_GROW(s->hunk_line, s->nr + 1, s->alloc);
		ALLOC_GROW(s->changed, s->nr + 1, alloc2);
		s->hunk_line[s->nr] = i;
		s->changed[s->nr] = pl->kind == kind;
		s->nr++;
		buf_addspan(&s->text, pl->text);
		buf_addc(&s->text, '\n');
	}
	lines_init(&s->lines, s->text.ptr, s->text.len);
}

static void side_release(struct side *s)
{
	buf_release(&s->text);
	lines_release(&s->lines);
	free(s->hunk_line);
	free(s->changed);
}

/* Whether a line of the statement at line first of s is changed. */
static bool stmt_changed(const struct side *s, size_t first)
{
	size_t last = stmt_last(&s->lines, first);

	for (size_t i = first; i <= last && i < s->nr; i++)
		if (s->changed[i])
			return true;
	return false;
}

/* The name before the first '(' of a line, or NULL. */
static char *name_before_paren(struct span s)
{
	const char *p = memchr(s.ptr, '(', s.len), *e;

	if (!p)
		return NULL;
	while (p > s.ptr && isspace((unsigned char)p[-1]))
		p--;
	e = p;
	while (p > s.ptr && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
		p--;
	if (p == e || isdigit((unsigned char)*p))
		return NULL;
	return xstrndup(p, (size_t)(e - p));
}

/*
 * The function around line i of hunk h (its old side), the way git finds
 * a hunk header: the nearest line at or above it that starts with a
 * letter or '_' and is not a prototype or a label; the hunk's section when
 * the hunk holds none.  NULL at file scope or when unknown.
 */
static char *hunk_func(const struct patch_hunk *h, size_t i)
{
	for (i++; i-- > 0;) {
		const struct patch_line *pl = &h->lines[i];
		struct span t = pl->text, tr;
		if (pl->kind == '+' || !t.len)
			continue;
		if (t.ptr[0] == '}')
			return NULL;
		if (!isalpha((unsigned char)t.ptr[0]) && t.ptr[0] != '_')
			continue;
		tr = span_trim(t);
		if (tr.ptr[tr.len - 1] == ';' || tr.ptr[tr.len - 1] == ':')
			continue;
		return name_before_paren(t);
	}
	return h->section.len ? name_before_paren(h->section) : NULL;
}

/* Whether text (of path) defines function name. */
static int defines(bool *yes, const char *path, const struct buf *text,
		   const char *name, struct err *err)
{
	struct watch_set set;
	struct watch_refs refs;
	int error;

	*yes = false;
	watch_set_init(&set);
	watch_refs_init(&refs);
	watch_set_add(&set, name, WATCH_FUNCTION);
	error = watch_scan_refs(&refs, &set, path, text->ptr, text->len, err);
	for (size_t i = 0; !error && i < refs.nr && !*yes; i++)
		*yes = refs.v[i].kind == WATCH_REF_DECL && refs.v[i].func &&
		       !strcmp(refs.v[i].func, name);
	if (error == ERR_PARSE) {
		err_release(err);
		error = 0;
	}
	watch_refs_release(&refs);
	watch_set_release(&set);
	return error;
}

/* The target's copy of the file a caller hunk reads, loaded once. */
struct target_file {
	const char *path;
	bool loaded, exists;
	struct buf text;
};

/*
 * A use of a broken symbol that hunk h converts, at line first of its old
 * side: an absent site when the target lacks the file or the function.
 */
static int check_absent(struct run *r, struct target_file *tf,
			const struct patch_hunk *h, const struct side *old,
			const struct watch_ref *ref, struct err *err)
{
	size_t first = ref->line - 1, hl = old->hunk_line[first];
	size_t newline = h->new_start;
	char *func = hunk_func(h, hl);
	bool absent = false;
	int error = 0;

	if (!tf->loaded) {
		tf->loaded = true;
		if ((error = tree_read_file(&tf->text, &tf->exists, NULL,
					    r->repo, &r->base, tf->path,
					    err)) < 0)
			goto out;
	}
	if (!tf->exists) {
		absent = true;
	} else if (func) {
		bool defined;
		if ((error = defines(&defined, tf->path, &tf->text, func,
				     err)) < 0)
			goto out;
		absent = !defined;
	}
	if (!absent)
		goto out;
	for (size_t i = 0; i < hl; i++)
		if (h->lines[i].kind != '-')
			newline++;
	{
		struct watch_ref at = *ref;

		at.line = newline;
		at.func = func;
		sites_add(&r->absent, tf->path, &at,
			  line_at(&old->lines, first));
	}
out:
	free(func);
	return error;
}

/*
 * One hunk of a file that is not watched: whether it changes a statement
 * using an export (the symbol), and the absent sites it converts.
 */
static int audit_hunk(char **symbol, struct run *r, struct target_file *tf,
		      const struct patch_hunk *h, struct err *err)
{
	struct side sides[2];
	int error = 0;

	*symbol = NULL;
	side_build(&sides[0], h, '-');
	side_build(&sides[1], h, '+');
	for (int k = 0; k < 2 && !error; k++) {
		const struct side *s = &sides[k];
		struct watch_refs refs;

		watch_refs_init(&refs);
		error = watch_scan_refs(&refs, &r->all, tf->path, s->text.ptr,
					s->text.len, err);
		if (error == ERR_PARSE) {
			err_release(err);
			error = 0;
		}
		for (size_t i = 0; !error && i < refs.nr; i++) {
			const struct watch_ref *ref = &refs.v[i];
			size_t len = strlen(ref->name);

			if (!stmt_changed(s, ref->line - 1))
				continue;
			if (!*symbol)
				*symbol = xstrdup(ref->name);
			if (k == 0 &&
			    watch_set_find(&r->breaks, ref->name, len))
				error = check_absent(r, tf, h, s, ref, err);
		}
		watch_refs_release(&refs);
	}
	side_release(&sides[0]);
	side_release(&sides[1]);
	return error;
}

/* Add h to ap: its path copied, its symbol taken. */
static void add_hunk(struct audit_patch *ap, size_t *alloc,
		     const struct audit_hunk *h)
{
	struct audit_hunk *ah;

	ALLOC_GROW(ap->hunks, ap->nr_hunks + 1, *alloc);
	ah = &ap->hunks[ap->nr_hunks++];
	*ah = *h;
	ah->path = xstrdup(h->path);
}

static int audit_patch(struct run *r, struct audit_patch *ap,
		       const struct patch *p, struct err *err)
{
	size_t alloc = 0;
	int error = 0;

	for (size_t j = 0; j < p->nr_files && !error; j++) {
		const struct patch_file *f = &p->files[j];
		const char *path = patch_file_path(f);
		bool watched = is_watched(r->watched, r->nw, f->old_path) ||
			       is_watched(r->watched, r->nw, f->new_path);
		struct target_file tf = { f->old_path ? f->old_path : path,
					  false, false, BUF_INIT };

		for (size_t k = 0; k < f->nr_hunks && !error; k++) {
			char *symbol = NULL;

			if (watched) {
				struct audit_hunk ah = { j, k, (char *)path,
							 true, NULL };

				ap->touches_watched = true;
				add_hunk(ap, &alloc, &ah);
				continue;
			}
			error = audit_hunk(&symbol, r, &tf, &f->hunks[k], err);
			if (symbol) {
				struct audit_hunk ah = { j, k, (char *)path,
							 false, symbol };

				ap->touches_caller = true;
				add_hunk(ap, &alloc, &ah);
			}
		}
		buf_release(&tf.text);
	}
	return error;
}

/* ---- the series' own API change ---- */

/* The exports one side of the watched files' hunks of p declare. */
static int side_exports(struct watch_exports *ex, const struct patch *p,
			const char *const *w, size_t nw, char kind,
			struct err *err)
{
	struct buf *texts = NULL;
	struct watch_source *src = NULL;
	size_t n = 0, alloc = 0, alloc2 = 0;
	int error;

	for (size_t f = 0; f < p->nr_files; f++) {
		const struct patch_file *pf = &p->files[f];
		const char *path = kind == '-' ? pf->old_path : pf->new_path;

		if (!path || !is_watched(w, nw, path))
			continue;
		for (size_t k = 0; k < pf->nr_hunks; k++) {
			struct side sd;

			side_build(&sd, &pf->hunks[k], kind);
			ALLOC_GROW(texts, n + 1, alloc);
			ALLOC_GROW(src, n + 1, alloc2);
			buf_init(&texts[n], 0);
			buf_swap(&texts[n], &sd.text);
			/* a new or deleted file's one side is all of it */
			src[n] = (struct watch_source){
				path, texts[n].ptr, texts[n].len,
				pf->old_path && pf->new_path
			};
			n++;
			side_release(&sd);
		}
	}
	error = watch_exports(ex, src, n, err);
	if (error == ERR_PARSE) {
		/* not C (a NUL byte, conflict markers): nothing known */
		err_release(err);
		error = 0;
	}
	for (size_t i = 0; i < n; i++)
		buf_release(&texts[i]);
	free(texts);
	free(src);
	return error;
}

/* What the series does to one symbol so far. */
struct intent_acc {
	char *name;
	enum watch_kind kind;
	bool before;     /* it was there before the series touched it */
	bool now;        /* it is there after the patches so far */
	char *first_sig; /* as the series found it */
	char *last_sig;  /* as the series leaves it */
	size_t patch;
};

static struct intent_acc *acc_get(struct intent_acc **v, size_t *nr,
				  size_t *alloc, const struct watch_symbol *s,
				  bool *fresh)
{
	for (size_t i = 0; i < *nr; i++)
		if (!strcmp((*v)[i].name, s->name)) {
			*fresh = false;
			return &(*v)[i];
		}
	ALLOC_GROW(*v, *nr + 1, *alloc);
	memset(&(*v)[*nr], 0, sizeof(**v));
	(*v)[*nr].name = xstrdup(s->name);
	(*v)[*nr].kind = s->kind;
	*fresh = true;
	return &(*v)[(*nr)++];
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void set_sig(char **at, const char *sig)
{
	free(*at);
	*at = dup_or_null(sig);
}

static int change_rank(enum watch_change c)
{
	return c == WATCH_CHANGED ? 0 : c == WATCH_REMOVED ? 1 : 2;
}

static int find_intents(struct audit_result *out,
			const struct series_version *v,
			const char *const *w, size_t nw,
			const struct watch_exports *target, struct err *err)
{
	struct intent_acc *acc = NULL;
	size_t nr = 0, alloc = 0, alloc_out = 0;
	int error = 0;

	for (size_t i = 0; i < v->nr && !error; i++) {
		const struct patch *p = &v->items[i].patch;
		struct watch_exports o, n;
		bool fresh;

		watch_exports_init(&o);
		watch_exports_init(&n);
		if ((error = side_exports(&o, p, w, nw, '-', err)) < 0 ||
		    (error = side_exports(&n, p, w, nw, '+', err)) < 0)
			goto next;
		for (size_t k = 0; k < o.nr; k++) {
			const struct watch_symbol *os = &o.v[k];
			const struct watch_symbol *ns =
				watch_exports_find(&n, os->name);
			struct intent_acc *a;

			if (ns && (os->partial || ns->partial ||
				   (os->signature == ns->signature) ||
				   (os->signature && ns->signature &&
				    !strcmp(os->signature, ns->signature))))
				continue; /* the same, or not known whole */
			a = acc_get(&acc, &nr, &alloc, os, &fresh);
			if (fresh) {
				a->before = true;
				a->first_sig = dup_or_null(os->signature);
				a->patch = i + 1;
			}
			a->now = ns != NULL;
			set_sig(&a->last_sig, ns ? ns->signature : NULL);
		}
		for (size_t k = 0; k < n.nr; k++) {
			struct intent_acc *a;

			if (watch_exports_find(&o, n.v[k].name))
				continue;
			a = acc_get(&acc, &nr, &alloc, &n.v[k], &fresh);
			if (fresh)
				a->patch = i + 1;
			a->now = true;
			set_sig(&a->last_sig, n.v[k].signature);
		}
next:
		watch_exports_release(&o);
		watch_exports_release(&n);
	}
	for (size_t i = 0; i < nr && !error; i++) {
		struct intent_acc *a = &acc[i];
		struct audit_intent *t;
		const struct watch_symbol *ts;
		enum watch_change change;

		if (a->before && !a->now)
			change = WATCH_REMOVED;
		else if (a->before &&
			 !(a->first_sig == a->last_sig ||
			   (a->first_sig && a->last_sig &&
			    !strcmp(a->first_sig, a->last_sig))))
			change = WATCH_CHANGED;
		else if (!a->before && a->now)
			change = WATCH_ADDED;
		else
			continue; /* back as it was, or added then removed */
		ALLOC_GROW(out->intents, out->nr_intents + 1, alloc_out);
		t = &out->intents[out->nr_intents++];
		memset(t, 0, sizeof(*t));
		t->name = xstrdup(a->name);
		t->kind = a->kind;
		t->change = change;
		t->old_sig = change == WATCH_ADDED ? NULL
						   : dup_or_null(a->first_sig);
		t->new_sig = change == WATCH_REMOVED ? NULL
						     : dup_or_null(a->last_sig);
		t->patch = a->patch;
		ts = watch_exports_find(target, a->name);
		if (!ts) {
			t->target = AUDIT_TARGET_ABSENT;
		} else {
			t->target_sig = dup_or_null(ts->signature);
			if (change != WATCH_ADDED &&
			    (ts->signature == t->old_sig ||
			     (ts->signature && t->old_sig &&
			      !strcmp(ts->signature, t->old_sig))))
				t->target = AUDIT_TARGET_PRESENT;
			else if (change != WATCH_REMOVED &&
				 (ts->signature == t->new_sig ||
				  (ts->signature && t->new_sig &&
				   !strcmp(ts->signature, t->new_sig))))
				t->target = AUDIT_TARGET_ALREADY;
			else
				t->target = AUDIT_TARGET_OTHER;
		}
	}
	for (size_t i = 0; i < nr; i++) {
		free(acc[i].name);
		free(acc[i].first_sig);
		free(acc[i].last_sig);
	}
	free(acc);
	/* changed first, then removed, then added; stable */
	for (size_t i = 1; i < out->nr_intents; i++) {
		struct audit_intent t = out->intents[i];
		size_t j = i;

		while (j > 0 && change_rank(out->intents[j - 1].change) >
					change_rank(t.change)) {
			out->intents[j] = out->intents[j - 1];
			j--;
		}
		out->intents[j] = t;
	}
	return error;
}

/* The series changes an API the target lacks: say what it has instead. */
static void note_absent_api(struct audit_result *out,
			    const struct watch_exports *target)
{
	size_t breaking = 0, absent = 0, alloc = 0;
	bool calls = false;

	/* the functions and macros the series changes: a struct of the same
	 * name may well be there in another era's form */
	for (size_t i = 0; i < out->nr_intents; i++)
		calls |= out->intents[i].change != WATCH_ADDED &&
			 (out->intents[i].kind == WATCH_FUNCTION ||
			  out->intents[i].kind == WATCH_MACRO);
	for (size_t i = 0; i < out->nr_intents; i++) {
		const struct audit_intent *t = &out->intents[i];

		if (t->change == WATCH_ADDED ||
		    (calls && t->kind != WATCH_FUNCTION &&
		     t->kind != WATCH_MACRO))
			continue;
		breaking++;
		absent += t->target == AUDIT_TARGET_ABSENT;
	}
	out->api_absent = breaking && absent == breaking;
	if (!out->api_absent)
		return;
	for (size_t i = 0; i < target->nr; i++) {
		const struct watch_symbol *s = &target->v[i];
		struct watch_symbol *t;

		if (s->kind != WATCH_FUNCTION && s->kind != WATCH_TYPE)
			continue;
		ALLOC_GROW(out->target_api, out->nr_target_api + 1, alloc);
		t = &out->target_api[out->nr_target_api++];
		memset(t, 0, sizeof(*t));
		t->name = xstrdup(s->name);
		t->kind = s->kind;
		t->path = dup_or_null(s->path);
		t->line = s->line;
		t->signature = dup_or_null(s->signature);
	}
}

/* A use of a changed symbol that a hunk of the series converts. */
struct conversion {
	size_t patch, file, hunk; /* 0-based */
	const char *path;
	char *func;               /* around it, in the series' view */
	char *symbol;
	char *text;               /* the statement's first line, trimmed */
};

static void conversions_free(struct conversion *c, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		free(c[i].func);
		free(c[i].symbol);
		free(c[i].text);
	}
	free(c);
}

static int find_conversions(struct conversion **out, size_t *nr,
			    const struct series_version *v,
			    const struct run *run,
			    const struct watch_set *changed, struct err *err)
{
	const char *const *w = run->watched;
	size_t nw = run->nw;
	size_t alloc = 0;
	int error = 0;

	for (size_t i = 0; i < v->nr && !error; i++) {
		const struct patch *p = &v->items[i].patch;

		for (size_t f = 0; f < p->nr_files && !error; f++) {
			const struct patch_file *pf = &p->files[f];

			if (!pf->old_path || is_watched(w, nw, pf->old_path))
				continue;
			for (size_t k = 0; k < pf->nr_hunks && !error; k++) {
				const struct patch_hunk *h = &pf->hunks[k];
				struct side sd;
				struct watch_refs refs;

				side_build(&sd, h, '-');
				watch_refs_init(&refs);
				error = watch_scan_refs(&refs, changed,
							pf->old_path, sd.text.ptr,
							sd.text.len, err);
				if (error == ERR_PARSE) {
					err_release(err);
					error = 0;
				}
				for (size_t r = 0; !error && r < refs.nr; r++) {
					const struct watch_ref *ref = &refs.v[r];
					struct conversion *c;
					size_t first = ref->line - 1;

					if (ref->kind == WATCH_REF_DECL ||
					    !stmt_changed(&sd, first))
						continue;
					ALLOC_GROW(*out, *nr + 1, alloc);
					c = &(*out)[(*nr)++];
					c->patch = i;
					c->file = f;
					c->hunk = k;
					c->path = pf->old_path;
					c->func = hunk_func(h, sd.hunk_line[first]);
					c->symbol = xstrdup(ref->name);
					c->text = span_dup(span_trim(
						line_at(&sd.lines, first)));
				}
				watch_refs_release(&refs);
				side_release(&sd);
			}
		}
	}
	return error;
}

/* The statements of one hunk's new side that use an export on a line
 * the hunk adds. */
static int hunk_forms(struct forms *out, const struct run *r, const char *path,
		      const struct patch_hunk *h, struct err *err)
{
	struct side sd;
	struct watch_refs refs;
	int error;

	side_build(&sd, h, '+');
	watch_refs_init(&refs);
	error = watch_scan_refs(&refs, &r->all, path, sd.text.ptr, sd.text.len,
				err);
	if (error == ERR_PARSE) {
		err_release(err);
		error = 0;
	}
	for (size_t i = 0; !error && i < refs.nr; i++) {
		const struct watch_ref *ref = &refs.v[i];
		struct form *f;

		if (ref->kind == WATCH_REF_DECL ||
		    !stmt_changed(&sd, ref->line - 1))
			continue;
		ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		f = &out->v[out->nr++];
		f->path = xstrdup(path);
		f->symbol = xstrdup(ref->name);
		f->text = stmt_text(&sd.lines, ref->line - 1, 0);
	}
	watch_refs_release(&refs);
	side_release(&sd);
	return error;
}

/* The statements the series' hunks of unwatched files leave using an
 * export: a caller the target already has so is in the new form. */
static int find_forms(struct run *r, const struct series_version *v,
		      struct err *err)
{
	int error = 0;

	for (size_t i = 0; i < v->nr && !error; i++) {
		const struct patch *p = &v->items[i].patch;

		for (size_t f = 0; f < p->nr_files && !error; f++) {
			const struct patch_file *pf = &p->files[f];

			if (!pf->new_path ||
			    is_watched(r->watched, r->nw, pf->new_path))
				continue;
			for (size_t k = 0; k < pf->nr_hunks && !error; k++)
				error = hunk_forms(&r->forms, r, pf->new_path,
						   &pf->hunks[k], err);
		}
	}
	return error;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* The conversion meant for site: same file, symbol and function, the same
 * statement preferred. */
static const struct conversion *conversion_of(const struct conversion *c,
					      size_t nr,
					      const struct audit_site *site)
{
	const struct conversion *best = NULL;

	for (size_t i = 0; i < nr; i++) {
		if (strcmp(c[i].path, site->path) ||
		    strcmp(c[i].symbol, site->symbol) ||
		    !same_str(c[i].func, site->func))
			continue;
		if (site->text && !strcmp(c[i].text, site->text))
			return &c[i];
		if (!best)
			best = &c[i];
	}
	return best;
}

/*
 * Whether the hunk of cv landed: applied and committed, or already in the
 * target (its patch then has no commit of its own).
 */
static bool conversion_landed(const struct conversion *cv,
			      const struct carry_result *cr)
{
	const struct carry_patch *cp;
	const struct carry_file *cf;
	enum apply_rule rule;

	if (cv->patch >= cr->nr)
		return false;
	cp = &cr->patches[cv->patch];
	cf = cv->file < cp->nr_files ? &cp->files[cv->file] : NULL;
	if (!cf || cv->hunk >= cf->nr_hunks)
		return false;
	rule = cf->hunks[cv->hunk].rule;
	return rule == RULE_ALREADY || (cp->committed && rule != RULE_CONFLICT);
}

/* The symbols of the intents whose callers are classified, and the
 * parameter counts they change from the target's to the series'. */
static void classified_symbols(struct watch_set *changed, struct shapes *sh,
			       const struct audit_result *out)
{
	for (size_t i = 0; i < out->nr_intents; i++) {
		const struct audit_intent *t = &out->intents[i];

		if (t->change == WATCH_ADDED ||
		    (t->target != AUDIT_TARGET_PRESENT &&
		     t->target != AUDIT_TARGET_OTHER))
			continue;
		/* a struct whose members change: its uses are not callers */
		if (t->change == WATCH_CHANGED && t->kind == WATCH_TYPE &&
		    (starts_with(t->name, "struct ") ||
		     starts_with(t->name, "union ") ||
		     starts_with(t->name, "enum ")))
			continue;
		watch_set_add(changed, t->name, t->kind);
		if (t->change == WATCH_CHANGED && t->kind == WATCH_FUNCTION)
			shapes_add(sh, t->name, t->target_sig, t->new_sig);
	}
}

/* What classify_callers reads for one file of the target. */
struct caller_ctx {
	struct run *r;
	const struct carry_result *cr;
	const struct conversion *conv;
	size_t nconv;
	const struct new_api *api;
	size_t alloc; /* of out->callers */
};

/*
 * Classify ref, a use in file path (text l) of the target.  A use already
 * in the series' new form is converted when a hunk of the series meant
 * to convert it, and no caller of the old API when none did.
 */
static void classify_ref(struct caller_ctx *x, const char *path,
			 const struct watch_ref *ref, const struct lines *l)
{
	struct audit_result *out = x->r->out;
	bool now = in_new_form(x->api, path, ref, l);
	struct audit_site site = { 0 };
	const struct conversion *cv;
	struct audit_caller *c;

	site.path = (char *)path;
	site.line = ref->line;
	site.func = (char *)ref->func;
	site.symbol = (char *)ref->name;
	site.kind = ref->kind;
	site.text = span_dup(span_trim(line_at(l, ref->line - 1)));
	cv = conversion_of(x->conv, x->nconv, &site);
	if (!cv && now) {
		free(site.text);
		return;
	}
	ALLOC_GROW(out->callers, out->nr_callers + 1, x->alloc);
	c = &out->callers[out->nr_callers++];
	memset(c, 0, sizeof(*c));
	c->site = site;
	c->site.path = xstrdup(path);
	c->site.func = dup_or_null(ref->func);
	c->site.symbol = xstrdup(ref->name);
	if (!cv) {
		c->class = AUDIT_TARGET_ONLY;
		out->nr_target_only++;
		return;
	}
	c->patch = cv->patch + 1;
	c->file = xstrdup(cv->path);
	c->hunk = cv->hunk + 1;
	c->class = now || conversion_landed(cv, x->cr) ? AUDIT_CONVERTED
						       : AUDIT_CONFLICTED;
	out->nr_conflicted += c->class == AUDIT_CONFLICTED;
}

/* Every caller in the target of a symbol the series changes, classified. */
static int classify_callers(struct run *r, const struct series_version *v,
			    const struct carry_result *cr, struct err *err)
{
	struct watch_set changed;
	struct shapes sh = { 0 };
	struct conversion *conv = NULL;
	struct strv files = { 0 };
	struct buf text = BUF_INIT;
	struct caller_ctx x = { r, cr, NULL, 0, NULL, 0 };
	size_t nconv = 0;
	int error = 0;

	watch_set_init(&changed);
	x.api = &(struct new_api){ &r->forms, &sh };
	classified_symbols(&changed, &sh, r->out);
	if (!changed.nr)
		goto out;
	if ((error = find_conversions(&conv, &nconv, v, r, &changed,
				      err)) < 0 ||
	    (error = list_scope(&files,
				&(struct watched_tree){ r->repo, &r->base,
							r->watched, r->nw },
				r->opts, err)) < 0)
		goto out;
	x.conv = conv;
	x.nconv = nconv;
	for (size_t i = 0; i < files.nr && !error; i++) {
		struct watch_refs refs;
		struct lines l = { 0 };
		bool exists;

		if (is_watched(r->watched, r->nw, files.v[i]))
			continue;
		watch_refs_init(&refs);
		error = scan_file(&refs, &text, &exists, r->repo, &r->base,
				  files.v[i], &changed, err);
		if (!error && exists && refs.nr)
			lines_init(&l, text.ptr, text.len);
		for (size_t j = 0; !error && exists && j < refs.nr; j++)
			if (refs.v[j].kind != WATCH_REF_DECL)
				classify_ref(&x, files.v[i], &refs.v[j], &l);
		lines_release(&l);
		watch_refs_release(&refs);
	}
out:
	conversions_free(conv, nconv);
	strv_release(&files);
	buf_release(&text);
	free(sh.v);
	watch_set_release(&changed);
	return error;
}

/* ---- audit_run ---- */

static void fill_changes(struct audit_result *out, const struct watch_diff *d)
{
	out->changes = xcalloc(d->nr ? d->nr : 1, sizeof(*out->changes));
	for (size_t i = 0; i < d->nr; i++) {
		const struct watch_delta *x = &d->v[i];
		const struct watch_symbol *s = x->new ? x->new : x->old;
		struct audit_change *c = &out->changes[out->nr_changes++];

		c->name = xstrdup(x->old ? x->old->name : x->new->name);
		c->kind = s->kind;
		c->change = x->change;
		c->old_sig = x->old && x->old->signature
				     ? xstrdup(x->old->signature)
				     : NULL;
		c->new_sig = x->new && x->new->signature
				     ? xstrdup(x->new->signature)
				     : NULL;
	}
}

int audit_run(struct audit_result *out, struct tree_repo *repo,
	      const struct series_version *v, const struct carry_result *cr,
	      const struct audit_opts *opts, struct err *err)
{
	struct run r;
	struct watch_exports old_ex, new_ex;
	struct watch_diff diff;
	struct strv have = { 0 };
	int error;

	memset(out, 0, sizeof(*out));
	memset(&r, 0, sizeof(r));
	r.out = out;
	r.repo = repo;
	r.opts = opts;
	r.watched = watched_files(opts, &r.nw);
	watch_exports_init(&old_ex);
	watch_exports_init(&new_ex);
	watch_diff_init(&diff);
	watch_set_init(&r.breaks);
	watch_set_init(&r.all);
	if ((error = tree_commit_tree(&r.base, repo, &cr->base, err)) < 0 ||
	    (error = tree_commit_tree(&r.head, repo, &cr->head, err)) < 0)
		goto out;
	if ((error = load_exports(&old_ex, &have,
				  &(struct watched_tree){ repo, &r.base,
							  r.watched, r.nw },
				  err)) < 0) {
		err_prefix(err, "%s", cr->target ? cr->target : "target");
		goto out;
	}
	if ((error = load_exports(&new_ex, NULL,
				  &(struct watched_tree){ repo, &r.head,
							  r.watched, r.nw },
				  err)) < 0) {
		err_prefix(err, "%s", cr->branch ? cr->branch : "result");
		goto out;
	}
	out->watched = have.v;
	out->nr_watched = have.nr;
	have = (struct strv){ 0 };
	watch_diff_exports(&diff, &old_ex, &new_ex);
	fill_changes(out, &diff);
	for (size_t i = 0; i < diff.nr; i++) {
		const struct watch_delta *d = &diff.v[i];

		if (!breaks_uses(d))
			continue;
		watch_set_add(&r.breaks, d->old->name, d->old->kind);
		if (d->change == WATCH_CHANGED &&
		    d->old->kind == WATCH_FUNCTION)
			shapes_add(&r.shapes, d->old->name, d->old->signature,
				   d->new->signature);
	}
	watch_set_add_exports(&r.all, &old_ex);
	watch_set_add_exports(&r.all, &new_ex);
	if ((error = find_forms(&r, v, err)) < 0 ||
	    (r.breaks.nr && (error = find_unconverted(&r, err)) < 0))
		goto out;
	out->patches = xcalloc(v->nr ? v->nr : 1, sizeof(*out->patches));
	out->nr_patches = v->nr;
	for (size_t i = 0; i < v->nr; i++)
		if ((error = audit_patch(&r, &out->patches[i],
					 &v->items[i].patch, err)) < 0)
			goto out;
	/* what the series' own hunks change, and the target's callers */
	if ((error = find_intents(out, v, r.watched, r.nw, &old_ex, err)) < 0)
		goto out;
	note_absent_api(out, &old_ex);
	error = classify_callers(&r, v, cr, err);
out:
	out->absent = r.absent.v;
	out->nr_absent = r.absent.nr;
	strv_release(&have);
	forms_release(&r.forms);
	free(r.shapes.v);
	watch_set_release(&r.breaks);
	watch_set_release(&r.all);
	watch_diff_release(&diff);
	watch_exports_release(&old_ex);
	watch_exports_release(&new_ex);
	if (error < 0)
		audit_result_release(out);
	return error;
}

/* ---- the reference map ---- */

int audit_callers(struct audit_site **sites, size_t *nr,
		  struct tree_repo *repo, const struct tree_oid *commit,
		  const char *const *symbols, size_t nr_symbols,
		  const struct audit_opts *opts, struct err *err)
{
	struct tree_oid tree;
	struct watch_exports ex;
	struct watch_set set;
	struct strv have = { 0 }, files = { 0 };
	struct sites out = { 0 };
	struct buf text = BUF_INIT;
	size_t nw;
	const char *const *watched = watched_files(opts, &nw);
	struct watched_tree wt = { repo, &tree, watched, 0 };
	int error;

	wt.nw = nw;
	*sites = NULL;
	*nr = 0;
	watch_exports_init(&ex);
	watch_set_init(&set);
	if ((error = tree_commit_tree(&tree, repo, commit, err)) < 0)
		goto out;
	if (!nr_symbols) {
		if ((error = load_exports(&ex, &have, &wt, err)) < 0)
			goto out;
		if (!have.nr) {
			error = err_set(err, ERR_NOTFOUND,
					"'%s'%s: not in the tree", watched[0],
					nw > 1 ? " and the other watched files"
					       : "");
			err_hint(err, "name the symbols, or the files to "
				      "watch with --watch");
			goto out;
		}
		watch_set_add_exports(&set, &ex);
	}
	for (size_t i = 0; i < nr_symbols; i++) {
		const struct watch_symbol *s = watch_exports_find(&ex,
								  symbols[i]);
		watch_set_add(&set, symbols[i], s ? s->kind : WATCH_ANY);
	}
	if ((error = list_scope(&files, &wt, opts, err)) < 0)
		goto out;
	for (size_t i = 0; i < files.nr; i++) {
		struct watch_refs refs;
		struct lines l = { 0 };
		bool exists;

		watch_refs_init(&refs);
		error = scan_file(&refs, &text, &exists, repo, &tree,
				  files.v[i], &set, err);
		if (!error && exists && refs.nr)
			lines_init(&l, text.ptr, text.len);
		for (size_t j = 0; !error && exists && j < refs.nr; j++) {
			const struct watch_ref *ref = &refs.v[j];
			if (ref->kind == WATCH_REF_DECL)
				continue;
			sites_add(&out, files.v[i], ref,
				  line_at(&l, ref->line - 1));
		}
		lines_release(&l);
		watch_refs_release(&refs);
		if (error < 0)
			goto out;
	}
out:
	if (error < 0) {
		audit_sites_free(out.v, out.nr);
	} else {
		*sites = out.v;
		*nr = out.nr;
	}
	buf_release(&text);
	strv_release(&files);
	strv_release(&have);
	watch_set_release(&set);
	watch_exports_release(&ex);
	return error;
}

/* ---- suggestions: the series' own conversion for the calls it misses ---- */

#define CALL_LINES 3 /* context lines a converted call may start in */

/* An argument with its blanks folded, to compare two spellings. */
static char *folded(struct span s)
{
	struct buf b = BUF_INIT;
	bool blank = false;

	for (size_t i = 0; i < s.len; i++) {
		if (isspace((unsigned char)s.ptr[i])) {
			blank = b.len > 0;
			continue;
		}
		if (blank)
			buf_addc(&b, ' ');
		blank = false;
		buf_addc(&b, s.ptr[i]);
	}
	return buf_detach(&b, NULL);
}

static bool arg_eq(struct span a, struct span b)
{
	char *x = folded(a), *y = folded(b);
	bool eq = !strcmp(x, y);

	free(x);
	free(y);
	return eq;
}

/* Whether new is old without argument k. */
static bool drops(const struct call *old, const struct call *new, size_t k)
{
	if (new->nargs + 1 != old->nargs)
		return false;
	for (size_t i = 0, j = 0; i < old->nargs; i++) {
		if (i == k)
			continue;
		if (!arg_eq(old->args[i], new->args[j++]))
			return false;
	}
	return true;
}

/* Whether new is old with an argument inserted at k. */
static bool adds(const struct call *old, const struct call *new, size_t k)
{
	if (new->nargs != old->nargs + 1)
		return false;
	for (size_t i = 0, j = 0; j < new->nargs; j++) {
		if (j == k)
			continue;
		if (!arg_eq(old->args[i++], new->args[j]))
			return false;
	}
	return true;
}

/* The first "name(" of a text (a renamed callee), or NULL. */
static char *first_callee(const char *text, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		size_t j = i;

		if (!isalpha((unsigned char)text[i]) && text[i] != '_')
			continue;
		if (i && ident_ch(text[i - 1]))
			continue;
		while (j < len && ident_ch(text[j]))
			j++;
		if (j < len && text[j] == '(')
			return xstrndup(text + i, j - i);
		i = j;
	}
	return NULL;
}

/* The first call of name in text that ends at or after edge (reaches
 * into the changed lines, which start there). */
static bool call_into(struct call *c, const char *text, size_t len, size_t edge,
		      const char *name)
{
	for (size_t from = 0; find_call(c, text, len, from, name);
	     from = c->name_end)
		if (c->close >= edge)
			return true;
	return false;
}

/* One converted call: the rule it shows (a new rule, complete).  Both
 * texts start with the same ctx bytes of context. */
static bool rule_of(struct audit_rule *r, const char *sym, struct span old,
		    struct span new, size_t ctx)
{
	const char *old_text = old.ptr, *new_text = new.ptr;
	size_t old_len = old.len, new_len = new.len;
	struct call o, n;
	char *callee = NULL;
	bool same = true;

	memset(r, 0, sizeof(*r));
	if (!call_into(&o, old_text, old_len, ctx, sym))
		return false;
	if (!call_into(&n, new_text, new_len, ctx, sym)) {
		callee = first_callee(new_text + ctx, new_len - ctx);
		if (!callee || !call_into(&n, new_text, new_len, ctx, callee)) {
			free(callee);
			return false;
		}
	}
	r->new_name = callee;
	r->arity = o.nargs;
	r->examples = 1;
	for (size_t k = 0; k < o.nargs; k++)
		if (drops(&o, &n, k))
			r->drops |= (uint32_t)1 << k;
	for (size_t k = 0; !r->drops && k < n.nargs; k++)
		if (adds(&o, &n, k)) {
			char *t = folded(n.args[k]);

			if (r->add_text && strcmp(r->add_text, t)) {
				free(t);
				continue; /* another text: not one rule */
			}
			free(r->add_text);
			r->add_text = t;
			r->adds |= (uint32_t)1 << k;
		}
	/* no argument changed: a rename, or nothing to learn */
	for (size_t k = 0; same && k < o.nargs; k++)
		same = n.nargs == o.nargs && arg_eq(o.args[k], n.args[k]);
	if (!r->drops && !r->adds && (!same || !callee)) {
		free(r->new_name);
		free(r->add_text);
		memset(r, 0, sizeof(*r));
		return false;
	}
	r->symbol = xstrdup(sym);
	return true;
}

/* b agrees with a: what they have in common stays in a. */
static bool merge_rule(struct audit_rule *a, const struct audit_rule *b)
{
	if (strcmp(a->symbol, b->symbol) ||
	    !same_str(a->new_name, b->new_name) || a->arity != b->arity ||
	    !same_str(a->add_text, b->add_text) || !!a->drops != !!b->drops ||
	    !!a->adds != !!b->adds)
		return false;
	a->drops &= b->drops;
	a->adds &= b->adds;
	a->examples++;
	return (a->drops || !b->drops) && (a->adds || !b->adds);
}

static void rule_release(struct audit_rule *r)
{
	free(r->symbol);
	free(r->new_name);
	free(r->add_text);
}

/* The rules the series' converted callers agree on, one per symbol. */
static void learn_rules(struct audit_suggestions *out,
			const struct series_version *v, const char *const *w,
			size_t nw, const struct audit_result *a)
{
	struct audit_rule *seen = NULL;
	bool *bad = NULL;
	size_t nr = 0, alloc = 0, alloc_bad = 0, alloc_out = 0;

	for (size_t i = 0; i < v->nr; i++) {
		const struct patch *p = &v->items[i].patch;

		for (size_t f = 0; f < p->nr_files; f++) {
			const struct patch_file *pf = &p->files[f];

			if (!pf->old_path || is_watched(w, nw, pf->old_path))
				continue;
			for (size_t k = 0; k < pf->nr_hunks; k++) {
				const struct patch_hunk *h = &pf->hunks[k];

				for (size_t l = 0; l < h->nr_lines;) {
					struct buf o = BUF_INIT, n = BUF_INIT;
					size_t ctx;

					if (h->lines[l].kind == ' ') {
						l++;
						continue;
					}
					/* with the context lines before it: a
					 * call over several lines */
					ctx = l;
					while (ctx > 0 &&
					       l - ctx < CALL_LINES &&
					       h->lines[ctx - 1].kind == ' ')
						ctx--;
					for (; ctx < l; ctx++) {
						buf_addspan(&o,
							    h->lines[ctx].text);
						buf_addc(&o, '\n');
					}
					ctx = o.len;
					buf_add(&n, o.ptr, o.len);
					/* one block of changed lines */
					for (; l < h->nr_lines &&
					       h->lines[l].kind != ' ';
					     l++) {
						struct buf *b =
							h->lines[l].kind == '-'
								? &o
								: &n;
						buf_addspan(b,
							    h->lines[l].text);
						buf_addc(b, '\n');
					}
					for (size_t t = 0; t < a->nr_intents;
					     t++) {
						const struct audit_intent *in =
							&a->intents[t];
						struct audit_rule r;
						struct span os = { o.ptr,
								   o.len };
						struct span ns = { n.ptr,
								   n.len };
						size_t s;

						if (in->change == WATCH_ADDED ||
						    (in->kind !=
							     WATCH_FUNCTION &&
						     in->kind != WATCH_MACRO) ||
						    !rule_of(&r, in->name, os,
							     ns, ctx))
							continue;
						for (s = 0; s < nr; s++)
							if (!strcmp(seen[s].symbol,
								    r.symbol))
								break;
						if (s == nr) {
							ALLOC_GROW(seen, nr + 1,
								   alloc);
							ALLOC_GROW(bad, nr + 1,
								   alloc_bad);
							seen[nr] = r;
							bad[nr++] = false;
							continue;
						}
						if (!merge_rule(&seen[s], &r))
							bad[s] = true;
						rule_release(&r);
					}
					buf_release(&o);
					buf_release(&n);
				}
			}
		}
	}
	for (size_t s = 0; s < nr; s++) {
		if (bad[s]) {
			rule_release(&seen[s]);
			continue;
		}
		ALLOC_GROW(out->rules, out->nr_rules + 1, alloc_out);
		out->rules[out->nr_rules++] = seen[s];
	}
	free(seen);
	free(bad);
}

/* The call c (in text) rewritten by rule r, dropping or adding at k;
 * keep_break: a line break after the argument dropped stays. */
static char *rewrite(const struct audit_rule *r, const char *text,
		     const struct call *c, size_t k, bool keep_break)
{
	struct buf b = BUF_INIT;
	size_t to = c->close + 1, cut_a = 0, cut_b = 0, ins = 0;
	bool cut = r->drops != 0, insert = r->adds != 0;

	if (cut && k + 1 < c->nargs) {
		cut_a = (size_t)(c->args[k].ptr - text);
		cut_b = (size_t)(c->args[k + 1].ptr - text);
		/* "(w, helper,\n\t\tfn" loses " helper," and keeps the
		 * line break, as a person would wrap it */
		if (keep_break && k &&
		    memchr(text + cut_a, '\n', cut_b - cut_a) &&
		    !memchr(c->args[k].ptr, '\n', c->args[k].len)) {
			cut_a = (size_t)(c->args[k - 1].ptr +
					 c->args[k - 1].len - text) + 1;
			cut_b = (size_t)(c->args[k].ptr + c->args[k].len -
					 text) + 1;
		}
	} else if (cut && k) {
		cut_a = (size_t)(c->args[k - 1].ptr + c->args[k - 1].len -
				 text);
		cut_b = (size_t)(c->args[k].ptr + c->args[k].len - text);
	} else if (cut) { /* the only argument */
		cut_a = (size_t)(c->args[k].ptr - text);
		cut_b = cut_a + c->args[k].len;
	}
	if (insert)
		ins = k < c->nargs ? (size_t)(c->args[k].ptr - text)
		      : c->nargs   ? (size_t)(c->args[c->nargs - 1].ptr +
					      c->args[c->nargs - 1].len - text)
				   : c->close;
	buf_adds(&b, r->new_name ? r->new_name : r->symbol);
	for (size_t i = c->name_end; i < to; i++) {
		if (insert && i == ins)
			buf_addf(&b,
				 k < c->nargs ? "%s, "
				 : c->nargs   ? ", %s"
					      : "%s",
				 r->add_text);
		if (cut && i >= cut_a && i < cut_b)
			continue;
		buf_addc(&b, text[i]);
	}
	return buf_detach(&b, NULL);
}

/* The rewritten call, the same whichever candidate k; NULL when they
 * differ (the examples cannot tell which argument goes). */
static char *rewrite_call(const struct audit_rule *r, const char *text,
			  const struct call *c)
{
	uint32_t mask = r->drops ? r->drops : r->adds;
	char *result = NULL;
	/* candidates are compared as written: each cut the same way */
	bool one = mask && !(mask & (mask - 1));

	if (!mask)
		return rewrite(r, text, c, 0, false);
	for (size_t k = 0; k < 32; k++) {
		char *t;

		if (!(mask & ((uint32_t)1 << k)))
			continue;
		t = rewrite(r, text, c, k, one);
		if (result && strcmp(result, t)) {
			free(result);
			free(t);
			return NULL;
		}
		free(result);
		result = t;
	}
	return result;
}

/* Offset of line (1-based) in text. */
static size_t line_offset(const char *text, size_t len, size_t line)
{
	size_t off = 0;

	for (size_t l = 1; l < line && off < len; l++) {
		const char *nl = memchr(text + off, '\n', len - off);

		if (!nl)
			return len;
		off = (size_t)(nl - text) + 1;
	}
	return off;
}

static int cmp_fix(const void *x, const void *y)
{
	const struct audit_fix *a = x, *b = y;
	int c = strcmp(a->site.path, b->site.path);

	return c			     ? c
	       : a->site.line < b->site.line ? -1
					     : a->site.line > b->site.line;
}

static long lowest(uint32_t mask)
{
	for (long k = 0; k < 32; k++)
		if (mask & ((uint32_t)1 << k))
			return k;
	return -1;
}

/* The metavariable of argument i: the candidates of an ambiguous drop
 * or add share the first one's (spatch then wants them equal, as
 * rewrite_call does). */
static size_t meta_of(const struct audit_rule *r, size_t i)
{
	uint32_t m = r->drops;
	long low = lowest(m);

	if (low >= 0 && (m & ((uint32_t)1 << i)))
		return (size_t)low + 1;
	return i + 1;
}

static void cocci_rule(struct buf *b, const struct audit_rule *r)
{
	long drop = lowest(r->drops), add = lowest(r->adds);

	buf_adds(b, "@@\n");
	if (r->arity) {
		bool first = true;

		buf_adds(b, "expression");
		for (size_t i = 0; i < r->arity; i++) {
			if (meta_of(r, i) != i + 1)
				continue;
			buf_addf(b, "%s e%zu", first ? "" : ",", i + 1);
			first = false;
		}
		buf_adds(b, ";\n");
	}
	buf_addf(b, "@@\n- %s(", r->symbol);
	for (size_t i = 0; i < r->arity; i++)
		buf_addf(b, "%se%zu", i ? ", " : "", meta_of(r, i));
	buf_addf(b, ")\n+ %s(", r->new_name ? r->new_name : r->symbol);
	for (size_t i = 0, out = 0; i <= r->arity; i++) {
		if (add >= 0 && (size_t)add == i) {
			buf_addf(b, "%s%s", out ? ", " : "", r->add_text);
			out++;
		}
		if (i == r->arity)
			break;
		if (drop >= 0 && (size_t)drop == i)
			continue;
		buf_addf(b, "%se%zu", out ? ", " : "", meta_of(r, i));
		out++;
	}
	buf_adds(b, ")\n\n");
}

static void fix_init(struct audit_fix *fx, const struct audit_site *s)
{
	memset(fx, 0, sizeof(*fx));
	fx->site.path = xstrdup(s->path);
	fx->site.line = s->line;
	fx->site.func = dup_or_null(s->func);
	fx->site.symbol = xstrdup(s->symbol);
	fx->site.kind = s->kind;
	fx->site.text = dup_or_null(s->text);
}

/* A call to rewrite: an unconverted site, or the call of a caller whose
 * converting hunk conflicted (caller set), at its line in the result. */
struct todo {
	struct audit_site site; /* borrowed strings */
	const struct audit_caller *caller;
};

static int cmp_todo(const void *x, const void *y)
{
	const struct todo *a = x, *b = y;
	int c = strcmp(a->site.path, b->site.path);

	return c			     ? c
	       : a->site.line < b->site.line ? -1
					     : a->site.line > b->site.line;
}

/*
 * The line, in the carried result (tree head), of the call of caller c
 * whose converting hunk conflicted: the one use of its symbol in its
 * function there whose line reads as in the target; 0 when there is not
 * exactly one.
 */
static int result_line(size_t *line, struct tree_repo *repo,
		       const struct tree_oid *head, const struct audit_caller *c,
		       struct err *err)
{
	struct watch_set set;
	struct watch_refs refs;
	struct buf text = BUF_INIT;
	struct lines l = { 0 };
	size_t n = 0;
	bool exists;
	int error;

	*line = 0;
	watch_set_init(&set);
	watch_refs_init(&refs);
	watch_set_add(&set, c->site.symbol, WATCH_FUNCTION);
	if ((error = scan_file(&refs, &text, &exists, repo, head, c->site.path,
			       &set, err)) < 0 ||
	    !exists)
		goto out;
	lines_init(&l, text.ptr, text.len);
	for (size_t i = 0; i < refs.nr; i++) {
		const struct watch_ref *ref = &refs.v[i];
		char *t;

		if (ref->kind == WATCH_REF_DECL || ref->line - 1 >= l.nr ||
		    !same_str(ref->func, c->site.func))
			continue;
		t = span_dup(span_trim(line_at(&l, ref->line - 1)));
		if (c->site.text && !strcmp(t, c->site.text) && n++ == 0)
			*line = ref->line;
		free(t);
	}
	if (n != 1)
		*line = 0;
out:
	lines_release(&l);
	buf_release(&text);
	watch_refs_release(&refs);
	watch_set_release(&set);
	return error;
}

static void fix_hunk(struct audit_fix *fx, const struct audit_caller *c)
{
	if (!c)
		return;
	fx->patch = c->patch;
	fx->file = dup_or_null(c->file);
	fx->hunk = c->hunk;
}

/*
 * What audit_suggest rewrites: the unconverted sites, and the calls of
 * the target that are not converted in the result (their converting hunk
 * conflicted, or the series never converts them and its API change did
 * not land), found in the result (those not found there once go to
 * out->left).
 */
static int gather(struct todo **todo, size_t *nr, struct audit_suggestions *out,
		  size_t *alloc_left, struct tree_repo *repo,
		  const struct tree_oid *head, const struct audit_result *a,
		  struct err *err)
{
	size_t alloc = 0;
	int error = 0;

	*todo = NULL;
	*nr = 0;
	for (size_t i = 0; i < a->nr_unconverted; i++) {
		ALLOC_GROW(*todo, *nr + 1, alloc);
		(*todo)[(*nr)++] = (struct todo){ a->unconverted[i], NULL };
	}
	for (size_t i = 0; i < a->nr_callers && !error; i++) {
		const struct audit_caller *c = &a->callers[i];
		size_t line, k;

		/* a caller only the target has is an unconverted site once
		 * the API change landed; listed here too when it did not */
		if (c->class == AUDIT_CONVERTED ||
		    c->site.kind != WATCH_REF_CALL)
			continue;
		if ((error = result_line(&line, repo, head, c, err)) < 0)
			break;
		if (!line) {
			struct audit_fix *fx;

			ALLOC_GROW(out->left, out->nr_left + 1, *alloc_left);
			fx = &out->left[out->nr_left++];
			fix_init(fx, &c->site);
			fix_hunk(fx, c);
			fx->why = xstrfmt("%sthe carried result does not have "
					  "the call once as the target has it",
					  c->class == AUDIT_CONFLICTED
						  ? "its converting hunk "
						    "conflicted, and "
						  : "");
			continue;
		}
		for (k = 0; k < *nr; k++)
			if (!strcmp((*todo)[k].site.path, c->site.path) &&
			    (*todo)[k].site.line == line)
				break;
		if (k == *nr) {
			ALLOC_GROW(*todo, *nr + 1, alloc);
			(*todo)[(*nr)++] = (struct todo){ c->site, c };
			(*todo)[k].site.line = line;
			(*todo)[k].site.base_line = c->site.line;
		}
		(*todo)[k].caller = c;
	}
	if (*nr)
		qsort(*todo, *nr, sizeof(**todo), cmp_todo);
	return error;
}

int audit_suggest(struct audit_suggestions *out, struct tree_repo *repo,
		  const struct series_version *v, const struct carry_result *cr,
		  const struct audit_result *a, const struct audit_opts *opts,
		  struct err *err)
{
	struct tree_oid head;
	struct buf text = BUF_INIT, edited = BUF_INIT;
	struct todo *todo = NULL;
	size_t nw, alloc = 0, alloc_left = 0, nr_todo = 0;
	const char *const *w = watched_files(opts, &nw);
	int error = 0;

	memset(out, 0, sizeof(*out));
	buf_init(&out->patch, 0);
	buf_init(&out->cocci, 0);
	learn_rules(out, v, w, nw, a);
	for (size_t i = 0; i < out->nr_rules; i++) {
		const struct audit_rule *r = &out->rules[i];

		buf_addf(&out->cocci,
			 "// %s: learned from %zu converted call%s "
			 "of the series\n",
			 r->symbol, r->examples, r->examples == 1 ? "" : "s");
		cocci_rule(&out->cocci, r);
	}
	if ((error = tree_commit_tree(&head, repo, &cr->head, err)) < 0 ||
	    (error = gather(&todo, &nr_todo, out, &alloc_left, repo, &head, a,
			    err)) < 0)
		goto out;
	/* file by file, the unconverted calls, last first */
	for (size_t i = 0; i < nr_todo && !error;) {
		const char *path = todo[i].site.path;
		size_t j = i, first_fix = out->nr_fixes;
		bool exists;

		while (j < nr_todo && !strcmp(todo[j].site.path, path))
			j++;
		if ((error = tree_read_file(&text, &exists, NULL, repo, &head,
					    path, err)) < 0)
			break;
		buf_reset(&edited);
		buf_add(&edited, text.ptr, text.len);
		for (size_t k = j; k-- > i;) {
			const struct audit_site *s = &todo[k].site;
			const struct audit_rule *r = NULL;
			struct call c;
			struct audit_fix *fx;
			char *new_call, *why;
			size_t off;

			for (size_t q = 0; q < out->nr_rules && !r; q++)
				if (!strcmp(out->rules[q].symbol, s->symbol))
					r = &out->rules[q];
			off = line_offset(edited.ptr, edited.len, s->line);
			why = NULL;
			new_call = NULL;
			if (!r)
				why = xstrfmt("the series' converted calls "
					      "show no one conversion of %s",
					      s->symbol);
			else if (s->kind != WATCH_REF_CALL ||
				 !find_call(&c, edited.ptr, edited.len, off,
					    s->symbol))
				why = xstrdup("not a call");
			else if (c.nargs != r->arity)
				why = xstrfmt("%zu argument%s, the series' "
					      "calls have %zu",
					      c.nargs, c.nargs == 1 ? "" : "s",
					      r->arity);
			else if (!(new_call = rewrite_call(r, edited.ptr, &c)))
				why = xstrdup("the series' calls do not tell "
					      "which argument goes");
			if (why) {
				ALLOC_GROW(out->left, out->nr_left + 1,
					   alloc_left);
				fx = &out->left[out->nr_left++];
				fix_init(fx, s);
				fix_hunk(fx, todo[k].caller);
				fx->why = why;
				continue;
			}
			ALLOC_GROW(out->fixes, out->nr_fixes + 1, alloc);
			fx = &out->fixes[out->nr_fixes++];
			fix_init(fx, s);
			fix_hunk(fx, todo[k].caller);
			fx->old_call = xstrndup(edited.ptr + c.start,
						c.close + 1 - c.start);
			fx->new_call = xstrdup(new_call);
			{
				struct buf b = BUF_INIT;

				buf_add(&b, edited.ptr, c.start);
				buf_adds(&b, new_call);
				buf_add(&b, edited.ptr + c.close + 1,
					edited.len - c.close - 1);
				buf_swap(&b, &edited);
				buf_release(&b);
			}
			free(new_call);
		}
		if (out->nr_fixes > first_fix)
			error = tree_diff_unified(
				&out->patch, path,
				(struct span){ text.ptr, text.len },
				(struct span){ edited.ptr, edited.len }, err);
		i = j;
	}
	if (out->nr_fixes)
		qsort(out->fixes, out->nr_fixes, sizeof(*out->fixes), cmp_fix);
	if (out->nr_left)
		qsort(out->left, out->nr_left, sizeof(*out->left), cmp_fix);
out:
	free(todo);
	buf_release(&text);
	buf_release(&edited);
	if (error < 0)
		audit_suggestions_release(out);
	return error;
}

static void fixes_free(struct audit_fix *f, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		site_release(&f[i].site);
		free(f[i].file);
		free(f[i].old_call);
		free(f[i].new_call);
		free(f[i].why);
	}
	free(f);
}

void audit_suggestions_release(struct audit_suggestions *s)
{
	for (size_t i = 0; i < s->nr_rules; i++)
		rule_release(&s->rules[i]);
	free(s->rules);
	fixes_free(s->fixes, s->nr_fixes);
	fixes_free(s->left, s->nr_left);
	buf_release(&s->patch);
	buf_release(&s->cocci);
	memset(s, 0, sizeof(*s));
}

/* ---- the series' conversions for the apply path (adapt_conv.c) ---- */

int audit_learn(struct audit_rule **rules, size_t *nr,
		const struct series_version *v, const struct audit_opts *opts,
		struct err *err)
{
	struct audit_result a;
	struct audit_suggestions s;
	struct watch_exports none;
	size_t nw;
	const char *const *w = watched_files(opts, &nw);
	int error;

	*rules = NULL;
	*nr = 0;
	memset(&a, 0, sizeof(a));
	memset(&s, 0, sizeof(s));
	watch_exports_init(&none);
	error = find_intents(&a, v, w, nw, &none, err);
	/* no API change of the watched files: nothing to learn, and the
	 * hunks of a long series are not read again */
	if (!error && a.nr_intents) {
		learn_rules(&s, v, w, nw, &a);
		*rules = s.rules;
		*nr = s.nr_rules;
	}
	watch_exports_release(&none);
	audit_result_release(&a);
	return error;
}

void audit_rules_free(struct audit_rule *rules, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		rule_release(&rules[i]);
	free(rules);
}

bool audit_find_call(size_t *start, size_t *end, size_t *nargs,
		     struct span text, size_t from, const char *name)
{
	struct call c;

	if (!find_call(&c, text.ptr, text.len, from, name))
		return false;
	*start = c.start;
	*end = c.close + 1;
	*nargs = c.nargs;
	return true;
}

bool audit_rule_rewrite(struct buf *out, size_t *n, char **why,
			const struct audit_rule *r, struct span text)
{
	struct call c;
	size_t from = 0;

	buf_reset(out);
	*n = 0;
	*why = NULL;
	while (find_call(&c, text.ptr, text.len, from, r->symbol)) {
		char *call;

		if (c.nargs != r->arity) {
			*why = xstrfmt("its call of %s() has %zu argument%s, "
				       "the series' converted calls %zu",
				       r->symbol, c.nargs,
				       c.nargs == 1 ? "" : "s", r->arity);
			return false;
		}
		if (!(call = rewrite_call(r, text.ptr, &c))) {
			*why = xstrfmt("the series' calls of %s() do not "
				       "tell which argument goes",
				       r->symbol);
			return false;
		}
		buf_add(out, text.ptr + from, c.start - from);
		buf_adds(out, call);
		free(call);
		from = c.close + 1;
		(*n)++;
	}
	buf_add(out, text.ptr + from, text.len - from);
	return true;
}

void audit_rule_text(struct buf *out, const struct audit_rule *r)
{
	long k;

	buf_addf(out, "%s()", r->symbol);
	if (r->new_name)
		buf_addf(out, " renamed %s()", r->new_name);
	if (r->drops && (k = lowest(r->drops)) >= 0)
		buf_addf(out, "%s argument %ld of %zu dropped",
			 r->new_name ? "," : "", k + 1, r->arity);
	if (r->adds && (k = lowest(r->adds)) >= 0)
		buf_addf(out, "%s '%s' added as argument %ld",
			 r->new_name ? "," : "", r->add_text, k + 1);
	buf_addf(out, " (learned from %zu converted call%s)", r->examples,
		 r->examples == 1 ? "" : "s");
}
