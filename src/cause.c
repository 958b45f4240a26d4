#include "cause.h"

#include "cnames.h"
#include "series.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* A function is "the same" when it holds this share of the hunk's lines. */
#define SIMILAR_PERCENT 50

void cause_source_release(struct cause_source *s)
{
	free(s->series);
	free(s->version);
	free(s->file);
	free(s->commit);
	free(s->subject);
	memset(s, 0, sizeof(*s));
}

void cause_name_release(struct cause_name *n)
{
	free(n->name);
	free(n->tag);
	cause_source_release(&n->source);
	cause_source_release(&n->also);
}

void cause_names_free(struct cause_name *names, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		cause_name_release(&names[i]);
	free(names);
}

void cause_free(struct cause *c)
{
	if (!c)
		return;
	free(c->text);
	free(c->function);
	free(c->similar);
	cause_names_free(c->names, c->nr_names);
	free(c->patches);
	free(c->stacks_on);
	free(c->adapted);
	free(c);
}

const char *cause_kind_name(enum cause_kind k)
{
	switch (k) {
	case CAUSE_CONTEXT:
		return "context";
	case CAUSE_FUNCTION:
		return "function";
	case CAUSE_NAMES:
		return "names";
	case CAUSE_FAILED_PATCH:
		return "failed-patch";
	case CAUSE_PRESENT:
		return "present";
	case CAUSE_FILE:
		return "file";
	case CAUSE_BUILD:
		return "build";
	case CAUSE_PLACEMENT:
		break;
	}
	return "placement";
}

const char *cause_use_name(enum cause_use u)
{
	switch (u) {
	case USE_FUNCTION:
		return "function";
	case USE_MEMBER:
		return "member";
	case USE_TYPE:
		return "type";
	case USE_MACRO:
		return "macro";
	case USE_KCONFIG:
		return "kconfig";
	case USE_NAME:
		break;
	}
	return "name";
}

/* "0003 of this series", "port@v1 0001", "upstream commit 0123456789ab" */
static void source_text(struct buf *out, const struct cause_source *s)
{
	switch (s->kind) {
	case SOURCE_SERIES:
		buf_addf(out, "%04zu of this series", s->patch);
		break;
	case SOURCE_OTHER:
		buf_addf(out, "%s@%s %04zu", s->series, s->version, s->patch);
		break;
	case SOURCE_UPSTREAM:
		buf_addf(out, "upstream commit %.12s", s->commit);
		break;
	case SOURCE_NONE:
		break;
	}
}

void cause_name_text(struct buf *out, const struct cause_name *n)
{
	switch (n->use) {
	case USE_MEMBER:
		buf_addf(out, "%s: no such member in this tree", n->name);
		break;
	case USE_FUNCTION:
		buf_addf(out, "%s(): no such function in this tree", n->name);
		break;
	case USE_TYPE:
		if (n->tag)
			buf_addf(out, "%s %s: no such type in this tree", n->tag,
				 n->name);
		else
			buf_addf(out, "%s: no such type in this tree", n->name);
		break;
	case USE_MACRO:
		buf_addf(out, "%s: no such macro or constant in this tree",
			 n->name);
		break;
	case USE_NAME:
		buf_addf(out, "%s: defined nowhere in this tree", n->name);
		break;
	case USE_KCONFIG:
		buf_addf(out, "%s: no such Kconfig symbol in this tree",
			 n->name);
		break;
	}
	if (n->also.kind != SOURCE_NONE) {
		buf_adds(out, " (added by ");
		source_text(out, &n->source);
		buf_adds(out, " and by ");
		source_text(out, &n->also);
		buf_adds(out, ": which one is meant is not known)");
		return;
	}
	switch (n->source.kind) {
	case SOURCE_SERIES:
		buf_addf(out, " (added by %04zu of this series, which did not "
			      "apply)",
			 n->source.patch);
		break;
	case SOURCE_OTHER:
		buf_addf(out, " (added by %s@%s %04zu)", n->source.series,
			 n->source.version, n->source.patch);
		break;
	case SOURCE_UPSTREAM:
		buf_addf(out, " (introduced upstream by %.12s", n->source.commit);
		if (n->source.subject)
			buf_addf(out, " \"%s\"", n->source.subject);
		buf_addc(out, ')');
		break;
	case SOURCE_NONE:
		break;
	}
}

void cause_names_text(struct buf *out, const struct cause_name *names,
		      size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		if (i)
			buf_adds(out, "; ");
		cause_name_text(out, &names[i]);
	}
}

/* ---- prerequisites ---- */

static bool same_source(const struct cause_source *a,
			const struct cause_source *b)
{
	const char *x[] = { a->series, a->version, a->commit };
	const char *y[] = { b->series, b->version, b->commit };

	if (a->kind != b->kind || a->patch != b->patch)
		return false;
	for (size_t i = 0; i < 3; i++)
		if ((x[i] || y[i]) && (!x[i] || !y[i] || strcmp(x[i], y[i])))
			return false;
	return true;
}

