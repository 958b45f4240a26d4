#include "unit.h"

#include <stdio.h>

#include "rebase.h"
#include "tree.h"

/*
 * rebase: the interdiff of two versions of a file patch (same base,
 * shifted base, drift in the context, hunks only on one side, a new file,
 * edits that cannot be laid on one base), the property that it turns what
 * V1 makes of a file into what V2 makes of it, and rebase_target on a
 * throw-away workspace: reused, updated, new, dropped, a person's V1
 * resolution carried into V2 and recorded, never replayed otherwise.
 */

/* The group's state is HOME for git and libgit2, a folder of its own. */
static int group_setup(void **state)
{
	return unit_git_setup(state, "rebase", "Ann Author", "ann@example.org",
			      "Cee Committer", "cee@example.org");
}

/* ---- building patches ---------------------------------------------------- */

/* seq-like text: one line per number from..to, "PREFIX<n>" */
static void lines(struct buf *b, const char *prefix, int from, int to)
{
	for (int i = from; i <= to; i++)
		buf_addf(b, "%s%d\n", prefix, i);
}

/* A file patch turning old into new (three lines of context). */
static void make_patch(struct patch *p, const char *path, const struct buf *old,
		       const struct buf *new)
{
	struct err err = ERR_INIT;
	struct tree_diff td;
	struct buf text = BUF_INIT;
	const char *o = old->ptr, *n = new->ptr;
	const char **ol, **nl;
	size_t on = 0, nn = 0;

	ol = xcalloc(old->len + 2, sizeof(char *));
	nl = xcalloc(new->len + 2, sizeof(char *));
	for (const char *s = o; *s; s = strchr(s, '\n') + 1)
		ol[on++] = s;
	for (const char *s = n; *s; s = strchr(s, '\n') + 1)
		nl[nn++] = s;
	if (tree_diff_text(&td, (struct span){ old->ptr, old->len },
			   (struct span){ new->ptr, new->len }, 3, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	buf_addf(&text, "--- %s%s\n+++ b/%s\n", old->len ? "a/" : "",
		 old->len ? path : "/dev/null", path);
	for (size_t h = 0; h < td.nr_hunks; h++) {
		const struct tree_diff_hunk *th = &td.hunks[h];
		buf_addf(&text, "@@ -%zu,%zu +%zu,%zu @@\n", th->old_start,
			 th->old_count, th->new_start, th->new_count);
		for (size_t k = th->first; k < th->first + th->nr; k++) {
			const struct tree_diff_line *l = &td.lines[k];
			const char *s = l->kind == '+' ? nl[l->new_no - 1]
						       : ol[l->old_no - 1];
			buf_addc(&text, l->kind);
			buf_add(&text, s, (size_t)(strchr(s, '\n') - s) + 1);
		}
	}
	patch_init(p);
	if (patch_parse(p, text.ptr, text.len, NULL, &err) < 0)
		fail_msg("%s\n%s", err.msg.ptr, text.ptr);
	tree_diff_release(&td);
	buf_release(&text);
	free(ol);
	free(nl);
	err_release(&err);
}

static int interdiff(struct buf *out, const struct patch *p1,
		     const struct patch *p2)
{
	struct err err = ERR_INIT;
	int rc = rebase_interdiff(out, &p1->files[0], &p2->files[0], &err);

	err_release(&err);
	return rc;
}

/* apply the interdiff to what P1 makes of base1: must be what P2 makes. */
static void assert_interdiff_turns(const struct buf *post1,
				   const struct buf *post2,
				   const struct buf *idiff)
{
	struct err err = ERR_INIT;
	struct apply_opts ao = APPLY_OPTS_INIT;
	struct apply_file_result ar;
	struct patch ip;

	if (!idiff->len) {
		assert_string_equal(post1->ptr, post2->ptr);
		return;
	}
	patch_init(&ip);
	if (patch_parse(&ip, idiff->ptr, idiff->len, NULL, &err) < 0)
		fail_msg("%s\n%s", err.msg.ptr, idiff->ptr);
	apply_file_result_init(&ar);
	if (apply_file(&ar, &ip.files[0],
		       (struct span){ post1->ptr, post1->len }, true, &ao,
		       &err) < 0)
		fail_msg("%s", err.msg.ptr);
	assert_int_equal(ar.outcome, OUTCOME_CLEAN);
	assert_string_equal(ar.out.ptr, post2->ptr);
	apply_file_result_release(&ar);
	patch_release(&ip);
	err_release(&err);
}

/* ---- the interdiff -------------------------------------------------------- */

static void same_edits_on_the_same_base_give_nothing(void **state)
{
	struct buf base = BUF_INIT, post = BUF_INIT, out = BUF_INIT;
	struct patch p1, p2;

	lines(&base, "l", 1, 40);
	lines(&post, "l", 1, 9);
	buf_adds(&post, "new\n");
	lines(&post, "l", 11, 40);
	make_patch(&p1, "f.c", &base, &post);
	make_patch(&p2, "f.c", &base, &post);
	assert_int_equal(interdiff(&out, &p1, &p2), 0);
	assert_int_equal(out.len, 0);
	patch_release(&p1);
	patch_release(&p2);
	buf_release(&base);
	buf_release(&post);
	buf_release(&out);
}

static void one_changed_line_gives_one_hunk(void **state)
{
	struct buf base = BUF_INIT, a = BUF_INIT, b = BUF_INIT, out = BUF_INIT;
	struct patch p1, p2;

	lines(&base, "l", 1, 40);
	lines(&a, "l", 1, 9);
	buf_adds(&a, "v1\n");
	lines(&a, "l", 11, 40);
	lines(&b, "l", 1, 9);
	buf_adds(&b, "v2\n");
	lines(&b, "l", 11, 40);
	make_patch(&p1, "f.c", &base, &a);
	make_patch(&p2, "f.c", &base, &b);
	assert_int_equal(interdiff(&out, &p1, &p2), 0);
	assert_string_equal(out.ptr,
			    "--- a/f.c\n+++ b/f.c\n"
			    "@@ -7,7 +7,7 @@\n"
			    " l7\n l8\n l9\n-v1\n+v2\n l11\n l12\n l13\n");
	assert_interdiff_turns(&a, &b, &out);
	patch_release(&p1);
	patch_release(&p2);
	buf_release(&base);
	buf_release(&a);
	buf_release(&b);
	buf_release(&out);
}

/* V2 was made on a base with 20 more lines at the top, far from the
 * change: its hunks are found by the lines they share with V1's. */
static void shifted_base_is_aligned_by_content(void **state)
{
	struct buf b1 = BUF_INIT, b2 = BUF_INIT, a = BUF_INIT, b = BUF_INIT;
	struct buf out = BUF_INIT, post2 = BUF_INIT;
	struct patch p1, p2;

	lines(&b1, "l", 1, 60);
	lines(&b2, "top", 1, 20);
	lines(&b2, "l", 1, 60);
	lines(&a, "l", 1, 39);
	buf_adds(&a, "v1\n");
	lines(&a, "l", 41, 60);
	lines(&b, "top", 1, 20);
	lines(&b, "l", 1, 39);
	buf_adds(&b, "v1\nand v2\n");
	lines(&b, "l", 41, 60);
	make_patch(&p1, "f.c", &b1, &a);
	make_patch(&p2, "f.c", &b2, &b);
	assert_int_equal(p2.files[0].hunks[0].old_start, 57);
	assert_int_equal(interdiff(&out, &p1, &p2), 0);
	/* on V1's postimage: the line after v1 */
	lines(&post2, "l", 1, 39);
	buf_adds(&post2, "v1\nand v2\n");
	lines(&post2, "l", 41, 60);
	assert_interdiff_turns(&a, &post2, &out);
	patch_release(&p1);
	patch_release(&p2);
	buf_release(&b1);
	buf_release(&b2);
	buf_release(&a);
	buf_release(&b);
	buf_release(&out);
	buf_release(&post2);
}

/* A context line the base changed under V2 is not V2's change. */
static void context_drift_is_left_out(void **state)
{
	struct buf b1 = BUF_INIT, b2 = BUF_INIT, a = BUF_INIT, b = BUF_INIT;
	struct buf out = BUF_INIT;
	struct patch p1, p2;

	lines(&b1, "l", 1, 40);
	lines(&b2, "l", 1, 11);
	buf_adds(&b2, "l12 upstream changed this\n");
	lines(&b2, "l", 13, 40);
	lines(&a, "l", 1, 9);
	buf_adds(&a, "v1\n");
	lines(&a, "l", 11, 40);
	lines(&b, "l", 1, 9);
	buf_adds(&b, "v1\n");
	lines(&b, "l", 11, 11);
	buf_adds(&b, "l12 upstream changed this\n");
	lines(&b, "l", 13, 40);
	make_patch(&p1, "f.c", &b1, &a);
	make_patch(&p2, "f.c", &b2, &b);
	assert_int_equal(interdiff(&out, &p1, &p2), 0);
	assert_int_equal(out.len, 0);
	patch_release(&p1);
	patch_release(&p2);
	buf_release(&b1);
	buf_release(&b2);
	buf_release(&a);
	buf_release(&b);
	buf_release(&out);
}

/* V2 drops V1's first hunk and adds one of its own: both in the interdiff. */
static void hunks_only_on_one_side_are_reverted_or_added(void **state)
{
	struct buf base = BUF_INIT, a = BUF_INIT, b = BUF_INIT, out = BUF_INIT;
	struct patch p1, p2;

	lines(&base, "l", 1, 60);
	lines(&a, "l", 1, 9);
	buf_adds(&a, "v1 only\n");
	lines(&a, "l", 11, 29);
	buf_adds(&a, "both\n");
	lines(&a, "l", 31, 60);
	lines(&b, "l", 1, 29);
	buf_adds(&b, "both\n");
	lines(&b, "l", 31, 49);
	buf_adds(&b, "v2 only\n");
	lines(&b, "l", 51, 60);
	make_patch(&p1, "f.c", &base, &a);
	make_patch(&p2, "f.c", &base, &b);
	assert_int_equal(interdiff(&out, &p1, &p2), 0);
	assert_non_null(strstr(out.ptr, "-v1 only\n+l10\n"));
	assert_non_null(strstr(out.ptr, "-l50\n+v2 only\n"));
	assert_null(strstr(out.ptr, "both"));
	assert_interdiff_turns(&a, &b, &out);
	patch_release(&p1);
	patch_release(&p2);
	buf_release(&base);
	buf_release(&a);
	buf_release(&b);
	buf_release(&out);
}

static void new_file_versions_give_a_change_of_it(void **state)
{
	struct buf none = BUF_INIT, a = BUF_INIT, b = BUF_INIT, out = BUF_INIT;
	struct patch p1, p2;

	lines(&a, "n", 1, 10);
	lines(&b, "n", 1, 5);
	buf_adds(&b, "inserted\n");
	lines(&b, "n", 6, 10);
	make_patch(&p1, "new.c", &none, &a);
	make_patch(&p2, "new.c", &none, &b);
	assert_int_equal(p1.files[0].op, PATCH_ADD);
	assert_int_equal(interdiff(&out, &p1, &p2), 0);
	assert_string_equal(out.ptr,
			    "--- a/new.c\n+++ b/new.c\n"
			    "@@ -3,6 +3,7 @@\n"
			    " n3\n n4\n n5\n+inserted\n n6\n n7\n n8\n");
	assert_interdiff_turns(&a, &b, &out);
	patch_release(&p1);
	patch_release(&p2);
	buf_release(&a);
	buf_release(&b);
	buf_release(&out);
}

/* Both remove line 10, but it reads otherwise: no common base. */
static void an_edited_line_that_differs_is_a_conflict(void **state)
{
	struct buf b1 = BUF_INIT, b2 = BUF_INIT, a = BUF_INIT, out = BUF_INIT;
	struct patch p1, p2;
	struct err err = ERR_INIT;

	lines(&b1, "l", 1, 40);
	lines(&b2, "l", 1, 9);
	buf_adds(&b2, "l10 otherwise\n");
	lines(&b2, "l", 11, 40);
	lines(&a, "l", 1, 9);
	lines(&a, "l", 11, 40);
	make_patch(&p1, "f.c", &b1, &a);
	make_patch(&p2, "f.c", &b2, &a);
	assert_int_equal(rebase_interdiff(&out, &p1.files[0], &p2.files[0],
					  &err),
			 ERR_CONFLICT);
	assert_non_null(strstr(err.msg.ptr, "edits lines"));
	patch_release(&p1);
	patch_release(&p2);
	buf_release(&b1);
	buf_release(&b2);
	buf_release(&a);
	buf_release(&out);
	err_release(&err);
}

static int rnd(unsigned *seed, int n)
{
	*seed = *seed * 1103515245u + 12345u;
	return (int)((*seed >> 16) % (unsigned)n);
}

/* Random V1 and V2 edits of one base (V2's base shifted far away from
 * them): applying the interdiff to V1's result gives V2's, every time. */
static void interdiff_turns_v1s_result_into_v2s(void **state)
{
	unsigned seed = 4242;
	int done = 0;

	for (int t = 0; t < 300; t++) {
		struct buf base = BUF_INIT, b2 = BUF_INIT, a = BUF_INIT;
		struct buf b = BUF_INIT, bb = BUF_INIT, out = BUF_INIT;
		struct patch p1, p2;
		int shift;
		char e1[81] = { 0 }, e2[81] = { 0 };

		shift = rnd(&seed, 2) ? 0 : 1 + rnd(&seed, 30);
		lines(&base, "l", 1, 80);
		for (int k = 0; k < 4; k++) {
			int at = 30 + rnd(&seed, 40);
			e1[at] = (char)(1 + rnd(&seed, 3));
			at = 30 + rnd(&seed, 40);
			e2[at] = (char)(1 + rnd(&seed, 3));
		}
		if (rnd(&seed, 2))
			memcpy(e2, e1, sizeof(e1));
		{
			int at = 30 + rnd(&seed, 40);
			e2[at] = (char)(1 + rnd(&seed, 3));
		}
		/* 1 change the line, 2 drop it, 3 add one after it */
		for (int i = 1; i <= 80; i++) {
			struct buf *dst[2] = { &a, &b };
			char *e[2] = { e1, e2 };
			for (int s = 0; s < 2; s++) {
				if (e[s][i] == 1)
					buf_addf(dst[s], "l%d changed %d\n", i,
						 s);
				else if (e[s][i] != 2)
					buf_addf(dst[s], "l%d\n", i);
				if (e[s][i] == 3)
					buf_addf(dst[s], "added after %d\n", i);
			}
		}
		lines(&b2, "top", 1, shift);
		buf_add(&b2, base.ptr, base.len);
		lines(&bb, "top", 1, shift);
		buf_add(&bb, b.ptr, b.len);
		make_patch(&p1, "f.c", &base, &a);
		make_patch(&p2, "f.c", &b2, &bb);
		if (!p1.nr_files || !p2.nr_files)
			goto next;
		if (interdiff(&out, &p1, &p2) < 0)
			fail_msg("trial %d: no interdiff", t);
		assert_interdiff_turns(&a, &b, &out);
		done++;
next:
		patch_release(&p1);
		patch_release(&p2);
		buf_release(&base);
		buf_release(&b2);
		buf_release(&a);
		buf_release(&b);
		buf_release(&bb);
		buf_release(&out);
	}
	assert_true(done > 250);
}

/* ---- rebase_target on a workspace --------------------------------------- */

struct ws {
	char *dir, *root, *repo;
};

/* a macro, not a variable: a format the compiler can check at -O0 too */
#define WS_SCRIPT \
	"set -e; git -c init.defaultBranch=main init -q repo; cd repo;" \
	"mkdir -p fs/btrfs; seq -f 'a%%02g' 1 40 >fs/btrfs/a.c;" \
	"seq -f 'b%%02g' 1 40 >fs/btrfs/b.c; git add -A;" \
	"git commit -qm base; git tag base; cd ..;" \
	"mkdir -p ws/series ws/kernels ws/patches;" \
	"printf '[kernel]\\n\\turl = %s/repo\\n\\tref = base\\n' " \
	">ws/kernels/t.conf; true"

static void ws_init(struct ws *w)
{
	w->dir = xstrfmt("%s/kcarry-test-rebase-XXXXXX", unit_tmpdir());
	if (!mkdtemp(w->dir))
		fail_msg("mkdtemp");
	{
		char *script = xstrfmt(WS_SCRIPT, w->dir);
		assert_int_equal(unit_run("cd '%s' && %s", w->dir, script), 0);
		free(script);
	}
	w->root = fs_join(w->dir, "ws");
	w->repo = fs_join(w->dir, "repo");
}

static void ws_release(struct ws *w)
{
	struct err err = ERR_INIT;

	fs_remove_tree(w->dir, &err);
	err_release(&err);
	free(w->dir);
	free(w->root);
	free(w->repo);
}

static char *hunk(const char *f, int line, const char *was, const char *now)
{
	/* a one-line change of FILE at LINE with three lines of context */
	struct buf b = BUF_INIT;

	buf_addf(&b, "diff --git a/fs/btrfs/%s.c b/fs/btrfs/%s.c\n"
		     "--- a/fs/btrfs/%s.c\n+++ b/fs/btrfs/%s.c\n"
		     "@@ -%d,7 +%d,7 @@\n",
		 f, f, f, f, line - 3, line - 3);
	for (int i = line - 3; i < line; i++)
		buf_addf(&b, " %s%02d\n", f, i);
	buf_addf(&b, "-%s\n+%s\n", was, now);
	for (int i = line + 1; i <= line + 3; i++)
		buf_addf(&b, " %s%02d\n", f, i);
	return buf_detach(&b, NULL);
}

/* Two diffs as one (both freed). */
static char *both(char *a, char *b)
{
	char *s = xstrfmt("%s%s", a, b);

	free(a);
	free(b);
	return s;
}

static void add_patch(struct series_version *v, const char *subject,
		      char *diff)
{
	struct err err = ERR_INIT;
	struct buf text = BUF_INIT;
	struct patch p;

	buf_addf(&text, "From: Ann Author <ann@example.org>\n"
			"Date: Tue, 2 Nov 2021 14:49:16 +0200\n"
			"Subject: [PATCH] %s\n\n---\n%s",
		 subject, diff);
	patch_init(&p);
	if (patch_parse(&p, text.ptr, text.len, NULL, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	series_version_add(v, &p, &text, "test");
	patch_release(&p);
	buf_release(&text);
	free(diff);
	err_release(&err);
}

static void rebase_ok(struct rebase_result *r, struct ws *w,
		      const struct series_version *v1,
		      const struct series_version *v2, bool dry_run)
{
	struct err err = ERR_INIT;
	struct job j;
	struct vdiff d;
	struct rebase_opts ro = { .carry = { .apply = APPLY_OPTS_INIT } };

	ro.dry_run = dry_run;
	ro.refresh =
		false; /* the versions are not stored: no refreshed series */
	if (job_open(&j, w->root, "t", NULL, &err) < 0 ||
	    vdiff_compute(&d, v1, v2, NULL, &err) < 0 ||
	    rebase_target(r, &j, v1, v2, &d, &ro, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	vdiff_release(&d);
	job_close(&j);
	err_release(&err);
}

static void statuses_are_reused_updated_new_dropped(void **state)
{
	struct ws w;
	struct series_version v1, v2;
	struct rebase_result r;

	ws_init(&w);
	series_version_init(&v1, "s", "v1");
	series_version_init(&v2, "s", "v2");
	add_patch(&v1, "btrfs: one", hunk("a", 10, "a10", "a10 one"));
	add_patch(&v1, "btrfs: two", hunk("a", 20, "a20", "a20 two"));
	add_patch(&v1, "btrfs: gone", hunk("b", 10, "b10", "b10 gone"));
	add_patch(&v2, "btrfs: one", hunk("a", 10, "a10", "a10 one"));
	add_patch(&v2, "btrfs: two", hunk("a", 20, "a20", "a20 two, v2"));
	add_patch(&v2, "btrfs: new", hunk("b", 30, "b30", "b30 new"));
	rebase_ok(&r, &w, &v1, &v2, false);
	assert_int_equal(r.nr, 4);
	assert_int_equal(r.patches[0].status, REBASE_REUSED);
	assert_int_equal(r.patches[0].how, REBASE_HOW_APPLIED);
	assert_int_equal(r.patches[1].status, REBASE_UPDATED);
	/* V1 needed no person: V2's patch as it is */
	assert_int_equal(r.patches[1].how, REBASE_HOW_APPLIED);
	assert_false(r.patches[1].recorded);
	assert_int_equal(r.patches[2].status, REBASE_DROPPED);
	assert_int_equal(r.patches[2].v1, 2);
	assert_int_equal(r.patches[3].status, REBASE_NEW);
	assert_int_equal(r.counts[REBASE_PERSON], 0);
	assert_int_equal(r.nr_changed, 2);
	assert_true(r.carried);
	assert_string_equal(r.carry.branch, "refs/heads/kcarry/s/v2/t");
	{
		char *a = unit_capture(
			"git -C '%s' show kcarry/s/v2/t:fs/btrfs/a.c"
			" | sed -n 20p",
			w.repo);
		assert_string_equal(a, "a20 two, v2");
		free(a);
	}
	rebase_result_release(&r);
	series_version_release(&v1);
	series_version_release(&v2);
	ws_release(&w);
}

/* V1's patch conflicted and a person resolved it; V2 changes it beside the
 * conflict: the resolution is carried and recorded for V2's patch. */
static void persons_resolution_is_carried_and_recorded(void **state)
{
	struct ws w;
	struct series_version v1, v2;
	struct rebase_result r;
	struct err err = ERR_INIT;
	char *res, *a;
	size_t nres;
	char **names = NULL;

	ws_init(&w);
	series_version_init(&v1, "s", "v1");
	series_version_init(&v2, "s", "v2");
	/* line 10 reads "a10" in the target, the patch expects "a10 up" */
	add_patch(&v1, "btrfs: fix",
		  both(hunk("a", 10, "a10 up", "a10 fixed"),
		       hunk("b", 20, "b20", "b20 v1")));
	add_patch(&v2, "btrfs: fix",
		  both(hunk("a", 10, "a10 up", "a10 fixed"),
		       hunk("b", 20, "b20", "b20 v2")));
	/* the person's resolution of V1, as refresh records it */
	res = unit_capture(
		"cd '%s' && git checkout -q -b person base && "
		"sed -i 's/^a10$/a10 fixed by a person/' fs/btrfs/a.c && "
		"sed -i 's/^b20$/b20 v1/' fs/btrfs/b.c && "
		"git -c user.name=x -c user.email=x@y commit -qam 'btrfs: fix' "
		"&& "
		"git format-patch -1 --stdout && git checkout -q base",
		w.repo);
	{
		struct job j;
		struct tree_oid tree;
		char fp[41];
		if (job_open(&j, w.root, "t", NULL, &err) < 0 ||
		    tree_commit_tree(&tree, j.repo, &j.base, &err) < 0 ||
		    carry_fingerprint(fp, j.repo, &tree, &v1.items[0].patch,
				      &err) < 0 ||
		    series_write_resolution(w.root, "s", fp, res, strlen(res),
					    &err) < 0)
			fail_msg("%s", err.msg.ptr);
		job_close(&j);
	}
	rebase_ok(&r, &w, &v1, &v2, false);
	assert_int_equal(r.patches[0].status, REBASE_UPDATED);
	assert_int_equal(r.patches[0].how, REBASE_HOW_INTERDIFF);
	assert_true(r.patches[0].v1_resolved);
	assert_true(r.patches[0].recorded);
	assert_true(r.carry.patches[0].resolved);
	a = unit_capture(
		"git -C '%s' show kcarry/s/v2/t:fs/btrfs/a.c | sed -n 10p;"
		"git -C '%s' show kcarry/s/v2/t:fs/btrfs/b.c | sed -n 20p",
		w.repo, w.repo);
	assert_string_equal(a, "a10 fixed by a person\nb20 v2");
	free(a);
	{
		char *dir = xstrfmt("%s/patches/s/.resolutions", w.root);
		if (fs_list_dir(dir, &names, &nres, &err) < 0)
			fail_msg("%s", err.msg.ptr);
		assert_int_equal(nres, 2); /* V1's, and V2's */
		fs_free_list(names, nres);
		free(dir);
	}
	rebase_result_release(&r);
	free(res);
	series_version_release(&v1);
	series_version_release(&v2);
	ws_release(&w);
	err_release(&err);
}

static void dry_run_records_nothing(void **state)
{
	struct ws w;
	struct series_version v1, v2;
	struct rebase_result r;
	char *dir;

	ws_init(&w);
	series_version_init(&v1, "s", "v1");
	series_version_init(&v2, "s", "v2");
	add_patch(&v1, "btrfs: one", hunk("a", 10, "a10", "a10 one"));
	add_patch(&v2, "btrfs: one", hunk("a", 10, "a10", "a10 one, v2"));
	rebase_ok(&r, &w, &v1, &v2, true);
	assert_false(r.carried);
	assert_int_equal(r.patches[0].status, REBASE_UPDATED);
	assert_int_equal(unit_run("git -C '%s' rev-parse -q --verify "
				  "kcarry/s/v2/t",
				  w.repo) == 0,
			 0);
	dir = xstrfmt("%s/patches/s/v2", w.root);
	assert_false(fs_is_dir(dir));
	free(dir);
	rebase_result_release(&r);
	series_version_release(&v1);
	series_version_release(&v2);
	ws_release(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(same_edits_on_the_same_base_give_nothing),
		cmocka_unit_test(one_changed_line_gives_one_hunk),
		cmocka_unit_test(shifted_base_is_aligned_by_content),
		cmocka_unit_test(context_drift_is_left_out),
		cmocka_unit_test(hunks_only_on_one_side_are_reverted_or_added),
		cmocka_unit_test(new_file_versions_give_a_change_of_it),
		cmocka_unit_test(an_edited_line_that_differs_is_a_conflict),
		cmocka_unit_test(interdiff_turns_v1s_result_into_v2s),
		cmocka_unit_test(statuses_are_reused_updated_new_dropped),
		cmocka_unit_test(persons_resolution_is_carried_and_recorded),
		cmocka_unit_test(dry_run_records_nothing),
	};

	return cmocka_run_group_tests(tests, group_setup, unit_git_teardown);
}
