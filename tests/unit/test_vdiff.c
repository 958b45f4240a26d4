#include "unit.h"

#include <stdio.h>

#include <jansson.h>

#include "import.h"
#include "tree.h"
#include "vdiff.h"

/*
 * vdiff: patch-id against git patch-id --stable on real patches (the
 * corpus threads, git format-patch output of renames, mode changes, new,
 * deleted and binary files, and this repository's own history), the text
 * range-diff compares, the assignment (git's choices, quirks included),
 * and the pairing of two versions.
 */

static const char *tmpdir(void)
{
	const char *tmp = getenv("TMPDIR");

	return tmp && *tmp ? tmp : "/tmp";
}

struct fixture {
	char *home; /* HOME for git and libgit2 */
	char *dir;  /* scratch */
};

static int group_setup(void **state)
{
	struct err err = ERR_INIT;
	struct fixture *fx = xcalloc(1, sizeof(*fx));
	int rc;

	fx->home = xstrfmt("%s/kcarry-test-vdiff-home-XXXXXX", tmpdir());
	fx->dir = xstrfmt("%s/kcarry-test-vdiff-XXXXXX", tmpdir());
	if (!mkdtemp(fx->home) || !mkdtemp(fx->dir))
		return -1;
	setenv("HOME", fx->home, 1);
	setenv("XDG_CONFIG_HOME", fx->home, 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	setenv("GIT_AUTHOR_NAME", "Ann Author", 1);
	setenv("GIT_AUTHOR_EMAIL", "ann@example.org", 1);
	setenv("GIT_COMMITTER_NAME", "Cee Committer", 1);
	setenv("GIT_COMMITTER_EMAIL", "cee@example.org", 1);
	rc = tree_global_init(&err);
	err_release(&err);
	*state = fx;
	return rc;
}

static int group_teardown(void **state)
{
	struct fixture *fx = *state;
	struct err err = ERR_INIT;
	int rc = fs_remove_tree(fx->home, &err);

	if (!rc)
		rc = fs_remove_tree(fx->dir, &err);
	tree_global_shutdown();
	err_release(&err);
	free(fx->home);
	free(fx->dir);
	free(fx);
	return rc;
}

static void parse_text(struct patch *p, const char *text, size_t len)
{
	struct err err = ERR_INIT;

	patch_init(p);
	if (patch_parse(p, text, len, NULL, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	err_release(&err);
}

/* git patch-id --stable of a file: the id, or "" when git prints none. */
static char *git_patch_id(const char *path)
{
	return unit_capture("git patch-id --stable <'%s' | cut -d' ' -f1",
			    path);
}

/* Every patch file in dir: our id equals git's; returns the count. */
static size_t compare_dir(const char *dir)
{
	char **names = NULL;
	size_t nr = 0, compared = 0;
	struct err err = ERR_INIT;

	if (fs_list_dir(dir, &names, &nr, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	for (size_t i = 0; i < nr; i++) {
		char *path = fs_join(dir, names[i]), *want;
		struct buf text = BUF_INIT;
		struct patch p;
		char got[41];

		if (!ends_with(names[i], ".patch")) {
			free(path);
			continue;
		}
		if (fs_read_file(&text, path, 0, &err) < 0)
			fail_msg("%s", err.msg.ptr);
		parse_text(&p, text.ptr, text.len);
		vdiff_patch_id(got, &p);
		want = git_patch_id(path);
		if (strcmp(got, want))
			fail_msg("%s: patch-id %s, git says %s", names[i], got,
				 want);
		compared++;
		free(want);
		patch_release(&p);
		buf_release(&text);
		free(path);
	}
	fs_free_list(names, nr);
	err_release(&err);
	return compared;
}

static void
patch_id_equals_git_on_renames_modes_new_deleted_binary(void **state)
{
	const struct fixture *fx = *state;
	char *dir = fs_join(fx->dir, "kinds");

	assert_int_equal(
		unit_run("set -e; git init -q '%s'; cd '%s';"
			 "mkdir -p fs/btrfs; seq 1 60 >fs/btrfs/a.c;"
			 "seq 100 130 >fs/btrfs/gone.c; seq 200 260 "
			 ">fs/btrfs/old.c;"
			 "printf 'x\\001\\000y' >fs/btrfs/blob.bin;"
			 "git add -A; git commit -qm base;"
			 "sed -i 's/^5$/five  with   spaces/; s/^40$/forty/' "
			 "fs/btrfs/a.c;"
			 "printf 'tail' >>fs/btrfs/a.c;"
			 "git commit -qam 'btrfs: two hunks, no newline at the "
			 "end';"
			 "git mv fs/btrfs/old.c fs/btrfs/new.c; chmod +x "
			 "fs/btrfs/new.c;"
			 "sed -i 's/^230$/two-thirty/' fs/btrfs/new.c;"
			 "git commit -qam 'btrfs: rename with a mode change';"
			 "git rm -q fs/btrfs/gone.c; seq 1 3 >fs/btrfs/added.c;"
			 "git add -A; git commit -qm 'btrfs: add one file, "
			 "delete one';"
			 "chmod +x fs/btrfs/a.c; git commit -qam 'btrfs: mode "
			 "only';"
			 "printf 'x\\002\\000z' >fs/btrfs/blob.bin; sed -i 1d "
			 "fs/btrfs/a.c;"
			 "git commit -qam 'btrfs: a binary and a text file';"
			 "git format-patch -q -o patches --root HEAD~5..HEAD;"
			 "git format-patch -q --binary -o patches-binary "
			 "HEAD~1..HEAD",
			 dir, dir),
		0);
	{
		char *p = fs_join(dir, "patches"),
		     *pb = fs_join(dir, "patches-binary");
		assert_int_equal(compare_dir(p), 5);
		assert_int_equal(compare_dir(pb), 1);
		free(p);
		free(pb);
	}
	free(dir);
}

static void patch_id_equals_git_on_the_corpus_threads(void **state)
{
	const struct fixture *fx = *state;
	const char *corpus = unit_corpus();
	static const char *const files[] = {
		"btrfs-add-a-shrinker-for-extent-maps.v1.mbox",
		"btrfs-add-a-shrinker-for-extent-maps.v2.mbox",
		"btrfs-add-a-shrinker-for-extent-maps.v3.mbox",
		"btrfs-workqueue-cleanups.v1.mbox",
		"btrfs-workqueue-cleanups.v2.mbox",
		"btrfs-workqueue-fixes-cleanups.v1.mbox",
	};
	size_t compared = 0;

	if (!corpus) {
		skip();
		return;
	}
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		struct import_set set = { 0 };
		struct import_opts io = { 0 };
		struct err err = ERR_INIT;
		char *path = fs_join(corpus, files[f]);
		char *src[] = { path };

		if (import_sources(&set, src, 1, &io, &err) < 0)
			fail_msg("%s", err.msg.ptr);
		for (size_t c = 0; c < set.nr; c++) {
			const struct series_version *v = &set.items[c].sv;
			for (size_t i = 0; i < v->nr; i++) {
				char *out = xstrfmt(
					     "%s/corpus-%zu-%zu-%zu.patch",
					     fx->dir, f, c, i),
				     *want;
				char got[41];

				if (fs_write_atomic(out, v->items[i].text.ptr,
						    v->items[i].text.len,
						    &err) < 0)
					fail_msg("%s", err.msg.ptr);
				vdiff_patch_id(got, &v->items[i].patch);
				want = git_patch_id(out);
				if (strcmp(got, want))
					fail_msg("%s patch %zu: %s, git %s",
						 files[f], i + 1, got, want);
				compared++;
				free(want);
				free(out);
			}
		}
		import_set_release(&set);
		free(path);
		err_release(&err);
	}
	assert_true(compared >= 11 + 15 + 10 + 2 + 2 + 7);
}

/* The last 25 commits of this repository, when it is a git checkout. */
static void patch_id_equals_git_on_this_repository_history(void **state)
{
	const struct fixture *fx = *state;
	char *dir = fs_join(fx->dir, "history");

	if (unit_run("git rev-parse --verify -q HEAD~25") != 0) {
		skip();
		free(dir);
		return;
	}
	assert_int_equal(unit_run("git format-patch -q -o '%s' HEAD~25..HEAD",
				  dir),
			 0);
	assert_true(compare_dir(dir) >= 20);
	free(dir);
}

static const char p_one[] =
	"From: Ann Author <ann@example.org>\n"
	"Subject: [PATCH] btrfs: change a05\n"
	"\n"
	"Why:\tthe reason\n"
	"\n"
	"Signed-off-by: Ann Author <ann@example.org>\n"
	"---\n"
	"diff --git a/fs/btrfs/b.c b/fs/btrfs/b.c\n"
	"--- a/fs/btrfs/b.c\n"
	"+++ b/fs/btrfs/b.c\n"
	"@@ -1,3 +1,3 @@ int b(void)\n"
	" b01\n-b02\n+b02 changed\n b03\n"
	"diff --git a/fs/btrfs/a.c b/fs/btrfs/a.c\n"
	"--- a/fs/btrfs/a.c\n"
	"+++ b/fs/btrfs/a.c\n"
	"@@ -4,3 +4,3 @@\n"
	" a04\n-a05\n+a05 changed\n a06\n";

static void text_is_what_range_diff_compares(void **state)
{
	struct patch p;
	struct vdiff_text t;

	parse_text(&p, p_one, strlen(p_one));
	vdiff_text_init(&t);
	vdiff_text_build(&t, &p);
	assert_string_equal(t.text.ptr,
			    " ## Metadata ##\n"
			    "Author: Ann Author <ann@example.org>\n"
			    "\n"
			    " ## Commit message ##\n"
			    "    btrfs: change a05\n"
			    "\n"
			    "    Why:    the reason\n"
			    "\n"
			    "    Signed-off-by: Ann Author <ann@example.org>\n"
			    "\n"
			    " ## fs/btrfs/a.c ##\n"
			    "@@\n"
			    " a04\n-a05\n+a05 changed\n a06\n"
			    "\n"
			    " ## fs/btrfs/b.c ##\n"
			    "@@ fs/btrfs/b.c: int b(void)\n"
			    " b01\n-b02\n+b02 changed\n b03\n");
	assert_string_equal(t.text.ptr + t.diff_offset,
			    " ## fs/btrfs/a.c ##\n@@\n a04\n-a05\n"
			    "+a05 changed\n a06\n\n ## fs/btrfs/b.c ##\n"
			    "@@ fs/btrfs/b.c: int b(void)\n b01\n-b02\n"
			    "+b02 changed\n b03\n");
	/* every line after the message but the blank separators */
	assert_int_equal(t.diffsize, 12);
	vdiff_text_release(&t);
	patch_release(&p);
}

static void patch_id_ignores_white_space_and_line_numbers(void **state)
{
	static const char moved[] =
		"Subject: [PATCH] another subject\n"
		"\n"
		"---\n"
		"diff --git a/fs/btrfs/b.c b/fs/btrfs/b.c\n"
		"--- a/fs/btrfs/b.c\n"
		"+++ b/fs/btrfs/b.c\n"
		"@@ -101,3 +101,3 @@ int b(void)\n"
		" b01\n-b02\n+b02   changed\n b03\n"
		"diff --git a/fs/btrfs/a.c b/fs/btrfs/a.c\n"
		"--- a/fs/btrfs/a.c\n"
		"+++ b/fs/btrfs/a.c\n"
		"@@ -40,3 +40,3 @@ other\n"
		" a04\n-a05\n+a05\tchanged\n a06\n";
	struct patch a, b;
	char ia[41], ib[41];

	parse_text(&a, p_one, strlen(p_one));
	parse_text(&b, moved, strlen(moved));
	vdiff_patch_id(ia, &a);
	vdiff_patch_id(ib, &b);
	assert_int_equal(strlen(ia), 40);
	/* --stable: the order of the files does not matter either */
	assert_string_equal(ia, ib);
	patch_release(&a);
	patch_release(&b);
}

static void diffsize_counts_hunks_and_their_lines(void **state)
{
	struct err err = ERR_INIT;
	int n = -1;
	const char *a = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n";
	const char *b = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n11\n12\n13\n14\n";

	/* two hunks: 3 context, 2 changed, 3 context; 3 context, 1 gone */
	assert_int_equal(vdiff_diffsize(&n, span_from(a), span_from(b), &err),
			 0);
	assert_int_equal(n, 2 + 8 + 4);
	assert_int_equal(vdiff_diffsize(&n, span_from(a), span_from(a), &err),
			 0);
	assert_int_equal(n, 0);
	err_release(&err);
}

/* git's compute_assignment on these matrices (columns: old patches, then
 * one dummy per new patch; rows: new patches, then dummies). */
static void assignment_takes_gits_choices(void **state)
{
	/* plain: the minimum, a permutation */
	static const int c1[] = { 5, 1, 9, 2, 7, 3, 8, 4, 6 };
	/* git ends a path found at once at the last column it scanned:
	 * old 0 stays unpaired although pairing it with new 1 costs 0 */
	static const int c2[] = { 9, 5, 1, 10, 10, 0, 18, 19, 11, 11, 8, 11, 9,
				  0, 0, 8, 11, 9, 0, 0, 8, 11, 9, 0, 0 };
	static const int c3[] = { 0, 0, 9, 9, 3, 3, 5, 0,
				  3, 3, 5, 0, 3, 3, 5, 0 };
	int col[5], row[5];

	vdiff_assign(3, c1, col, row);
	assert_int_equal(col[0], 1);
	assert_int_equal(col[1], 0);
	assert_int_equal(col[2], 2);
	vdiff_assign(5, c2, col, row);
	assert_int_equal(col[0], 4);
	assert_int_equal(col[1], -1);
	assert_int_equal(col[2], 0);
	assert_int_equal(col[3], 3);
	assert_int_equal(col[4], 2);
	vdiff_assign(4, c3, col, row);
	assert_int_equal(col[0], -1);
	assert_int_equal(col[1], 3);
	assert_int_equal(col[2], 2);
	assert_int_equal(col[3], 1);
}

static int best_sum;

static void brute(int n, const int *cost, int c, bool *used, int sum)
{
	if (c == n) {
		if (sum < best_sum)
			best_sum = sum;
		return;
	}
	for (int r = 0; r < n; r++)
		if (!used[r]) {
			used[r] = true;
			brute(n, cost, c + 1, used, sum + cost[c + n * r]);
			used[r] = false;
		}
}

static void assignment_that_is_a_permutation_is_minimal(void **state)
{
	unsigned seed = 12345;
	int checked = 0;

	for (int t = 0; t < 3000; t++) {
		int n = 2 + (int)((seed = seed * 1103515245 + 12345) >> 16) % 6;
		int cost[64], col[8], row[8], sum = 0;
		bool seen[8] = { false }, used[8] = { false }, perm = true;

		for (int k = 0; k < n * n; k++)
			cost[k] = (int)((seed = seed * 1103515245 + 12345) >>
					16) %
				  10;
		vdiff_assign(n, cost, col, row);
		for (int c = 0; c < n; c++) {
			if (col[c] < 0 || seen[col[c]]) {
				perm = false;
				break;
			}
			seen[col[c]] = true;
			sum += cost[c + n * col[c]];
		}
		if (!perm)
			continue;
		best_sum = 1 << 30;
		brute(n, cost, 0, used, 0);
		assert_int_equal(sum, best_sum);
		checked++;
	}
	assert_true(checked > 2500);
}

/* ---- pairing ------------------------------------------------------------ */

static char *patch_text(const char *subject, const char *body,
			const char *file, const char *lines)
{
	return xstrfmt("From: Ann Author <ann@example.org>\n"
		       "Subject: [PATCH] %s\n\n%s---\n"
		       "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n"
		       "%s",
		       subject, body, file, file, file, file, lines);
}

static void add(struct series_version *v, char *text)
{
	struct buf b = BUF_INIT;
	struct patch p;

	parse_text(&p, text, strlen(text));
	buf_adds(&b, text);
	series_version_add(v, &p, &b, "test");
	patch_release(&p);
	buf_release(&b);
	free(text);
}

static const char h_a[] =
	"@@ -4,7 +4,7 @@\n a04\n a05\n a06\n-a07\n+a07 x\n a08\n a09\n a10\n";
static const char h_b[] =
	"@@ -4,7 +4,7 @@\n b04\n b05\n b06\n-b07\n+b07 x\n b08\n b09\n b10\n";
static const char h_b2[] = "@@ -4,7 +4,8 @@\n b04\n b05\n b06\n-b07\n+b07 "
			   "x\n+b07 y\n b08\n b09\n b10\n";
static const char h_c[] =
	"@@ -4,7 +4,7 @@\n c04\n c05\n c06\n-c07\n+c07 x\n c08\n c09\n c10\n";
static const char h_d[] =
	"@@ -4,7 +4,7 @@\n d04\n d05\n d06\n-d07\n+d07 x\n d08\n d09\n d10\n";
static const char h_d2[] =
	"@@ -14,5 +14,8 @@\n d14\n d15\n-d16\n+e1\n+e2\n+e3\n+e4\n d17\n d18\n";
static const char h_e[] =
	"@@ -4,7 +4,7 @@\n e04\n e05\n e06\n-e07\n+e07 x\n e08\n e09\n e10\n";

static void pairs_say_unchanged_changed_new_dropped_moved(void **state)
{
	struct series_version a, b;
	struct vdiff d;
	struct err err = ERR_INIT;

	series_version_init(&a, "wq", "v1");
	series_version_init(&b, "wq", "v2");
	add(&a, patch_text("btrfs: one", "", "fs/a.c", h_a));
	add(&a, patch_text("btrfs: two", "", "fs/b.c", h_b));
	add(&a, patch_text("btrfs: three", "", "fs/c.c", h_c));
	add(&a, patch_text("btrfs: gone", "", "fs/e.c", h_e));
	add(&b, patch_text("btrfs: three", "", "fs/c.c", h_c));
	add(&b, patch_text("btrfs: one", "Now with a body.\n", "fs/a.c", h_a));
	add(&b, patch_text("btrfs: two", "", "fs/b.c", h_b2));
	add(&b, patch_text("btrfs: four", "", "fs/d.c", h_d));
	if (vdiff_compute(&d, &a, &b, NULL, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	assert_int_equal(d.nr_pairs, 5);
	/* the new version's order; "gone" after the old ones before it */
	assert_int_equal(d.pairs[0].a, 2);
	assert_int_equal(d.pairs[0].b, 0);
	assert_int_equal(d.pairs[0].status, VDIFF_SAME);
	assert_int_equal(d.pairs[0].by, VDIFF_BY_PATCH_ID);
	assert_true(d.pairs[0].moved);
	assert_int_equal(d.pairs[1].a, 0);
	assert_int_equal(d.pairs[1].status, VDIFF_CHANGED);
	assert_true(d.pairs[1].message_changed);
	assert_false(d.pairs[1].diff_changed);
	assert_false(d.pairs[1].moved);
	assert_int_equal(d.pairs[2].a, 1);
	assert_int_equal(d.pairs[2].b, 2);
	assert_int_equal(d.pairs[2].status, VDIFF_CHANGED);
	assert_int_equal(d.pairs[2].by, VDIFF_BY_SUBJECT);
	assert_true(d.pairs[2].diff_changed);
	assert_int_equal(d.pairs[3].a, 3);
	assert_int_equal(d.pairs[3].b, -1);
	assert_int_equal(d.pairs[3].status, VDIFF_DROPPED);
	assert_int_equal(d.pairs[4].a, -1);
	assert_int_equal(d.pairs[4].b, 3);
	assert_int_equal(d.pairs[4].status, VDIFF_NEW);
	assert_int_equal(d.nr_same, 1);
	assert_int_equal(d.nr_changed, 2);
	assert_int_equal(d.nr_new, 1);
	assert_int_equal(d.nr_dropped, 1);
	assert_int_equal(d.nr_moved, 1);
	vdiff_release(&d);
	series_version_release(&a);
	series_version_release(&b);
	err_release(&err);
}

static void same_subject_beyond_the_creation_factor_is_rewritten(void **state)
{
	struct series_version a, b;
	struct vdiff d;
	struct err err = ERR_INIT;
	struct vdiff_opts big = { 400 };

	series_version_init(&a, "wq", "v1");
	series_version_init(&b, "wq", "v2");
	add(&a, patch_text("btrfs: rework d", "", "fs/d.c", h_d));
	add(&b, patch_text("btrfs: rework d", "", "fs/d.c", h_d2));
	if (vdiff_compute(&d, &a, &b, NULL, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	/* range-diff pairs neither: one patch rewritten */
	assert_int_equal(d.nr_pairs, 1);
	assert_int_equal(d.a2b[0], -1);
	assert_int_equal(d.pairs[0].status, VDIFF_REWRITTEN);
	assert_int_equal(d.pairs[0].by, VDIFF_BY_SUBJECT);
	assert_int_equal(d.nr_rewritten, 1);
	assert_int_equal(d.nr_new + d.nr_dropped, 0);
	vdiff_release(&d);
	/* with a larger creation factor range-diff pairs them */
	if (vdiff_compute(&d, &a, &b, &big, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	assert_int_equal(d.a2b[0], 0);
	assert_int_equal(d.pairs[0].status, VDIFF_CHANGED);
	vdiff_release(&d);
	series_version_release(&a);
	series_version_release(&b);
	err_release(&err);
}

static void interdiff_is_range_diffs(void **state)
{
	struct series_version a, b;
	struct vdiff d;
	struct err err = ERR_INIT;
	struct buf out = BUF_INIT;
	size_t add_n = 0, del_n = 0;

	series_version_init(&a, "wq", "v1");
	series_version_init(&b, "wq", "v2");
	add(&a, patch_text("btrfs: two", "", "fs/b.c", h_b));
	add(&b, patch_text("btrfs: two", "", "fs/b.c", h_b2));
	if (vdiff_compute(&d, &a, &b, NULL, &err) < 0 ||
	    vdiff_interdiff(&out, &add_n, &del_n, &d, &d.pairs[0], 4, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	assert_string_equal(out.ptr, "    @@ fs/b.c\n"
				     "      b06\n"
				     "     -b07\n"
				     "     +b07 x\n"
				     "    ++b07 y\n"
				     "      b08\n"
				     "      b09\n"
				     "      b10\n");
	assert_int_equal(add_n, 1);
	assert_int_equal(del_n, 0);
	buf_release(&out);
	vdiff_release(&d);
	series_version_release(&a);
	series_version_release(&b);
	err_release(&err);
}

static void json_names_the_schema_and_every_patch(void **state)
{
	struct series_version a, b;
	struct vdiff d;
	struct err err = ERR_INIT;
	char *s = NULL;

	series_version_init(&a, "wq", "v1");
	series_version_init(&b, "wq", "v2");
	add(&a, patch_text("btrfs: two", "", "fs/b.c", h_b));
	add(&b, patch_text("btrfs: two", "", "fs/b.c", h_b2));
	add(&b, patch_text("btrfs: four", "", "fs/d.c", h_d));
	if (vdiff_compute(&d, &a, &b, NULL, &err) < 0 ||
	    vdiff_json(&s, &d, false, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	assert_non_null(strstr(s, "\"schema\": \"kcarry-diff/1\""));
	assert_non_null(strstr(s, "\"status\": \"changed\""));
	assert_non_null(strstr(s, "\"status\": \"new\""));
	assert_non_null(strstr(s, "\"interdiff\": \"@@ fs/b.c\\n"));
	free(s);
	vdiff_release(&d);
	series_version_release(&a);
	series_version_release(&b);
	err_release(&err);
}

/* Old kernel patches quote Latin-1: the document stays valid UTF-8. */
static void json_turns_bytes_that_are_not_utf8_into_u_fffd(void **state)
{
	static const char h_latin1[] = "@@ -4,7 +4,7 @@\n b04\n b05\n b06\n"
				       "-b07\n+b07 caf\xe9\n b08\n b09\n b10\n";
	struct series_version a, b;
	struct vdiff d;
	struct err err = ERR_INIT;
	json_error_t jerr;
	json_t *doc;
	char *s = NULL;

	series_version_init(&a, "wq", "v1");
	series_version_init(&b, "wq", "v2");
	add(&a, patch_text("btrfs: two", "", "fs/b.c", h_b));
	add(&b, patch_text("btrfs: two", "", "fs/b.c", h_latin1));
	if (vdiff_compute(&d, &a, &b, NULL, &err) < 0 ||
	    vdiff_json(&s, &d, false, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	doc = json_loads(s, 0, &jerr);
	assert_non_null(doc);
	assert_non_null(strstr(s, "caf\xef\xbf\xbd"));
	json_decref(doc);
	free(s);
	vdiff_release(&d);
	series_version_release(&a);
	series_version_release(&b);
	err_release(&err);
}

/*
 * 2,000 patches, 10 of them changed: the exact matches are found by their
 * text's hash, and only the 10 x 10 left over are compared by diff size,
 * in a cost matrix of the left-overs (it was 2,000 x 2,000 comparisons
 * and a 4,000 x 4,000 matrix: 15.6 s and 1.5 GB at 10,000 patches).
 */
static void many_patches_pair_in_linear_work(void **state)
{
	const size_t n = 2000, changed = 10;
	struct series_version a, b;
	struct vdiff d;
	struct err err = ERR_INIT;
	char hunk[128], hunk2[128], subject[64], file[64];

	(void)state;
	series_version_init(&a, "big", "v1");
	series_version_init(&b, "big", "v2");
	for (size_t i = 0; i < n; i++) {
		snprintf(subject, sizeof(subject), "fs: change %zu", i);
		snprintf(file, sizeof(file), "fs/f%zu.c", i % 50);
		snprintf(hunk, sizeof(hunk),
			 "@@ -%zu +%zu @@\n-old %zu\n+new %zu\n", i + 1,
			 i + 1, i, i);
		snprintf(hunk2, sizeof(hunk2),
			 "@@ -%zu +%zu @@\n-old %zu\n+newer %zu\n", i + 1,
			 i + 1, i, i);
		add(&a, patch_text(subject, "", file, hunk));
		add(&b, patch_text(subject, "", file,
				   i % (n / changed) ? hunk : hunk2));
	}
	if (vdiff_compute(&d, &a, &b, NULL, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	assert_int_equal(d.nr_same, n - changed);
	/* one line in two: beyond the creation factor, the same subject */
	assert_int_equal(d.nr_rewritten, changed);
	assert_int_equal(d.nr_new + d.nr_dropped + d.nr_changed, 0);
	assert_true(d.nr_text_compared <= 2 * n);
	assert_int_equal(d.nr_diffsize, changed * changed);
	assert_int_equal(d.nr_cells, (2 * changed) * (2 * changed));
	vdiff_release(&d);
	series_version_release(&a);
	series_version_release(&b);
	err_release(&err);
}

/* Equal diffs pair the last equal old patch first; once they are all
 * taken, a third equal new patch is new (it read past the table). */
static void equal_diffs_run_out(void **state)
{
	struct series_version a, b;
	struct vdiff d;
	struct err err = ERR_INIT;

	(void)state;
	series_version_init(&a, "eq", "v1");
	series_version_init(&b, "eq", "v2");
	for (int i = 0; i < 2; i++)
		add(&a, patch_text("btrfs: same", "", "fs/a.c", h_a));
	for (int i = 0; i < 3; i++)
		add(&b, patch_text("btrfs: same", "", "fs/a.c", h_a));
	if (vdiff_compute(&d, &a, &b, NULL, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	assert_int_equal(d.b2a[0], 1);
	assert_int_equal(d.b2a[1], 0);
	assert_int_equal(d.b2a[2], -1);
	assert_int_equal(d.nr_same, 2);
	assert_int_equal(d.nr_new, 1);
	vdiff_release(&d);
	series_version_release(&a);
	series_version_release(&b);
	err_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			patch_id_equals_git_on_renames_modes_new_deleted_binary),
		cmocka_unit_test(patch_id_equals_git_on_the_corpus_threads),
		cmocka_unit_test(
			patch_id_equals_git_on_this_repository_history),
		cmocka_unit_test(text_is_what_range_diff_compares),
		cmocka_unit_test(patch_id_ignores_white_space_and_line_numbers),
		cmocka_unit_test(diffsize_counts_hunks_and_their_lines),
		cmocka_unit_test(assignment_takes_gits_choices),
		cmocka_unit_test(assignment_that_is_a_permutation_is_minimal),
		cmocka_unit_test(pairs_say_unchanged_changed_new_dropped_moved),
		cmocka_unit_test(
			same_subject_beyond_the_creation_factor_is_rewritten),
		cmocka_unit_test(interdiff_is_range_diffs),
		cmocka_unit_test(json_names_the_schema_and_every_patch),
		cmocka_unit_test(
			json_turns_bytes_that_are_not_utf8_into_u_fffd),
		cmocka_unit_test(many_patches_pair_in_linear_work),
		cmocka_unit_test(equal_diffs_run_out),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
