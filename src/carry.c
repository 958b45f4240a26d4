#include "carry.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "adapt_move.h"
#include "kconfig.h"
#include "lex.h"
#include "mail.h"
#include "name.h"
#include "strmap.h"

/* The files apply_one gave p (p->files left NULL). */
static void patch_files_release(struct carry_patch *p)
{
	for (size_t f = 0; f < p->nr_files; f++) {
		struct carry_file *cf = &p->files[f];
		free(cf->path);
		free(cf->error);
		for (size_t h = 0; h < cf->nr_hunks; h++) {
			free(cf->hunks[h].func);
			free(cf->hunks[h].found_func);
			free(cf->hunks[h].reason);
			free(cf->hunks[h].similar);
			cause_free(cf->hunks[h].cause);
			free(cf->hunks[h].found);
			adaptation_free(cf->hunks[h].adapt);
		}
		free(cf->hunks);
		free(cf->moved_to);
		for (size_t h = 0; cf->hunk_to && h < cf->nr_hunks; h++)
			free(cf->hunk_to[h]);
		free(cf->hunk_to);
		buf_release(&cf->rej);
	}
	free(p->files);
	p->files = NULL;
	p->nr_files = 0;
}

void carry_result_release(struct carry_result *res)
{
	for (size_t i = 0; i < res->nr; i++) {
		struct carry_patch *p = &res->patches[i];

		patch_files_release(p);
		free(p->depends);
		free(p->refreshed);
	}
	free(res->patches);
	free(res->series);
	free(res->version);
	free(res->target);
	free(res->branch);
	memset(res, 0, sizeof(*res));
}

char *carry_branch_name(const char *series, const char *version,
			const char *target)
{
	struct buf b = BUF_INIT;

	buf_adds(&b, "refs/heads/kcarry/");
	name_ref_component(&b, series);
	buf_addc(&b, '/');
	name_ref_component(&b, version);
	buf_addc(&b, '/');
	name_ref_component(&b, target);
	return buf_detach(&b, NULL);
}

const char *carry_hunk_path(const struct carry_file *cf, size_t h)
{
	if (cf->hunk_to)
		return h < cf->nr_hunks && cf->hunk_to[h] ? cf->hunk_to[h]
							  : cf->path;
	return cf->moved_to ? cf->moved_to : cf->path;
}

bool carry_patch_failed(const struct carry_patch *p)
{
	return p->outcome == OUTCOME_CONFLICT || p->outcome == OUTCOME_PARTIAL;
}

int carry_note_form_parse(enum carry_note_form *f, const char *name)
{
	if (!strcasecmp(name, "stable"))
		*f = CARRY_NOTE_STABLE;
	else if (!strcasecmp(name, "rhel"))
		*f = CARRY_NOTE_RHEL;
	else
		return -1;
	return 0;
}

size_t carry_adapted_notes(struct buf *msg, const struct carry_patch *cp)
{
	bool rhel = cp->note_form == CARRY_NOTE_RHEL;
	bool trailers = cp->item && cp->item->patch.nr_trailers > 0;
	struct buf notes = BUF_INIT;
	size_t n = 0;

	for (size_t f = 0; f < cp->nr_files; f++)
		for (size_t h = 0; h < cp->files[f].nr_hunks; h++) {
			const struct adaptation *a = cp->files[f].hunks[h].adapt;

			if (!a)
				continue;
			if (rhel)
				buf_addf(&notes, "%s%s: hunk %zu: %s\n",
					 n ? "  " : "Conflicts: ",
					 cp->files[f].path, h + 1, a->note);
			else
				buf_addf(&notes, "[ adapted: %s hunk %zu: %s ]\n",
					 cp->files[f].path, h + 1, a->note);
			n++;
		}
	if (!n)
		return 0;
	if (msg->len && msg->ptr[msg->len - 1] != '\n')
		buf_addc(msg, '\n');
	/* a paragraph of its own, unless it joins the trailers (stable) */
	if (msg->len && !(msg->len >= 2 && msg->ptr[msg->len - 2] == '\n') &&
	    (rhel || !trailers))
		buf_addc(msg, '\n');
	buf_add(msg, notes.ptr, notes.len);
	buf_release(&notes);
	return n;
}

/* Move a hunk result into the file record (the strings change owner). */
static void take_hunks(struct carry_file *cf, struct apply_file_result *ar)
{
	cf->hunks = ar->hunks;
	cf->nr_hunks = ar->nr_hunks;
	ar->hunks = NULL;
	ar->nr_hunks = 0;
	buf_swap(&cf->rej, &ar->rej);
}

static enum apply_outcome patch_outcome(const struct carry_patch *cp)
{
	bool any_already = false, all_already = cp->nr_files > 0;
	bool any_conflict = false;
	enum apply_outcome worst = OUTCOME_CLEAN;

	for (size_t f = 0; f < cp->nr_files; f++) {
		const struct carry_file *cf = &cp->files[f];
		bool file_already = cf->outcome == OUTCOME_ALREADY;

		for (size_t h = 0; h < cf->nr_hunks; h++)
			if (cf->hunks[h].rule == RULE_ALREADY)
				any_already = true;
		if (!file_already)
			all_already = false;
		if (cf->outcome == OUTCOME_CONFLICT ||
		    cf->outcome == OUTCOME_PARTIAL)
			any_conflict = true;
		else if (!file_already)
			worst = apply_worse(worst, cf->outcome);
	}
	if (all_already)
		return OUTCOME_ALREADY;
	if (any_already)
		return OUTCOME_PARTIAL; /* never half-apply a patch silently */
	if (any_conflict)
		return OUTCOME_CONFLICT;
	return worst;
}

/*
 * The files a patch has changed so far: a later section of the same patch
 * for one of them (GNU patch applies such sections in turn) starts from
 * this content, not from the tree.
 */
struct overlay_file {
	char *path;
	struct buf data;
	unsigned mode;
	bool removed;
};

struct overlay {
	struct overlay_file **f; /* pointers: the map borrows their paths */
	size_t nr, alloc;
	struct strmap index; /* path -> position in f */
};

static struct overlay_file *overlay_find(struct overlay *o, const char *path)
{
	size_t i = strmap_get(&o->index, path);
	return i == (size_t)-1 ? NULL : o->f[i];
}

static struct overlay_file *overlay_get(struct overlay *o, const char *path)
{
	struct overlay_file *f = overlay_find(o, path);

	if (f)
		return f;
	ALLOC_GROW(o->f, o->nr + 1, o->alloc);
	f = o->f[o->nr] = xcalloc(1, sizeof(*f));
	f->path = xstrdup(path);
	buf_init(&f->data, 0);
	strmap_put(&o->index, f->path, o->nr++);
	return f;
}

static void overlay_release(struct overlay *o)
{
	for (size_t i = 0; i < o->nr; i++) {
		free(o->f[i]->path);
		buf_release(&o->f[i]->data);
		free(o->f[i]);
	}
	free(o->f);
	strmap_release(&o->index);
}

/* The content of path as the patch has left it so far. */
static int read_current(struct buf *out, bool *exists, unsigned *mode,
			struct overlay *o, struct tree_repo *repo,
			const struct tree_oid *tree, const char *path,
			struct err *err)
{
	struct overlay_file *f = overlay_find(o, path);

	if (!f)
		return tree_read_file(out, exists, mode, repo, tree, path, err);
	buf_reset(out);
	*exists = !f->removed;
	*mode = f->mode;
	if (!f->removed)
		buf_add(out, f->data.ptr, f->data.len);
	return 0;
}

/* A file of the patch that cannot be handled: a conflict of its own. */
static void file_failed(struct carry_file *cf, const char *why)
{
	cf->outcome = OUTCOME_CONFLICT;
	free(cf->error);
	cf->error = xstrdup(why);
}

/*
 * After libgit2 refused the tree: the first changed path to be created
 * under a file or symlink of the tree (or of the patch), described in
 * *why (a new string), or NULL when that is not the reason.
 */
