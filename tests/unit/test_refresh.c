#include "unit.h"

#include <stdio.h>

#include "carry.h"
#include "refresh.h"

/*
 * refresh: the refreshed series of a carry.  Its diffs come from the
 * blobs the carry has just read and written; the tests check they are
 * taken from memory (issue 18, "Speed") and that the text is the one
 * the object store gives, byte for byte.
 */

/* The group's state is HOME for git and libgit2, a folder of its own. */
static int group_setup(void **state)
{
	return unit_git_setup(state, "refresh", "Base Author",
			      "base@example.org", "Base Author",
			      "base@example.org");
}

#define GIT "git -c init.defaultBranch=main -c core.autocrlf=false "

/* the big file's size: 8,000 lines of 11 bytes */
#define BIG_BYTES (8000 * 11)

/*
 * big.c of 8,000 lines ("line 00001".."line 08000"), small.c and gone.c
 * of 3, tool.sh of 2 (mode 100644), packed as a clone's would be and
 * tagged 'base'.
 */
static int setup(void **state)
{
	static const char script[] = GIT
		"init -q repo && cd repo && mkdir -p lib && "
		"seq -f 'line %05g' 1 8000 > lib/big.c && "
		"printf 's1\\ns2\\ns3\\n' > lib/small.c && "
		"printf 'g1\\ng2\\ng3\\n' > lib/gone.c && "
		"printf '#!/bin/sh\\necho hi\\n' > lib/tool.sh && " GIT
		"add . && " GIT "commit -qm base && " GIT "tag base && " GIT
		"repack -adq";

	return unit_repo_setup(state, "refresh", script);
}

/* big.c line 100, a new file, tool.sh made executable */
static const char p1[] = "From: Ann Author <ann@example.org>\n"
			 "Date: Tue, 2 Nov 2021 14:49:16 +0200\n"
			 "Subject: [PATCH 1/3] lib: change line 100\n"
			 "\n"
			 "---\n"
			 "diff --git a/lib/big.c b/lib/big.c\n"
			 "--- a/lib/big.c\n"
			 "+++ b/lib/big.c\n"
			 "@@ -97,7 +97,7 @@\n"
			 " line 00097\n line 00098\n line 00099\n"
			 "-line 00100\n"
			 "+line 00100 changed\n"
			 " line 00101\n line 00102\n line 00103\n"
			 "diff --git a/lib/new.c b/lib/new.c\n"
			 "new file mode 100644\n"
			 "--- /dev/null\n"
			 "+++ b/lib/new.c\n"
			 "@@ -0,0 +1,2 @@\n"
			 "+n1\n"
			 "+n2\n"
			 "diff --git a/lib/tool.sh b/lib/tool.sh\n"
			 "old mode 100644\n"
			 "new mode 100755\n";

/* big.c again, 50 lines off (line 7000 at 6950), gone.c removed */
static const char p2[] =
	"From: Ben Builder <ben@example.org>\n"
	"Date: Wed, 3 Nov 2021 09:30:00 -0500\n"
	"Subject: [PATCH 2/3] lib: change line 7000, drop gone.c\n"
	"\n"
	"---\n"
	"diff --git a/lib/big.c b/lib/big.c\n"
	"--- a/lib/big.c\n"
	"+++ b/lib/big.c\n"
	"@@ -6947,7 +6947,7 @@\n"
	" line 06997\n line 06998\n line 06999\n"
	"-line 07000\n"
	"+line 07000 changed\n"
	" line 07001\n line 07002\n line 07003\n"
	"diff --git a/lib/gone.c b/lib/gone.c\n"
	"deleted file mode 100644\n"
	"--- a/lib/gone.c\n"
	"+++ /dev/null\n"
	"@@ -1,3 +0,0 @@\n"
	"-g1\n-g2\n-g3\n";

/* big.c a third time, small.c and the new file of 1 */
static const char p3[] = "From: Cee Coder <cee@example.org>\n"
			 "Date: Thu, 4 Nov 2021 10:00:00 +0000\n"
			 "Subject: [PATCH 3/3] lib: three files\n"
			 "\n"
			 "---\n"
			 "diff --git a/lib/big.c b/lib/big.c\n"
			 "--- a/lib/big.c\n"
			 "+++ b/lib/big.c\n"
			 "@@ -4000,3 +4000,4 @@\n"
			 " line 04000\n"
			 "+line 04000 and a half\n"
			 " line 04001\n line 04002\n"
			 "diff --git a/lib/new.c b/lib/new.c\n"
			 "--- a/lib/new.c\n"
			 "+++ b/lib/new.c\n"
			 "@@ -1,2 +1,2 @@\n"
			 " n1\n"
			 "-n2\n"
			 "+n2 changed\n"
			 "diff --git a/lib/small.c b/lib/small.c\n"
			 "--- a/lib/small.c\n"
			 "+++ b/lib/small.c\n"
			 "@@ -1,3 +1,3 @@\n"
			 " s1\n"
			 "-s2\n"
			 "+s2 changed\n"
			 " s3\n";

