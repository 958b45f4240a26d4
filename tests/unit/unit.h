/*
 * unit: what every cmocka unit test includes; fixture paths come from
 * KCARRY_FIXTURES (set by scripts/run-tests) or tests/fixtures.
 */
#ifndef KCARRY_UNIT_H
#define KCARRY_UNIT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "fs.h"

/* Directory of tests/fixtures (KCARRY_FIXTURES overrides). */
static inline const char *unit_fixtures(void)
{
	const char *d = getenv("KCARRY_FIXTURES");
	return d && *d ? d : "tests/fixtures";
}

/* Directory of ../shared/corpus, or NULL when absent (tests then skip). */
static inline const char *unit_corpus(void)
{
	const char *d = getenv("KCARRY_CORPUS");
	if (d && *d)
		return fs_is_dir(d) ? d : NULL;
	return fs_is_dir("../shared/corpus") ? "../shared/corpus" : NULL;
}

/* Read fixture file tests/fixtures/<rel> into out; fails the test if absent. */
static inline void unit_read_fixture(struct buf *out, const char *rel)
{
	struct err err = ERR_INIT;
	char *path = fs_join(unit_fixtures(), rel);
	if (fs_read_file(out, path, 0, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	free(path);
	err_release(&err);
}

#endif
