#include "resolve.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "cursor.h"
#include "fs.h"
#include "mail.h"
#include "target.h"

#define MAX_FILE (256UL * 1024 * 1024)

void resolve_state_release(struct resolve_state *s)
{
	free(s->dir);
	free(s->patch_file);
	free(s->fingerprint);
	free(s->proposal);
	memset(s, 0, sizeof(*s));
}

void resolve_summary_release(struct resolve_summary *s)
{
	for (size_t i = 0; i < s->nr_paths; i++)
		free(s->paths[i]);
	free(s->paths);
	memset(s, 0, sizeof(*s));
}

char *resolve_dir(const char *root, const char *name, const char *version,
		  const char *target)
{
	return xstrfmt("%s/.kcarry/resolve/%s/%s/%s", root, name, version,
		       target);
}

int resolve_discard(const char *dir, struct err *err)
{
	char *state = fs_join(dir, "state");
	int error = 0;

	if (unlink(state) < 0 && errno != ENOENT)
		error = err_set(err, ERR_IO, "cannot remove '%s': %s", state,
				strerror(errno));
	free(state);
	return error ? error : fs_remove_tree(dir, err);
}

static int write_file(const char *dir, const char *rel, const char *suffix,
		      const struct buf *data, struct err *err)
{
	char *path = xstrfmt("%s/files/%s%s", dir, rel, suffix);
	char *slash = strrchr(path, '/');
	int error;

	*slash = '\0';
	error = fs_mkdirs(path, err);
	*slash = '/';
	if (!error)
		error = fs_write_atomic(path, data->ptr, data->len, err);
	free(path);
	return error;
}

static bool has_markers(struct span text, size_t *lineno)
{
	struct cursor c;
	struct span line;

	cursor_init(&c, text.ptr, text.len);
	while (cursor_next(&c, &line, NULL))
		if (span_starts_with(line, "<<<<<<< ") ||
		    span_starts_with(line, ">>>>>>> ") ||
		    span_eq(line, "=======") || span_starts_with(line, "||||||| ")) {
			*lineno = c.lineno - 1;
			return true;
		}
	return false;
}

/* ---- an adapted patch shown as kcarry's proposal ---- */

/* One adapted hunk as the acceptance record keeps it. */
static void record_hunk(struct buf *b, const char *path, size_t h,
			const struct adaptation *a)
{
	buf_addf(b, "file %s hunk %zu rule %s\n", path, h + 1,
		 adapt_rule_name(a->rule));
	buf_adds(b, a->adapted);
	if (b->len && b->ptr[b->len - 1] != '\n')
		buf_addc(b, '\n');
}

struct lines {
	struct span *l;
	size_t nr, alloc;
};

static void lines_add(struct lines *ls, const char *p, size_t n)
{
	ALLOC_GROW(ls->l, ls->nr + 1, ls->alloc);
	ls->l[ls->nr++] = (struct span){ p, n };
}

/* The lines of text, each without its newline. */
static void split_lines(struct lines *ls, const char *p, size_t len)
{
	const char *end = p + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		lines_add(ls, p, n);
		p += n + (nl != NULL);
	}
}

/* One side of a hunk's text ("@@" first, maybe after ---/+++ lines):
 * the context and the lines of kind k ('-' before, '+' after). */
static void hunk_side(struct lines *out, const char *text, char k)
{
	struct lines all = { 0 };

	split_lines(&all, text, strlen(text));
	for (size_t i = 0; i < all.nr; i++) {
		struct span s = all.l[i];

		if (!s.len || span_starts_with(s, "@@") ||
		    span_starts_with(s, "--- ") || span_starts_with(s, "+++ "))
			continue;
		if (s.ptr[0] == ' ' || s.ptr[0] == k)
			lines_add(out, s.ptr + 1, s.len - 1);
	}
	free(all.l);
}

static bool lines_at(const struct lines *in, size_t at,
		     const struct lines *want)
{
	if (at + want->nr > in->nr)
		return false;
	for (size_t i = 0; i < want->nr; i++)
		if (in->l[at + i].len != want->l[i].len ||
		    memcmp(in->l[at + i].ptr, want->l[i].ptr, want->l[i].len))
			return false;
	return true;
}

/* Where want stands in in, nearest 1-based line near (0-based index);
 * (size_t)-1 when nowhere. */
static size_t find_block(const struct lines *in, const struct lines *want,
			 unsigned long near)
{
	size_t best = (size_t)-1;
	unsigned long dist = (unsigned long)-1;

	for (size_t i = 0; want->nr && i + want->nr <= in->nr; i++) {
		unsigned long d = i + 1 > near ? i + 1 - near : near - i - 1;

		if (lines_at(in, i, want) && d < dist) {
			best = i;
			dist = d;
		}
	}
	return best;
}

static void add_lines(struct buf *b, const struct lines *ls, size_t from,
		      size_t n)
{
	for (size_t i = from; i < from + n; i++) {
		buf_addspan(b, ls->l[i]);
		buf_addc(b, '\n');
	}
}

struct region {
	size_t at, n;  /* lines of the file the adapted hunk's result is */
	size_t hunk;   /* 0-based */
};

static int cmp_region(const void *a, const void *b)
{
	const struct region *x = a, *y = b;

	return x->at < y->at ? -1 : x->at > y->at;
}

/* One region in diff3 style: the target's lines, the original hunk's,
 * the adapted result (what a person keeps to accept it). */
static void add_region(struct buf *b, const struct apply_file_result *ar,
		       const struct patch_file *pf, const struct region *r,
		       const struct lines *file)
{
	const struct adaptation *a = ar->hunks[r->hunk].adapt;
	struct lines target = { 0 }, orig = { 0 };

	hunk_side(&target, a->adapted, '-');
	hunk_side(&orig, a->original, '-');
	buf_addf(b, "<<<<<<< target: %s as the tree has it\n",
		 patch_file_path(pf));
	add_lines(b, &target, 0, target.nr);
	buf_addf(b, "||||||| original: hunk %zu as the patch has it\n",
		 r->hunk + 1);
	add_lines(b, &orig, 0, orig.nr);
	buf_adds(b, "=======\n");
	add_lines(b, file, r->at, r->n);
	buf_addf(b, ">>>>>>> adapted (%s): kcarry's proposal, keep it to "
		    "accept\n",
		 adapt_rule_name(a->rule));
	free(target.l);
	free(orig.l);
}

