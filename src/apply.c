/*
 * apply: hunk placement in memory.
 *
 * How a file patch is placed (the choices behind DESIGN.md's rules):
 *
 * Lines are compared byte for byte, the presence of the final newline
 * included, as GNU patch does without -l.  Hunks are placed in order on the
 * target's original lines: hunk k is looked for at its stated line plus the
 * offset of the last hunk placed, and only after the lines hunk k-1 changed.
 *
 * For each fuzz level f = 0..min(opts->fuzz, context) (GNU patch's rule for
 * which outer context lines are dropped, including its anchoring of hunks
 * with uneven context to the start or end of the file), every place in the
 * whole file where the preimage matches, and every place where the
 * postimage matches, is a candidate.  Candidates inside the function the
 * hunk header names come first, then the nearest, then the preimage, then
 * the later line (GNU tries +offset before -offset).  A postimage candidate
 * makes the hunk RULE_ALREADY.
 *
 * "Inside the function": the nearest line above the landing that starts
 * with a letter or '_' (jump labels skipped) is the line the section shows,
 * compared as a prefix since git cuts sections at 80 bytes and diff -p at
 * 40, or defines the same complete name.  A hunk whose kept leading context
 * holds such a line itself needs no section, nor does a match whose
 * changed lines (or context between changes) hold such a line found once
 * in the target (that line places it: self_place()).
 * Sections that are labels, declarations ("...;", "extern ...") or in
 * files without functions (only .c, .h and Kconfig files have them) name
 * nothing.
 *
 * Stricter than GNU patch, so as never to be silently wrong:
 *  - a fuzzed match must keep context on both sides of an insertion and a
 *    line that is more than punctuation, and must be the only candidate as
 *    good as it, or fuzzing stops;
 *  - a match outside the named function is not taken while the target has
 *    that function: the hunk goes on to 3-way inside it, and conflicts when
 *    that fails (with opts->no_3way it lands where GNU patch puts it, as a
 *    risk);
 *  - a match at any rule whose added lines, holding a line found once in
 *    the file, already sit just beside it in the same function is
 *    RULE_ALREADY with risk, not applied twice (context drifted after the
 *    change went in); exact and offset matches need two significant added
 *    lines for that; lines that are there with other comments or blanks,
 *    the code the same, count as there;
 *  - a hunk nothing places whose whole result stands in the file but for
 *    comments or whitespace (an added line there with its own comment
 *    splits the context) is RULE_ALREADY with risk, not a conflict; a
 *    hunk that changes only comments never is;
 *  - a hunk adding a definition of a function the target already defines,
 *    which the patch does not remove, is a risk (two definitions);
 *  - a hunk whose added "#ifdef M" stands, in the file's result, under
 *    the target's own opposite test of M is a risk (a branch never built);
 *  - wherever kcarry's choice differs from GNU patch's (a nearer match in
 *    another function, an already-applied verdict while the preimage also
 *    matches, a fuzzier reading of the other image), or the landing is
 *    outside the named function (an exact match at the stated line aside),
 *    risk is set and the reason names both places.
 *
 * 3-way with the preimage blob: read only when some hunk conflicted,
 * fuzzed or is a risk; when the patch applies to the blob exactly, the
 * whole file is merged (base: blob, ours: target, theirs: blob patched).
 * A clean merge is the result: those hunks become RULE_3WAY, the others
 * keep their rule.  A conflicting merge leaves the per-hunk result (no
 * hunk-level 3-way then: the true base says the change conflicts), with the
 * merge's diff3 text as out under opts->markers.
 *
 * 3-way at hunk level (no usable blob, second pass): the region of the
 * target is the best local alignment of the preimage (Smith-Waterman over
 * lines, near the expected place, or inside the named function when the
 * target has it), widened to cover the preimage's unaligned ends, with at
 * least half of the preimage aligned; libgit2 merges (preimage, region,
 * postimage).  Clean: RULE_3WAY_HUNK, or RULE_ALREADY when the result is
 * the region.  Not clean: a conflict, with the diff3 text in out under
 * opts->markers.  A region outside the named function (the target lacks
 * it) is a risk however the hunk is placed, as for the other rules; so is
 * a clean merge whose result GNU patch's placement would not give.
 *
 * Without markers, out holds the target with every hunk that did apply.
 */
#include "apply.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "adapt_conv.h"
#include "already.h"
#include "ctok.h"
#include "cursor.h"
#include "lex.h"
#include "strmap.h"
#include "tree.h"

/* One line of a text: bytes without the LF, and whether an LF follows. */
struct line {
	const char *ptr;
	size_t len;
	bool eol;
	uint32_t hash;
};

struct lines {
	struct line *v;
	size_t nr, alloc;
};

/* What one hunk looks for: its preimage and postimage as lines. */
struct pat {
	const struct patch_hunk *h;
	struct lines pre, post;
	size_t lead, trail; /* context lines before the first/after the last change */
	bool changes;       /* the hunk adds or removes a line */
	long stated;        /* 0-based index of the place the header states */
	char *func;         /* the function the header names, or NULL */
	struct span section; /* the header's section, trimmed */
	bool func_whole;    /* func is not cut short ("foo(" was seen) */
	long anchor;        /* last funcname line of the leading context, or
			     * -1: the hunk shows its function itself */
	bool moved_out;     /* the named function, defined in the target,
			     * holds none of the hunk's lines: its code went
			     * elsewhere (code_moved_out()) */
	bool body_moved;    /* moved_out, for a hunk in a body (in_body()):
			     * a postimage anywhere counts as inside */
	bool next_def;      /* a new entry placed by the definition line
			     * after it (placed_by_next_def()) */
	long self_pre, self_post; /* the first line of that image between
				   * its outer context lines that starts a
				   * definition or declaration found once
				   * in the target (it places the image by
				   * itself), or -1 */
	bool alias_done;    /* similar looked for */
	char *alias;        /* the target's function like func, when the
			     * target lacks func */
	unsigned alias_pct;
};

/* A hunk's result in the output: target lines [start, end) become text. */
struct place {
	bool set;
	size_t start, end;
	struct buf text;
};

/* A fuzz level: lines dropped at each end, anchors at the file's ends. */
struct level {
	size_t pfx, sfx;
	bool at_start, at_end;
};

struct cand {
	size_t pos; /* where the pattern's first line lands */
	bool post;  /* the postimage matched there */
	bool in_func;
	size_t dist;
};

struct cands {
	struct cand *v;
	size_t nr, alloc;
};

struct engine {
	const struct patch_file *f;
	const struct apply_opts *opts;
	struct span old;
	struct lines t;
	long *fn_func; /* nearest funcname line at or above i, or -1; jump
			* labels are skipped (as the kernel's diff=cpp does) */
	char **ident;  /* identifier of line i, filled on demand */
	unsigned char *ident_done;
	struct pat *pats;
	struct place *pl;
	struct apply_hunk_result *hr;
	bool hunk3;     /* RULE_3WAY_HUNK may be tried */
	size_t min_pos; /* the next hunk's kept lines start at or after this */
	long last_offset;
	struct file_codes *codes; /* the whole target as codes, on demand */
	struct def_pair *defs; /* definitions judged once every hunk stands */
	size_t nr_defs, alloc_defs;
	struct rival_claim *rivals; /* other readings, judged so too */
	size_t nr_rivals, alloc_rivals;
	struct line_index *index; /* its lines by hash, on demand */
	struct err *err;
};

struct line_index {
	size_t *head; /* per slot: the first line of one hash, or -1 */
	size_t *next; /* per line: the next line of its hash, or -1 */
	size_t mask;
};

static const struct tree_merge_labels merge_labels = {
	"patch preimage", "target", "patch"
};

/*
 * Pairs of lines (or of their codes) compared, for apply_comparisons():
 * a measure for tests, not state that placement reads.  One per thread,
 * as check carries onto several targets at once.
 */
static _Thread_local size_t compared;

size_t apply_comparisons(void)
{
	return compared;
}

/* --- lines ------------------------------------------------------------ */

/*
 * A line's hash, eight bytes a step (every line of every file a series
 * touches is hashed: a byte a step was a tenth of an apply).  Only
 * compared within one run, never stored, so the byte order may differ
 * between machines.
 */
static uint32_t line_hash(const char *p, size_t len, bool eol)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ len, w;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	if (i < len) {
		w = 0;
		memcpy(&w, p + i, len - i);
		h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
	}
	h ^= h >> 29;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 32;
	return (uint32_t)h ^ (eol ? 0 : 0x9e3779b9u);
}

static void lines_add(struct lines *l, const char *p, size_t len, bool eol)
{
	ALLOC_GROW(l->v, l->nr + 1, l->alloc);
	l->v[l->nr].ptr = p;
	l->v[l->nr].len = len;
	l->v[l->nr].eol = eol;
	l->v[l->nr].hash = line_hash(p, len, eol);
	l->nr++;
}

static void lines_split(struct lines *l, struct span s)
{
	struct cursor c;
	struct span line, full;

	cursor_init(&c, s.ptr ? s.ptr : "", s.len);
	while (cursor_next(&c, &line, &full))
		lines_add(l, line.ptr, line.len, full.len > line.len);
}

static void lines_release(struct lines *l)
{
	free(l->v);
	l->v = NULL;
	l->nr = l->alloc = 0;
}

static inline bool line_eq(const struct line *a, const struct line *b)
{
	compared++;
	return a->hash == b->hash && a->len == b->len && a->eol == b->eol &&
	       !memcmp(a->ptr, b->ptr, a->len);
}

static void add_line(struct buf *b, const struct line *l)
{
	buf_add(b, l->ptr, l->len);
	if (l->eol)
		buf_addc(b, '\n');
}

static void join_lines(struct buf *b, const struct lines *l, size_t from,
		       size_t to)
{
	size_t i;

	for (i = from; i < to; i++)
		add_line(b, &l->v[i]);
}

/* Bytes of target lines [from, to), exactly as in the target. */
static struct span target_span(const struct engine *e, size_t from, size_t to)
{
	const struct line *last;

	if (from >= to)
		return (struct span){ "", 0 };
	last = &e->t.v[to - 1];
	return (struct span){ e->t.v[from].ptr,
			      (size_t)(last->ptr + last->len + last->eol -
				       e->t.v[from].ptr) };
}

/*
 * Append bytes the way GNU patch writes its output: a line that lacked its
 * final newline gets one when more text follows.
 */
static void out_add(struct buf *out, const char *p, size_t len)
{
	if (!len)
		return;
	if (out->len && out->ptr[out->len - 1] != '\n')
		buf_addc(out, '\n');
	buf_add(out, p, len);
}

/* A line worth anchoring on: more than blanks and punctuation. */
static bool significant(const struct line *l)
{
	size_t i, alnum = 0;

	for (i = 0; i < l->len; i++)
		if (isalnum((unsigned char)l->ptr[i]) || l->ptr[i] == '_')
			alnum++;
	return alnum >= 2;
}

static bool adds_significant(const struct patch_hunk *h)
{
	for (size_t i = 0; i < h->nr_lines; i++) {
		struct line l = { h->lines[i].text.ptr, h->lines[i].text.len,
				  true, 0 };

		if (h->lines[i].kind == '+' && significant(&l))
			return true;
	}
	return false;
}

/* --- function names ------------------------------------------------------ */

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

static bool funcname_line(const char *p, size_t len)
{
	return len && (isalpha((unsigned char)p[0]) || p[0] == '_' ||
		       p[0] == '$');
}

/*
 * A jump label alone on its line ("out:"): git's default rule takes it for
 * a function name, the kernel's diff=cpp driver does not.
 */
static bool label_line(const char *p, size_t len)
{
	size_t i = 0, s;

	while (i < len && (p[i] == ' ' || p[i] == '\t'))
		i++;
	s = i;
	while (i < len && ident_char(p[i]))
		i++;
	if (i == s || i >= len || p[i] != ':' ||
	    (i + 1 < len && p[i + 1] == ':'))
		return false;
	for (i++; i < len && isspace((unsigned char)p[i]); i++)
		;
	return i == len ||
	       (i + 1 < len && p[i] == '/' && (p[i + 1] == '/' || p[i + 1] == '*'));
}

static bool macro_name(const char *p, size_t len)
{
	size_t i;
	bool upper = false;

	for (i = 0; i < len; i++) {
		if (islower((unsigned char)p[i]))
			return false;
		upper |= isupper((unsigned char)p[i]) != 0;
	}
	return upper;
}

/*
 * The identifier a funcname line (or a hunk header's section) names: the
 * one before '(', or before '=' or '{' for data.  Macros that define
 * functions or data ("SYSCALL_DEFINE3(ioctl, ...",
 * "BTRFS_SETGET_FUNCS(dev_item_type, ...") keep their first argument, or
 * every such line would look like the same function.
 */
static char *line_ident(const char *p, size_t len)
{
	const char *paren = memchr(p, '(', len);
	size_t end, s, a, b;

	if (label_line(p, len))
		return NULL;
	/* "int sm = IS_ENABLED(CONFIG_X);" is the variable sm */
	if (line_initializer(p, len))
		paren = NULL;
	if (paren) {
		end = (size_t)(paren - p);
		while (end > 0 && (p[end - 1] == ' ' || p[end - 1] == '\t'))
			end--;
	} else {
		const char *eq = memchr(p, '=', len);
		const char *brace = memchr(p, '{', len);

		end = eq ? (size_t)(eq - p) : brace ? (size_t)(brace - p) : len;
		while (end > 0 && !ident_char(p[end - 1]))
			end--;
	}
	for (s = end; s > 0 && ident_char(p[s - 1]); s--)
		;
	if (s == end || isdigit((unsigned char)p[s]))
		return NULL;
	if (!paren || !macro_name(p + s, end - s))
		return xstrndup(p + s, end - s);
	for (a = (size_t)(paren - p) + 1; a < len && isspace((unsigned char)p[a]); a++)
		;
	for (b = a; b < len && ident_char(p[b]); b++)
		;
	if (a == b)
		return xstrndup(p + s, end - s);
	return xstrfmt("%.*s(%.*s)", (int)(end - s), p + s, (int)(b - a), p + a);
}

/* "foo()" for functions, "SYSCALL_DEFINE3(ioctl)" for macros as named. */
static const char *call(const char *name)
{
	return strchr(name, '(') ? "" : "()";
}

static const char *ident_at(struct engine *e, long i)
{
	if (i < 0)
		return NULL;
	if (!e->ident_done[i]) {
		e->ident[i] = line_ident(e->t.v[i].ptr, e->t.v[i].len);
		e->ident_done[i] = 1;
	}
	return e->ident[i];
}

static void index_functions(struct engine *e)
{
	size_t i, n = e->t.nr;
	long func = -1;

	e->fn_func = xcalloc(n + 1, sizeof(*e->fn_func));
	e->ident = xcalloc(n + 1, sizeof(*e->ident));
	e->ident_done = xcalloc(n + 1, 1);
	for (i = 0; i < n; i++) {
		const struct line *l = &e->t.v[i];

		if (funcname_line(l->ptr, l->len) && !label_line(l->ptr, l->len))
			func = (long)i;
		e->fn_func[i] = func;
	}
}

/*
 * The function as git names it in a hunk header for a hunk whose first line
 * lands at pos: the nearest funcname line above pos.
 */
static const char *func_at(struct engine *e, size_t pos)
{
	if (pos == 0 || !e->t.nr)
		return NULL;
	if (pos > e->t.nr)
		pos = e->t.nr;
	return ident_at(e, e->fn_func[pos - 1]);
}

/*
 * Target line i is the one hunk p's header names: the section is how diff
 * printed that line (cut short perhaps), or, the name being complete, the
 * line defines the same name (its parameters may have changed).
 */
static bool names_line(struct engine *e, const struct pat *p, long i)
{
	struct span l;
	const char *id;

	if (i < 0)
		return false;
	l = span_trim((struct span){ e->t.v[i].ptr, e->t.v[i].len });
	if (l.len >= p->section.len &&
	    !memcmp(l.ptr, p->section.ptr, p->section.len))
		return true;
	id = ident_at(e, i);
	return p->func_whole && id && !strcmp(id, p->func);
}

static bool in_func(struct engine *e, const struct pat *p, size_t pos)
{
	if (!p->func)
		return true;
	if (pos == 0 || !e->t.nr)
		return false;
	if (pos > e->t.nr)
		pos = e->t.nr;
	return names_line(e, p, e->fn_func[pos - 1]);
}

static bool ends_with_semicolon(const struct line *l)
{
	size_t n = l->len;

	while (n && isspace((unsigned char)l->ptr[n - 1]))
		n--;
	return n && l->ptr[n - 1] == ';';
}

/* Line i starts a definition: a body ('{') follows before any ';'. */
static bool definition_at(const struct engine *e, size_t i)
{
	size_t j;

	if (ends_with_semicolon(&e->t.v[i]))
		return false;
	if (memchr(e->t.v[i].ptr, '{', e->t.v[i].len))
		return true;
	for (j = i + 1; j < e->t.nr && j < i + 30; j++) {
		const struct line *l = &e->t.v[j];

		if (l->len && l->ptr[0] == '{')
			return true;
		if (funcname_line(l->ptr, l->len) || ends_with_semicolon(l))
			return false;
	}
	return false;
}

/* Index of the first line at or after from that defines name, or -1. */
static long func_def_from(struct engine *e, const char *name, size_t from)
{
	size_t i;

	for (i = from; i < e->t.nr; i++) {
		const struct line *l = &e->t.v[i];
		const char *id;

		if (!funcname_line(l->ptr, l->len) || label_line(l->ptr, l->len))
			continue;
		id = ident_at(e, (long)i);
		/* a macro line ("BTRFS_SETGET_FUNCS(x, ...);") is its own
		 * definition */
		if (id && !strcmp(id, name) &&
		    (strchr(id, '(') || definition_at(e, i)))
			return (long)i;
	}
	return -1;
}

/* Index of the line defining name, or -1. */
static long func_def(struct engine *e, const char *name)
{
	return func_def_from(e, name, 0);
}

/* Where the target has the line hunk p's header names, or -1. */
static long pat_func_def(struct engine *e, const struct pat *p)
{
	size_t i;

	if (!p->func)
		return -1;
	for (i = 0; i < e->t.nr; i++) {
		const struct line *l = &e->t.v[i];

		if (funcname_line(l->ptr, l->len) &&
		    !label_line(l->ptr, l->len) && names_line(e, p, (long)i))
			return (long)i;
	}
	return -1;
}

/* One past the line closing the function defined at def. */
static size_t func_end(const struct engine *e, size_t def)
{
	size_t j;

	for (j = def + 1; j < e->t.nr; j++)
		if (e->t.v[j].len && e->t.v[j].ptr[0] == '}')
			return j + 1;
	return e->t.nr;
}

char *apply_enclosing_function(struct span text, unsigned long line)
{
	struct lines l = { NULL, 0, 0 };
	char *name = NULL;
	size_t i;

	lines_split(&l, text);
	if (line > l.nr)
		line = l.nr;
	for (i = line; i > 0 && !name; i--) {
		const struct line *x = &l.v[i - 1];

		if (funcname_line(x->ptr, x->len) && !label_line(x->ptr, x->len))
			name = line_ident(x->ptr, x->len);
	}
	lines_release(&l);
	return name;
}

/* --- patterns ---------------------------------------------------------- */

static const char *file_path(const struct patch_file *f)
{
	return f->new_path ? f->new_path : f->old_path ? f->old_path : "(none)";
}

/* Files whose sections name functions (or Kconfig entries). */
static bool has_functions(const char *path)
{
	const char *base = path ? strrchr(path, '/') : NULL;

	base = base ? base + 1 : path;
	return base && (ends_with(base, ".c") || ends_with(base, ".h") ||
			starts_with(base, "Kconfig"));
}