static const char *under_a_file(char **why, struct tree_repo *repo,
				const struct tree_oid *tree, struct overlay *o)
{
	struct buf blob = BUF_INIT;
	struct err err = ERR_INIT;
	const char *found = NULL;

	*why = NULL;
	for (size_t i = 0; i < o->nr && !found; i++) {
		char *dir = xstrdup(o->f[i]->path), *slash;

		while (!o->f[i]->removed && !found &&
		       (slash = strrchr(dir, '/')) != NULL) {
			struct overlay_file *of;
			bool exists = false;
			unsigned mode;

			*slash = '\0';
			of = overlay_find(o, dir);
			if (of)
				exists = !of->removed;
			else if (tree_read_file(&blob, &exists, &mode, repo,
						tree, dir, &err) < 0)
				break;
			if (exists) {
				*why = xstrfmt("cannot create '%s': '%s' is a "
					       "file in the tree",
					       o->f[i]->path, dir);
				found = o->f[i]->path;
			}
		}
		free(dir);
	}
	buf_release(&blob);
	err_release(&err);
	return found;
}

/* Write the changed files as a new tree; a tree libgit2 refuses (a file
 * where a folder must be...) fails the patch, not the series. */
static int write_tree(struct carry_patch *cp, struct tree_repo *repo,
		      struct tree_oid *tree, struct overlay *o, struct err *err)
{
	struct tree_change *ch = xcalloc(o->nr + 1, sizeof(*ch));
	struct err terr = ERR_INIT;
	int error = 0;

	for (size_t i = 0; i < o->nr && !error; i++) {
		ch[i].path = o->f[i]->path;
		ch[i].remove = o->f[i]->removed;
		ch[i].mode = o->f[i]->mode;
		if (!o->f[i]->removed)
			error = tree_write_blob(&ch[i].blob, repo,
						o->f[i]->data.ptr,
						o->f[i]->data.len, err);
	}
	if (!error && tree_update(tree, repo, tree, ch, o->nr, &terr) < 0) {
		struct carry_file *cf = &cp->files[0];
		char *why;
		const char *path = under_a_file(&why, repo, tree, o);

		if (!path && (terr.code != ERR_IO || cp->nr_files == 0)) {
			error = err_set(err, terr.code, "%s", terr.msg.ptr);
		} else {
			for (size_t f = 0; f < cp->nr_files; f++)
				if (path ? !strcmp(cp->files[f].path, path)
					 : strstr(terr.msg.ptr,
						  cp->files[f].path) != NULL)
					cf = &cp->files[f];
			file_failed(cf, why ? why : terr.msg.ptr);
			cp->outcome = OUTCOME_CONFLICT;
		}
		free(why);
	}
	err_release(&terr);
	free(ch);
	return error;
}

/* The Kconfig symbols the added lines of p's Kconfig files declare. */
static void kconfig_patch_decls(struct kconfig_set *s, const struct patch *p)
{
	kconfig_set_init(s);
	for (size_t f = 0; f < p->nr_files; f++) {
		const struct patch_file *pf = &p->files[f];

		if (!kconfig_file(patch_file_path(pf)))
			continue;
		for (size_t k = 0; k < pf->nr_hunks; k++)
			for (size_t i = 0; i < pf->hunks[k].nr_lines; i++) {
				const struct patch_line *l =
					&pf->hunks[k].lines[i];
				struct span name;

				if (l->kind == '+' &&
				    kconfig_decl(l->text.ptr, l->text.len,
						 &name))
					kconfig_set_add(s, name.ptr, name.len);
			}
	}
}

/* What the name check knows of the series so far. */
struct names {
	struct cause_defs defs;  /* what earlier patches declare */
	struct cause_defs ahead; /* what any patch of the series declares */
	/* per patch of the series, read once: what its added lines
	 * declare, and what they declare that its removed lines do not */
	struct watch_set *decls, *added;
	/* the same of a resolution replayed instead of the patch */
	struct watch_set replay_decls, replay_added;
	/* what this patch's added lines declare, and add */
	const struct watch_set *own, *adds;
	const struct carry_result *res; /* the patches before this one */
	const struct series_version *v; /* the series carried */
	size_t index;            /* 0-based, of this patch */
	const struct patch *patch; /* this patch */
	/* Kconfig: per patch, the symbols its added lines declare; what
	 * the tree declares, read on the first symbol no patch declares
	 * (kread) */
	struct kconfig_set *kdecls;
	struct kconfig_set ktree;
	bool kread;
};

/* What every step of one carry shares: the repository, the options, the
 * name check's state and where errors go. */
struct carry_run {
	struct tree_repo *repo;
	const struct carry_opts *opts;
	struct names *nm;
	struct err *err;
	/* the tree the patch at hand meets (apply_one's), or NULL */
	const struct tree_oid *tree;
};

static void append_reason(struct apply_hunk_result *r, const char *text)
{
	char *old = r->reason;

	r->reason = old ? xstrfmt("%s; %s", old, text) : xstrdup(text);
	free(old);
}

static bool c_file(const char *path)
{
	return path && (ends_with(path, ".c") || ends_with(path, ".h"));
}

/*
 * Whether a patch of the series after nm->index removes the line text
 * from path in a hunk that adds no line naming name: the series replaces
 * that use itself, and its end result has no such line (Debian's 6.1 RT
 * 0005 writes vrf.c's dstats->rx_pkts, a member 6.1 lacks; its 0065
 * turns the line back).
 */
static bool replaced_later(const struct names *nm, const char *path,
			   struct span text, const char *name)
{
	for (size_t j = nm->index + 1; nm->v && j < nm->v->nr; j++) {
		const struct patch *p = &nm->v->items[j].patch;

		for (size_t f = 0; f < p->nr_files; f++) {
			const struct patch_file *pf = &p->files[f];

			if (!pf->old_path || strcmp(pf->old_path, path))
				continue;
			for (size_t k = 0; k < pf->nr_hunks; k++) {
				const struct patch_hunk *h = &pf->hunks[k];
				bool removes = false, names = false;

				for (size_t i = 0; i < h->nr_lines; i++) {
					const struct patch_line *l = &h->lines[i];

					removes |= l->kind == '-' &&
						   l->text.len == text.len &&
						   !memcmp(l->text.ptr, text.ptr,
							   text.len);
					names |= l->kind == '+' &&
						 span_has_word(l->text, name,
							       strlen(name));
				}
				if (removes && !names)
					return true;
			}
		}
	}
	return false;
}

/*
 * Drop from names those whose every added line of hunk h (of path) a
 * later patch replaces (replaced_later()): the series' own, as a name a
 * later patch declares is.  A name stands in a line as prefix + name
 * (a makefile's "CONFIG_" + symbol).
 */
static void drop_replaced(struct cause_name *names, size_t *nr,
			  const struct names *nm, const char *path,
			  const struct patch_hunk *h, const char *prefix)
{
	size_t kept = 0;

	for (size_t n = 0; n < *nr; n++) {
		char *word = xstrfmt("%s%s", prefix, names[n].name);
		bool used = false, all = true;

		for (size_t i = 0; i < h->nr_lines && all; i++) {
			const struct patch_line *l = &h->lines[i];

			if (l->kind != '+' ||
			    !span_has_word(l->text, word, strlen(word)))
				continue;
			used = true;
			all = replaced_later(nm, path, l->text, word);
		}
		free(word);
		if (used && all)
			cause_name_release(&names[n]);
		else
			names[kept++] = names[n];
	}
	*nr = kept;
}

/* The names hunk k of pf uses that the tree lacks: a cause for it. */
static int hunk_names(struct apply_hunk_result *r, struct cause_check *chk,
		      const struct patch_file *pf, size_t k,
		      const struct buf *whole, const struct names *nm,
		      struct err *err)
{
	struct cause_name *names = NULL;
	size_t nr = 0;
	int error;