void cause_prereqs(struct cause_prereq **out, size_t *nr,
		   const struct cause *c)
{
	size_t alloc = 0;

	*out = NULL;
	*nr = 0;
	for (size_t i = 0; i < c->nr_names; i++) {
		const struct cause_name *n = &c->names[i];
		struct cause_prereq *p = NULL;

		if (n->source.kind == SOURCE_NONE)
			continue;
		for (size_t k = 0; k < *nr && !p; k++)
			if (same_source((*out)[k].source, &n->source) &&
			    same_source((*out)[k].also, &n->also))
				p = &(*out)[k];
		if (!p) {
			ALLOC_GROW(*out, *nr + 1, alloc);
			p = &(*out)[(*nr)++];
			memset(p, 0, sizeof(*p));
			p->source = &n->source;
			p->also = &n->also;
		}
		p->names = xrealloc(p->names,
				    (p->nr_names + 1) * sizeof(*p->names));
		p->names[p->nr_names++] = n->name;
	}
}

void cause_prereqs_free(struct cause_prereq *p, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(p[i].names);
	free(p);
}

void cause_prereqs_text(struct buf *out, const struct cause *c)
{
	struct cause_prereq *p;
	size_t nr, sure = 0, k = 0;

	cause_prereqs(&p, &nr, c);
	for (size_t i = 0; i < nr; i++)
		sure += p[i].also->kind == SOURCE_NONE;
	if (sure)
		buf_addf(out, "%sprerequisite%s, not applied: ",
			 out->len ? "; " : "", sure > 1 ? "s" : "");
	for (size_t i = 0; i < nr; i++) {
		if (p[i].also->kind != SOURCE_NONE)
			continue;
		if (k++)
			buf_adds(out, ", ");
		source_text(out, p[i].source);
	}
	for (size_t i = 0; i < nr; i++) {
		if (p[i].also->kind == SOURCE_NONE)
			continue;
		buf_addf(out, "%sprerequisite not known: ",
			 out->len ? "; " : "");
		for (size_t j = 0; j < p[i].nr_names; j++)
			buf_addf(out, "%s%s", j ? ", " : "", p[i].names[j]);
		buf_addf(out, " %s added by both ",
			 p[i].nr_names > 1 ? "are" : "is");
		source_text(out, p[i].source);
		buf_adds(out, " and ");
		source_text(out, p[i].also);
	}
	cause_prereqs_free(p, nr);
}

/* ---- similar functions ---- */

static bool same_line(struct span a, struct span b)
{
	return a.len == b.len && !memcmp(a.ptr, b.ptr, a.len);
}

static struct span trimmed(struct span s)
{
	return span_trim(s);
}

/* Worth comparing: more than punctuation and a bare keyword. */
static bool telling(struct span s)
{
	size_t alnum = 0;

	for (size_t i = 0; i < s.len; i++)
		alnum += isalnum((unsigned char)s.ptr[i]) || s.ptr[i] == '_';
	return alnum >= 4;
}


void cause_similar_function(char **name, unsigned *percent, struct span text,
			    const char *path, const struct patch_hunk *h,
			    const char *func)
{
	struct cnames c;
	struct err err = ERR_INIT;
	struct span *lines = NULL, *want = NULL;
	size_t nr_lines = 0, alloc = 0, nr_want = 0, alloc_want = 0;
	size_t best = 0, best_n = 0, second = 0, fl = strlen(func);
	long best_f = -1;

	*name = NULL;
	*percent = 0;
	cnames_init(&c);
	if (cnames_scan(&c, path, text.ptr ? text.ptr : "", text.len, 0,
			&err) < 0)
		goto out;
	for (size_t i = 0; i < c.nr_funcs; i++)
		if (c.funcs[i].len == fl && !memcmp(c.funcs[i].name, func, fl))
			goto out; /* it is there */
	/* the hunk's preimage lines, but its function's own head */
	for (size_t i = 0; i < h->nr_lines; i++) {
		struct span t = trimmed(h->lines[i].text);

		if (h->lines[i].kind == '+' || !telling(t))
			continue;
		if (t.len >= fl && memmem(t.ptr, t.len, func, fl))
			continue;
		ALLOC_GROW(want, nr_want + 1, alloc_want);
		want[nr_want++] = t;
	}
	if (nr_want < 2)
		goto out;
	/* the text's lines, once */
	for (size_t i = 0; i < text.len;) {
		const char *nl = memchr(text.ptr + i, '\n', text.len - i);
		size_t end = nl ? (size_t)(nl - text.ptr) : text.len;

		ALLOC_GROW(lines, nr_lines + 1, alloc);
		lines[nr_lines++] = trimmed((struct span){ text.ptr + i, end - i });
		i = nl ? end + 1 : text.len;
	}
	for (size_t f = 0; f < c.nr_funcs; f++) {
		const struct cnames_func *wf = &c.funcs[f];
		size_t found = 0;

		if (!wf->last || wf->last > nr_lines)
			continue;
		for (size_t k = 0; k < nr_want; k++)
			for (size_t l = wf->first - 1; l < wf->last; l++)
				if (same_line(want[k], lines[l])) {
					found++;
					break;
				}
		if (found > best_n) {
			second = best_n;
			best_n = found;
			best_f = (long)f;
		} else if (found > second) {
			second = found;
		}
	}
	best = best_n * 100 / nr_want;
	if (best_f >= 0 && best >= SIMILAR_PERCENT && best_n >= 2 &&
	    second < best_n) {
		*name = xstrndup(c.funcs[best_f].name, c.funcs[best_f].len);
		*percent = (unsigned)best;
	}
out:
	free(lines);
	free(want);
	err_release(&err);
	cnames_release(&c);
}

