#include "job.h"

#include <stdlib.h>
#include <string.h>

#include "adapt_conv.h"
#include "debsrc.h"
#include "fs.h"
#include "refresh.h"
#include "resolve.h"
#include "settings.h"

int job_open(struct job *j, const char *root, const char *target,
	     const struct target_progress *progress, struct err *err)
{
	int error;

	memset(j, 0, sizeof(*j));
	j->root = root;
	if ((error = target_load(&j->target, root, target, err)) < 0 ||
	    (error = target_prepare(&j->repo, &j->base, &j->target, progress,
				    err)) < 0)
		return error;
	{
		char *dir = job_ident_dir();

		error = ident_index_new(&j->index, j->repo, dir);
		free(dir);
	}
	return error;
}

char *job_ident_dir(void)
{
	char *cache = debsrc_cache_dir(), *dir = fs_join(cache, "ident");

	free(cache);
	return dir;
}

void job_close(struct job *j)
{
	ident_index_free(j->index);
	tree_close(j->repo);
	target_release(&j->target);
	memset(j, 0, sizeof(*j));
}

static int load_blob(void *ctx, const char *hex, struct buf *out,
		     struct err *err)
{
	return tree_read_blob_by_id(out, ctx, hex, err);
}

struct resolution_ctx {
	const char *root, *name;
	struct resolve_where cell; /* where a build's refusals are kept */
};

static int find_resolution(void *vctx, const char *fingerprint,
			   struct patch *out, struct err *err)
{
	struct resolution_ctx *ctx = vctx;
	return series_read_resolution(out, ctx->root, ctx->name, fingerprint,
				      err);
}

static int find_refusals(void *vctx, const char *fingerprint,
			 const struct tree_oid *tree, struct carry_refusal **out,
			 size_t *nr, struct err *err)
{
	struct resolution_ctx *ctx = vctx;
	struct resolve_where at = ctx->cell;

	at.tree = tree;
	at.fingerprint = fingerprint;
	return resolve_read_refusals(out, nr, &at, err);
}

int job_carry(struct carry_result *res, struct job *j,
	      const struct series_version *v, const struct carry_opts *opts,
	      bool refresh, struct err *err)
{
	return job_carry_from(res, j, &j->base, v, opts, refresh, err);
}

int job_carry_from(struct carry_result *res, struct job *j,
		   const struct tree_oid *base, const struct series_version *v,
		   const struct carry_opts *opts, bool refresh, struct err *err)
{
	struct carry_opts co = *opts;
	struct resolution_ctx rc = { j->root, v->name,
				     { j->root, v->name, v->version,
				       j->target.name, NULL, NULL } };
	struct cause_finder finder;
	struct cause_lookup lookup = { cause_finder_find, &finder };
	struct adapt_conv conv;
	int error;

	/* the form of adapted notes: before anything is carried, so that a
	 * bad refresh.note leaves the branch as it was */
	if ((error = settings_note_form(&co.note_form, j->root, err)) < 0)
		return error;
	co.apply.load_blob = load_blob;
	co.apply.ctx = j->repo;
	co.index = j->index;
	/* where names the target lacks come from: the workspace's other
	 * series, the target's kernel.history */
	cause_finder_init(&finder, j->root, v->name, v->version,
			  j->target.history);
	co.lookup = &lookup;
	/* what the series converts, for adaptation's rule 5 (adapt_conv.c):
	 * a series whose conversion cannot be learned adapts without it */
	if (adapt_conv_learn(&conv, j->root, v, err) < 0)
		err_release(err);
	co.apply.conv = &conv;
	{
		/* fingerprints cost a tree lookup per file: only when there
		 * is a recorded resolution to find */
		char *dir = xstrfmt("%s/patches/%s/.resolutions", j->root,
				    v->name);
		if (fs_is_dir(dir)) {
			co.resolution = find_resolution;
			co.resolution_ctx = &rc;
			/* a build's refusals, unless a build judges afresh */
			if (!co.no_refusals) {
				co.refused = find_refusals;
				co.refused_ctx = &rc;
			}
		}
		free(dir);
	}
	/* the refreshed series first, the branch last: a run killed in
	 * between leaves the old branch, never a new one without its
	 * series */
	co.no_ref = true;
	error = carry_series(res, j->repo, base, v, j->target.name, &co, err);
	cause_finder_release(&finder);
	adapt_conv_release(&conv);
	if (!error && co.resolution) /* a person's accepted proposals */
		resolve_mark_accepted(res, j->root, v->name);
	if (!error && opts->patch_texts)
		error = refresh_texts(j->repo, res, err);
	if (!error && refresh && !opts->no_ref) {
		size_t written;
		error = refresh_write(&written, j->root, j->repo, res, err);
	}
	if (!error && !opts->no_ref)
		error = carry_set_ref(j->repo, res, err);
	return error;
}
