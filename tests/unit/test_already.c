/*
 * test_already: a hunk's change standing in edited form in a region of
 * the target, and the cases that must not pass for it (the lines in part,
 * in another order, with a condition inverted, the removed line still
 * there).
 */
#include "unit.h"

#include "already.h"
#include "patch.h"

/* A one-hunk patch of lib/demo.c whose body is the hunk's lines. */
struct thunk {
	struct buf raw;
	struct patch p;
	const struct patch_hunk *h;
};

static void thunk_init(struct thunk *t, const char *body)
{
	struct patch_parse_opts po = { "test.patch", 1, false };
	struct err err = ERR_INIT;
	unsigned long pre = 0, post = 0;

	for (const char *l = body; *l; l = strchr(l, '\n') + 1) {
		pre += *l != '+';
		post += *l != '-';
	}
	buf_init(&t->raw, 0);
	buf_addf(&t->raw,
		 "--- a/lib/demo.c\n+++ b/lib/demo.c\n"
		 "@@ -10,%lu +10,%lu @@ static int demo(struct demo *d)\n%s",
		 pre, post, body);
	patch_init(&t->p);
	if (patch_parse(&t->p, t->raw.ptr, t->raw.len, &po, &err) < 0)
		fail_msg("cannot parse: %s", err.msg.ptr);
	assert_int_equal(t->p.nr_files, 1);
	assert_int_equal(t->p.files[0].nr_hunks, 1);
	t->h = &t->p.files[0].hunks[0];
	err_release(&err);
}

static void thunk_release(struct thunk *t)
{
	patch_release(&t->p);
	buf_release(&t->raw);
}

static bool stands(const char *body, const char *region,
		   struct already_found *af)
{
	struct thunk t;
	bool ok;

	thunk_init(&t, body);
	ok = already_edited(af, t.h, (struct span){ region, strlen(region) },
			    100);
	thunk_release(&t);
	return ok;
}

/* The fix as the stable backport took it: other context, same change. */
static const char fix[] =
	" \tint ret;\n"
	" \n"
	"-\tret = demo_start(d);\n"
	"+\tret = demo_start(d, DEMO_SAFE);\n"
	"+\tif (ret < 0)\n"
	"+\t\treturn ret;\n"
	" \tdemo_log(d);\n";

static void edited_context_is_already_with_lines(void **state)
{
	struct already_found af;
	const char region[] =
		"static int demo(struct demo *d)\n" /* 100 */
		"{\n"
		"\tint ret, tries = 3;\n"
		"\n"
		"\tret = demo_start(d, DEMO_SAFE);\n" /* 104 */
		"\tif (ret < 0)\n"
		"\t\treturn ret;\n"
		"\tdemo_trace(d);\n"
		"\treturn 0;\n"
		"}\n";

	(void)state;
	assert_true(stands(fix, region, &af));
	assert_int_equal(af.nr, 3);
	assert_int_equal(af.lines[0], 104);
	assert_int_equal(af.lines[1], 105);
	assert_int_equal(af.lines[2], 106);
	already_found_release(&af);
}

static void comments_and_blanks_do_not_count(void **state)
{
	struct already_found af;
	const char region[] =
		"static int demo(struct demo *d)\n"
		"{\n"
		"\tret = demo_start(d,\n"              /* 102 */
		"\t\t\t DEMO_SAFE); /* safe */\n"
		"\t/* give up */\n"
		"\tif (ret<0)\n"                        /* 105 */
		"\t\treturn   ret;\n"
		"}\n";

	(void)state;
	assert_true(stands(fix, region, &af));
	assert_int_equal(af.lines[0], 102);
	assert_int_equal(af.lines[1], 105);
	assert_int_equal(af.lines[2], 106);
	already_found_release(&af);
}

static void removed_line_still_there_is_not_already(void **state)
{
	struct already_found af;
	const char region[] =
		"\tret = demo_start(d, DEMO_SAFE);\n"
		"\tif (ret < 0)\n"
		"\t\treturn ret;\n"
		"\tret = demo_start(d);\n";

	(void)state;
	assert_false(stands(fix, region, &af));
	assert_int_equal(af.nr, 0);
	assert_null(af.lines);
}

static void inverted_condition_is_not_already(void **state)
{
	struct already_found af;
	const char region[] =
		"\tret = demo_start(d, DEMO_SAFE);\n"
		"\tif (ret >= 0)\n"
		"\t\treturn ret;\n";

	(void)state;
	assert_false(stands(fix, region, &af));
}

static void half_the_lines_is_not_already(void **state)
{
	struct already_found af;
	const char region[] =
		"\tret = demo_start(d, DEMO_SAFE);\n"
		"\tdemo_log(d);\n"
		"\treturn ret;\n";

	(void)state;
	assert_false(stands(fix, region, &af));
}

static void blocks_in_another_order_are_not_already(void **state)
{
	struct already_found af;
	const char body[] =
		" \tdemo_lock(d);\n"
		"+\tdemo_flush(d);\n"
		" \tdemo_work(d);\n"
		"-\tdemo_wait(d);\n"
		"+\tdemo_unlock(d);\n"
		" \treturn 0;\n";
	const char swapped[] =
		"\tdemo_unlock(d);\n"
		"\tdemo_work(d);\n"
		"\tdemo_flush(d);\n";
	const char ordered[] =
		"\tdemo_flush(d);\n"
		"\tdemo_work(d);\n"
		"\tdemo_unlock(d);\n";

	(void)state;
	assert_false(stands(body, swapped, &af));
	assert_true(stands(body, ordered, &af));
	already_found_release(&af);
}