/*
 * The function a hunk header names, or NULL: none for an empty section, a
 * jump label (git's default rule takes "out:"), a declaration
 * ("module_init(foo);", "extern ...", a prototype: it encloses nothing),
 * a file without
 * functions (Makefiles), or a line cut short in the middle of a
 * declaration.  Sections are cut short: git keeps 80 bytes, GNU diff -p
 * (quilt) 40; *whole says the name was seen complete.
 */
static char *section_func(struct span section, const char *path, bool *whole)
{
	struct span sec = span_trim(section);
	const char *paren;
	char last;

	*whole = false;
	if (!sec.len || !funcname_line(sec.ptr, sec.len) ||
	    label_line(sec.ptr, sec.len) || !has_functions(path))
		return NULL;
	last = sec.ptr[sec.len - 1];
	paren = memchr(sec.ptr, '(', sec.len);
	if (last == ';' || span_starts_with(sec, "extern "))
		return NULL;
	/* a variable with an initializer, maybe cut short by diff -p
	 * ("int sm = IS_ENABLED(CONFIG_I"): its name is whole */
	if (line_initializer(sec.ptr, sec.len))
		*whole = true;
	else if (paren)
		*whole = !macro_name(sec.ptr, (size_t)(paren - sec.ptr)) ||
			 memchr(paren, ')', (size_t)(sec.ptr + sec.len - paren));
	else if (last == '{' || last == '=')
		*whole = true;
	else if (!ident_char(last))
		return NULL;
	return line_ident(sec.ptr, sec.len);
}

static void pat_init(struct pat *p, const struct patch_hunk *h,
		     const char *path)
{
	size_t i, nr = h->nr_lines;

	memset(p, 0, sizeof(*p));
	p->h = h;
	for (i = 0; i < nr; i++) {
		const struct patch_line *l = &h->lines[i];

		if (l->kind != '+')
			lines_add(&p->pre, l->text.ptr, l->text.len, !l->no_eol);
		if (l->kind != '-')
			lines_add(&p->post, l->text.ptr, l->text.len, !l->no_eol);
	}
	while (p->lead < nr && h->lines[p->lead].kind == ' ')
		p->lead++;
	p->changes = p->lead < nr;
	if (p->changes)
		while (h->lines[nr - 1 - p->trail].kind == ' ')
			p->trail++;
	if (h->old_count)
		p->stated = h->old_start ? (long)h->old_start - 1 : 0;
	else
		p->stated = (long)h->old_start;
	p->section = span_trim(h->section);
	p->anchor = -1;
	for (i = 0; i < p->lead; i++)
		if (funcname_line(p->pre.v[i].ptr, p->pre.v[i].len) &&
		    !label_line(p->pre.v[i].ptr, p->pre.v[i].len))
			p->anchor = (long)i;
	p->func = section_func(h->section, path, &p->func_whole);
}

static void pat_release(struct pat *p)
{
	lines_release(&p->pre);
	lines_release(&p->post);
	free(p->func);
	free(p->alias);
}

/*
 * Where the target defines the function most like the one hunk k's header
 * names, when the target lacks that one (looked for once), or -1.
 */
static long alias_def(struct engine *e, size_t k)
{
	struct pat *p = &e->pats[k];
	struct apply_hunk_result *r = &e->hr[k];

	/* only a function's head ("foo(..."), not a cut or a struct */
	if (!p->func || !memchr(p->section.ptr, '(', p->section.len) ||
	    strchr(p->func, '('))
		return -1;
	if (!p->alias_done) {
		p->alias_done = true;
		if (pat_func_def(e, p) < 0)
			cause_similar_function(&p->alias, &p->alias_pct, e->old,
					       file_path(e->f), p->h, p->func);
	}
	if (!p->alias)
		return -1;
	if (!r->similar) {
		r->similar = xstrdup(p->alias);
		r->similarity = p->alias_pct;
	}
	return func_def(e, p->alias);
}

/* GNU patch's fuzz level f; false when f drops more than the context. */
static bool make_level(const struct pat *p, unsigned f, struct level *lv)
{
	long context = (long)(p->lead > p->trail ? p->lead : p->trail);
	long pf = (long)f + (long)p->lead - context;
	long sf = (long)f + (long)p->trail - context;

	if ((long)f > context)
		return false;
	lv->at_start = pf < 0 && p->stated <= 0;
	lv->at_end = sf < 0;
	lv->pfx = pf < 0 ? 0 : (size_t)pf;
	lv->sfx = sf < 0 ? 0 : (size_t)sf;
	return lv->pfx + lv->sfx < p->pre.nr;
}

/*
 * kcarry's extra conditions on a fuzzed match: an insertion keeps context
 * on both sides (or is anchored to an end of the file), and what is left
 * holds a line that is more than punctuation.
 */
static bool fuzz_sane(const struct pat *p, const struct level *lv)
{
	size_t i;
	bool removes = p->pre.nr > p->lead + p->trail;

	if (!removes && ((p->lead <= lv->pfx && !lv->at_start) ||
			 (p->trail <= lv->sfx && !lv->at_end)))
		return false;
	for (i = lv->pfx; i < p->pre.nr - lv->sfx; i++)
		if (significant(&p->pre.v[i]))
			return true;
	return false;
}

/* --- candidates -------------------------------------------------------- */

static size_t distance(size_t a, long b)
{
	long d = (long)a - b;

	return (size_t)(d < 0 ? -d : d);
}

/*
 * Every place a pattern of m items stands in a text of n items, by
 * Knuth-Morris-Pratt: eq(ctx, a, b) compares pattern item a with text
 * item b, or, for b >= n, pattern item a with pattern item b - n.
 * Linear in n + m, where trying each place in turn cost n * m (a hunk of
 * 6,000 lines of "}" against a file of 100,000 took 23 s).  The starts,
 * in order, go to *at (a new array).
 */
static size_t kmp_all(size_t **at, size_t n, size_t m,
		      bool (*eq)(const void *ctx, size_t a, size_t b),
		      const void *ctx)
{
	size_t *fail, nr = 0, alloc = 0, q = 0, t, i;

	*at = NULL;
	if (!m || m > n)
		return 0;
	fail = xmalloc(m * sizeof(*fail));
	fail[0] = 0;
	for (i = 1; i < m;) {
		if (eq(ctx, q, n + i))
			fail[i++] = ++q;
		else if (q)
			q = fail[q - 1];
		else
			fail[i++] = 0;
	}
	for (t = 0, q = 0; t < n;) {
		if (eq(ctx, q, t)) {
			t++;
			if (++q < m)
				continue;
			ALLOC_GROW(*at, nr + 1, alloc);
			(*at)[nr++] = t - m;
			q = fail[q - 1];
		} else if (q)
			q = fail[q - 1];
		else
			t++;
	}
	free(fail);
	return nr;
}

struct line_match {
	const struct line *pat, *text;
	size_t n;
};

static bool line_match_eq(const void *vctx, size_t a, size_t b)
{
	const struct line_match *c = vctx;
	return line_eq(&c->pat[a], b < c->n ? &c->text[b] : &c->pat[b - c->n]);
}

static void add_cand(struct engine *e, const struct pat *p, bool post,
		     const struct level *lv, size_t pos, long exp,
		     struct cands *out);

static void find_cands(struct engine *e, const struct pat *p, bool post,
		       const struct level *lv, long exp, struct cands *out)
{
	const struct lines *pat = post ? &p->post : &p->pre;
	size_t m = pat->nr, n = e->t.nr, lo, hi, i;

	if (lv->pfx + lv->sfx >= m || m - lv->sfx > n)
		return;
	lo = e->min_pos > lv->pfx ? e->min_pos - lv->pfx : 0;
	hi = n - (m - lv->sfx);
	if (lv->at_start)
		hi = 0;
	if (lv->at_end) {
		if (m > n)
			return;
		if (lo < n - m)
			lo = n - m;
		if (hi > n - m)
			hi = n - m;
	}
	if (lo > hi)
		return;
	{
		/* every place the kept lines match, in the allowed range */
		struct line_match lm = { &pat->v[lv->pfx], &e->t.v[lo + lv->pfx],
					 hi - lo + m - lv->sfx - lv->pfx };
		size_t *at, nr = kmp_all(&at, lm.n, m - lv->sfx - lv->pfx,
					 line_match_eq, &lm);

		for (i = 0; i < nr; i++)
			add_cand(e, p, post, lv, lo + at[i], exp, out);
		free(at);
	}
}

static void add_cand(struct engine *e, const struct pat *p, bool post,
		     const struct level *lv, size_t pos, long exp,
		     struct cands *out)
{
	ALLOC_GROW(out->v, out->nr + 1, out->alloc);
	out->v[out->nr].pos = pos;
	out->v[out->nr].post = post;
	/* a funcname line among the kept leading context lines places the
	 * hunk by itself; the section only names the line above the hunk */
	out->v[out->nr].in_func =
		(p->anchor >= 0 && (size_t)p->anchor >= lv->pfx) ||
		(post ? p->self_post : p->self_pre) >= 0 ||
		(post && p->body_moved) ||
		(!post && p->next_def && lv->sfx < p->trail) ||
		in_func(e, p, pos);
	out->v[out->nr].dist = distance(pos, exp);
	out->nr++;
}

static bool cand_better(const struct cand *a, const struct cand *b)
{
	if (a->in_func != b->in_func)
		return a->in_func;
	if (a->dist != b->dist)
		return a->dist < b->dist;
	if (a->post != b->post)
		return !a->post;
	return a->pos > b->pos;
}

/* GNU patch's choice: nearest, +offset before -offset. */
static bool cand_nearer(const struct cand *a, const struct cand *b)
{
	if (a->dist != b->dist)
		return a->dist < b->dist;
	return a->pos > b->pos;
}

static const struct cand *best_of(const struct cands *c,
				  bool (*better)(const struct cand *,
						 const struct cand *))
{
	const struct cand *best = NULL;
	size_t i;

	for (i = 0; i < c->nr; i++)
		if (!best || better(&c->v[i], best))
			best = &c->v[i];
	return best;
}

/* Another candidate in c as good as best on function placement. */
static const struct cand *rival(const struct cands *c, const struct cand *best)
{
	size_t i;

	for (i = 0; i < c->nr; i++)
		if (c->v[i].pos != best->pos &&
		    c->v[i].in_func == best->in_func)
			return &c->v[i];
	return NULL;
}

/* Drop postimage candidates where the preimage matches too. */
static void drop_shared(struct cands *post, const struct cands *pre)
{
	size_t i, j, k = 0;

	for (i = 0; i < post->nr; i++) {
		for (j = 0; j < pre->nr; j++)
			if (pre->v[j].pos == post->v[i].pos)
				break;
		if (j == pre->nr)
			post->v[k++] = post->v[i];
	}
	post->nr = k;
}

/* --- recording ---------------------------------------------------------- */