	if (whole)
		error = cause_missing_in_text(&names, &nr, chk,
					      patch_file_path(pf),
					      (struct span){ whole->ptr,
							     whole->len },
					      err);
	else
		error = cause_missing_names(&names, &nr, chk, &pf->hunks[k],
					    r->rule == RULE_CONFLICT ? " -+"
								     : "+",
					    err);
	if (error >= 0 && nr && !whole && r->rule != RULE_CONFLICT)
		drop_replaced(names, &nr, nm, patch_file_path(pf),
			      &pf->hunks[k], "");
	if (error < 0 || !nr) {
		cause_names_free(names, nr);
		return error;
	}
	r->cause = xcalloc(1, sizeof(*r->cause));
	r->cause->kind = CAUSE_NAMES;
	r->cause->names = names;
	r->cause->nr_names = nr;
	if (r->rule != RULE_CONFLICT) {
		struct buf t = BUF_INIT;

		cause_names_text(&t, names, nr);
		r->risk = true;
		append_reason(r, t.ptr);
		buf_release(&t);
	}
	return 0;
}

/*
 * Whether the Kconfig symbol name (len bytes) is declared for patch
 * nm->index: by the patch as carried (own: a resolution replayed may
 * differ from the patch), by a later patch of the series, by an earlier
 * one that applied, or by the tree it meets (X_MODULE is X in a
 * makefile: make).  When only an earlier patch that failed declares it,
 * *from gets that patch (1-based).  A tree without Kconfig files knows
 * every symbol.
 */
static int kconfig_known(bool *known, size_t *from, struct names *nm,
			 const struct carry_run *run,
			 const struct kconfig_set *own, struct span name,
			 bool make)
{
	int error;

	*known = true;
	*from = 0;
	if (kconfig_set_has(own, name.ptr, name.len))
		return 0;
	for (size_t j = nm->res->nr; j-- > 0;) {
		if (j == nm->index ||
		    !kconfig_set_has(&nm->kdecls[j], name.ptr, name.len))
			continue;
		if (j > nm->index || nm->res->patches[j].committed)
			return 0;
		*from = j + 1;
	}
	if (!nm->kread) {
		nm->kread = true;
		error = run->opts->index
				? ident_kconfig_decls(&nm->ktree,
						      run->opts->index,
						      run->tree, run->err)
				: kconfig_tree_decls(&nm->ktree, run->repo,
						     run->tree, run->err);
		if (error < 0)
			return error;
	}
	*known = !nm->ktree.nr ||
		 kconfig_set_has(&nm->ktree, name.ptr, name.len) ||
		 (make && kconfig_module_of(&nm->ktree, name));
	return 0;
}

/* The Kconfig symbols hunk h's added lines refer to that nothing
 * declares (kconfig_known()), appended to *names; *silent once the file
 * is found too partial to say (its coverage measured on the first such
 * symbol: *measured). */
static int kconfig_hunk_names(struct cause_name **names, size_t *nr,
			      bool *silent, bool *measured,
			      const struct patch_hunk *h,
			      struct span old, bool make,
			      const struct kconfig_set *own,
			      const struct carry_run *run)
{
	size_t alloc = *nr, hi = 0;
	bool help = false;
	int error = 0;

	for (size_t i = 0; i < h->nr_lines && !error && !*silent; i++) {
		const struct patch_line *l = &h->lines[i];
		struct span refs[16];
		size_t n = 0;

		if (l->kind == '-')
			continue;
		if (l->kind == '+' && make)
			n = kconfig_make_refs(l->text.ptr, l->text.len, refs, 16);
		else if (l->kind == '+')
			n = kconfig_refs(l->text.ptr, l->text.len,
					 kconfig_help_line(l->text.ptr,
							   l->text.len, help,
							   hi),
					 refs, 16);
		help = kconfig_help_after(l->text.ptr, l->text.len, help, &hi);
		for (size_t j = 0; j < n && j < 16 && !error && !*silent; j++) {
			struct cause_name *cn;
			bool known;
			size_t from;

			error = kconfig_known(&known, &from, run->nm, run, own,
					      refs[j], make);
			if (error < 0 || known ||
			    cause_names_has(*names, *nr, refs[j].ptr,
					    refs[j].len))
				continue;
			/* a partial tree: nothing is said (as for C names) */
			if (!*measured) {
				*measured = true;
				*silent = kconfig_coverage(&run->nm->ktree,
							   old.ptr, old.len,
							   make) <
					  IDENT_COVERAGE;
				if (*silent)
					break;
			}
			ALLOC_GROW(*names, *nr + 1, alloc);
			cn = &(*names)[(*nr)++];
			memset(cn, 0, sizeof(*cn));
			cn->name = xstrndup(refs[j].ptr, refs[j].len);
			cn->use = USE_KCONFIG;
			if (from) {
				cn->source.kind = SOURCE_SERIES;
				cn->source.patch = from;
			}
		}
	}
	return error;
}

/*
 * The Kconfig symbols the added lines of each landed hunk of Kconfig file
 * or Kbuild makefile pf (old: the file in the target) refer to that
 * nothing declares (docs/apply-rules.md, "Names"): a risk, as a missing C
 * name is.  Nothing is said where under IDENT_COVERAGE percent of the
 * symbols the file itself refers to resolve (a partial tree).
 */
static int kconfig_names(struct apply_file_result *ar,
			 const struct patch_file *pf, struct span old,
			 const struct carry_run *run)
{
	bool make = kconfig_makefile(patch_file_path(pf)), silent = false;
	bool measured = false;
	struct kconfig_set own;
	int error = 0;

	kconfig_patch_decls(&own, run->nm->patch);
	for (size_t k = 0; k < ar->nr_hunks && !error && !silent; k++) {
		struct apply_hunk_result *r = &ar->hunks[k];
		const struct patch_hunk *h =
			r->rule == RULE_ADAPTED && r->adapt ? &r->adapt->hunk
							    : &pf->hunks[k];
		struct cause_name *names = NULL;
		size_t nr = 0;
		struct buf t = BUF_INIT;

		if (r->rule == RULE_CONFLICT || r->rule == RULE_ALREADY)
			continue;
		error = kconfig_hunk_names(&names, &nr, &silent, &measured, h,
					   old, make, &own, run);
		if (error >= 0 && nr)
			drop_replaced(names, &nr, run->nm, patch_file_path(pf),
				      h, make ? "CONFIG_" : "");
		if (error < 0 || silent || !nr) {
			cause_names_free(names, nr);
			continue;
		}
		/* a Kconfig file or makefile has no C names: no cause yet */
		r->cause = xcalloc(1, sizeof(*r->cause));
		r->cause->kind = CAUSE_NAMES;
		r->cause->names = names;
		r->cause->nr_names = nr;
		cause_names_text(&t, names, nr);
		r->risk = true;
		ar->risk = true;
		append_reason(r, t.ptr);
		buf_release(&t);
	}
	kconfig_set_release(&own);
	return error < 0 ? error : 0;
}

/* Failed patch fp changed lines of path that hunk h meets (3 lines
 * apart at most). */
static bool failed_meets(const struct carry_patch *fp, const char *path,
			 const struct patch_hunk *h)
{
	unsigned long lo = h->old_start, hi = h->old_start + h->old_count;
	const struct patch *q = &fp->item->patch;

	if (!carry_patch_failed(fp) || fp->skipped)
		return false;
	for (size_t f = 0; f < q->nr_files; f++) {
		const struct patch_file *qf = &q->files[f];

		if (strcmp(patch_file_path(qf), path))
			continue;
		if (!qf->nr_hunks)
			return true;
		for (size_t g = 0; g < qf->nr_hunks; g++) {
			unsigned long glo = qf->hunks[g].new_start;
			unsigned long ghi = glo + qf->hunks[g].new_count;

			if (lo <= ghi + 3 && glo <= hi + 3)
				return true;
		}
	}
	return false;
}

/* Some patch before this one failed and changed lines hunk h meets. */
static bool meets_failed(const struct names *nm, const char *path,
			 const struct patch_hunk *h)
{
	for (size_t j = 0; nm->res && j < nm->index; j++)
		if (failed_meets(&nm->res->patches[j], path, h))
			return true;
	return false;
}

/* The patches before this one that failed and changed lines hunk h meets. */
static void failed_near(struct cause *c, const struct names *nm,
			const char *path, const struct patch_hunk *h)
{
	for (size_t j = 0; nm->res && j < nm->index; j++) {
		if (!failed_meets(&nm->res->patches[j], path, h))
			continue;
		c->patches = xrealloc(c->patches, (c->nr_patches + 1) *
						      sizeof(size_t));
		c->patches[c->nr_patches++] = j + 1;
	}
}

