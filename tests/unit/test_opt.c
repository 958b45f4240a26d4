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

/* words as the arguments of "cmd", by table t, into the zeroed base */
static int parse_by(const struct opt *t, void *base, size_t size,
		    const char *const *words, size_t n, const char ***args,
		    size_t *nr, struct err *err)
{
	char *argv[16] = { (char *)"cmd" };

	for (size_t i = 0; i < n; i++)
		argv[i + 1] = (char *)words[i];
	memset(base, 0, size);
	return opt_parse(t, base, (int)n + 1, argv, args, nr, err);
}

static int parse(struct cli *c, const char *const *words, size_t n,
		 const char ***args, size_t *nr, struct err *err)
{
	return parse_by(table, c, sizeof(*c), words, n, args, nr, err);
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

/* The options of the behaviours below: two values, an optional value,
 * a value that also sets a flag. */
struct cli2 {
	const char *git[2];
	const char *signoff;
	bool signoff_set, start_set;
	unsigned start;
};

static const struct opt table2[] = {
	{ OPT_PAIR, 0, "git", "REPO A..B", "the commits A..B of REPO",
	  offsetof(struct cli2, git) },
	{ OPT_STRING, 's', "signoff", "WHO", "add a sign-off",
	  offsetof(struct cli2, signoff), .optional = true,
	  .also = { OPT_ALSO(struct cli2, signoff_set) } },
	{ OPT_UINT, 0, "start", "N", "first number",
	  offsetof(struct cli2, start), 0, 999,
	  .also = { OPT_ALSO(struct cli2, start_set) } },
	{ OPT_END },
};

static int parse2(struct cli2 *c, const char *const *words, size_t n,
		  const char ***args, size_t *nr, struct err *err)
{
	return parse_by(table2, c, sizeof(*c), words, n, args, nr, err);
}

static void a_pair_takes_the_next_two_arguments(void **state)
{
	static const char *const spellings[][4] = {
		{ "s", "--git", "up", "base..HEAD" },
		{ "--git", "up", "base..HEAD", "s" },
		{ "--git=up", "base..HEAD", "s" },
	};
	static const size_t n[] = { 4, 4, 3 };

	for (size_t i = 0; i < 3; i++) {
		struct cli2 c;
		const char **args;
		size_t nr;
		struct err err = ERR_INIT;

		assert_int_equal(parse2(&c, spellings[i], n[i], &args, &nr,
					&err),
				 0);
		assert_string_equal(c.git[0], "up");
		assert_string_equal(c.git[1], "base..HEAD");
		assert_int_equal(nr, 1);
		assert_string_equal(args[0], "s");
		free(args);
	}
}

static void a_pair_short_of_a_value_is_refused(void **state)
{
	static const struct {
		const char *w[2];
		size_t n;
	} cases[] = { { { "--git", "up" }, 2 }, { { "--git=up" }, 1 },
		      { { "--git" }, 1 } };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cli2 c;
		const char **args = NULL;
		size_t nr;
		struct err err = ERR_INIT;

		assert_int_equal(parse2(&c, cases[i].w, cases[i].n, &args,
					&nr, &err),
				 ERR_USAGE);
		assert_string_equal(err.msg.ptr, "--git needs REPO A..B");
		free(args);
		err_release(&err);
	}
}

static void an_optional_value_follows_only_an_equals_sign(void **state)
{
	static const char *const bare[] = { "--signoff", "x" };
	static const char *const given[] = { "--signoff=A U Thor <a@b>" };
	static const char *const shrt[] = { "-s" };
	static const char *const glued[] = { "-sA" };
	struct cli2 c;
	const char **args;
	size_t nr;
	struct err err = ERR_INIT;

	assert_int_equal(parse2(&c, bare, 2, &args, &nr, &err), 0);
	assert_true(c.signoff_set);
	assert_null(c.signoff);
	assert_int_equal(nr, 1);
	assert_string_equal(args[0], "x");
	free(args);

	assert_int_equal(parse2(&c, given, 1, &args, &nr, &err), 0);
	assert_true(c.signoff_set);
	assert_string_equal(c.signoff, "A U Thor <a@b>");
	free(args);

	assert_int_equal(parse2(&c, shrt, 1, &args, &nr, &err), 0);
	assert_true(c.signoff_set);
	assert_null(c.signoff);
	free(args);

	args = NULL;
	assert_int_equal(parse2(&c, glued, 1, &args, &nr, &err), ERR_USAGE);
	assert_string_equal(err.msg.ptr, "unknown option '-sA'");
	free(args);
	err_release(&err);
}

static void a_value_sets_its_implied_flag_only_when_good(void **state)
{
	static const char *const good[] = { "--start=7" };
	static const char *const bad[] = { "--start", "1000" };
	struct cli2 c;
	const char **args = NULL;
	size_t nr;
	struct err err = ERR_INIT;

	assert_int_equal(parse2(&c, good, 1, &args, &nr, &err), 0);
	assert_int_equal(c.start, 7);
	assert_true(c.start_set);
	free(args);

	args = NULL;
	assert_int_equal(parse2(&c, bad, 2, &args, &nr, &err), ERR_USAGE);
	assert_string_equal(err.msg.ptr,
			    "--start takes a number from 0 to 999, not '1000'");
	assert_false(c.start_set);
	free(args);
	err_release(&err);
}