/*
 * out: ar's result with each adapted hunk's lines in diff3 style; side:
 * each adapted hunk's note, original and adapted text (PATH.adapted);
 * record: the acceptance record of the file's adapted hunks.  Returns
 * how many hunks were adapted.
 */
static size_t show_adapted(struct buf *out, struct buf *side,
			   struct buf *record,
			   const struct apply_file_result *ar,
			   const struct patch_file *pf)
{
	struct lines file = { 0 };
	struct region *rs = xcalloc(ar->nr_hunks + 1, sizeof(*rs));
	size_t nr = 0, adapted = 0, at = 0;

	split_lines(&file, ar->out.ptr, ar->out.len);
	for (size_t h = 0; h < ar->nr_hunks; h++) {
		const struct adaptation *a = ar->hunks[h].adapt;
		struct lines post = { 0 };
		size_t i;

		if (ar->hunks[h].rule != RULE_ADAPTED || !a)
			continue;
		adapted++;
		record_hunk(record, patch_file_path(pf), h, a);
		buf_addf(side, "hunk %zu: adapted by rule %s: %s\n"
			       "original hunk:\n%s\nadapted hunk:\n%s\n",
			 h + 1, adapt_rule_name(a->rule), a->note, a->original,
			 a->adapted);
		hunk_side(&post, a->adapted, '+');
		i = find_block(&file, &post, a->line);
		if (i != (size_t)-1)
			rs[nr++] = (struct region){ i, post.nr, h };
		free(post.l);
	}
	qsort(rs, nr, sizeof(*rs), cmp_region);
	buf_reset(out);
	/* a file without a final newline keeps its result unmarked */
	for (size_t k = 0; k < nr && ar->out.len &&
			   ar->out.ptr[ar->out.len - 1] == '\n';
	     k++) {
		if (rs[k].at < at)
			continue; /* overlapping: one region is enough */
		add_lines(out, &file, at, rs[k].at - at);
		add_region(out, ar, pf, &rs[k], &file);
		at = rs[k].at + rs[k].n;
	}
	if (!at)
		buf_add(out, ar->out.ptr, ar->out.len);
	else
		add_lines(out, &file, at, file.nr - at);
	free(rs);
	free(file.l);
	return adapted;
}

/* The refusals of the patch resolve_prepare shows, and which hold. */
struct refusals {
	const struct carry_refusal *r;
	size_t nr;
	bool *held; /* per refusal */
	const struct carry_patch *carried; /* resolve_patch.carried */
};

/* Refusal k names a hunk of file patch f (pf)? */
static bool refusal_in(const struct refusals *rs, size_t k, size_t f,
		       const struct patch_file *pf)
{
	const struct carry_refusal *r = &rs->r[k];

	return r->file == f && r->hunk < pf->nr_hunks &&
	       !strcmp(r->path, patch_file_path(pf));
}

/* One flag per hunk of file patch f of the patch: a refusal of its
 * adaptation holds, or the carry left it a conflict (new, or NULL when
 * none is). */
static bool *refused_mask(const struct refusals *rs, size_t f,
			  const struct patch_file *pf)
{
	const struct carry_file *cf = rs->carried && f < rs->carried->nr_files
					      ? &rs->carried->files[f]
					      : NULL;
	bool *mask = NULL;

	for (size_t k = 0; k < rs->nr; k++) {
		if (!rs->held[k] || !refusal_in(rs, k, f, pf))
			continue;
		if (!mask)
			mask = xcalloc(pf->nr_hunks, sizeof(*mask));
		mask[rs->r[k].hunk] = true;
	}
	for (size_t h = 0; cf && h < cf->nr_hunks && h < pf->nr_hunks; h++) {
		if (cf->hunks[h].rule != RULE_CONFLICT)
			continue;
		if (!mask)
			mask = xcalloc(pf->nr_hunks, sizeof(*mask));
		mask[h] = true;
	}
	return mask;
}

/* One file patch of the patch, and the file it meets. */
struct file_in {
	const struct patch_file *pf;
	size_t f;
	struct span old;
	bool exists;
};

/*
 * apply_file of in, its hunks never adapted whose refusal holds for the
 * adaptation they get (carry_refusal_holds, as carry.c does): applied
 * once, a hunk adapted as its refusal names is refused and the file
 * applied again, until no more holds.
 */
static int apply_refusing(struct apply_file_result *ar,
			  const struct file_in *in, struct apply_opts *ao,
			  struct refusals *rs, struct err *err)
{
	for (;;) {
		size_t more = 0;
		int rc;

		ao->no_adapt_hunk = refused_mask(rs, in->f, in->pf);
		rc = apply_file(ar, in->pf, in->old, in->exists, ao, err);
		free((bool *)ao->no_adapt_hunk);
		ao->no_adapt_hunk = NULL;
		if (rc < 0)
			return rc;
		for (size_t k = 0; k < rs->nr; k++) {
			const struct apply_hunk_result *hr;

			if (rs->held[k] || !refusal_in(rs, k, in->f, in->pf) ||
			    rs->r[k].hunk >= ar->nr_hunks)
				continue;
			hr = &ar->hunks[rs->r[k].hunk];
			if (hr->rule != RULE_ADAPTED ||
			    !carry_refusal_holds(&rs->r[k], hr->adapt))
				continue;
			rs->held[k] = true;
			more++;
		}
		if (!more)
			return 0;
		apply_file_result_release(ar);
		apply_file_result_init(ar);
	}
}

