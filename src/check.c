#include "check.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fs.h"
#include "job.h"
#include "name.h"
#include "resolve.h"

void check_report_release(struct check_report *r)
{
	for (size_t s = 0; s < r->nr_series; s++) {
		/* cells exist once the selection was complete */
		for (size_t t = 0; r->cells && t < r->nr_targets; t++) {
			struct check_cell *c = check_cell(r, s, t);
			free(c->error);
			carry_result_release(&c->carry);
			audit_result_release(&c->audit);
			build_result_release(&c->build);
		}
		free(r->series[s].name);
		free(r->series[s].load_error);
		series_version_release(&r->series[s].v);
		audit_opts_release(&r->series[s].audit);
	}
	for (size_t t = 0; t < r->nr_targets; t++)
		free(r->targets[t]);
	free(r->targets);
	free(r->series);
	free(r->cells);
	free(r->root);
	memset(r, 0, sizeof(*r));
}

static bool is_target(const char *root, const char *name)
{
	char *c;
	bool yes;

	if (!name_valid(NAME_TARGET, name))
		return false;
	c = xstrfmt("%s/kernels/%s.conf", root, name);
	yes = fs_is_file(c);
	free(c);
	return yes;
}

static long find_series(const struct check_report *r, const char *name)
{
	for (size_t i = 0; i < r->nr_series; i++)
		if (!strcmp(r->series[i].name, name))
			return (long)i;
	return -1;
}

static int add_series(struct check_report *r, size_t *alloc,
		      const char *name, const char *version, struct err *err)
{
	struct check_series *cs;
	int error;

	ALLOC_GROW(r->series, r->nr_series + 1, *alloc);
	cs = &r->series[r->nr_series];
	memset(cs, 0, sizeof(*cs));
	cs->stacks_on = -1;
	if ((error = series_load_version(&cs->v, r->root, name, version, err)) <
	    0) {
		char *ver = cs->v.version;

		cs->v.version = NULL;
		series_version_release(&cs->v);
		if (!ver)
			return error;
		/* the version is there but does not load (a patch that does
		 * not parse): its cells say so, the other series run */
		series_version_init(&cs->v, name, ver);
		free(ver);
		cs->load_error = xstrdup(err->msg.len ? err->msg.ptr
						      : "cannot load");
		cs->load_code = error;
		err_release(err);
		err_init(err);
	}
	if ((error = audit_opts_load(&cs->audit, r->root, name, err)) < 0) {
		series_version_release(&cs->v);
		return error;
	}
	cs->name = xstrdup(name);
	r->nr_series++;
	return 0;
}

static long find_version(const struct check_report *r, const char *name,
			 const char *version)
{
	for (size_t i = 0; i < r->nr_series; i++)
		if (!strcmp(r->series[i].name, name) &&
		    !strcmp(r->series[i].v.version, version))
			return (long)i;
	return -1;
}

/*
 * Bring in the series each selected one stacks on, base first, at the
 * version series_stacks_on_resolve says: a base selected at another
 * version (its newest, by default) is carried twice, once as selected
 * and once under what stacks on it.
 */
