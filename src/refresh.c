#include "refresh.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	const char **paths = xcalloc(orig->nr_files * 2 + cp->nr_files + 1,
				     sizeof(char *));
	struct buf diff = BUF_INIT;
	struct patch np;
	struct patch_parse_opts po = { 0 };
	char hex[41];
	size_t n = 0;
	int error;

	patch_init(&np);
	for (size_t f = 0; f < orig->nr_files; f++) {
		if (orig->files[f].old_path)
			paths[n++] = orig->files[f].old_path;
		if (orig->files[f].new_path)
			paths[n++] = orig->files[f].new_path;
	}
	for (size_t f = 0; f < cp->nr_files; f++)
		if (cp->files[f].moved_to) /* adaptation rule 1 */
			paths[n++] = cp->files[f].moved_to;
	if ((error = tree_diff_paths(&diff, repo, parent, &cp->commit, paths, n,
				     err)) < 0)
		goto out;
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
	free(paths);
	return error;
}

/*
 * Formatting a patch reads its files' blobs at its parent and at its
 * commit and diffs them: most of what writing the refreshed series costs
 * (as much as carrying the series).  Patches are independent once
 * committed, so workers format them in parallel, each taking the next
 * patch; the texts land by index, so what is written does not depend
 * on the number of workers.
 */
struct format_work {
	struct tree_repo *repo;
	const struct carry_result *res;
	const size_t *idx;		/* committed patches, in order */
	const struct tree_oid *parents; /* the commit each one met */
	struct buf *texts;
	int *rc;
	struct err *errs;
	size_t n;
	size_t next;
	bool failed;
	pthread_mutex_t lock;
};

static void *format_worker(void *arg)
{
	struct format_work *w = arg;

	for (;;) {
		size_t i;

		pthread_mutex_lock(&w->lock);
		i = w->failed ? w->n : w->next++;
		pthread_mutex_unlock(&w->lock);
		if (i >= w->n)
			break;
		w->rc[i] = format_refreshed(
			&w->texts[i], w->repo, &w->parents[i],
			&w->res->patches[w->idx[i]], &w->errs[i]);
		if (w->rc[i] < 0) {
			pthread_mutex_lock(&w->lock);
			w->failed = true;
			pthread_mutex_unlock(&w->lock);
		}
	}
	return NULL;
}

/* Format w->n patches with up to jobs workers (this thread is one). */
static void format_all(struct format_work *w, unsigned jobs)
{
	pthread_t *threads;
	size_t started = 0;

	if (jobs > w->n)
		jobs = (unsigned)w->n;
	threads = xcalloc(jobs ? jobs : 1, sizeof(*threads));
	for (unsigned t = 1; t < jobs; t++)
		if (pthread_create(&threads[started], NULL, format_worker, w) ==
		    0)
			started++;
	format_worker(w);
	for (size_t t = 0; t < started; t++)
		pthread_join(threads[t], NULL);
	free(threads);
}

/* Workers for n patches: one per CPU, at most 4; one for a short series. */
static unsigned default_jobs(size_t n)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 16 || cpus < 2)
		return 1;
	return cpus > 4 ? 4 : (unsigned)cpus;
}

int refresh_write(size_t *written, const char *root, struct tree_repo *repo,
		  const struct carry_result *res, struct err *err)
{
	size_t committed = 0;

	for (size_t i = 0; i < res->nr; i++)
		committed += res->patches[i].committed;
	return refresh_write_jobs(written, root, repo, res,
				  default_jobs(committed), err);
}

int refresh_write_jobs(size_t *written, const char *root,
		       struct tree_repo *repo, const struct carry_result *res,
		       unsigned jobs, struct err *err)
{
	struct format_work w = { .repo = repo, .res = res };
	struct series_target_file *files = xcalloc(res->nr + 1, sizeof(*files));
	size_t *idx = xcalloc(res->nr + 1, sizeof(*idx));
	struct tree_oid *parents = xcalloc(res->nr + 1, sizeof(*parents));
	struct buf series = BUF_INIT, note = BUF_INIT;
	struct tree_oid parent = res->base;
	size_t n = 0, nfiles = 0;
	int error = 0;

	*written = 0;
	for (size_t i = 0; i < res->nr; i++) {
		if (!res->patches[i].committed)
			continue;
		idx[n] = i;
		parents[n++] = parent;
		parent = res->patches[i].commit;
	}
	w.idx = idx;
	w.parents = parents;
	w.n = n;
	w.texts = xcalloc(n + 1, sizeof(*w.texts));
	w.rc = xcalloc(n + 1, sizeof(*w.rc));
	w.errs = xcalloc(n + 1, sizeof(*w.errs));
	for (size_t i = 0; i < n; i++) {
		buf_init(&w.texts[i], 0);
		err_init(&w.errs[i]);
	}
	pthread_mutex_init(&w.lock, NULL);
	format_all(&w, jobs ? jobs : 1);
	pthread_mutex_destroy(&w.lock);

	/* in series order, as one worker would: the first failure wins */
	for (size_t i = 0, k = 0; i < res->nr && !error; i++) {
		const struct carry_patch *cp = &res->patches[i];

		if (!cp->committed) {
			buf_addf(&series, "# %s: %s in %s\n", cp->item->file,
				 cp->skipped ? "not tried"
					     : apply_outcome_name(cp->outcome),
				 res->target);
			continue;
		}
		if ((error = w.rc[k]) < 0) {
			err_release(err);
			*err = w.errs[k];
			err_init(&w.errs[k]);
			break;
		}
		buf_reset(&note);
		refresh_note(&note, cp, res->target);
		refresh_insert_note(&w.texts[k], &note);
		files[nfiles].name = cp->item->file;
		files[nfiles].text = w.texts[k].ptr;
		files[nfiles].len = w.texts[k].len;
		buf_addf(&series, "%s\n", cp->item->file);
		nfiles++;
		k++;
	}
	if (!error) {
		files[nfiles].name = "series";
		files[nfiles].text = series.ptr;
		files[nfiles].len = series.len;
		error = series_write_target(root, res->series, res->version,
					    res->target, files, nfiles + 1,
					    err);
		if (!error)
			*written = nfiles;
	}
	for (size_t i = 0; i < n; i++) {
		buf_release(&w.texts[i]);
		err_release(&w.errs[i]);
	}
	free(w.texts);
	free(w.rc);
	free(w.errs);
	free(parents);
	free(idx);
	free(files);
	buf_release(&series);
	buf_release(&note);
	return error;
}