/* What resolve_prepare builds up over the files of the patch. */
struct prepare {
	struct resolve_summary *summary;
	const char *dir;
	const struct patch *p;
	struct tree_repo *repo;
	struct tree_oid tree;
	struct apply_opts ao;
	struct carry_refusal *refused; /* read from the cell, rs lends them */
	size_t nr_refused;
	struct refusals rs;
	struct buf old, shown, side, record;
	/* the proposal's tree: what the files are, unmarked */
	struct tree_change *ch;
	size_t nch;
	size_t alloc; /* of summary->paths */
};

/* The refusals recorded in cell for the patch meeting pc->tree
 * (fingerprint fp), and those that hold before anything is applied. */
static int prepare_refusals(struct prepare *pc,
			    const struct resolve_where *cell, const char *fp,
			    struct err *err)
{
	if (cell) {
		struct resolve_where at = *cell;
		int error;

		at.tree = &pc->tree;
		at.fingerprint = fp;
		error = resolve_read_refusals(&pc->refused, &pc->nr_refused,
					      &at, err);
		if (error < 0 && error != ERR_NOTFOUND)
			return error;
	}
	pc->rs.r = pc->refused;
	pc->rs.nr = pc->nr_refused;
	pc->rs.held = xcalloc(pc->nr_refused + 1, sizeof(*pc->rs.held));
	/* an older record's refusals hold before anything is applied */
	for (size_t k = 0; k < pc->nr_refused; k++)
		pc->rs.held[k] = carry_refusal_holds(&pc->refused[k], NULL);
	return 0;
}

/* The change file patch pf's result ar makes to the proposal's tree. */
static int prepare_change(struct prepare *pc, const struct patch_file *pf,
			  const struct apply_file_result *ar, struct err *err)
{
	const char *dst = patch_file_path(pf);
	struct tree_change *ch = pc->ch;
	int error = 0;

	if (ar->deleted && ar->outcome < OUTCOME_ALREADY) {
		ch[pc->nch].path = dst;
		ch[pc->nch++].remove = true;
		return 0;
	}
	error = tree_write_blob(&ch[pc->nch].blob, pc->repo, ar->out.ptr,
				ar->out.len, err);
	ch[pc->nch].path = dst;
	ch[pc->nch++].mode = pf->new_mode;
	if (pf->op == PATCH_RENAME && pf->old_path) {
		ch[pc->nch].path = pf->old_path;
		ch[pc->nch++].remove = true;
	}
	return error;
}

/* The files of ar's result the person edits (PATH, PATH.adapted,
 * PATH.rej), and PATH among the summary's conflicts when it is one. */
static int prepare_write(struct prepare *pc, const char *dst,
			 const struct apply_file_result *ar, struct err *err)
{
	struct resolve_summary *summary = pc->summary;
	size_t line;
	int error = 0;

	if (pc->side.len)
		error = write_file(pc->dir, dst, ".adapted", &pc->side, err);
	if (!error && (!ar->deleted || ar->outcome >= OUTCOME_ALREADY))
		error = write_file(pc->dir, dst, "", &ar->out, err);
	if (!error && ar->rej.len) {
		summary->nr_rej++;
		error = write_file(pc->dir, dst, ".rej", &ar->rej, err);
	}
	if (!error && (ar->outcome == OUTCOME_CONFLICT ||
		       ar->outcome == OUTCOME_PARTIAL ||
		       has_markers((struct span){ ar->out.ptr, ar->out.len },
				   &line))) {
		summary->nr_conflicts++;
		ALLOC_GROW(summary->paths, summary->nr_paths + 1, pc->alloc);
		summary->paths[summary->nr_paths++] =
			xstrfmt("%s/files/%s", pc->dir, dst);
	}
	return error;
}

/* File patch f of the patch meeting the file it names in pc->tree: its
 * result written for the person and added to the proposal's tree. */
static int prepare_file(struct prepare *pc, size_t f, struct err *err)
{
	const struct patch_file *pf = &pc->p->files[f];
	const char *src = pf->old_path ? pf->old_path : pf->new_path;
	const char *dst = patch_file_path(pf);
	struct apply_file_result ar;
	struct err ferr = ERR_INIT;
	struct file_in in;
	bool exists;
	int error, rc;

	if ((error = tree_read_file(&pc->old, &exists, NULL, pc->repo,
				    &pc->tree, src, err)) < 0)
		return error;
	apply_file_result_init(&ar);
	in = (struct file_in){ pf, f, { pc->old.ptr, pc->old.len }, exists };
	rc = apply_refusing(&ar, &in, &pc->ao, &pc->rs, &ferr);
	if (rc < 0) {
		/* binary and the like: the person gets the old file */
		ar.outcome = OUTCOME_CONFLICT;
		buf_reset(&ar.out);
		buf_add(&ar.out, pc->old.ptr, pc->old.len);
		buf_addf(&ar.rej, "%s\n", ferr.msg.ptr);
	}
	err_release(&ferr);
	if (ar.outcome > pc->summary->outcome)
		pc->summary->outcome = ar.outcome;
	pc->summary->nr_files++;
	error = prepare_change(pc, pf, &ar, err);
	buf_reset(&pc->side);
	if (!error && ar.outcome != OUTCOME_CONFLICT &&
	    ar.outcome != OUTCOME_PARTIAL) {
		size_t n = show_adapted(&pc->shown, &pc->side, &pc->record,
					&ar, pf);
		if (n) {
			pc->summary->nr_adapted += n;
			buf_swap(&pc->shown, &ar.out);
		}
	}
	if (!error)
		error = prepare_write(pc, dst, &ar, err);
	apply_file_result_release(&ar);
	return error;
}

/* The proposal's tree (its hex in phex) and its acceptance record, what
 * the person accepts by keeping the files as shown. */
static int prepare_proposal(struct prepare *pc, char phex[41], struct err *err)
{
	struct tree_oid pt;
	char *rec = fs_join(pc->dir, "proposal");
	int error;

	if ((error = tree_update(&pt, pc->repo, &pc->tree, pc->ch, pc->nch,
				 err)) < 0 ||
	    (error = fs_write_atomic(rec, pc->record.ptr, pc->record.len,
				     err)) < 0) {
		free(rec);
		return error;
	}
	free(rec);
	tree_oid_hex(phex, &pt);
	return 0;
}

