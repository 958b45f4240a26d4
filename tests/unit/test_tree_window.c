#include "unit.h"

#include <stdio.h>

/*
 * tree_diff_texts: the diff of a window around what changed must be the
 * whole-file diff, byte for byte (issue 18: the refreshed series is
 * written from it).  Generated texts: C-like files with functions, runs
 * of blank lines and "}" (where xdiff slides groups), edits near each
 * other, far apart, at the first and the last line, without a final
 * newline, with a function line far above the change.
 */

static int group_setup(void **state)
{
	struct err err = ERR_INIT;
	int rc = tree_global_init(&err);

	(void)state;
	err_release(&err);
	return rc;
}

static int group_teardown(void **state)
{
	(void)state;
	tree_global_shutdown();
	return 0;
}

static unsigned long rng = 12345;

static unsigned rnd(unsigned n)
{
	rng = rng * 6364136223846793005ul + 1442695040888963407ul;
	return (unsigned)((rng >> 33) % n);
}

/* a text as lines, each with its newline */
struct text {
	char **l;
	size_t nr, alloc;
	bool no_final_newline;
};

static void text_add(struct text *t, size_t at, const char *s)
{
	ALLOC_GROW(t->l, t->nr + 1, t->alloc);
	memmove(t->l + at + 1, t->l + at, (t->nr - at) * sizeof(*t->l));
	t->l[at] = xstrdup(s);
	t->nr++;
}

static void text_del(struct text *t, size_t at)
{
	free(t->l[at]);
	memmove(t->l + at, t->l + at + 1, (t->nr - at - 1) * sizeof(*t->l));
	t->nr--;
}

static void text_copy(struct text *dst, const struct text *src)
{
	*dst = (struct text){ NULL, 0, 0, src->no_final_newline };
	for (size_t i = 0; i < src->nr; i++)
		text_add(dst, i, src->l[i]);
}

static void text_free(struct text *t)
{
	for (size_t i = 0; i < t->nr; i++)
		free(t->l[i]);
	free(t->l);
}

static void text_join(struct buf *out, const struct text *t)
{
	buf_reset(out);
	for (size_t i = 0; i < t->nr; i++)
		buf_adds(out, t->l[i]);
	if (t->no_final_newline && out->len && out->ptr[out->len - 1] == '\n')
		buf_truncate(out, out->len - 1);
}

/* a line of a function body: often repeated ones */
static const char *body_line(char *tmp, size_t n)
{
	static const char *const common[] = {
		"\n",
		"\n",
		"}\n",
		"\t}\n",
		"\t\treturn 0;\n",
		"\t\tbreak;\n",
		"\t{\n",
		"\t\t}\n",
		"\treturn ret;\n",
		"\n",
	};
	unsigned r = rnd(20);

	if (r < 10)
		return common[r];
	snprintf(tmp, n, "\tx%u = call_%u(y%u);\n", rnd(50), rnd(400), rnd(9));
	return tmp;
}

/* nfun functions of about len lines each, some with long headers */
static void make_base(struct text *t, unsigned nfun, unsigned len)
{
	char tmp[200];

	*t = (struct text){ 0 };
	text_add(t, t->nr, "/* generated */\n");
	text_add(t, t->nr, "#include <stdio.h>\n");
	text_add(t, t->nr, "\n");
	for (unsigned f = 0; f < nfun; f++) {
		if (rnd(4) == 0)
			snprintf(tmp, sizeof(tmp),
				 "static int a_function_with_a_very_long_name_"
				 "number_%u(struct some_long_type *argument, "
				 "unsigned long flags)\n",
				 f);
		else
			snprintf(tmp, sizeof(tmp), "int fn_%u(void)\n", f);
		text_add(t, t->nr, tmp);
		text_add(t, t->nr, "{\n");
		for (unsigned i = rnd(len) + len / 2; i; i--)
			text_add(t, t->nr, body_line(tmp, sizeof(tmp)));
		text_add(t, t->nr, "}\n");
		text_add(t, t->nr, "\n");
	}
}

