/*
 * blame: result lines tracked back through a carried series' commits to
 * the patch and hunk that last changed them, or to their base line; and
 * the finding a diagnostic on an untouched line is tied to.
 */
#include "unit.h"

#include "blame.h"

struct fixture {
	char *dir;
	struct tree_repo *repo;
	struct tree_oid base;
	struct series_version v;
	struct carry_result cr;
};

/* The group's state is HOME for git and libgit2, a folder of its own. */
static int group_setup(void **state)
{
	return unit_git_setup(state, "blame", "Base Author", "base@example.org",
			      "Base Author", "base@example.org");
}

#define GIT "git -c init.defaultBranch=main "

/* 0001: renames old_helper in api.h (line 3) and inserts two lines after
 * x02 in x.c; 0002: two hunks in x.c, the second changes x15. */
static const char p1[] =
	"From: Ann Author <ann@example.org>\n"
	"Subject: [PATCH 1/2] api: rename old_helper\n"
	"\n"
	"---\n"
	"diff --git a/fs/btrfs/api.h b/fs/btrfs/api.h\n"
	"--- a/fs/btrfs/api.h\n"
	"+++ b/fs/btrfs/api.h\n"
	"@@ -1,5 +1,5 @@\n"
	" h01\n h02\n"
	"-int old_helper(int a, int b);\n"
	"+int new_helper(int a);\n"
	" h04\n h05\n"
	"diff --git a/fs/btrfs/x.c b/fs/btrfs/x.c\n"
	"--- a/fs/btrfs/x.c\n"
	"+++ b/fs/btrfs/x.c\n"
	"@@ -1,4 +1,6 @@\n"
	" x01\n x02\n"
	"+added_a\n"
	"+added_b\n"
	" x03\n x04\n";

static const char p2[] =
	"From: Ben Builder <ben@example.org>\n"
	"Subject: [PATCH 2/2] x: two changes\n"
	"\n"
	"---\n"
	"diff --git a/fs/btrfs/x.c b/fs/btrfs/x.c\n"
	"--- a/fs/btrfs/x.c\n"
	"+++ b/fs/btrfs/x.c\n"
	"@@ -4,7 +4,7 @@\n"
	" added_b\n x03\n x04\n"
	"-x05\n"
	"+x05 changed\n"
	" x06\n x07\n x08\n"
	"@@ -14,7 +14,7 @@\n"
	" x12\n x13\n x14\n"
	"-x15\n"
	"+x15 changed\n"
	" x16\n x17\n x18\n";

static int setup(void **state)
{
	static const char script[] =
		GIT "init -q repo && cd repo && mkdir -p fs/btrfs && "
		"seq -f 'x%02g' 1 20 > fs/btrfs/x.c && "
		"printf 'h01\\nh02\\nint old_helper(int a, int b);\\nh04\\nh05\\n' "
		"> fs/btrfs/api.h && "
		"seq -f 'y%02g' 1 5 > fs/btrfs/y.c && "
		GIT "add . && " GIT "commit -qm base && " GIT "tag base";
	static const char *const texts[] = { p1, p2 };
	static const struct apply_opts apply = APPLY_OPTS_INIT;
	struct fixture *fx = xcalloc(1, sizeof(*fx));
	struct carry_opts co;
	struct err err = ERR_INIT;
	char *path;

	fx->dir = xstrfmt("%s/kcarry-test-blame-XXXXXX", unit_tmpdir());
	if (!mkdtemp(fx->dir) || unit_run("cd '%s' && %s", fx->dir, script))
		return -1;
	path = fs_join(fx->dir, "repo");
	memset(&co, 0, sizeof(co));
	co.apply = apply;
	series_version_init(&fx->v, "s", "v1");
	for (size_t i = 0; i < 2; i++) {
		struct patch p;
		struct buf b = BUF_INIT;
		patch_init(&p);
		if (patch_parse(&p, texts[i], strlen(texts[i]), NULL, &err) < 0)
			return -1;
		buf_adds(&b, texts[i]);
		series_version_add(&fx->v, &p, &b, "test");
		patch_release(&p);
		buf_release(&b);
	}
	if (tree_open(&fx->repo, path, &err) < 0 ||
	    tree_resolve(&fx->base, fx->repo, "base", &err) < 0 ||
	    carry_series(&fx->cr, fx->repo, &fx->base, &fx->v, "t", &co,
			 &err) < 0 ||
	    fx->cr.nr_failed) {
		fprintf(stderr, "%s\n", err.msg.ptr);
		return -1;
	}
	free(path);
	err_release(&err);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	struct err err = ERR_INIT;

	carry_result_release(&fx->cr);
	series_version_release(&fx->v);
	tree_close(fx->repo);
	fs_remove_tree(fx->dir, &err);
	err_release(&err);
	free(fx->dir);
	free(fx);
	return 0;
}

