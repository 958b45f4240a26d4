/*
 * report: what kcarry tells people and CI: per-patch apply results as
 * text (colour on a terminal) and as JSON (schema in docs/json-schema.md).
 * The one module besides the command layer that prints.
 */
#ifndef KCARRY_REPORT_H
#define KCARRY_REPORT_H

#include <stdio.h>

#include "carry.h"
#include "check.h"

#define REPORT_APPLY_SCHEMA "kcarry-apply/1"

struct report_opts {
	bool color;
	int verbosity;
};

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

#endif