/* one random edit of t around line at */
static void edit(struct text *t, size_t at)
{
	char tmp[200];
	unsigned kind = rnd(8), n;

	if (at > t->nr)
		at = t->nr;
	switch (kind) {
	case 0: /* change a line */
	case 1:
		if (at < t->nr) {
			text_del(t, at);
			snprintf(tmp, sizeof(tmp), "\tchanged_%u();\n",
				 rnd(1000));
			text_add(t, at, tmp);
		}
		break;
	case 2: /* remove some lines */
		for (n = rnd(4) + 1; n && at < t->nr; n--)
			text_del(t, at);
		break;
	case 3: /* add repeated lines, which xdiff may slide */
		for (n = rnd(3) + 1; n; n--)
			text_add(t, at, rnd(2) ? "\n" : "}\n");
		break;
	case 4: /* a block of new lines with blank lines among them */
		for (n = rnd(30) + 5; n; n--) {
			if (rnd(5) == 0)
				text_add(t, at, "\n");
			else {
				snprintf(tmp, sizeof(tmp), "\tnew_%u_%u();\n",
					 rnd(100000), n);
				text_add(t, at, tmp);
			}
		}
		break;
	case 5: /* a new function */
		text_add(t, at, "}\n");
		text_add(t, at, "\treturn 0;\n");
		text_add(t, at, "\n");
		snprintf(tmp, sizeof(tmp), "\tsetup_%u();\n", rnd(1000));
		text_add(t, at, tmp);
		text_add(t, at, "{\n");
		snprintf(tmp, sizeof(tmp), "int added_%u(void)\n", rnd(1000));
		text_add(t, at, tmp);
		text_add(t, at, "\n");
		break;
	default: /* lines of the body, copied from elsewhere */
		for (n = rnd(5) + 1; n; n--)
			text_add(t, at, body_line(tmp, sizeof(tmp)));
		break;
	}
}

struct counts {
	unsigned windowed, whole;
};

/* the windowed diff of a to b is the whole one; counts which was used */
static void check_same(const struct text *a, const struct text *b,
		       struct counts *c)
{
	struct buf ta = BUF_INIT, tb = BUF_INIT, whole = BUF_INIT,
		   win = BUF_INIT;
	struct err err = ERR_INIT;
	int rc;

	text_join(&ta, a);
	text_join(&tb, b);
	assert_int_equal(tree_diff_texts(&whole, "lib/gen.c",
					 (struct span){ ta.ptr, ta.len },
					 (struct span){ tb.ptr, tb.len }, false,
					 &err),
			 0);
	rc = tree_diff_texts(&win, "lib/gen.c", (struct span){ ta.ptr, ta.len },
			     (struct span){ tb.ptr, tb.len }, true, &err);
	assert_true(rc == 0 || rc == 1);
	if (strcmp(whole.ptr, win.ptr)) {
		fprintf(stderr,
			"windowed diff differs; whole:\n%s\nwindow:\n%s",
			whole.ptr, win.ptr);
		fail();
	}
	if (rc == 1)
		c->windowed++;
	else
		c->whole++;
	buf_release(&ta);
	buf_release(&tb);
	buf_release(&whole);
	buf_release(&win);
	err_release(&err);
}

static size_t count_of(const struct text *t, const char *line)
{
	size_t n = 0;

	for (size_t i = 0; i < t->nr; i++)
		n += !strcmp(t->l[i], line);
	return n;
}

/* one change in a big file: the window is used, the text is the same */
static void one_change_is_windowed_and_the_same(void **state)
{
	struct text a, b;
	struct counts c = { 0 };

	(void)state;
	make_base(&a, 150, 30);
	for (size_t at = 100; at < a.nr; at += a.nr / 37) {
		/* a line found nowhere else (the Myers pass of the window
		 * would keep one found elsewhere, the whole one not) */
		while (at < a.nr && count_of(&a, a.l[at]) != 1)
			at++;
		if (at == a.nr)
			break;
		text_copy(&b, &a);
		text_del(&b, at);
		text_add(&b, at, "\tone_changed_line();\n");
		check_same(&a, &b, &c);
		text_free(&b);
	}
	assert_int_equal(c.whole, 0);
	assert_true(c.windowed > 30);
	text_free(&a);
}

