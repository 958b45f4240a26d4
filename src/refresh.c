#include "refresh.h"

#include <stdlib.h>
#include <string.h>

void refresh_note(struct buf *out, const struct carry_patch *cp,
		  const char *target)
{
	size_t start = out->len;

	for (size_t f = 0; f < cp->nr_files; f++) {
		const struct carry_file *cf = &cp->files[f];
		for (size_t h = 0; h < cf->nr_hunks; h++) {
			const struct apply_hunk_result *hr = &cf->hunks[h];
			if (hr->rule == RULE_EXACT && !hr->risk)
				continue;
			buf_addf(out, "  %s hunk %zu: %s", cf->path, h + 1,
				 apply_rule_name(hr->rule));
			if (hr->offset)
				buf_addf(out, ", offset %+ld lines", hr->offset);
			if (hr->fuzz)
				buf_addf(out, ", fuzz %u", hr->fuzz);
			if (hr->risk)
				buf_addf(out, ", placement risk");
			buf_addc(out, '\n');
		}
	}
	if (out->len > start) {
		char *body = xstrndup(out->ptr + start, out->len - start);
		buf_truncate(out, start);
		buf_addf(out, "kcarry: refreshed for %s:\n%s", target, body);
		free(body);
	}
}

void refresh_insert_note(struct buf *text, const struct buf *note)
{
	const char *sep;
	struct buf out = BUF_INIT;
	size_t at;

	if (!note->len)
		return;
	sep = strstr(text->ptr, "\n---\n");
	if (!sep)
		return;
	at = (size_t)(sep - text->ptr) + 5;
	buf_add(&out, text->ptr, at);
	buf_add(&out, note->ptr, note->len);
	buf_addc(&out, '\n');
	buf_add(&out, text->ptr + at, text->len - at);
	buf_swap(&out, text);
	buf_release(&out);
}

/*
 * The refreshed patch: the item's header and message with the diff the
 * commit really made (from the blobs of the files the patch names, so no
 * walk of a 78,000-file tree per patch).
 */
static int format_refreshed(struct buf *out, struct tree_repo *repo,
			    const struct tree_oid *parent,
			    const struct carry_patch *cp, struct err *err)
{
	const struct patch *orig = &cp->item->patch;
	size_t nr_paths = orig->nr_files * 2 + cp->nr_files + 1;
	const char **paths, **from, **to;
	bool *renamed;
	size_t nr_renames = 0;
	struct buf diff = BUF_INIT, renames = BUF_INIT;
	struct patch np;
	struct patch_parse_opts po = { 0 };
	char hex[41];
	size_t n = 0;
	int error;

	for (size_t f = 0; f < cp->nr_files; f++)
		if (cp->files[f].hunk_to)
			nr_paths += cp->files[f].nr_hunks;
	paths = xcalloc(nr_paths, sizeof(char *));
	from = xcalloc(orig->nr_files + 1, sizeof(char *));
	to = xcalloc(orig->nr_files + 1, sizeof(char *));
	renamed = xcalloc(orig->nr_files + 1, sizeof(bool));
	patch_init(&np);
	/* the patch's renames stay renames (not a deletion and a creation
	 * of the whole file) where the content still says so */
	for (size_t f = 0; f < orig->nr_files; f++) {
		const struct patch_file *pf = &orig->files[f];

		if (pf->op == PATCH_RENAME && pf->old_path && pf->new_path &&
		    strcmp(pf->old_path, pf->new_path) &&
		    !(f < cp->nr_files && cp->files[f].moved_to)) {
			from[nr_renames] = pf->old_path;
			to[nr_renames++] = pf->new_path;
		}
	}
	if ((error = tree_diff_renames(&renames, renamed, repo, parent,
				       &cp->commit, from, to, nr_renames,
				       err)) < 0)
		goto out;
	for (size_t f = 0, r = 0; f < orig->nr_files; f++) {
		const struct patch_file *pf = &orig->files[f];

		if (r < nr_renames && pf->old_path == from[r] &&
		    pf->new_path == to[r] && renamed[r++])
			continue;
		if (pf->old_path)
			paths[n++] = pf->old_path;
		if (pf->new_path)
			paths[n++] = pf->new_path;
	}
	for (size_t f = 0; f < cp->nr_files; f++) {
		const struct carry_file *cf = &cp->files[f];

		if (cf->moved_to) /* adaptation rule 1 */
			paths[n++] = cf->moved_to;
		for (size_t h = 0; cf->hunk_to && h < cf->nr_hunks; h++)
			if (cf->hunk_to[h]) /* the same, hunk by hunk */
				paths[n++] = cf->hunk_to[h];
	}
	if ((error = tree_diff_paths(&diff, repo, parent, &cp->commit, paths, n,
				     err)) < 0)
		goto out;
	buf_add(&diff, renames.ptr, renames.len);
	if (diff.len) {
		po.name = cp->item->file;
		if ((error = patch_parse(&np, diff.ptr, diff.len, &po, err)) < 0)
			goto out;
	}
	tree_oid_hex(hex, &cp->commit);
	np.commit = xstrdup(hex);
	np.author_name = orig->author_name ? xstrdup(orig->author_name) : NULL;
	np.author_email = orig->author_email ? xstrdup(orig->author_email)
					     : NULL;
	np.date = orig->date ? xstrdup(orig->date) : NULL;
	np.subject = xstrdup(orig->subject && *orig->subject ? orig->subject
							     : cp->item->file);
	buf_reset(&np.message);
	buf_add(&np.message, orig->message.ptr, orig->message.len);
	carry_adapted_notes(&np.message, cp);
	buf_reset(out);
	patch_format(out, &np, NULL);
out:
	patch_release(&np);
	buf_release(&diff);
	buf_release(&renames);
	free(paths);
	free(from);
	free(to);
	free(renamed);
	return error;
}