bool cause_defines_function(struct span text, const char *path,
			    const char *func)
{
	struct cnames c;
	struct err err = ERR_INIT;
	size_t fl = strlen(func);
	bool yes = false;

	cnames_init(&c);
	/* a definition, or in a header its prototype */
	if (cnames_scan(&c, path, text.ptr ? text.ptr : "", text.len, 0,
			&err) == 0)
		for (size_t i = 0; i < c.nr && !yes; i++)
			yes = c.ids[i].kind == CNAMES_ID_DECL &&
			      c.ids[i].decl == CNAMES_DECL_FUNCTION &&
			      c.ids[i].len == fl &&
			      !memcmp(c.ids[i].name, func, fl);
	err_release(&err);
	cnames_release(&c);
	return yes;
}

/* ---- names a series declares ---- */

void cause_defs_init(struct cause_defs *d)
{
	memset(d, 0, sizeof(*d));
}

void cause_defs_release(struct cause_defs *d)
{
	for (size_t i = 0; i < d->nr; i++)
		free(d->name[i]);
	free(d->name);
	free(d->patch);
	free(d->applied);
	strmap_release(&d->index);
	memset(d, 0, sizeof(*d));
}

size_t cause_defs_find(const struct cause_defs *d, const char *name,
		       size_t len)
{
	return strmap_get_n(&d->index, name, len);
}

/*
 * What a patch declares, for its other hunks and later patches: anything
 * but a label (a local of one hunk is used by the next; a member added to
 * a struct reads like a local in a hunk that does not show the struct).
 */
static bool declares(const struct cnames_id *id)
{
	/* nor a struct a pointer merely names: "struct folio *folio;" added
	 * by one patch is no struct folio for the next */
	return id->kind == CNAMES_ID_DECL && id->decl != CNAMES_DECL_LABEL &&
	       id->decl != CNAMES_DECL_INCOMPLETE;
}

/* The first line of h that is not blank starts with a blank. */
static bool starts_indented(const struct patch_hunk *h)
{
	for (size_t i = 0; i < h->nr_lines; i++) {
		struct span t = h->lines[i].text;
		size_t k = 0;

		while (k < t.len && isspace((unsigned char)t.ptr[k]))
			k++;
		if (k < t.len)
			return k > 0;
	}
	return false;
}

/*
 * The hunk header's section opens the enum, struct or union body the hunk
 * starts in ("enum {", "struct foo {"): no line of a record or an enum
 * above the hunk starts a line as git's section does, and the hunk's
 * first line is indented, so the body's "};" is not above it.
 */
static bool section_opens_body(struct span s)
{
	static const char *const heads[] = { "typedef ", "static ", "const " };
	static const char *const kws[] = { "enum", "struct", "union" };
	const char *p = s.ptr, *end = s.ptr + s.len;
	bool kw = false;

	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	if (end == p || end[-1] != '{' || memchr(p, '(', (size_t)(end - p)) ||
	    memchr(p, '=', (size_t)(end - p)))
		return false;
	for (size_t i = 0; i < 3; i++)
		if ((size_t)(end - p) > strlen(heads[i]) &&
		    !memcmp(p, heads[i], strlen(heads[i])))
			p += strlen(heads[i]);
	for (size_t i = 0; i < 3 && !kw; i++) {
		size_t n = strlen(kws[i]);

		kw = (size_t)(end - p) > n && !memcmp(p, kws[i], n) &&
		     (isspace((unsigned char)p[n]) || p[n] == '{');
	}
	return kw;
}

/*
 * The side of hunk h of kinds ("+ " new side), and which line is which;
 * a section that opens the body the hunk is in comes first, of kind '@'.
 */
static void side_text(struct buf *out, char **kind_of, size_t *nr,
		      const struct patch_hunk *h, const char *kinds)
{
	size_t alloc = 0;

	buf_reset(out);
	*nr = 0;
	*kind_of = NULL;
	if (section_opens_body(h->section) && starts_indented(h)) {
		ALLOC_GROW(*kind_of, *nr + 1, alloc);
		(*kind_of)[(*nr)++] = '@';
		buf_addspan(out, h->section);
		buf_addc(out, '\n');
	}
	for (size_t i = 0; i < h->nr_lines; i++) {
		if (!strchr(kinds, h->lines[i].kind))
			continue;
		ALLOC_GROW(*kind_of, *nr + 1, alloc);
		(*kind_of)[(*nr)++] = h->lines[i].kind;
		buf_addspan(out, h->lines[i].text);
		buf_addc(out, '\n');
	}
}