/* The state of the pending resolution of rp, fingerprint fp, proposal
 * phex ("" for none). */
static int prepare_state(const struct resolve_patch *rp, const char *fp,
			 const char *phex, struct err *err)
{
	/* the state, written whole and then renamed in, makes the folder a
	 * pending resolution only once every file of it is there */
	char *state = fs_join(rp->dir, "state");
	char *fresh = fs_join(rp->dir, "state.new");
	struct conf *c = NULL;
	char hex[41], num[32];
	int error;

	tree_oid_hex(hex, rp->base);
	snprintf(num, sizeof(num), "%zu", rp->index);
	if ((error = conf_open(&c, fresh, true, err)) < 0 ||
	    (error = conf_set(c, "resolve.patch", rp->item->file, err)) < 0 ||
	    (error = conf_set(c, "resolve.index", num, err)) < 0 ||
	    (error = conf_set(c, "resolve.fingerprint", fp, err)) < 0 ||
	    (error = conf_set(c, "resolve.base", hex, err)) < 0 ||
	    (*phex &&
	     (error = conf_set(c, "resolve.proposal", phex, err)) < 0))
		goto out;
	if (rename(fresh, state) < 0)
		error = err_set(err, ERR_IO, "cannot rename '%s': %s", fresh,
				strerror(errno));
out:
	conf_free(c);
	free(state);
	free(fresh);
	return error;
}

int resolve_prepare(struct resolve_summary *summary,
		    const struct resolve_patch *rp, struct tree_repo *repo,
		    const struct apply_opts *opts,
		    const struct resolve_where *cell, struct err *err)
{
	const struct patch *p = &rp->item->patch;
	struct prepare pc = {
		.summary = summary,
		.dir = rp->dir,
		.p = p,
		.repo = repo,
		.ao = *opts,
		.old = BUF_INIT,
		.shown = BUF_INIT,
		.side = BUF_INIT,
		.record = BUF_INIT,
		.ch = xcalloc(p->nr_files * 2 + 1, sizeof(struct tree_change)),
	};
	char fp[41], phex[41] = "";
	int error;

	memset(summary, 0, sizeof(*summary));
	summary->outcome = OUTCOME_CLEAN;
	pc.ao.markers = true;
	if ((error = tree_commit_tree(&pc.tree, repo, rp->base, err)) < 0 ||
	    (error = carry_fingerprint(fp, repo, &pc.tree, p, err)) < 0 ||
	    (error = resolve_discard(rp->dir, err)) < 0 ||
	    (error = fs_mkdirs(rp->dir, err)) < 0 ||
	    (error = prepare_refusals(&pc, cell, fp, err)) < 0)
		goto out;
	pc.rs.carried = rp->carried;
	for (size_t f = 0; f < p->nr_files && !error; f++)
		error = prepare_file(&pc, f, err);
	if (error)
		goto out;
	if (summary->outcome == OUTCOME_ADAPTED &&
	    (error = prepare_proposal(&pc, phex, err)) < 0)
		goto out;
	error = prepare_state(rp, fp, phex, err);
out:
	free(pc.rs.held);
	carry_refusals_free(pc.refused, pc.nr_refused);
	free(pc.ch);
	buf_release(&pc.old);
	buf_release(&pc.shown);
	buf_release(&pc.side);
	buf_release(&pc.record);
	return error;
}

int resolve_load(struct resolve_state *s, const char *dir, struct err *err)
{
	char *state = fs_join(dir, "state");
	struct conf *c = NULL;
	char *base = NULL, *index = NULL;
	int error = 0;

	memset(s, 0, sizeof(*s));
	if (!fs_is_file(state)) {
		free(state);
		return ERR_NOTFOUND;
	}
	if ((error = conf_open(&c, state, false, err)) < 0 ||
	    (error = conf_get(c, "resolve.patch", &s->patch_file, err)) < 0 ||
	    (error = conf_get(c, "resolve.index", &index, err)) < 0 ||
	    (error = conf_get(c, "resolve.fingerprint", &s->fingerprint,
			      err)) < 0 ||
	    (error = conf_get(c, "resolve.base", &base, err)) < 0)
		goto out;
	s->proposal = conf_get_or(c, "resolve.proposal", NULL);
	s->index = strtoul(index, NULL, 10);
	for (size_t i = 0; i < 20; i++) {
		unsigned v;
		if (sscanf(base + 2 * i, "%2x", &v) != 1) {
			error = err_set(err, ERR_PARSE, "%s: bad resolve.base",
					state);
			goto out;
		}
		s->base.id[i] = (unsigned char)v;
	}
	s->dir = xstrdup(dir);
out:
	conf_free(c);
	free(base);
	free(index);
	free(state);
	return error;
}

static void list_files(char ***out, size_t *nr, size_t *alloc,
		       const char *dir, const char *rel)
{
	char *path = rel ? fs_join(dir, rel) : xstrdup(dir);
	char **names = NULL;
	size_t n = 0;
	struct err e = ERR_INIT;

	if (fs_list_dir(path, &names, &n, &e) == 0)
		for (size_t i = 0; i < n; i++) {
			char *r = rel ? fs_join(rel, names[i])
				      : xstrdup(names[i]);
			char *full = fs_join(dir, r);
			if (fs_is_dir(full)) {
				list_files(out, nr, alloc, dir, r);
				free(r);
			} else if (ends_with(r, ".rej")) {
				free(r);
			} else {
				ALLOC_GROW(*out, *nr + 1, *alloc);
				(*out)[(*nr)++] = r;
			}
			free(full);
		}
	fs_free_list(names, n);
	err_release(&e);
	free(path);
}

void resolve_pending_files(char ***paths, size_t *nr, const char *dir)
{
	char *files = fs_join(dir, "files");
	size_t alloc = 0;

	*paths = NULL;
	*nr = 0;
	list_files(paths, nr, &alloc, files, NULL);
	free(files);
}