static void at(struct blame_line *bl, struct blame *b, const char *path,
	       unsigned long line)
{
	struct err err = ERR_INIT;
	if (blame_line(bl, b, path, line, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	err_release(&err);
}

static void line_changed_by_the_second_hunk_is_pinned_on_it(void **state)
{
	struct fixture *fx = *state;
	struct blame b;
	struct blame_line bl;

	blame_init(&b, fx->repo, &fx->cr, 0);
	at(&bl, &b, "fs/btrfs/x.c", 17); /* x15 changed, two lines down */
	assert_int_equal(bl.patch, 2);
	assert_int_equal(bl.hunk, 2);
	blame_line_release(&bl);
	at(&bl, &b, "fs/btrfs/x.c", 7);
	assert_int_equal(bl.patch, 2);
	assert_int_equal(bl.hunk, 1);
	blame_line_release(&bl);
	blame_release(&b);
}

static void untouched_line_maps_to_its_base_line(void **state)
{
	struct fixture *fx = *state;
	struct blame b;
	struct blame_line bl;

	blame_init(&b, fx->repo, &fx->cr, 0);
	at(&bl, &b, "fs/btrfs/x.c", 20); /* x18 */
	assert_int_equal(bl.patch, 0);
	assert_int_equal(bl.base_line, 18);
	assert_string_equal(bl.base_path, "fs/btrfs/x.c");
	blame_line_release(&bl);
	at(&bl, &b, "fs/btrfs/x.c", 2); /* above every change */
	assert_int_equal(bl.patch, 0);
	assert_int_equal(bl.base_line, 2);
	blame_line_release(&bl);
	at(&bl, &b, "fs/btrfs/y.c", 3); /* a file no patch touches */
	assert_int_equal(bl.patch, 0);
	assert_int_equal(bl.base_line, 3);
	blame_line_release(&bl);
	blame_release(&b);
}

static void added_line_is_the_first_patch_s(void **state)
{
	struct fixture *fx = *state;
	struct blame b;
	struct blame_line bl;

	blame_init(&b, fx->repo, &fx->cr, 0);
	at(&bl, &b, "fs/btrfs/x.c", 4); /* added_b */
	assert_int_equal(bl.patch, 1);
	assert_int_equal(bl.hunk, 1);
	assert_int_equal(bl.base_line, 0);
	blame_line_release(&bl);
	blame_release(&b);
}

static void blame_up_to_a_patch_ignores_later_ones(void **state)
{
	struct fixture *fx = *state;
	struct blame b;
	struct blame_line bl;

	blame_init(&b, fx->repo, &fx->cr, 1);
	at(&bl, &b, "fs/btrfs/x.c", 17); /* x15 after 0001 */
	assert_int_equal(bl.patch, 0);
	assert_int_equal(bl.base_line, 15);
	blame_line_release(&bl);
	blame_release(&b);
}

static void removed_identifier_names_the_patch(void **state)
{
	struct fixture *fx = *state;
	struct blame b;
	size_t *ps;

	blame_init(&b, fx->repo, &fx->cr, 0);
	assert_int_equal(blame_removed_identifier(&b, "old_helper"), 1);
	assert_int_equal(blame_removed_identifier(&b, "new_helper"), 0);
	/* "a" is on both sides: not removed */
	assert_int_equal(blame_removed_identifier(&b, "a"), 0);
	assert_int_equal(blame_removed_identifier(&b, "b"), 1);
	assert_int_equal(blame_patches_touching(&ps, &b, "fs/btrfs/x.c"), 2);
	assert_int_equal(ps[0], 1);
	assert_int_equal(ps[1], 2);
	free(ps);
	assert_int_equal(blame_patches_touching(&ps, &b, "fs/btrfs/y.c"), 0);
	free(ps);
	blame_release(&b);
}

static void diag(struct diag *d, const char *path, unsigned long line,
		 const char *msg)
{
	memset(d, 0, sizeof(*d));
	d->path = (char *)path;
	d->line = line;
	d->sev = DIAG_ERROR;
	d->message = (char *)msg;
	buf_init(&d->text, 0);
}

static void attribute(struct blame_attribution *a, struct fixture *fx,
		      const struct diag *d, const struct audit_result *au,
		      struct buf *text)
{
	struct blame b;
	struct err err = ERR_INIT;

	blame_init(&b, fx->repo, &fx->cr, 0);
	if (blame_attribute(a, &b, d, au, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	buf_reset(text);
	blame_describe(text, a);
	blame_release(&b);
	err_release(&err);
}

static void untouched_caller_is_tied_to_the_audit_finding(void **state)
{
	struct fixture *fx = *state;
	struct audit_site site = { "fs/btrfs/y.c", 3, "f", "old_helper",
				   WATCH_REF_CALL, NULL, 3 };
	struct audit_hunk ah = { 0, 0, "fs/btrfs/api.h", true, NULL };
	struct audit_patch ap[2] = { { true, false, &ah, 1 },
				     { false, false, NULL, 0 } };
	struct audit_result au;
	struct blame_attribution a;
	struct buf t = BUF_INIT;
	struct diag d;

	memset(&au, 0, sizeof(au));
	au.unconverted = &site;
	au.nr_unconverted = 1;
	au.patches = ap;
	au.nr_patches = 2;
	diag(&d, "fs/btrfs/y.c", 4, "too many arguments to function 'old_helper'");
	attribute(&a, fx, &d, &au, &t);
	assert_int_equal(a.cause, BLAME_CALLER);
	assert_int_equal(a.patch, 1);
	assert_string_equal(t.ptr, "<- 0001 | unconverted caller of old_helper "
				   "changed by 0001");
	blame_attribution_release(&a);
	/* a line far from the site is not that caller: the identifier */
	diag(&d, "fs/btrfs/y.c", 1, "implicit declaration of function 'old_helper'");
	attribute(&a, fx, &d, &au, &t);
	assert_int_equal(a.cause, BLAME_REMOVED);
	assert_string_equal(t.ptr, "<- 0001 | 'old_helper' removed or renamed "
				   "by 0001");
	blame_attribution_release(&a);
	buf_release(&t);
}

static void note_at_a_changed_line_names_the_declaration(void **state)
{
	struct fixture *fx = *state;
	struct blame_attribution a;
	struct diag_note note = { "fs/btrfs/api.h", 3, "declared here" };
	struct buf t = BUF_INIT;
	struct diag d;

	diag(&d, "fs/btrfs/y.c", 2, "too few arguments to function 'g'");
	d.notes = &note;
	d.nr_notes = 1;
	attribute(&a, fx, &d, NULL, &t);
	assert_int_equal(a.cause, BLAME_DECLARATION);
	assert_string_equal(t.ptr, "<- 0001 | declaration at fs/btrfs/api.h:3 "
				   "changed by 0001 (hunk 1)");
	blame_attribution_release(&a);
	buf_release(&t);
}

static void nothing_explains_it_a_pre_existing_line(void **state)
{
	struct fixture *fx = *state;
	struct blame_attribution a;
	struct buf t = BUF_INIT;
	struct diag d;

	diag(&d, "fs/btrfs/x.c", 20, "'q' undeclared");
	attribute(&a, fx, &d, NULL, &t);
	assert_int_equal(a.cause, BLAME_PREEXISTING);
	assert_int_equal(a.patch, 0);
	assert_int_equal(a.base_line, 18);
	assert_string_equal(t.ptr, "<- pre-existing line, broken by the series "
				   "(file touched by 0001, 0002)");
	blame_attribution_release(&a);
	diag(&d, "fs/btrfs/x.c", 17, "'q' undeclared");
	attribute(&a, fx, &d, NULL, &t);
	assert_string_equal(t.ptr, "<- 0002 (hunk 2)");
	blame_attribution_release(&a);
	buf_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			line_changed_by_the_second_hunk_is_pinned_on_it, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			untouched_line_maps_to_its_base_line, setup, teardown),
		cmocka_unit_test_setup_teardown(added_line_is_the_first_patch_s,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			blame_up_to_a_patch_ignores_later_ones, setup, teardown),
		cmocka_unit_test_setup_teardown(
			removed_identifier_names_the_patch, setup, teardown),
		cmocka_unit_test_setup_teardown(
			untouched_caller_is_tied_to_the_audit_finding, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			note_at_a_changed_line_names_the_declaration, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			nothing_explains_it_a_pre_existing_line, setup, teardown),
	};
	return cmocka_run_group_tests(tests, group_setup, unit_git_teardown);
}