/* Call fn for every name the added lines of p declare. */
static void each_decl(const struct patch *p, char kind,
		      void (*fn)(void *ctx, const char *name), void *ctx)
{
	struct buf text = BUF_INIT;
	struct err err = ERR_INIT;
	const char *side = kind == '+' ? " +" : " -";

	for (size_t f = 0; f < p->nr_files; f++) {
		const struct patch_file *pf = &p->files[f];
		const char *path = patch_file_path(pf);

		if (!ends_with(path, ".c") && !ends_with(path, ".h"))
			continue;
		for (size_t k = 0; k < pf->nr_hunks; k++) {
			struct cnames c;
			char *kinds;
			size_t nr;
			bool whole = kind == '+' ? !pf->old_path : !pf->new_path;

			side_text(&text, &kinds, &nr, &pf->hunks[k], side);
			cnames_init(&c);
			if (cnames_scan(&c, path, text.ptr, text.len,
					whole ? 0 : CNAMES_FRAGMENT, &err) == 0)
				for (size_t i = 0; i < c.nr; i++) {
					char *name;

					if (!declares(&c.ids[i]) ||
					    c.ids[i].line > nr ||
					    kinds[c.ids[i].line - 1] != kind)
						continue;
					name = xstrndup(c.ids[i].name,
							c.ids[i].len);
					fn(ctx, name);
					free(name);
				}
			/* and the names its macros build by pasting, as
			 * patterns ("trace_*"): no name holds a '*' */
			for (size_t i = 0; i < c.nr_pastes; i++)
				fn(ctx, c.pastes[i]);
			err_release(&err);
			cnames_release(&c);
			free(kinds);
		}
	}
	buf_release(&text);
}

struct defs_ctx {
	struct cause_defs *d;
	size_t n;
	bool applied;
};

static void defs_note(void *vctx, const char *name)
{
	struct defs_ctx *c = vctx;
	struct cause_defs *d = c->d;

	size_t k = cause_defs_find(d, name, strlen(name));

	if (k != (size_t)-1) {
		/* an applied declaration wins over a failed one */
		if (c->applied)
			d->applied[k] = true;
		return;
	}
	ALLOC_GROW(d->name, d->nr + 1, d->alloc);
	ALLOC_GROW(d->patch, d->nr + 1, d->alloc_patch);
	ALLOC_GROW(d->applied, d->nr + 1, d->alloc_applied);
	d->name[d->nr] = xstrdup(name);
	d->patch[d->nr] = c->n;
	d->applied[d->nr] = c->applied;
	strmap_put(&d->index, d->name[d->nr], d->nr);
	d->nr++;
}

void cause_defs_add(struct cause_defs *d, const struct watch_set *decls,
		    size_t n, bool applied)
{
	struct defs_ctx c = { d, n, applied };

	for (size_t i = 0; i < decls->cap; i++)
		if (decls->slots[i].name)
			defs_note(&c, decls->slots[i].name);
}

static void set_note(void *ctx, const char *name)
{
	watch_set_add(ctx, name, WATCH_ANY);
}

void cause_patch_decls_both(struct watch_set *all, struct watch_set *added,
			    const struct patch *p)
{
	struct watch_set removed;

	/* a name both removed and added is changed, not added */
	watch_set_init(&removed);
	each_decl(p, '-', set_note, &removed);
	each_decl(p, '+', set_note, all);
	for (size_t i = 0; i < all->cap; i++)
		if (all->slots[i].name &&
		    !watch_set_find(&removed, all->slots[i].name,
				    all->slots[i].len))
			watch_set_add(added, all->slots[i].name, WATCH_ANY);
	watch_set_release(&removed);
}

void cause_patch_decls(struct watch_set *out, const struct patch *p,
		       bool added_only)
{
	struct watch_set all;

	if (!added_only) {
		each_decl(p, '+', set_note, out);
		return;
	}
	/* a name both removed and added is changed, not added */
	watch_set_init(&all);
	cause_patch_decls_both(&all, out, p);
	watch_set_release(&all);
}

/* ---- checking names ---- */

static bool upper(const char *p, size_t len)
{
	bool letter = false;

	for (size_t i = 0; i < len; i++) {
		if (islower((unsigned char)p[i]))
			return false;
		letter |= isupper((unsigned char)p[i]) != 0;
	}
	return letter;
}

/* The keyword before a tag name in its text ("struct", "union"...). */
static char *tag_of(const char *text, const char *name)
{
	const char *p = name, *e;

	while (p > text && isspace((unsigned char)p[-1]))
		p--;
	e = p;
	while (p > text && isalpha((unsigned char)p[-1]))
		p--;
	return e > p ? xstrndup(p, (size_t)(e - p)) : xstrdup("struct");
}

