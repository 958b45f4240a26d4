#include "unit.h"

#include <stdio.h>

#include "carry.h"
#include "refresh.h"
#include "strmap.h"

/* ---- fixture: a throw-away repository per test ------------------------ */

/* The group's state is HOME for git and libgit2, a folder of its own. */
static int group_setup(void **state)
{
	return unit_git_setup(state, "carry", "Base Author", "base@example.org",
			      "Base Author", "base@example.org");
}

#define GIT "git -c init.defaultBranch=main -c core.autocrlf=false "

/* Files of 20 numbered lines ("a01".."a20") in fs/btrfs, tagged 'base'. */
static int setup(void **state)
{
	static const char script[] =
		GIT "init -q repo && cd repo && mkdir -p fs/btrfs && "
		"seq -f 'a%02g' 1 20 > fs/btrfs/a.c && "
		"seq -f 'b%02g' 1 20 > fs/btrfs/b.c && "
		"seq -f 'c%02g' 1 20 > fs/btrfs/c.c && "
		GIT "add . && " GIT "commit -qm base && " GIT "tag base";

	return unit_repo_setup(state, "carry", script);
}

/* ---- patches ---------------------------------------------------------- */

/* Ann changes a05 (clean on base). */
static const char p_clean_a[] =
	"From: Ann Author <ann@example.org>\n"
	"Date: Tue, 2 Nov 2021 14:49:16 +0200\n"
	"Subject: [PATCH 1/3] btrfs: change a05\n"
	"\n"
	"a05 needed a change.\n"
	"\n"
	"Signed-off-by: Ann Author <ann@example.org>\n"
	"---\n"
	"diff --git a/fs/btrfs/a.c b/fs/btrfs/a.c\n"
	"--- a/fs/btrfs/a.c\n"
	"+++ b/fs/btrfs/a.c\n"
	"@@ -2,7 +2,7 @@\n"
	" a02\n a03\n a04\n"
	"-a05\n"
	"+a05 changed\n"
	" a06\n a07\n a08\n";

/* Ben changes b10, which this tree has otherwise: a conflict. */
static const char p_conflict_b[] =
	"From: Ben Builder <ben@example.org>\n"
	"Date: Wed, 3 Nov 2021 09:30:00 -0500\n"
	"Subject: [PATCH 2/3] btrfs: change b10\n"
	"\n"
	"---\n"
	"diff --git a/fs/btrfs/b.c b/fs/btrfs/b.c\n"
	"--- a/fs/btrfs/b.c\n"
	"+++ b/fs/btrfs/b.c\n"
	"@@ -7,7 +7,7 @@\n"
	" b07\n b08\n b09\n"
	"-b10 as the upstream tree has it\n"
	"+b10 fixed upstream\n"
	" b11\n b12\n b13\n";

/* Cee changes b12, next to b10: applies, but touches what 2 touched. */
static const char p_overlap_b[] =
	"From: Cee Coder <cee@example.org>\n"
	"Date: Thu, 4 Nov 2021 10:00:00 +0000\n"
	"Subject: [PATCH 3/3] btrfs: change b12\n"
	"\n"
	"---\n"
	"diff --git a/fs/btrfs/b.c b/fs/btrfs/b.c\n"
	"--- a/fs/btrfs/b.c\n"
	"+++ b/fs/btrfs/b.c\n"
	"@@ -9,7 +9,7 @@\n"
	" b09\n b10\n b11\n"
	"-b12\n"
	"+b12 changed\n"
	" b13\n b14\n b15\n";

/* A new file, and c.c far from everything else. */
static const char p_clean_c[] =
	"From: Cee Coder <cee@example.org>\n"
	"Date: Fri, 5 Nov 2021 11:00:00 +0100\n"
	"Subject: [PATCH] btrfs: add d.c and change c18\n"
	"\n"
	"Two in one.\n"
	"---\n"
	"diff --git a/fs/btrfs/c.c b/fs/btrfs/c.c\n"
	"--- a/fs/btrfs/c.c\n"
	"+++ b/fs/btrfs/c.c\n"
	"@@ -15,6 +15,6 @@\n"
	" c15\n c16\n c17\n"
	"-c18\n"
	"+c18 changed\n"
	" c19\n c20\n"
	"diff --git a/fs/btrfs/d.c b/fs/btrfs/d.c\n"
	"new file mode 100644\n"
	"--- /dev/null\n"
	"+++ b/fs/btrfs/d.c\n"
	"@@ -0,0 +1,2 @@\n"
	"+d01\n"
	"+d02\n";

