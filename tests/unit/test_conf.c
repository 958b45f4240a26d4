#include "unit.h"

#include <stdio.h>

#include "conf.h"
#include "tree.h"

/*
 * libgit2 1.5's git_regexp_match() does not free its PCRE2 match data when
 * a value does not match (fixed upstream by libgit2 PR #6382), and
 * conf_set_all() appends through a regex that matches no value.  PCRE2 has
 * no frame pointers, so the leak's stack shows the library alone: name it.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libpcre2-8.so\n";
}

/* ---- fixture: a temporary directory and one config file in it --------- */

struct fixture {
	char *dir;
	char *path; /* dir/test.conf, not created */
};

static int group_setup(void **state)
{
	struct err err = ERR_INIT;
	int rc = tree_global_init(&err);

	err_release(&err);
	return rc;
}

static int group_teardown(void **state)
{
	tree_global_shutdown();
	return 0;
}

static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR");
	struct fixture *fx = xcalloc(1, sizeof(*fx));

	fx->dir = xstrfmt("%s/kcarry-test-conf-XXXXXX",
			  tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(fx->dir)) {
		free(fx->dir);
		free(fx);
		return -1;
	}
	fx->path = fs_join(fx->dir, "test.conf");
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	struct err err = ERR_INIT;
	int rc = fs_remove_tree(fx->dir, &err);

	err_release(&err);
	free(fx->path);
	free(fx->dir);
	free(fx);
	return rc;
}

/* Write text as the config file and open it. */
static struct conf *open_text(const struct fixture *fx, const char *text)
{
	struct err err = ERR_INIT;
	struct conf *c;

