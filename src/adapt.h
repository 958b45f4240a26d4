/*
 * adapt: a hunk that conflicts, rewritten into one that applies exactly to
 * the target, when what the target holds tells how (docs/apply-rules.md,
 * "Adaptation").  Rule 4, drifted context: the lines the hunk removes (or,
 * for a hunk that only adds, the lines around its insertion) stand exactly
 * and once inside its function while the context around them changed; the
 * hunk gets the target's context.  When they no longer stand together,
 * each run of changed lines is anchored alone, in order: on its removed
 * lines, or on the context on one side of an insertion when the other
 * side is gone, or at its place in a sorted list.  Rule 2, renamed
 * function: the same in the function the file has in place of the named
 * one, that name renamed.
 * Rule 3, renamed identifiers: one consistent substitution of names,
 * shown by aligning the hunk's lines with the target's token by token,
 * applied to its added lines.  The result is never clean: apply.c marks
 * the hunk RULE_ADAPTED, and a person or --accept-adapted accepts it.
 * Text only, no repository.
 */
#ifndef KCARRY_ADAPT_H
#define KCARRY_ADAPT_H

#include "patch.h"

enum adapt_rule {
	ADAPT_MOVED = 1,	/* rule 1: the code lives in another file */
	ADAPT_RENAMED_FUNCTION, /* rule 2: the function has another name */
	ADAPT_RENAMED_IDENTS,	/* rule 3: names substituted consistently */
	ADAPT_DRIFT,		/* rule 4: context drifted, change anchored */
	ADAPT_SERIES_CONVERSION, /* rule 5: the series' call conversion */
};

struct adaptation {
	enum adapt_rule rule;
	char *original; /* the hunk as the patch has it ("@@ ..." and lines) */
	char *adapted;	/* the hunk as it applies to the target */
	char *note;	/* one line for people and for the description */
	/* the adapted hunk: its lines point into the patch and the target */
	struct patch_hunk hunk;
	unsigned long line; /* 1-based target line of its first line */
	char **texts;	    /* lines of hunk written here (names renamed) */
	size_t nr_texts;
	/* what accepted it: a build of the result compiled its file with
	 * no new diagnostic pinned on it (check.c); a person, through
	 * resolve and refresh (resolve.c) */
	bool built, accepted;
};

void adaptation_free(struct adaptation *a);
struct adaptation *adaptation_dup(const struct adaptation *a);
const char *adapt_rule_name(enum adapt_rule r); /* "drifted-context", ... */

/* What the rules are told about the hunk. */
struct adapt_in {
	const struct patch_hunk *h;
	const char *func; /* the function its header names, or NULL */
	struct span old;  /* the target file */
	const char *path; /* its path (which language: cause.c) */
	/*
	 * Where the file's other hunks landed: the adapted hunk's changes
	 * must lie after target line after and before line before (1-based;
	 * 0: no bound), as a patch's hunks come in order.
	 */
	unsigned long after, before;
};

/*
 * Rule 4: *out gets the rewritten hunk (new, adaptation_free) when the
 * hunk's changed lines anchor at exactly one place of its function in old
 * (of the file when it names none), together or change by change
 * (docs/apply-rules.md), between in->after and in->before; NULL
 * otherwise.
 */
void adapt_drift(struct adaptation **out, const struct adapt_in *in);

/*
 * Rule 2: the file lacks func, and its function most like it by body
 * (cause_similar_function) holds the hunk's changed lines exactly, once,
 * and nowhere else in the file: *out gets the hunk placed there, the
 * function's name renamed in its lines (identifiers only, lex.h); NULL
 * otherwise.
 */
void adapt_renamed_function(struct adaptation **out, const struct adapt_in *in);

/*
 * Rule 3: the hunk's preimage aligns, line by line and token by token,
 * with one block of the target (in its function) whose only differences
 * are names, one consistent substitution (each name of the hunk always
 * the same name of the target, and back), and at most one expression
 * written another way on every line that has it (btrfs_root_id(root) ->
 * root->root_key.objectid); *out gets the hunk with the
 * target's lines and the substitution applied to its added lines; NULL
 * otherwise, or when an added line uses a name the substitution does not
 * cover but resembles (folio_size() where folio became page) or a name it
 * maps to.
 */
void adapt_renamed_idents(struct adaptation **out, const struct adapt_in *in);

/* The hunk as unified diff text, "@@ -a,b +c,d @@ section" first. */
/*
 * The adapted hunk a->hunk (old_start set) placed as h was: its new
 * start shifted as h's, h's line number in the patch, a->line.
 */
void adapt_hunk_place(struct adaptation *a, const struct patch_hunk *h);
void adapt_hunk_text(struct buf *out, const struct patch_hunk *h);

#endif
