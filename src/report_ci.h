/*
 * report_ci: kcarry check's reports for machines and mailing lists:
 * JSON (schema kcarry-check/1, docs/check-json-schema.md), JUnit XML (one
 * testsuite per target, one testcase per patch), Markdown for a
 * merge-request comment, and a stable-style "failed to apply" email per
 * patch that fails on a target.
 */
#ifndef KCARRY_REPORT_CI_H
#define KCARRY_REPORT_CI_H

#include <stdio.h>

#include "check.h"

#define REPORT_CHECK_SCHEMA "kcarry-check/1"

struct report_email_opts {
	const char *from;  /* "Name <addr>"; default: kcarry <kcarry@localhost> */
	const char *to;    /* default: the patch author */
	long long date;    /* seconds since the epoch for Date:; 0: now */
};

#define REPORT_BUILD_SCHEMA "kcarry-build/1"

typedef struct json_t json_t;
/* The "build" object of a cell (kcarry-check/1 and kcarry-build/1). */
json_t *report_build_json(const struct build_result *b);

/* The kcarry-build/1 document of a check_report of builds. */
int report_build_doc_json(FILE *out, const struct check_report *r,
			  struct err *err);

int report_check_json(FILE *out, const struct check_report *r,
		      struct err *err);
int report_check_junit(FILE *out, const struct check_report *r,
		       struct err *err);
int report_check_markdown(FILE *out, const struct check_report *r,
			  struct err *err);
/* An mbox: one message per (failing patch, target). */
int report_check_email(FILE *out, const struct check_report *r,
		       const struct report_email_opts *opts, struct err *err);

#endif
