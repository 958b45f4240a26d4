#include "blame.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct blame_file {
	size_t step;           /* index in cr->patches */
	char *path;            /* path after the patch */
	char *old_path;        /* path before it (renames) */
	const struct patch_file *pf; /* the patch's diff of this file */
	struct tree_line_hunk *hunks;
	size_t nr_hunks;
	struct buf text;       /* the file after the patch */
};

void blame_init(struct blame *b, struct tree_repo *repo,
		const struct carry_result *cr, size_t upto)
{
	memset(b, 0, sizeof(*b));
	b->repo = repo;
	b->cr = cr;
	b->upto = upto && upto < cr->nr ? upto : cr->nr;
}

void blame_release(struct blame *b)
{
	for (size_t i = 0; i < b->nr_files; i++) {
		free(b->files[i].path);
		free(b->files[i].old_path);
		free(b->files[i].hunks);
		buf_release(&b->files[i].text);
	}
	free(b->files);
	memset(b, 0, sizeof(*b));
}

void blame_line_release(struct blame_line *l)
{
	free(l->base_path);
	memset(l, 0, sizeof(*l));
}

void blame_attribution_release(struct blame_attribution *a)
{
	free(a->symbol);
	free(a->where);
	free(a->patches);
	memset(a, 0, sizeof(*a));
}

/*
 * The diff of path in committed patch step, or NULL when it has none;
 * *before: the path the file had before the patch (renames), NULL when
 * the patch creates it.  A file patch adaptation rule 1 moved changed
 * the file it went to (carry_file.moved_to), not its own.
 */
static const struct patch_file *patch_touches(const struct carry_patch *cp,
					      const char *path,
					      const char **before)
{
	*before = NULL;
	if (!cp->committed || !cp->item)
		return NULL;
	for (size_t f = 0; f < cp->item->patch.nr_files; f++) {
		const struct patch_file *pf = &cp->item->patch.files[f];
		const struct carry_file *cf = NULL;

		/* carry's files follow the patch's (unless a resolution
		 * replayed another one) */
		if (f < cp->nr_files &&
		    !strcmp(cp->files[f].path, patch_file_path(pf)))
			cf = &cp->files[f];
		if (cf && cf->moved_to) {
			/* a split file sends its hunks to several files */
			bool here = false;

			for (size_t h = 0; !here && h < cf->nr_hunks; h++)
				here = !strcmp(carry_hunk_path(cf, h), path);
			if (!here)
				continue;
			*before = path;
			return pf;
		}
		if (pf->new_path && !strcmp(pf->new_path, path)) {
			*before = pf->old_path;
			return pf;
		}
	}
	return NULL;
}

/* The commit before step: the previous committed patch's, or the base. */
static const struct tree_oid *parent_of(const struct carry_result *cr,
					size_t step)
{
	for (size_t k = step; k > 0; k--)
		if (cr->patches[k - 1].committed)
			return &cr->patches[k - 1].commit;
	return &cr->base;
}

static int read_at(struct buf *out, bool *exists, struct tree_repo *r,
		   const struct tree_oid *commit, const char *path,
		   struct err *err)
{
	struct tree_oid tree;
	unsigned mode;
	int error;

	if ((error = tree_commit_tree(&tree, r, commit, err)) < 0)
		return error;
	return tree_read_file(out, exists, &mode, r, &tree, path, err);
}

static int file_at(struct blame_file **out, struct blame *b, size_t step,
		   const char *path, struct err *err)
{
	const struct carry_patch *cp = &b->cr->patches[step];
	const char *before;
	const struct patch_file *pf = patch_touches(cp, path, &before);
	struct blame_file *bf;
	struct buf old = BUF_INIT;
	bool exists = false;
	int error;

	*out = NULL;
	if (!pf)
		return 0;
	for (size_t i = 0; i < b->nr_files; i++)
		if (b->files[i].step == step && !strcmp(b->files[i].path, path)) {
			*out = &b->files[i];
			return 0;
		}
	ALLOC_GROW(b->files, b->nr_files + 1, b->alloc_files);
	bf = &b->files[b->nr_files];
	memset(bf, 0, sizeof(*bf));
	buf_init(&bf->text, 0);
	bf->step = step;
	bf->path = xstrdup(path);
	bf->old_path = xstrdup(before ? before : path);
	bf->pf = pf;
	if ((error = read_at(&bf->text, &exists, b->repo, &cp->commit, path,
			     err)) < 0)
		goto fail;
	if (before &&
	    (error = read_at(&old, &exists, b->repo, parent_of(b->cr, step),
			     before, err)) < 0)
		goto fail;
	if ((error = tree_diff_lines(&bf->hunks, &bf->nr_hunks,
				     (struct span){ old.ptr, old.len },
				     (struct span){ bf->text.ptr, bf->text.len },
				     err)) < 0)
		goto fail;
	buf_release(&old);
	b->nr_files++;
	*out = bf;
	return 0;
fail:
	buf_release(&old);
	free(bf->path);
	free(bf->old_path);
	buf_release(&bf->text);
	return error;
}

