/*
 * rebase: a series' V2 backport built from its V1 backport on one target.
 * V1 is carried again (with the person's recorded resolutions) to get its
 * backport patch by patch; the two versions are paired (vdiff); then V2 is
 * walked in order: an unchanged patch gets V1's backported change (a
 * 3-way merge of V1's files before and after it into the tree as it is
 * now), a changed one the same plus the V1->V2 interdiff applied on top
 * hunk by hunk, a new one is applied as apply does; V2's patch as it is is
 * preferred whenever V1 needed no person and it applies.  What was carried
 * from V1's backport is recorded as the resolution of V2's patch meeting
 * that tree, so that apply, check, resolve and refresh of V2 give the same
 * tree; the branch and the refreshed series are then written by carrying
 * V2 as every command does.
 */
#ifndef KCARRY_REBASE_H
#define KCARRY_REBASE_H

#include "job.h"
#include "vdiff.h"

enum rebase_status {
	REBASE_REUSED,  /* unchanged patch (range-diff's '=') carried */
	REBASE_UPDATED, /* changed patch ('!') carried */
	REBASE_NEW,     /* new or rewritten patch carried */
	REBASE_DROPPED, /* a V1 patch V2 does not have */
	REBASE_PERSON,  /* could not be carried: a person must resolve it */
};
#define REBASE_NR_STATUS (REBASE_PERSON + 1)

/* How a carried patch got its change. */
enum rebase_how {
	REBASE_HOW_NONE,     /* dropped, or not carried */
	REBASE_HOW_APPLIED,  /* V2's patch, as apply applies it */
	REBASE_HOW_REPLAYED, /* a resolution recorded for this patch and tree */
	REBASE_HOW_BACKPORT, /* V1's backported change merged in */
	REBASE_HOW_INTERDIFF, /* V1's backported change plus the interdiff */
};

struct rebase_patch {
	enum rebase_status status;
	enum rebase_how how;
	enum vdiff_status pairing; /* what kcarry diff says of it */
	long v1, v2;               /* 0-based index in V1 and V2, or -1 */
	bool v1_resolved;  /* V1's backport of it is a person's resolution */
	bool v1_dropped;   /* that resolution could not be carried, and V2's
			    * patch applied by itself */
	bool recorded;     /* recorded as the resolution of V2's patch */
	enum apply_outcome outcome; /* of V2's carry (when v2 >= 0) */
	bool committed;
	char *why;         /* why a person is needed, or NULL */
};

struct rebase_result {
	char *series, *v1, *v2, *target;
	struct rebase_patch *patches; /* in kcarry diff's order */
	size_t nr;
	size_t counts[REBASE_NR_STATUS];
	size_t nr_changed; /* V2 patches that differ from V1 (changed, new,
			    * rewritten) */
	struct carry_result carry; /* V2 carried with what was recorded */
	bool carried;              /* carry is filled in (not dry_run) */
};

struct rebase_opts {
	struct carry_opts carry; /* fuzz, no_3way, strict, progress */
	bool dry_run;            /* record nothing, write no branch */
	bool refresh;            /* write patches/NAME/V2/TARGET/ */
};

void rebase_result_release(struct rebase_result *r);

/*
 * Build v2's backport from v1's on the job's target; d pairs v1 with v2.
 * Fails (ERR_CONFLICT) if carrying V2 with the recorded resolutions does
 * not give the tree the walk built: that would be a bug, never a result.
 */
int rebase_target(struct rebase_result *r, struct job *j,
		  const struct series_version *v1,
		  const struct series_version *v2, const struct vdiff *d,
		  const struct rebase_opts *opts, struct err *err);

/*
 * The V1->V2 interdiff of one file as a file patch (text from "--- a/P"
 * on) that turns what f1 makes of a file into what f2 makes of it: both
 * patches are laid on one base (their hunks aligned by the lines they
 * share; context that differs between them is the base's drift and is
 * left out), and only what their edits make different remains.  out stays
 * empty when the edits are the same.  ERR_CONFLICT when the two cannot be
 * laid on one base (an edited line that differs, hunks out of order).
 */
int rebase_interdiff(struct buf *out, const struct patch_file *f1,
		     const struct patch_file *f2, struct err *err);

const char *rebase_status_name(enum rebase_status s); /* "reused", ... */

#endif
