/*
 * report_html: the check report as one self-contained HTML page (no
 * network, no external script, style or font), rendered from the
 * kcarry-check/1 JSON document alone, so that the schema stays the one
 * source of the report: the matrix per series (a cell per patch and
 * target, coloured by outcome, the build row), each cell opening to its
 * hunks with rule and cause, adapted hunks beside their originals, the
 * build diagnostics pinned on it and its commit; the watched-API audit
 * grouped per symbol and file; filters (conflicts, risks, a target) in a
 * few lines of inline script.  Every string from the report is escaped.
 */
#ifndef KCARRY_REPORT_HTML_H
#define KCARRY_REPORT_HTML_H

#include <stdio.h>

#include "check.h"

typedef struct json_t json_t;

/* doc: kcarry-check/1; diff: report_diff_compare's result or NULL. */
int report_html_write(FILE *out, const json_t *doc, const json_t *diff,
		      struct err *err);

/* A check_report through its JSON (report_check_json). */
int report_check_html(FILE *out, const struct check_report *r,
		      const json_t *diff, struct err *err);

/* The kcarry-check/1 document of r, parsed (the caller's). */
int report_check_doc(json_t **doc, const struct check_report *r,
		     struct err *err);

#endif
