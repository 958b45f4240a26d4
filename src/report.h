/*
 * report: what kcarry tells people and CI: per-patch apply results as
 * text (colour on a terminal) and as JSON (schema in docs/json-schema.md).
 * The one module besides the command layer that prints.
 */
#ifndef KCARRY_REPORT_H
#define KCARRY_REPORT_H

#include <stdarg.h>
#include <stdio.h>

#include "carry.h"
#include "check.h"

#define REPORT_APPLY_SCHEMA "kcarry-apply/1"

struct report_opts {
	bool color;
	int verbosity;
};

/*
 * fprintf for text a person reads: every control character in what fmt
 * formats (an ESC in a file name, a newline that would forge a line)
 * becomes U+FFFD and a tab a space (buf_add_printable), but for a final
 * newline of fmt itself.  fmt holds no colour: print that apart.
 */
void report_printf(FILE *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void report_vprintf(FILE *out, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/* Shared with report_ci.c: JSON pieces that both schemas use. */
typedef struct json_t json_t;
/* Outcome names for machines, without spaces: "already-applied". */
const char *report_outcome_id(enum apply_outcome o);
/* A JSON string (NULL: null); bytes that are not UTF-8 become U+FFFD. */
json_t *report_json_str(const char *s);
json_t *report_json_strn(const char *s, size_t len);
/* One hunk result as in docs/json-schema.md. */
json_t *report_json_hunk(const struct apply_hunk_result *h, size_t i);
/*
 * Whether the hunk's cause says more than its reason does (a missing
 * function or name, a failed patch): text reports print it then.
 */
bool report_cause_tells(const struct apply_hunk_result *hr);
/* Why a hunk conflicts or is a risk (null when c is NULL). */
json_t *report_json_cause(const struct cause *c);

/* Text: one line per patch, details for anything not clean. */
void report_apply_text(FILE *out, const struct carry_result *res,
		       const struct report_opts *opts);
/* JSON document for several results: {"schema":..., "results":[...]} */
char *report_apply_json(const struct carry_result *res, size_t nr);

/*
 * The check matrix: per series one row per patch and one column per
 * target, a compact symbol per outcome, a legend, totals per target, the
 * watch findings, and a summary with the worst cells first.
 */
void report_check_text(FILE *out, const struct check_report *r,
		       const struct report_opts *opts);

/* The build row's symbol of a cell: B, W, E, '-', '?' or ' '. */
char report_build_symbol(const struct check_cell *c);
/* "builds", "build: 2 errors, 1 new warning, first broken by 0002" */
void report_build_summary(struct buf *b, const struct build_result *br);
/* "path:line: error: message  <- 0003 (hunk 2)" */
void report_build_diag_line(struct buf *b, const struct diag *d,
			    const struct blame_attribution *a);
/* A cell's build block: its summary, each new diagnostic, --each steps. */
void report_build_text(FILE *out, const char *series, const char *target,
		       const struct build_result *br, int verbosity);

#endif