static struct span nth_line(const struct buf *text, unsigned long n)
{
	const char *p = text->ptr, *end = text->ptr + text->len;

	for (unsigned long i = 1; p < end; i++) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		size_t len = e ? (size_t)(e - p) : (size_t)(end - p);
		if (i == n)
			return (struct span){ p, len };
		if (!e)
			break;
		p = e + 1;
	}
	return SPAN_NULL;
}

/* Which hunk of the patch's diff added line n of the file: the hunk with
 * a '+' line of that text, else the one whose new range is nearest. */
static size_t hunk_of(const struct blame_file *bf, unsigned long n)
{
	struct span s = nth_line(&bf->text, n);
	const struct patch_file *pf = bf->pf;
	size_t best = 0;
	unsigned long dist = (unsigned long)-1;

	if (s.ptr) {
		size_t hits = 0, hit = 0;
		for (size_t h = 0; h < pf->nr_hunks; h++)
			for (size_t k = 0; k < pf->hunks[h].nr_lines; k++) {
				const struct patch_line *pl = &pf->hunks[h].lines[k];
				if (pl->kind == '+' && pl->text.len == s.len &&
				    !memcmp(pl->text.ptr, s.ptr, s.len)) {
					if (!hits || hit != h + 1)
						hits++;
					hit = h + 1;
					break;
				}
			}
		if (hits == 1)
			return hit;
	}
	for (size_t h = 0; h < pf->nr_hunks; h++) {
		unsigned long a = pf->hunks[h].new_start,
			      e = a + pf->hunks[h].new_count;
		unsigned long d = n < a ? a - n : n >= e ? n - e + 1 : 0;
		if (d < dist) {
			dist = d;
			best = h + 1;
		}
	}
	return best;
}

int blame_line(struct blame_line *out, struct blame *b, const char *path,
	       unsigned long line, struct err *err)
{
	char *p = xstrdup(path);
	unsigned long n = line;
	int error = 0;

	memset(out, 0, sizeof(*out));
	for (size_t step = b->upto; step > 0; step--) {
		struct blame_file *bf;
		long shift = 0;

		if ((error = file_at(&bf, b, step - 1, p, err)) < 0)
			goto out;
		if (!bf)
			continue;
		for (size_t h = 0; h < bf->nr_hunks; h++) {
			const struct tree_line_hunk *x = &bf->hunks[h];
			if (x->new_lines && n >= x->new_start &&
			    n < x->new_start + x->new_lines) {
				out->patch = step;
				out->hunk = hunk_of(bf, n);
				goto out;
			}
			if ((x->new_lines && x->new_start + x->new_lines <= n) ||
			    (!x->new_lines && x->new_start < n))
				shift += (long)x->new_lines - (long)x->old_lines;
		}
		n = (unsigned long)((long)n - shift);
		if (strcmp(p, bf->old_path)) {
			free(p);
			p = xstrdup(bf->old_path);
		}
	}
	out->base_line = n;
	out->base_path = p;
	p = NULL;
out:
	free(p);
	return error;
}

size_t blame_patches_touching(size_t **out, const struct blame *b,
			      const char *path)
{
	size_t nr = 0;

	*out = xcalloc(b->upto + 1, sizeof(**out));
	for (size_t i = 0; i < b->upto; i++) {
		const char *before;

		if (patch_touches(&b->cr->patches[i], path, &before))
			(*out)[nr++] = i + 1;
	}
	return nr;
}