/*
 * A function line far above the window (a long function with no line
 * starting with a letter): the @@ line names it, cut at 80 bytes.
 */
static void function_line_far_above_the_window(void **state)
{
	struct text a, b;
	struct buf ta = BUF_INIT, tb = BUF_INIT, win = BUF_INIT;
	struct err err = ERR_INIT;
	struct counts c = { 0 };
	char tmp[64];

	(void)state;
	a = (struct text){ 0 };
	text_add(&a, 0,
		 "static int a_function_with_a_very_long_name_and_more"
		 "_words(struct some_long_type *argument, unsigned "
		 "long flags)  \n");
	text_add(&a, 1, "{\n");
	for (unsigned i = 0; i < 3000; i++) {
		snprintf(tmp, sizeof(tmp), "\tstep_%u();\n", i);
		text_add(&a, a.nr, tmp);
	}
	text_add(&a, a.nr, "}\n");
	text_copy(&b, &a);
	text_del(&b, 2000);
	text_add(&b, 2000, "\tother_step();\n");
	check_same(&a, &b, &c);
	assert_int_equal(c.windowed, 1);
	text_join(&ta, &a);
	text_join(&tb, &b);
	assert_int_equal(tree_diff_texts(&win, "lib/gen.c",
					 (struct span){ ta.ptr, ta.len },
					 (struct span){ tb.ptr, tb.len }, true,
					 &err),
			 1);
	assert_non_null(strstr(win.ptr,
			       "@@ -1998,7 +1998,7 @@ static int a_function_"
			       "with_a_very_long_name_and_more_words(struct "
			       "some_long_type\n"));
	text_free(&a);
	text_free(&b);
	buf_release(&ta);
	buf_release(&tb);
	buf_release(&win);
	err_release(&err);
}

/*
 * Random edits: near each other, far apart, at the first and the last
 * line, in runs of blank lines and "}", blocks of new lines, with and
 * without a final newline, CRLF lines: always the whole diff's text.
 */
static void random_edits_give_the_whole_diff(void **state)
{
	struct counts c = { 0 };

	(void)state;
	for (unsigned round = 0; round < 1500; round++) {
		struct text a, b;
		unsigned nedits = rnd(4) + 1;
		size_t at;

		make_base(&a, 40 + rnd(80), 10 + rnd(40));
		if (round % 7 == 0) {
			/* CRLF lines */
			for (size_t i = 0; i < a.nr; i += 3) {
				char *l = a.l[i];
				size_t n = strlen(l);

				a.l[i] = xstrfmt("%.*s\r\n", (int)(n - 1), l);
				free(l);
			}
		}
		a.no_final_newline = round % 5 == 0;
		text_copy(&b, &a);
		if (round % 11 == 0)
			b.no_final_newline = !a.no_final_newline;
		at = rnd((unsigned)a.nr);
		for (unsigned e = 0; e < nedits; e++) {
			switch (rnd(6)) {
			case 0: /* the first lines */
				edit(&b, rnd(3));
				break;
			case 1: /* the last lines */
				edit(&b, b.nr - rnd(3) - (b.nr > 3));
				break;
			case 2: /* far away */
				edit(&b, rnd((unsigned)b.nr));
				break;
			default: /* near the others, within the margin */
				at = at + rnd(60) > 30 ? at + rnd(60) - 30 : 0;
				edit(&b, at < b.nr ? at : b.nr);
				break;
			}
		}
		check_same(&a, &b, &c);
		text_free(&a);
		text_free(&b);
	}
	fprintf(stderr, "windowed %u, whole %u\n", c.windowed, c.whole);
	/* both paths ran often enough to be compared */
	assert_true(c.windowed > 300);
	assert_true(c.whole > 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_change_is_windowed_and_the_same),
		cmocka_unit_test(function_line_far_above_the_window),
		cmocka_unit_test(random_edits_give_the_whole_diff),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
