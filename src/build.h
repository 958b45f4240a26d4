/*
 * build: compiles a carried series with the target's own Kbuild and keeps
 * only the diagnostics the series brought.  Per target it keeps, in the
 * cache (<cache>/build/TARGET/):
 *
 *   src/             the source folder, brought to a commit by rewriting
 *                    only the files whose blob differs (src.manifest holds
 *                    path -> blob id), so that unchanged files keep their
 *                    mtimes and make rebuilds only what changed
 *   out-HASH/        the O= folder of one configuration (build.config,
 *                    compiler, profile, make flags hashed)
 *   out-HASH/.kcarry-units   the diagnostics of every object as last
 *                    compiled (an object make does not rebuild keeps them)
 *   out-HASH/base-KEY.log    the base build's diagnostics, once per base
 *                    commit and set of make targets
 *
 * The user's checkout and the target repository are only read.  Printing
 * is the command layer's; diagnostics are parsed by diag.c and pinned on
 * patches by blame.c.
 */
#ifndef KCARRY_BUILD_H
#define KCARRY_BUILD_H

#include "audit.h"
#include "blame.h"
#include "carry.h"
#include "diag.h"
#include "target.h"

/*
 * What a build says while it runs: a phase begins, an object is compiled
 * (or a command runs on), a phase ends.  Phases: "sync" (the source
 * folder brought to a commit), "config", "prepare", "base" (the base
 * build), "series" (the build of the result), "after 0003" (--each).
 */
enum build_event { BUILD_BEGIN, BUILD_TICK, BUILD_END };

struct build_tick {
	enum build_event event;
	const char *target, *phase;
	size_t done, total;   /* objects compiled; total 0 when unknown */
	double elapsed;       /* since the target's build began */
	double seconds;       /* since the phase began */
	const char *command;  /* BEGIN: what runs ("make fs/btrfs/"), or
			       * NULL */
	size_t written;       /* END of sync: the files it rewrote */
	bool counted;         /* END of a make phase: errors and warnings
			       * (all its objects report, old ones too) */
	bool cached;          /* END: the base build came from the cache */
	size_t errors, warnings;
};

struct build_progress {
	void (*fn)(void *ctx, const struct build_tick *t);
	void *ctx;
};

struct build_opts {
	bool full;  /* run build.command (or make's default goal) */
	bool each;  /* build after each patch that touches a compiled file */
	const struct build_progress *progress;
};

/* --each: the build after one patch. */
struct build_step {
	size_t patch;       /* 1-based */
	size_t errors, warnings;   /* new against the base build */
	size_t introduced;  /* new errors not there after the step before */
	bool failed;
};

struct build_result {
	bool ran;           /* a build was attempted */
	bool skipped;       /* nothing to build (no compiled file changed) */
	char *error;        /* why it could not run (environment), or NULL */
	int error_code;
	bool failed;        /* new errors or newly failing objects */
	char *cc;           /* the compiler command used */
	char *profile;      /* the compatibility profile applied, or NULL */
	char *kbuild_rule;  /* with a folder target: what the tree's Kbuild
			     * builds for one (profile_folder_rule_name) */
	char *target_var;   /* what kcarry adds to the make calls of the
			     * targets for it ("KBUILD_MODULES=1"), or NULL */
	char *out_dir;      /* the O= folder */
	char **targets;     /* the make targets of the result build */
	size_t nr_targets;
	struct diag_list diags;        /* new diagnostics only */
	struct blame_attribution *attr; /* one per diags.items */
	size_t errors, warnings;       /* new ones */
	size_t base_errors, base_warnings; /* in the base build, not blamed */
	size_t kept;        /* result diagnostics also in the base build */
	char **failed_objects;  /* objects failing now and not in the base */
	size_t nr_failed_objects;
	/* objects failing in the base build and still after the series:
	 * the tree does not build them either way, so the result is not
	 * known to build (failed is set; no patch is blamed) */
	char **broken_objects;
	size_t nr_broken_objects;
	size_t first_breaking;  /* --each: first patch after which it
				 * breaks (1-based); 0 none */
	struct build_step *steps;
	size_t nr_steps;
	bool base_cached;   /* the base build's diagnostics came from cache */
	double seconds_prepare, seconds_base, seconds_build;
	struct buf log;     /* the compiler output of the new diagnostics */
};

struct build_request {
	const char *root;                  /* workspace (file: configs) */
	const struct target *target;       /* name and [build] settings */
	struct tree_repo *repo;
	const struct carry_result *carry;  /* base, head, commits */
	const struct audit_result *audit;  /* findings to tie to; may be NULL */
	const struct audit_opts *watch;    /* watched files: their folders
					    * are built by default */
	const struct build_opts *opts;
};

void build_result_release(struct build_result *r);

/*
 * Build the result of rq->carry (its head) and, once per base commit, its
 * base; keep the diagnostics the series brought, each attributed.  A
 * build that ran, failed or not, returns 0 (see out->failed); an
 * environment failure (no make, cannot write the cache) returns < 0.
 */
int build_run(struct build_result *out, const struct build_request *rq,
	      struct err *err);

/* <cache>/build */
char *build_cache_dir(void);

struct build_gc_opts {
	char *const *targets;  /* whose build folders to free; none: all */
	size_t nr_targets;
	char *const *known;    /* the workspace's targets: one of them without
				* a build folder has nothing to free */
	size_t nr_known;
	const char *also;      /* freed too when no target is named (the
				* identifier cache), or NULL */
	bool dry_run;          /* measure what would be freed; free nothing */
};

struct build_gc_entry {
	char *path;
	unsigned long long bytes;
};

struct build_gc_result {
	struct build_gc_entry *entries; /* what was (or would be) freed */
	size_t nr;
	unsigned long long bytes;       /* in all */
};

/*
 * Remove the build folders of o->targets (each under its lock: never
 * under a running build).  A name that is neither built nor known fails
 * with ERR_NOTFOUND, naming what there is, before anything is freed.
 */
int build_gc(struct build_gc_result *res, const struct build_gc_opts *o,
	     struct err *err);
void build_gc_result_release(struct build_gc_result *res);

/* Whether the build r compiled path: a .c (or .S) file under its make
 * targets, or any with a whole-tree build. */
bool build_compiled(const struct build_result *r, const char *path);

/* The make targets built by default for a carried series: the objects of
 * the .c files it changes and the folders of the watched files. */
void build_default_targets(char ***out, size_t *nr,
			   const struct carry_result *cr,
			   const struct audit_opts *watch);

/*
 * Bring dir to tree: write only the files whose blob differs from the
 * manifest (or, without one, from the file's content), delete what the
 * tree lacks.  *written counts the files written.
 */
int build_sync(size_t *written, struct tree_repo *repo,
	       const struct tree_oid *commit, const char *dir,
	       const char *manifest, struct err *err);

#endif