/* The first clause of a reason ("context does not match near line 9"). */
static char *first_clause(const char *reason)
{
	const char *semi = reason ? strstr(reason, "; ") : NULL;

	if (!reason)
		return xstrdup("");
	return semi ? xstrndup(reason, (size_t)(semi - reason))
		    : xstrdup(reason);
}

/* The hunk header names a function ("static int foo(...)"), not a struct
 * or a macro's expansion. */
static bool names_function(const struct patch_hunk *h)
{
	struct span sec = span_trim(h->section);
	const char *paren = memchr(sec.ptr, '(', sec.len);
	static const char *const tags[] = { "struct ", "union ", "enum ",
					    "static struct ", "const struct " };

	if (!paren || line_initializer(sec.ptr, sec.len))
		return false;
	/* "struct btrfs_root *btrfs_get_root(...)" is a function; a struct
	 * with an initializer ("static struct x y = { f(..." ) is not */
	for (size_t i = 0; i < sizeof(tags) / sizeof(*tags); i++)
		if (span_starts_with(sec, tags[i]))
			return memchr(sec.ptr, ')', sec.len) != NULL &&
			       memchr(sec.ptr, '{', sec.len) == NULL;
	/* a macro invocation: DECLARE_EVENT_CLASS(btrfs__work, */
	for (const char *p = sec.ptr; p < paren; p++)
		if (*p >= 'a' && *p <= 'z')
			return true;
	return false;
}

/* Why risk r (hunk k of pf) is one, in t: what is missing, else what
 * its reason says. */
static void explain_risk(struct buf *t, struct apply_hunk_result *r,
			 const struct patch_file *pf, size_t k)
{
	struct cause *c = r->cause;

	if (c->nr_names) {
		c->kind = CAUSE_NAMES;
		cause_names_text(t, c->names, c->nr_names);
	} else if (r->similar && r->func && r->found_func &&
		   names_function(&pf->hunks[k]) &&
		   !strcmp(r->found_func, r->similar)) {
		/* it landed in the function that looks like the
		 * one it names */
		c->kind = CAUSE_FUNCTION;
		c->function = xstrdup(r->func);
		c->similar = xstrdup(r->similar);
		c->similarity = r->similarity;
		buf_addf(t, "%s has no %s(); it landed in %s(), the "
			    "same function by its body (%u%% of the "
			    "hunk's lines are in it)",
			 patch_file_path(pf), r->func, r->similar,
			 r->similarity);
	} else {
		char *first = first_clause(r->reason);

		c->kind = r->rule == RULE_ALREADY ? CAUSE_PRESENT
						  : CAUSE_PLACEMENT;
		buf_adds(t, first);
		free(first);
	}
}

/* In t: conflicting hunk r (hunk k of pf) names a function that old
 * lacks, and the one there that looks like it. */
static void explain_function(struct buf *t, struct apply_hunk_result *r,
			     const struct patch_file *pf, size_t k,
			     struct span old)
{
	struct cause *c = r->cause;
	const char *path = patch_file_path(pf);

	c->kind = CAUSE_FUNCTION;
	c->function = xstrdup(r->func);
	if (!r->similar)
		cause_similar_function(&r->similar, &r->similarity, old, path,
				       &pf->hunks[k], r->func);
	buf_addf(t, "%s has no %s()", path, r->func);
	if (r->similar) {
		c->similar = xstrdup(r->similar);
		c->similarity = r->similarity;
		buf_addf(t, "; %s() is %s() here (%u%% of the hunk's "
			    "lines are in it)",
			 r->func, r->similar, r->similarity);
	}
}

/* In t: the failed patches before this one whose lines c's hunk meets. */
static void explain_failed(struct buf *t, struct cause *c)
{
	if (c->kind == CAUSE_CONTEXT)
		c->kind = CAUSE_FAILED_PATCH;
	buf_addf(t, "%sit meets lines of %s", t->len ? "; " : "",
		 c->nr_patches > 1 ? "patches" : "patch");
	for (size_t i = 0; i < c->nr_patches; i++)
		buf_addf(t, "%s %04zu", i ? "," : "", c->patches[i]);
	buf_addf(t, ", which did not apply");
}

/* c's text: t, with the prerequisites and the series it stacks on. */
static void explain_done(struct cause *c, struct buf *t)
{
	cause_prereqs_text(t, c); /* adaptation rule 6, cause.c */
	for (size_t i = 0; i < c->nr_names && !c->stacks_on; i++)
		if (c->names[i].source.kind == SOURCE_OTHER &&
		    c->names[i].also.kind == SOURCE_NONE)
			c->stacks_on = xstrdup(c->names[i].source.series);
	if (c->stacks_on)
		buf_addf(t, "; series.stacks-on = %s would bring it",
			 c->stacks_on);
	free(c->text);
	c->text = buf_detach(t, NULL);
}

/*
 * Why hunk r (of file pf, meeting the target's text old) conflicts or is
 * a risk, in one line, with what it needs.
 */
static void explain(struct apply_hunk_result *r, const struct patch_file *pf,
		    size_t k, struct span old, bool exists,
		    const struct names *nm, const char *file_reason)
{
	struct cause *c = r->cause;
	struct buf t = BUF_INIT;
	const char *path = patch_file_path(pf);

	if (!c) {
		c = r->cause = xcalloc(1, sizeof(*c));
		c->kind = CAUSE_CONTEXT;
	}
	if (r->rule != RULE_CONFLICT) {
		explain_risk(&t, r, pf, k);
		goto done;
	}
	if (file_reason) {
		c->kind = CAUSE_FILE;
		buf_adds(&t, file_reason);
		goto done;
	}
	if (r->func && exists && c_file(path) && names_function(&pf->hunks[k]) &&
	    !cause_defines_function(old, path, r->func))
		explain_function(&t, r, pf, k, old);
	if (c->nr_names) {
		if (c->kind == CAUSE_CONTEXT)
			c->kind = CAUSE_NAMES;
		if (t.len)
			buf_adds(&t, "; ");
		cause_names_text(&t, c->names, c->nr_names);
	}
	failed_near(c, nm, path, &pf->hunks[k]);
	if (c->nr_patches)
		explain_failed(&t, c);
	if (!t.len) {
		char *first = first_clause(r->reason);

		buf_adds(&t, first);
		free(first);
	}
done:
	explain_done(c, &t);
}

/* The file rule 1 moved hunk k of cf to, or NULL. */
static const char *moved_path(const struct carry_file *cf, size_t k)
{
	return cf->hunk_to ? cf->hunk_to[k] : cf->moved_to;
}

/*
 * hunk_names() for hunk k of pf, which rule 1 moved to the file to: its
 * names are looked for where it went (its function's parameters and
 * locals, that file's headers), not in pf's missing file.
 */
static int moved_hunk_names(struct apply_hunk_result *r,
			    const struct cause_check *chk,
			    const struct patch_file *pf, size_t k,
			    const char *to, const struct carry_run *run)
{
	const struct tree_oid *tree = run->tree;
	struct cause_check here = *chk;
	struct ident_view v;
	struct buf text = BUF_INIT;
	bool exists = false;
	unsigned mode = 0;
	int error;

	if ((error = tree_read_file(&text, &exists, &mode, run->repo, tree, to,
				    run->err)) < 0)
		return error;
	ident_view_open(&v, run->opts->index, tree, to,
			(struct span){ text.ptr, text.len });
	here.view = &v;
	error = hunk_names(r, &here, pf, k, NULL, run->nm, run->err);
	ident_view_release(&v);
	buf_release(&text);
	return error;
}

/*
 * The name check of file patch pf (meeting old in run->tree) and the
 * causes of its hunks that conflict or are risks; cf: where rule 1 moved
 * them.
 */
