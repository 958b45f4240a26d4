/*
 * apply: places the hunks of one file patch in the current content of that
 * file, in memory: exact, offset (nearest first), fuzz, 3-way through the
 * preimage blob, 3-way at hunk level, already applied, conflict.  Records
 * for each hunk the rule that succeeded and checks that a hunk lands in the
 * function its header names.  Knows nothing of repositories or series:
 * the caller hands it bytes and a blob loader.
 */
#ifndef KCARRY_APPLY_H
#define KCARRY_APPLY_H

#include "adapt.h"
#include "cause.h"
#include "patch.h"

/* Per hunk: the rule that placed it, in the order they are tried. */
enum apply_rule {
	RULE_EXACT,      /* at the stated line */
	RULE_OFFSET,     /* exact, elsewhere (nearest first) */
	RULE_FUZZ,       /* outer context lines dropped, as GNU patch -F */
	RULE_3WAY,       /* merge-file with the preimage blob of the index line */
	RULE_3WAY_HUNK,  /* merge-file of hunk preimage/target region/postimage */
	RULE_ALREADY,    /* the postimage is already where the preimage should be,
			  * or the change stands in the function, edited */
	RULE_ADAPTED,    /* rewritten by adapt.c, then placed exactly; never clean */
	RULE_CONFLICT,   /* none of the above */
};

/* Per file and per patch, ordered from best to worst. */
enum apply_outcome {
	OUTCOME_CLEAN,
	OUTCOME_OFFSET,
	OUTCOME_FUZZY,
	OUTCOME_3WAY,
	OUTCOME_ADAPTED,  /* some hunk was adapted (RULE_ADAPTED), none conflict */
	OUTCOME_ALREADY,  /* every hunk already applied */
	OUTCOME_PARTIAL,  /* some hunks already applied, the others conflict */
	OUTCOME_CONFLICT,
};

struct apply_hunk_result {
	enum apply_rule rule;
	/*
	 * 1-based line in the target where the hunk's first line landed (its
	 * expected place for a conflict); for RULE_3WAY, the line of its
	 * postimage in the merged result, 0 when it cannot be found there.
	 */
	unsigned long line;
	long offset;        /* line minus the line the header states */
	unsigned fuzz;      /* context lines ignored at each end (max) */
	bool risk;          /* landed outside the function its header names */
	char *func;         /* function the header names, or NULL */
	char *found_func;   /* function enclosing the landing place, or NULL */
	char *reason;       /* why: conflict, risk or 3-way; NULL when clean */
	/*
	 * When the target lacks func: its function whose body holds the
	 * most of the hunk's lines (cause_similar_function), and how much.
	 */
	char *similar;
	unsigned similarity;
	struct cause *cause; /* why it conflicts or is a risk (carry.c) */
	/*
	 * RULE_ALREADY by already_edited(): the change stands in the
	 * function in edited form.  found: per added line, in order, the
	 * target line where it stands (0 for a line without code).
	 */
	bool edited;
	unsigned long *found;
	size_t nr_found;
	/* RULE_ADAPTED: the rule, the original and the adapted hunk */
	struct adaptation *adapt;
};

struct adapt_conv;

struct apply_opts {
	unsigned fuzz;   /* largest fuzz tried; APPLY_DEFAULT_FUZZ as quilt */
	bool no_3way;    /* do not try RULE_3WAY or RULE_3WAY_HUNK */
	bool markers;    /* on conflict, write diff3 markers into out */
	/*
	 * Load the blob named on the "index" line (abbreviated hex) for
	 * RULE_3WAY; return ERR_NOTFOUND when the repository lacks it.
	 * NULL: no blob is ever available.
	 */
	int (*load_blob)(void *ctx, const char *hex, struct buf *out,
			 struct err *err);
	void *ctx;
	bool no_adapt;   /* a conflicting hunk stays one (no adapt.c) */
	const struct adapt_conv *conv; /* the series' conversions, or NULL */
	/* one per hunk of the file patch, or NULL: a true hunk that
	 * conflicts stays a conflict (a build refused its adaptation) */
	const bool *no_adapt_hunk;
};

#define APPLY_DEFAULT_FUZZ 2
#define APPLY_OPTS_INIT { APPLY_DEFAULT_FUZZ, false, false, NULL, NULL }

struct apply_file_result {
	enum apply_outcome outcome;
	bool risk;       /* any hunk has risk set */
	bool deleted;    /* the patch deletes the file */
	/*
	 * New content.  On conflict: the target with the hunks that did
	 * apply, or, with opts.markers, also diff3 markers where a conflict
	 * could be located (the whole-file merge's output when the preimage
	 * blob was used).
	 */
	struct buf out;
	struct apply_hunk_result *hunks; /* one per hunk of the file patch */
	size_t nr_hunks;
	struct buf rej;  /* conflicting hunks as a .rej file (unified diff) */
	char *reason;    /* file-level why ("... does not exist"), or NULL */
};

void apply_file_result_init(struct apply_file_result *res);
void apply_file_result_release(struct apply_file_result *res);

/*
 * Apply file patch f to old (the target's current content; exists false
 * when the target has no such file).  Returns 0 when an outcome was
 * computed, conflicts included; negative only for errors (a blob loader
 * failing with anything but ERR_NOTFOUND, a binary patch: ERR_PARSE with a
 * clear message).
 */
int apply_file(struct apply_file_result *res, const struct patch_file *f,
	       struct span old, bool exists, const struct apply_opts *opts,
	       struct err *err);

/*
 * How many pairs of lines, or of their codes (comments dropped), this
 * thread has compared in apply_file so far; an alignment compares one
 * pair per cell.  A deterministic measure of placement's work, for tests
 * that must fail on a quadratic search without timing it: read it before
 * and after a call.
 */
size_t apply_comparisons(void);

enum apply_outcome apply_worse(enum apply_outcome a, enum apply_outcome b);
const char *apply_rule_name(enum apply_rule r);       /* "exact", "offset", ... */
const char *apply_outcome_name(enum apply_outcome o); /* "clean", ... */

/*
 * The function a C line-based heuristic says encloses line (1-based) of
 * text, as git's default hunk-header rule finds it (the nearest line at or
 * above it that starts with a letter, '_' or '$'; jump labels such as
 * "out:" are skipped, as the kernel's diff=cpp driver does), reduced to the
 * identifier before its '(' ("static int __init foo(void)": "foo"), or
 * for lines without '(' the name before '=' or '{' ("struct foo {":
 * "foo").  Returns a new string or NULL.
 */
char *apply_enclosing_function(struct span text, unsigned long line);

#endif