static int resolve_stacks(struct check_report *r, size_t *alloc,
			  struct err *err)
{
	for (size_t i = 0; i < r->nr_series; i++) {
		struct series_stack st;
		long b;
		int error;

		if ((error = series_stacks_on_resolve(
			     &st, r->root, r->series[i].name,
			     r->series[i].v.version, err)) < 0)
			return error;
		if (!st.base)
			continue;
		b = find_version(r, st.base, st.version);
		if (b < 0) {
			error = add_series(r, alloc, st.base, st.version, err);
			if (error < 0) {
				err_prefix(err, "series '%s' stacks on '%s'",
					   r->series[i].name, st.base);
				series_stack_release(&st);
				return error;
			}
			b = (long)r->nr_series - 1;
			r->series[b].stacked_base = true;
		}
		r->series[i].stacks_on = b;
		r->series[i].base_newest = st.newest;
		series_stack_release(&st);
	}
	/* order: every base before what stacks on it (bases were appended
	 * after; a stable pass moves each base in front) */
	for (size_t pass = 0; pass < r->nr_series; pass++) {
		bool moved = false;
		for (size_t i = 0; i < r->nr_series; i++) {
			long b = r->series[i].stacks_on;
			if (b > (long)i) {
				struct check_series tmp = r->series[b];
				memmove(&r->series[i + 1], &r->series[i],
					((size_t)b - i) * sizeof(tmp));
				r->series[i] = tmp;
				for (size_t k = 0; k < r->nr_series; k++) {
					long *so = &r->series[k].stacks_on;
					if (*so == b)
						*so = (long)i;
					else if (*so >= (long)i && *so < b)
						(*so)++;
				}
				moved = true;
			}
		}
		if (!moved)
			break;
		if (pass + 1 == r->nr_series)
			return err_set(err, ERR_PARSE,
				       "series stack on each other in a loop");
	}
	return 0;
}

struct worker {
	struct check_report *r;
	const struct check_opts *opts;
	pthread_mutex_t *lock;
	size_t *next;
};

struct patch_progress {
	const struct check_opts *opts;
	pthread_mutex_t *lock;
	const char *target, *series;
};

static void on_patch(void *vctx, size_t i, size_t nr, const char *subject)
{
	struct patch_progress *p = vctx;

	if (!p->opts->progress || !p->opts->progress->fn)
		return;
	pthread_mutex_lock(p->lock);
	p->opts->progress->fn(p->opts->progress->ctx, p->target, p->series, i,
			      nr);
	pthread_mutex_unlock(p->lock);
}

struct stage_ctx {
	const struct check_opts *opts;
	pthread_mutex_t *lock;
};

static void on_stage(void *vctx, const char *target, const char *what)
{
	struct stage_ctx *c = vctx;

	if (!c->opts->progress || !c->opts->progress->stage)
		return;
	pthread_mutex_lock(c->lock);
	c->opts->progress->stage(c->opts->progress->ctx, target, what);
	pthread_mutex_unlock(c->lock);
}

static void on_build(void *vctx, const struct build_tick *t)
{
	struct stage_ctx *c = vctx;

	if (!c->opts->progress || !c->opts->progress->build)
		return;
	pthread_mutex_lock(c->lock);
	c->opts->progress->build(c->opts->progress->ctx, t);
	pthread_mutex_unlock(c->lock);
}

bool check_in_shard(size_t s, size_t t, size_t nr_targets, unsigned shard,
		    unsigned nr_shards)
{
	return nr_shards <= 1 ||
	       (s * nr_targets + t) % nr_shards == (size_t)shard - 1;
}

static void build_cell(struct check_cell *c, struct job *j,
		       const struct check_series *cs,
		       const struct check_opts *opts, struct stage_ctx *sc)
{
	struct build_progress bp = { on_build, sc };
	struct build_opts bo = opts->build_opts;
	struct build_request rq = { j->root, &j->target, j->repo, &c->carry,
				    &c->audit, &cs->audit, &bo };
	struct err err = ERR_INIT;

	bo.progress = &bp;
	if (!memcmp(&c->carry.head, &c->carry.base, sizeof(c->carry.base))) {
		c->build.skipped = true;
		return;
	}
	if (build_run(&c->build, &rq, &err) < 0) {
		free(c->build.error);
		c->build.error = xstrdup(err.msg.len ? err.msg.ptr
						     : "build failed");
		if (err.hint.len) {
			char *e = xstrfmt("%s (hint: %s)", c->build.error,
					  err.hint.ptr);
			free(c->build.error);
			c->build.error = e;
		}
		c->build.error_code = err.code;
		c->build.failed = true;
	}
	err_release(&err);
	check_judge_adapted(c);
}