static int explain_file(struct apply_file_result *ar,
			const struct patch_file *pf, struct span old,
			bool exists, const struct carry_file *cf,
			const struct carry_run *run)
{
	const struct tree_oid *tree = run->tree;
	const struct carry_opts *opts = run->opts;
	struct names *nm = run->nm;
	struct err *err = run->err;
	const char *path = patch_file_path(pf);
	bool is_new = !pf->old_path || pf->op == PATCH_ADD;
	struct ident_view v;
	struct cause_check chk = { NULL, nm->patch, NULL, NULL, opts->lookup };
	struct buf whole = BUF_INIT;
	int error = 0;

	if (opts->index && c_file(path) && (pf->new_path || is_new)) {
		ident_view_open(&v, opts->index, tree, path,
				exists && !is_new ? old : (struct span){ NULL, 0 });
		chk.view = &v;
		chk.own = nm->own;
		chk.series = &nm->defs;
		chk.ahead = &nm->ahead;
		chk.patch_no = nm->index + 1;
		if (is_new)
			for (size_t k = 0; k < pf->nr_hunks; k++)
				for (size_t i = 0; i < pf->hunks[k].nr_lines; i++)
					if (pf->hunks[k].lines[i].kind != '-') {
						buf_addspan(&whole, pf->hunks[k].lines[i].text);
						buf_addc(&whole, '\n');
					}
		for (size_t k = 0; k < ar->nr_hunks && !error; k++) {
			struct apply_hunk_result *r = &ar->hunks[k];

			if (r->rule == RULE_ALREADY || (is_new && k) ||
			    (is_new && r->rule == RULE_CONFLICT))
				continue;
			if (r->rule == RULE_ADAPTED && moved_path(cf, k))
				error = moved_hunk_names(r, &chk, pf, k,
							 moved_path(cf, k),
							 run);
			else
				error = hunk_names(r, &chk, pf, k,
						   is_new ? &whole : NULL, nm,
						   err);
			if (r->risk)
				ar->risk = true;
		}
		ident_view_release(&v);
		buf_release(&whole);
		if (error < 0)
			return error;
	}
	if ((kconfig_file(path) || kconfig_makefile(path)) && pf->new_path &&
	    pf->op != PATCH_DELETE &&
	    (error = kconfig_names(ar, pf, old, run)) < 0)
		return error;
	for (size_t k = 0; k < ar->nr_hunks; k++) {
		struct apply_hunk_result *r = &ar->hunks[k];

		if (r->rule == RULE_CONFLICT || r->risk)
			explain(r, pf, k, old, exists, nm,
				r->rule == RULE_CONFLICT ? ar->reason : NULL);
	}
	return 0;
}

/* --- adaptation, rule 1 (moved code): adapt_move.c; here, whether a
 * file that exists lost its hunks' functions --- */

/*
 * Rule 1 for a file that exists: every hunk of res conflicts, each in a
 * function its header names that old no longer defines (btrfs 6.2 moved
 * btrfs_defrag_file() from ioctl.c into defrag.c).  The first such
 * function (res's), or NULL.
 */
static const char *functions_gone(const struct apply_file_result *res,
				  const struct patch_file *pf, struct span old)
{
	const char *path = patch_file_path(pf);

	if (!c_file(path) || !res->nr_hunks)
		return NULL;
	for (size_t k = 0; k < res->nr_hunks; k++) {
		const struct apply_hunk_result *r = &res->hunks[k];

		if (r->rule != RULE_CONFLICT || !r->func ||
		    !names_function(&pf->hunks[k]) ||
		    cause_defines_function(old, path, r->func))
			return NULL;
	}
	return res->hunks[0].func;
}

/* path as the patch has left it so far (adapt_move.c reads through it) */
static int read_moved(struct buf *out, bool *exists, unsigned *mode,
		      const char *path, const struct moved_ctx *mc,
		      struct err *err)
{
	return read_current(out, exists, mode, mc->ov, mc->repo, mc->tree,
			    path, err);
}

/*
 * The hunks of file f of patch i that are never adapted: those
 * carry_opts.no_adapt names, and those meeting lines an earlier patch of
 * the series changed and failed to apply (a function or context missing
 * because of it is that patch's cause, not a move or a drift: RT's
 * 5.10.223 0314 switches the exports of the ww_mutex_lock() its failed
 * 0176 adds to rtmutex.c, and rule 1 took mainline's in mutex.c).  One
 * flag per hunk of pf in *mask (new, or NULL when none); whether any.
 */
static bool refused_hunks(bool **mask, const struct carry_opts *opts,
			  const struct names *nm, size_t f,
			  const struct patch_file *pf)
{
	*mask = NULL;
	for (size_t k = 0; k < opts->nr_no_adapt; k++) {
		const struct carry_hunk_ref *r = &opts->no_adapt[k];

		if (r->patch != nm->index || r->file != f ||
		    r->hunk >= pf->nr_hunks)
			continue;
		if (!*mask)
			*mask = xcalloc(pf->nr_hunks, sizeof(**mask));
		(*mask)[r->hunk] = true;
	}
	for (size_t k = 0; k < pf->nr_hunks; k++) {
		if (!meets_failed(nm, patch_file_path(pf), &pf->hunks[k]))
			continue;
		if (!*mask)
			*mask = xcalloc(pf->nr_hunks, sizeof(**mask));
		(*mask)[k] = true;
	}
	return *mask != NULL;
}

/* What apply_one shares among the file patches of its patch. */
struct one_patch {
	struct carry_patch *cp;
	const struct carry_run *run; /* run->tree: the tree the patch meets */
	struct overlay ov;
	struct buf old; /* the file the file patch at hand meets */
};

/* The file patch apply_one carries now. */
struct one_file {
	const struct patch_file *pf;
	size_t f; /* its index in the patch */
	struct carry_file *cf;
	unsigned mode; /* of the file it meets, or where rule 1 moved it */
	bool exists;   /* the file it meets */
	bool refused;  /* some of its hunks are never adapted
			* (refused_hunks(): named, or after a failed patch) */
};

/* A rename or copy of a file the tree does not have: its file fails. */
static void not_in_tree(struct carry_file *cf, const struct patch_file *pf)
{
	char *why = xstrfmt("cannot %s '%s': it is not in the tree",
			    pf->op == PATCH_RENAME ? "rename" : "copy",
			    pf->old_path);

	file_failed(cf, why);
	free(why);
}

/*
 * apply_file of of->pf to op->old, the hunks refused_hunks() names never
 * adapted (of->refused: some are).  1: the file patch cannot apply
 * (bad, binary) and its file fails; < 0: the carry fails.
 */
static int apply_plain(struct apply_file_result *ar, struct one_patch *op,
		       struct one_file *of)
{
	const struct carry_opts *opts = op->run->opts;
	struct err ferr = ERR_INIT;
	struct apply_opts ao;
	bool *no_adapt;
	int rc;

	of->refused = refused_hunks(&no_adapt, opts, op->run->nm, of->f,
				    of->pf);
	ao = opts->apply;
	ao.no_adapt_hunk = no_adapt;
	rc = apply_file(ar, of->pf, (struct span){ op->old.ptr, op->old.len },
			of->exists, &ao, &ferr);
	free(no_adapt);
	if (rc < 0) {
		if (ferr.code != ERR_PARSE && ferr.code != ERR_CONFLICT) {
			rc = err_set(op->run->err, ferr.code, "%s",
				     ferr.msg.ptr);
			err_release(&ferr);
			return rc;
		}
		file_failed(of->cf, ferr.msg.ptr);
		err_release(&ferr);
		return 1;
	}
	err_release(&ferr);
	return 0;
}

/* Rule 1 for a file patch that conflicts (gone: the function its file
 * lost, or NULL): cf learns where its hunks went, moved what they made. */
static int apply_moved(struct apply_file_result *ar, struct moved_out *moved,
		       struct one_patch *op, struct one_file *of,
		       const char *gone)
{
	const struct carry_run *run = op->run;
	struct moved_ctx mc = { read_moved, &op->ov, run->repo, run->tree,
				&run->opts->apply };
	struct carry_file *cf = of->cf;
	int error;

	if ((error = adapt_moved(ar, moved, of->pf, gone, &mc, run->err)) < 0)
		return error;
	cf->moved_to = moved->moved_to;
	cf->hunk_to = moved->hunk_to;
	moved->moved_to = NULL;
	moved->hunk_to = NULL;
	if (cf->moved_to && !cf->hunk_to)
		of->mode = moved->mode;
	return 0;
}

/* What a file patch that applies (ar, or moved's files when rule 1 moved
 * it hunk by hunk) leaves in the overlay. */
