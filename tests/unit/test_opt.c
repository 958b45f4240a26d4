/* opt: the option tables commands parse with and print --help from. */
#include "unit.h"

#include "opt.h"

struct cli {
	bool json, build, each, no_3way;
	const char *output;
	unsigned fuzz;
	struct opt_list watch;
	int format;
};

static const char *const formats[] = { "text", "json", "junit", NULL };

static const struct opt table[] = {
	{ OPT_FLAG, 0, "json", NULL, "print JSON", offsetof(struct cli, json) },
	{ OPT_STRING, 'o', "output", "FILE", "write the report to FILE",
	  offsetof(struct cli, output) },
	{ OPT_UINT, 'F', "fuzz", "N", "largest fuzz",
	  offsetof(struct cli, fuzz), 0, 3 },
	{ OPT_LIST, 0, "watch", "FILE", "a watched file\n(repeatable)",
	  offsetof(struct cli, watch) },
	{ OPT_CHOICE, 'f', "format", "F", "text, json or junit",
	  offsetof(struct cli, format), .choices = formats },
	{ OPT_FLAG, 0, "each", NULL, "build after each patch",
	  offsetof(struct cli, each),
	  .also = { OPT_ALSO(struct cli, build) } },
	{ OPT_END },
};

static int parse(struct cli *c, const char *const *words, size_t n,
		 const char ***args, size_t *nr, struct err *err)
{
	char *argv[16] = { (char *)"cmd" };

	for (size_t i = 0; i < n; i++)
		argv[i + 1] = (char *)words[i];
	memset(c, 0, sizeof(*c));
	return opt_parse(table, c, (int)n + 1, argv, args, nr, err);
}

static void every_spelling_of_a_value_is_read(void **state)
{
	static const char *const spellings[][2] = {
		{ "--fuzz", "2" }, { "--fuzz=2", NULL }, { "-F", "2" },
		{ "-F2", NULL },
	};

	for (size_t i = 0; i < 4; i++) {
		struct cli c;
		const char **args;
		size_t nr;
		struct err err = ERR_INIT;
		size_t n = spellings[i][1] ? 2 : 1;

		assert_int_equal(parse(&c, spellings[i], n, &args, &nr, &err), 0);
		assert_int_equal(c.fuzz, 2);
		assert_int_equal(nr, 0);
		free(args);
	}
}

static void arguments_keep_their_order(void **state)
{
	static const char *const w[] = { "a", "--json", "b", "--", "--c" };
	struct cli c;
	const char **args;
	size_t nr;
	struct err err = ERR_INIT;

	assert_int_equal(parse(&c, w, 5, &args, &nr, &err), 0);
	assert_true(c.json);
	assert_int_equal(nr, 3);
	assert_string_equal(args[0], "a");
	assert_string_equal(args[1], "b");
	assert_string_equal(args[2], "--c");
	free(args);
}

static void bad_values_name_the_option(void **state)
{
	static const struct {
		const char *w[2];
		size_t n;
		const char *msg;
	} cases[] = {
		{ { "--fuzz=4" }, 1, "--fuzz takes a number from 0 to 3, not '4'" },
		{ { "-F", "-1" }, 2, "--fuzz takes a number from 0 to 3, not '-1'" },
		{ { "--fuzz", "x" }, 2, "--fuzz takes a number from 0 to 3, not 'x'" },
		{ { "--output" }, 1, "--output needs FILE" },
		{ { "--json=1" }, 1, "unknown option '--json=1'" },
		{ { "--nope" }, 1, "unknown option '--nope'" },
		{ { "-x" }, 1, "unknown option '-x'" },
		{ { "-f", "xml" }, 2,
		  "--format: unknown value 'xml' (text, json, junit)" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cli c;
		const char **args = NULL;
		size_t nr;
		struct err err = ERR_INIT;

		assert_int_equal(parse(&c, cases[i].w, cases[i].n, &args, &nr,
				       &err),
				 ERR_USAGE);
		assert_string_equal(err.msg.ptr, cases[i].msg);
		free(args);
		err_release(&err);
	}
}

static void lists_choices_and_implied_flags(void **state)
{
	static const char *const w[] = { "--watch", "a.c", "--watch=b.h",
					 "-fjunit", "--each" };
	struct cli c;
	const char **args;
	size_t nr;
	struct err err = ERR_INIT;

	assert_int_equal(parse(&c, w, 5, &args, &nr, &err), 0);
	assert_int_equal(c.watch.nr, 2);
	assert_string_equal(c.watch.items[1], "b.h");
	assert_int_equal(c.format, 2);
	assert_true(c.each);
	assert_true(c.build);
	opt_list_release(&c.watch);
	free(args);
}

static void help_comes_from_the_table(void **state)
{
	struct buf b = BUF_INIT;

	opt_help(&b, table);
	assert_string_equal(b.ptr,
			    "options:\n"
			    "  --json                print JSON\n"
			    "  --output, -o FILE     write the report to FILE\n"
			    "  --fuzz, -F N          largest fuzz\n"
			    "  --watch FILE          a watched file\n"
			    "                        (repeatable)\n"
			    "  --format, -f F        text, json or junit\n"
			    "  --each                build after each patch\n");
	buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_spelling_of_a_value_is_read),
		cmocka_unit_test(arguments_keep_their_order),
		cmocka_unit_test(bad_values_name_the_option),
		cmocka_unit_test(lists_choices_and_implied_flags),
		cmocka_unit_test(help_comes_from_the_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
