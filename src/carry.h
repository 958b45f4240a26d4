/*
 * carry: carries one series version onto one target tree.  Applies each
 * patch through apply.c to blobs read from the target repository, commits
 * every applied patch (author, date and message kept) on
 * kcarry/NAME/VERSION/TARGET without touching any working tree, and
 * records per patch, per file and per hunk what happened.
 */
#ifndef KCARRY_CARRY_H
#define KCARRY_CARRY_H

#include "apply.h"
#include "cause.h"
#include "ident.h"
#include "series.h"
#include "tree.h"

struct carry_file {
	char *path;
	enum apply_outcome outcome;
	bool risk;
	char *error; /* a file that could not be handled (binary...) */
	struct apply_hunk_result *hunks;
	size_t nr_hunks;
	struct buf rej; /* .rej text of conflicting hunks */
	/* adaptation rule 1: the file its hunks went to, when path is
	 * missing from the tree or lost their functions; else NULL */
	char *moved_to;
	/* rule 1 hunk by hunk (a file split in several): per hunk, the file
	 * it went to, NULL for one that stayed; moved_to is the first of
	 * them.  NULL when the hunks did not go their own ways */
	char **hunk_to;
};

/*
 * The form of the note an adapted hunk leaves in its patch's description
 * (kcarry.conf refresh.note): the one the target's maintainers write.
 */
enum carry_note_form {
	CARRY_NOTE_STABLE, /* "[ adapted: PATH hunk N: NOTE ]" lines */
	CARRY_NOTE_RHEL,   /* a "Conflicts: PATH: hunk N: NOTE" paragraph */
};

/* "stable" -> CARRY_NOTE_STABLE (any case); -1 for neither form. */
int carry_note_form_parse(enum carry_note_form *f, const char *name);

struct carry_patch {
	const struct series_item *item; /* borrowed from the version */
	/* the form of its adapted notes (carry_opts.note_form), so that
	 * every text made from this result writes them alike */
	enum carry_note_form note_form;
	enum apply_outcome outcome;
	bool risk;
	bool committed;
	bool skipped;   /* not tried (after --stop) */
	bool resolved;  /* a recorded resolution was replayed */
	/* of the tree state this patch meets: set for failed patches, and
	 * for all when carry_opts.resolution is set; else "" */
	char fingerprint[41];
	struct tree_oid met; /* the tree the patch met (carry_series) */
	struct tree_oid commit;
	struct carry_file *files;
	size_t nr_files;
	size_t *depends; /* 1-based numbers of failed patches it touches */
	size_t nr_depends;
	/* the refreshed patch as refresh.c writes it (job_carry with
	 * carry_opts.patch_texts, or read back from a report); NULL when
	 * not committed or not asked for */
	char *refreshed;
	size_t refreshed_len; /* its bytes, set by refresh_texts() alone */
};

struct carry_result {
	char *series, *version, *target;
	char *branch; /* refs/heads/kcarry/NAME/VERSION/TARGET */
	struct tree_oid base, head;
	struct carry_patch *patches;
	size_t nr;
	enum apply_outcome worst;
	bool risk;
	size_t counts[OUTCOME_CONFLICT + 1];
	size_t nr_risk, nr_failed;
};

/* One hunk of a series: 0-based patch, file of that patch, hunk of that
 * file (the order of the patch's diff). */
struct carry_hunk_ref {
	size_t patch, file, hunk;
};

/*
 * A hunk of one patch whose adaptation a build refused on the tree the
 * patch meets (recorded by check.c, read back by resolve.c): file and
 * hunk of the patch, the file patch's path, the build's diagnostic, and
 * which adaptation of the hunk it refused.
 */
struct carry_refusal {
	size_t file, hunk;
	char *path;
	char *diag; /* "path:line: error: message" */
	/* the refused adapted hunk's id (carry_adaptation_id); NULL in a
	 * record written before kcarry kept it */
	char *adapted;
};

void carry_refusals_free(struct carry_refusal *r, size_t nr);

/* The id of adaptation a: a hash of its adapted hunk's text. */
void carry_adaptation_id(char hex[41], const struct adaptation *a);