static void parse_text(struct patch *p, const char *text)
{
	struct err err = ERR_INIT;

	patch_init(p);
	if (patch_parse(p, text, strlen(text), NULL, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	err_release(&err);
}

/* A version of the given patch texts, as series_version_add builds it. */
static void make_version(struct series_version *v, const char *version,
			 const char *const *texts, size_t nr)
{
	series_version_init(v, "btrfs", version);
	for (size_t i = 0; i < nr; i++) {
		struct buf b = BUF_INIT;
		struct patch p;

		parse_text(&p, texts[i]);
		buf_adds(&b, texts[i]);
		series_version_add(v, &p, &b, "test");
		patch_release(&p);
		buf_release(&b);
	}
}

static void carry_ok(struct carry_result *res, const struct unit_repo *fx,
		     const struct series_version *v, const char *target,
		     const struct carry_opts *opts)
{
	struct err err = ERR_INIT;

	if (carry_series(res, fx->repo, &fx->base, v, target, opts, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	err_release(&err);
}

static void default_opts(struct carry_opts *o)
{
	static const struct apply_opts apply = APPLY_OPTS_INIT;

	memset(o, 0, sizeof(*o));
	o->apply = apply;
}

static void assert_oid(const struct tree_oid *oid, const char *hex)
{
	char got[41];

	tree_oid_hex(got, oid);
	assert_string_equal(got, hex);
}

/* `git rev-parse rev` in the fixture's repository; caller frees. */
static char *rev(const struct unit_repo *fx, const char *r)
{
	return unit_capture("git -C '%s' rev-parse --verify -q '%s'", fx->repo_path,
		       r);
}

static char *show(const struct unit_repo *fx, const char *what)
{
	return unit_capture("git -C '%s' show '%s'", fx->repo_path, what);
}

/* ---- carrying --------------------------------------------------------- */

static void clean_series_becomes_commits_on_a_branch(void **state)
{
	const struct unit_repo *fx = *state;
	static const char *const texts[] = { p_clean_a, p_overlap_b,
					     p_clean_c };
	struct series_version v;
	struct carry_result res;
	struct carry_opts opts;
	char *head, *log, *file;

	default_opts(&opts);
	make_version(&v, "v1", texts, 3);
	carry_ok(&res, fx, &v, "6.1", &opts);
	assert_string_equal(res.branch, "refs/heads/kcarry/btrfs/v1/6.1");
	assert_string_equal(res.series, "btrfs");
	assert_string_equal(res.version, "v1");
	assert_string_equal(res.target, "6.1");
	assert_int_equal(res.nr, 3);
	assert_int_equal(res.counts[OUTCOME_CLEAN], 3);
	assert_int_equal(res.worst, OUTCOME_CLEAN);
	assert_int_equal(res.nr_failed, 0);
	assert_false(res.risk);
	for (size_t i = 0; i < 3; i++) {
		assert_ptr_equal(res.patches[i].item, &v.items[i]);
		assert_true(res.patches[i].committed);
		assert_false(res.patches[i].skipped);
		assert_int_equal(res.patches[i].nr_depends, 0);
		assert_int_equal(res.patches[i].outcome, OUTCOME_CLEAN);
	}
	assert_int_equal(res.patches[2].nr_files, 2);
	assert_string_equal(res.patches[2].files[1].path, "fs/btrfs/d.c");

	/* The branch is the last commit; the commits chain back to base. */
	head = rev(fx, res.branch);
	assert_oid(&res.head, head);
	assert_oid(&res.patches[2].commit, head);
	free(head);
	log = unit_capture("git -C '%s' log --reverse --format='%%an <%%ae> "
		      "%%ad|%%cn <%%ce> %%cd|%%s' --date=raw base..%s",
		      fx->repo_path, res.branch);
	assert_string_equal(
		log,
		"Ann Author <ann@example.org> 1635857356 +0200|"
		"kcarry <kcarry@localhost> 1635857356 +0200|"
		"btrfs: change a05\n"
		"Cee Coder <cee@example.org> 1636020000 +0000|"
		"kcarry <kcarry@localhost> 1636020000 +0000|btrfs: change b12\n"
		"Cee Coder <cee@example.org> 1636106400 +0100|"
		"kcarry <kcarry@localhost> 1636106400 +0100|"
		"btrfs: add d.c and change c18");
	free(log);
	log = unit_capture("git -C '%s' log -1 --format=%%B %s~2", fx->repo_path,
		      res.branch);
	assert_string_equal(log, "btrfs: change a05\n\na05 needed a change.\n\n"
				 "Signed-off-by: Ann Author <ann@example.org>");
	free(log);
	log = unit_capture("git -C '%s' rev-parse %s~3", fx->repo_path, res.branch);
	assert_oid(&fx->base, log);
	free(log);

	/* The trees hold the patched files. */
	file = show(fx, "refs/heads/kcarry/btrfs/v1/6.1:fs/btrfs/d.c");
	assert_string_equal(file, "d01\nd02");
	free(file);
	file = unit_capture("git -C '%s' diff --stat base %s | tail -1",
		       fx->repo_path, res.branch);
	assert_string_equal(file, " 4 files changed, 5 insertions(+), "
				  "3 deletions(-)");
	free(file);

	/* No work tree, index or HEAD was touched. */
	file = unit_capture("git -C '%s' status --porcelain", fx->repo_path);
	assert_string_equal(file, "");
	free(file);
	file = unit_capture("git -C '%s' symbolic-ref HEAD", fx->repo_path);
	assert_string_equal(file, "refs/heads/main");
	free(file);
	head = rev(fx, "main");
	assert_oid(&fx->base, head);
	free(head);

	carry_result_release(&res);
	series_version_release(&v);
}

static void conflict_is_not_committed_and_overlap_depends_on_it(void **state)
{
	const struct unit_repo *fx = *state;
	static const char *const texts[] = { p_clean_a, p_conflict_b,
					     p_overlap_b };
	struct series_version v;
	struct carry_result res;
	struct carry_opts opts;
	const struct carry_patch *cp;
	char *head, *log;

	default_opts(&opts);
	make_version(&v, "v1", texts, 3);
	carry_ok(&res, fx, &v, "6.1", &opts);
	assert_int_equal(res.nr_failed, 1);
	assert_int_equal(res.worst, OUTCOME_CONFLICT);
	assert_int_equal(res.counts[OUTCOME_CLEAN], 2);
	assert_int_equal(res.counts[OUTCOME_CONFLICT], 1);

	cp = &res.patches[1];
	assert_int_equal(cp->outcome, OUTCOME_CONFLICT);
	assert_true(carry_patch_failed(cp));
	assert_false(cp->committed);
	assert_true(tree_oid_is_zero(&cp->commit));
	assert_int_equal(cp->nr_files, 1);
	assert_string_equal(cp->files[0].path, "fs/btrfs/b.c");
	assert_int_equal(cp->files[0].outcome, OUTCOME_CONFLICT);
	assert_int_equal(cp->files[0].nr_hunks, 1);
	assert_int_equal(cp->files[0].hunks[0].rule, RULE_CONFLICT);
	assert_non_null(strstr(cp->files[0].rej.ptr,
			       "-b10 as the upstream tree has it\n"));
	assert_int_equal(strlen(cp->fingerprint), 40);

	/* The later patch applied, but it touches the failed one's lines. */
	cp = &res.patches[2];
	assert_true(cp->committed);
	assert_int_equal(cp->nr_depends, 1);
	assert_int_equal(cp->depends[0], 2);
	assert_int_equal(res.patches[0].nr_depends, 0);

	/* Two commits on the branch; b10 as base had it. */
	log = unit_capture("git -C '%s' log --reverse --format=%%s base..%s",
		      fx->repo_path, res.branch);
	assert_string_equal(log, "btrfs: change a05\nbtrfs: change b12");
	free(log);
	head = rev(fx, res.branch);
	assert_oid(&res.patches[2].commit, head);
	free(head);
	log = unit_capture("git -C '%s' show %s:fs/btrfs/b.c | sed -n '10p;12p'",
		      fx->repo_path, res.branch);
	assert_string_equal(log, "b10\nb12 changed");
	free(log);
	carry_result_release(&res);
	series_version_release(&v);
}

static void already_applied_patch_is_not_committed(void **state)
{
	const struct unit_repo *fx = *state;
	static const char *const texts[] = { p_clean_a, p_clean_a };
	struct series_version v;
	struct carry_result res;
	struct carry_opts opts;
	char *log;

	default_opts(&opts);
	make_version(&v, "v1", texts, 2);
	carry_ok(&res, fx, &v, "6.1", &opts);
	assert_true(res.patches[0].committed);
	assert_int_equal(res.patches[1].outcome, OUTCOME_ALREADY);
	assert_false(res.patches[1].committed);
	assert_false(carry_patch_failed(&res.patches[1]));
	assert_int_equal(res.patches[1].files[0].hunks[0].rule, RULE_ALREADY);
	assert_int_equal(res.counts[OUTCOME_ALREADY], 1);
	assert_int_equal(res.nr_failed, 0);
	assert_int_equal(res.worst, OUTCOME_ALREADY);
	log = rev(fx, res.branch);
	assert_oid(&res.head, log);
	free(log);
	log = unit_capture("git -C '%s' rev-list --count base..%s", fx->repo_path,
		      res.branch);
	assert_string_equal(log, "1");
	free(log);
	carry_result_release(&res);
	series_version_release(&v);
}

static void until_stops_before_the_given_patch(void **state)
{
	const struct unit_repo *fx = *state;
	static const char *const texts[] = { p_clean_a, p_overlap_b,
					     p_clean_c };
	struct series_version v;
	struct carry_result res;
	struct carry_opts opts;
	char *head;

	default_opts(&opts);
	opts.until = 2;
	make_version(&v, "v1", texts, 3);
	carry_ok(&res, fx, &v, "6.1", &opts);
	assert_true(res.patches[0].committed);
	for (size_t i = 1; i < 3; i++) {
		assert_true(res.patches[i].skipped);
		assert_false(res.patches[i].committed);
		assert_int_equal(res.patches[i].nr_files, 0);
	}
	assert_int_equal(res.counts[OUTCOME_CLEAN], 1);
	assert_int_equal(res.nr_failed, 0);
	head = rev(fx, res.branch);
	assert_oid(&res.patches[0].commit, head);
	assert_oid(&res.head, head);
	free(head);
	carry_result_release(&res);
	series_version_release(&v);
}

static void stop_skips_everything_after_a_conflict(void **state)
{
	const struct unit_repo *fx = *state;
	static const char *const texts[] = { p_clean_a, p_conflict_b,
					     p_clean_c };
	struct series_version v;
	struct carry_result res;
	struct carry_opts opts;

	default_opts(&opts);
	opts.stop = true;
	make_version(&v, "v1", texts, 3);
	carry_ok(&res, fx, &v, "6.1", &opts);
	assert_true(res.patches[0].committed);
	assert_false(res.patches[1].skipped);
	assert_int_equal(res.patches[1].outcome, OUTCOME_CONFLICT);
	assert_true(res.patches[2].skipped);
	assert_false(res.patches[2].committed);
	assert_int_equal(res.nr_failed, 1);
	carry_result_release(&res);
	series_version_release(&v);
}

static void no_ref_computes_without_moving_a_branch(void **state)
{
	const struct unit_repo *fx = *state;
	static const char *const texts[] = { p_clean_a };
	struct series_version v;
	struct carry_result res;
	struct carry_opts opts;
	struct tree_oid oid;
	struct err err = ERR_INIT;

	default_opts(&opts);
	opts.no_ref = true;
	make_version(&v, "v1", texts, 1);
	carry_ok(&res, fx, &v, "6.1", &opts);
	assert_true(res.patches[0].committed);
	assert_false(tree_oid_is_zero(&res.head));
	assert_int_equal(tree_get_ref(&oid, fx->repo, res.branch, &err),
			 ERR_NOTFOUND);
	err_release(&err);
	carry_result_release(&res);
	series_version_release(&v);
}

static void carrying_again_gives_the_same_commits(void **state)
{
	const struct unit_repo *fx = *state;
	static const char *const texts[] = { p_clean_a, p_overlap_b };
	struct series_version v;
	struct carry_result a, b;
	struct carry_opts opts;

	default_opts(&opts);
	make_version(&v, "v1", texts, 2);
	carry_ok(&a, fx, &v, "6.1", &opts);
	carry_ok(&b, fx, &v, "6.1", &opts);
	/* Author and committer dates come from the patch: ids are stable. */
	assert_memory_equal(a.head.id, b.head.id, 20);
	carry_result_release(&a);
	carry_result_release(&b);
	series_version_release(&v);
}

/* Dee changes a10; the context next to it (a09, a11) drifted upstream:
 * adaptation rule 4 takes the context from the tree. */
static const char p_drift_a[] =
	"From: Dee Dev <dee@example.org>\n"
	"Date: Sat, 6 Nov 2021 12:00:00 +0000\n"
	"Subject: [PATCH] btrfs: change a10\n"
	"\n"
	"---\n"
	"diff --git a/fs/btrfs/a.c b/fs/btrfs/a.c\n"
	"--- a/fs/btrfs/a.c\n"
	"+++ b/fs/btrfs/a.c\n"
	"@@ -7,7 +7,7 @@\n"
	" a07\n a08\n a09 upstream\n"
	"-a10\n"
	"+a10 changed\n"
	" a11 upstream\n a12\n a13\n";

static void refused_hunk_is_never_adapted(void **state)
{
	const struct unit_repo *fx = *state;
	static const char *const texts[] = { p_drift_a, p_clean_c };
	/* patch 1's file 1 hunk 1; another hunk, file, patch */
	static const struct carry_hunk_ref refuse = { 0, 0, 0 };
	static const struct carry_hunk_ref others[] = { { 0, 0, 1 },
							{ 0, 1, 0 },
							{ 1, 0, 0 } };
	struct series_version v;
	struct carry_result res;
	struct carry_opts opts;

	default_opts(&opts);
	make_version(&v, "v1", texts, 2);
	carry_ok(&res, fx, &v, "6.1", &opts);
	assert_int_equal(res.patches[0].outcome, OUTCOME_ADAPTED);
	assert_true(res.patches[0].committed);
	carry_result_release(&res);

	opts.no_adapt = others;
	opts.nr_no_adapt = 3;
	carry_ok(&res, fx, &v, "6.1", &opts);
	assert_int_equal(res.patches[0].outcome, OUTCOME_ADAPTED);
	carry_result_release(&res);

	opts.no_adapt = &refuse;
	opts.nr_no_adapt = 1;
	carry_ok(&res, fx, &v, "6.1", &opts);
	assert_int_equal(res.patches[0].outcome, OUTCOME_CONFLICT);
	assert_int_equal(res.patches[0].files[0].hunks[0].rule, RULE_CONFLICT);
	assert_null(res.patches[0].files[0].hunks[0].adapt);
	assert_false(res.patches[0].committed);
	assert_int_equal(res.patches[1].outcome, OUTCOME_CLEAN);
	assert_true(res.patches[1].committed);
	assert_int_equal(res.nr_failed, 1);
	carry_result_release(&res);
	series_version_release(&v);
}

static void empty_version_points_the_branch_at_base(void **state)
{
	const struct unit_repo *fx = *state;
	struct series_version v;
	struct carry_result res;
	struct carry_opts opts;
	char *head;

	default_opts(&opts);
	make_version(&v, "v1", NULL, 0);
	carry_ok(&res, fx, &v, "6.1", &opts);
	assert_int_equal(res.nr, 0);
	assert_memory_equal(res.head.id, fx->base.id, 20);
	head = rev(fx, res.branch);
	assert_oid(&fx->base, head);
	free(head);
	carry_result_release(&res);
	series_version_release(&v);
}

struct progress_log {
	struct buf b;
};

static void note_progress(void *ctx, size_t i, size_t nr, const char *subject)
{
	struct progress_log *log = ctx;

	buf_addf(&log->b, "%zu/%zu %s\n", i, nr, subject);
}

static void progress_is_called_before_each_patch(void **state)
{
	const struct unit_repo *fx = *state;
	static const char *const texts[] = { p_clean_a, p_overlap_b };
	struct progress_log log = { BUF_INIT };
	struct series_version v;
	struct carry_result res;
	struct carry_opts opts;

	default_opts(&opts);
	opts.progress = note_progress;
	opts.ctx = &log;
	make_version(&v, "v1", texts, 2);
	carry_ok(&res, fx, &v, "6.1", &opts);
	assert_string_equal(log.b.ptr, "0/2 btrfs: change a05\n"
				       "1/2 btrfs: change b12\n");
	buf_release(&log.b);
	carry_result_release(&res);
	series_version_release(&v);
}

/* Hands p_conflict_b rewritten for this tree when asked for want. */
struct replay {
	const char *want;
	int calls;
};

static int resolve_b10(void *ctx, const char *fingerprint, struct patch *out,
		       struct err *err)
{
	static const char resolved[] =
		"From: Ben Builder <ben@example.org>\n"
		"Subject: [PATCH] btrfs: change b10\n"
		"\n"
		"---\n"
		"--- a/fs/btrfs/b.c\n"
		"+++ b/fs/btrfs/b.c\n"
		"@@ -9,3 +9,3 @@\n"
		" b09\n"
		"-b10\n"
		"+b10 fixed upstream\n"
		" b11\n";
	struct replay *r = ctx;

	r->calls++;
	if (!r->want || strcmp(fingerprint, r->want))
		return ERR_NOTFOUND;
	return patch_parse(out, resolved, strlen(resolved), NULL, err);
}

static void recorded_resolution_is_replayed(void **state)
{
	const struct unit_repo *fx = *state;
	static const char *const texts[] = { p_conflict_b };
	struct series_version v;
	struct carry_result res;
	struct carry_opts opts;
	struct replay r = { NULL, 0 };
	char fp[41], *line;

	default_opts(&opts);
	opts.resolution = resolve_b10;
	opts.resolution_ctx = &r;
	make_version(&v, "v1", texts, 1);
	/* Unknown to the store: a conflict, and its fingerprint. */
	carry_ok(&res, fx, &v, "6.1", &opts);
	assert_int_equal(r.calls, 1);
	assert_false(res.patches[0].resolved);
	assert_int_equal(res.patches[0].outcome, OUTCOME_CONFLICT);
	memcpy(fp, res.patches[0].fingerprint, sizeof(fp));
	carry_result_release(&res);

	r.want = fp;
	carry_ok(&res, fx, &v, "6.1", &opts);
	assert_true(res.patches[0].resolved);
	assert_true(res.patches[0].committed);
	assert_int_equal(res.patches[0].outcome, OUTCOME_CLEAN);
	line = unit_capture("git -C '%s' show %s:fs/btrfs/b.c | sed -n 10p",
		       fx->repo_path, res.branch);
	assert_string_equal(line, "b10 fixed upstream");
	free(line);
	/* The commit keeps the series' own metadata. */
	line = unit_capture("git -C '%s' log -1 --format='%%an|%%s' %s",
		       fx->repo_path, res.branch);
	assert_string_equal(line, "Ben Builder|btrfs: change b10");
	free(line);
	carry_result_release(&res);
	series_version_release(&v);
}

static void tilde_in_version_makes_a_valid_branch(void **state)
{
	const struct unit_repo *fx = *state;
	static const char *const texts[] = { p_clean_a };
	struct series_version v;
	struct carry_result res;
	struct carry_opts opts;
	char *head;

	default_opts(&opts);
	make_version(&v, "6.12.100-1~deb12u1", texts, 1);
	carry_ok(&res, fx, &v, "6.12", &opts);
	assert_string_equal(res.branch,
			    "refs/heads/kcarry/btrfs/6.12.100-1%7Edeb12u1/6.12");
	assert_string_equal(res.version, "6.12.100-1~deb12u1");
	head = rev(fx, "kcarry/btrfs/6.12.100-1%7Edeb12u1/6.12");
	assert_oid(&res.head, head);
	free(head);
	carry_result_release(&res);
	series_version_release(&v);
}

/* ---- names and fingerprints ------------------------------------------- */

static void branch_name_escapes_what_refs_refuse(void **state)
{
	static const struct {
		const char *version, *target, *want;
	} cases[] = {
		{ "v3", "6.1", "refs/heads/kcarry/btrfs/v3/6.1" },
		{ "6.12.100-1~deb12u1", "6.12",
		  "refs/heads/kcarry/btrfs/6.12.100-1%7Edeb12u1/6.12" },
		{ "a:b^c?d*e[f\\g h", "t~1",
		  "refs/heads/kcarry/btrfs/a%3Ab%5Ec%3Fd%2Ae%5Bf%5Cg%20h/t%7E1" },
		{ "1..2", "6.1", "refs/heads/kcarry/btrfs/1.%2E2/6.1" },
		{ "v1.lock", "6.1", "refs/heads/kcarry/btrfs/v1%2Elock/6.1" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *name = carry_branch_name("btrfs", cases[i].version,
					       cases[i].target);

		assert_string_equal(name, cases[i].want);
		assert_int_equal(unit_run("git check-ref-format '%s'", name), 0);
		free(name);
	}
}

/*
 * Hardening 8: x:y, "x y", x;y and x]y all became x_y, so their branches
 * overwrote each other.  Distinct names must give distinct, valid refs.
 */
static void branch_names_of_distinct_versions_differ(void **state)
{
	static const char *const versions[] = {
		"x_y", "x:y", "x y", "x;y", "x]y", "x%y", "x%5Fy", "x.y",
		"x..y", "x.", ".x", "x.lock", "x%2Elock", "1~rc1", "1_rc1",
	};
	size_t n = sizeof(versions) / sizeof(versions[0]);
	char *names[sizeof(versions) / sizeof(versions[0])];

	for (size_t i = 0; i < n; i++) {
		names[i] = carry_branch_name("s", versions[i], "t");
		assert_int_equal(unit_run("git check-ref-format '%s'",
					  names[i]), 0);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(names[i], names[j]);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
}

static void fingerprint_ignores_line_numbers(void **state)
{
	const struct unit_repo *fx = *state;
	static const char header[] = "@@ -7,7 +7,7 @@";
	const char *at = strstr(p_conflict_b, header);
	struct buf moved = BUF_INIT;
	struct patch a, b;
	struct tree_oid tree;
	struct err err = ERR_INIT;
	char fa[41], fb[41];

	/* The same change, stated 30 lines further down. */
	assert_non_null(at);
	buf_add(&moved, p_conflict_b, (size_t)(at - p_conflict_b));
	buf_adds(&moved, "@@ -37,7 +38,7 @@");
	buf_adds(&moved, at + strlen(header));
	parse_text(&a, p_conflict_b);
	parse_text(&b, moved.ptr);
	assert_int_equal(b.files[0].hunks[0].old_start, 37);
	assert_int_equal(tree_commit_tree(&tree, fx->repo, &fx->base, &err), 0);
	assert_int_equal(carry_fingerprint(fa, fx->repo, &tree, &a, &err), 0);
	assert_int_equal(carry_fingerprint(fb, fx->repo, &tree, &b, &err), 0);
	assert_string_equal(fa, fb);
	assert_int_equal(strspn(fa, "0123456789abcdef"), 40);
	patch_release(&a);
	patch_release(&b);
	buf_release(&moved);
	err_release(&err);
}

static void fingerprint_changes_with_the_tree_or_the_change(void **state)
{
	const struct unit_repo *fx = *state;
	static const char *const texts[] = { p_overlap_b };
	struct series_version v;
	struct carry_result res;
	struct carry_opts opts;
	struct patch a, other;
	struct tree_oid base_tree, new_tree;
	struct err err = ERR_INIT;
	char f1[41], f2[41], f3[41], f4[41];
	struct replay none = { NULL, 0 };

	default_opts(&opts);
	/* an applied patch's fingerprint is computed when resolutions are
	 * looked up (a failed one's always) */
	opts.resolution = resolve_b10;
	opts.resolution_ctx = &none;
	make_version(&v, "v1", texts, 1);
	carry_ok(&res, fx, &v, "6.1", &opts);
	parse_text(&a, p_conflict_b);
	parse_text(&other, p_overlap_b);
	assert_int_equal(tree_commit_tree(&base_tree, fx->repo, &fx->base,
					  &err),
			 0);
	assert_int_equal(tree_commit_tree(&new_tree, fx->repo, &res.head, &err),
			 0);
	assert_int_equal(carry_fingerprint(f1, fx->repo, &base_tree, &a, &err),
			 0);
	assert_int_equal(carry_fingerprint(f2, fx->repo, &base_tree, &a, &err),
			 0);
	assert_int_equal(carry_fingerprint(f3, fx->repo, &new_tree, &a, &err),
			 0);
	assert_int_equal(carry_fingerprint(f4, fx->repo, &base_tree, &other,
					   &err),
			 0);
	assert_string_equal(f1, f2);     /* stable */
	assert_string_not_equal(f1, f3); /* b.c is another blob there */
	assert_string_not_equal(f1, f4); /* another change */
	/* carry_series records the fingerprint the patch met. */
	assert_string_equal(res.patches[0].fingerprint, f4);
	patch_release(&a);
	patch_release(&other);
	carry_result_release(&res);
	series_version_release(&v);
	err_release(&err);
}

/*
 * Files read ahead are what the tree has: a file changed since the tree
 * read ahead is read as changed, and one read twice is the same twice.
 */
static void read_ahead_gives_what_the_tree_has(void **state)
{
	struct unit_repo *fx = *state;
	static const char *const paths[] = { "fs/btrfs/a.c", "fs/btrfs/b.c",
					     "fs/btrfs/c.c", "fs/btrfs",
					     "fs/btrfs/nosuch.c" };
	static const char changed[] = "b01 changed\n";
	struct tree_oid base, blob, next;
	struct tree_change ch = { 0 };
	struct tree_repo *plain = NULL;
	struct err err = ERR_INIT;

	/* the change written through another handle: not in the blobs
	 * fx->repo keeps of its own writes */
	assert_int_equal(tree_open(&plain, fx->repo_path, &err), 0);
	assert_int_equal(tree_commit_tree(&base, fx->repo, &fx->base, &err), 0);
	assert_int_equal(tree_write_blob(&blob, plain, changed,
					 strlen(changed), &err), 0);
	ch.path = "fs/btrfs/b.c";
	ch.blob = blob;
	assert_int_equal(tree_update(&next, plain, &base, &ch, 1, &err), 0);
	tree_prefetch_start(fx->repo, &base, paths, 5);
	tree_prefetch_wait(fx->repo);
	for (size_t round = 0; round < 2; round++)
		for (size_t i = 0; i < 5; i++) {
			const struct tree_oid *t = i == 1 ? &next : &base;
			struct buf a = BUF_INIT, b = BUF_INIT;
			bool ea, eb;
			unsigned ma = 0, mb = 0;

			assert_int_equal(tree_read_file(&a, &ea, &ma, fx->repo,
							t, paths[i], &err), 0);
			assert_int_equal(tree_read_file(&b, &eb, &mb, plain, t,
							paths[i], &err), 0);
			assert_int_equal(ea, eb);
			assert_int_equal(ma, mb);
			assert_int_equal(a.len, b.len);
			assert_memory_equal(a.ptr, b.ptr, a.len);
			if (i == 1)
				assert_string_equal(a.ptr, changed);
			buf_release(&a);
			buf_release(&b);
		}
	tree_prefetch_stop(fx->repo);
	tree_close(plain);
	err_release(&err);
}

/*
 * Hardening 10: a patch adding 100,000 files was still refreshing after
 * 600 s.  Every path looked its folder up again in a tree libgit2 would
 * not cache (over 4 KiB), inflating it once per path, and paths were
 * matched pairwise, in the diff and in the patch's files so far.  Speed
 * is not timed here (t092 is a hang detector, bench/ times it): the work
 * of carrying and refreshing n new files in folders of 250 is counted
 * against n.  Bytes inflated: each tree and blob about once, some 45 a
 * file (89,396), where each path inflating its folder read 8,760 a file
 * (17,519,396); paths compared: a few per path in a hash map (8,296),
 * where pairwise matching made 2.5 n * n (9,997,000).
 */
static void many_files_carry_and_refresh_in_linear_work(void **state)
{
	const struct unit_repo *fx = *state;
	const size_t n = 2000;
	struct buf text = BUF_INIT;
	const char *texts[1];
	struct series_version v;
	struct carry_result res;
	struct carry_opts opts;
	struct tree_reads reads = { 0, 0 };
	struct err err = ERR_INIT;
	size_t cmp, written;
	char *dir, *got;

	buf_adds(&text, "From: Ann Author <ann@example.org>\n"
			"Subject: [PATCH] add many files\n\n---\n");
	for (size_t i = 0; i < n; i++)
		buf_addf(&text, "--- /dev/null\n+++ b/d%zu/f%04zu.c\n"
			 "@@ -0,0 +1 @@\n+file %zu\n", i % 8, i, i);
	texts[0] = text.ptr;
	default_opts(&opts);
	make_version(&v, "v1", texts, 1);
	dir = xstrfmt("%s/patches/btrfs/v1", fx->dir);
	if (fs_mkdirs(dir, &err) < 0 ||
	    tree_count_reads(fx->repo, &reads, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	cmp = strmap_comparisons();
	carry_ok(&res, fx, &v, "t", &opts);
	assert_int_equal(res.counts[OUTCOME_CLEAN], 1);
	if (refresh_write(&written, fx->dir, fx->repo, &res, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	cmp = strmap_comparisons() - cmp;
	assert_int_equal(written, 1);
	got = unit_capture("grep -c '^+++ b/' '%s'/t/*.patch", dir);
	assert_int_equal(strtoul(got, NULL, 10), n);
	if (reads.bytes > 200 * n)
		fail_msg("%zu bytes inflated in %zu objects for %zu files",
			 reads.bytes, reads.objects, n);
	if (cmp > 16 * n)
		fail_msg("%zu path comparisons for %zu files", cmp, n);
	carry_result_release(&res);
	series_version_release(&v);
	buf_release(&text);
	err_release(&err);
	free(dir);
	free(got);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, unit_repo_teardown)

/* A patch whose two files each have one adapted hunk, for the notes. */
static const char *const adapted_msg =
	"From: A U Thor <author@example.org>\n"
	"Subject: [PATCH] demo: fix\n"
	"\n"
	"Body.\n"
	"\n"
	"Signed-off-by: A U Thor <author@example.org>\n"
	"---\n"
	"diff --git a/a.c b/a.c\n"
	"--- a/a.c\n"
	"+++ b/a.c\n"
	"@@ -1 +1 @@\n"
	"-x\n"
	"+y\n";

static void notes_take_the_form_and_place_asked(void **state)
{
	struct series_item it = { 0 };
	struct adaptation a1 = { .note = "one" }, a2 = { .note = "two" };
	struct apply_hunk_result h1[2] = { { 0 } }, h2[1] = { { 0 } };
	struct carry_file files[2] = { { 0 } };
	struct carry_patch cp = { 0 };
	struct buf m = BUF_INIT;

	(void)state;
	parse_text(&it.patch, adapted_msg);
	assert_true(it.patch.nr_trailers > 0);
	h1[1].adapt = &a1;
	h2[0].adapt = &a2;
	files[0] = (struct carry_file){ .path = "a.c", .hunks = h1,
					.nr_hunks = 2 };
	files[1] = (struct carry_file){ .path = "b.c", .hunks = h2,
					.nr_hunks = 1 };
	cp.item = &it;
	cp.files = files;
	cp.nr_files = 2;

	buf_adds(&m, "Body.\n\nSigned-off-by: A\n");
	assert_int_equal(carry_adapted_notes(&m, &cp), 2);
	assert_string_equal(m.ptr, "Body.\n\nSigned-off-by: A\n"
				   "[ adapted: a.c hunk 2: one ]\n"
				   "[ adapted: b.c hunk 1: two ]\n");
	cp.note_form = CARRY_NOTE_RHEL;
	buf_reset(&m);
	buf_adds(&m, "Body.\n\nSigned-off-by: A"); /* no final LF */
	assert_int_equal(carry_adapted_notes(&m, &cp), 2);
	assert_string_equal(m.ptr, "Body.\n\nSigned-off-by: A\n\n"
				   "Conflicts: a.c: hunk 2: one\n"
				   "  b.c: hunk 1: two\n");
	/* an empty description: the notes alone */
	buf_reset(&m);
	assert_int_equal(carry_adapted_notes(&m, &cp), 2);
	assert_string_equal(m.ptr, "Conflicts: a.c: hunk 2: one\n"
				   "  b.c: hunk 1: two\n");
	/* without trailers, stable's lines are a paragraph of their own */
	patch_release(&it.patch);
	patch_init(&it.patch);
	cp.note_form = CARRY_NOTE_STABLE;
	buf_reset(&m);
	buf_adds(&m, "Body.\n");
	assert_int_equal(carry_adapted_notes(&m, &cp), 2);
	assert_string_equal(m.ptr, "Body.\n\n[ adapted: a.c hunk 2: one ]\n"
				   "[ adapted: b.c hunk 1: two ]\n");
	/* nothing adapted: nothing added */
	h1[1].adapt = h2[0].adapt = NULL;
	buf_reset(&m);
	buf_adds(&m, "Body.\n");
	assert_int_equal(carry_adapted_notes(&m, &cp), 0);
	assert_string_equal(m.ptr, "Body.\n");
	buf_release(&m);
	patch_release(&it.patch);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(clean_series_becomes_commits_on_a_branch),
		T(conflict_is_not_committed_and_overlap_depends_on_it),
		T(already_applied_patch_is_not_committed),
		T(until_stops_before_the_given_patch),
		T(stop_skips_everything_after_a_conflict),
		T(no_ref_computes_without_moving_a_branch),
		T(carrying_again_gives_the_same_commits),
		T(refused_hunk_is_never_adapted),
		T(empty_version_points_the_branch_at_base),
		T(progress_is_called_before_each_patch),
		T(recorded_resolution_is_replayed),
		T(tilde_in_version_makes_a_valid_branch),
		cmocka_unit_test(branch_name_escapes_what_refs_refuse),
		cmocka_unit_test(branch_names_of_distinct_versions_differ),
		cmocka_unit_test(notes_take_the_form_and_place_asked),
		T(fingerprint_ignores_line_numbers),
		T(fingerprint_changes_with_the_tree_or_the_change),
		T(read_ahead_gives_what_the_tree_has),
		T(many_files_carry_and_refresh_in_linear_work),
	};

	return cmocka_run_group_tests(tests, group_setup, unit_git_teardown);
}