static void add_reason(struct apply_hunk_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add_reason(struct apply_hunk_result *r, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	if (r->reason) {
		buf_adds(&b, r->reason);
		buf_adds(&b, "; ");
		free(r->reason);
	}
	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	r->reason = buf_detach(&b, NULL);
}

static const char *or_none(const char *func)
{
	return func ? func : "(none)";
}

static void set_found_func(struct engine *e, size_t k, size_t pos)
{
	const char *s = func_at(e, pos);

	free(e->hr[k].found_func);
	e->hr[k].found_func = s ? xstrdup(s) : NULL;
}

/* Replace target lines [start, end) with text (taken over). */
static void set_place(struct engine *e, size_t k, size_t start, size_t end,
		      struct buf *text)
{
	struct place *pl = &e->pl[k];

	pl->set = true;
	pl->start = start;
	pl->end = end;
	buf_swap(&pl->text, text);
	buf_release(text);
}

/*
 * The preimage matched at pos: the text its changed lines make of target
 * lines [pos + lead, returned end), the context kept as the target has it.
 */
static size_t pre_text(const struct engine *e, const struct pat *p,
		       size_t pos, struct buf *text)
{
	const struct patch_hunk *h = p->h;
	size_t i, j = pos + p->lead;

	for (i = p->lead; i < h->nr_lines - p->trail; i++) {
		const struct patch_line *l = &h->lines[i];

		if (l->kind == ' ') {
			add_line(text, &e->t.v[j++]);
		} else if (l->kind == '-') {
			j++;
		} else {
			buf_add(text, l->text.ptr, l->text.len);
			if (!l->no_eol)
				buf_addc(text, '\n');
		}
	}
	return j;
}

/* The preimage matched at pos: its changed lines become the postimage's. */
static void place_pre(struct engine *e, size_t k, size_t pos)
{
	struct buf text = BUF_INIT;
	size_t end = pre_text(e, &e->pats[k], pos, &text);

	set_place(e, k, pos + e->pats[k].lead, end, &text);
}

/* --- what the added lines say ------------------------------------------- */

static bool span_ends_with_semicolon(struct span t)
{
	while (t.len && isspace((unsigned char)t.ptr[t.len - 1]))
		t.len--;
	return t.len && t.ptr[t.len - 1] == ';';
}

/*
 * Whether the parameter list opened on line i of h closes, on the lines
 * of the same side that follow, with a ';': a forward declaration over
 * several lines.  Unknown (never closed within the hunk) is false.
 */
static bool declaration_over_lines(const struct patch_hunk *h, size_t i)
{
	char side = h->lines[i].kind;
	int depth = 0;
	bool opened = false;

	for (size_t n = 0; i < h->nr_lines && n < 16; i++) {
		const struct patch_line *l = &h->lines[i];

		if (l->kind != side && l->kind != ' ')
			continue;
		n++;
		for (size_t c = 0; c < l->text.len; c++) {
			if (l->text.ptr[c] == '(') {
				depth++;
				opened = true;
			} else if (l->text.ptr[c] == ')' && --depth == 0 && opened) {
				struct span rest = { l->text.ptr + c + 1,
						     l->text.len - c - 1 };

				return span_ends_with_semicolon(rest);
			}
		}
	}
	return false;
}

/* The function line i ('+' or '-') of h starts the definition of, or NULL. */
static char *defined_by(const struct patch_hunk *h, size_t i)
{
	const struct patch_line *l = &h->lines[i];

	if (!funcname_line(l->text.ptr, l->text.len) ||
	    label_line(l->text.ptr, l->text.len) ||
	    !memchr(l->text.ptr, '(', l->text.len) ||
	    span_ends_with_semicolon(l->text) ||
	    declaration_over_lines(h, i))
		return NULL;
	return line_ident(l->text.ptr, l->text.len);
}

/* Some line of kind in the file patch is text, blanks at either end aside
 * (a move: lines moved into a nested block are indented deeper). */
static bool patch_has_line(const struct patch_file *f, char kind,
			   struct span text)
{
	size_t k, i;

	text = span_trim(text);
	for (k = 0; k < f->nr_hunks; k++)
		for (i = 0; i < f->hunks[k].nr_lines; i++) {
			const struct patch_line *l = &f->hunks[k].lines[i];
			struct span t;

			if (l->kind != kind)
				continue;
			t = span_trim(l->text);
			if (t.len == text.len && !memcmp(t.ptr, text.ptr, t.len))
				return true;
		}
	return false;
}

/* How many lines of kind ('+', '-' or ' ') with text the file's patch
 * has, in all its hunks. */
static size_t patch_line_count(const struct patch_file *f, char kind,
			       struct span text)
{
	size_t k, i, n = 0;

	for (k = 0; k < f->nr_hunks; k++)
		for (i = 0; i < f->hunks[k].nr_lines; i++) {
			const struct patch_line *l = &f->hunks[k].lines[i];

			n += l->kind == kind && l->text.len == text.len &&
			     !memcmp(l->text.ptr, text.ptr, text.len);
		}
	return n;
}

/* A directive line's name into *name, *sub after it; false for any
 * other line.  Read with the lexer, as cnames.c and watch.c read
 * directives. */
static bool directive_open(const char *p, size_t len, struct lexer *sub,
			   struct token *name)
{
	struct lexer lx;
	struct token t;

	lexer_init(&lx, p, len, 1, p);
	lex(&lx, &t);
	if (t.type != TOK_DIRECTIVE)
		return false;
	directive_lexer(sub, &t, p);
	lex(sub, name);
	return true;
}

/* The directive a line is ("#if", "#ifdef", "#ifndef": CTOK_OP_IF, ...),
 * or -1; "#define NAME" gives its name in *macro (when macro is set). */
static int directive_line(const char *p, size_t len, struct span *macro)
{
	struct lexer sub;
	struct token t, name;
	bool is_if;

	if (!directive_open(p, len, &sub, &name))
		return -1;
	if (macro && TOK_IS(&name, "define")) {
		lex(&sub, &t);
		if (t.type == TOK_IDENT)
			*macro = (struct span){ t.p, t.len };
		return -1;
	}
	return ctok_cond_op(&name, &is_if);
}

/* The file patch removes a definition of name (it moves or rewrites it):
 * a line defining it, or a "#define name" (a macro made a function). */
static bool patch_removes_def(const struct patch_file *f, const char *name)
{
	size_t k, i;
	bool found = false;

	for (k = 0; k < f->nr_hunks && !found; k++)
		for (i = 0; i < f->hunks[k].nr_lines && !found; i++) {
			const struct patch_line *l = &f->hunks[k].lines[i];
			struct span macro = { NULL, 0 };
			char *id;

			if (l->kind != '-')
				continue;
			directive_line(l->text.ptr, l->text.len, &macro);
			if (macro.len && strlen(name) == macro.len &&
			    !memcmp(name, macro.ptr, macro.len))
				return true;
			id = defined_by(&f->hunks[k], i);
			found = id && !strcmp(id, name);
			free(id);
		}
	return found;
}

/*
 * The file as it reads with every hunk's place taken (the target's lines
 * between the places, each place's text): enough to see the preprocessor
 * branches the hunks open or close.
 */
struct placed_view {
	struct lines all;
	size_t *base;  /* where place k's text starts in all */
	size_t *nr;    /* how many lines it has */
	long *tmap;    /* target line d's index in all, -1 inside a place */
};

static void view_init(struct placed_view *v, const struct engine *e)
{
	size_t cur = 0, d;

	memset(v, 0, sizeof(*v));
	v->base = xcalloc(e->f->nr_hunks + 1, sizeof(*v->base));
	v->nr = xcalloc(e->f->nr_hunks + 1, sizeof(*v->nr));
	v->tmap = xcalloc(e->t.nr + 1, sizeof(*v->tmap));
	for (size_t k = 0; k < e->f->nr_hunks; k++) {
		const struct place *pl = &e->pl[k];

		if (!pl->set || pl->start < cur)
			continue;
		for (d = cur; d < pl->start; d++) {
			v->tmap[d] = (long)v->all.nr;
			lines_add(&v->all, e->t.v[d].ptr, e->t.v[d].len,
				  e->t.v[d].eol);
		}
		v->base[k] = v->all.nr;
		lines_split(&v->all, (struct span){ pl->text.ptr, pl->text.len });
		v->nr[k] = v->all.nr - v->base[k];
		for (; d < pl->end; d++)
			v->tmap[d] = -1;
		cur = pl->end;
	}
	for (d = cur; d < e->t.nr; d++) {
		v->tmap[d] = (long)v->all.nr;
		lines_add(&v->all, e->t.v[d].ptr, e->t.v[d].len, e->t.v[d].eol);
	}
}

static void view_release(struct placed_view *v)
{
	lines_release(&v->all);
	free(v->base);
	free(v->nr);
	free(v->tmap);
}

/*
 * Target line d's index in the view.  For a line some place replaced:
 * where that hunk's own line for it went (a context line kept, or -2 for
 * one it removes) when the place is the hunk's lines (pre_text()); else
 * the one line of the place's text like it (-1: several, -2: none, the
 * place removed it).
 */
static long view_index(const struct engine *e, const struct placed_view *v,
		       size_t d)
{
	const struct line *t = &e->t.v[d];
	const struct pat *p = NULL;
	size_t k, old, j = 0;
	long at = -2;

	if (v->tmap[d] >= 0)
		return v->tmap[d];
	for (k = 0; k < e->f->nr_hunks && !p; k++)
		if (e->pl[k].set && e->pl[k].start <= d && d < e->pl[k].end)
			p = &e->pats[k];
	if (!p)
		return -1;
	k--;
	old = e->pl[k].start;
	for (size_t n = p->lead; n + p->trail < p->h->nr_lines; n++) {
		const struct patch_line *l = &p->h->lines[n];

		if (l->kind != '+' && old++ == d) {
			if (l->kind == '-' && l->text.len == t->len &&
			    !memcmp(l->text.ptr, t->ptr, t->len))
				return -2;
			if (l->kind == ' ' && j < v->nr[k] &&
			    line_eq(&v->all.v[v->base[k] + j], t))
				return (long)(v->base[k] + j);
			break;
		}
		j += l->kind != '-';
	}
	for (j = 0; j < v->nr[k]; j++)
		if (line_eq(&v->all.v[v->base[k] + j], t))
			at = at == -2 ? (long)(v->base[k] + j) : -1;
	return at;
}

#define MAX_COND 32

/* The preprocessor branches line j of the view is in, outermost first:
 * the line of each open "#if" and the branch's number under it. */
static size_t cond_path(const struct placed_view *v, size_t j, size_t *at,
			unsigned *branch)
{
	size_t depth = 0, over = 0;

	for (size_t i = 0; i < j; i++) {
		const struct line *l = &v->all.v[i];

		switch (directive_line(l->ptr, l->len, NULL)) {
		case CTOK_OP_IF:
			if (depth < MAX_COND) {
				at[depth] = i;
				branch[depth++] = 0;
			} else {
				over++;
			}
			break;
		case CTOK_OP_ELIF:
		case CTOK_OP_ELSE:
			if (!over && depth)
				branch[depth - 1]++;
			break;
		case CTOK_OP_ENDIF:
			if (over)
				over--;
			else if (depth)
				depth--;
			break;
		}
	}
	return depth;
}

/* Lines a and b of the view are in two branches of one "#if": never
 * compiled together. */
static bool other_branches(const struct placed_view *v, size_t a, size_t b)
{
	size_t at_a[MAX_COND], at_b[MAX_COND], na, nb;
	unsigned br_a[MAX_COND], br_b[MAX_COND];

	na = cond_path(v, a, at_a, br_a);
	nb = cond_path(v, b, at_b, br_b);
	for (size_t i = 0; i < na && i < nb && at_a[i] == at_b[i]; i++)
		if (br_a[i] != br_b[i])
			return true;
	return false;
}

/* Where added line i of hunk k stands in the view, or -1. */
static long added_in_view(const struct engine *e, size_t k, size_t i,
			  const struct placed_view *v)
{
	const struct pat *p = &e->pats[k];
	const struct patch_line *l = &p->h->lines[i];
	const struct line *text = v->all.v + v->base[k];
	size_t j = 0, n, found = 0;
	long at = -1;

	if (!e->pl[k].set)
		return -1;
	/* the place's text is the hunk's lines from the first change on,
	 * without the removed ones (pre_text()) */
	for (n = p->lead; n < i; n++)
		j += p->h->lines[n].kind != '-';
	if (i >= p->lead && j < v->nr[k] && text[j].len == l->text.len &&
	    !memcmp(text[j].ptr, l->text.ptr, l->text.len))
		return (long)(v->base[k] + j);
	/* a merge wrote it otherwise: the one line of the text like it */
	for (j = 0; j < v->nr[k]; j++)
		if (text[j].len == l->text.len &&
		    !memcmp(text[j].ptr, l->text.ptr, l->text.len)) {
			found++;
			at = (long)(v->base[k] + j);
		}
	return found == 1 ? at : -1;
}

/* The macro call a line makes, from its name to the ')' closing it (or
 * the line's end), spaces aside, is the same on both lines. */
static bool same_macro_call(const char *a, size_t alen, const char *b,
			    size_t blen, const char *name)
{
	size_t nl = strcspn(name, "(");
	const char *pa = NULL, *pb = NULL;
	int depth = 0;

	for (size_t i = 0; i + nl <= alen && !pa; i++)
		if (!memcmp(a + i, name, nl))
			pa = a + i;
	for (size_t i = 0; i + nl <= blen && !pb; i++)
		if (!memcmp(b + i, name, nl))
			pb = b + i;
	if (!pa || !pb)
		return false;
	alen -= (size_t)(pa - a);
	blen -= (size_t)(pb - b);
	for (size_t i = 0, j = 0;; i++, j++) {
		while (i < alen && isspace((unsigned char)pa[i]))
			i++;
		while (j < blen && isspace((unsigned char)pb[j]))
			j++;
		if (i == alen || j == blen)
			return i == alen && j == blen;
		if (pa[i] != pb[j])
			return false;
		if (pa[i] == '(')
			depth++;
		else if (pa[i] == ')' && --depth == 0)
			return true;
	}
}

/* Added line i of hunk k defines id, as target line d does. */
struct def_pair {
	size_t k, i, d;
	char *id;
};

/*
 * A hunk that adds a definition of a function the target already defines
 * (and the patch does not remove) makes two of them: the target has it in
 * another form, from a later version of the same change perhaps.  Each
 * such pair is judged once every hunk of the file stands (judge_defs()):
 * the hunks may open and close preprocessor branches between the two.
 * For a name a macro makes ("DEFINE_PER_CPU(struct)", whose first
 * argument is a type), only a call with the same arguments is a pair.
 */
static void check_definitions(struct engine *e, size_t k)
{
	const struct patch_hunk *h = e->pats[k].h;

	for (size_t i = 0; i < h->nr_lines; i++) {
		const struct patch_line *l = &h->lines[i];
		char *id;

		if (l->kind != '+' || !(id = defined_by(h, i)))
			continue;
		if (patch_removes_def(e->f, id)) {
			free(id);
			continue;
		}
		for (long d = func_def(e, id); d >= 0;
		     d = func_def_from(e, id, (size_t)d + 1)) {
			const struct line *t = &e->t.v[d];

			if (strchr(id, '(') &&
			    !same_macro_call(l->text.ptr, l->text.len, t->ptr,
					     t->len, id))
				continue;
			ALLOC_GROW(e->defs, e->nr_defs + 1, e->alloc_defs);
			e->defs[e->nr_defs++] = (struct def_pair){
				k, i, (size_t)d, xstrdup(id) };
		}
		free(id);
	}
}

static void drop_defs(struct engine *e)
{
	for (size_t n = 0; n < e->nr_defs; n++)
		free(e->defs[n].id);
	e->nr_defs = 0;
}

/*
 * The pairs check_definitions() found, with every hunk in its place: a
 * risk unless the target's line is one a hunk removes, or the two stand
 * in two branches of one "#if" (RT adds its own under an "#ifdef
 * CONFIG_PREEMPT_RT ... #else" before the target's).  One reason per
 * added line, naming the first such definition.
 */
static void judge_defs(struct engine *e)
{
	const struct def_pair *said = NULL;
	struct placed_view v;

	if (!e->nr_defs)
		return;
	view_init(&v, e);
	for (size_t n = 0; n < e->nr_defs; n++) {
		const struct def_pair *dp = &e->defs[n];
		struct apply_hunk_result *r = &e->hr[dp->k];
		long at, vd;

		/* one reason per added line (its pairs come together) */
		if (!e->pl[dp->k].set ||
		    (said && said->k == dp->k && said->i == dp->i))
			continue;
		at = added_in_view(e, dp->k, dp->i, &v);
		vd = view_index(e, &v, dp->d);
		if (vd == -2)
			continue; /* a hunk removes it */
		if (at >= 0 && vd >= 0 &&
		    other_branches(&v, (size_t)at, (size_t)vd))
			continue;
		r->risk = true;
		add_reason(r, "adds %s%s, which the target already defines at line %zu",
			   dp->id, call(dp->id), dp->d + 1);
		said = dp;
	}
	view_release(&v);
	drop_defs(e);
}

/*
 * The one macro a conditional directive tests, and what it asks of it:
 * 1 for "#ifdef M", "#if defined(M)", "#elif defined M"; -1 for
 * "#ifndef M", "#if !defined(M)"; 0 for anything else (an expression,
 * IS_ENABLED(), #else, #endif).
 */
static int macro_test(const char *p, size_t len, struct span *macro)
{
	struct lexer sub;
	struct token t, name;
	bool paren = false;
	int want = 1;

	if (!directive_open(p, len, &sub, &name))
		return 0;
	if (TOK_IS(&name, "ifdef") || TOK_IS(&name, "ifndef")) {
		want = TOK_IS(&name, "ifdef") ? 1 : -1;
		lex(&sub, &t);
	} else if (TOK_IS(&name, "if") || TOK_IS(&name, "elif")) {
		lex(&sub, &t);
		if (tok_punct(&t, '!')) {
			want = -1;
			lex(&sub, &t);
		}
		if (t.type != TOK_IDENT || !TOK_IS(&t, "defined"))
			return 0;
		lex(&sub, &t);
		if (tok_punct(&t, '(')) {
			paren = true;
			lex(&sub, &t);
		}
	} else {
		return 0;
	}
	if (t.type != TOK_IDENT)
		return 0;
	*macro = (struct span){ t.p, t.len };
	if (paren) {
		lex(&sub, &t);
		if (!tok_punct(&t, ')'))
			return 0;
	}
	lex(&sub, &t);
	return t.type == TOK_EOF ? want : 0;
}

/* An "#if" open at some line of a text, and its branch there. */
struct open_if {
	size_t at;   /* the #if's line */
	unsigned br; /* 0: its own; n: after its n-th #elif or #else */
	size_t from; /* the line that starts the branch */
};

/*
 * What the branch of o asks of one macro, as macro_test() says: the #if's
 * own test for the first branch, an #elif's test for its branch, the
 * #if's reversed for an "#else" right after it; 0 when the branch's
 * condition is more than that.
 */
static int branch_test(const struct lines *all, const struct open_if *o,
		       struct span *macro)
{
	const struct line *l = &all->v[o->at], *f = &all->v[o->from];

	if (!o->br)
		return macro_test(l->ptr, l->len, macro);
	if (directive_line(f->ptr, f->len, NULL) == CTOK_OP_ELIF)
		return macro_test(f->ptr, f->len, macro);
	return o->br == 1 ? -macro_test(l->ptr, l->len, macro) : 0;
}

/* Hunk h adds the line p (len bytes). */
static bool hunk_adds(const struct patch_hunk *h, const char *p, size_t len)
{
	for (size_t i = 0; i < h->nr_lines; i++)
		if (h->lines[i].kind == '+' && h->lines[i].text.len == len &&
		    !memcmp(h->lines[i].text.ptr, p, len))
			return true;
	return false;
}

static bool hunk_landed(const struct apply_hunk_result *r)
{
	return r->rule != RULE_CONFLICT && r->rule != RULE_ALREADY;
}

/*
 * A hunk that adds "#ifdef M" (or "#ifndef M", "#if defined(M)", an
 * #elif of them) where the result already stands under the target's own
 * opposite test of M: what the new branch guards is never built, which
 * says the target has the change in another form.  5.10's RT "Add local
 * irq locks" onto 6.1 merges cleanly and puts its PREEMPT_RT locks inside
 * 6.1's "#ifndef CONFIG_PREEMPT_RT", where RT has its own.  A risk, judged
 * on the file's result (a merge wrote it, or the hunks placed): its lines
 * the target lacks are the added ones (a line diff says which).
 */
static int judge_dead_branches(struct apply_file_result *res,
			       const struct engine *e, struct err *err)
{
	const struct patch_file *f = e->f;
	struct tree_line_hunk *dh = NULL;
	struct lines ml = { NULL, 0, 0 };
	bool any = false, *added = NULL, *new = NULL;
	struct open_if *open = NULL;
	size_t k, i, nr_dh = 0, nr_open = 0, alloc_open = 0;
	int error;

	for (k = 0; k < f->nr_hunks && !any; k++) {
		if (!hunk_landed(&res->hunks[k]))
			continue;
		for (i = 0; i < f->hunks[k].nr_lines && !any; i++) {
			const struct patch_line *l = &f->hunks[k].lines[i];
			struct span m;

			any = l->kind == '+' &&
			      macro_test(l->text.ptr, l->text.len, &m);
		}
	}
	if (!any)
		return 0;
	if ((error = tree_diff_lines(&dh, &nr_dh, e->old,
				     (struct span){ res->out.ptr, res->out.len },
				     err)) < 0)
		return error;
	lines_split(&ml, (struct span){ res->out.ptr, res->out.len });
	/* new[]: the lines the diff says are added; added[]: also those
	 * it could have said, sliding a block along lines like its own
	 * ("#ifndef M" added just above the target's "#ifndef M") */
	added = xcalloc(ml.nr + 1, sizeof(*added));
	new = xcalloc(ml.nr + 1, sizeof(*new));
	for (size_t n = 0; n < nr_dh; n++) {
		size_t lo = dh[n].new_start - 1, hi = lo + dh[n].new_lines;
		size_t a = lo, b = hi;

		if (!dh[n].new_lines || hi > ml.nr)
			continue;
		for (i = lo; i < hi; i++)
			new[i] = true;
		while (a > 0 && line_eq(&ml.v[a - 1], &ml.v[b - 1]))
			a--, b--;
		lo = a;
		for (a = dh[n].new_start - 1, b = hi;
		     b < ml.nr && line_eq(&ml.v[a], &ml.v[b]); a++, b++)
			;
		for (i = lo; i < b; i++)
			added[i] = true;
	}
	/* one pass: the "#if"s open at each line, and the added tests */
	for (size_t j = 0; j < ml.nr; j++) {
		const struct line *l = &ml.v[j];
		int op = directive_line(l->ptr, l->len, NULL), want = 0;
		size_t depth = nr_open;
		struct span m;

		if (op < 0)
			continue;
		if (new[j])
			want = macro_test(l->ptr, l->len, &m);
		for (k = 0; want && k < f->nr_hunks; k++)
			if (hunk_landed(&res->hunks[k]) &&
			    hunk_adds(&f->hunks[k], l->ptr, l->len))
				break;
		/* an #elif's own #if is not around it */
		if (op == CTOK_OP_ELIF && depth)
			depth--;
		for (size_t x = 0; want && k < f->nr_hunks &&
				   !res->hunks[k].risk && x < depth; x++) {
			const struct open_if *o = &open[x];
			const struct line *d = &ml.v[o->at];
			struct buf where = BUF_INIT;
			struct span m2;

			if (added[o->at] || added[o->from] ||
			    branch_test(&ml, o, &m2) != -want ||
			    m2.len != m.len || memcmp(m2.ptr, m.ptr, m.len))
				continue;
			if (o->br &&
			    directive_line(ml.v[o->from].ptr, ml.v[o->from].len,
					   NULL) == CTOK_OP_ELSE)
				buf_addf(&where, "the \"#else\" (line %zu) of ",
					 o->from + 1);
			else
				d = &ml.v[o->from];
			res->hunks[k].risk = true;
			add_reason(&res->hunks[k],
				   "adds \"%.*s\" at line %zu, inside %sthe "
				   "target's \"%.*s\" of line %zu: what it guards "
				   "is never built (the target may have this "
				   "change in another form)",
				   (int)l->len, l->ptr, j + 1,
				   where.len ? where.ptr : "", (int)d->len, d->ptr,
				   (size_t)(d - ml.v) + 1);
			buf_release(&where);
		}
		if (op == CTOK_OP_IF) {
			ALLOC_GROW(open, nr_open + 1, alloc_open);
			open[nr_open++] = (struct open_if){ j, 0, j };
		} else if ((op == CTOK_OP_ELIF || op == CTOK_OP_ELSE) &&
			   nr_open) {
			open[nr_open - 1].br++;
			open[nr_open - 1].from = j;
		} else if (op == CTOK_OP_ENDIF && nr_open) {
			nr_open--;
		}
	}
	free(open);
	free(added);
	free(new);
	free(dh);
	lines_release(&ml);
	return 0;
}

static int cmp_hash_pos(const void *a, const void *b)
{
	const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The target's lines chained by hash: one pass over the file. */
static void index_lines(struct line_index *x, const struct lines *t)
{
	size_t cap = 64;

	while (cap < 2 * t->nr)
		cap *= 2;
	x->mask = cap - 1;
	x->head = xmalloc(cap * sizeof(*x->head));
	x->next = xmalloc((t->nr + 1) * sizeof(*x->next));
	for (size_t i = 0; i < cap; i++)
		x->head[i] = (size_t)-1;
	for (size_t i = t->nr; i-- > 0;) {
		size_t k = t->v[i].hash & x->mask;

		/* a slot holds the lines of one hash */
		while (x->head[k] != (size_t)-1 &&
		       t->v[x->head[k]].hash != t->v[i].hash)
			k = (k + 1) & x->mask;
		x->next[i] = x->head[k];
		x->head[k] = i;
	}
}

/* The first of the lines of t whose hash is hash, or -1. */
static size_t index_first(const struct line_index *x, const struct lines *t,
			  uint32_t hash)
{
	size_t k = hash & x->mask;

	while (x->head[k] != (size_t)-1 && t->v[x->head[k]].hash != hash)
		k = (k + 1) & x->mask;
	return x->head[k];
}

static void index_release(struct line_index *x)
{
	free(x->head);
	free(x->next);
	memset(x, 0, sizeof(*x));
}

/* How often l stands in the target, up to 2: among the lines of its hash
 * only, not a pass over the file for every line asked about. */
static size_t count_in_target(const struct engine *e, const struct line *l)
{
	struct line_index *x = e->index;
	size_t n = 0;

	if (!x->head)
		index_lines(x, &e->t);
	for (size_t i = index_first(x, &e->t, l->hash); i != (size_t)-1 && n < 2;
	     i = x->next[i])
		n += line_eq(l, &e->t.v[i]);
	return n;
}

/*
 * The code of a line: comments dropped, runs of blanks folded to one
 * space, none at either end.  *comment says whether a block comment is
 * open where the line starts, and is left as it is where it ends.
 * Literals are copied as they are.
 */
static void code_of(struct buf *out, const char *p, size_t len, bool *comment)
{
	size_t i = 0;
	bool blank = false;

	buf_reset(out);
	while (i < len) {
		char c = p[i];

		if (*comment) {
			if (c == '*' && i + 1 < len && p[i + 1] == '/') {
				*comment = false;
				blank = true;
				i += 2;
			} else {
				i++;
			}
			continue;
		}
		if (c == '/' && i + 1 < len && p[i + 1] == '*') {
			*comment = true;
			i += 2;
			continue;
		}
		if (c == '/' && i + 1 < len && p[i + 1] == '/')
			break;
		if (isspace((unsigned char)c)) {
			blank = true;
			i++;
			continue;
		}
		if (blank && out->len)
			buf_addc(out, ' ');
		blank = false;
		if (c == '"' || c == '\'') {
			size_t j = i + 1;

			while (j < len && p[j] != c)
				j += p[j] == '\\' ? 2 : 1;
			if (j > len)
				j = len;
			buf_add(out, p + i, (j < len ? j + 1 : len) - i);
			i = j < len ? j + 1 : len;
			continue;
		}
		buf_addc(out, c);
		i++;
	}
}

/* Lines reduced to their code, the empty ones left out. */
struct codes {
	struct buf text;  /* the codes, each ended by a NUL */
	size_t *off;      /* where code i starts in text */
	size_t *line;     /* the line it comes from */
	size_t nr, alloc, alloc2;
};

static void codes_add(struct codes *c, const struct buf *code, size_t line)
{
	if (!code->len)
		return;
	ALLOC_GROW(c->off, c->nr + 1, c->alloc);
	ALLOC_GROW(c->line, c->nr + 1, c->alloc2);
	c->off[c->nr] = c->text.len;
	c->line[c->nr++] = line;
	buf_add(&c->text, code->ptr, code->len);
	buf_addc(&c->text, '\0');
}

static const char *code_at(const struct codes *c, size_t i)
{
	return c->text.ptr + c->off[i];
}

/* Target lines [from, to) as codes; the comment state is read from 'at'. */
static void target_codes(struct codes *c, const struct engine *e, size_t at,
			 size_t from, size_t to)
{
	struct buf code = BUF_INIT;
	bool comment = false;

	for (size_t i = at; i < to; i++) {
		code_of(&code, e->t.v[i].ptr, e->t.v[i].len, &comment);
		if (i >= from)
			codes_add(c, &code, i);
	}
	buf_release(&code);
}

static void codes_release(struct codes *c)
{
	buf_release(&c->text);
	free(c->off);
	free(c->line);
	memset(c, 0, sizeof(*c));
}

/* Every code of the target and how often each stands: one pass a file,
 * however many hunks ask. */
struct file_codes {
	bool built;
	struct codes all;
	struct strmap count; /* code -> how many lines have it */
};

static const struct strmap *code_counts(const struct engine *e)
{
	struct file_codes *fc = e->codes;

	if (!fc->built) {
		fc->built = true;
		target_codes(&fc->all, e, 0, 0, e->t.nr);
		for (size_t j = 0; j < fc->all.nr; j++) {
			const char *code = code_at(&fc->all, j);
			size_t c = strmap_get(&fc->count, code);

			strmap_put(&fc->count, code,
				   c == (size_t)-1 ? 1 : c + 1);
		}
	}
	return &fc->count;
}

struct code_match {
	const struct codes *pat, *text;
	size_t from; /* the text's first code */
};

static bool code_match_eq(const void *vctx, size_t a, size_t b)
{
	const struct code_match *c = vctx;
	size_t n = c->text->nr - c->from;

	compared++;
	return !strcmp(code_at(c->pat, a),
		       b < n ? code_at(c->text, c->from + b)
			     : code_at(c->pat, b - n));
}

static bool significant_code(const char *s)
{
	struct line l = { s, strlen(s), true, 0 };

	return significant(&l);
}

/* Lines a and b start with the same blanks: code at the same depth. */
static bool same_indent(const struct line *a, const struct line *b)
{
	size_t i = 0;

	while (i < a->len && i < b->len && a->ptr[i] == b->ptr[i] &&
	       (a->ptr[i] == ' ' || a->ptr[i] == '\t'))
		i++;
	return !(i < a->len && (a->ptr[i] == ' ' || a->ptr[i] == '\t')) &&
	       !(i < b->len && (b->ptr[i] == ' ' || b->ptr[i] == '\t'));
}

/*
 * The run of added lines, as code, stands in the target's lines near the
 * hunk (codes of [lo, start) or [end, hi)), its first line as deep as
 * there (the same code in another block is no sign of the change), and a
 * significant line of it is once in the whole file: where it starts, or
 * -1.
 */
static long run_as_code(const struct engine *e, const struct lines *run,
			size_t fn, size_t lo, size_t start, size_t end,
			size_t hi, size_t *sig)
{
	struct codes rc = { BUF_INIT, NULL, NULL, 0, 0, 0 };
	struct codes win = { BUF_INIT, NULL, NULL, 0, 0, 0 };
	struct buf code = BUF_INIT;
	bool comment = false, distinct = false;
	long at = -1;
	size_t i, j, n;

	for (i = 0; i < run->nr; i++) {
		code_of(&code, run->v[i].ptr, run->v[i].len, &comment);
		codes_add(&rc, &code, i);
	}
	if (!rc.nr)
		goto out;
	/* near the hunk first (cheap), then once in the whole file */
	target_codes(&win, e, fn < lo ? fn : lo, lo, hi);
	{
		struct code_match cm = { &rc, &win, 0 };
		size_t *hits, nh = kmp_all(&hits, win.nr, rc.nr,
					   code_match_eq, &cm);

		for (j = 0; j < nh && at < 0; j++) {
			size_t first = win.line[hits[j]];
			size_t last = win.line[hits[j] + rc.nr - 1];
			if (!(last >= start && first < end) &&
			    same_indent(&run->v[rc.line[0]], &e->t.v[first]))
				at = (long)first;
		}
		free(hits);
	}
	if (at < 0)
		goto out;
	{
		/* how often each code stands in the file */
		const struct strmap *count = code_counts(e);

		for (i = 0; i < rc.nr && !distinct; i++) {
			if (!significant_code(code_at(&rc, i)))
				continue;
			n = strmap_get(count, code_at(&rc, i));
			distinct = n == 1;
		}
	}
	if (!distinct) {
		at = -1;
		goto out;
	}
	for (i = 0; sig && i < rc.nr; i++)
		*sig += significant_code(code_at(&rc, i));
out:
	buf_release(&code);
	codes_release(&rc);
	codes_release(&win);
	return at;
}

/*
 * Where hunk k's added lines already are near target lines [start, end)
 * (within the preimage's length and ten lines, in the same function), or
 * -1.  Each run of '+' lines (blank lines at its ends aside) that holds a
 * line found only once in the target must be there, outside [start, end),
 * and not be a line the patch removes elsewhere (a move, re-indented or
 * not: its copies in the file say nothing).  Runs of common
 * lines ("if (ret)", "return ret;") prove nothing and are skipped.  A run
 * that stands there only with other comments or blanks sets *edited.
 */
static long additions_present(const struct engine *e, size_t k, size_t start,
			      size_t end, size_t *significant_lines,
			      bool *edited)
{
	const struct pat *p = &e->pats[k];
	const struct patch_hunk *h = p->h;
	size_t reach = 10 + p->pre.nr, i = 0, j, lo, hi, pos, runs = 0;
	long first = -1, fn = start ? e->fn_func[start - 1] : -1;
	size_t sig_exact = 0, sig_code = 0;

	*edited = false;
	lo = start > reach ? start - reach : 0;
	hi = end + reach < e->t.nr ? end + reach : e->t.nr;
	if (has_functions(file_path(e->f)) && fn >= 0 &&
	    func_end(e, (size_t)fn) > start) {
		/* not in another function */
		if (lo < (size_t)fn)
			lo = (size_t)fn;
		if (hi > func_end(e, (size_t)fn))
			hi = func_end(e, (size_t)fn);
	}
	while (i < h->nr_lines) {
		struct lines run = { NULL, 0, 0 };
		bool distinct = false, moved = false, found = false;
		size_t sig = 0;
		long at;

		if (h->lines[i].kind != '+') {
			i++;
			continue;
		}
		for (; i < h->nr_lines && h->lines[i].kind == '+'; i++)
			lines_add(&run, h->lines[i].text.ptr, h->lines[i].text.len,
				  !h->lines[i].no_eol);
		while (run.nr && !run.v[run.nr - 1].len)
			run.nr--;
		for (j = 0; j < run.nr && !run.v[j].len; j++)
			;
		for (; j < run.nr; j++) {
			struct span t = { run.v[j].ptr, run.v[j].len };

			if (!significant(&run.v[j]))
				continue;
			sig++;
			moved |= patch_has_line(e->f, '-', t);
			distinct |= count_in_target(e, &run.v[j]) == 1;
		}
		if (moved || !sig) {
			lines_release(&run);
			continue;
		}
		for (pos = lo; distinct && pos + run.nr <= hi && !found; pos++) {
			if (pos + run.nr > start && pos < end)
				continue;
			for (j = 0; j < run.nr; j++)
				if (!line_eq(&run.v[j], &e->t.v[pos + j]))
					break;
			if (j == run.nr) {
				found = true;
				runs++;
				sig_exact += sig;
				sig_code += sig;
				if (first < 0)
					first = (long)pos;
			}
		}
		/* there with other comments or blanks, the code the same */
		if (!found &&
		    (at = run_as_code(e, &run, fn >= 0 ? (size_t)fn : 0, lo,
				      start, end, hi, &sig_code)) >= 0) {
			found = true;
			runs++;
			*edited = true;
			if (first < 0)
				first = at;
		} else if (!found && distinct) {
			lines_release(&run);
			return -1;
		}
		lines_release(&run);
	}
	if (significant_lines)
		*significant_lines += *edited ? sig_code : sig_exact;
	return runs ? first : -1;
}

/*
 * Look for the preimage (or the postimage) at fuzz levels above f: for the
 * risk note when kcarry's verdict at level f is not the only reading.
 */
static const struct cand *more_fuzz(struct engine *e, size_t k, bool post,
				    unsigned f, unsigned maxf, long exp,
				    struct cands *tmp, unsigned *at)
{
	const struct pat *p = &e->pats[k];
	struct level lv;

	if (post && !p->changes)
		return NULL;
	for (f++; f <= maxf; f++) {
		tmp->nr = 0;
		if (!make_level(p, f, &lv) || !fuzz_sane(p, &lv))
			continue;
		find_cands(e, p, post, &lv, exp, tmp);
		if (tmp->nr) {
			*at = f;
			return best_of(tmp, cand_better);
		}
	}
	return NULL;
}

/* Lines [from, to) of the preimage hold one that stands once in the
 * target (more than punctuation): an anchor of their side. */
static bool unique_anchor(const struct engine *e, const struct pat *p,
			  size_t from, size_t to)
{
	for (size_t j = from; j < to; j++)
		if (significant(&p->pre.v[j]) &&
		    count_in_target(e, &p->pre.v[j]) == 1)
			return true;
	return false;
}

#define DROPPED_SLACK 3 /* lines a dropped line may stand further out */

/* Preimage lines [from, to) stand at target line i. */
static bool pre_block_at(const struct engine *e, const struct pat *p,
			 size_t from, size_t to, size_t i)
{
	if (i + (to - from) > e->t.nr)
		return false;
	for (size_t j = from; j < to; j++)
		if (!line_eq(&p->pre.v[j], &e->t.v[i + j - from]))
			return false;
	return true;
}

/* Preimage lines [from, to) hold one that is more than punctuation. */
static bool tells(const struct pat *p, size_t from, size_t to)
{
	for (size_t j = from; j < to; j++)
		if (significant(&p->pre.v[j]))
			return true;
	return false;
}

/*
 * A fuzzed insertion whose dropped context stands intact a few lines away
 * (the target has something between the hunk's leading and trailing
 * context): the lines could belong right after the leading context or
 * right before the trailing context, and fuzz chose one of them: the
 * whole side (the lines fuzz dropped and those it kept) stands there, or
 * the dropped lines stand more than DROPPED_SLACK lines further out than
 * the hunk has them (what fuzz kept may be a chance match).  Dropped
 * lines that are blank or punctuation tell nothing, nor do those that
 * stand where the hunk has them.  Not on a side whose kept context has
 * a line that stands once in the file: the insertion is anchored beside
 * it, and the new lines are beyond it (MODULE_DESCRIPTION() between "}"
 * and MODULE_LICENSE("GPL"), kept).  Returns the target line of the
 * dropped context, or -1.
 */
static long dropped_context_nearby(const struct engine *e,
				   const struct pat *p, const struct cand *c,
				   unsigned f)
{
	const size_t window = 40;
	struct level lv;
	size_t n = e->t.nr, nr = p->pre.nr, i, lo, hi;

	if (nr > p->lead + p->trail || !make_level(p, f, &lv))
		return -1;
	if (lv.pfx && !unique_anchor(e, p, lv.pfx, p->lead) &&
	    tells(p, 0, lv.pfx) && !pre_block_at(e, p, 0, lv.pfx, c->pos)) {
		lo = c->pos > window ? c->pos - window : 0;
		for (i = c->pos; i-- > lo;) {
			if (!pre_block_at(e, p, 0, lv.pfx, i))
				continue;
			/* the whole side there, or too far for new lines */
			if (pre_block_at(e, p, 0, p->lead, i) ||
			    c->pos - i > DROPPED_SLACK)
				return (long)i;
			break;
		}
	}
	if (lv.sfx &&
	    !unique_anchor(e, p, nr - p->trail, nr - lv.sfx) &&
	    tells(p, nr - lv.sfx, nr) &&
	    !pre_block_at(e, p, nr - lv.sfx, nr, c->pos + nr - lv.sfx)) {
		size_t at = c->pos + nr - lv.sfx, kept = p->trail - lv.sfx;

		hi = at + window < n ? at + window : n;
		for (i = at + 1; i + lv.sfx <= hi; i++) {
			if (!pre_block_at(e, p, nr - lv.sfx, nr, i))
				continue;
			if (pre_block_at(e, p, nr - p->trail, nr, i - kept) ||
			    i - at > DROPPED_SLACK)
				return (long)i;
			break;
		}
	}
	return -1;
}

/* Where l stands in the target when it stands there exactly once, or -1. */
static long only_place(const struct engine *e, const struct line *l)
{
	struct line_index *x = e->index;
	long at = -1;

	if (!x->head)
		index_lines(x, &e->t);
	for (size_t i = index_first(x, &e->t, l->hash); i != (size_t)-1;
	     i = x->next[i]) {
		if (!line_eq(l, &e->t.v[i]))
			continue;
		if (at >= 0)
			return -1;
		at = (long)i;
	}
	return at;
}

/*
 * A line that is one bare block keyword of C, Kconfig or make ("#endif",
 * "else", "endchoice", "endif", "endmenu", ...): it closes or opens some
 * block and names no place of its own.
 */
static bool block_keyword(const struct line *l)
{
	static const char *const words[] = {
		"#else", "#endif", "else", "do", "endchoice", "endmenu",
		"endif", "endef", "choice", "menu", "if", NULL
	};
	struct span t = span_trim((struct span){ l->ptr, l->len });

	for (size_t i = 0; words[i]; i++)
		if (t.len == strlen(words[i]) && !memcmp(t.ptr, words[i], t.len))
			return true;
	return false;
}

/*
 * A fuzzed insertion one of whose dropped context lines (more than
 * punctuation) stands exactly once in the target, away from the landing:
 * the hunk's own neighbour is over there, so the lines may belong there
 * (Debian's 5.10 kbuild patch at fuzz 2 landed inside the next ifdef,
 * its dropped "$(sub_cmd_record_mcount))" 30 lines above).  Not when the
 * kept context of the same side, between that line and the change, has a
 * line of its own that stands once in the file: that side is anchored
 * where it landed (a Kconfig entry moved: "config VIDEO_VS6624" kept,
 * the entry before it dropped).  Nor when the line stands at most
 * DROPPED_SLACK lines further out on its own side than the hunk puts it:
 * that is its place, with the target's new lines between.  Returns the
 * target line, or -1; *which: the hunk line.  A bare block keyword
 * ("endchoice", "#endif") is no neighbour: the one elsewhere closes
 * another block.
 */
static long dropped_line_elsewhere(const struct engine *e,
				   const struct pat *p, const struct cand *c,
				   unsigned f, size_t *which)
{
	struct level lv;
	size_t n = p->pre.nr;
	bool lead_kept, trail_kept;

	if (p->pre.nr > p->lead + p->trail || !make_level(p, f, &lv))
		return -1;
	lead_kept = unique_anchor(e, p, lv.pfx, p->lead);
	trail_kept = unique_anchor(e, p, n - p->trail, n - lv.sfx);
	for (size_t j = 0; j < n; j++) {
		long at;

		if (j == lv.pfx && lv.pfx + lv.sfx < n)
			j = n - lv.sfx; /* past the kept lines, which matched */
		if (j >= n || !significant(&p->pre.v[j]) ||
		    block_keyword(&p->pre.v[j]) ||
		    (j < lv.pfx ? lead_kept : trail_kept))
			continue;
		at = only_place(e, &p->pre.v[j]);
		if (at < 0 || ((size_t)at >= c->pos && (size_t)at < c->pos + n))
			continue;
		/* a few lines further out on its own side: where it was,
		 * with the target's new lines between (6.1's
		 * "select HAVE_KVM_IRQFD" before a dropped select) */
		if (j < lv.pfx ? at < (long)(c->pos + j) &&
					 at + DROPPED_SLACK >= (long)(c->pos + j)
			       : at > (long)(c->pos + j) &&
					 at <= (long)(c->pos + j) + DROPPED_SLACK)
			continue;
		*which = j;
		return at;
	}
	return -1;
}

/* A candidate chosen for hunk k, and what judging it needs. */
struct choice {
	const struct cand *c;
	unsigned f, maxf;  /* its fuzz, the largest allowed */
	long exp;          /* the expected line */
	const struct cands *pre, *post; /* every candidate at fuzz f */
};

/*
 * Whether one of hunk k's significant added lines stands in the target no
 * more often than the file's patch adds it (once, for most): every copy
 * there is one the patch would add, so taking another reading would add
 * it again.  Used where the postimage stands: a block the patch moves
 * (removes in another hunk) stands twice until the move is done.
 */
static bool added_lines_there(const struct engine *e, size_t k)
{
	const struct patch_hunk *h = e->pats[k].h;
	struct line_index *x = e->index;

	if (!x->head)
		index_lines(x, &e->t);
	for (size_t i = 0; i < h->nr_lines; i++) {
		struct line l = { h->lines[i].text.ptr, h->lines[i].text.len,
				  !h->lines[i].no_eol, 0 };
		size_t adds, n = 0;

		if (h->lines[i].kind != '+' || !significant(&l))
			continue;
		adds = patch_line_count(e->f, '+', h->lines[i].text);
		l.hash = line_hash(l.ptr, l.len, l.eol);
		for (size_t j = index_first(x, &e->t, l.hash);
		     j != (size_t)-1 && n <= adds; j = x->next[j])
			n += line_eq(&l, &e->t.v[j]);
		if (n && n <= adds)
			return true;
	}
	return false;
}

/*
 * Whether preimage candidate pre, found with the fuzz of postimage
 * candidate post, is the echo of hunk k's own added lines: it starts
 * inside the lines where the postimage stands (the added lines end as the
 * leading context does), and one of the significant added lines stands
 * in the file only as often as the patch adds it (added_lines_there()),
 * so that taking pre would add it again inside its own copy.  Not a
 * second reading of the hunk.
 */
static bool echo_of_added(const struct engine *e, size_t k,
			  const struct cand *post, const struct cand *pre)
{
	return pre->pos > post->pos &&
	       pre->pos < post->pos + e->pats[k].post.nr &&
	       added_lines_there(e, k);
}

/*
 * The preimage candidate's added lines already stand right beside it,
 * fuzzed or as a whole block (two or more significant lines, one unique
 * in the file): the change is there (an upstreamed patch whose context
 * happens to match next to it), perhaps with other comments.  Settle the
 * hunk as already applied, a risk, and return true.  A lone "if (ret)"
 * found nearby is no evidence.
 */
static bool settle_present(struct engine *e, size_t k,
			   const struct choice *ch)
{
	const struct pat *p = &e->pats[k];
	struct apply_hunk_result *r = &e->hr[k];
	const struct cand *c = ch->c;
	size_t sig = 0;
	bool edited;
	long at;
	struct buf again = BUF_INIT;

	if (c->post)
		return false;
	at = additions_present(e, k, c->pos + p->lead,
			       c->pos + p->pre.nr - p->trail, &sig, &edited);
	if (at < 0 || !(ch->f || sig >= 2))
		return false;
	r->rule = RULE_ALREADY;
	/* no second reading when c is the echo of the added lines where
	 * the postimage stands with the same fuzz */
	r->risk = true;
	for (size_t i = 0; r->risk && i < ch->post->nr; i++)
		r->risk = !echo_of_added(e, k, &ch->post->v[i], c);
	if (ch->f)
		buf_addf(&again, "fuzz %u would", ch->f);
	else
		buf_adds(&again, "the context match would");
	if (edited)
		add_reason(r, "the added lines already stand at line %ld, but "
			   "for comments or whitespace; %s add them again at "
			   "line %zu",
			   at + 1, again.ptr, c->pos + p->lead + 1);
	else
		add_reason(r, "the added lines are already present at line "
			   "%ld; %s add them again at line %zu",
			   at + 1, again.ptr, c->pos + p->lead + 1);
	buf_release(&again);
	e->min_pos = c->pos + p->pre.nr - p->trail;
	e->last_offset = r->offset;
	return true;
}

/* Place hunk k at the chosen candidate: its rule, its lines, where the
 * next hunk may start. */
static void settle(struct engine *e, size_t k, const struct choice *ch)
{
	const struct pat *p = &e->pats[k];
	struct apply_hunk_result *r = &e->hr[k];
	const struct cand *c = ch->c;

	if (c->post) {
		r->rule = RULE_ALREADY;
		e->min_pos = c->pos + p->post.nr - p->trail;
		e->last_offset =
			r->offset + (long)p->post.nr - (long)p->pre.nr;
	} else {
		r->rule = ch->f		? RULE_FUZZ
			  : r->offset ? RULE_OFFSET
				      : RULE_EXACT;
		place_pre(e, k, c->pos);
		e->min_pos = c->pos + p->pre.nr - p->trail;
		e->last_offset = r->offset;
	}
}

/*
 * Hunk k, placed at line pos, is outside the function its header names: a
 * risk naming both, and the named one's double when it landed there.
 */
static void flag_other_function(struct engine *e, size_t k, size_t pos)
{
	const struct pat *p = &e->pats[k];
	struct apply_hunk_result *r = &e->hr[k];
	bool gone = pat_func_def(e, p) < 0;
	long ad = gone ? alias_def(e, k) : -1;

	r->risk = true;
	add_reason(r, "lands in %s%s at line %zu, not in %s%s named by the "
		   "hunk header%s",
		   or_none(r->found_func), call(or_none(r->found_func)),
		   pos + 1, p->func, call(p->func),
		   gone ? " (not found in the target)" : "");
	if (ad >= 0 && r->found_func && !strcmp(r->found_func, p->alias))
		add_reason(r, "%s() is %s() here (%u%% of the hunk's lines "
			   "are in it)",
			   p->func, p->alias, p->alias_pct);
}

/* Whether name is part with whole '_'-separated parts added before or
 * after it ("raw_f", "__f", "f_locked" for "f"). */
static bool name_extends(const char *name, const char *part)
{
	size_t n = strlen(name), m = strlen(part);

	for (size_t i = 0; m && i + m <= n; i++)
		if (!memcmp(name + i, part, m) && n > m &&
		    (i == 0 || name[i - 1] == '_') &&
		    (i + m == n || name[i + m] == '_'))
			return true;
	return false;
}

/*
 * Hunk k landed in the function the target has instead of the one its
 * header names (which it lacks): that function holds every line of the
 * hunk and bears the name with a part added or dropped, the same function
 * renamed when a wrapper took the old name (or before it did).
 */
static bool renamed_by_a_part(struct engine *e, size_t k)
{
	const struct pat *p = &e->pats[k];
	const struct apply_hunk_result *r = &e->hr[k];

	return pat_func_def(e, p) < 0 && alias_def(e, k) >= 0 &&
	       p->alias_pct == 100 && r->found_func &&
	       !strcmp(r->found_func, p->alias) &&
	       (name_extends(p->alias, p->func) ||
		name_extends(p->func, p->alias));
}

/*
 * The file's patch itself renames the function hunk k's header names to
 * the one where hunk k's postimage stands: one of its hunks removes the
 * line defining the old name and adds one defining the new.
 */
static bool renamed_by_the_patch(struct engine *e, size_t k)
{
	const char *to = e->hr[k].found_func;
	bool from_seen = false, to_seen = false;

	if (!e->pats[k].func || !to)
		return false;
	for (size_t j = 0; j < e->f->nr_hunks && !(from_seen && to_seen); j++) {
		const struct patch_hunk *h = &e->f->hunks[j];

		from_seen = to_seen = false;
		for (size_t i = 0; i < h->nr_lines; i++) {
			char *name = h->lines[i].kind == ' ' ? NULL :
				     defined_by(h, i);

			if (name && h->lines[i].kind == '-' &&
			    !strcmp(name, e->pats[k].func))
				from_seen = true;
			if (name && h->lines[i].kind == '+' && !strcmp(name, to))
				to_seen = true;
			free(name);
		}
	}
	return from_seen && to_seen;
}

/*
 * The nearest of the preimage candidates pre (found with the fuzz of
 * postimage candidate post) that is a second reading of hunk k, or NULL.
 * Not the echo of its added lines, nor, when those lines are there
 * (added_lines_there()) in the function the header names (or where its
 * code went), a match outside it: kcarry never takes such a match while
 * the target has that function.
 */
static const struct cand *other_reading(struct engine *e, size_t k,
					const struct cand *post,
					const struct cands *pre)
{
	const struct pat *p = &e->pats[k];
	const struct cand *best = NULL;
	bool inside = p->func && post->in_func && added_lines_there(e, k) &&
		      (p->moved_out || pat_func_def(e, p) >= 0);

	for (size_t i = 0; i < pre->nr; i++)
		if (!echo_of_added(e, k, post, &pre->v[i]) &&
		    !(inside && !pre->v[i].in_func) &&
		    (!best || cand_nearer(&pre->v[i], best)))
			best = &pre->v[i];
	return best;
}

/*
 * A fuzzed insertion of hunk k whose dropped context stands elsewhere:
 * the risk, and why.
 */
static void judge_dropped(struct engine *e, size_t k, const struct choice *ch)
{
	const struct pat *p = &e->pats[k];
	struct apply_hunk_result *r = &e->hr[k];
	long d = dropped_context_nearby(e, p, ch->c, ch->f);
	size_t j = 0;

	if (d >= 0) {
		r->risk = true;
		add_reason(r, "the context fuzz %u dropped stands at line %ld, "
			   "apart from the rest: the lines may belong there",
			   ch->f, d + 1);
	} else if ((d = dropped_line_elsewhere(e, p, ch->c, ch->f, &j)) >= 0) {
		const struct line *l = &p->pre.v[j];
		size_t skip = 0, len;

		while (skip < l->len && isspace((unsigned char)l->ptr[skip]))
			skip++;
		len = l->len - skip;
		r->risk = true;
		add_reason(r, "the context line \"%.*s%s\" that fuzz %u "
			   "dropped stands at line %ld, apart from the "
			   "landing: the lines may belong there",
			   (int)(len > 48 ? 45 : len), l->ptr + skip,
			   len > 48 ? "..." : "", ch->f, d + 1);
	}
}

/* Another reading of hunk k, at target line pos: a risk, said as why. */
struct rival_claim {
	size_t k, pos;
	char *why;
};

static void claim_rival(struct engine *e, size_t k, size_t pos, char *why)
{
	ALLOC_GROW(e->rivals, e->nr_rivals + 1, e->alloc_rivals);
	e->rivals[e->nr_rivals++] = (struct rival_claim){ k, pos, why };
}

static void drop_rivals(struct engine *e)
{
	for (size_t n = 0; n < e->nr_rivals; n++)
		free(e->rivals[n].why);
	e->nr_rivals = 0;
}

/*
 * The other readings, once every hunk of the file stands: a risk, unless
 * another hunk of the same file patch landed right there.  Hunks of one
 * patch never share lines, so that place is the other hunk's (RT's
 * tracing patch changes __kprobe_trace_func() and then, in a later hunk,
 * __kretprobe_trace_func(), whose lines are the same: the nearer match of
 * the first is where the later one lands).
 */
static void judge_rivals(struct engine *e)
{
	for (size_t n = 0; n < e->nr_rivals; n++) {
		const struct rival_claim *rc = &e->rivals[n];
		struct apply_hunk_result *r = &e->hr[rc->k];
		bool taken = false;

		for (size_t j = 0; j < e->f->nr_hunks && !taken; j++)
			taken = j != rc->k && e->hr[j].line == rc->pos + 1 &&
				e->hr[j].rule != RULE_CONFLICT;
		if (taken)
			continue;
		r->risk = true;
		add_reason(r, "%s", rc->why);
	}
	drop_rivals(e);
}

/*
 * Whether the place is a risk, and why: each reading of the hunk that is
 * as plausible as the one taken (its dropped context elsewhere, a
 * definition the target has, another function, a nearer match, the
 * other image).  Judging never moves the hunk.
 */
static void judge(struct engine *e, size_t k, const struct choice *ch)
{
	const struct pat *p = &e->pats[k];
	struct apply_hunk_result *r = &e->hr[k];
	const struct cand *c = ch->c;
	const struct cand *near = best_of(ch->pre, cand_nearer);
	const struct cand *o;

	if (!c->post && ch->f)
		judge_dropped(e, k, ch);
	if (!c->post)
		check_definitions(e, k);
	/* (exact at the stated line while the line the section names is
	 * gone from the target: nothing to check) */
	if (p->func && !c->in_func &&
	    !(r->rule == RULE_EXACT && pat_func_def(e, p) < 0) &&
	    !(c->post && (p->moved_out || renamed_by_the_patch(e, k))) &&
	    !(!ch->f && renamed_by_a_part(e, k)))
		flag_other_function(e, k, c->pos);
	if (!c->post && near && near->pos != c->pos) {
		const char *nf = or_none(func_at(e, near->pos));

		claim_rival(e, k, near->pos,
			    xstrfmt("a nearer match at line %zu is in %s%s",
				    near->pos + 1, nf, call(nf)));
	}
	/* only a postimage that adds something can be "already present":
	 * a deletion's postimage is bare context, found anywhere */
	if (!c->post && adds_significant(p->h) && (o = rival(ch->post, c)))
		claim_rival(e, k, o->pos,
			    xstrfmt("the postimage is already present at line %zu",
				    o->pos + 1));
	if (c->post && (o = other_reading(e, k, c, ch->pre))) {
		claim_rival(e, k, o->pos,
			    xstrfmt("the preimage also matches at line %zu",
				    o->pos + 1));
	} else if ((c->post && !added_lines_there(e, k)) ||
		   (!c->post && r->rule != RULE_EXACT)) {
		/* the other image, fuzzier: GNU patch would take a fuzzy
		 * preimage; a fuzzy postimage says "applied already?".  Not
		 * against a postimage adding a line found once: it is there,
		 * and the preimage, matched with more fuzz, is where GNU
		 * patch would add that line a second time */
		struct cands tmp = { NULL, 0, 0 };
		unsigned at = 0;
		const struct cand *fz = more_fuzz(e, k, !c->post, ch->f,
						  ch->maxf, ch->exp, &tmp, &at);

		if (fz && (c->post || fz->in_func))
			claim_rival(e, k, fz->pos,
				    xstrfmt("the %s also matches with fuzz %u at line %zu",
					    c->post ? "preimage" : "postimage",
					    at, fz->pos + 1));
		free(tmp.v);
	}
}

/* Take the chosen candidate: settle the place, then judge it. */
static void accept(struct engine *e, size_t k, const struct choice *ch)
{
	const struct pat *p = &e->pats[k];
	struct apply_hunk_result *r = &e->hr[k];

	r->line = ch->c->pos + 1;
	r->offset = (long)ch->c->pos - p->stated;
	r->fuzz = ch->f;
	set_found_func(e, k, ch->c->pos);
	if (settle_present(e, k, ch))
		return;
	settle(e, k, ch);
	judge(e, k, ch);
}

/* --- 3-way at hunk level ------------------------------------------------ */

struct region {
	size_t start, end; /* target lines */
	size_t matched;
	long score;
};

struct cell {
	long score;
	size_t si, sj; /* where the alignment ending here starts */
	size_t matched;
};

/* Alignments up to this many cells are computed whole; larger ones in a
 * band around the diagonal that the hunk's distinct lines point at. */
#define ALIGN_FULL_CELLS (4UL * 1024 * 1024)

/*
 * The diagonal (target line minus preimage line, within the window) most
 * of the preimage's lines agree on: each significant line that stands
 * once in the window votes for where it stands.  Hashes, sorted once:
 * n log n, no comparison of every line with every line.  -1: no vote.
 */
static long vote_diagonal(const struct engine *e, const struct pat *p,
			  size_t lo, size_t w)
{
	size_t m = p->pre.nr;
	uint64_t *hp = xmalloc(w * sizeof(*hp));
	long *votes = xcalloc(m + w + 1, sizeof(*votes)), best = -1;
	long best_n = 0;

	for (size_t j = 0; j < w; j++)
		hp[j] = (uint64_t)e->t.v[lo + j].hash << 32 | (uint32_t)j;
	qsort(hp, w, sizeof(*hp), cmp_hash_pos);
	for (size_t i = 0; i < m; i++) {
		const struct line *pl = &p->pre.v[i];
		size_t a = 0, b = w, j;

		if (!significant(pl))
			continue;
		while (a < b) { /* the first entry with this hash */
			size_t mid = a + (b - a) / 2;
			if (hp[mid] >> 32 < pl->hash)
				a = mid + 1;
			else
				b = mid;
		}
		if (a >= w || hp[a] >> 32 != pl->hash ||
		    (a + 1 < w && hp[a + 1] >> 32 == pl->hash))
			continue;
		j = (size_t)(hp[a] & 0xffffffffu);
		if (!line_eq(pl, &e->t.v[lo + j]))
			continue;
		/* diagonal j - i, shifted by m to stay positive */
		if (++votes[j + m - i] > best_n) {
			best_n = votes[j + m - i];
			best = (long)(j + m - i);
		}
	}
	free(hp);
	free(votes);
	return best < 0 ? -1 : best - (long)m;
}

/*
 * Best local alignment of the preimage with target lines [lo, hi): matches
 * of lines that are more than punctuation weigh 3, others 1, a mismatch
 * costs 2 and a skipped line 1.  Ties go to the start nearest exp.
 */
static bool align(const struct engine *e, const struct pat *p, size_t lo,
		  size_t hi, long exp, struct region *rg)
{
	size_t m = p->pre.nr, w = hi - lo, i, j;
	struct cell *prev, *cur, *tmp;
	struct cell best = { 0, 0, 0, 0 };
	size_t best_ei = 0, best_ej = 0;
	long diag = 0, band = 0;
	bool banded;

	if (!m || hi <= lo)
		return false;
	banded = (double)m * (double)w > (double)ALIGN_FULL_CELLS;
	if (banded) {
		/* near-linear: the band around the voted diagonal, else the
		 * expected place; wide enough for the drift a backport has */
		diag = vote_diagonal(e, p, lo, w);
		if (diag < 0)
			diag = exp > (long)lo ? exp - (long)lo : 0;
		band = 64 + (long)m / 8;
	}
	prev = xcalloc(w + 2, sizeof(*prev));
	cur = xcalloc(w + 2, sizeof(*cur));
	for (j = 0; j <= w; j++)
		prev[j] = (struct cell){ 0, 0, j, 0 };
	for (i = 1; i <= m; i++) {
		const struct line *pl = &p->pre.v[i - 1];
		long wgt = significant(pl) ? 3 : 1;
		size_t jlo = 1, jhi = w;

		if (banded) {
			long a = (long)i + diag - band, b = (long)i + diag + band;
			if (b < 1 || a > (long)w) {
				/* the band left the window: nothing to align */
				tmp = prev;
				prev = cur;
				cur = tmp;
				for (j = 0; j <= w; j++)
					prev[j] = (struct cell){ 0, i, j, 0 };
				continue;
			}
			jlo = a < 1 ? 1 : (size_t)a;
			jhi = b > (long)w ? w : (size_t)b;
		}
		cur[jlo - 1] = (struct cell){ 0, i, jlo - 1, 0 };
		for (j = jlo; j <= jhi; j++) {
			bool eq = line_eq(pl, &e->t.v[lo + j - 1]);
			struct cell c = { 0, i, j, 0 };
			long d = prev[j - 1].score + (eq ? wgt : -2);

			if (d > c.score) {
				c = prev[j - 1];
				c.score = d;
				c.matched += eq;
			}
			if (prev[j].score - 1 > c.score) {
				c = prev[j];
				c.score--;
			}
			if (cur[j - 1].score - 1 > c.score) {
				c = cur[j - 1];
				c.score--;
			}
			cur[j] = c;
			if (c.score > best.score ||
			    (c.score == best.score && c.score > 0 &&
			     distance(lo + c.sj, exp) <
				     distance(lo + best.sj, exp))) {
				best = c;
				best_ei = i;
				best_ej = j;
			}
		}
		/* what the next row reads beyond this row's band starts
		 * afresh */
		cur[jhi + 1] = (struct cell){ 0, i, jhi + 1, 0 };
		tmp = prev;
		prev = cur;
		cur = tmp;
	}
	free(prev);
	free(cur);
	if (best.score <= 0)
		return false;
	rg->start = lo + best.sj >= best.si ? lo + best.sj - best.si : 0;
	rg->end = lo + best_ej + (m - best_ei);
	if (rg->end > e->t.nr)
		rg->end = e->t.nr;
	if (rg->start < e->min_pos)
		rg->start = e->min_pos;
	rg->matched = best.matched;
	rg->score = best.score;
	return rg->start <= rg->end;
}

static bool region_good(const struct pat *p, const struct region *rg)
{
	size_t m = p->pre.nr, need = (m + 1) / 2;

	if (need < 2)
		need = 2;
	return rg->matched >= need && rg->score >= 3 &&
	       rg->end - rg->start <= 2 * m + 10;
}

static size_t clamp_sub(size_t a, size_t b, size_t floor)
{
	return a > b && a - b > floor ? a - b : floor;
}

/*
 * Find the region for a hunk-level 3-way merge: inside the named function
 * when the target has it, else near the expected place.
 */
static bool locate_region(struct engine *e, size_t k, long exp,
			  struct region *rg, bool *outside, bool *aliased)
{
	const struct pat *p = &e->pats[k];
	size_t n = e->t.nr, m = p->pre.nr, reach = 3 * m + 200, lo, hi;
	size_t ex = exp < 0 ? 0 : (size_t)exp;
	long def = pat_func_def(e, p), ad;

	*outside = false;
	*aliased = false;
	if (def < 0 && (ad = alias_def(e, k)) >= 0) {
		/* the target's function that is the named one under another
		 * name: merge inside it, as a risk */
		lo = clamp_sub((size_t)ad, m, e->min_pos);
		hi = func_end(e, (size_t)ad) + m;
		if (hi > n)
			hi = n;
		if (align(e, p, lo, hi, exp, rg) && region_good(p, rg) &&
		    rg->start > (size_t)ad &&
		    e->fn_func[rg->start - 1] == ad) {
			*aliased = true;
			return true;
		}
	}
	if (def >= 0) {
		/* from the definition, whose header line a hunk may
		 * show as leading context, to its closing brace */
		lo = clamp_sub((size_t)def, m, e->min_pos);
		hi = func_end(e, (size_t)def) + m;
		if (hi > n)
			hi = n;
		if (align(e, p, lo, hi, exp, rg) && region_good(p, rg) &&
		    in_func(e, p, rg->start))
			return true;
		return false;
	}
	lo = clamp_sub(ex, reach, e->min_pos);
	hi = ex + m + reach < n ? ex + m + reach : n;
	if (!align(e, p, lo, hi, exp, rg) || !region_good(p, rg))
		return false;
	*outside = !in_func(e, p, rg->start);
	return true;
}

/* The hunk's preimage and postimage as text, for merge-file. */
static void pat_text(struct buf *b, const struct lines *l)
{
	buf_reset(b);
	join_lines(b, l, 0, l->nr);
}

/*
 * When the merge conflicts only because context lines around the change
 * drifted: a hunk with one block of changed lines whose removed lines
 * (one of them significant) stand verbatim exactly once in the whole
 * file, inside the located region, with a context line beside them, gets
 * those lines replaced, as a careful person would.  Fills merged with the
 * new region text.
 */
static bool replace_removed_block(struct engine *e, const struct pat *p,
				  const struct region *rg, struct buf *merged,
				  size_t *at)
{
	const struct patch_hunk *h = p->h;
	struct lines minus = { NULL, 0, 0 }, plus = { NULL, 0, 0 };
	size_t first = h->nr_lines, last = 0, i, found = 0, pos = 0;
	bool sig = false, ok = false;

	for (i = 0; i < h->nr_lines; i++)
		if (h->lines[i].kind != ' ') {
			if (first == h->nr_lines)
				first = i;
			last = i;
		}
	if (first == h->nr_lines)
		return false;
	for (i = first; i <= last; i++) {
		const struct patch_line *l = &h->lines[i];
		if (l->kind == ' ')
			goto out; /* two change blocks */
		lines_add(l->kind == '-' ? &minus : &plus, l->text.ptr,
			  l->text.len, !l->no_eol);
	}
	for (i = 0; i < minus.nr; i++)
		sig |= significant(&minus.v[i]);
	if (!minus.nr || !sig || minus.nr > e->t.nr)
		goto out;
	for (i = 0; i + minus.nr <= e->t.nr && found < 2; i++) {
		size_t j;
		for (j = 0; j < minus.nr; j++)
			if (!line_eq(&minus.v[j], &e->t.v[i + j]))
				break;
		if (j == minus.nr) {
			found++;
			pos = i;
		}
	}
	if (found != 1 || pos < rg->start || pos + minus.nr > rg->end ||
	    pos < e->min_pos)
		goto out;
	/* a context line of the hunk beside the block, as in the target */
	if (!((first > 0 && pos > 0 &&
	       h->lines[first - 1].kind == ' ' &&
	       h->lines[first - 1].text.len == e->t.v[pos - 1].len &&
	       !memcmp(h->lines[first - 1].text.ptr, e->t.v[pos - 1].ptr,
		       e->t.v[pos - 1].len)) ||
	      (last + 1 < h->nr_lines && pos + minus.nr < e->t.nr &&
	       h->lines[last + 1].kind == ' ' &&
	       h->lines[last + 1].text.len == e->t.v[pos + minus.nr].len &&
	       !memcmp(h->lines[last + 1].text.ptr, e->t.v[pos + minus.nr].ptr,
		       e->t.v[pos + minus.nr].len))))
		goto out;
	buf_reset(merged);
	join_lines(merged, &e->t, rg->start, pos);
	join_lines(merged, &plus, 0, plus.nr);
	join_lines(merged, &e->t, pos + minus.nr, rg->end);
	*at = pos;
	ok = true;
out:
	lines_release(&minus);
	lines_release(&plus);
	return ok;
}

/*
 * The replaced block of a conflicting merge (replace_removed_block()) as
 * hunk k's place; true when taken.
 */
static bool take_removed_block(struct engine *e, size_t k,
			       const struct region *rg)
{
	struct apply_hunk_result *r = &e->hr[k];
	struct buf repl = BUF_INIT;
	size_t at;
	bool ok = replace_removed_block(e, &e->pats[k], rg, &repl, &at);

	if (ok) {
		r->rule = RULE_3WAY_HUNK;
		add_reason(r, "the removed lines stand unchanged at line %zu; "
			   "only their context differs", at + 1);
		set_place(e, k, rg->start, rg->end, &repl);
		check_definitions(e, k);
	}
	buf_release(&repl);
	return ok;
}

/* A clean merge of hunk k over the region: its rule and place. */
static void take_merge(struct engine *e, size_t k, const struct region *rg,
		       struct buf *merged, struct span ours)
{
	struct apply_hunk_result *r = &e->hr[k];
	bool edited;
	long at;

	if (merged->len == ours.len && !memcmp(merged->ptr, ours.ptr, ours.len)) {
		r->rule = RULE_ALREADY;
	} else if ((at = additions_present(e, k, rg->start, rg->end, NULL,
					   &edited)) >= 0) {
		r->rule = RULE_ALREADY;
		r->risk = true;
		add_reason(r, "the added lines %s at line %ld%s; a 3-way merge "
			   "would add them again at lines %zu-%zu",
			   edited ? "already stand" : "are already present",
			   at + 1, edited ? ", but for comments or whitespace" : "",
			   rg->start + 1, rg->end);
	} else {
		r->rule = RULE_3WAY_HUNK;
		add_reason(r, "3-way merge with the hunk's preimage at lines %zu-%zu",
			   rg->start + 1, rg->end);
		set_place(e, k, rg->start, rg->end, merged);
		check_definitions(e, k);
	}
}

/* Target lines [from, pl's start), pl's text, then [pl's end, to). */
static void result_text(struct buf *b, const struct engine *e, size_t from,
			size_t to, const struct place *pl)
{
	struct span before = target_span(e, from, pl->start);
	struct span after = target_span(e, pl->end, to);

	buf_add(b, before.ptr, before.len);
	buf_add(b, pl->text.ptr, pl->text.len);
	buf_add(b, after.ptr, after.len);
}

/*
 * Where hunk k's context lines [from, to) stand in the target: *left
 * says whether any significant one stands anywhere, and the result is
 * the line of one found once, or -1.
 */
static long side_once(struct engine *e, const struct pat *p, size_t from,
		      size_t to, bool *left)
{
	long at = -1;

	*left = false;
	for (size_t i = from; i < to; i++) {
		size_t n;

		if (!significant(&p->pre.v[i]))
			continue;
		n = count_in_target(e, &p->pre.v[i]);
		*left |= n > 0;
		if (n == 1 && at < 0)
			at = only_place(e, &p->pre.v[i]);
	}
	return at;
}

/*
 * Hunk k's merge is placed by one side of its context alone: the other
 * side has no significant line left in the target, and this one has a
 * line found once, at the merged place.  GNU patch's match on
 * punctuation is then no other reading.
 */
static bool one_side_places(struct engine *e, size_t k)
{
	const struct pat *p = &e->pats[k];
	const struct place *pl = &e->pl[k];
	size_t n = p->pre.nr;
	bool lead_left, trail_left;
	long lead = side_once(e, p, 0, p->lead, &lead_left);
	long trail = side_once(e, p, n - p->trail, n, &trail_left);

	if (!lead_left && trail >= 0)
		return (size_t)trail >= pl->start &&
		       (size_t)trail < pl->end + p->trail;
	if (!trail_left && lead >= 0)
		return (size_t)lead + p->lead >= pl->start &&
		       (size_t)lead < pl->end;
	return false;
}

/*
 * Hunk k was merged at hunk level: where GNU patch (-F up to the hunk's
 * fuzz, nearest first, no extra condition) would place it with another
 * result, the merge is one reading of two, a risk naming GNU's line.  A
 * merge aligns the hunk with the region by lines alone; when the lines
 * next to the change drifted (a table's entries reshuffled) it may pick
 * the wrong neighbour, which GNU's context match would not.  A GNU match
 * on punctuation alone (kcarry would not fuzz down to it) is no other
 * reading when one side of the hunk places the merge by itself
 * (one_side_places()).
 */
static void flag_gnu_differs(struct engine *e, size_t k, long exp)
{
	const struct pat *p = &e->pats[k];
	const struct place *pl = &e->pl[k];
	size_t context = p->lead > p->trail ? p->lead : p->trail;
	unsigned maxf = e->opts->fuzz < context ? e->opts->fuzz
						: (unsigned)context, f;
	struct cands c = { NULL, 0, 0 };
	const struct cand *g = NULL;
	struct place gnu = { true, 0, 0, BUF_INIT };
	struct buf a = BUF_INIT, b = BUF_INIT;
	struct level lv;
	size_t from, to;

	if (!pl->set)
		return;
	for (f = 0; f <= maxf; f++) {
		if (!make_level(p, f, &lv))
			continue;
		c.nr = 0;
		find_cands(e, p, false, &lv, exp, &c);
		if ((g = best_of(&c, cand_nearer)))
			break;
	}
	if (!g)
		goto out;
	gnu.end = pre_text(e, p, g->pos, &gnu.text);
	gnu.start = g->pos + p->lead;
	from = gnu.start < pl->start ? gnu.start : pl->start;
	to = gnu.end > pl->end ? gnu.end : pl->end;
	result_text(&a, e, from, to, pl);
	result_text(&b, e, from, to, &gnu);
	if ((a.len != b.len || memcmp(a.ptr, b.ptr, a.len)) &&
	    (fuzz_sane(p, &lv) || !one_side_places(e, k))) {
		e->hr[k].risk = true;
		add_reason(&e->hr[k], "GNU patch places it otherwise: at line "
			   "%zu with fuzz %u", g->pos + 1, f);
	}
out:
	free(c.v);
	buf_release(&gnu.text);
	buf_release(&a);
	buf_release(&b);
}

/*
 * Merge hunk k at hunk level (preimage, target region, postimage).  A
 * region outside the function the header names, or in its double, is a
 * risk whichever way the hunk is then placed.
 */
static int hunk_3way(struct engine *e, size_t k, long exp, bool *done,
		     bool *tried)
{
	const struct pat *p = &e->pats[k];
	struct apply_hunk_result *r = &e->hr[k];
	struct buf base = BUF_INIT, theirs = BUF_INIT, merged = BUF_INIT;
	struct region rg;
	struct span ours;
	bool conflicts = false, outside = false, aliased, replaced;
	int error = 0;

	*done = *tried = false;
	if (!p->pre.nr || !locate_region(e, k, exp, &rg, &outside, &aliased))
		return 0;
	*tried = true;
	pat_text(&base, &p->pre);
	pat_text(&theirs, &p->post);
	ours = target_span(e, rg.start, rg.end);
	if ((error = tree_merge_file(&merged, &conflicts,
				     (struct span){ base.ptr, base.len }, ours,
				     (struct span){ theirs.ptr, theirs.len },
				     &merge_labels, e->err)) < 0)
		goto out;

	r->line = rg.start + 1;
	r->offset = (long)rg.start - p->stated;
	r->fuzz = 0;
	set_found_func(e, k, rg.start);
	/* a conflict only of drifted context around the removed lines */
	replaced = conflicts && !outside && take_removed_block(e, k, &rg);
	if (conflicts && !replaced) {
		add_reason(r, "3-way merge with the hunk conflicts at lines %zu-%zu",
			   rg.start + 1, rg.end);
		if (e->opts->markers) {
			set_place(e, k, rg.start, rg.end, &merged);
			e->min_pos = rg.end;
		}
		goto out;
	}
	*done = true;
	if (!conflicts) {
		take_merge(e, k, &rg, &merged, ours);
		if (r->rule == RULE_3WAY_HUNK)
			flag_gnu_differs(e, k, exp);
	}
	if (outside || aliased)
		flag_other_function(e, k, rg.start);
	e->min_pos = rg.end;
	e->last_offset = (long)rg.end - (p->stated + (long)p->pre.nr);
out:
	buf_release(&base);
	buf_release(&theirs);
	buf_release(&merged);
	return error;
}

/*
 * The hunk's whole result stands in the target but for comments or
 * whitespace (the change went in with another comment, so the context is
 * split by a line that differs): the first target line of the match
 * nearest exp, its end in *end, or -1.  A hunk whose code is the same
 * before and after (it changes only comments) never stands so.
 */
static long post_as_code(const struct engine *e, const struct pat *p, long exp,
			 size_t *end)
{
	struct codes pc = { BUF_INIT, NULL, NULL, 0, 0, 0 };
	struct codes qc = { BUF_INIT, NULL, NULL, 0, 0, 0 };
	struct codes tc = { BUF_INIT, NULL, NULL, 0, 0, 0 };
	struct buf code = BUF_INIT;
	bool comment = false, same = true, adds_code = false;
	long best = -1;
	size_t best_dist = SIZE_MAX;

	/* the postimage's codes; some added line must be code (a hunk
	 * that comments a line out adds none) */
	for (size_t i = 0, n = 0; i < p->h->nr_lines; i++) {
		const struct patch_line *l = &p->h->lines[i];

		if (l->kind != ' ' && l->kind != '+')
			continue;
		code_of(&code, l->text.ptr, l->text.len, &comment);
		codes_add(&pc, &code, n++);
		if (l->kind == '+' && code.len && significant_code(code.ptr))
			adds_code = true;
	}
	comment = false;
	for (size_t i = 0; i < p->pre.nr; i++) {
		code_of(&code, p->pre.v[i].ptr, p->pre.v[i].len, &comment);
		codes_add(&qc, &code, i);
	}
	if (pc.nr == qc.nr)
		for (size_t i = 0; i < pc.nr && same; i++)
			same = !strcmp(code_at(&pc, i), code_at(&qc, i));
	else
		same = false;
	if (same || !adds_code || pc.nr < 3)
		goto out;
	target_codes(&tc, e, 0, 0, e->t.nr);
	{
		struct code_match cm = { &pc, &tc, 0 };
		size_t *hits, nh = kmp_all(&hits, tc.nr, pc.nr, code_match_eq,
					   &cm);

		for (size_t h = 0; h < nh; h++) {
			size_t i = hits[h], d;

			if (tc.line[i] < e->min_pos)
				continue;
			d = (long)tc.line[i] > exp ? tc.line[i] - (size_t)exp
						   : (size_t)exp - tc.line[i];
			if (d < best_dist) {
				best_dist = d;
				best = (long)tc.line[i];
				*end = tc.line[i + pc.nr - 1] + 1;
			}
		}
		free(hits);
	}
out:
	buf_release(&code);
	codes_release(&pc);
	codes_release(&qc);
	codes_release(&tc);
	return best;
}

/* --- one hunk ------------------------------------------------------------ */

/*
 * Whether a line the hunk removes stands in the target after min_pos:
 * the removed lines chained by hash, the target read once (a pass over
 * the file for each line was quadratic in a long conflict).
 */
static bool any_line_present(const struct engine *e, const struct pat *p)
{
	struct lines removed = { p->pre.v + p->lead,
				 p->pre.nr - p->lead - p->trail, 0 };
	struct line_index x = { 0 };
	bool found = false;

	index_lines(&x, &removed);
	for (size_t j = e->min_pos; j < e->t.nr && !found; j++)
		for (size_t i = index_first(&x, &removed, e->t.v[j].hash);
		     i != (size_t)-1 && !found; i = x.next[i])
			found = line_eq(&removed.v[i], &e->t.v[j]);
	index_release(&x);
	return found;
}

static void conflict_reason(struct engine *e, size_t k, long exp)
{
	const struct pat *p = &e->pats[k];
	struct apply_hunk_result *r = &e->hr[k];

	if (p->pre.nr > p->lead + p->trail && !any_line_present(e, p))
		add_reason(r, "removed lines not found near line %ld", exp + 1);
	else
		add_reason(r, "context does not match near line %ld", exp + 1);
}

/* A hunk without preimage lines: an insertion with no context at all. */
static void place_bare(struct engine *e, size_t k, long exp)
{
	const struct pat *p = &e->pats[k];
	struct apply_hunk_result *r = &e->hr[k];
	size_t pos = exp < 0 ? 0 : (size_t)exp, i;
	struct buf text = BUF_INIT;

	if (pos < e->min_pos)
		pos = e->min_pos;
	if (pos > e->t.nr)
		pos = e->t.nr;
	r->line = pos + 1;
	r->offset = (long)pos - p->stated;
	set_found_func(e, k, pos);
	for (i = 0; i < p->post.nr && pos + i < e->t.nr; i++)
		if (!line_eq(&p->post.v[i], &e->t.v[pos + i]))
			break;
	if (p->post.nr && i == p->post.nr) {
		/* without context this is a guess: say so */
		r->rule = RULE_ALREADY;
		r->risk = true;
		add_reason(r, "a hunk without context whose lines are present at line %zu",
			   pos + 1);
		e->min_pos = pos + p->post.nr;
		return;
	}
	r->rule = r->offset ? RULE_OFFSET : RULE_EXACT;
	join_lines(&text, &p->post, 0, p->post.nr);
	set_place(e, k, pos, pos, &text);
	check_definitions(e, k);
	e->min_pos = pos;
	e->last_offset = r->offset;
	if (!in_func(e, p, pos)) {
		r->risk = true;
		add_reason(r, "lands in %s%s, not in %s%s named by the hunk header",
			   or_none(r->found_func), call(or_none(r->found_func)),
			   p->func, call(p->func));
	}
}

/* Whether the target defines the function a hunk's header names. */
enum func_state { FUNC_UNKNOWN, FUNC_MISSING, FUNC_THERE };

/* What placing one hunk has found so far. */
struct placing {
	long exp;        /* the expected line */
	unsigned maxf;   /* the largest fuzz allowed for this hunk */
	struct cands pre, post;
	struct buf notes; /* why candidates were not taken */
	/* a match outside the named function (which the target has), kept
	 * for --no-3way, at this fuzz */
	bool have_fallback;
	unsigned fallback_f;
	enum func_state func;
};

/* Every candidate of fuzz level f, both images. */
static bool level_cands(struct engine *e, const struct pat *p, unsigned f,
			struct placing *pl)
{
	struct level lv;

	if (!make_level(p, f, &lv) || (f && !fuzz_sane(p, &lv)))
		return false;
	pl->pre.nr = pl->post.nr = 0;
	find_cands(e, p, false, &lv, pl->exp, &pl->pre);
	if (p->changes)
		find_cands(e, p, true, &lv, pl->exp, &pl->post);
	drop_shared(&pl->post, &pl->pre);
	return true;
}

/*
 * The rules exact, offset and fuzz, least fuzz first: the best candidate
 * of a level is accepted, unless it is ambiguous (the search ends) or
 * outside the function the header names while the target has that
 * function (kept as a fallback).  True when the hunk is placed.
 */
static bool by_candidates(struct engine *e, size_t k, struct placing *pl)
{
	const struct pat *p = &e->pats[k];

	for (unsigned f = 0; f <= pl->maxf; f++) {
		const struct cand *bp, *bq, *best, *o;

		if (!level_cands(e, p, f, pl))
			continue;
		bp = best_of(&pl->pre, cand_better);
		bq = best_of(&pl->post, cand_better);
		best = bp && bq ? (cand_better(bq, bp) ? bq : bp) : bp ? bp : bq;
		if (!best)
			continue;
		/* two postimage places with the preimage nowhere say the
		 * same: already applied (the nearest is named); not outside
		 * the named function, where the kept lines are a chance */
		if (f && !(best->post && !pl->pre.nr && best->in_func) &&
		    (o = rival(best->post ? &pl->post : &pl->pre, best))) {
			buf_addf(&pl->notes,
				 "%sfuzz %u matches at lines %zu and %zu alike",
				 pl->notes.len ? "; " : "", f, best->pos + 1,
				 o->pos + 1);
			return false;
		}
		/* the postimage (alone at this fuzz level), with the
		 * preimage nowhere: already applied wherever it stands;
		 * judge() flags it when outside the named function */
		if (p->func && !best->in_func && !(best->post && !pl->pre.nr)) {
			if (pl->func == FUNC_UNKNOWN)
				pl->func = pat_func_def(e, p) >= 0 ? FUNC_THERE
								   : FUNC_MISSING;
			if (pl->func == FUNC_THERE) {
				if (!pl->have_fallback) {
					const char *bf =
						or_none(func_at(e, best->pos));

					pl->have_fallback = true;
					pl->fallback_f = f;
					buf_addf(&pl->notes,
						 "%smatches only outside %s%s, "
						 "at line %zu in %s%s",
						 pl->notes.len ? "; " : "",
						 p->func, call(p->func),
						 best->pos + 1, bf, call(bf));
				}
				continue;
			}
		}
		{
			struct choice ch = { best, f, pl->maxf, pl->exp,
					     &pl->pre, &pl->post };
			accept(e, k, &ch);
		}
		return true;
	}
	return false;
}

/* With --no-3way, the match outside the named function, as GNU patch
 * takes it (nearest first), judged a risk.  True when placed. */
static bool by_fallback(struct engine *e, size_t k, struct placing *pl)
{
	const struct pat *p = &e->pats[k];
	const struct cand *best;

	if (!pl->have_fallback || !e->opts->no_3way)
		return false;
	level_cands(e, p, pl->fallback_f, pl);
	best = best_of(&pl->pre, cand_nearer);
	if (!best || (pl->post.nr &&
		      cand_nearer(best_of(&pl->post, cand_nearer), best)))
		best = best_of(&pl->post, cand_nearer);
	{
		struct choice ch = { best, pl->fallback_f, pl->maxf, pl->exp,
				     &pl->pre, &pl->post };
		accept(e, k, &ch);
	}
	return true;
}

/* The hunk's whole result stands, but for comments or whitespace:
 * already applied, a risk.  True when so. */
static bool by_code(struct engine *e, size_t k, struct placing *pl)
{
	const struct pat *p = &e->pats[k];
	struct apply_hunk_result *r = &e->hr[k];
	size_t end = 0;
	long stands = post_as_code(e, p, pl->exp, &end);

	if (stands < 0)
		return false;
	free(r->reason);
	r->reason = NULL;
	r->rule = RULE_ALREADY;
	r->risk = true;
	r->line = (unsigned long)stands + 1;
	r->offset = stands - p->stated;
	r->fuzz = 0;
	set_found_func(e, k, (size_t)stands);
	add_reason(r, "the hunk's result already stands at lines %ld-%zu, but "
		   "for comments or whitespace",
		   stands + 1, end);
	e->min_pos = end;
	e->last_offset = r->offset + (long)p->post.nr - (long)p->pre.nr;
	return true;
}

/*
 * Where hunk k's change would stand, as target lines [*from, *to): the
 * function its leading context shows, else the one its header names (the
 * target must define it), else, naming none, the hunk's length on each
 * side of the expected place, at least 20 lines.
 */
static bool edited_region(struct engine *e, size_t k, long exp, size_t *from,
			  size_t *to)
{
	const struct pat *p = &e->pats[k];
	size_t len = p->pre.nr + p->post.nr, w = len > 20 ? len : 20;
	long def = -1;

	if (p->anchor >= 0) {
		char *name = line_ident(p->pre.v[p->anchor].ptr,
					p->pre.v[p->anchor].len);

		def = name ? func_def(e, name) : -1;
		free(name);
		if (def < 0)
			return false;
	} else if (p->func && (def = pat_func_def(e, p)) < 0) {
		return false;
	}
	if (def >= 0) {
		*from = (size_t)def;
		*to = func_end(e, (size_t)def);
		return true;
	}
	*from = (size_t)exp > w ? (size_t)exp - w : 0;
	*to = (size_t)exp + p->pre.nr + w;
	if (*to > e->t.nr)
		*to = e->t.nr;
	return *from < *to;
}

/* Whether hunk k's change stands in its function in edited form; af
 * gets where (NULL: not wanted). */
static bool edited_stands(struct engine *e, size_t k, long exp,
			  struct already_found *af)
{
	struct already_found none;
	size_t from, to;
	bool stands;

	if (!e->pats[k].changes || !edited_region(e, k, exp, &from, &to))
		return false;
	stands = already_edited(af ? af : &none, e->pats[k].h,
				target_span(e, from, to), from + 1);
	if (!af)
		already_found_release(&none);
	return stands;
}

/* The change stands in the function in edited form (already.c): already
 * applied.  True when so. */
static bool by_edited(struct engine *e, size_t k, struct placing *pl)
{
	const struct pat *p = &e->pats[k];
	struct apply_hunk_result *r = &e->hr[k];
	struct already_found af;
	struct buf at = BUF_INIT;
	size_t i;

	if (!edited_stands(e, k, pl->exp, &af))
		return false;
	free(r->reason);
	r->reason = NULL;
	r->rule = RULE_ALREADY;
	r->edited = true;
	/* a second pass (a 3-way or an adapted retry) places the hunk anew */
	free(r->found);
	r->found = af.lines;
	r->nr_found = af.nr;
	r->line = 0;
	for (i = 0; i < af.nr; i++) {
		if (!af.lines[i])
			continue;
		if (!r->line)
			r->line = af.lines[i];
		buf_addf(&at, "%s%lu", at.len ? ", " : "", af.lines[i]);
	}
	r->offset = (long)r->line - 1 - p->stated;
	r->fuzz = 0;
	set_found_func(e, k, r->line - 1);
	add_reason(r, "its change stands in %s%s in edited form, the added "
		   "lines at %s", or_none(r->found_func),
		   call(or_none(r->found_func)), at.ptr);
	buf_release(&at);
	return true;
}

/* None placed it: a conflict, with the diagnosis first, then what the
 * 3-way merge and the candidates not taken say. */
static void as_conflict(struct engine *e, size_t k, struct placing *pl,
			bool tried)
{
	const struct pat *p = &e->pats[k];
	struct apply_hunk_result *r = &e->hr[k];
	char *three;

	r->rule = RULE_CONFLICT;
	if (!tried) {
		r->line = (unsigned long)pl->exp + 1;
		r->offset = pl->exp - p->stated;
	}
	three = r->reason;
	r->reason = NULL;
	conflict_reason(e, k, pl->exp);
	if (three)
		add_reason(r, "%s", three);
	if (pl->notes.len)
		add_reason(r, "%s", pl->notes.ptr);
	free(three);
}

/*
 * Place hunk k: the candidates (exact, offset, fuzz), else a 3-way merge
 * at hunk level, else the fallback outside the named function
 * (--no-3way), else the result standing with other comments, else a
 * conflict.  Choosing the place is here; judging it is judge()'s.
 */
static int place_hunk(struct engine *e, size_t k)
{
	const struct pat *p = &e->pats[k];
	struct apply_hunk_result *r = &e->hr[k];
	struct placing pl = { 0 };
	size_t context = p->lead > p->trail ? p->lead : p->trail;
	bool done = false, tried = false;
	int error = 0;

	pl.exp = p->stated + e->last_offset;
	if (pl.exp < 0)
		pl.exp = 0;
	pl.maxf = e->opts->fuzz < context ? e->opts->fuzz : (unsigned)context;
	buf_init(&pl.notes, 0);
	if (!p->pre.nr) {
		place_bare(e, k, pl.exp);
		goto out;
	}
	if (by_candidates(e, k, &pl))
		goto out;
	/* a merge would add again a change that stands edited: by_edited()
	 * below takes such a hunk */
	if (e->hunk3 && !e->opts->no_3way &&
	    !edited_stands(e, k, pl.exp, NULL)) {
		if ((error = hunk_3way(e, k, pl.exp, &done, &tried)) < 0)
			goto out;
		if (done) {
			if (pl.notes.len)
				add_reason(r, "%s", pl.notes.ptr);
			goto out;
		}
	}
	if (by_fallback(e, k, &pl) || by_code(e, k, &pl) ||
	    by_edited(e, k, &pl))
		goto out;
	as_conflict(e, k, &pl, tried);
out:
	buf_release(&pl.notes);
	free(pl.pre.v);
	free(pl.post.v);
	return error;
}

/*
 * Whether hunk p's lines are in a function body: its first significant
 * preimage line is indented by a tab.  A hunk after a function's end
 * (an "#ifdef" the header names the function above) holds none of that
 * function's lines without its code having moved anywhere.
 */
static bool in_body(const struct pat *p)
{
	for (size_t i = 0; i < p->pre.nr; i++)
		if (significant(&p->pre.v[i]))
			return p->pre.v[i].ptr[0] == '\t';
	return false;
}

/*
 * The target defines the function hunk p's header names, and no
 * definition of it holds any of the hunk's significant preimage lines
 * (context or removed): the code moved out of it, and a postimage found
 * in another function is the change itself, not a second place; its
 * candidates count as inside the function when the hunk is in a body
 * (in_body()).
 */
static bool code_moved_out(struct engine *e, const struct pat *p)
{
	bool defined = false;

	for (size_t i = 0; i < e->t.nr; i++) {
		const struct line *l = &e->t.v[i];
		size_t end;

		if (!funcname_line(l->ptr, l->len) ||
		    label_line(l->ptr, l->len) || !names_line(e, p, (long)i) ||
		    !definition_at(e, i))
			continue;
		defined = true;
		end = func_end(e, i);
		for (size_t j = i; j < end; j++)
			for (size_t n = 0; n < p->pre.nr; n++)
				if (significant(&p->pre.v[n]) &&
				    line_eq(&p->pre.v[n], &e->t.v[j]))
					return false;
	}
	return defined;
}

/*
 * The first line of image between its lead and trail context lines (a
 * changed line, or context between two changes) that starts a definition
 * or a declaration ("int f(...)", "int x = 2;", "config FOO") and stands
 * once in the target, or -1: a match of the image is placed by it,
 * whatever function the header's section names above (a hunk changing a
 * function's return type; a file-scope hunk whose section is the
 * declaration above it).  Not a line of the outer context: a trailing
 * "static const struct net_device_ops mana_devops = {" says where the
 * hunk ends, not what stands before it, which the section tells.
 */
static long self_place(const struct engine *e, const struct lines *image,
		       size_t lead, size_t trail)
{
	for (size_t i = lead; i + trail < image->nr; i++) {
		const struct line *l = &image->v[i];

		if (funcname_line(l->ptr, l->len) && !label_line(l->ptr, l->len) &&
		    count_in_target(e, l) == 1)
			return (long)i;
	}
	return -1;
}

/*
 * Hunk p inserts a new entry before a definition line that places it: it
 * removes nothing, the function its header names is not in the target,
 * its added lines start at least one definition, each of a name the
 * target never mentions (printk_enter_irqsave() added as a function
 * where the target has it as a macro is no new entry),
 * and its first trailing context line starts a definition standing once
 * in the target.  A match keeping that line is placed by it, whatever the
 * header names above (the entry above, gone: Debian's 6.1 Kconfig entry
 * after an "endchoice" 5.10 lacks, placed before "config SECURITY").  An
 * added definition the target already has, or a named function it has,
 * leaves the place to the section as before.
 */
static bool placed_by_next_def(struct engine *e, const struct pat *p)
{
	bool adds_def = false;
	const struct line *next;

	if (!p->func || p->pre.nr != p->lead + p->trail || !p->trail ||
	    pat_func_def(e, p) >= 0)
		return false;
	next = &p->pre.v[p->lead];
	if (!funcname_line(next->ptr, next->len) ||
	    label_line(next->ptr, next->len) || count_in_target(e, next) != 1)
		return false;
	for (size_t i = p->lead; i + p->trail < p->post.nr; i++) {
		const struct line *l = &p->post.v[i];
		char *name;
		bool known;

		if (!funcname_line(l->ptr, l->len) || label_line(l->ptr, l->len))
			continue;
		if (!(name = line_ident(l->ptr, l->len)))
			return false;
		known = span_has_word(e->old, name, strlen(name));
		free(name);
		if (known)
			return false;
		adds_def = true;
	}
	return adds_def;
}

/* --- files ------------------------------------------------------------- */

static void add_range(struct buf *b, unsigned long start, unsigned long count)
{
	if (count == 1)
		buf_addf(b, "%lu", start);
	else
		buf_addf(b, "%lu,%lu", start, count);
}

static void rej_hunk(struct buf *rej, const struct patch_file *f,
		     const struct patch_hunk *h)
{
	size_t i;

	if (!rej->len) {
		if (f->old_path)
			buf_addf(rej, "--- a/%s\n", f->old_path);
		else
			buf_adds(rej, "--- /dev/null\n");
		if (f->new_path)
			buf_addf(rej, "+++ b/%s\n", f->new_path);
		else
			buf_adds(rej, "+++ /dev/null\n");
	}
	buf_adds(rej, "@@ -");
	add_range(rej, h->old_start, h->old_count);
	buf_adds(rej, " +");
	add_range(rej, h->new_start, h->new_count);
	buf_adds(rej, " @@");
	if (h->section.len) {
		buf_addc(rej, ' ');
		buf_addspan(rej, h->section);
	}
	buf_addc(rej, '\n');
	for (i = 0; i < h->nr_lines; i++) {
		buf_addc(rej, h->lines[i].kind);
		buf_addspan(rej, h->lines[i].text);
		buf_addc(rej, '\n');
		if (h->lines[i].no_eol)
			buf_adds(rej, "\\ No newline at end of file\n");
	}
}

static void engine_init(struct engine *e, const struct patch_file *f,
			struct span old, const struct apply_opts *opts,
			struct apply_hunk_result *hr, struct err *err)
{
	size_t k;

	memset(e, 0, sizeof(*e));
	e->f = f;
	e->opts = opts;
	e->old = old;
	e->hr = hr;
	e->err = err;
	lines_split(&e->t, old);
	index_functions(e);
	e->codes = xcalloc(1, sizeof(*e->codes));
	e->index = xcalloc(1, sizeof(*e->index));
	e->pats = xcalloc(f->nr_hunks + 1, sizeof(*e->pats));
	e->pl = xcalloc(f->nr_hunks + 1, sizeof(*e->pl));
	for (k = 0; k < f->nr_hunks; k++) {
		pat_init(&e->pats[k], &f->hunks[k], file_path(f));
		e->pats[k].self_pre = self_place(e, &e->pats[k].pre,
						 e->pats[k].lead,
						 e->pats[k].trail);
		e->pats[k].self_post = self_place(e, &e->pats[k].post,
						  e->pats[k].lead,
						  e->pats[k].trail);
		e->pats[k].moved_out = e->pats[k].func &&
				       code_moved_out(e, &e->pats[k]);
		e->pats[k].body_moved = e->pats[k].moved_out &&
					in_body(&e->pats[k]);
		e->pats[k].next_def = placed_by_next_def(e, &e->pats[k]);
		buf_init(&e->pl[k].text, 0);
	}
}

static void engine_release(struct engine *e)
{
	size_t k;

	for (k = 0; k < e->t.nr; k++)
		free(e->ident[k]);
	free(e->ident);
	free(e->ident_done);
	free(e->fn_func);
	for (k = 0; k < e->f->nr_hunks; k++) {
		pat_release(&e->pats[k]);
		buf_release(&e->pl[k].text);
	}
	free(e->pats);
	free(e->pl);
	drop_defs(e);
	free(e->defs);
	drop_rivals(e);
	free(e->rivals);
	codes_release(&e->codes->all);
	strmap_release(&e->codes->count);
	free(e->codes);
	index_release(e->index);
	free(e->index);
	lines_release(&e->t);
}

/* Forget what place_hunk() recorded, for a second pass. */
static void engine_reset(struct engine *e)
{
	size_t k;

	for (k = 0; k < e->f->nr_hunks; k++) {
		struct apply_hunk_result *r = &e->hr[k];

		free(r->found_func);
		free(r->reason);
		r->found_func = r->reason = NULL;
		r->rule = RULE_CONFLICT;
		r->line = 0;
		r->offset = 0;
		r->fuzz = 0;
		r->risk = false;
		r->edited = false;
		free(r->found);
		r->found = NULL;
		r->nr_found = 0;
		e->pl[k].set = false;
		buf_release(&e->pl[k].text);
	}
	e->min_pos = 0;
	e->last_offset = 0;
}

static int place_all(struct engine *e)
{
	size_t k;
	int error;

	drop_defs(e);
	drop_rivals(e);
	for (k = 0; k < e->f->nr_hunks; k++)
		if ((error = place_hunk(e, k)) < 0)
			return error;
	judge_defs(e);
	judge_rivals(e);
	return 0;
}

static void assemble(struct buf *out, const struct engine *e)
{
	size_t k, cur = 0;
	struct span s;

	buf_reset(out);
	for (k = 0; k < e->f->nr_hunks; k++) {
		const struct place *pl = &e->pl[k];

		if (!pl->set)
			continue;
		if (pl->start < cur)
			BUG("hunk %zu placed at line %zu, before line %zu",
			    k + 1, pl->start + 1, cur + 1);
		s = target_span(e, cur, pl->start);
		out_add(out, s.ptr, s.len);
		out_add(out, pl->text.ptr, pl->text.len);
		cur = pl->end;
	}
	s = target_span(e, cur, e->t.nr);
	out_add(out, s.ptr, s.len);
}

/*
 * The blob with the whole file patch applied at the stated lines; false
 * when some hunk does not match there (then the blob is not this patch's
 * preimage).
 */
static bool patch_blob(struct buf *out, const struct patch_file *f,
		       struct span blob)
{
	struct lines t = { NULL, 0, 0 };
	struct pat p;
	size_t k, i, cur = 0, pos;
	bool ok = true;

	lines_split(&t, blob);
	buf_reset(out);
	for (k = 0; k < f->nr_hunks && ok; k++) {
		pat_init(&p, &f->hunks[k], file_path(f));
		pos = p.stated < 0 ? 0 : (size_t)p.stated;
		if (pos < cur || pos + p.pre.nr > t.nr)
			ok = false;
		for (i = 0; ok && i < p.pre.nr; i++)
			ok = line_eq(&p.pre.v[i], &t.v[pos + i]);
		if (ok) {
			join_lines(out, &t, cur, pos);
			join_lines(out, &p.post, 0, p.post.nr);
			cur = pos + p.pre.nr;
		}
		pat_release(&p);
	}
	if (ok)
		join_lines(out, &t, cur, t.nr);
	lines_release(&t);
	return ok;
}

static bool lines_at(const struct lines *l, size_t pos, const struct lines *pat,
		     size_t from, size_t to)
{
	size_t i;

	if (pos + (to - from) > l->nr)
		return false;
	for (i = from; i < to; i++)
		if (!line_eq(&pat->v[i], &l->v[pos + i - from]))
			return false;
	return true;
}

/*
 * Where hunk k landed in the merged result, or 0: its first block of added
 * lines (or, for a deletion, its whole postimage) nearest the stated line.
 */
static unsigned long find_post(const struct pat *p, const struct lines *ml)
{
	const struct patch_hunk *h = p->h;
	size_t i, from = 0, to = 0, pos, best = 0, j = 0;
	long want = h->new_start ? (long)h->new_start - 1 : 0;
	bool found = false;

	for (i = 0; i < h->nr_lines; i++) {
		if (h->lines[i].kind == '-')
			continue;
		if (h->lines[i].kind == '+' && to == from) {
			from = j;
			to = j + 1;
			while (i + 1 < h->nr_lines && h->lines[i + 1].kind == '+') {
				i++;
				to++;
			}
			break;
		}
		j++;
	}
	if (to == from)
		to = p->post.nr;
	if (to == from)
		return 0;
	for (pos = 0; pos + (to - from) <= ml->nr; pos++) {
		size_t start = pos >= from ? pos - from : 0;

		if (lines_at(ml, pos, &p->post, from, to) &&
		    (!found || distance(start, want) < distance(best, want))) {
			best = start;
			found = true;
		}
	}
	return found ? best + 1 : 0;
}

static bool conflicts_left(const struct apply_file_result *res)
{
	for (size_t k = 0; k < res->nr_hunks; k++)
		if (res->hunks[k].rule == RULE_CONFLICT)
			return true;
	return false;
}

static bool needs_merge(const struct apply_hunk_result *r)
{
	return r->rule == RULE_CONFLICT || r->rule == RULE_FUZZ || r->risk;
}

/*
 * Merge the whole file with the preimage blob; true when that gave the
 * result.
 */
static int merge_blob(struct apply_file_result *res, struct engine *e,
		      struct span blob, struct span theirs, bool *used)
{
	struct buf merged = BUF_INIT;
	struct lines ml = { NULL, 0, 0 };
	bool conflicts = false, any = false, conflict_hunk = false;
	bool edited = false;
	size_t k;
	int error;

	*used = false;
	for (k = 0; k < e->f->nr_hunks; k++) {
		any |= needs_merge(&e->hr[k]);
		conflict_hunk |= e->hr[k].rule == RULE_CONFLICT;
		/* the merge would apply again a change that stands elsewhere */
		edited |= e->hr[k].edited;
	}
	if (!any || edited)
		return 0;
	if ((error = tree_merge_file(&merged, &conflicts, blob, e->old, theirs,
				     &merge_labels, e->err)) < 0)
		goto out;
	if (conflicts) {
		if (conflict_hunk && e->opts->markers) {
			buf_swap(&res->out, &merged);
			*used = true;
		}
		goto out;
	}
	lines_split(&ml, (struct span){ merged.ptr, merged.len });
	for (k = 0; k < e->f->nr_hunks; k++) {
		struct apply_hunk_result *r = &e->hr[k];

		if (!needs_merge(r))
			continue;
		free(r->reason);
		r->reason = NULL;
		r->rule = RULE_3WAY;
		r->risk = false;
		r->fuzz = 0;
		r->line = find_post(&e->pats[k], &ml);
		r->offset = r->line ? (long)r->line - (long)e->pats[k].h->new_start
				    : 0;
		add_reason(r, "merged with the preimage blob %s", e->f->old_oid);
	}
	buf_swap(&res->out, &merged);
	*used = true;
out:
	lines_release(&ml);
	buf_release(&merged);
	return error;
}

/* --- adaptation: conflicting hunks handed to adapt.c ------------------- */

static void hunk_results_free(struct apply_hunk_result *hr, size_t nr)
{
	for (size_t k = 0; k < nr; k++) {
		free(hr[k].found_func);
		free(hr[k].reason);
		free(hr[k].similar);
		cause_free(hr[k].cause);
		adaptation_free(hr[k].adapt);
		free(hr[k].found);
	}
	free(hr);
}

/* Whether hunk k placed the same way in both passes. */
static bool same_place(const struct apply_hunk_result *a,
		       const struct apply_hunk_result *b)
{
	return a->rule == b->rule && a->line == b->line && a->risk == b->risk;
}

/*
 * Place the file patch again, each adapted hunk in place of its original.
 * An adapted hunk must land exactly (or offset) on the line adapt.c
 * anchored it at, inside its function; one that does not is dropped
 * (*retry).  *ok: every other hunk landed as in the first pass.
 */
static int replace_adapted(struct apply_file_result *res, struct engine *e,
			   struct adaptation **ad, bool *ok, bool *retry)
{
	const struct patch_file *f = e->f;
	struct patch_file g = *f;
	struct apply_hunk_result *hr = xcalloc(f->nr_hunks + 1, sizeof(*hr));
	struct engine e2;
	int error;

	g.hunks = xcalloc(f->nr_hunks + 1, sizeof(*g.hunks));
	for (size_t k = 0; k < f->nr_hunks; k++) {
		g.hunks[k] = ad[k] ? ad[k]->hunk : f->hunks[k];
		hr[k].rule = RULE_CONFLICT;
		hr[k].func = res->hunks[k].func;
	}
	engine_init(&e2, &g, e->old, e->opts, hr, e->err);
	e2.hunk3 = e->hunk3;
	*ok = true;
	*retry = false;
	if ((error = place_all(&e2)) < 0)
		goto out;
	for (size_t k = 0; k < f->nr_hunks; k++) {
		if (!ad[k]) {
			*ok &= same_place(&hr[k], &res->hunks[k]);
		} else if ((hr[k].rule != RULE_EXACT &&
			    hr[k].rule != RULE_OFFSET) ||
			   hr[k].line != ad[k]->line || hr[k].risk) {
			adaptation_free(ad[k]);
			ad[k] = NULL;
			*retry = true;
		}
	}
	if (!*ok || *retry)
		goto out;
	for (size_t k = 0; k < f->nr_hunks; k++) {
		struct apply_hunk_result *r = &res->hunks[k];

		if (!ad[k])
			continue;
		r->rule = RULE_ADAPTED;
		r->line = hr[k].line;
		r->offset = (long)hr[k].line - (long)f->hunks[k].old_start;
		free(r->found_func);
		r->found_func = hr[k].found_func;
		hr[k].found_func = NULL;
		free(r->reason);
		r->reason = xstrdup(ad[k]->note);
		r->adapt = ad[k];
		ad[k] = NULL;
	}
	assemble(&res->out, &e2);
out:
	for (size_t k = 0; k < f->nr_hunks; k++)
		hr[k].func = NULL;
	hunk_results_free(hr, f->nr_hunks);
	engine_release(&e2);
	free(g.hunks);
	return error;
}

/* Whether hunk result r's line is a place in the target. */
static bool placed_in_target(const struct apply_hunk_result *r)
{
	return r->line && !r->risk &&
	       (r->rule == RULE_EXACT || r->rule == RULE_OFFSET ||
		r->rule == RULE_FUZZ || r->rule == RULE_3WAY_HUNK);
}

/*
 * Where hunk k may go: after the nearest earlier hunk placed (or adapted
 * in this pass), before the nearest later one placed.
 */
static void hunk_window(struct adapt_in *in,
			const struct apply_hunk_result *hr,
			struct adaptation *const *ad, size_t nr, size_t k)
{
	for (size_t j = k; j-- > 0;) {
		if (ad[j] || placed_in_target(&hr[j])) {
			in->after = ad[j] ? ad[j]->line : hr[j].line;
			break;
		}
	}
	for (size_t j = k + 1; j < nr; j++) {
		if (placed_in_target(&hr[j])) {
			in->before = hr[j].line;
			break;
		}
	}
}

/*
 * The hook: each conflicting hunk that adapt.c can rewrite becomes
 * RULE_ADAPTED, when the whole file still places as before around it.
 * Runs only on files with a conflict.  markers_used: res->out holds a
 * whole-file merge with diff3 markers, kept while some hunk conflicts.
 */
static int adapt_conflicts(struct apply_file_result *res, struct engine *e,
			   bool markers_used)
{
	const struct patch_file *f = e->f;
	struct adaptation **ad;
	size_t n = 0;
	bool ok = false, retry = true;
	int error = 0;

	if (e->opts->no_adapt)
		return 0;
	ad = xcalloc(f->nr_hunks + 1, sizeof(*ad));
	for (size_t k = 0; k < f->nr_hunks; k++) {
		struct adapt_in in = { &f->hunks[k], res->hunks[k].func,
				       e->old, file_path(f), 0, 0 };

		if (res->hunks[k].rule != RULE_CONFLICT ||
		    (e->opts->no_adapt_hunk && e->opts->no_adapt_hunk[k]))
			continue;
		if (!markers_used)
			hunk_window(&in, res->hunks, ad, f->nr_hunks, k);
		adapt_drift(&ad[k], &in);
		if (!ad[k])
			adapt_renamed_function(&ad[k], &in);
		if (!ad[k])
			adapt_renamed_idents(&ad[k], &in);
		if (!ad[k]) /* rule 5, adapt_conv.c */
			adapt_series_conversion(&ad[k], &in, e->opts->conv);
		n += ad[k] != NULL;
	}
	if (markers_used) {
		for (size_t k = 0; k < f->nr_hunks; k++)
			if (res->hunks[k].rule == RULE_CONFLICT && !ad[k])
				n = 0; /* keep the markers for the person */
	}
	for (int tries = 0; n && retry && tries < 3 && error >= 0; tries++) {
		error = replace_adapted(res, e, ad, &ok, &retry);
		n = 0;
		for (size_t k = 0; k < f->nr_hunks; k++)
			n += ad[k] != NULL;
		if (!ok)
			break;
	}
	for (size_t k = 0; k < f->nr_hunks; k++)
		adaptation_free(ad[k]);
	free(ad);
	return error;
}

static enum apply_outcome rule_outcome(enum apply_rule r)
{
	switch (r) {
	case RULE_EXACT:
		return OUTCOME_CLEAN;
	case RULE_OFFSET:
		return OUTCOME_OFFSET;
	case RULE_FUZZ:
		return OUTCOME_FUZZY;
	case RULE_3WAY:
	case RULE_3WAY_HUNK:
		return OUTCOME_3WAY;
	case RULE_ALREADY:
		return OUTCOME_ALREADY;
	case RULE_ADAPTED:
		return OUTCOME_ADAPTED;
	case RULE_CONFLICT:
		break;
	}
	return OUTCOME_CONFLICT;
}

static void finish(struct apply_file_result *res, const struct patch_file *f)
{
	bool already = false, conflict = false, applied = false;
	enum apply_outcome worst = OUTCOME_CLEAN;
	size_t k;

	buf_reset(&res->rej);
	for (k = 0; k < res->nr_hunks; k++) {
		const struct apply_hunk_result *r = &res->hunks[k];

		res->risk |= r->risk;
		if (r->rule == RULE_ALREADY) {
			already = true;
		} else if (r->rule == RULE_CONFLICT) {
			conflict = true;
			rej_hunk(&res->rej, f, &f->hunks[k]);
		} else {
			applied = true;
			if (rule_outcome(r->rule) > worst)
				worst = rule_outcome(r->rule);
		}
	}
	if (conflict)
		res->outcome = already ? OUTCOME_PARTIAL : OUTCOME_CONFLICT;
	else if (already && !applied)
		res->outcome = OUTCOME_ALREADY;
	else
		res->outcome = worst;
}

static void all_hunks(struct apply_file_result *res, enum apply_rule rule,
		      const char *reason)
{
	size_t k;

	for (k = 0; k < res->nr_hunks; k++) {
		res->hunks[k].rule = rule;
		res->hunks[k].line = rule == RULE_CONFLICT ? 0 : 1;
		if (reason)
			add_reason(&res->hunks[k], "%s", reason);
	}
}

static bool span_same(struct span a, const struct buf *b)
{
	return a.len == b->len && (!a.len || !memcmp(a.ptr, b->ptr, a.len));
}

static void whole_image(struct buf *out, const struct patch_file *f,
			bool post)
{
	struct pat p;
	size_t k;

	buf_reset(out);
	for (k = 0; k < f->nr_hunks; k++) {
		pat_init(&p, &f->hunks[k], file_path(f));
		join_lines(out, post ? &p.post : &p.pre, 0,
			   post ? p.post.nr : p.pre.nr);
		pat_release(&p);
	}
}

static void apply_new(struct apply_file_result *res,
		      const struct patch_file *f, struct span old, bool exists)
{
	struct buf post = BUF_INIT;

	whole_image(&post, f, true);
	if (!exists) {
		all_hunks(res, RULE_EXACT, NULL);
		buf_swap(&res->out, &post);
		finish(res, f);
	} else if (span_same(old, &post)) {
		all_hunks(res, RULE_ALREADY, NULL);
		buf_add(&res->out, old.ptr, old.len);
		finish(res, f);
		res->outcome = OUTCOME_ALREADY;
	} else {
		all_hunks(res, RULE_CONFLICT, "the file already exists");
		res->reason = xstrfmt("'%s' already exists in the target",
				      file_path(f));
		buf_add(&res->out, old.ptr, old.len);
		finish(res, f);
		res->outcome = OUTCOME_CONFLICT;
	}
	buf_release(&post);
}

static void apply_delete(struct apply_file_result *res,
			 const struct patch_file *f, struct span old,
			 bool exists)
{
	struct buf pre = BUF_INIT;

	whole_image(&pre, f, false);
	if (!exists) {
		all_hunks(res, RULE_ALREADY, NULL);
		res->reason = xstrfmt("'%s' is already deleted", file_path(f));
		finish(res, f);
		res->outcome = OUTCOME_ALREADY;
	} else if (span_same(old, &pre)) {
		all_hunks(res, RULE_EXACT, NULL);
		res->deleted = true;
		finish(res, f);
	} else {
		all_hunks(res, RULE_CONFLICT,
			  "the file differs from the patch's preimage");
		res->reason = xstrfmt("'%s' differs from what the patch deletes",
				      file_path(f));
		buf_add(&res->out, old.ptr, old.len);
		finish(res, f);
		res->outcome = OUTCOME_CONFLICT;
	}
	buf_release(&pre);
}

/* Load the preimage blob and patch it; *ok false when it is unusable. */
static int load_blob(const struct patch_file *f, const struct apply_opts *opts,
		     struct buf *blob, struct buf *theirs, bool *ok,
		     struct err *err)
{
	int error;

	*ok = false;
	if (opts->no_3way || !opts->load_blob || !f->old_oid ||
	    strspn(f->old_oid, "0") == strlen(f->old_oid))
		return 0;
	error = opts->load_blob(opts->ctx, f->old_oid, blob, err);
	if (error == ERR_NOTFOUND) {
		err_release(err);
		err_init(err);
		return 0;
	}
	if (error < 0)
		return error;
	*ok = patch_blob(theirs, f, (struct span){ blob->ptr, blob->len });
	return 0;
}

int apply_file(struct apply_file_result *res, const struct patch_file *f,
	       struct span old, bool exists, const struct apply_opts *opts,
	       struct err *err)
{
	struct apply_opts defaults = APPLY_OPTS_INIT;
	struct buf blob = BUF_INIT, theirs = BUF_INIT;
	struct engine e;
	bool blob_ok = false, used = false, need_merge = false;
	bool conflicts = false;
	size_t k;
	int error = 0;

	apply_file_result_release(res);
	if (!opts)
		opts = &defaults;
	if (f->binary)
		return err_set(err, ERR_PARSE,
			       "%s: binary patches are not supported",
			       file_path(f));
	if (!old.ptr)
		old = (struct span){ "", 0 };
	res->nr_hunks = f->nr_hunks;
	res->hunks = xcalloc(f->nr_hunks + 1, sizeof(*res->hunks));
	for (k = 0; k < f->nr_hunks; k++) {
		bool whole;

		res->hunks[k].rule = RULE_CONFLICT;
		res->hunks[k].func = section_func(f->hunks[k].section,
						  file_path(f), &whole);
	}
	if (!f->old_path || f->op == PATCH_ADD) {
		apply_new(res, f, old, exists);
		return 0;
	}
	if (!f->new_path || f->op == PATCH_DELETE) {
		apply_delete(res, f, old, exists);
		return 0;
	}
	if (!exists) {
		all_hunks(res, RULE_CONFLICT, "the file does not exist");
		res->reason = xstrfmt("'%s' does not exist in the target",
				      f->old_path);
		finish(res, f);
		return 0;
	}

	/*
	 * First pass without hunk-level 3-way; the blob is read only when
	 * some hunk conflicted, fuzzed or is a risk.
	 */
	engine_init(&e, f, old, opts, res->hunks, err);
	if ((error = place_all(&e)) < 0)
		goto release;
	for (k = 0; k < f->nr_hunks; k++)
		need_merge |= needs_merge(&res->hunks[k]);
	for (k = 0; k < f->nr_hunks; k++)
		conflicts |= res->hunks[k].rule == RULE_CONFLICT;
	if (need_merge &&
	    (error = load_blob(f, opts, &blob, &theirs, &blob_ok, err)) < 0)
		goto release;
	if (blob_ok) {
		error = merge_blob(res, &e, (struct span){ blob.ptr, blob.len },
				   (struct span){ theirs.ptr, theirs.len },
				   &used);
		if (error < 0)
			goto release;
	} else if (conflicts && !opts->no_3way) {
		engine_reset(&e);
		e.hunk3 = true;
		if ((error = place_all(&e)) < 0)
			goto release;
	}
	if (!used)
		assemble(&res->out, &e);
	if (conflicts_left(res) &&
	    (error = adapt_conflicts(res, &e, used)) < 0)
		goto release;
	if (!(used && conflicts_left(res)) &&
	    (error = judge_dead_branches(res, &e, err)) < 0)
		goto release;
	finish(res, f);
release:
	engine_release(&e);
	buf_release(&blob);
	buf_release(&theirs);
	return error;
}

/* --- results ------------------------------------------------------------ */

void apply_file_result_init(struct apply_file_result *res)
{
	memset(res, 0, sizeof(*res));
	res->outcome = OUTCOME_CLEAN;
	buf_init(&res->out, 0);
	buf_init(&res->rej, 0);
}

void apply_file_result_release(struct apply_file_result *res)
{
	size_t k;

	for (k = 0; k < res->nr_hunks; k++) {
		free(res->hunks[k].func);
		free(res->hunks[k].found_func);
		free(res->hunks[k].reason);
		free(res->hunks[k].similar);
		cause_free(res->hunks[k].cause);
		free(res->hunks[k].found);
		adaptation_free(res->hunks[k].adapt);
	}
	free(res->hunks);
	free(res->reason);
	buf_release(&res->out);
	buf_release(&res->rej);
	apply_file_result_init(res);
}

enum apply_outcome apply_worse(enum apply_outcome a, enum apply_outcome b)
{
	bool a_bad = a == OUTCOME_CONFLICT || a == OUTCOME_PARTIAL;
	bool b_bad = b == OUTCOME_CONFLICT || b == OUTCOME_PARTIAL;

	if (a == b)
		return a;
	/* already applied next to conflicts: partially applied */
	if ((a_bad && (b == OUTCOME_ALREADY || b == OUTCOME_PARTIAL)) ||
	    (b_bad && (a == OUTCOME_ALREADY || a == OUTCOME_PARTIAL)))
		return OUTCOME_PARTIAL;
	if (a_bad || b_bad)
		return a > b ? a : b;
	/* already applied next to applied hunks: the applied outcome (the
	 * caller names the already-applied hunks) */
	if (a == OUTCOME_ALREADY)
		return b;
	if (b == OUTCOME_ALREADY)
		return a;
	return a > b ? a : b;
}

const char *apply_rule_name(enum apply_rule r)
{
	switch (r) {
	case RULE_EXACT:
		return "exact";
	case RULE_OFFSET:
		return "offset";
	case RULE_FUZZ:
		return "fuzz";
	case RULE_3WAY:
		return "3-way";
	case RULE_3WAY_HUNK:
		return "3-way-hunk";
	case RULE_ALREADY:
		return "already-applied";
	case RULE_ADAPTED:
		return "adapted";
	case RULE_CONFLICT:
		return "conflict";
	}
	return "unknown";
}

const char *apply_outcome_name(enum apply_outcome o)
{
	switch (o) {
	case OUTCOME_CLEAN:
		return "clean";
	case OUTCOME_OFFSET:
		return "offset";
	case OUTCOME_FUZZY:
		return "fuzzy";
	case OUTCOME_3WAY:
		return "3-way";
	case OUTCOME_ADAPTED:
		return "adapted";
	case OUTCOME_ALREADY:
		return "already applied";
	case OUTCOME_PARTIAL:
		return "partially applied";
	case OUTCOME_CONFLICT:
		return "conflict";
	}
	return "unknown";
}