static void overlay_result(struct one_patch *op, const struct one_file *of,
			   struct apply_file_result *ar,
			   struct moved_out *moved)
{
	const struct patch_file *pf = of->pf;
	struct overlay *ov = &op->ov;

	if (moved->nr_files) {
		/* rule 1 hunk by hunk: each file its hunks went to */
		for (size_t i = 0; i < moved->nr_files; i++) {
			struct moved_file *mf = &moved->files[i];
			struct overlay_file *f = overlay_get(ov, mf->path);

			f->removed = false;
			buf_swap(&f->data, &mf->text);
			f->mode = mf->mode ? mf->mode : 0100644;
		}
	} else if (ar->deleted) {
		overlay_get(ov, pf->old_path)->removed = true;
	} else {
		bool renamed = pf->old_path && pf->new_path &&
			       strcmp(pf->old_path, pf->new_path);
		struct overlay_file *f = overlay_get(
			ov, of->cf->moved_to ? of->cf->moved_to : pf->new_path);

		f->removed = false;
		buf_swap(&f->data, &ar->out);
		f->mode = pf->new_mode ? pf->new_mode
			  : of->mode   ? of->mode
				       : 0100644;
		if (renamed && pf->op == PATCH_RENAME)
			overlay_get(ov, pf->old_path)->removed = true;
	}
}

/* File patch f of apply_one's patch, carried onto the file it meets as
 * the patch has left it so far; its record joins op->cp's files. */
static int carry_file(struct one_patch *op, const struct patch_file *pf,
		      size_t f)
{
	const struct carry_run *run = op->run;
	struct one_file of = { pf, f, &op->cp->files[op->cp->nr_files++] };
	const char *src = pf->old_path ? pf->old_path : pf->new_path;
	struct span old;
	struct apply_file_result ar;
	struct moved_out moved = { 0 };
	const char *gone = NULL;
	int error;

	of.cf->path = xstrdup(patch_file_path(pf));
	buf_init(&of.cf->rej, 0);
	if ((error = read_current(&op->old, &of.exists, &of.mode, &op->ov,
				  run->repo, run->tree, src, run->err)) < 0)
		return error;
	if (!of.exists && (pf->op == PATCH_RENAME || pf->op == PATCH_COPY)) {
		not_in_tree(of.cf, pf);
		return 0;
	}
	old = (struct span){ op->old.ptr, op->old.len };
	apply_file_result_init(&ar);
	if ((error = apply_plain(&ar, op, &of)) != 0) {
		apply_file_result_release(&ar);
		return error < 0 ? error : 0;
	}
	if (ar.outcome == OUTCOME_CONFLICT && of.exists)
		gone = functions_gone(&ar, pf, old);
	/* rule 1 also for a file that keeps some hunks (gone NULL):
	 * adapt_moved() moves those whose function left it */
	if ((ar.outcome == OUTCOME_CONFLICT && !of.refused &&
	     (error = apply_moved(&ar, &moved, op, &of, gone)) < 0) ||
	    (error = explain_file(&ar, pf, old, of.exists, of.cf, run)) < 0) {
		apply_file_result_release(&ar);
		moved_out_release(&moved);
		return error;
	}
	of.cf->outcome = ar.outcome;
	of.cf->risk = ar.risk;
	if (ar.risk)
		op->cp->risk = true;
	if (ar.outcome <= OUTCOME_ADAPTED)
		overlay_result(op, &of, &ar, &moved);
	take_hunks(of.cf, &ar);
	apply_file_result_release(&ar);
	moved_out_release(&moved);
	return 0;
}

static int apply_one(struct carry_patch *cp, struct tree_oid *tree,
		     const struct patch *p, const struct carry_run *run)
{
	const struct carry_opts *opts = run->opts;
	struct carry_run here = *run;
	struct one_patch op = { cp, &here, { 0 }, BUF_INIT };
	int error = 0;

	here.tree = tree;
	cp->files = xcalloc(p->nr_files + 1, sizeof(*cp->files));
	for (size_t f = 0; f < p->nr_files && !error; f++)
		error = carry_file(&op, &p->files[f], f);
	if (!error) {
		cp->outcome = patch_outcome(cp);
		if (!p->nr_files)
			cp->outcome = OUTCOME_CLEAN;
		/* --strict, decided here alone: a risk fails the patch, and
		 * its changes never reach the tree */
		if (opts->strict && cp->risk && cp->outcome <= OUTCOME_ADAPTED)
			cp->outcome = OUTCOME_CONFLICT;
		if (cp->outcome <= OUTCOME_ADAPTED && op.ov.nr)
			error = write_tree(cp, run->repo, tree, &op.ov,
					   run->err);
	}
	buf_release(&op.old);
	overlay_release(&op.ov);
	return error;
}

static void person_of(struct tree_person *who, const struct patch *p)
{
	long long epoch = 0;
	int tz = 0;

	memset(who, 0, sizeof(*who));
	who->name = p->author_name;
	who->email = p->author_email;
	if (p->date && mail_parse_date(p->date, &epoch, &tz)) {
		who->when = epoch;
		who->tz = tz;
	}
}

static char *commit_message(const struct series_item *it,
			    const struct carry_patch *cp)
{
	const struct patch *p = &it->patch;
	struct buf m = BUF_INIT;

	buf_adds(&m, p->subject && *p->subject ? p->subject : it->file);
	buf_adds(&m, "\n");
	if (p->message.len) {
		buf_adds(&m, "\n");
		buf_add(&m, p->message.ptr, p->message.len);
		if (m.ptr[m.len - 1] != '\n')
			buf_addc(&m, '\n');
	}
	if (cp->outcome == OUTCOME_ADAPTED)
		carry_adapted_notes(&m, cp); /* after a blank line */
	return buf_detach(&m, NULL);
}

int carry_fingerprint(char hex[41], struct tree_repo *repo,
		      const struct tree_oid *tree, const struct patch *p,
		      struct err *err)
{
	struct buf b = BUF_INIT;
	int error = 0;

	for (size_t f = 0; f < p->nr_files && !error; f++) {
		const struct patch_file *pf = &p->files[f];
		const char *src = pf->old_path ? pf->old_path : pf->new_path;
		char id[41];
		bool exists;

		if ((error = tree_file_id(id, &exists, repo, tree, src, err)) < 0)
			break;
		buf_addf(&b, "file %s %s %s\n", src,
			 pf->new_path ? pf->new_path : "-", id);
		/* hunk lines without their line numbers: stable across
		 * versions that only moved the change */
		for (size_t h = 0; h < pf->nr_hunks; h++) {
			const struct patch_hunk *ph = &pf->hunks[h];
			buf_adds(&b, "@@\n");
			for (size_t l = 0; l < ph->nr_lines; l++) {
				buf_addc(&b, ph->lines[l].kind);
				buf_addspan(&b, ph->lines[l].text);
				buf_addc(&b, '\n');
			}
		}
	}
	if (!error)
		tree_hash(hex, b.ptr, b.len);
	buf_release(&b);
	return error;
}

void carry_refusals_free(struct carry_refusal *r, size_t nr)
{
	for (size_t k = 0; k < nr; k++) {
		free(r[k].path);
		free(r[k].diag);
		free(r[k].adapted);
	}
	free(r);
}

void carry_adaptation_id(char hex[41], const struct adaptation *a)
{
	const char *text = a->adapted ? a->adapted : "";

	tree_hash(hex, text, strlen(text));
}

bool carry_refusal_holds(const struct carry_refusal *r,
			 const struct adaptation *a)
{
	char id[41];

	/* an older record did not keep what it refused: it refuses any
	 * adaptation of the hunk, as it did when it was written */
	if (!r->adapted)
		return true;
	if (!a || !a->adapted)
		return false;
	carry_adaptation_id(id, a);
	return !strcmp(id, r->adapted);
}

/* Refusal r names a hunk of p (the same file patch, a hunk it has)? */
static bool refusal_fits(const struct carry_refusal *r, const struct patch *p)
{
	return r->file < p->nr_files && r->hunk < p->files[r->file].nr_hunks &&
	       !strcmp(patch_file_path(&p->files[r->file]), r->path);
}

