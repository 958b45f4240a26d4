/*
 * check: the daily job: every selected series on every selected target.
 * A series that stacks on another (series.stacks-on) is carried on top of
 * that series' result; targets are worked on in parallel; every cell gets
 * the watch audit.  Printing is report.c's job.
 */
#ifndef KCARRY_CHECK_H
#define KCARRY_CHECK_H

#include "audit.h"
#include "build.h"
#include "carry.h"

struct check_series {
	char *name;
	struct series_version v;
	long stacks_on; /* index in check_report.series, or -1 */
	bool stacked_base; /* selected only because another stacks on it */
	bool base_newest;  /* the base lacks this version: on its newest */
	/* the version did not load (a stored patch that does not parse):
	 * v holds no patches and every cell of the series has this error */
	char *load_error;
	int load_code;
	struct audit_opts audit;
};

struct check_cell {
	bool ok;               /* carry (and audit) ran */
	char *error;           /* why not, when !ok */
	int error_code;
	struct carry_result carry;
	struct audit_result audit;
	bool other_shard;      /* another shard's cell (--shard): not run */
	struct build_result build; /* with check_opts.build */
};

struct check_report {
	char *root;
	struct check_series *series;
	size_t nr_series;
	char **targets;
	size_t nr_targets;
	/* cells[s * nr_targets + t]: series s on target t */
	struct check_cell *cells;
	double seconds;
	bool built;            /* cells were built (check_opts.build) */
	unsigned shard, nr_shards; /* --shard I/N; 0/0 when not sharded */
};

struct check_progress {
	/* a target starts a series, or has carried patch i of nr */
	void (*fn)(void *ctx, const char *target, const char *series,
		   size_t i, size_t nr);
	/* a target's tree is being prepared: "downloading the tarball" */
	void (*stage)(void *ctx, const char *target, const char *what);
	/* a build is under way (see build_tick) */
	void (*build)(void *ctx, const struct build_tick *t);
	void *ctx;
};

struct check_opts {
	struct carry_opts carry; /* fuzz, no_3way, strict */
	unsigned jobs;           /* targets at once; 0: number of CPUs */
	bool refresh;            /* write patches/NAME/VERSION/TARGET/ */
	bool build;              /* build every cell (build.c) */
	bool build_no_bases;     /* but not those of stacked_base series */
	struct build_opts build_opts; /* full, each */
	/* run cell k = s * nr_targets + t only when k % nr_shards ==
	 * shard - 1 (and what it stacks on); nr_shards 0: every cell */
	unsigned shard, nr_shards;
	const struct check_progress *progress;
};

/*
 * specs name series (NAME or NAME@VERSION) and targets, in any order;
 * none of a kind means all of it.  Series without a stored version are
 * left out when not named.  check_run is check_select then check_execute.
 */
int check_run(struct check_report *r, const char *root, char *const *specs,
	      size_t nr_specs, const struct check_opts *opts,
	      struct err *err);

/*
 * Choose the series and targets of specs and load the series, without
 * carrying anything: a command can judge the selection before the work
 * (r->cells stay NULL until check_execute).
 */
int check_select(struct check_report *r, const char *root,
		 char *const *specs, size_t nr_specs, struct err *err);
/* Run every cell of what check_select chose (a cell's failure is the
 * cell's). */
void check_execute(struct check_report *r, const struct check_opts *opts);
void check_report_release(struct check_report *r);

static inline struct check_cell *check_cell(const struct check_report *r,
					    size_t s, size_t t)
{
	return &r->cells[s * r->nr_targets + t];
}

/* Whether cell (s, t) is this shard's. */
bool check_in_shard(size_t s, size_t t, size_t nr_targets, unsigned shard,
		    unsigned nr_shards);

/* 0 all applied or already applied; 1 conflicts, risks, unconverted
 * callers, a failed build or a cell that could not run. */
int check_exit_code(const struct check_report *r);
/*
 * Who accepts an adapted hunk besides a person (resolve and refresh):
 * nobody else, a build that compiled it (--accept-adapted=built), or
 * everyone (--accept-adapted).
 */
enum check_accept { ACCEPT_PERSON, ACCEPT_BUILT, ACCEPT_ALL };

/* The adapted hunks of cp (of cr) that nobody accepted by how. */
size_t check_patch_adapted_open(const struct carry_patch *cp,
				enum check_accept how);
size_t check_adapted_open(const struct carry_result *cr,
			  enum check_accept how);
/* Some cell of this shard has an adapted hunk not accepted by how (a
 * proposal for a person: 'check' and 'report merge' fail on it). */
bool check_any_adapted(const struct check_report *r, enum check_accept how);

/*
 * After the build of cell c: an adapted hunk on which a new diagnostic
 * is pinned turns back into a conflict (cause "build", the diagnostic);
 * one whose file the build compiled without any new diagnostic in it is
 * marked built.  check_execute does it for every cell it builds.
 */
void check_judge_adapted(struct check_cell *c);

#endif
