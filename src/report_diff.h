/*
 * report_diff: what changed between two kcarry-check/1 reports, for a CI
 * job that re-checks a series against every new release: regressions (a
 * patch that applied and now fails, a cell that ran and now does not, a
 * new placement risk, a build that now has errors or new warnings, a new
 * unconverted caller), fixes (the reverse) and patches newly upstreamed
 * (already applied now, not before).  Reads the two JSON documents only;
 * renders nothing but its own text (report_html leads with it too).
 *
 * Cells pair by series and target, patches by subject (else file name),
 * callers by path, function, symbol and source line (not the line
 * number, which moves between releases).  A cell or patch the base lacks
 * is compared with nothing known: its failures are regressions.
 */
#ifndef KCARRY_REPORT_DIFF_H
#define KCARRY_REPORT_DIFF_H

#include <stdio.h>

#include "err.h"

typedef struct json_t json_t;

#define REPORT_DIFF_SCHEMA "kcarry-report-diff/1"

/* Read a kcarry-check/1 document; *doc is the caller's (json_decref). */
int report_diff_load(json_t **doc, const char *path, struct err *err);
/* Parse one from memory (the JSON this run just wrote). */
int report_diff_parse(json_t **doc, const char *text, size_t len,
		      struct err *err);

/*
 * The differences as a JSON object (the caller's): "schema",
 * "regressions", "fixes", "upstreamed", arrays of
 * {series, version, target, patch (index or null), subject, what, from,
 * to}.
 */
json_t *report_diff_compare(const json_t *base, const json_t *cur);
size_t report_diff_regressions(const json_t *diff);

/* One item as a line: "wq@v1 on new: 0003 btrfs: foo: clean -> conflict" */
struct buf;
void report_diff_item_line(struct buf *b, const json_t *it);

/* Text for a terminal (control characters made visible), Markdown. */
void report_diff_text(FILE *out, const json_t *diff);
void report_diff_markdown(FILE *out, const json_t *diff);
/*
 * One mbox message (mboxrd) that leads check's email with the
 * differences: "kcarry: 2 regressions against the baseline".  date:
 * seconds since the epoch, 0 for now.
 */
void report_diff_email(FILE *out, const json_t *diff, long long date);

#endif