	assert_int_equal(fs_write_atomic(fx->path, text, strlen(text), &err),
			 0);
	if (conf_open(&c, fx->path, false, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	err_release(&err);
	return c;
}

static struct conf *reopen(struct conf *c)
{
	char *path = xstrdup(conf_path(c));
	struct err err = ERR_INIT;
	struct conf *n;

	conf_free(c);
	if (conf_open(&n, path, false, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	free(path);
	err_release(&err);
	return n;
}

static void assert_value(const struct conf *c, const char *key,
			 const char *expect)
{
	struct err err = ERR_INIT;
	char *v;

	if (conf_get(c, key, &v, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	assert_string_equal(v, expect);
	free(v);
	err_release(&err);
}

static void assert_absent(const struct conf *c, const char *key)
{
	struct err err = ERR_INIT;
	char *v = (char *)"x";

	assert_int_equal(conf_get(c, key, &v, &err), ERR_NOTFOUND);
	assert_null(v);
	err_release(&err);
}

/* Every value of key, joined with '|'; caller frees. */
static char *all_values(const struct conf *c, const char *key)
{
	struct err err = ERR_INIT;
	struct buf b = BUF_INIT;
	char **vals;
	size_t nr;

	if (conf_get_all(c, key, &vals, &nr, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	for (size_t i = 0; i < nr; i++)
		buf_addf(&b, "%s%s", i ? "|" : "", vals[i]);
	conf_free_list(vals, nr);
	err_release(&err);
	return buf_detach(&b, NULL);
}

static void assert_all(const struct conf *c, const char *key,
		       const char *expect)
{
	char *got = all_values(c, key);

	assert_string_equal(got, expect);
	free(got);
}

/* Subsection names of section, joined with '|'; caller frees. */
static char *subsections(const struct conf *c, const char *section)
{
	struct err err = ERR_INIT;
	struct buf b = BUF_INIT;
	char **names;
	size_t nr;

	if (conf_subsections(c, section, &names, &nr, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	for (size_t i = 0; i < nr; i++)
		buf_addf(&b, "%s%s", i ? "|" : "", names[i]);
	conf_free_list(names, nr);
	err_release(&err);
	return buf_detach(&b, NULL);
}

static void assert_subsections(const struct conf *c, const char *section,
			       const char *expect)
{
	char *got = subsections(c, section);

	assert_string_equal(got, expect);
	free(got);
}

static const char kernels_conf[] =
	"# kernels/debian.conf\n"
	"[target]\n"
	"\tdefault = 6.1\n"
	"[target \"6.1\"]\n"
	"\trepo = /srv/linux.git\n"
	"\tref = v6.1\n"
	"[target \"6.1.170-3\"]\n"
	"\tref = debian/6.1.170-3\n"
	"\tpatch = a.patch\n"
	"\tpatch = b.patch\n"
	"[target \"6.12.100-1~deb12u1\"]\n"
	"\tref = debian/6.12.100-1_deb12u1\n"
	"[targets \"not-a-target\"]\n"
	"\tref = x\n"
	"[target \"6.1.170-3\"]\n"
	"\tpatch = c.patch\n"
	"[target \"6.1.170-3.1\"]\n"
	"\tref = debian/6.1.170-3.1\n";

/* ---- opening ---------------------------------------------------------- */

static void open_missing_file_without_create_is_notfound(void **state)
{
	const struct fixture *fx = *state;
	char *msg = xstrfmt("'%s' does not exist", fx->path);
	struct err err = ERR_INIT;
	struct conf *c = (struct conf *)fx;

	assert_int_equal(conf_open(&c, fx->path, false, &err), ERR_NOTFOUND);
	assert_null(c);
	assert_string_equal(err.msg.ptr, msg);
	assert_false(fs_is_file(fx->path));
	err_release(&err);
	free(msg);
}

static void open_with_create_makes_an_empty_file(void **state)
{
	const struct fixture *fx = *state;
	struct err err = ERR_INIT;
	struct buf text = BUF_INIT;
	struct conf *c;

	assert_int_equal(conf_open(&c, fx->path, true, &err), 0);
	assert_string_equal(conf_path(c), fx->path);
	assert_true(fs_is_file(fx->path));
	assert_int_equal(fs_read_file(&text, fx->path, 0, &err), 0);
	assert_int_equal(text.len, 0);
	assert_subsections(c, "target", "");
	conf_free(c);
	conf_free(NULL);
	buf_release(&text);
	err_release(&err);
}

static void open_of_broken_syntax_is_a_parse_error(void **state)
{
	const struct fixture *fx = *state;
	char *prefix = xstrfmt("cannot read '%s': ", fx->path);
	struct err err = ERR_INIT;
	struct conf *c;

	assert_int_equal(fs_write_atomic(fx->path, "[target \"x\n", 11, &err),
			 0);
	assert_int_equal(conf_open(&c, fx->path, false, &err), ERR_PARSE);
	assert_null(c);
	assert_true(starts_with(err.msg.ptr, prefix));
	err_release(&err);
	free(prefix);
}

/* ---- reading ---------------------------------------------------------- */

static void get_reads_section_and_subsection_keys(void **state)
{
	const struct fixture *fx = *state;
	struct conf *c = open_text(fx, kernels_conf);

	assert_value(c, "target.default", "6.1");
	assert_value(c, "target.6.1.repo", "/srv/linux.git");
	assert_value(c, "target.6.1.170-3.ref", "debian/6.1.170-3");
	assert_value(c, "target.6.12.100-1~deb12u1.ref",
		     "debian/6.12.100-1_deb12u1");
	/* Section and key names are case-insensitive, subsections not. */
	assert_value(c, "TARGET.6.1.REF", "v6.1");
	conf_free(c);
}

static void get_of_missing_key_is_notfound(void **state)
{
	const struct fixture *fx = *state;
	struct conf *c = open_text(fx, kernels_conf);
	char *msg = xstrfmt("%s: no 'target.6.2.ref'", fx->path);
	struct err err = ERR_INIT;
	char *v;

	assert_int_equal(conf_get(c, "target.6.2.ref", &v, &err),
			 ERR_NOTFOUND);
	assert_null(v);
	assert_string_equal(err.msg.ptr, msg);
	assert_absent(c, "target.6.1.nosuch");
	assert_absent(c, "targets.6.1.ref");
	err_release(&err);
	free(msg);
	conf_free(c);
}

static void get_of_a_multivar_is_its_last_value(void **state)
{
	const struct fixture *fx = *state;
	struct conf *c = open_text(fx, kernels_conf);

	assert_value(c, "target.6.1.170-3.patch", "c.patch");
	conf_free(c);
}

static void get_or_falls_back_to_the_default(void **state)
{
	const struct fixture *fx = *state;
	struct conf *c = open_text(fx, kernels_conf);
	char *v;

	v = conf_get_or(c, "target.default", "none");
	assert_string_equal(v, "6.1");
	free(v);
	v = conf_get_or(c, "target.missing", "none");
	assert_string_equal(v, "none");
	free(v);
	assert_null(conf_get_or(c, "target.missing", NULL));
	conf_free(c);
}

static void get_all_keeps_file_order_across_blocks(void **state)
{
	const struct fixture *fx = *state;
	struct conf *c = open_text(fx, kernels_conf);

	assert_all(c, "target.6.1.170-3.patch", "a.patch|b.patch|c.patch");
	assert_all(c, "target.6.1.ref", "v6.1");
	conf_free(c);
}

static void get_all_of_missing_key_is_empty(void **state)
{
	const struct fixture *fx = *state;
	struct conf *c = open_text(fx, kernels_conf);
	struct err err = ERR_INIT;
	char **vals;
	size_t nr = 5;

	assert_int_equal(conf_get_all(c, "target.6.1.patch", &vals, &nr, &err),
			 0);
	assert_int_equal(nr, 0);
	conf_free_list(vals, nr);
	err_release(&err);
	conf_free(c);
}

static void value_without_equals_is_empty_string(void **state)
{
	const struct fixture *fx = *state;
	struct conf *c = open_text(fx, "[series]\n\tflag\n");

	assert_value(c, "series.flag", "");
	conf_free(c);
}

/* ---- writing ---------------------------------------------------------- */

static void set_creates_keys_that_persist(void **state)
{
	const struct fixture *fx = *state;
	struct err err = ERR_INIT;
	struct buf text = BUF_INIT;
	struct conf *c;

	assert_int_equal(conf_open(&c, fx->path, true, &err), 0);
	assert_int_equal(conf_set(c, "series.name", "btrfs", &err), 0);
	assert_int_equal(conf_set(c, "version.v2.kind", "mbox", &err), 0);
	assert_int_equal(conf_set(c, "version.6.1.170-3.kind", "apt", &err), 0);
	/* The same handle sees the new values at once. */
	assert_value(c, "version.v2.kind", "mbox");
	c = reopen(c);
	assert_value(c, "series.name", "btrfs");
	assert_value(c, "version.v2.kind", "mbox");
	assert_value(c, "version.6.1.170-3.kind", "apt");
	/* Written in git-config syntax, readable by git itself. */
	assert_int_equal(fs_read_file(&text, fx->path, 0, &err), 0);
	assert_non_null(strstr(text.ptr, "[version \"6.1.170-3\"]"));
	assert_non_null(strstr(text.ptr, "[version \"v2\"]"));
	buf_release(&text);
	err_release(&err);
	conf_free(c);
}

static void set_replaces_a_single_value(void **state)
{
	const struct fixture *fx = *state;
	struct conf *c = open_text(fx, kernels_conf);
	struct err err = ERR_INIT;

	assert_int_equal(conf_set(c, "target.6.1.ref", "v6.1.1", &err), 0);
	c = reopen(c);
	assert_all(c, "target.6.1.ref", "v6.1.1");
	/* Neighbours are untouched. */
	assert_value(c, "target.6.1.repo", "/srv/linux.git");
	assert_all(c, "target.6.1.170-3.patch", "a.patch|b.patch|c.patch");
	err_release(&err);
	conf_free(c);
}

static void set_round_trips_awkward_values(void **state)
{
	const struct fixture *fx = *state;
	static const char *const values[] = {
		"apt:linux=6.1.170-3",
		"a # not a comment ; nor this",
		"  leading and trailing spaces  ",
		"quote \" and backslash \\ inside",
		"two\nlines",
		"tab\there",
		"[PATCH v3 0/7] btrfs: f\xc3\xbcr the cover",
		"",
	};
	struct err err = ERR_INIT;
	struct conf *c;

	assert_int_equal(conf_open(&c, fx->path, true, &err), 0);
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		char *key = xstrfmt("version.v1.k%zu", i);

		assert_int_equal(conf_set(c, key, values[i], &err), 0);
		free(key);
	}
	c = reopen(c);
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		char *key = xstrfmt("version.v1.k%zu", i);

		assert_value(c, key, values[i]);
		free(key);
	}
	err_release(&err);
	conf_free(c);
}

/*
 * A new section appended in one write reads back as conf_set would have
 * written it: quotes, backslashes, comment characters, blanks at either
 * end, newlines and tabs; the file's earlier text stays as it was.
 */
static void append_section_round_trips_awkward_values(void **state)
{
	const struct fixture *fx = *state;
	static const char *const values[] = {
		"apt:linux=6.1.170-3",
		"a # not a comment ; nor this",
		"  leading and trailing spaces  ",
		" ",
		"quote \" and backslash \\ inside",
		"ends with a backslash \\",
		"\"quoted\"",
		"two\nlines",
		"tab\there",
		"[PATCH v3 0/7] btrfs: f\xc3\xbcr the cover",
		"",
	};
	enum { NR = sizeof(values) / sizeof(values[0]) };
	struct conf_pair pairs[NR];
	struct err err = ERR_INIT;
	struct conf *c = open_text(fx, "[series]\n\tname = s"); /* no '\n' */
	char *keys[NR];

	for (size_t i = 0; i < NR; i++) {
		keys[i] = xstrfmt("k%zu", i);
		pairs[i] = (struct conf_pair){ keys[i], values[i] };
	}
	assert_int_equal(conf_append_section(c, "version", "6.1.170-3", pairs,
					     NR, &err),
			 0);
	/* read at once, and again from the file */
	for (int round = 0; round < 2; round++) {
		for (size_t i = 0; i < NR; i++) {
			char *key = xstrfmt("version.6.1.170-3.k%zu", i);

			assert_value(c, key, values[i]);
			free(key);
		}
		assert_value(c, "series.name", "s");
		c = reopen(c);
	}
	for (size_t i = 0; i < NR; i++)
		free(keys[i]);
	err_release(&err);
	conf_free(c);
}

/* A section that is there already is not appended twice. */
static void append_of_an_existing_section_is_refused(void **state)
{
	const struct fixture *fx = *state;
	struct conf *c = open_text(fx, "[version \"v1\"]\n\tkind = git\n");
	const struct conf_pair p = { "kind", "mbox" };
	struct err err = ERR_INIT;

	assert_int_equal(conf_append_section(c, "version", "v1", &p, 1, &err),
			 ERR_EXISTS);
	c = reopen(c);
	assert_value(c, "version.v1.kind", "git");
	err_release(&err);
	conf_free(c);
}

/* Appending costs the section, not the file: the bytes written grow by
 * about the section's size whatever the file holds. */
static void append_writes_the_section_alone(void **state)
{
	const struct fixture *fx = *state;
	struct buf big = BUF_INIT;
	struct err err = ERR_INIT;
	const struct conf_pair p = { "kind", "mbox" };
	struct conf *c;
	size_t before;

	for (int i = 0; i < 2000; i++)
		buf_addf(&big, "[version \"v%d\"]\n\tkind = git\n", i);
	c = open_text(fx, big.ptr);
	before = conf_bytes_written();
	assert_int_equal(conf_append_section(c, "version", "new", &p, 1, &err),
			 0);
	assert_true(conf_bytes_written() - before < 64);
	assert_value(c, "version.new.kind", "mbox");
	assert_value(c, "version.v1999.kind", "git");
	buf_release(&big);
	err_release(&err);
	conf_free(c);
}

static void set_of_invalid_key_is_an_error(void **state)
{
	const struct fixture *fx = *state;
	struct conf *c = open_text(fx, "");
	struct err err = ERR_INIT;

	assert_int_equal(conf_set(c, "nosection", "x", &err), ERR_IO);
	assert_true(starts_with(err.msg.ptr, "cannot write 'nosection' in '"));
	err_release(&err);
	conf_free(c);
}

static void set_all_replaces_a_multivar(void **state)
{
	const struct fixture *fx = *state;
	struct conf *c = open_text(fx, kernels_conf);
	char *vals[] = { "z.patch", "a.patch", "y.patch", "a.patch" };
	struct err err = ERR_INIT;

	assert_int_equal(conf_set_all(c, "target.6.1.170-3.patch", vals, 4,
				      &err),
			 0);
	assert_all(c, "target.6.1.170-3.patch",
		   "z.patch|a.patch|y.patch|a.patch");
	c = reopen(c);
	assert_all(c, "target.6.1.170-3.patch",
		   "z.patch|a.patch|y.patch|a.patch");
	assert_value(c, "target.6.1.170-3.ref", "debian/6.1.170-3");
	assert_value(c, "target.6.1.170-3.1.ref", "debian/6.1.170-3.1");
	err_release(&err);
	conf_free(c);
}

static void set_all_creates_a_new_multivar(void **state)
{
	const struct fixture *fx = *state;
	struct conf *c = open_text(fx, "");
	char *vals[] = { "<1@x>", "<2@x>", "<3@x>" };
	struct err err = ERR_INIT;

	assert_int_equal(conf_set_all(c, "version.v3.msgid", vals, 3, &err), 0);
	c = reopen(c);
	assert_all(c, "version.v3.msgid", "<1@x>|<2@x>|<3@x>");
	err_release(&err);
	conf_free(c);
}

static void set_all_with_no_values_removes_the_key(void **state)
{
	const struct fixture *fx = *state;
	struct conf *c = open_text(fx, kernels_conf);
	struct err err = ERR_INIT;

	assert_int_equal(conf_set_all(c, "target.6.1.170-3.patch", NULL, 0,
				      &err),
			 0);
	c = reopen(c);
	assert_all(c, "target.6.1.170-3.patch", "");
	assert_value(c, "target.6.1.170-3.ref", "debian/6.1.170-3");
	/* Removing what is not there is fine too. */
	assert_int_equal(conf_set_all(c, "target.9.patch", NULL, 0, &err), 0);
	err_release(&err);
	conf_free(c);
}

/*
 * Fixed: src/conf.c:136 conf_set_all appends each value with
 * git_config_set_multivar(key, "^$", value); "^$" does match an empty value
 * written just before, so a second empty value replaces the first instead
 * of being appended: set_all {"a", "", ""} stores "a|" (2 values, not 3).
 */
static void set_all_keeps_repeated_empty_values(void **state)
{
	const struct fixture *fx = *state;
	char *vals[] = { "a", "", "" };
	struct err err = ERR_INIT;
	struct conf *c;

	/* fixed: see the comment above */
	c = open_text(fx, "");
	assert_int_equal(conf_set_all(c, "version.v1.msgid", vals, 3, &err), 0);
	assert_all(c, "version.v1.msgid", "a||");
	err_release(&err);
	conf_free(c);
}

/* ---- sections --------------------------------------------------------- */

static void remove_section_with_dots_in_its_name(void **state)
{
	const struct fixture *fx = *state;
	struct conf *c = open_text(fx, kernels_conf);
	struct err err = ERR_INIT;

	assert_int_equal(conf_remove_section(c, "target", "6.1.170-3", &err),
			 0);
	c = reopen(c);
	assert_absent(c, "target.6.1.170-3.ref");
	assert_all(c, "target.6.1.170-3.patch", "");
	/* Subsections that share its prefix, or that it extends, stay. */
	assert_value(c, "target.6.1.ref", "v6.1");
	assert_value(c, "target.6.1.170-3.1.ref", "debian/6.1.170-3.1");
	assert_value(c, "target.default", "6.1");
	assert_subsections(c, "target", "6.1|6.12.100-1~deb12u1|6.1.170-3.1");
	err_release(&err);
	conf_free(c);
}

static void remove_section_with_tilde_in_its_name(void **state)
{
	const struct fixture *fx = *state;
	struct conf *c = open_text(fx, kernels_conf);
	struct err err = ERR_INIT;

	assert_int_equal(conf_remove_section(c, "target", "6.12.100-1~deb12u1",
					     &err),
			 0);
	c = reopen(c);
	assert_absent(c, "target.6.12.100-1~deb12u1.ref");
	assert_subsections(c, "target", "6.1|6.1.170-3|6.1.170-3.1");
	err_release(&err);
	conf_free(c);
}

static void remove_section_is_exact_about_the_subsection(void **state)
{
	const struct fixture *fx = *state;
	struct conf *c = open_text(fx, kernels_conf);
	struct err err = ERR_INIT;

	/* "6.1" must not take "6.1.170-3" or "6.1.170-3.1" with it. */
	assert_int_equal(conf_remove_section(c, "target", "6.1", &err), 0);
	assert_absent(c, "target.6.1.ref");
	assert_absent(c, "target.6.1.repo");
	assert_value(c, "target.6.1.170-3.ref", "debian/6.1.170-3");
	assert_value(c, "target.6.1.170-3.1.ref", "debian/6.1.170-3.1");
	/* A section named like it with a suffix is another section. */
	assert_value(c, "targets.not-a-target.ref", "x");
	err_release(&err);
	conf_free(c);
}

static void remove_section_matches_section_name_in_any_case(void **state)
{
	const struct fixture *fx = *state;
	struct conf *c = open_text(fx, "[Version \"V2\"]\n\tkind = mbox\n"
				       "[version \"v2\"]\n\tkind = git\n");
	struct err err = ERR_INIT;

	assert_int_equal(conf_remove_section(c, "VERSION", "V2", &err), 0);
	assert_absent(c, "version.V2.kind");
	/* Subsection names are case-sensitive. */
	assert_value(c, "version.v2.kind", "git");
	err_release(&err);
	conf_free(c);
}

static void remove_absent_section_is_fine(void **state)
{
	const struct fixture *fx = *state;
	struct conf *c = open_text(fx, kernels_conf);
	struct err err = ERR_INIT;

	assert_int_equal(conf_remove_section(c, "target", "7.0", &err), 0);
	assert_int_equal(conf_remove_section(c, "nosuch", "x", &err), 0);
	assert_int_equal(err.code, 0);
	assert_subsections(c, "target",
			   "6.1|6.1.170-3|6.12.100-1~deb12u1|6.1.170-3.1");
	err_release(&err);
	conf_free(c);
}

static void set_after_remove_section_starts_afresh(void **state)
{
	const struct fixture *fx = *state;
	struct conf *c = open_text(fx, kernels_conf);
	struct err err = ERR_INIT;

	assert_int_equal(conf_remove_section(c, "target", "6.1.170-3", &err),
			 0);
	assert_int_equal(conf_set(c, "target.6.1.170-3.ref", "new", &err), 0);
	c = reopen(c);
	assert_value(c, "target.6.1.170-3.ref", "new");
	assert_all(c, "target.6.1.170-3.patch", "");
	err_release(&err);
	conf_free(c);
}

static void subsections_in_file_order_without_repeats(void **state)
{
	const struct fixture *fx = *state;
	struct conf *c = open_text(fx, kernels_conf);

	/* "target.default" has no subsection; "targets" is another section. */
	assert_subsections(c, "target",
			   "6.1|6.1.170-3|6.12.100-1~deb12u1|6.1.170-3.1");
	assert_subsections(c, "TARGET",
			   "6.1|6.1.170-3|6.12.100-1~deb12u1|6.1.170-3.1");
	assert_subsections(c, "targets", "not-a-target");
	assert_subsections(c, "version", "");
	conf_free(c);
}

/* conf_each's calls, one "sub|key=value" a line ("-" for no subsection). */
static int collect(const char *sub, const char *key, const char *value,
		   void *data)
{
	buf_addf(data, "%s|%s=%s\n", sub ? sub : "-", key, value);
	return 0;
}

static int stop_at_ref(const char *sub, const char *key, const char *value,
		       void *data)
{
	buf_addf(data, "%s\n", key);
	return strcmp(key, "ref") ? 0 : 7;
}

static void each_walks_a_section_in_file_order(void **state)
{
	const struct fixture *fx = *state;
	struct conf *c = open_text(fx, "[target]\n"
				       "\tDefault = 6.1\n"
				       "[target \"6.1.170-3\"]\n"
				       "\tRef = debian/6.1.170-3\n"
				       "\tpatch\n"
				       "[targets \"x\"]\n"
				       "\tref = no\n"
				       "[TARGET \"6.1.170-3\"]\n"
				       "\tpatch = b.patch\n");
	struct err err = ERR_INIT;
	struct buf b = BUF_INIT;

	/* keys folded to lower case, subsections kept, dots and all */
	assert_int_equal(conf_each(c, "target", collect, &b, &err), 0);
	assert_string_equal(b.ptr, "-|default=6.1\n"
				   "6.1.170-3|ref=debian/6.1.170-3\n"
				   "6.1.170-3|patch=\n"
				   "6.1.170-3|patch=b.patch\n");
	/* what the function returns stops the walk */
	buf_reset(&b);
	assert_int_equal(conf_each(c, "target", stop_at_ref, &b, &err), 7);
	assert_string_equal(b.ptr, "default\nref\n");
	buf_release(&b);
	err_release(&err);
	conf_free(c);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(open_missing_file_without_create_is_notfound),
		T(open_with_create_makes_an_empty_file),
		T(open_of_broken_syntax_is_a_parse_error),
		T(get_reads_section_and_subsection_keys),
		T(get_of_missing_key_is_notfound),
		T(get_of_a_multivar_is_its_last_value),
		T(get_or_falls_back_to_the_default),
		T(get_all_keeps_file_order_across_blocks),
		T(get_all_of_missing_key_is_empty),
		T(value_without_equals_is_empty_string),
		T(set_creates_keys_that_persist),
		T(set_replaces_a_single_value),
		T(set_round_trips_awkward_values),
		T(append_section_round_trips_awkward_values),
		T(append_of_an_existing_section_is_refused),
		T(append_writes_the_section_alone),
		T(set_of_invalid_key_is_an_error),
		T(set_all_replaces_a_multivar),
		T(set_all_creates_a_new_multivar),
		T(set_all_with_no_values_removes_the_key),
		T(set_all_keeps_repeated_empty_values),
		T(remove_section_with_dots_in_its_name),
		T(remove_section_with_tilde_in_its_name),
		T(remove_section_is_exact_about_the_subsection),
		T(remove_section_matches_section_name_in_any_case),
		T(remove_absent_section_is_fine),
		T(set_after_remove_section_starts_afresh),
		T(subsections_in_file_order_without_repeats),
		T(each_walks_a_section_in_file_order),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