/* What resolve_collect reads back from a pending resolution's files. */
struct collect {
	const struct resolve_state *s;
	struct tree_repo *repo;
	struct tree_oid tree; /* the base's, then the files' */
	struct tree_change *ch;
	size_t nch;
	struct buf data;
};

/* The change file patch pf's file as the person left it (path) makes to
 * the tree; ERR_CONFLICT when conflict markers remain in it. */
static int collect_file(struct collect *cc, const struct patch_file *pf,
			const char *path, struct err *err)
{
	const char *dst = patch_file_path(pf);
	struct tree_change *ch = cc->ch;
	size_t line;
	int error;

	if (!fs_is_file(path)) {
		/* a file the person removed is deleted, or, when the
		 * tree never had it (a new file), not created */
		bool had = false;
		unsigned mode;
		if ((error = tree_read_file(&cc->data, &had, &mode, cc->repo,
					    &cc->tree, dst, err)) < 0)
			return error;
		if (had) {
			ch[cc->nch].path = dst;
			ch[cc->nch++].remove = true;
		}
		return error;
	}
	if ((error = fs_read_file(&cc->data, path, MAX_FILE, err)) < 0)
		return error;
	if (has_markers((struct span){ cc->data.ptr, cc->data.len }, &line)) {
		error = err_set(err, ERR_CONFLICT,
				"%s:%zu: conflict markers remain", path, line);
		err_hint(err, "edit the file until no <<<<<<<, |||||||, "
			      "======= or >>>>>>> line is left");
		return error;
	}
	if ((error = tree_write_blob(&ch[cc->nch].blob, cc->repo, cc->data.ptr,
				     cc->data.len, err)) < 0)
		return error;
	ch[cc->nch].path = dst;
	ch[cc->nch].mode = pf->new_mode;
	cc->nch++;
	if (pf->op == PATCH_RENAME && pf->old_path) {
		ch[cc->nch].path = pf->old_path;
		ch[cc->nch++].remove = true;
	}
	return error;
}

/* The commit of item's patch making cc->tree on the base, formatted into
 * text. */
static int collect_commit(struct buf *text, struct collect *cc,
			  const struct series_item *item, struct err *err)
{
	const struct patch *p = &item->patch;
	struct tree_person author = { p->author_name, p->author_email, 0, 0 };
	struct tree_person committer = { "kcarry", "kcarry@localhost", 0, 0 };
	struct buf msg = BUF_INIT;
	struct tree_oid commit;
	long long epoch = 0;
	int tz = 0;
	int error;

	if (p->date && mail_parse_date(p->date, &epoch, &tz)) {
		author.when = committer.when = epoch;
		author.tz = committer.tz = tz;
	}
	buf_adds(&msg, p->subject && *p->subject ? p->subject : item->file);
	buf_adds(&msg, "\n");
	if (p->message.len) {
		buf_addc(&msg, '\n');
		buf_add(&msg, p->message.ptr, p->message.len);
	}
	if ((error = tree_commit(&commit, cc->repo, &cc->tree, &cc->s->base,
				 &author, &committer, msg.ptr, err)) >= 0)
		error = tree_format_commit(text, cc->repo, &commit, err);
	buf_release(&msg);
	return error;
}

int resolve_collect(struct buf *text, bool *accepted,
		    const struct resolve_state *s, struct tree_repo *repo,
		    const struct series_item *item, struct err *err)
{
	const struct patch *p = &item->patch;
	struct collect cc = {
		.s = s,
		.repo = repo,
		.ch = xcalloc(p->nr_files * 2 + 1, sizeof(struct tree_change)),
		.data = BUF_INIT,
	};
	char **paths = xcalloc(p->nr_files + 1, sizeof(char *));
	struct tree_oid before;
	char hex[41];
	int error;

	*accepted = false;
	if ((error = tree_commit_tree(&cc.tree, repo, &s->base, err)) < 0)
		goto out;
	for (size_t f = 0; f < p->nr_files && !error; f++) {
		paths[f] = xstrfmt("%s/files/%s", s->dir,
				   patch_file_path(&p->files[f]));
		error = collect_file(&cc, &p->files[f], paths[f], err);
	}
	if (error)
		goto out;
	before = cc.tree;
	if ((error = tree_update(&cc.tree, repo, &cc.tree, cc.ch, cc.nch,
				 err)) < 0)
		goto out;
	tree_oid_hex(hex, &cc.tree);
	if (s->proposal && !strcmp(hex, s->proposal)) {
		/* kcarry's proposal as it was shown: accepted */
		*accepted = true;
		goto out;
	}
	if (!memcmp(&before, &cc.tree, sizeof(cc.tree))) {
		/* the person left every file as the tree has it: the
		 * target needs nothing of this patch */
		buf_addf(text, "Subject: %s\n%s\n\nResolved by leaving "
			       "the tree as it is.\n",
			 p->subject && *p->subject ? p->subject : item->file,
			 SERIES_NOTHING_TO_APPLY);
		goto out;
	}
	error = collect_commit(text, &cc, item, err);
out:
	for (size_t f = 0; f < p->nr_files; f++)
		free(paths[f]);
	free(paths);
	free(cc.ch);
	buf_release(&cc.data);
	return error;
}

static char *acceptance_path(const char *root, const char *name,
			     const char *fingerprint)
{
	return xstrfmt("%s/patches/%s/.resolutions/%s.accepted", root, name,
		       fingerprint);
}

int resolve_record_acceptance(const char *root, const char *name,
			      const struct resolve_state *s, struct err *err)
{
	char *from = fs_join(s->dir, "proposal");
	char *dir = xstrfmt("%s/patches/%s/.resolutions", root, name);
	char *to = acceptance_path(root, name, s->fingerprint);
	struct buf rec = BUF_INIT;
	int error;

	if ((error = fs_read_file(&rec, from, MAX_FILE, err)) == 0 &&
	    (error = fs_mkdirs(dir, err)) == 0)
		error = fs_write_atomic(to, rec.ptr, rec.len, err);
	buf_release(&rec);
	free(from);
	free(dir);
	free(to);
	return error;
}

