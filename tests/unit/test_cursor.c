#include "unit.h"

#include "cursor.h"

/* ---- helpers ---------------------------------------------------------- */

static void assert_span(struct span s, const char *expect)
{
	assert_int_equal(s.len, strlen(expect));
	assert_memory_equal(s.ptr, expect, s.len);
}

/* Next line must be expect (without LF) and full must be expect_full. */
static void assert_next(struct cursor *c, const char *expect,
			const char *expect_full)
{
	struct span line, full;

	assert_true(cursor_next(c, &line, &full));
	assert_span(line, expect);
	assert_span(full, expect_full);
}

/* ---- tests ------------------------------------------------------------ */

static void lines_with_final_lf(void **state)
{
	static const char text[] = "one\ntwo\n\nfour\n";
	struct cursor c;
	struct span line;

	cursor_init(&c, text, strlen(text));
	assert_next(&c, "one", "one\n");
	assert_next(&c, "two", "two\n");
	assert_next(&c, "", "\n");
	assert_next(&c, "four", "four\n");
	/* No empty line after the final LF. */
	assert_true(cursor_eof(&c));
	assert_false(cursor_next(&c, &line, NULL));
}

static void last_line_without_lf(void **state)
{
	static const char text[] = "one\ntail";
	struct cursor c;
	struct span line;

	cursor_init(&c, text, strlen(text));
	assert_next(&c, "one", "one\n");
	assert_false(cursor_eof(&c));
	assert_next(&c, "tail", "tail");
	assert_true(cursor_eof(&c));
	assert_false(cursor_next(&c, &line, NULL));
}

static void cr_before_lf_is_kept(void **state)
{
	static const char text[] = "a\r\nb\r\n\r\nc\r";
	struct cursor c;
	struct span line;

	cursor_init(&c, text, strlen(text));
	assert_next(&c, "a\r", "a\r\n");
	assert_true(cursor_next(&c, &line, NULL));
	assert_span(line, "b\r");
	assert_span(span_chomp_cr(line), "b");
	assert_next(&c, "\r", "\r\n");
	assert_next(&c, "c\r", "c\r");
	assert_false(cursor_next(&c, &line, NULL));
}

static void lone_cr_does_not_end_a_line(void **state)
{
	static const char text[] = "a\rb\n";
	struct cursor c;

	cursor_init(&c, text, strlen(text));
	assert_next(&c, "a\rb", "a\rb\n");
	assert_true(cursor_eof(&c));
}

static void chomp_cr_strips_one_cr_only(void **state)
{
	assert_span(span_chomp_cr(span_from("x\r\r")), "x\r");
	assert_span(span_chomp_cr(span_from("x")), "x");
	assert_span(span_chomp_cr(span_from("\r")), "");
	assert_int_equal(span_chomp_cr(SPAN_NULL).len, 0);
}

static void lineno_counts_lines_returned(void **state)
{
	static const char text[] = "1\n2\n3";
	struct cursor c;
	struct span line;

	cursor_init(&c, text, strlen(text));
	assert_int_equal(c.lineno, 1);
	assert_true(cursor_next(&c, &line, NULL));
	assert_int_equal(c.lineno, 2);
	assert_true(cursor_next(&c, &line, NULL));
	assert_int_equal(c.lineno, 3);
	assert_true(cursor_next(&c, &line, NULL));
	assert_int_equal(c.lineno, 4);
	/* Reading past the end does not count. */
	assert_false(cursor_next(&c, &line, NULL));
	assert_int_equal(c.lineno, 4);
}

static void peek_does_not_move(void **state)
{
	static const char text[] = "first\nsecond\n";
	struct cursor c;
	struct span a, b;

	cursor_init(&c, text, strlen(text));
	assert_true(cursor_peek(&c, &a));
	assert_true(cursor_peek(&c, &b));
	assert_span(a, "first");
	assert_ptr_equal(a.ptr, b.ptr);
	assert_int_equal(c.lineno, 1);
	assert_ptr_equal(c.pos, text);
	assert_next(&c, "first", "first\n");
	assert_true(cursor_peek(&c, &a));
	assert_span(a, "second");
	assert_next(&c, "second", "second\n");
	assert_false(cursor_peek(&c, &a));
}

static void rest_is_everything_not_yet_read(void **state)
{
	static const char text[] = "head\n\nbody line\nlast";
	struct cursor c;
	struct span line;

	cursor_init(&c, text, strlen(text));
	assert_span(cursor_rest(&c), text);
	assert_true(cursor_next(&c, &line, NULL));
	assert_true(cursor_next(&c, &line, NULL));
	assert_span(cursor_rest(&c), "body line\nlast");
	assert_true(cursor_next(&c, &line, NULL));
	assert_true(cursor_next(&c, &line, NULL));
	assert_int_equal(cursor_rest(&c).len, 0);
}

static void empty_input_has_no_lines(void **state)
{
	struct cursor c;
	struct span line = { "untouched", 9 };

	cursor_init(&c, "", 0);
	assert_true(cursor_eof(&c));
	assert_false(cursor_peek(&c, &line));
	assert_false(cursor_next(&c, &line, NULL));
	assert_span(line, "untouched");
	assert_int_equal(c.lineno, 1);
	assert_int_equal(cursor_rest(&c).len, 0);
}

static void single_lf_is_one_empty_line(void **state)
{
	struct cursor c;
	struct span line;

	cursor_init(&c, "\n", 1);
	assert_next(&c, "", "\n");
	assert_false(cursor_next(&c, &line, NULL));
	assert_int_equal(c.lineno, 2);
}

static void len_bounds_the_input(void **state)
{
	static const char text[] = "abc\ndef\nghi\n";
	struct cursor c;
	struct span line;

	/* Stop in the middle of the second line: no LF there. */
	cursor_init(&c, text, 6);
	assert_next(&c, "abc", "abc\n");
	assert_next(&c, "de", "de");
	assert_false(cursor_next(&c, &line, NULL));
}

static void nul_bytes_stay_inside_the_line(void **state)
{
	static const char text[] = "a\0b\nc";
	struct cursor c;
	struct span line;

	cursor_init(&c, text, sizeof(text) - 1);
	assert_true(cursor_next(&c, &line, NULL));
	assert_int_equal(line.len, 3);
	assert_memory_equal(line.ptr, "a\0b", 3);
	assert_next(&c, "c", "c");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lines_with_final_lf),
		cmocka_unit_test(last_line_without_lf),
		cmocka_unit_test(cr_before_lf_is_kept),
		cmocka_unit_test(lone_cr_does_not_end_a_line),
		cmocka_unit_test(chomp_cr_strips_one_cr_only),
		cmocka_unit_test(lineno_counts_lines_returned),
		cmocka_unit_test(peek_does_not_move),
		cmocka_unit_test(rest_is_everything_not_yet_read),
		cmocka_unit_test(empty_input_has_no_lines),
		cmocka_unit_test(single_lf_is_one_empty_line),
		cmocka_unit_test(len_bounds_the_input),
		cmocka_unit_test(nul_bytes_stay_inside_the_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
