/*
 * blame: which patch of a carried series a compiler diagnostic is the
 * fault of.  A line of the result is tracked back through the per-patch
 * diffs of the branch's commits (parent blob against commit blob, only for
 * the files a patch touches; no whole-history blame) to the patch and
 * hunk that last changed it, or to its line in the base tree.  A
 * diagnostic on a line no patch changed is tied to the finding that
 * explains it: an unconverted caller from the watch audit, a declaration
 * a patch changed (a note pointing at a changed line), an identifier a
 * patch removed or renamed, or else "pre-existing line, broken by the
 * series" with the patches that touched the same file.
 */
#ifndef KCARRY_BLAME_H
#define KCARRY_BLAME_H

#include "audit.h"
#include "carry.h"
#include "diag.h"

struct blame_file; /* per-step, per-path line maps (private) */

struct blame {
	struct tree_repo *repo;
	const struct carry_result *cr;
	size_t upto;              /* patches 1..upto count (0: all) */
	struct blame_file *files;
	size_t nr_files, alloc_files;
};

struct blame_line {
	size_t patch;  /* 1-based patch that last changed it; 0 none */
	size_t hunk;   /* 1-based hunk of that patch's diff of this file
			* (as GNU patch counts them); 0 when unknown */
	unsigned long base_line; /* its line in the base tree; 0 when a patch
				  * added it */
	char *base_path;         /* its path in the base tree (renames) */
};

enum blame_cause {
	BLAME_PATCH,       /* the line was changed by a patch */
	BLAME_CALLER,      /* an unconverted caller of a changed symbol */
	BLAME_DECLARATION, /* a note points at a line a patch changed */
	BLAME_REMOVED,     /* an identifier a patch removed or renamed */
	BLAME_PREEXISTING, /* pre-existing line, broken by the series */
};

struct blame_attribution {
	enum blame_cause cause;
	size_t patch;       /* the patch it is pinned on (0: none) */
	size_t hunk;        /* BLAME_PATCH, BLAME_DECLARATION: 1-based or 0 */
	char *symbol;       /* CALLER, REMOVED: the symbol */
	char *where;        /* DECLARATION: "path:line" of the note */
	size_t *patches;    /* PREEXISTING: the patches touching the file */
	size_t nr_patches;
	unsigned long base_line; /* the line in the base tree, 0 if added */
};

/* Blame over the committed patches 1..upto of cr (0: all). */
void blame_init(struct blame *b, struct tree_repo *repo,
		const struct carry_result *cr, size_t upto);
void blame_release(struct blame *b);

/* Where line of path (in the head after patch upto) comes from. */
int blame_line(struct blame_line *out, struct blame *b, const char *path,
	       unsigned long line, struct err *err);
void blame_line_release(struct blame_line *l);

/* 1-based patches (within upto) whose diff touches path; caller frees. */
size_t blame_patches_touching(size_t **out, const struct blame *b,
			      const char *path);

/*
 * The first committed patch (within upto) that removes ident from a line
 * and adds no line with it (a removal or a rename); 0 when none.
 */
size_t blame_removed_identifier(const struct blame *b, const char *ident);

/*
 * Why d is there.  audit may be NULL.  An identifier is looked for in the
 * message's quoted words ('foo', 'struct foo' has no member named 'bar').
 */
int blame_attribute(struct blame_attribution *a, struct blame *b,
		    const struct diag *d, const struct audit_result *audit,
		    struct err *err);
void blame_attribution_release(struct blame_attribution *a);

/* The patch that changed the watched symbol sym (first watched hunk that
 * mentions it; else the first patch touching a watched file); 0 none. */
size_t blame_symbol_patch(const struct blame *b,
			  const struct audit_result *audit, const char *sym);

/* "<- 0003 (hunk 2)", "<- 0001 | unconverted caller of f changed by
 * 0001", ...: the tail of a text diagnostic line. */
void blame_describe(struct buf *out, const struct blame_attribution *a);
/* "patch", "caller", "declaration", "removed", "pre-existing" */
const char *blame_cause_id(enum blame_cause c);

#endif