static void help_shows_pairs_and_optional_values(void **state)
{
	struct buf b = BUF_INIT;

	opt_help(&b, table2);
	assert_string_equal(b.ptr,
			    "options:\n"
			    "  --git REPO A..B       the commits A..B of REPO\n"
			    "  --signoff[=WHO], -s   add a sign-off\n"
			    "  --start N             first number\n");
	buf_release(&b);
}

/* main's kind of table: a count, a detached value, a value it refuses */
struct globals {
	int verbosity;
	const char *dir;
	int mode;
};

static int take_mode(const char *value, void *t, struct err *err)
{
	if (value && strcmp(value, "on"))
		return 1; /* not this option's: an unknown option */
	*(int *)t = 1;
	return 0;
}

static const struct opt globals_table[] = {
	{ OPT_STRING, 'C', NULL, "DIR", "run in DIR",
	  offsetof(struct globals, dir), .detached = true,
	  .what = "a directory" },
	{ OPT_COUNT, 'v', "verbose", NULL, "more",
	  offsetof(struct globals, verbosity), .max = 2 },
	{ OPT_FUNC, 0, "mode", "M", "on", offsetof(struct globals, mode),
	  .parse = take_mode, .optional = true },
	{ OPT_END },
};

/* opt_next on the one argument w (and what follows): its result, *i */
static int next_of(struct globals *g, const char *const *w, size_t n,
		   int *i, struct err *err)
{
	char *argv[8] = { (char *)"kcarry" };

	for (size_t k = 0; k < n; k++)
		argv[k + 1] = (char *)w[k];
	*i = 1;
	return opt_next(globals_table, g, (int)n + 1, argv, i, err);
}

static void a_count_counts_each_use_and_repeated_letters(void **state)
{
	static const char *const w[] = { "-v", "--verbose", "-vv" };
	struct globals g = { 0 };
	struct err err = ERR_INIT;
	int i;

	for (size_t k = 0; k < 3; k++) {
		assert_int_equal(next_of(&g, &w[k], 1, &i, &err), 1);
		assert_int_equal(i, 1);
	}
	assert_int_equal(g.verbosity, 4);
}

static void next_leaves_what_is_not_its_own(void **state)
{
	/* past max, another letter, a value for a count, an attached value
	 * where only a detached one is taken, a value the function refuses,
	 * no option at all */
	static const char *const w[] = { "-vvv", "-vx", "--verbose=1",
					 "-Cdir", "--mode=off", "--", "-",
					 "plain", "--nope" };
	struct globals g = { 0 };
	struct err err = ERR_INIT;
	int i;

	for (size_t k = 0; k < sizeof(w) / sizeof(w[0]); k++) {
		const char *two[] = { w[k], "next" };

		assert_int_equal(next_of(&g, two, 2, &i, &err), 0);
		assert_int_equal(i, 1);
	}
	assert_int_equal(g.verbosity, 0);
	assert_null(g.dir);
	assert_int_equal(g.mode, 0);
	assert_int_equal(err.code, 0);
}

static void a_detached_value_is_the_next_argument_whatever_it_is(void **state)
{
	static const char *const w[] = { "-C", "--", "-v" };
	struct globals g = { 0 };
	struct err err = ERR_INIT;
	int i;

	assert_int_equal(next_of(&g, w, 3, &i, &err), 1);
	assert_int_equal(i, 2);
	assert_string_equal(g.dir, "--");
	assert_int_equal(next_of(&g, (const char *const[]){ "--mode" }, 1, &i,
				 &err),
			 1);
	assert_int_equal(g.mode, 1);
}

static void a_missing_value_is_named_by_what(void **state)
{
	struct globals g = { 0 };
	struct err err = ERR_INIT;
	int i;

	assert_int_equal(next_of(&g, (const char *const[]){ "-C" }, 1, &i,
				 &err),
			 ERR_USAGE);
	assert_string_equal(err.msg.ptr, "-C needs a directory");
	err_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_spelling_of_a_value_is_read),
		cmocka_unit_test(arguments_keep_their_order),
		cmocka_unit_test(bad_values_name_the_option),
		cmocka_unit_test(lists_choices_and_implied_flags),
		cmocka_unit_test(help_comes_from_the_table),
		cmocka_unit_test(a_pair_takes_the_next_two_arguments),
		cmocka_unit_test(a_pair_short_of_a_value_is_refused),
		cmocka_unit_test(an_optional_value_follows_only_an_equals_sign),
		cmocka_unit_test(a_value_sets_its_implied_flag_only_when_good),
		cmocka_unit_test(help_shows_pairs_and_optional_values),
		cmocka_unit_test(a_count_counts_each_use_and_repeated_letters),
		cmocka_unit_test(next_leaves_what_is_not_its_own),
		cmocka_unit_test(
			a_detached_value_is_the_next_argument_whatever_it_is),
		cmocka_unit_test(a_missing_value_is_named_by_what),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