/* The acceptance record of cp's adapted hunks as carried now. */
static void patch_record(struct buf *b, const struct carry_patch *cp)
{
	for (size_t f = 0; f < cp->nr_files; f++)
		for (size_t h = 0; h < cp->files[f].nr_hunks; h++) {
			const struct apply_hunk_result *hr =
				&cp->files[f].hunks[h];

			if (hr->rule == RULE_ADAPTED && hr->adapt)
				record_hunk(b, cp->files[f].path, h, hr->adapt);
		}
}

void resolve_mark_accepted(struct carry_result *res, const char *root,
			   const char *name)
{
	struct buf want = BUF_INIT, have = BUF_INIT;

	for (size_t i = 0; i < res->nr; i++) {
		struct carry_patch *cp = &res->patches[i];
		struct err err = ERR_INIT;
		char *path;

		if (cp->outcome != OUTCOME_ADAPTED || !cp->fingerprint[0])
			continue;
		path = acceptance_path(root, name, cp->fingerprint);
		buf_reset(&want);
		buf_reset(&have);
		patch_record(&want, cp);
		if (fs_is_file(path) &&
		    fs_read_file(&have, path, MAX_FILE, &err) == 0 &&
		    have.len == want.len &&
		    !memcmp(have.ptr, want.ptr, want.len))
			for (size_t f = 0; f < cp->nr_files; f++)
				for (size_t h = 0; h < cp->files[f].nr_hunks;
				     h++)
					if (cp->files[f].hunks[h].adapt)
						cp->files[f].hunks[h]
							.adapt->accepted = true;
		err_release(&err);
		free(path);
	}
	buf_release(&want);
	buf_release(&have);
}

#define REFUSED_MAGIC "kcarry refused adaptations\n"

static char *refusals_dir(const struct resolve_where *cell)
{
	return xstrfmt("%s/patches/%s/.resolutions", cell->root, cell->name);
}

/* The record's head: what it is kept for, in clear. */
static void refusal_head(struct buf *b, const struct resolve_where *cell)
{
	char hex[41];

	tree_oid_hex(hex, cell->tree);
	buf_addf(b, "target %s\nversion %s\ntree %s\npatch %s\n", cell->target,
		 cell->version, hex, cell->fingerprint);
}

static char *refusal_path(char key[41], const struct resolve_where *cell)
{
	struct buf head = BUF_INIT;

	refusal_head(&head, cell);
	tree_hash(key, head.ptr, head.len);
	buf_release(&head);
	return xstrfmt("%s/patches/%s/.resolutions/%s.refused", cell->root,
		       cell->name, key);
}

/* The next line of *c (without its newline) in *line; false at the end. */
static bool next_line(struct span *line, struct span *c)
{
	const char *nl;

	if (!c->len)
		return false;
	nl = memchr(c->ptr, '\n', c->len);
	line->ptr = c->ptr;
	line->len = nl ? (size_t)(nl - c->ptr) : c->len;
	c->ptr += nl ? line->len + 1 : line->len;
	c->len -= nl ? line->len + 1 : line->len;
	return true;
}

/* The value of line "WORD value", or false. */
static bool line_value(struct span *value, struct span line, const char *word)
{
	size_t n = strlen(word);

	if (line.len <= n || memcmp(line.ptr, word, n) || line.ptr[n] != ' ')
		return false;
	value->ptr = line.ptr + n + 1;
	value->len = line.len - n - 1;
	return true;
}

/* "refused FILE HUNK PATH" (1-based numbers) into r. */
static bool parse_refused(struct carry_refusal *r, struct span v)
{
	char *text = xstrndup(v.ptr, v.len), *end;
	unsigned long file, hunk;
	bool ok;

	file = strtoul(text, &end, 10);
	ok = end != text && *end == ' ';
	if (ok) {
		char *at = end + 1;

		hunk = strtoul(at, &end, 10);
		ok = end != at && *end == ' ' && end[1] && file && hunk;
	}
	if (ok) {
		r->file = file - 1;
		r->hunk = hunk - 1;
		r->path = xstrdup(end + 1);
	}
	free(text);
	return ok;
}

int resolve_read_refusals(struct carry_refusal **out, size_t *nr,
			  const struct resolve_where *cell, struct err *err)
{
	char key[41];
	char *path = refusal_path(key, cell);
	struct buf text = BUF_INIT, head = BUF_INIT;
	struct carry_refusal *r = NULL;
	size_t n = 0, alloc = 0;
	struct span c, series, line, v;
	bool whole = true;
	int error = ERR_NOTFOUND;

	*out = NULL;
	*nr = 0;
	if (!fs_is_file(path))
		goto out;
	if ((error = fs_read_file(&text, path, MAX_FILE, err)) < 0)
		goto out;
	refusal_head(&head, cell);
	error = ERR_NOTFOUND;
	/* a record of another cell, or unreadable: none (the next build
	 * writes it again) */
	if (text.len < strlen(REFUSED_MAGIC) + head.len ||
	    memcmp(text.ptr, REFUSED_MAGIC, strlen(REFUSED_MAGIC)) ||
	    memcmp(text.ptr + strlen(REFUSED_MAGIC), head.ptr, head.len))
		goto out;
	c.ptr = text.ptr + strlen(REFUSED_MAGIC) + head.len;
	c.len = text.len - strlen(REFUSED_MAGIC) - head.len;
	/* "series NAME" is for gc (resolve_gc_refusals); an older record
	 * has none */
	series = c;
	if (next_line(&line, &series) && line_value(&v, line, "series"))
		c = series;
	while (whole && next_line(&line, &c)) {
		if (line_value(&v, line, "refused") &&
		    (!n || r[n - 1].diag)) {
			ALLOC_GROW(r, n + 1, alloc);
			memset(&r[n], 0, sizeof(r[n]));
			whole = parse_refused(&r[n], v);
			n += whole;
		} else if (line_value(&v, line, "adapted") && n &&
			   !r[n - 1].diag && !r[n - 1].adapted) {
			/* an older record has none: its refusals hold for
			 * any adaptation (carry_refusal_holds) */
			r[n - 1].adapted = xstrndup(v.ptr, v.len);
		} else if (line_value(&v, line, "diag") && n && !r[n - 1].diag) {
			r[n - 1].diag = xstrndup(v.ptr, v.len);
		} else {
			whole = false;
		}
	}
	/* every hunk with its diagnostic, or the record is not used */
	if (!whole || !n || !r[n - 1].diag)
		goto out;
	*out = r;
	*nr = n;
	r = NULL;
	n = 0;
	error = 0;
out:
	carry_refusals_free(r, n);
	buf_release(&text);
	buf_release(&head);
	free(path);
	return error;
}