/*
 * The refreshed text of committed patch cp into out, its diff against
 * *parent (set to its commit then), the note after "---"; its text as
 * refresh_texts() made it when it did.
 */
static int refresh_one(struct buf *out, struct tree_repo *repo,
		       struct tree_oid *parent, const struct carry_patch *cp,
		       const char *target, struct err *err)
{
	struct buf note = BUF_INIT;
	int error = 0;

	if (cp->refreshed && cp->refreshed_len) { /* refresh_texts() */
		buf_reset(out);
		buf_add(out, cp->refreshed, cp->refreshed_len);
	} else if ((error = format_refreshed(out, repo, parent, cp,
					     err)) == 0) {
		refresh_note(&note, cp, target);
		refresh_insert_note(out, &note);
	}
	*parent = cp->commit;
	buf_release(&note);
	return error;
}

int refresh_write(size_t *written, const char *root, struct tree_repo *repo,
		  const struct carry_result *res, struct err *err)
{
	struct series_target_file *files = xcalloc(res->nr + 1, sizeof(*files));
	struct buf *texts = xcalloc(res->nr + 1, sizeof(*texts));
	struct buf series = BUF_INIT;
	struct tree_oid parent = res->base;
	size_t n = 0;
	int error = 0;

	*written = 0;
	for (size_t i = 0; i < res->nr && !error; i++) {
		const struct carry_patch *cp = &res->patches[i];

		if (!cp->committed) {
			buf_addf(&series, "# %s: %s in %s\n", cp->item->file,
				 cp->skipped ? "not tried"
					     : apply_outcome_name(cp->outcome),
				 res->target);
			continue;
		}
		buf_init(&texts[n], 0);
		if ((error = refresh_one(&texts[n], repo, &parent, cp,
					 res->target, err)) < 0)
			break;
		files[n].name = cp->item->file;
		files[n].text = texts[n].ptr;
		files[n].len = texts[n].len;
		buf_addf(&series, "%s\n", cp->item->file);
		n++;
	}
	if (!error) {
		files[n].name = "series";
		files[n].text = series.ptr;
		files[n].len = series.len;
		error = series_write_target(root, res->series, res->version,
					    res->target, files, n + 1, err);
		if (!error)
			*written = n;
	}
	for (size_t i = 0; i < n; i++)
		buf_release(&texts[i]);
	free(texts);
	free(files);
	buf_release(&series);
	return error;
}

int refresh_texts(struct tree_repo *repo, struct carry_result *res,
		  struct err *err)
{
	struct tree_oid parent = res->base;
	struct buf text = BUF_INIT;
	int error = 0;

	for (size_t i = 0; i < res->nr && !error; i++) {
		struct carry_patch *cp = &res->patches[i];

		if (!cp->committed)
			continue;
		free(cp->refreshed);
		cp->refreshed = NULL;
		cp->refreshed_len = 0;
		if ((error = refresh_one(&text, repo, &parent, cp, res->target,
					 err)) < 0)
			break;
		cp->refreshed = buf_detach(&text, &cp->refreshed_len);
	}
	buf_release(&text);
	return error;
}