static void cell_failed(struct check_cell *c, const struct err *err)
{
	c->ok = false;
	c->error = xstrdup(err->msg.len ? err->msg.ptr : "failed");
	c->error_code = err->code;
}

/* The adapted hunks check_judge_adapted turned back into conflicts (a
 * cause "build"), as carry_opts.no_adapt names them; how many. */
static size_t refused_hunks(struct carry_hunk_ref **out,
			    const struct carry_result *cr)
{
	size_t n = 0, alloc = 0;

	*out = NULL;
	for (size_t i = 0; i < cr->nr; i++)
		for (size_t f = 0; f < cr->patches[i].nr_files; f++) {
			const struct carry_file *cf = &cr->patches[i].files[f];

			for (size_t h = 0; h < cf->nr_hunks; h++) {
				const struct apply_hunk_result *hr =
					&cf->hunks[h];

				if (hr->rule != RULE_CONFLICT || !hr->cause ||
				    hr->cause->kind != CAUSE_BUILD)
					continue;
				ALLOC_GROW(*out, n + 1, alloc);
				(*out)[n++] = (struct carry_hunk_ref){ i, f, h };
			}
		}
	return n;
}

/* Hunk r of cr, or NULL when cr has no such hunk. */
static struct apply_hunk_result *hunk_at(const struct carry_result *cr,
					 const struct carry_hunk_ref *r)
{
	struct carry_file *cf;

	if (r->patch >= cr->nr || r->file >= cr->patches[r->patch].nr_files)
		return NULL;
	cf = &cr->patches[r->patch].files[r->file];
	return r->hunk < cf->nr_hunks ? &cf->hunks[r->hunk] : NULL;
}

static bool compiled_source(const char *path)
{
	const char *dot = strrchr(path, '.');

	return dot && (!strcmp(dot, ".c") || !strcmp(dot, ".S"));
}

/*
 * The adapted hunks of the carry that was built that build
 * (adapt->built) stay so in now, carried again without the refused
 * ones, when what was compiled for them is unchanged: the same
 * adaptation of a file whose blob did not change, while every file the
 * heads differ in is a .c or .S file (a header may reach any object).
 */
static int keep_built(struct carry_result *now,
		      const struct carry_result *built, struct tree_repo *repo,
		      struct err *err)
{
	char **changed = NULL;
	size_t nr_changed = 0;
	bool headers_same = true;
	int error;

	if ((error = tree_changed_paths(&changed, &nr_changed, repo,
					&built->head, &now->head, err)) < 0)
		return error;
	for (size_t k = 0; k < nr_changed; k++)
		headers_same = headers_same && compiled_source(changed[k]);
	for (size_t i = 0; headers_same && i < now->nr; i++)
		for (size_t f = 0; f < now->patches[i].nr_files; f++) {
			const struct carry_file *cf = &now->patches[i].files[f];

			for (size_t h = 0; now->patches[i].committed &&
					   h < cf->nr_hunks;
			     h++) {
				struct carry_hunk_ref r = { i, f, h };
				const struct apply_hunk_result *was =
					hunk_at(built, &r);
				struct adaptation *a = cf->hunks[h].adapt;
				/* the file this hunk went to (rule 1 may
				 * send each hunk of a split file apart) */
				const char *p = carry_hunk_path(cf, h);
				bool same = true;

				for (size_t k = 0; same && k < nr_changed; k++)
					same = strcmp(changed[k], p) != 0;
				if (same && a && a->adapted && was &&
				    was->adapt &&
				    was->adapt->built && was->adapt->adapted &&
				    !strcmp(a->adapted, was->adapt->adapted))
					a->built = true;
			}
		}
	for (size_t k = 0; k < nr_changed; k++)
		free(changed[k]);
	free(changed);
	return 0;
}