int resolve_record_refusals(char key[41], const struct resolve_where *cell,
			    const struct carry_refusal *r, size_t nr,
			    struct err *err)
{
	char *path = refusal_path(key, cell);
	char *dir = refusals_dir(cell);
	struct buf b = BUF_INIT;
	int error = 0;

	if (!nr) {
		if (unlink(path) < 0 && errno != ENOENT)
			error = err_set(err, ERR_IO, "cannot remove '%s': %s",
					path, strerror(errno));
		goto out;
	}
	buf_adds(&b, REFUSED_MAGIC);
	refusal_head(&b, cell);
	/* not in the head: KEY stays what it was for older records */
	buf_addf(&b, "series %s\n", cell->name);
	for (size_t k = 0; k < nr; k++) {
		buf_addf(&b, "refused %zu %zu %s\n", r[k].file + 1,
			 r[k].hunk + 1, r[k].path);
		if (r[k].adapted)
			buf_addf(&b, "adapted %s\n", r[k].adapted);
		buf_adds(&b, "diag ");
		/* one line: a diagnostic's own newlines become spaces */
		for (const char *p = r[k].diag; *p; p++)
			buf_addc(&b, *p == '\n' || *p == '\r' ? ' ' : *p);
		buf_addc(&b, '\n');
	}
	if ((error = fs_mkdirs(dir, err)) == 0)
		error = fs_write_atomic(path, b.ptr, b.len, err);
out:
	buf_release(&b);
	free(dir);
	free(path);
	return error;
}

/* The record at path is one of cell's (its target and version)? */
static bool refusal_of(const char *path, const struct resolve_where *cell)
{
	struct buf text = BUF_INIT, want = BUF_INIT;
	struct err err = ERR_INIT;
	bool ours;

	buf_addf(&want, "%starget %s\nversion %s\n", REFUSED_MAGIC,
		 cell->target, cell->version);
	ours = fs_read_file(&text, path, MAX_FILE, &err) == 0 &&
	       text.len >= want.len && !memcmp(text.ptr, want.ptr, want.len);
	err_release(&err);
	buf_release(&text);
	buf_release(&want);
	return ours;
}

int resolve_prune_refusals(const struct resolve_where *cell,
			   char (*keep)[41], size_t nr_keep, struct err *err)
{
	char *dir = refusals_dir(cell);
	char **names = NULL;
	size_t nr = 0;
	int error = 0;

	if (!fs_is_dir(dir) || (error = fs_list_dir(dir, &names, &nr, err)) < 0)
		goto out;
	for (size_t i = 0; i < nr && !error; i++) {
		size_t len = strlen(names[i]);
		bool kept = false;
		char *path;

		if (len != 40 + strlen(".refused") ||
		    strcmp(names[i] + 40, ".refused"))
			continue;
		for (size_t k = 0; k < nr_keep && !kept; k++)
			kept = !strncmp(names[i], keep[k], 40);
		if (kept)
			continue;
		path = fs_join(dir, names[i]);
		if (refusal_of(path, cell) && unlink(path) < 0 &&
		    errno != ENOENT)
			error = err_set(err, ERR_IO, "cannot remove '%s': %s",
					path, strerror(errno));
		free(path);
	}
out:
	fs_free_list(names, nr);
	free(dir);
	return error;
}

/* ---- gc of the refusal records ---- */

/* What a record names in clear (refusal_head, then "series"). */
struct record_head {
	char *target, *version, *tree, *patch;
	char *series; /* NULL in an older record */
};

static void record_head_release(struct record_head *h)
{
	free(h->target);
	free(h->version);
	free(h->tree);
	free(h->patch);
	free(h->series);
	memset(h, 0, sizeof(*h));
}

/* The head of record text into h; false when it is none. */
static bool parse_head(struct record_head *h, struct span c)
{
	static const char *const words[] = { "target", "version", "tree",
					     "patch", "series" };
	char **out[] = { &h->target, &h->version, &h->tree, &h->patch,
			 &h->series };
	size_t n = strlen(REFUSED_MAGIC);
	struct span line, v;

	memset(h, 0, sizeof(*h));
	if (c.len < n || memcmp(c.ptr, REFUSED_MAGIC, n))
		return false;
	c.ptr += n;
	c.len -= n;
	for (size_t i = 0; i < 5; i++) {
		struct span at = c;

		if (!next_line(&line, &at) || !line_value(&v, line, words[i]))
			break;
		*out[i] = xstrndup(v.ptr, v.len);
		c = at;
	}
	return h->target && h->version && h->tree && h->patch;
}

static bool in_list(char *const *list, size_t nr, const char *s)
{
	for (size_t i = 0; i < nr; i++)
		if (!strcmp(list[i], s))
			return true;
	return false;
}

/* Some patch of name@h->version has h->patch as fingerprint on h->tree
 * (1), none has (0), or cannot tell (< 0, err says why). */