/*
 * Refused hunk r of cp, a conflict again: its cause is the build's
 * diagnostic (a hunk that applies without adaptation keeps its outcome).
 */
static void mark_refused(struct carry_patch *cp, const struct carry_refusal *r,
			 const char *target)
{
	struct apply_hunk_result *hr;

	if (r->file >= cp->nr_files || r->hunk >= cp->files[r->file].nr_hunks)
		return;
	hr = &cp->files[r->file].hunks[r->hunk];
	if (hr->rule != RULE_CONFLICT)
		return;
	cause_free(hr->cause);
	hr->cause = xcalloc(1, sizeof(*hr->cause));
	hr->cause->kind = CAUSE_BUILD;
	hr->cause->text = xstrfmt("a build on %s refused this adaptation: %s",
				  target, r->diag);
	hr->cause->adapted = r->adapted ? xstrdup(r->adapted) : NULL;
	free(hr->reason);
	hr->reason = xstrdup("not adapted: a build refused the adaptation "
			     "on this tree");
}

/* The adaptation of hunk r of cp, or NULL when it is not adapted. */
static const struct adaptation *adapted_at(const struct carry_patch *cp,
					   const struct carry_refusal *r)
{
	const struct apply_hunk_result *hr;

	if (r->file >= cp->nr_files || r->hunk >= cp->files[r->file].nr_hunks)
		return NULL;
	hr = &cp->files[r->file].hunks[r->hunk];
	return hr->rule == RULE_ADAPTED ? hr->adapt : NULL;
}

/* The refusals of one patch, and the hunks never adapted. */
struct held {
	const struct carry_refusal *r;
	size_t nr;
	bool *held;                  /* per refusal: it holds */
	struct carry_hunk_ref *refs; /* room for nr more */
	size_t n;
};

/*
 * apply_one with the hunks of hd->refs never adapted, each refusal that
 * holds (hd->held) among them.  A refusal holds for the
 * adaptation the hunk gets now: carried once, a hunk adapted as its
 * refusal names joins refs and the patch is carried again, until none
 * more holds (each round adds one at least, so at most nr + 1).
 */
static int apply_held(struct carry_patch *cp, struct tree_oid *tree,
		      const struct patch *p, const struct carry_run *run,
		      struct held *hd)
{
	const struct carry_refusal *r = hd->r;
	struct carry_hunk_ref *refs = hd->refs;
	size_t nr = hd->nr, *n = &hd->n;
	bool *held = hd->held;
	struct carry_opts po = *run->opts;
	struct carry_run pr = *run;
	int error;

	pr.opts = &po;
	for (;;) {
		struct tree_oid t = *tree;
		size_t more = 0;

		po.no_adapt = refs;
		po.nr_no_adapt = *n;
		if ((error = apply_one(cp, &t, p, &pr)) < 0)
			return error;
		for (size_t k = 0; k < nr; k++) {
			if (held[k] || !refusal_fits(&r[k], p) ||
			    !carry_refusal_holds(&r[k], adapted_at(cp, &r[k])))
				continue;
			held[k] = true;
			refs[(*n)++] = (struct carry_hunk_ref){
				run->nm->index, r[k].file, r[k].hunk
			};
			more++;
		}
		if (!more) {
			*tree = t;
			return 0;
		}
		patch_files_release(cp);
		cp->outcome = OUTCOME_CLEAN;
		cp->risk = false;
	}
}

/*
 * apply_one, with the hunks whose adaptation a build refused on tree
 * (carry_opts.refused) never adapted when the refusal holds for the
 * adaptation they get (carry_refusal_holds): patch i of the series,
 * carried as p (the patch, not a person's resolution).
 */
static int apply_refusing(struct carry_patch *cp, struct tree_oid *tree,
			  const struct patch *p, size_t i, const char *target,
			  const struct carry_run *run)
{
	const struct carry_opts *opts = run->opts;
	struct carry_refusal *refusals = NULL;
	struct held hd = { 0 };
	size_t nr = 0;
	int error;

	if (!opts->refused || cp->resolved || !cp->fingerprint[0])
		return apply_one(cp, tree, p, run);
	error = opts->refused(opts->refused_ctx, cp->fingerprint, tree,
			      &refusals, &nr, run->err);
	if (error == ERR_NOTFOUND || (!error && !nr)) {
		carry_refusals_free(refusals, nr);
		return apply_one(cp, tree, p, run);
	}
	if (error < 0)
		return error;
	hd.r = refusals;
	hd.nr = nr;
	hd.refs = xcalloc(opts->nr_no_adapt + nr, sizeof(*hd.refs));
	hd.held = xcalloc(nr, sizeof(*hd.held));
	for (size_t k = 0; k < opts->nr_no_adapt; k++)
		hd.refs[hd.n++] = opts->no_adapt[k];
	/* an older record's refusals hold before anything is carried */
	for (size_t k = 0; k < nr; k++)
		if (refusal_fits(&refusals[k], p) &&
		    carry_refusal_holds(&refusals[k], NULL)) {
			hd.held[k] = true;
			hd.refs[hd.n++] = (struct carry_hunk_ref){
				i, refusals[k].file, refusals[k].hunk
			};
		}
	error = apply_held(cp, tree, p, run, &hd);
	for (size_t k = 0; !error && k < nr; k++)
		if (hd.held[k])
			mark_refused(cp, &refusals[k], target);
	free(hd.held);
	free(hd.refs);
	carry_refusals_free(refusals, nr);
	return error;
}

/* Hunk ranges of patch touch those of a failed earlier one? */
static bool overlaps(const struct patch *later, const struct patch *failed)
{
	for (size_t a = 0; a < later->nr_files; a++) {
		const char *pa = patch_file_path(&later->files[a]);
		for (size_t b = 0; b < failed->nr_files; b++) {
			const struct patch_file *fb = &failed->files[b];
			if (strcmp(pa, patch_file_path(fb)))
				continue;
			if (!later->files[a].nr_hunks || !fb->nr_hunks)
				return true; /* new/deleted file: whole file */
			for (size_t i = 0; i < later->files[a].nr_hunks; i++) {
				const struct patch_hunk *h = &later->files[a].hunks[i];
				unsigned long lo = h->old_start;
				unsigned long hi = h->old_start + h->old_count;
				for (size_t j = 0; j < fb->nr_hunks; j++) {
					const struct patch_hunk *g = &fb->hunks[j];
					unsigned long glo = g->new_start;
					unsigned long ghi = g->new_start + g->new_count;
					if (lo <= ghi + 3 && glo <= hi + 3)
						return true;
				}
			}
		}
	}
	return false;
}

/*
 * The fingerprint of cp's patch on tree, when a resolution or a refusal
 * is looked up by it, and a person's resolution of it: *use becomes
 * replay when there is one.
 */
static int find_resolution(const struct patch **use, struct patch *replay,
			   struct carry_patch *cp, const struct tree_oid *tree,
			   const struct carry_run *run)
{
	const struct carry_opts *opts = run->opts;
	int error;

	/* the fingerprint walks the tree for every file the patch
	 * names: only to find a resolution, or below for a failure */
	if ((opts->resolution || opts->refused) &&
	    (error = carry_fingerprint(cp->fingerprint, run->repo, tree,
				       &cp->item->patch, run->err)) < 0)
		return error;
	if (opts->resolution) {
		int rc = opts->resolution(opts->resolution_ctx,
					  cp->fingerprint, replay, run->err);
		if (rc == 0) {
			*use = replay;
			cp->resolved = true;
		} else if (rc != ERR_NOTFOUND) {
			patch_release(replay);
			return rc;
		}
	}
	return 0;
}

/* The name check at patch i of the series, carried as use (replayed:
 * a person's resolution, not the patch). */
static void names_at(const struct carry_run *run, size_t i,
		     const struct patch *use, bool replayed)
{
	struct names *nm = run->nm;

	nm->index = i;
	nm->patch = use;
	nm->own = &nm->decls[i];
	nm->adds = &nm->added[i];
	if (run->opts->index && replayed) {
		/* release leaves a set empty, ready again */
		watch_set_release(&nm->replay_decls);
		watch_set_release(&nm->replay_added);
		cause_patch_decls_both(&nm->replay_decls, &nm->replay_added,
				       use);
		nm->own = &nm->replay_decls;
		nm->adds = &nm->replay_added;
	}
}