bool cause_names_has(const struct cause_name *names, size_t nr,
		     const char *p, size_t len)
{
	for (size_t i = 0; i < nr; i++)
		if (strlen(names[i].name) == len &&
		    !memcmp(names[i].name, p, len))
			return true;
	return false;
}

/* Whether the patch or the series declares name (not the target). */
static bool series_has(const struct cause_check *chk, const char *name,
		       size_t len)
{
	size_t k;

	if (chk->own && watch_set_find(chk->own, name, len))
		return true;
	if (chk->series) {
		k = cause_defs_find(chk->series, name, len);
		if (k != (size_t)-1 && chk->series->applied[k])
			return true;
	}
	/* each name is in ahead once, with the last patch declaring it */
	if (chk->ahead) {
		k = cause_defs_find(chk->ahead, name, len);
		if (k != (size_t)-1 && chk->ahead->patch[k] > chk->patch_no)
			return true;
	}
	return false;
}

static bool series_knows(void *ctx, const char *name, size_t len)
{
	return series_has(ctx, name, len);
}

/*
 * Whether a macro the patch or the series defines builds name by pasting
 * ("get_" ## x makes get_speed) from a name that something declares: the
 * patch, the series or the target.
 */
static int series_builds(bool *found, const struct cause_check *chk,
			 const char *name, size_t len, struct err *err)
{
	struct buf pat = BUF_INIT;
	int error = 0;

	*found = false;
	for (size_t k = 1; k < len && !*found && !error; k++) {
		/* "P*" with P = name[0, k), then "*S" with S = name[k, len) */
		buf_reset(&pat);
		buf_addf(&pat, "%.*s*", (int)k, name);
		if (series_has(chk, pat.ptr, pat.len) &&
		    !(*found = series_has(chk, name + k, len - k)))
			error = ident_view_find(found, chk->view, name + k,
						len - k, err);
		if (*found || error)
			break;
		buf_reset(&pat);
		buf_addf(&pat, "*%.*s", (int)(len - k), name + k);
		if (series_has(chk, pat.ptr, pat.len) &&
		    !(*found = series_has(chk, name, k)))
			error = ident_view_find(found, chk->view, name, k, err);
	}
	buf_release(&pat);
	return error;
}

/* Pattern "P*" or "*S" of the series around stem names something. */
static int series_pattern_onto(bool *found, const struct cause_check *chk,
			       const char *pat, const char *stem, size_t len,
			       struct err *err)
{
	size_t n = strlen(pat);
	char *full;
	int error = 0;

	*found = false;
	if (n < 2 || (pat[n - 1] != '*' && pat[0] != '*'))
		return 0;
	full = pat[n - 1] == '*' ? xstrfmt("%.*s%.*s", (int)(n - 1), pat,
					   (int)len, stem)
				 : xstrfmt("%.*s%s", (int)len, stem, pat + 1);
	if (!(*found = series_has(chk, full, strlen(full))))
		error = ident_view_find(found, chk->view, full, strlen(full),
					err);
	free(full);
	return error;
}

/*
 * Whether a macro of the patch or the series pastes onto stem to make a
 * name that something declares (the series' own of ident_view_pastes_onto).
 */
static int series_pastes_onto(bool *found, const struct cause_check *chk,
			      const char *stem, size_t len, struct err *err)
{
	const struct cause_defs *d[] = { chk->series, chk->ahead };
	int error = 0;

	*found = false;
	for (size_t i = 0; chk->own && i < chk->own->cap && !*found && !error;
	     i++)
		if (chk->own->slots[i].name &&
		    strchr(chk->own->slots[i].name, '*'))
			error = series_pattern_onto(found, chk,
						    chk->own->slots[i].name,
						    stem, len, err);
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; d[k] && i < d[k]->nr && !*found && !error;
		     i++)
			if (strchr(d[k]->name[i], '*') &&
			    (k ? d[k]->patch[i] > chk->patch_no
			       : d[k]->applied[i]))
				error = series_pattern_onto(found, chk,
							    d[k]->name[i],
							    stem, len, err);
	return error;
}

/* A name alone between '(' or ',' and ')' or ',': a macro's argument. */
static bool lone_argument(const char *text, const struct cnames_id *id)
{
	const char *p = id->name, *e = id->name + id->len;

	while (p > text && isspace((unsigned char)p[-1]))
		p--;
	if (p == text || (p[-1] != '(' && p[-1] != ','))
		return false;
	while (*e && isspace((unsigned char)*e))
		e++;
	return *e == ')' || *e == ',';
}

/*
 * A name not declared anywhere, handed alone to a macro that pastes it
 * into one that is (preempt_dynamic_key_disable(preempt_lazy) makes
 * sk_dynamic_preempt_lazy): it names nothing by itself.
 */