/*
 * After check_judge_adapted turned adapted hunks of c back into
 * conflicts: the branch (and with refresh the refreshed series) still
 * hold them, as carried before the build.  Carry the series again with
 * those hunks never adapted, so that the branch, the refreshed series
 * and the report agree: each such patch is the conflict (or partial)
 * it would have been without adaptation, the later patches carried on
 * it as usual.  The build is not run again: its diagnostics stand for
 * the tree it built; a refused hunk keeps its cause "build", its reason
 * saying the branch was carried again.  The audit follows the new
 * result.  The series is carried from the commit c was carried from
 * (c->carry.base).
 */
static int carry_without_refused(struct check_cell *c, struct job *j,
				 const struct check_series *cs,
				 const struct carry_opts *co, bool refresh,
				 struct err *err)
{
	const struct tree_oid base = c->carry.base;
	const struct series_version *v = &cs->v;
	struct carry_opts o = *co;
	struct carry_result again;
	struct carry_hunk_ref *refs;
	size_t n = refused_hunks(&refs, &c->carry);
	int error = 0;

	if (!n)
		return 0;
	o.no_adapt = refs;
	o.nr_no_adapt = n;
	memset(&again, 0, sizeof(again));
	if ((error = job_carry_from(&again, j, &base, v, &o, refresh, err)) < 0 ||
	    (error = keep_built(&again, &c->carry, j->repo, err)) < 0) {
		err_prefix(err, "carrying %s again without the adaptations "
				"the build refused",
			   v->name);
		carry_result_release(&again);
		goto out;
	}
	for (size_t k = 0; k < n; k++) {
		struct apply_hunk_result *was = hunk_at(&c->carry, &refs[k]);
		struct apply_hunk_result *now = hunk_at(&again, &refs[k]);
		char *reason;

		/* it conflicts again (or an earlier refusal changed what
		 * it meets, and it applies: its own outcome stands) */
		if (!now || now->rule != RULE_CONFLICT)
			continue;
		cause_free(now->cause);
		now->cause = was->cause;
		was->cause = NULL;
		reason = xstrfmt("%s; the branch was carried again without it",
				 was->reason ? was->reason : "a build refused it");
		free(now->reason);
		now->reason = reason;
	}
	carry_result_release(&c->carry);
	c->carry = again;
	audit_result_release(&c->audit);
	error = audit_run(&c->audit, j->repo, v, &c->carry, &cs->audit, err);
out:
	free(refs);
	return error;
}

/*
 * Keep what the build of c judged (check_judge_adapted) for the carries
 * that do not build: each patch with hunks the build refused is recorded
 * (resolve_record_refusals) as it meets its tree in c->carry, carried
 * again without them, which is how a carry honouring the records meets
 * it.  A build that did not fail judged every adaptation of the cell:
 * the cell's other records go.  A failed build proves nothing more than
 * its refusals, and a build that did not run or judge records nothing.
 */
static int record_refusals(const struct check_cell *c, const char *root,
			   const struct check_series *cs, const char *target,
			   struct err *err)
{
	const struct build_result *b = &c->build;
	const struct resolve_where where = { root, cs->v.name, cs->v.version,
					     target, NULL, NULL };
	char (*keep)[41] = NULL;
	size_t nr_keep = 0, alloc = 0;
	int error = 0;