/* The failed patches before patch i of res whose lines it meets. */
static void find_depends(struct carry_result *res, size_t i)
{
	struct carry_patch *cp = &res->patches[i];

	for (size_t j = 0; j < i; j++)
		if (carry_patch_failed(&res->patches[j]) &&
		    !res->patches[j].skipped &&
		    overlaps(&cp->item->patch, &res->patches[j].item->patch)) {
			cp->depends = xrealloc(cp->depends,
					       (cp->nr_depends + 1) *
						       sizeof(size_t));
			cp->depends[cp->nr_depends++] = j + 1;
		}
}

/* Patch cp as a commit of tree on *commit (which becomes it). */
static int commit_patch(struct carry_patch *cp, const struct tree_oid *tree,
			struct tree_oid *commit, const struct carry_run *run)
{
	struct tree_person committer = { "kcarry", "kcarry@localhost", 0, 0 };
	struct tree_person author;
	char *msg = commit_message(cp->item, cp);
	int error;

	person_of(&author, &cp->item->patch);
	committer.when = author.when;
	committer.tz = author.tz;
	error = tree_commit(commit, run->repo, tree, commit, &author,
			    &committer, msg, run->err);
	free(msg);
	if (error < 0)
		return error;
	cp->committed = true;
	cp->commit = *commit;
	return error;
}

/* Patch cp's outcome and risk, counted in res. */
static void count_patch(struct carry_result *res,
			const struct carry_patch *cp)
{
	res->counts[cp->outcome]++;
	if (cp->outcome > res->worst)
		res->worst = cp->outcome;
	if (cp->risk) {
		res->risk = true;
		res->nr_risk++;
	}
}

/* The patches of v, one after the other, from tree (of commit base). */
static int carry_patches(struct carry_result *res,
			 const struct tree_oid *treep,
			 const struct tree_oid *base,
			 const struct series_version *v, const char *target,
			 const struct carry_run *run)
{
	struct tree_repo *repo = run->repo;
	const struct carry_opts *opts = run->opts;
	struct names *nm = run->nm;
	struct err *err = run->err;
	struct tree_oid tree = *treep, commit = *base;
	bool stopped = false;
	int error = 0;

	for (size_t i = 0; i < v->nr; i++) {
		struct carry_patch *cp = &res->patches[i];
		const struct series_item *it = &v->items[i];
		struct tree_oid before = tree;
		const struct patch *use = &it->patch;
		struct patch replay;

		cp->item = it;
		cp->note_form = opts->note_form;
		cp->met = tree;
		patch_init(&replay);
		if (opts->until && i + 1 >= opts->until)
			stopped = true;
		if (stopped) {
			cp->skipped = true;
			cp->outcome = OUTCOME_CONFLICT;
			continue;
		}
		if (opts->progress)
			opts->progress(opts->ctx, i, v->nr, it->patch.subject);
		error = find_resolution(&use, &replay, cp, &tree, run);
		if (error)
			return error;
		names_at(run, i, use, use != &it->patch);
		error = apply_refusing(cp, &tree, use, i, target, run);
		/* a person resolved it as "nothing to apply here": the
		 * target needs none of it, as if it were already applied */
		if (!error && cp->resolved && !use->nr_files)
			cp->outcome = OUTCOME_ALREADY;
		patch_release(&replay);
		if (error < 0) {
			err_prefix(err, "%s", it->file);
			return error;
		}
		find_depends(res, i);
		if (cp->outcome <= OUTCOME_ADAPTED &&
		    (error = commit_patch(cp, &tree, &commit, run)) < 0)
			return error;
		if (opts->index)
			cause_defs_add(&nm->defs, nm->adds, i + 1,
				       cp->committed);
		count_patch(res, cp);
		if (carry_patch_failed(cp)) {
			if (!cp->fingerprint[0] &&
			    (error = carry_fingerprint(cp->fingerprint, repo,
						       &before, &it->patch, err)) < 0)
				return error;
			res->nr_failed++;
			if (opts->stop)
				stopped = true;
		}
	}
	res->head = commit;
	if (!opts->no_ref)
		error = carry_set_ref(repo, res, err);
	return error;
}

int carry_set_ref(struct tree_repo *repo, const struct carry_result *res,
		  struct err *err)
{
	char *log = xstrfmt("kcarry apply %s@%s %s", res->series, res->version,
			    res->target);
	int error = tree_set_ref(repo, res->branch, &res->head, log, err);

	free(log);
	return error;
}

/* fewer files than this are read in turn: a thread and a second
 * repository handle cost more (rebase carries one patch at a time) */
#define PREFETCH_MIN_FILES 8

/* The files the patches read from the tree they start on, read ahead. */
static void prefetch(struct tree_repo *repo, const struct tree_oid *tree,
		     const struct series_version *v)
{
	const char **paths = NULL;
	size_t nr = 0, alloc = 0;

	for (size_t i = 0; i < v->nr; i++)
		for (size_t f = 0; f < v->items[i].patch.nr_files; f++) {
			const char *old = v->items[i].patch.files[f].old_path;

			if (!old)
				continue;
			ALLOC_GROW(paths, nr + 1, alloc);
			paths[nr++] = old;
		}
	if (nr >= PREFETCH_MIN_FILES)
		tree_prefetch_start(repo, tree, paths, nr);
	free(paths);
}

int carry_series(struct carry_result *res, struct tree_repo *repo,
		 const struct tree_oid *base, const struct series_version *v,
		 const char *target, const struct carry_opts *opts,
		 struct err *err)
{
	struct tree_oid tree;
	struct names nm;
	int error;

	memset(res, 0, sizeof(*res));
	res->series = xstrdup(v->name);
	res->version = xstrdup(v->version);
	res->target = xstrdup(target);
	res->branch = carry_branch_name(v->name, v->version, target);
	res->base = *base;
	res->patches = xcalloc(v->nr + 1, sizeof(*res->patches));
	res->nr = v->nr;
	if ((error = tree_commit_tree(&tree, repo, base, err)) < 0)
		return error;
	memset(&nm, 0, sizeof(nm));
	cause_defs_init(&nm.defs);
	cause_defs_init(&nm.ahead);
	nm.decls = xcalloc(v->nr + 1, sizeof(*nm.decls));
	nm.added = xcalloc(v->nr + 1, sizeof(*nm.added));
	nm.kdecls = xcalloc(v->nr + 1, sizeof(*nm.kdecls));
	for (size_t i = 0; i < v->nr; i++)
		kconfig_patch_decls(&nm.kdecls[i], &v->items[i].patch);
	/* last patch first: a name keeps the number of the last patch that
	 * declares it, so "a patch after this one declares it" is one test */
	for (size_t i = v->nr; i-- > 0;) {
		watch_set_init(&nm.decls[i]);
		watch_set_init(&nm.added[i]);
		if (!opts->index)
			continue;
		cause_patch_decls_both(&nm.decls[i], &nm.added[i],
				       &v->items[i].patch);
		cause_defs_add(&nm.ahead, &nm.added[i], i + 1, true);
	}
	watch_set_init(&nm.replay_decls);
	watch_set_init(&nm.replay_added);
	nm.res = res;
	nm.v = v;
	prefetch(repo, &tree, v);
	{
		struct carry_run run = { repo, opts, &nm, err, NULL };

		error = carry_patches(res, &tree, base, v, target, &run);
	}
	tree_prefetch_stop(repo);
	cause_defs_release(&nm.defs);
	cause_defs_release(&nm.ahead);
	for (size_t i = 0; i < v->nr; i++) {
		watch_set_release(&nm.decls[i]);
		watch_set_release(&nm.added[i]);
	}
	free(nm.decls);
	free(nm.added);
	for (size_t i = 0; i < v->nr; i++)
		kconfig_set_release(&nm.kdecls[i]);
	free(nm.kdecls);
	kconfig_set_release(&nm.ktree);
	watch_set_release(&nm.replay_decls);
	watch_set_release(&nm.replay_added);
	return error;
}
