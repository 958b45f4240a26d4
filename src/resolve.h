/*
 * resolve: conflicts handed to a person and taken back.  Materialises a
 * conflicting patch in a scratch folder of the workspace (never in the
 * user's checkout): the files it touches with diff3 markers where hunks
 * conflict, .rej files, and a state file; then reads the person's
 * resolution back, refuses leftover markers, and records it as a patch
 * keyed by the conflict's fingerprint for replay on later versions and
 * other targets.  A patch kcarry adapted (adapt.h) is shown as its
 * proposal, with diff3-style context around each adapted hunk (the
 * target's lines, the original hunk's, the adapted result); a person who
 * keeps the proposal accepts it, and the acceptance is recorded beside
 * the resolutions (FINGERPRINT.accepted), so that the same proposal on
 * the same files no longer makes the exit status 1.
 */
#ifndef KCARRY_RESOLVE_H
#define KCARRY_RESOLVE_H

#include "carry.h"

/* The carry of one series version on one target (a build's refusals
 * are kept per cell). */
struct resolve_where {
	const char *root, *name, *version, *target;
	/* a patch of the cell: the tree it meets and its fingerprint there
	 * (the refusals of one patch); NULL for the whole cell */
	const struct tree_oid *tree;
	const char *fingerprint;
};

struct resolve_state {
	char *dir;        /* the scratch folder */
	char *patch_file; /* "0003-foo.patch" */
	size_t index;     /* 1-based */
	char *fingerprint;
	struct tree_oid base; /* the commit the patch is resolved against */
	/* an adapted patch: the tree of kcarry's proposal (hex), else NULL */
	char *proposal;
};

void resolve_state_release(struct resolve_state *s);
/* <root>/.kcarry/resolve/NAME/VERSION/TARGET */
char *resolve_dir(const char *root, const char *name, const char *version,
		  const char *target);

struct resolve_summary {
	size_t nr_files, nr_conflicts, nr_rej;
	size_t nr_adapted; /* hunks shown as kcarry's proposal */
	char **paths; /* scratch paths of files with conflicts */
	size_t nr_paths;
	enum apply_outcome outcome;
};

void resolve_summary_release(struct resolve_summary *s);

/* The patch resolve_prepare() hands to a person, and where. */
struct resolve_patch {
	const char *dir; /* the scratch folder */
	const struct series_item *item;
	size_t index;                /* 1-based */
	const struct tree_oid *base; /* the commit it is resolved against */
	/* the patch as the carry before the person left it, or NULL: a
	 * hunk it left a conflict is not adapted here either (a failed
	 * patch before it, carry.c's refused_hunks) */
	const struct carry_patch *carried;
};

/*
 * Write patch rp->item meeting rp->base's tree into rp->dir (replaced):
 * files/PATH with markers, files/PATH.rej, and the state.  The outcome of
 * the patch there goes to summary (a patch that applies needs no person).
 * Hunks whose adaptation a build refused in cell (resolve_read_refusals;
 * cell NULL: none) are shown as the conflicts they are without it.
 */
int resolve_prepare(struct resolve_summary *summary,
		    const struct resolve_patch *rp, struct tree_repo *repo,
		    const struct apply_opts *opts,
		    const struct resolve_where *cell, struct err *err);

/*
 * Remove the scratch folder dir.  Its state goes first, so that a folder
 * half removed (a kill -9) is never read as a pending resolution that
 * deletes the files already gone.
 */
int resolve_discard(const char *dir, struct err *err);

/* ERR_NOTFOUND when dir holds no pending resolution. */
int resolve_load(struct resolve_state *s, const char *dir, struct err *err);

/*
 * The files of the pending resolution in dir, relative to its files/
 * folder, .rej files left out (new strings, sorted; none when unreadable).
 */
void resolve_pending_files(char ***paths, size_t *nr, const char *dir);

/*
 * Read the resolved files back (ERR_CONFLICT naming path:line when
 * markers remain), commit them on the state's base with item's author
 * and message, and return that commit's format-patch text in *text.
 * When they are kcarry's proposal exactly (s->proposal), nothing is
 * committed: *accepted is set and text stays empty.
 */
int resolve_collect(struct buf *text, bool *accepted,
		    const struct resolve_state *s, struct tree_repo *repo,
		    const struct series_item *item, struct err *err);

/*
 * Record that a person accepted the proposal of the pending resolution s
 * (patches/NAME/.resolutions/FINGERPRINT.accepted: the adapted hunks as
 * they were shown).
 */
int resolve_record_acceptance(const char *root, const char *name,
			      const struct resolve_state *s, struct err *err);

/*
 * Mark accepted the adapted hunks of every patch of res whose recorded
 * acceptance (by fingerprint) names exactly the hunks it has now; a
 * proposal that changed since is not accepted.  job_carry does it.
 */
void resolve_mark_accepted(struct carry_result *res, const char *root,
			   const char *name);

/*
 * A build's refusals of adaptations, kept beside the resolutions so that
 * a carry that does not build (apply, resolve, export, check) does not
 * propose them again: patches/NAME/.resolutions/KEY.refused, KEY the
 * hash of the cell's target and version, the tree the patch meets and
 * the patch's fingerprint there (carry_fingerprint), so that a record
 * never outlives a change of the patch, of the series version or of the
 * target.  It holds those four in clear and the series' name (not in
 * KEY: older records, without it, keep their KEY), then per hunk its
 * file patch, hunk and path, the id of the adaptation refused
 * (carry_refusal.adapted; none in an older record) and the diagnostic
 * that refused it.
 */

/* The refusals of the patch (cell->fingerprint) meeting cell->tree in
 * cell, as written; ERR_NOTFOUND (err untouched) when none is recorded. */
int resolve_read_refusals(struct carry_refusal **out, size_t *nr,
			  const struct resolve_where *cell, struct err *err);

/*
 * Record the refusals r of the patch (cell->fingerprint) meeting
 * cell->tree in cell, written whole and renamed in; nr 0 removes the
 * record.  *key gets the record's KEY.
 */
int resolve_record_refusals(char key[41], const struct resolve_where *cell,
			    const struct carry_refusal *r, size_t nr,
			    struct err *err);

/* Remove the refusal records of cell but those whose KEY is in keep: a
 * build judged the cell afresh. */
int resolve_prune_refusals(const struct resolve_where *cell,
			   char (*keep)[41], size_t nr_keep, struct err *err);

/*
 * gc of the refusal records: those that can no longer apply go.  A
 * record is stale when its target is no target of the workspace
 * (kernels/), when its series has no such version (patches/NAME/), or
 * when no patch of that version has its fingerprint on the tree it
 * names (read from the target's repository, never fetched).  A record
 * gc cannot judge stays: an older one that does not name its series,
 * one that names another series than its folder's, one it cannot read,
 * one whose tree the repository does not hold.  A live record stays.
 */
struct resolve_gc_opts {
	const char *root;
	char *const *targets; /* the records of these alone; none: all */
	size_t nr_targets;
	bool dry_run;         /* judge; remove nothing */
};

struct resolve_gc_entry {
	char *path;  /* the record, relative to root */
	char *why;   /* why it goes, or why gc keeps it */
	bool stale;  /* removed (with dry_run: would be); else kept */
};

struct resolve_gc_result {
	struct resolve_gc_entry *entries; /* stale and kept, no live one */
	size_t nr, alloc;
};

int resolve_gc_refusals(struct resolve_gc_result *res,
			const struct resolve_gc_opts *o, struct err *err);
void resolve_gc_result_release(struct resolve_gc_result *res);

#endif
