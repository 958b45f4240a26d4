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

/* Put the note right after the "---" line that ends the message. */
static void insert_note(struct buf *text, const struct buf *note)
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

int refresh_write(size_t *written, const char *root, struct tree_repo *repo,
		  const struct carry_result *res, struct err *err)
{
	struct series_target_file *files = xcalloc(res->nr + 1, sizeof(*files));
	struct buf *texts = xcalloc(res->nr + 1, sizeof(*texts));
	struct buf series = BUF_INIT, note = BUF_INIT;
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
		if ((error = tree_format_commit(&texts[n], repo, &cp->commit,
						err)) < 0)
			break;
		buf_reset(&note);
		refresh_note(&note, cp, res->target);
		insert_note(&texts[n], &note);
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
	buf_release(&note);
	return error;
}