static bool is_ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

size_t blame_removed_identifier(const struct blame *b, const char *ident)
{
	for (size_t i = 0; i < b->upto; i++) {
		const struct carry_patch *cp = &b->cr->patches[i];
		bool removed = false, added = false;

		if (!cp->committed || !cp->item)
			continue;
		for (size_t f = 0; f < cp->item->patch.nr_files; f++) {
			const struct patch_file *pf = &cp->item->patch.files[f];
			for (size_t h = 0; h < pf->nr_hunks; h++)
				for (size_t k = 0; k < pf->hunks[h].nr_lines; k++) {
					const struct patch_line *l =
						&pf->hunks[h].lines[k];
					bool has = l->kind != ' ' &&
						   span_has_word(l->text, ident,
								 strlen(ident));

					if (l->kind == '-' && has)
						removed = true;
					else if (l->kind == '+' && has)
						added = true;
				}
		}
		if (removed && !added)
			return i + 1;
	}
	return 0;
}

size_t blame_symbol_patch(const struct blame *b,
			  const struct audit_result *audit, const char *sym)
{
	size_t first_watched = 0;

	for (size_t i = 0; i < b->upto && audit && i < audit->nr_patches; i++) {
		const struct audit_patch *ap = &audit->patches[i];
		const struct carry_patch *cp = &b->cr->patches[i];

		if (!cp->committed || !cp->item)
			continue;
		for (size_t k = 0; k < ap->nr_hunks; k++) {
			const struct audit_hunk *ah = &ap->hunks[k];
			const struct patch_file *pf;

			if (!ah->watched || ah->file >= cp->item->patch.nr_files)
				continue;
			if (!first_watched)
				first_watched = i + 1;
			pf = &cp->item->patch.files[ah->file];
			if (ah->hunk >= pf->nr_hunks)
				continue;
			for (size_t l = 0; l < pf->hunks[ah->hunk].nr_lines; l++) {
				const struct patch_line *pl =
					&pf->hunks[ah->hunk].lines[l];
				if (pl->kind != ' ' &&
				    span_has_word(pl->text, sym, strlen(sym)))
					return i + 1;
			}
		}
	}
	return first_watched;
}

/* the quoted words of a message: 'foo', ‘foo’ */
static size_t quoted_words(char ***out, const char *msg)
{
	size_t nr = 0;
	const char *p = msg;

	*out = NULL;
	while (*p) {
		const char *a = NULL, *e;
		size_t ql = 0;
		if (*p == '\'') {
			a = p + 1;
		} else if (!strncmp(p, "\xe2\x80\x98", 3)) {
			a = p + 3;
		}
		if (!a) {
			p++;
			continue;
		}
		e = a;
		while (*e && *e != '\'' && strncmp(e, "\xe2\x80\x99", 3))
			e++;
		if (!*e)
			break;
		ql = *e == '\'' ? 1 : 3;
		*out = xrealloc(*out, (nr + 1) * sizeof(char *));
		(*out)[nr++] = xstrndup(a, (size_t)(e - a));
		p = e + ql;
	}
	return nr;
}

/* The identifiers of a quoted word: "struct foo" -> foo; "f(int)" -> f */
static char *last_ident(const char *w)
{
	const char *e = w + strlen(w), *best_a = NULL, *best_e = NULL;
	const char *p = w;

	while (p < e) {
		if (is_ident_char(*p) && !isdigit((unsigned char)*p)) {
			const char *a = p;
			while (p < e && is_ident_char(*p))
				p++;
			if (strncmp(a, "struct", 6) || p - a != 6) {
				if (!best_a) {
					best_a = a;
					best_e = p;
				}
			}
		} else
			p++;
	}
	return best_a ? xstrndup(best_a, (size_t)(best_e - best_a)) : NULL;
}

static const struct audit_site *caller_at(const struct audit_result *audit,
					  const struct diag *d)
{
	const struct audit_site *best = NULL;

	for (size_t i = 0; audit && i < audit->nr_unconverted; i++) {
		const struct audit_site *s = &audit->unconverted[i];
		if (strcmp(s->path, d->path) || d->line < s->line ||
		    d->line > s->line + 5)
			continue;
		if (d->line == s->line || strstr(d->message, s->symbol) ||
		    (d->function && s->func && !strcmp(d->function, s->func))) {
			if (!best || s->line > best->line)
				best = s;
		}
	}
	return best;
}

