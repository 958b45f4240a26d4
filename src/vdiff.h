/*
 * vdiff: two stored versions of a series compared without applying either.
 * Pairs their patches exactly as git range-diff pairs two branches (the
 * same text of each patch, the same exact matches, the same cost matrix
 * and the same minimal assignment), so that the pairs are range-diff's
 * whenever both versions apply somewhere; says how each pair is
 * recognised (same patch-id, as git patch-id --stable computes it on the
 * parsed patch; same subject; similar diff), which pairs are unchanged,
 * changed or moved, which patches are new or dropped, and links a dropped
 * and a new patch with the same subject as one rewritten patch.  Gives the
 * interdiff of a changed pair (range-diff's view of the two patches,
 * diffed).  Printing is the command's job; the kcarry-diff/1 document is
 * built here.
 */
#ifndef KCARRY_VDIFF_H
#define KCARRY_VDIFF_H

#include "series.h"

#define VDIFF_SCHEMA "kcarry-diff/1"
#define VDIFF_CREATION_FACTOR 60 /* percent, git range-diff's default */
#define VDIFF_COST_MAX (1 << 16) /* git's COST_MAX */
/*
 * The most pairs of left-over patches (no exact match on either side)
 * compared by diff size, as range-diff compares every such pair: beyond,
 * they are paired by patch-id or subject alone (vdiff.similarity_skipped)
 * and the command says so.  500 x 500 take about 1.5 s.
 */
#define VDIFF_MAX_SIMILARITY_PAIRS 250000UL

/*
 * git patch-id --stable of p as 40 hex digits (whitespace and line numbers
 * left out, each file hashed apart and the hashes summed), from the parsed
 * patch: the diff is written in git's form first, so a quilt patch gets
 * the id of the same change made by git.  "" when p has no file.
 */
void vdiff_patch_id(char hex[41], const struct patch *p);

/*
 * What git range-diff compares: " ## Metadata ##", the author, " ## Commit
 * message ##", the message indented as git log shows it, then per file
 * " ## PATH ##" and its hunks with "@@ PATH: FUNCTION" headers and no line
 * numbers.
 */
struct vdiff_text {
	struct buf text;
	size_t diff_offset; /* the diff part starts here (0: no diff) */
	int diffsize;       /* lines of the diff part, as range-diff counts */
};

void vdiff_text_init(struct vdiff_text *t);
void vdiff_text_release(struct vdiff_text *t);
void vdiff_text_build(struct vdiff_text *t, const struct patch *p);

/*
 * range-diff's distance of two diff parts: hunks plus lines of their
 * line diff with three lines of context (libgit2's xdiff).
 */
int vdiff_diffsize(int *size, struct span a, struct span b, struct err *err);

/*
 * Minimal-cost assignment of n columns to n rows (Jonker and Volgenant's
 * shortest augmenting path algorithm, the one git's compute_assignment
 * implements, taking the same choices among equal costs).  cost[c + n * r]
 * is the cost of column c on row r.
 */
void vdiff_assign(int n, const int *cost, int *col2row, int *row2col);

enum vdiff_status {
	VDIFF_SAME,      /* '=': the same patch (range-diff's texts equal) */
	VDIFF_CHANGED,   /* '!': paired, diff or message changed */
	VDIFF_NEW,       /* '+': only in the new version */
	VDIFF_DROPPED,   /* '-': only in the old version */
	/* '~': range-diff pairs neither (the diff changed more than the
	 * creation factor allows) but their subject, or patch-id, is the
	 * same and no other patch left over has it */
	VDIFF_REWRITTEN,
};

/* What a pair or a rewritten couple have in common (the best of). */
enum vdiff_by {
	VDIFF_BY_NONE,
	VDIFF_BY_PATCH_ID,   /* the same patch-id */
	VDIFF_BY_SUBJECT,    /* the same subject (normalised) */
	VDIFF_BY_SIMILARITY, /* only the diff similarity */
};

struct vdiff_pair {
	long a, b; /* 0-based index in the old and the new version; -1: none */
	enum vdiff_status status;
	enum vdiff_by by;
	bool moved;           /* paired, out of the order of the others */
	bool diff_changed;    /* the diffs differ (line numbers aside) */
	bool message_changed; /* author, subject or message differ */
};

struct vdiff {
	const struct series_version *a, *b; /* borrowed */
	struct vdiff_text *ta, *tb;
	char (*ida)[41], (*idb)[41]; /* patch-ids */
	long *a2b, *b2a;             /* range-diff's partner, or -1 */
	long *ra, *rb;               /* rewritten partner, or -1 */
	/* in range-diff's order: the new version's, each dropped patch once
	 * the patches before it in the old version are shown */
	struct vdiff_pair *pairs;
	size_t nr_pairs;
	size_t nr_same, nr_changed, nr_new, nr_dropped, nr_rewritten;
	size_t nr_moved;
	unsigned creation_factor;
	/* Work done, for tests (never timed): diff texts compared for the
	 * exact matches, diff sizes computed, cells of the cost matrix. */
	size_t nr_text_compared, nr_diffsize, nr_cells;
	/* left-over patches of each side; more than
	 * VDIFF_MAX_SIMILARITY_PAIRS pairs: not compared by diff size */
	size_t nr_left_a, nr_left_b;
	bool similarity_skipped;
	char **subj_a, **subj_b; /* normalised subjects ("" when none) */
};

struct vdiff_opts {
	unsigned creation_factor; /* percent; 0: VDIFF_CREATION_FACTOR */
};

int vdiff_compute(struct vdiff *d, const struct series_version *a,
		  const struct series_version *b, const struct vdiff_opts *opts,
		  struct err *err);
void vdiff_release(struct vdiff *d);

/* '=', '!', '+', '-', '~' */
char vdiff_status_char(enum vdiff_status s);
/* "unchanged", "changed", "new", "dropped", "rewritten" */
const char *vdiff_status_name(enum vdiff_status s);
/* "patch-id", "subject", "similarity"; NULL for VDIFF_BY_NONE */
const char *vdiff_by_name(enum vdiff_by b);

/*
 * The interdiff of a pair (or rewritten couple), as range-diff shows it:
 * the diff of their texts, "@@ SECTION" hunk headers (" ## Commit message
 * ##", the file and function), each line indented by indent spaces.
 * *added and *removed (may be NULL) count its '+' and '-' lines.
 */
int vdiff_interdiff(struct buf *out, size_t *added, size_t *removed,
		    const struct vdiff *d, const struct vdiff_pair *p,
		    unsigned indent, struct err *err);

/* The kcarry-diff/1 document (docs/diff-json-schema.md); interdiffs of
 * changed pairs included unless stat_only. */
int vdiff_json(char **out, const struct vdiff *d, bool stat_only,
	       struct err *err);

#endif