	if (!b->ran || b->skipped || b->error)
		return 0;
	for (size_t i = 0; i < c->carry.nr && !error; i++) {
		const struct carry_patch *cp = &c->carry.patches[i];
		struct carry_refusal *r = NULL;
		size_t n = 0, ralloc = 0;

		if (cp->resolved || cp->skipped || !cp->fingerprint[0])
			continue;
		for (size_t f = 0; f < cp->nr_files; f++)
			for (size_t h = 0; h < cp->files[f].nr_hunks; h++) {
				const struct apply_hunk_result *hr =
					&cp->files[f].hunks[h];

				if (hr->rule != RULE_CONFLICT || !hr->cause ||
				    hr->cause->kind != CAUSE_BUILD ||
				    !hr->cause->text)
					continue;
				ALLOC_GROW(r, n + 1, ralloc);
				r[n++] = (struct carry_refusal){
					f, h, cp->files[f].path,
					hr->cause->text, hr->cause->adapted
				};
			}
		if (n) {
			struct resolve_where at = where;

			at.tree = &cp->met;
			at.fingerprint = cp->fingerprint;
			ALLOC_GROW(keep, nr_keep + 1, alloc);
			error = resolve_record_refusals(keep[nr_keep++], &at, r,
							n, err);
		}
		free(r); /* its strings are the carry's */
	}
	if (!error && !b->failed)
		error = resolve_prune_refusals(&where, keep, nr_keep, err);
	if (error)
		err_prefix(err, "recording what the build of %s on %s refused",
			   cs->v.name, target);
	free(keep);
	return error;
}

static void run_target(struct check_report *r, size_t t,
		       const struct check_opts *opts, pthread_mutex_t *lock)
{
	struct job j;
	struct err err = ERR_INIT;
	struct stage_ctx sc = { opts, lock };
	struct target_progress tp = { on_stage, &sc };
	bool *needed = xcalloc(r->nr_series + 1, sizeof(bool));
	bool any = false;
	int error;

	/* this shard's cells, and the cells they stack on */
	for (size_t s = 0; s < r->nr_series; s++) {
		check_cell(r, s, t)->other_shard = !check_in_shard(
			s, t, r->nr_targets, opts->shard, opts->nr_shards);
		needed[s] = !check_cell(r, s, t)->other_shard;
	}
	for (size_t s = r->nr_series; s-- > 0;)
		if (needed[s] && r->series[s].stacks_on >= 0)
			needed[r->series[s].stacks_on] = true;
	for (size_t s = 0; s < r->nr_series; s++)
		any = any || needed[s];
	if (!any) {
		free(needed);
		return;
	}
	memset(&j, 0, sizeof(j));
	error = job_open(&j, r->root, r->targets[t], &tp, &err);
	/* the blobs a carry reads are kept for the diffs of the refreshed
	 * series and of the patches' texts (--no-patch-text: none) */
	if (!error && !opts->refresh && !opts->carry.patch_texts)
		tree_keep_read_blobs(j.repo, false);
	for (size_t s = 0; s < r->nr_series; s++) {
		if (!needed[s])
			continue;
		struct check_cell *c = check_cell(r, s, t);
		struct check_series *cs = &r->series[s];
		struct patch_progress pp = { opts, lock, r->targets[t],
					     cs->name };
		struct carry_opts co = opts->carry;
		const struct tree_oid *base = &j.base;
		bool builds = opts->build && !c->other_shard &&
			      !(opts->build_no_bases && cs->stacked_base);

		/* the build judges this cell's adaptations afresh */
		co.no_refusals = co.no_refusals || builds;
		if (error < 0) {
			cell_failed(c, &err);
			continue;
		}
		if (cs->load_error) {
			c->ok = false;
			c->error = xstrdup(cs->load_error);
			c->error_code = cs->load_code;
			continue;
		}
		if (cs->stacks_on >= 0) {
			struct check_cell *bc =
				check_cell(r, (size_t)cs->stacks_on, t);
			if (!bc->ok) {
				struct err e2 = ERR_INIT;
				err_set(&e2, ERR_CONFLICT,
					"not carried: '%s' it stacks on did "
					"not run",
					r->series[cs->stacks_on].name);
				cell_failed(c, &e2);
				err_release(&e2);
				continue;
			}
			base = &bc->carry.head;
		}
		co.progress = on_patch;
		co.ctx = &pp;
		if (job_carry_from(&c->carry, &j, base, &cs->v, &co,
				   opts->refresh, &err) < 0 ||
		    audit_run(&c->audit, j.repo, &cs->v, &c->carry, &cs->audit,
			      &err) < 0) {
			cell_failed(c, &err);
			err_release(&err);
			continue;
		}
		c->ok = true;
		if (builds) {
			build_cell(c, &j, cs, opts, &sc);
			if (carry_without_refused(c, &j, cs, &co,
						  opts->refresh, &err) < 0 ||
			    record_refusals(c, r->root, cs, j.target.name,
					    &err) < 0) {
				cell_failed(c, &err);
				err_release(&err);
			}
		}
	}
	job_close(&j);
	err_release(&err);
	free(needed);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	for (;;) {
		size_t t;
		pthread_mutex_lock(w->lock);
		t = (*w->next)++;
		pthread_mutex_unlock(w->lock);
		if (t >= w->r->nr_targets)
			return NULL;
		run_target(w->r, t, w->opts, w->lock);
	}
}