int blame_attribute(struct blame_attribution *a, struct blame *b,
		    const struct diag *d, const struct audit_result *audit,
		    struct err *err)
{
	struct blame_line bl;
	const struct audit_site *site;
	int error;

	memset(a, 0, sizeof(*a));
	if ((error = blame_line(&bl, b, d->path, d->line, err)) < 0)
		return error;
	a->base_line = bl.base_line;
	if (bl.patch) {
		a->cause = BLAME_PATCH;
		a->patch = bl.patch;
		a->hunk = bl.hunk;
		blame_line_release(&bl);
		return 0;
	}
	blame_line_release(&bl);
	if ((site = caller_at(audit, d))) {
		a->cause = BLAME_CALLER;
		a->symbol = xstrdup(site->symbol);
		a->patch = blame_symbol_patch(b, audit, site->symbol);
		return 0;
	}
	for (size_t i = 0; i < d->nr_notes; i++) {
		struct blame_line nl;
		if ((error = blame_line(&nl, b, d->notes[i].path,
					d->notes[i].line, err)) < 0)
			return error;
		if (nl.patch) {
			a->cause = BLAME_DECLARATION;
			a->patch = nl.patch;
			a->hunk = nl.hunk;
			a->where = xstrfmt("%s:%lu", d->notes[i].path,
					   d->notes[i].line);
			blame_line_release(&nl);
			return 0;
		}
		blame_line_release(&nl);
	}
	{
		char **words = NULL;
		size_t nw = quoted_words(&words, d->message);
		for (size_t i = 0; i < nw; i++) {
			char *id = last_ident(words[i]);
			size_t p = id ? blame_removed_identifier(b, id) : 0;
			if (p && !a->patch) {
				a->cause = BLAME_REMOVED;
				a->patch = p;
				a->symbol = id;
				id = NULL;
			}
			free(id);
			free(words[i]);
		}
		free(words);
		if (a->patch)
			return 0;
	}
	a->cause = BLAME_PREEXISTING;
	a->nr_patches = blame_patches_touching(&a->patches, b, d->path);
	if (!a->nr_patches && d->unit && strcmp(d->unit, d->path)) {
		free(a->patches);
		a->nr_patches = blame_patches_touching(&a->patches, b, d->unit);
	}
	return 0;
}

const char *blame_cause_id(enum blame_cause c)
{
	switch (c) {
	case BLAME_PATCH:
		return "patch";
	case BLAME_CALLER:
		return "caller";
	case BLAME_DECLARATION:
		return "declaration";
	case BLAME_REMOVED:
		return "removed";
	default:
		return "pre-existing";
	}
}

void blame_describe(struct buf *out, const struct blame_attribution *a)
{
	switch (a->cause) {
	case BLAME_PATCH:
		buf_addf(out, "<- %04zu", a->patch);
		if (a->hunk)
			buf_addf(out, " (hunk %zu)", a->hunk);
		break;
	case BLAME_CALLER:
		if (a->patch)
			buf_addf(out, "<- %04zu | unconverted caller of %s "
				      "changed by %04zu",
				 a->patch, a->symbol, a->patch);
		else
			buf_addf(out, "<- unconverted caller of %s",
				 a->symbol);
		break;
	case BLAME_DECLARATION:
		buf_addf(out, "<- %04zu | declaration at %s changed by %04zu",
			 a->patch, a->where, a->patch);
		if (a->hunk)
			buf_addf(out, " (hunk %zu)", a->hunk);
		break;
	case BLAME_REMOVED:
		buf_addf(out, "<- %04zu | '%s' removed or renamed by %04zu",
			 a->patch, a->symbol, a->patch);
		break;
	case BLAME_PREEXISTING:
		buf_adds(out, "<- pre-existing line, broken by the series");
		if (a->nr_patches) {
			buf_adds(out, " (file touched by ");
			for (size_t i = 0; i < a->nr_patches; i++)
				buf_addf(out, "%s%04zu", i ? ", " : "",
					 a->patches[i]);
			buf_addc(out, ')');
		} else
			buf_adds(out, " (no patch touches this file)");
		break;
	}
}