static void make_version(struct series_version *v, const char *const *texts,
			 size_t nr)
{
	struct err err = ERR_INIT;

	series_version_init(v, "lib", "v1");
	for (size_t i = 0; i < nr; i++) {
		struct buf b = BUF_INIT;
		struct patch p;

		patch_init(&p);
		if (patch_parse(&p, texts[i], strlen(texts[i]), NULL, &err) < 0)
			fail_msg("%s", err.msg.ptr);
		buf_adds(&b, texts[i]);
		series_version_add(v, &p, &b, "test");
		patch_release(&p);
		buf_release(&b);
	}
	err_release(&err);
}

static void carry(struct carry_result *res, const struct unit_repo *fx,
		  const struct series_version *v)
{
	static const struct apply_opts apply = APPLY_OPTS_INIT;
	struct carry_opts opts;
	struct err err = ERR_INIT;

	memset(&opts, 0, sizeof(opts));
	opts.apply = apply;
	if (carry_series(res, fx->repo, &fx->base, v, "t", &opts, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	err_release(&err);
}

/*
 * The refreshed series reads no blob the carry read or wrote: each
 * version of big.c (88,000 bytes) was read once (the base) or written
 * by the carry, which keeps them; refreshing read them all again, twice
 * each (528,536 bytes inflated in 16 objects for three patches).  What is
 * left to read is commits and trees.  The texts are those a handle
 * without the carry's blobs (every blob read from the store) makes, byte
 * for byte.
 */
static void refresh_reads_no_blob_the_carry_holds(void **state)
{
	struct unit_repo *fx = *state;
	static const char *const texts[] = { p1, p2, p3 };
	struct series_version v;
	struct carry_result res;
	struct tree_repo *cold = NULL;
	struct tree_reads reads = { 0, 0 };
	struct err err = ERR_INIT;
	char *want[3];

	make_version(&v, texts, 3);
	carry(&res, fx, &v);
	for (size_t i = 0; i < 3; i++)
		assert_true(res.patches[i].committed);
	/* the store's texts, through a handle of its own */
	assert_int_equal(tree_open(&cold, fx->repo_path, &err), 0);
	if (refresh_texts(cold, &res, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	for (size_t i = 0; i < 3; i++) {
		want[i] = res.patches[i].refreshed;
		res.patches[i].refreshed = NULL;
		assert_non_null(want[i]);
	}
	tree_close(cold);
	assert_int_equal(tree_count_reads(fx->repo, &reads, &err), 0);
	if (refresh_texts(fx->repo, &res, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	if (reads.bytes >= BIG_BYTES)
		fail_msg("refreshing read %zu bytes in %zu objects",
			 reads.bytes, reads.objects);
	for (size_t i = 0; i < 3; i++) {
		assert_string_equal(res.patches[i].refreshed, want[i]);
		free(want[i]);
	}
	/* what the texts say, as git diff says it */
	assert_non_null(strstr(res.patches[0].refreshed,
			       "diff --git a/lib/tool.sh b/lib/tool.sh\n"
			       "old mode 100644\nnew mode 100755\n"));
	assert_non_null(
		strstr(res.patches[1].refreshed, "@@ -6997,7 +6997,7 @@"));
	assert_non_null(
		strstr(res.patches[1].refreshed, "deleted file mode 100644\n"));
	assert_non_null(
		strstr(res.patches[2].refreshed, "+line 04000 and a half\n"));
	carry_result_release(&res);
	series_version_release(&v);
	err_release(&err);
}

/*
 * With no refresh to come (apply --no-refresh, check --no-patch-text
 * without --refresh) the carry keeps in memory the blobs it wrote,
 * which later patches read back, and not those it read: patch 2 reads
 * big.c (88,000 bytes) and gone.c and writes big.c once; what stays is
 * that one version, not the one read beside it (176,017 bytes before).
 * Without the blobs it read, the refreshed texts are still those of the
 * store.
 */
static void a_carry_without_refresh_keeps_no_read_blob(void **state)
{
	struct unit_repo *fx = *state;
	static const char *const texts[] = { p2 };
	struct series_version v;
	struct carry_result res;
	struct tree_repo *cold = NULL;
	struct err err = ERR_INIT;
	size_t held;
	char *want;

	make_version(&v, texts, 1);
	assert_int_equal(tree_held_bytes(fx->repo), 0);
	tree_keep_read_blobs(fx->repo, false);
	carry(&res, fx, &v);
	assert_true(res.patches[0].committed);
	held = tree_held_bytes(fx->repo);
	if (held < BIG_BYTES || held >= BIG_BYTES + BIG_BYTES / 2)
		fail_msg("the carry holds %zu bytes, not the one version of "
			 "big.c it wrote",
			 held);
	assert_int_equal(tree_open(&cold, fx->repo_path, &err), 0);
	if (refresh_texts(cold, &res, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	want = res.patches[0].refreshed;
	res.patches[0].refreshed = NULL;
	tree_close(cold);
	if (refresh_texts(fx->repo, &res, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	assert_string_equal(res.patches[0].refreshed, want);
	free(want);
	carry_result_release(&res);
	series_version_release(&v);
	err_release(&err);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, unit_repo_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(refresh_reads_no_blob_the_carry_holds),
		T(a_carry_without_refresh_keeps_no_read_blob),
	};

	return cmocka_run_group_tests(tests, group_setup, unit_git_teardown);
}