int check_select(struct check_report *r, const char *root,
		 char *const *specs, size_t nr_specs, struct err *err)
{
	size_t salloc = 0, talloc = 0;
	int error = 0;

	memset(r, 0, sizeof(*r));
	r->root = xstrdup(root);
	for (size_t i = 0; i < nr_specs; i++) {
		char *name = NULL, *version = NULL;
		bool at = strchr(specs[i], '@') != NULL;

		if (!at && is_target(root, specs[i])) {
			ALLOC_GROW(r->targets, r->nr_targets + 1, talloc);
			r->targets[r->nr_targets++] = xstrdup(specs[i]);
			continue;
		}
		if ((error = series_parse_spec(specs[i], &name, &version, err)) < 0)
			return error;
		if (!series_exists(root, name)) {
			error = err_set(err, ERR_NOTFOUND,
					"'%s' names neither a series nor a "
					"target",
					specs[i]);
			err_hint(err, "'kcarry list' shows the series, 'kcarry "
				      "kernels' the targets");
		} else if (find_series(r, name) < 0)
			error = add_series(r, &salloc, name, version, err);
		free(name);
		free(version);
		if (error < 0)
			return error;
	}
	if (!r->nr_series) {
		char **names = NULL;
		size_t n = 0;
		if ((error = series_list_names(root, &names, &n, err)) < 0)
			return error;
		for (size_t i = 0; i < n && !error; i++) {
			char **vs = NULL;
			size_t nv = 0;
			struct err e2 = ERR_INIT;
			if (series_list_versions(root, names[i], &vs, &nv, &e2) == 0 &&
			    find_series(r, names[i]) < 0)
				error = add_series(r, &salloc, names[i], NULL, err);
			series_free_list(vs, nv);
			err_release(&e2);
		}
		series_free_list(names, n);
		if (error < 0)
			return error;
		if (!r->nr_series) {
			err_set(err, ERR_NOTFOUND, "no series with a stored "
				"version in this workspace");
			err_hint(err, "'kcarry import NAME SOURCE' adds one");
			return ERR_NOTFOUND;
		}
	}
	if (!r->nr_targets) {
		if ((error = target_list(root, &r->targets, &r->nr_targets,
					 err)) < 0)
			return error;
		if (!r->nr_targets) {
			err_set(err, ERR_NOTFOUND, "no target in this workspace");
			err_hint(err, "add kernels/NAME.conf");
			return ERR_NOTFOUND;
		}
	}
	return resolve_stacks(r, &salloc, err);
}

