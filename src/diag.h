/*
 * diag: compiler diagnostics read from a build's output.  Parses what gcc
 * and clang print (file:line[:col]: error|warning|note: message, "In
 * function" and "In file included from" lines, the source excerpts under
 * a diagnostic) and make's "*** [...] Error N" lines naming the objects
 * that failed.  Paths are made relative to the source tree, whether the
 * compiler printed them absolute or relative to the O= folder.  Which
 * patch caused a diagnostic is blame.c's question.
 */
#ifndef KCARRY_DIAG_H
#define KCARRY_DIAG_H

#include "err.h"

enum diag_severity { DIAG_NOTE, DIAG_WARNING, DIAG_ERROR };

struct diag_note {
	char *path;          /* normalised like diag.path */
	unsigned long line;
	char *message;
};

struct diag {
	char *path;          /* relative to the source tree when inside it */
	unsigned long line, col; /* 1-based; col 0 when not given */
	enum diag_severity sev;  /* DIAG_WARNING or DIAG_ERROR */
	char *message;       /* after "error: " ("fatal error" is an error) */
	char *function;      /* from "In function 'f':", or NULL */
	char *unit;          /* the .c file being compiled (top of the
			      * include chain, or the make "CC" line) */
	struct diag_note *notes; /* the note: lines that follow it */
	size_t nr_notes;
	struct buf text;     /* the lines as printed, context and notes */
};

struct diag_list {
	struct diag *items;
	size_t nr, alloc;
	char **failed;       /* objects make reports as failed, "fs/x.o" */
	size_t nr_failed, alloc_failed;
};

struct diag_parse_opts {
	const char *src_root; /* absolute source folder, or NULL */
	const char *obj_root; /* absolute O= folder (relative paths start
			       * here), or NULL */
};

void diag_list_init(struct diag_list *l);
void diag_list_release(struct diag_list *l);

/*
 * Add the diagnostics of one build's output to l.  A diagnostic printed
 * again (a header's warning once per object including it) is kept once.
 */
void diag_parse(struct diag_list *l, const char *text, size_t len,
		const struct diag_parse_opts *opts);

/* "error" / "warning" / "note" */
const char *diag_severity_name(enum diag_severity s);

/* path made relative to src_root (see diag_parse_opts); a new string */
char *diag_normalize_path(const char *path, const struct diag_parse_opts *o);

/* The object a failed make target names, if it is one ("x.o"). */
bool diag_is_object(const char *target);

/* Copy d (deep) to the end of l. */
void diag_list_add_copy(struct diag_list *l, const struct diag *d);

#endif