/*
 * Refusal r holds for the hunk adapted as a now (NULL: not adapted):
 * only when a is the adaptation the build refused, so that another
 * adaptation of the hunk (a newer kcarry, a changed rule) is proposed
 * again, to be built.  A refusal without the id (an older record)
 * holds for any, as it always did.
 */
bool carry_refusal_holds(const struct carry_refusal *r,
			 const struct adaptation *a);

struct carry_opts {
	struct apply_opts apply;
	bool stop;   /* stop at the first conflict */
	bool strict; /* placement risks fail the patch */
	bool no_ref; /* compute only; do not move the branch */
	size_t until; /* 1-based: stop before this patch (0: all) */
	bool patch_texts; /* job_carry: keep each refreshed patch's text */
	enum carry_note_form note_form; /* job_carry: from kcarry.conf */
	/*
	 * A recorded resolution for a patch meeting the tree as it is
	 * (fingerprint: the patch's hunks and the blobs they meet).  Fill
	 * *out and return 0, or return ERR_NOTFOUND.  NULL: none.
	 */
	int (*resolution)(void *ctx, const char *fingerprint, struct patch *out,
			  struct err *err);
	void *resolution_ctx;
	/*
	 * The names patches use, checked against the target (cause.c): a
	 * hunk that applies but adds code using what the tree defines
	 * nowhere is a placement risk, and the causes of conflicts name
	 * what is missing.  NULL: no name check (causes still given).
	 */
	struct ident_index *index;
	const struct cause_lookup *lookup; /* where missing names come from */
	/*
	 * Hunks no rule may adapt: a build refused their adaptation
	 * (check.c), so they are carried as the conflicts they were before
	 * adaptation, and a file patch holding one is never moved (rule 1).
	 */
	const struct carry_hunk_ref *no_adapt;
	size_t nr_no_adapt;
	/*
	 * The refusals recorded for a patch (fingerprint) meeting tree:
	 * fill *out and *nr and return 0, or return ERR_NOTFOUND.  Those
	 * hunks are never adapted, and the conflict's cause is the build's
	 * diagnostic on target.  Not asked for a patch a recorded
	 * resolution replaces.  NULL: none (job_carry fills it in unless
	 * no_refusals: a build is about to judge the adaptations afresh).
	 */
	int (*refused)(void *ctx, const char *fingerprint,
		       const struct tree_oid *tree, struct carry_refusal **out,
		       size_t *nr, struct err *err);
	void *refused_ctx;
	bool no_refusals;
	/* called before each patch, for progress */
	void (*progress)(void *ctx, size_t i, size_t nr, const char *subject);
	void *ctx;
};

void carry_result_release(struct carry_result *res);
char *carry_branch_name(const char *series, const char *version,
			const char *target);

int carry_series(struct carry_result *res, struct tree_repo *repo,
		 const struct tree_oid *base, const struct series_version *v,
		 const char *target, const struct carry_opts *opts,
		 struct err *err);

/* Point the result's branch at its head (carry_series does, unless
 * opts.no_ref). */
int carry_set_ref(struct tree_repo *repo, const struct carry_result *res,
		  struct err *err);

/* The fingerprint of patch p meeting tree (see carry_opts.resolution). */
int carry_fingerprint(char hex[41], struct tree_repo *repo,
		      const struct tree_oid *tree, const struct patch *p,
		      struct err *err);

/*
 * Append to msg, a patch's description (cp's, trailers included), the
 * note of each adapted hunk in cp->note_form; returns how many.
 *  - stable: one line "[ adapted: PATH hunk N: NOTE ]" per hunk after the
 *    description's trailers, where stable's "[ ... ]" notes stand before
 *    the backporter's Signed-off-by (a paragraph of their own when the
 *    description has no trailers);
 *  - rhel: one paragraph after the description, "Conflicts: PATH: hunk
 *    N: NOTE", each further hunk on a line indented by two spaces.
 */
size_t carry_adapted_notes(struct buf *msg, const struct carry_patch *cp);

/*
 * The file hunk h of cf is in on the branch: where rule 1 moved it, else
 * cf's path.
 */
const char *carry_hunk_path(const struct carry_file *cf, size_t h);

/* True when the patch failed (conflict, partial, or risk under strict). */
bool carry_patch_failed(const struct carry_patch *p);

#endif