static int patch_there(const char *root, const char *name,
		       const struct record_head *h, struct err *err)
{
	struct target t;
	struct tree_repo *repo = NULL;
	struct series_version v = { 0 };
	struct tree_oid tree;
	char fp[41];
	int found;

	if (tree_oid_parse(&tree, h->tree) < 0)
		return err_set(err, ERR_PARSE, "bad tree '%s'", h->tree);
	if ((found = target_load(&t, root, h->target, err)) < 0)
		return found;
	/* the tree as the repository has it: gc never fetches */
	if (!fs_is_dir(t.repo_path))
		found = err_set(err, ERR_NOTFOUND, "'%s' is not there",
				t.repo_path);
	else if ((found = tree_open(&repo, t.repo_path, err)) == 0)
		found = series_load_version(&v, root, name, h->version, err);
	for (size_t i = 0; found == 0 && i < v.nr; i++) {
		if ((found = carry_fingerprint(fp, repo, &tree,
					       &v.items[i].patch, err)) < 0)
			break;
		found = !strcmp(fp, h->patch);
	}
	series_version_release(&v);
	tree_close(repo);
	target_release(&t);
	return found;
}

/*
 * Why the record of series name with head h is stale (*why, true), or
 * why gc keeps it (*why, false); *why NULL: it is live.
 */
static bool judge_record(char **why, const char *root, const char *name,
			 const struct record_head *h, char **targets,
			 size_t nr_targets)
{
	struct err err = ERR_INIT;
	char **versions = NULL;
	size_t nr = 0;
	bool stale = false;
	int rc;

	*why = NULL;
	if (!h->series) {
		/* written before records named their series */
		*why = xstrdup("an older record, without its series: gc "
			       "cannot tell whether it applies");
		return false;
	}
	if (strcmp(h->series, name)) {
		*why = xstrfmt("it names series %s, not %s: gc cannot tell "
			       "whether it applies",
			       h->series, name);
		return false;
	}
	if (!in_list(targets, nr_targets, h->target)) {
		*why = xstrfmt("target %s is no target of the workspace",
			       h->target);
		return true;
	}
	if (series_list_versions(root, name, &versions, &nr, &err) == 0 &&
	    !in_list(versions, nr, h->version)) {
		*why = xstrfmt("%s has no version %s", name, h->version);
		stale = true;
	} else if ((rc = patch_there(root, name, h, &err)) == 0) {
		*why = xstrfmt("no patch of %s@%s has fingerprint %s on tree "
			       "%s",
			       name, h->version, h->patch, h->tree);
		stale = true;
	} else if (rc < 0) {
		*why = xstrfmt("gc cannot tell whether a patch of %s@%s meets "
			       "tree %s: %s",
			       name, h->version, h->tree,
			       err.msg.len ? err.msg.ptr : "unknown");
	}
	series_free_list(versions, nr);
	err_release(&err);
	return stale;
}

/* What gc_record needs besides the record. */
struct gc_ctx {
	const struct resolve_gc_opts *o;
	struct resolve_gc_result *res;
	char **targets; /* the workspace's */
	size_t nr_targets;
};

/* Judge (and unless dry_run remove) the record file of series name. */
static int gc_record(const struct gc_ctx *g, const char *name,
		     const char *file, struct err *err)
{
	const struct resolve_gc_opts *o = g->o;
	struct resolve_gc_result *res = g->res;
	char *path = xstrfmt("%s/patches/%s/.resolutions/%s", o->root, name,
			     file);
	struct buf text = BUF_INIT;
	struct record_head h = { 0 };
	struct err e2 = ERR_INIT;
	char *why = NULL;
	bool stale = false;
	int error = 0;

	if (fs_read_file(&text, path, MAX_FILE, &e2) < 0 ||
	    !parse_head(&h, (struct span){ text.ptr, text.len }))
		why = xstrdup("not a record gc can read");
	else if (o->nr_targets &&
		 !in_list(o->targets, o->nr_targets, h.target))
		goto out;
	else
		stale = judge_record(&why, o->root, name, &h, g->targets,
				     g->nr_targets);
	if (!why)
		goto out; /* live */
	if (stale && !o->dry_run && unlink(path) < 0 && errno != ENOENT) {
		error = err_set(err, ERR_IO, "cannot remove '%s': %s", path,
				strerror(errno));
		goto out;
	}
	ALLOC_GROW(res->entries, res->nr + 1, res->alloc);
	res->entries[res->nr++] = (struct resolve_gc_entry){
		xstrfmt("patches/%s/.resolutions/%s", name, file), why, stale
	};
	why = NULL;
out:
	free(why);
	record_head_release(&h);
	err_release(&e2);
	buf_release(&text);
	free(path);
	return error;
}

int resolve_gc_refusals(struct resolve_gc_result *res,
			const struct resolve_gc_opts *o, struct err *err)
{
	struct gc_ctx g = { o, res, NULL, 0 };
	char **series = NULL;
	size_t nr_series = 0;
	int error;

	memset(res, 0, sizeof(*res));
	if ((error = series_list_names(o->root, &series, &nr_series, err)) <
		    0 ||
	    (error = target_list(o->root, &g.targets, &g.nr_targets, err)) < 0)
		goto out;
	for (size_t s = 0; s < nr_series && !error; s++) {
		char *dir = xstrfmt("%s/patches/%s/.resolutions", o->root,
				    series[s]);
		char **names = NULL;
		size_t nr = 0;

		if (fs_is_dir(dir))
			error = fs_list_dir(dir, &names, &nr, err);
		for (size_t i = 0; i < nr && !error; i++)
			if (ends_with(names[i], ".refused"))
				error = gc_record(&g, series[s], names[i], err);
		fs_free_list(names, nr);
		free(dir);
	}
out:
	series_free_list(series, nr_series);
	fs_free_list(g.targets, g.nr_targets);
	return error;
}

void resolve_gc_result_release(struct resolve_gc_result *res)
{
	for (size_t i = 0; i < res->nr; i++) {
		free(res->entries[i].path);
		free(res->entries[i].why);
	}
	free(res->entries);
	memset(res, 0, sizeof(*res));
}