static int pasted_argument(bool *found, const struct cause_check *chk,
			   const char *text, const struct cnames_id *id,
			   struct err *err)
{
	*found = false;
	if (id->kind != CNAMES_ID_USE || !lone_argument(text, id))
		return 0;
	if (ident_view_pastes_onto(chk->view, id->name, id->len)) {
		*found = true;
		return 0;
	}
	return series_pastes_onto(found, chk, id->name, id->len, err);
}

/* A scanned text whose names check_ids checks. */
struct id_scope {
	const char *text;
	const struct cnames *c; /* the names of text */
	const char *kind_of;     /* each line's kind; NULL: any line counts */
	size_t nr_kinds;
	const char *kinds; /* the kinds of line whose names count */
	bool meets;        /* a hunk that does not apply: uses in lower case
			    * are taken for locals */
};

/* Check the names of sc->c on lines whose kind is in sc->kinds. */
static int check_ids(struct cause_name **names, size_t *nr,
		     const struct cause_check *chk, const struct id_scope *sc,
		     struct err *err)
{
	const char *text = sc->text, *kind_of = sc->kind_of;
	const char *kinds = sc->kinds;
	const struct cnames *c = sc->c;
	size_t nr_kinds = sc->nr_kinds;
	bool meets = sc->meets;
	struct watch_set local, members;
	size_t alloc = *nr;
	int error = 0;

	watch_set_init(&local);
	watch_set_init(&members);
	/* every name the text declares counts, whatever the line; a member
	 * only as a member (a local wq is no device->wq); a struct a pointer
	 * names only where the hunk applies: it compiles, but a hunk that
	 * does not apply is told by the type the tree lacks ("struct
	 * __btrfs_workqueue: no such type" on 3.10) */
	for (size_t i = 0; i < c->nr; i++)
		if (c->ids[i].kind == CNAMES_ID_DECL &&
		    !(meets && c->ids[i].decl == CNAMES_DECL_INCOMPLETE)) {
			const char *n = c->ids[i].name;
			size_t len = c->ids[i].len;
			enum cnames_decl_kind d = c->ids[i].decl;

			watch_set_add_n(&local, n, len, WATCH_ANY);
			if (d == CNAMES_DECL_MEMBER ||
			    d == CNAMES_DECL_MACRO_ARG ||
			    d == CNAMES_DECL_MACRO)
				watch_set_add_n(&members, n, len, WATCH_ANY);
		}
	for (size_t i = 0; i < c->nr && !error; i++) {
		const struct cnames_id *id = &c->ids[i];
		/* where the hunk does not apply, a struct a pointer names is
		 * a use of it, as above */
		enum cnames_id_kind kind =
			meets && id->kind == CNAMES_ID_DECL &&
					id->decl == CNAMES_DECL_INCOMPLETE
				? CNAMES_ID_TAG
				: id->kind;
		struct cause_name *cn;
		bool found = false;

		if (kind == CNAMES_ID_DECL || kind == CNAMES_ID_LABEL ||
		    id->directive)
			continue;
		/* in a hunk that does not apply, a plain lower-case name is
		 * most likely a local declared above the hunk, in the
		 * function the target does not have as it is */
		if (meets && kind == CNAMES_ID_USE &&
		    !upper(id->name, id->len))
			continue;
		if (kind_of && (id->line > nr_kinds ||
				!strchr(kinds, kind_of[id->line - 1])))
			continue;
		if (watch_set_find(kind == CNAMES_ID_MEMBER ? &members
								: &local,
				   id->name, id->len) ||
		    series_has(chk, id->name, id->len) ||
		    cause_names_has(*names, *nr, id->name, id->len))
			continue;
		/* the target's macros paste onto the series' names too */
		chk->view->known = series_knows;
		chk->view->known_ctx = (void *)chk;
		error = ident_view_find(&found, chk->view, id->name, id->len,
					err);
		if (!error && !found)
			error = series_builds(&found, chk, id->name, id->len,
					      err);
		if (!error && !found)
			error = pasted_argument(&found, chk, text, id, err);
		chk->view->known = NULL;
		chk->view->known_ctx = NULL;
		if (error < 0 || found)
			continue;
		ALLOC_GROW(*names, *nr + 1, alloc);
		cn = &(*names)[(*nr)++];
		memset(cn, 0, sizeof(*cn));
		cn->name = xstrndup(id->name, id->len);
		switch (kind) {
		case CNAMES_ID_MEMBER:
			cn->use = USE_MEMBER;
			break;
		case CNAMES_ID_CALL:
			cn->use = upper(id->name, id->len) ? USE_MACRO
							   : USE_FUNCTION;
			break;
		case CNAMES_ID_TAG:
			cn->use = USE_TYPE;
			cn->tag = tag_of(text, id->name);
			break;
		case CNAMES_ID_TYPE:
			cn->use = USE_TYPE;
			break;
		default:
			cn->use = upper(id->name, id->len) ? USE_MACRO : USE_NAME;
			break;
		}
		/* from an earlier patch of this series that failed? */
		if (chk->series) {
			size_t k = cause_defs_find(chk->series, id->name,
						   id->len);

			if (k != (size_t)-1) {
				cn->source.kind = SOURCE_SERIES;
				cn->source.patch = chk->series->patch[k];
			}
		}
		if (cn->source.kind == SOURCE_NONE && chk->lookup &&
		    (error = chk->lookup->fn(chk->lookup->ctx, cn->name,
					     chk->view->path, &cn->source,
					     &cn->also, err)) < 0)
			break;
	}
	watch_set_release(&local);
	watch_set_release(&members);
	return error;
}