static void a_line_inside_a_longer_one_does_not_stand(void **state)
{
	struct already_found af;
	const char region[] =
		"\tx = demo_start(d, DEMO_SAFE); if (ret < 0)\n"
		"\t\treturn ret;\n";

	(void)state;
	assert_false(stands(fix, region, &af));
}

static void removed_line_also_added_is_neutral(void **state)
{
	struct already_found af;
	const char body[] =
		" \tdemo_lock(d);\n"
		"-\tdemo_work(d);\n"
		"+\tdemo_check(d);\n"
		"+\tdemo_work(d);\n"
		" \tdemo_unlock(d);\n";
	const char region[] =
		"\tdemo_check(d);\n"
		"\tdemo_work(d);\n";

	(void)state;
	assert_true(stands(body, region, &af));
	already_found_release(&af);
}

static void one_added_line_alone_is_no_evidence(void **state)
{
	struct already_found af;
	const char one[] =
		" \tdemo_lock(d);\n"
		"+\tkfree(d->buf);\n"
		" \tdemo_unlock(d);\n";
	const char two[] =
		" \tdemo_lock(d);\n"
		"+\tkfree(d->buf);\n"
		"+\td->buf = NULL;\n"
		" \tdemo_unlock(d);\n";
	const char region[] =
		"\tkfree(d->buf);\n"
		"\td->buf = NULL;\n";

	(void)state;
	assert_false(stands(one, region, &af));
	assert_true(stands(two, region, &af));
	already_found_release(&af);
}

/* Locking added around a call, in a function that locks elsewhere: two
 * significant lines, but one a block, proving nothing. */
static void one_line_blocks_alone_are_no_evidence(void **state)
{
	struct already_found af;
	const char body[] =
		" \td = demo_get(id);\n"
		"+\tmutex_lock(&d->lock);\n"
		" \tdemo_work(d);\n"
		"+\tmutex_unlock(&d->lock);\n"
		" \treturn 0;\n";
	const char region[] =
		"\tmutex_lock(&d->lock);\n"
		"\td->users++;\n"
		"\tmutex_unlock(&d->lock);\n"
		"\td = demo_get(id);\n"
		"\tdemo_work(d);\n";

	(void)state;
	assert_false(stands(body, region, &af));
}

/* A check added after a call, in a function that has the same check
 * after another call: it stands twice, so which is the hunk's is
 * unknown. */
static void added_block_standing_twice_is_no_evidence(void **state)
{
	struct already_found af;
	const char body[] =
		" \tret = demo_step(d);\n"
		"+\tif (ret)\n"
		"+\t\tgoto out;\n"
		" \tdemo_work(d);\n";
	const char twice[] =
		"\tret = demo_init(d);\n"
		"\tif (ret)\n"
		"\t\tgoto out;\n"
		"\tret = demo_step(d);\n"
		"\tif (ret)\n"
		"\t\tgoto out;\n";
	const char once[] =
		"\tret = demo_step(d);\n"
		"\tif (ret)\n"
		"\t\tgoto out;\n";

	(void)state;
	assert_false(stands(body, twice, &af));
	assert_true(stands(body, once, &af));
	already_found_release(&af);
}

static void added_comment_lines_are_found_nowhere(void **state)
{
	struct already_found af;
	const char body[] =
		" \tint ret;\n"
		"-\tret = demo_start(d);\n"
		"+\t/*\n"
		"+\t * safe mode: see demo_start()\n"
		"+\t */\n"
		"+\tret = demo_start(d, DEMO_SAFE);\n";
	const char region[] =
		"\t/* start in safe mode */\n"
		"\tret = demo_start(d, DEMO_SAFE);\n"; /* 101 */

	(void)state;
	assert_true(stands(body, region, &af));
	assert_int_equal(af.nr, 4);
	assert_int_equal(af.lines[0], 0);
	assert_int_equal(af.lines[1], 0);
	assert_int_equal(af.lines[2], 0);
	assert_int_equal(af.lines[3], 101);
	already_found_release(&af);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(edited_context_is_already_with_lines),
		cmocka_unit_test(comments_and_blanks_do_not_count),
		cmocka_unit_test(removed_line_still_there_is_not_already),
		cmocka_unit_test(inverted_condition_is_not_already),
		cmocka_unit_test(half_the_lines_is_not_already),
		cmocka_unit_test(blocks_in_another_order_are_not_already),
		cmocka_unit_test(a_line_inside_a_longer_one_does_not_stand),
		cmocka_unit_test(removed_line_also_added_is_neutral),
		cmocka_unit_test(one_added_line_alone_is_no_evidence),
		cmocka_unit_test(one_line_blocks_alone_are_no_evidence),
		cmocka_unit_test(added_block_standing_twice_is_no_evidence),
		cmocka_unit_test(added_comment_lines_are_found_nowhere),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
