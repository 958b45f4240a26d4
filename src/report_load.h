/*
 * report_load: a kcarry-check/1 JSON report read back into a
 * check_report, so that the reports of several 'check --shard I/N' runs
 * can be joined and written in any format.  The series versions come from
 * the workspace (subjects, authors, patch texts); everything the runs
 * found comes from the JSON.
 */
#ifndef KCARRY_REPORT_LOAD_H
#define KCARRY_REPORT_LOAD_H

#include "check.h"

/*
 * Merge the reports at paths (each a whole run or one shard) into r.
 * They must name the same series, versions and targets; every cell must
 * come from exactly one of them.
 */
int report_load_merge(struct check_report *r, const char *root,
		      char *const *paths, size_t nr, struct err *err);

#endif