/* A quoted include of a file the patch itself writes beside the file. */
static bool patch_adds(const struct cause_check *chk,
		       const struct cnames_include *inc)
{
	const char *path = chk->view->path, *slash = strrchr(path, '/');
	size_t dl = slash ? (size_t)(slash - path) + 1 : 0;

	for (size_t f = 0; chk->patch && f < chk->patch->nr_files; f++) {
		const char *np = chk->patch->files[f].new_path;

		if (np && strlen(np) == dl + inc->len && !memcmp(np, path, dl) &&
		    !memcmp(np + dl, inc->path, inc->len))
			return true;
	}
	return false;
}

/* The #include lines a hunk adds: the view reads them too. */
static int added_includes(const struct cause_check *chk,
			  const struct cnames *c, const char *kind_of,
			  size_t nr_kinds, struct err *err)
{
	int error = 0;

	for (size_t i = 0; i < c->nr_includes && !error; i++) {
		const struct cnames_include *inc = &c->includes[i];
		char *p;

		if (inc->line > nr_kinds || kind_of[inc->line - 1] != '+' ||
		    (!inc->angle && patch_adds(chk, inc)))
			continue;
		p = xstrndup(inc->path, inc->len);
		error = ident_view_include(chk->view, p, inc->angle, err);
		free(p);
	}
	return error;
}

int cause_missing_names(struct cause_name **names, size_t *nr,
			const struct cause_check *chk,
			const struct patch_hunk *h, const char *kinds,
			struct err *err)
{
	static const char *const sides[] = { " -", " +" };
	struct buf text = BUF_INIT;
	int error = 0;

	if (!chk->view)
		return 0;
	/* the old side for its context and removed lines, the new side for
	 * its added lines (and its context when the old side is not read) */
	for (size_t s = 0; s < 2 && !error; s++) {
		struct cnames c;
		struct buf want = BUF_INIT;
		char *kind_of;
		size_t n;

		for (const char *k = kinds; *k; k++)
			if (strchr(sides[s], *k) &&
			    !(*k == ' ' && s == 1 && strchr(kinds, '-')))
				buf_addc(&want, *k);
		if (!want.len) {
			buf_release(&want);
			continue;
		}
		side_text(&text, &kind_of, &n, h, sides[s]);
		cnames_init(&c);
		if (cnames_scan(&c, chk->view->path, text.ptr, text.len,
				CNAMES_FRAGMENT, err) == 0) {
			struct id_scope sc = {
				.text = text.ptr, .c = &c, .kind_of = kind_of,
				.nr_kinds = n, .kinds = want.ptr,
				.meets = strchr(kinds, '-') != NULL
			};

			error = added_includes(chk, &c, kind_of, n, err);
			if (!error)
				error = check_ids(names, nr, chk, &sc, err);
		} else {
			err_release(err);
		}
		cnames_release(&c);
		free(kind_of);
		buf_release(&want);
	}
	buf_release(&text);
	return error;
}

int cause_missing_in_text(struct cause_name **names, size_t *nr,
			  const struct cause_check *chk, const char *path,
			  struct span text, struct err *err)
{
	struct cnames c;
	struct buf t = BUF_INIT;
	int error = 0;

	if (!chk->view)
		return 0;
	buf_addspan(&t, text);
	cnames_init(&c);
	if (cnames_scan(&c, path, t.ptr, t.len, 0, err) == 0) {
		for (size_t i = 0; i < c.nr_includes && !error; i++) {
			char *p;

			if (!c.includes[i].angle &&
			    patch_adds(chk, &c.includes[i]))
				continue;
			p = xstrndup(c.includes[i].path, c.includes[i].len);
			error = ident_view_include(chk->view, p,
						   c.includes[i].angle, err);
			free(p);
		}
		if (!error) {
			struct id_scope sc = { .text = t.ptr, .c = &c };

			error = check_ids(names, nr, chk, &sc, err);
		}
	} else {
		err_release(err);
	}
	cnames_release(&c);
	buf_release(&t);
	return error;
}

/* ---- where missing names come from ---- */

void cause_finder_init(struct cause_finder *f, const char *root,
		       const char *series, const char *version,
		       const char *history)
{
	memset(f, 0, sizeof(*f));
	f->root = root;
	f->series = series;
	f->version = version;
	f->history = history;
	f->max_commits = 200000;
	watch_set_init(&f->names);
}