void check_execute(struct check_report *r, const struct check_opts *opts)
{
	size_t next = 0, jobs;
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	r->cells = xcalloc(r->nr_series * r->nr_targets, sizeof(*r->cells));
	r->built = opts->build;
	if (opts->nr_shards > 1) {
		r->shard = opts->shard;
		r->nr_shards = opts->nr_shards;
	}
	jobs = opts->jobs ? opts->jobs : (size_t)sysconf(_SC_NPROCESSORS_ONLN);
	if (jobs < 1)
		jobs = 1;
	if (jobs > r->nr_targets)
		jobs = r->nr_targets;
	{
		pthread_t *th = xcalloc(jobs, sizeof(*th));
		struct worker w = { r, opts, &lock, &next };
		size_t started = 0;

		for (size_t i = 1; i < jobs; i++)
			if (pthread_create(&th[i], NULL, worker_main, &w) == 0)
				started = i;
			else
				break;
		worker_main(&w);
		for (size_t i = 1; i <= started; i++)
			pthread_join(th[i], NULL);
		free(th);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r->seconds = (double)(t1.tv_sec - t0.tv_sec) +
		     (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
}

int check_run(struct check_report *r, const char *root, char *const *specs,
	      size_t nr_specs, const struct check_opts *opts,
	      struct err *err)
{
	int error = check_select(r, root, specs, nr_specs, err);

	if (error < 0)
		return error;
	check_execute(r, opts);
	return 0;
}

size_t check_patch_adapted_open(const struct carry_patch *cp,
				enum check_accept how)
{
	size_t n = 0;

	for (size_t f = 0; f < cp->nr_files; f++)
		for (size_t h = 0; h < cp->files[f].nr_hunks; h++) {
			const struct apply_hunk_result *hr =
				&cp->files[f].hunks[h];

			if (hr->rule != RULE_ADAPTED || how == ACCEPT_ALL ||
			    (hr->adapt && hr->adapt->accepted) ||
			    (how == ACCEPT_BUILT && hr->adapt &&
			     hr->adapt->built))
				continue;
			n++;
		}
	return n;
}

size_t check_adapted_open(const struct carry_result *cr,
			  enum check_accept how)
{
	size_t n = 0;

	for (size_t i = 0; i < cr->nr; i++)
		if (cr->patches[i].outcome == OUTCOME_ADAPTED)
			n += check_patch_adapted_open(&cr->patches[i], how);
	return n;
}

bool check_any_adapted(const struct check_report *r, enum check_accept how)
{
	for (size_t s = 0; s < r->nr_series; s++)
		for (size_t t = 0; t < r->nr_targets; t++) {
			const struct check_cell *c = check_cell(r, s, t);

			if (!c->other_shard && check_adapted_open(&c->carry, how))
				return true;
		}
	return false;
}

/* The carry file of cp holding path (its own, or where rule 1 moved
 * it, or one of its hunks), or NULL. */
static struct carry_file *file_of(struct carry_patch *cp, const char *path,
				  size_t len)
{
	for (size_t f = 0; f < cp->nr_files; f++) {
		const struct carry_file *cf = &cp->files[f];
		size_t nh = cf->hunk_to ? cf->nr_hunks : 1;

		for (size_t h = 0; h < nh; h++) {
			const char *p = carry_hunk_path(cf, h);

			if (strlen(p) == len && !strncmp(p, path, len))
				return &cp->files[f];
		}
	}
	return NULL;
}

/* The hunk diagnostic i of b is pinned on, when it is an adapted one. */
static struct apply_hunk_result *pinned_adapted(struct carry_result *cr,
						const struct build_result *b,
						size_t i)
{
	const struct blame_attribution *a = &b->attr[i];
	const char *path = b->diags.items[i].path;
	size_t len = strlen(path);
	struct carry_file *cf;

	if (!a->patch || a->patch > cr->nr || !a->hunk)
		return NULL;
	if (a->cause == BLAME_DECLARATION && a->where) {
		/* the note's line, "path:line" */
		path = a->where;
		len = strrchr(path, ':') ? (size_t)(strrchr(path, ':') - path)
					 : strlen(path);
	} else if (a->cause != BLAME_PATCH) {
		return NULL;
	}
	cf = file_of(&cr->patches[a->patch - 1], path, len);
	if (!cf || a->hunk > cf->nr_hunks ||
	    cf->hunks[a->hunk - 1].rule != RULE_ADAPTED)
		return NULL;
	return &cf->hunks[a->hunk - 1];
}

/* Adapted hunk hr of patch cp a conflict again: d, pinned on it. */
static void adapted_fails(struct carry_result *cr, struct carry_patch *cp,
			  struct apply_hunk_result *hr, const struct diag *d)
{
	struct buf b = BUF_INIT;

	buf_addf(&b, "%s:%lu: %s: %s", d->path, d->line,
		 diag_severity_name(d->sev), d->message);
	cause_free(hr->cause);
	hr->cause = xcalloc(1, sizeof(*hr->cause));
	hr->cause->kind = CAUSE_BUILD;
	hr->cause->text = buf_detach(&b, NULL);
	/* which adaptation was refused: another is proposed again */
	hr->cause->adapted = xmalloc(41);
	carry_adaptation_id(hr->cause->adapted, hr->adapt);
	free(hr->reason);
	hr->reason = xstrfmt("the adapted hunk (rule %s) does not build",
			     adapt_rule_name(hr->adapt->rule));
	adaptation_free(hr->adapt);
	hr->adapt = NULL;
	hr->rule = RULE_CONFLICT;
	for (size_t f = 0; f < cp->nr_files; f++)
		for (size_t h = 0; h < cp->files[f].nr_hunks; h++)
			if (&cp->files[f].hunks[h] == hr)
				cp->files[f].outcome = OUTCOME_CONFLICT;
	if (cp->outcome == OUTCOME_CONFLICT)
		return;
	cr->counts[cp->outcome]--;
	cp->outcome = OUTCOME_CONFLICT;
	cr->counts[OUTCOME_CONFLICT]++;
	cr->nr_failed++;
	cr->worst = OUTCOME_CONFLICT;
}

/* Whether some new diagnostic of b is in path. */
static bool diag_in(const struct build_result *b, const char *path)
{
	for (size_t i = 0; i < b->diags.nr; i++)
		if (!strcmp(b->diags.items[i].path, path))
			return true;
	return false;
}

void check_judge_adapted(struct check_cell *c)
{
	struct build_result *b = &c->build;
	struct carry_result *cr = &c->carry;

	if (!b->ran || b->skipped || b->error)
		return;
	for (size_t i = 0; b->attr && i < b->diags.nr; i++) {
		struct apply_hunk_result *hr = pinned_adapted(cr, b, i);

		if (hr)
			adapted_fails(cr, &cr->patches[b->attr[i].patch - 1],
				      hr, &b->diags.items[i]);
	}
	if (b->failed)
		return; /* what did not build proves nothing */
	for (size_t i = 0; i < cr->nr; i++) {
		struct carry_patch *cp = &cr->patches[i];

		for (size_t f = 0; f < cp->nr_files; f++) {
			struct carry_file *cf = &cp->files[f];

			/* each hunk in its file (rule 1 may have moved it) */
			for (size_t h = 0; h < cf->nr_hunks; h++) {
				const char *p = carry_hunk_path(cf, h);

				if (cf->hunks[h].rule == RULE_ADAPTED &&
				    cf->hunks[h].adapt &&
				    build_compiled(b, p) && !diag_in(b, p))
					cf->hunks[h].adapt->built = true;
			}
		}
	}
}

int check_exit_code(const struct check_report *r)
{
	for (size_t s = 0; s < r->nr_series; s++)
		for (size_t t = 0; t < r->nr_targets; t++) {
			const struct check_cell *c = check_cell(r, s, t);
			if (c->other_shard)
				continue;
			if (!c->ok || c->carry.nr_failed || c->carry.risk ||
			    c->audit.nr_unconverted || c->audit.nr_conflicted ||
			    c->audit.nr_target_only || c->build.failed)
				return 1;
		}
	return 0;
}
