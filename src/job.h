/*
 * job: one series version on one target, the way every command runs it:
 * load and prepare the target, carry the series with the repository's
 * blobs for 3-way and the workspace's recorded resolutions, and write the
 * refreshed series.
 */
#ifndef KCARRY_JOB_H
#define KCARRY_JOB_H

#include "carry.h"
#include "ident.h"
#include "target.h"

struct job {
	const char *root;
	struct target target;
	struct tree_repo *repo;
	struct tree_oid base;
	struct ident_index *index; /* what the target's trees define */
};

/* Load kernels/NAME.conf and make its tree available. */
int job_open(struct job *j, const char *root, const char *target,
	     const struct target_progress *progress, struct err *err);
void job_close(struct job *j);

/* <cache>/ident: the shared identifier sets of the trees (ident.c),
 * which gc may free. */
char *job_ident_dir(void);

/*
 * Carry v onto the job's target with opts (load_blob and resolution are
 * filled in here); with refresh, write patches/NAME/VERSION/TARGET/.
 */
int job_carry(struct carry_result *res, struct job *j,
	      const struct series_version *v, const struct carry_opts *opts,
	      bool refresh, struct err *err);

/* job_carry from another commit than the target's base (stacked series). */
int job_carry_from(struct carry_result *res, struct job *j,
		   const struct tree_oid *base, const struct series_version *v,
		   const struct carry_opts *opts, bool refresh, struct err *err);

#endif