void cause_finder_release(struct cause_finder *f)
{
	for (size_t i = 0; i < f->nr; i++) {
		cause_source_release(&f->sources[i]);
		free(f->source_names[i]);
	}
	free(f->sources);
	free(f->source_names);
	watch_set_release(&f->names);
	tree_close(f->hist);
	memset(f, 0, sizeof(*f));
}

/* Whether series already adds name (in a version read before). */
static bool finder_has(const struct cause_finder *f, const char *name,
		       const char *series)
{
	if (!watch_set_find(&f->names, name, strlen(name)))
		return false;
	for (size_t i = 0; i < f->nr; i++)
		if (!strcmp(f->source_names[i], name) &&
		    !strcmp(f->sources[i].series, series))
			return true;
	return false;
}

static void source_copy(struct cause_source *to,
			const struct cause_source *from)
{
	*to = *from;
	to->series = xstrdup(from->series);
	to->version = xstrdup(from->version);
	to->file = xstrdup(from->file);
}

/* What every patch of every other stored version declares. */
static int finder_load(struct cause_finder *f, struct err *err)
{
	char **names = NULL;
	size_t nr = 0;
	int error;

	f->loaded = true;
	if ((error = series_list_names(f->root, &names, &nr, err)) < 0)
		return error;
	for (size_t i = 0; i < nr && !error; i++) {
		char **vs = NULL;
		size_t nv = 0;

		if (series_list_versions(f->root, names[i], &vs, &nv, err) < 0) {
			err_release(err);
			continue;
		}
		for (size_t k = 0; k < nv && !error; k++) {
			struct series_version v;

			if (!strcmp(names[i], f->series) &&
			    !strcmp(vs[k], f->version))
				continue;
			series_version_init(&v, NULL, NULL);
			if (series_load_version(&v, f->root, names[i], vs[k],
						err) < 0) {
				/* a version that does not load adds nothing */
				err_release(err);
				series_version_release(&v);
				continue;
			}
			for (size_t p = 0; p < v.nr; p++) {
				struct watch_set decls;

				watch_set_init(&decls);
				cause_patch_decls(&decls, &v.items[p].patch,
						  true);
				for (size_t d = 0; d < decls.cap; d++) {
					const char *n = decls.slots[d].name;
					struct cause_source *src;

					if (!n || finder_has(f, n, names[i]))
						continue;
					watch_set_add(&f->names, n, WATCH_ANY);
					ALLOC_GROW(f->sources, f->nr + 1,
						   f->alloc);
					ALLOC_GROW(f->source_names, f->nr + 1,
						   f->alloc_names);
					src = &f->sources[f->nr];
					memset(src, 0, sizeof(*src));
					src->kind = SOURCE_OTHER;
					src->patch = p + 1;
					src->series = xstrdup(names[i]);
					src->version = xstrdup(vs[k]);
					src->file = xstrdup(v.items[p].file);
					f->source_names[f->nr++] = xstrdup(n);
				}
				watch_set_release(&decls);
			}
			series_version_release(&v);
		}
		series_free_list(vs, nv);
	}
	series_free_list(names, nr);
	return error;
}

int cause_finder_find(void *ctx, const char *name, const char *path,
		      struct cause_source *out, struct cause_source *also,
		      struct err *err)
{
	struct cause_finder *f = ctx;
	const char *slash = path ? strrchr(path, '/') : NULL;
	int error;

	memset(out, 0, sizeof(*out));
	memset(also, 0, sizeof(*also));
	if (!f->loaded && (error = finder_load(f, err)) < 0)
		return error;
	if (watch_set_find(&f->names, name, strlen(name))) {
		for (size_t i = 0; i < f->nr; i++) {
			if (strcmp(f->source_names[i], name))
				continue;
			if (out->kind == SOURCE_NONE) {
				source_copy(out, &f->sources[i]);
				continue;
			}
			/* another series adds it too: two candidates */
			source_copy(also, &f->sources[i]);
			break;
		}
		if (out->kind != SOURCE_NONE)
			return 0;
	}
	if (f->history && !f->hist_tried) {
		f->hist_tried = true;
		if (tree_open(&f->hist, f->history, err) < 0) {
			/* a history that cannot be read names nothing */
			err_release(err);
			f->hist = NULL;
		}
	}
	if (f->hist) {
		char *dir = slash ? xstrndup(path, (size_t)(slash - path))
				  : xstrdup("");
		const char *paths[] = { dir, "include" };
		struct tree_pickaxe_query q = { "HEAD", name, paths,
						*dir ? 2 : 1, f->max_commits };
		struct tree_pickaxe_hit hit = { 0 };
		char hex[41];

		error = tree_pickaxe(&hit, f->hist, &q, err);
		free(dir);
		if (error < 0) {
			err_release(err);
			return 0;
		}
		if (hit.found) {
			tree_oid_hex(hex, &hit.commit);
			out->kind = SOURCE_UPSTREAM;
			out->commit = xstrdup(hex);
			out->subject = hit.subject;
			hit.subject = NULL;
		}
		free(hit.subject);
	}
	return 0;
}
