/*
 * resolve: a build's refusals of adaptations as recorded in
 * patches/NAME/.resolutions/KEY.refused (resolve_record_refusals) and
 * read back (resolve_read_refusals): only for the cell, tree and
 * fingerprint they were written for, whole or not at all; pruned per
 * cell (resolve_prune_refusals).
 */
#include "unit.h"

#include <stdio.h>
#include <unistd.h>

#include "fs.h"
#include "resolve.h"

#define FP "0123456789abcdef0123456789abcdef01234567"

struct fixture {
	char *dir;
	struct tree_oid tree, other;
};

static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR");
	struct fixture *fx = xcalloc(1, sizeof(*fx));

	fx->dir = xstrfmt("%s/kcarry-test-resolve-XXXXXX",
			  tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(fx->dir)) {
		free(fx->dir);
		free(fx);
		return -1;
	}
	tree_oid_parse(&fx->tree, "1111111111111111111111111111111111111111");
	tree_oid_parse(&fx->other, "2222222222222222222222222222222222222222");
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	struct err err = ERR_INIT;
	int rc = fs_remove_tree(fx->dir, &err);

	err_release(&err);
	free(fx->dir);
	free(fx);
	return rc;
}

#define ID "89abcdef0123456789abcdef0123456789abcdef"

static const struct carry_refusal two[] = {
	{ 0, 1, "fs/btrfs/demo.c",
	  "fs/btrfs/demo.c:16: error: too many arguments\nsecond line", ID },
	{ 2, 0, "fs/btrfs/demo 2.c", "fs/btrfs/demo 2.c:3: warning: unused",
	  NULL },
};

/* w, for the patch (fingerprint) meeting tree. */
static const struct resolve_where *at(struct resolve_where *w,
				      const struct tree_oid *tree,
				      const char *fingerprint)
{
	w->tree = tree;
	w->fingerprint = fingerprint;
	return w;
}

static void record(struct fixture *fx, struct resolve_where *w,
		   const struct tree_oid *tree, char key[41])
{
	struct err err = ERR_INIT;

	assert_int_equal(resolve_record_refusals(key, at(w, tree, FP), two, 2,
						 &err),
			 0);
	err_release(&err);
	(void)fx;
}

static void recorded_refusals_read_back_whole(void **state)
{
	struct fixture *fx = *state;
	struct resolve_where w = { fx->dir, "s", "v1", "tgt", NULL, NULL };
	struct carry_refusal *r;
	struct err err = ERR_INIT;
	char key[41];
	size_t nr;

	record(fx, &w, &fx->tree, key);
	assert_int_equal(resolve_read_refusals(&r, &nr,
					       at(&w, &fx->tree, FP), &err),
			 0);
	assert_int_equal(nr, 2);
	assert_int_equal(r[0].file, 0);
	assert_int_equal(r[0].hunk, 1);
	assert_string_equal(r[0].path, "fs/btrfs/demo.c");
	/* one line: the diagnostic's newline is a space */
	assert_string_equal(r[0].diag, "fs/btrfs/demo.c:16: error: too many "
				       "arguments second line");
	assert_int_equal(r[1].file, 2);
	assert_int_equal(r[1].hunk, 0);
	assert_string_equal(r[1].path, "fs/btrfs/demo 2.c");
	/* the adapted hunk refused, by its id; none given, none read */
	assert_string_equal(r[0].adapted, ID);
	assert_null(r[1].adapted);
	carry_refusals_free(r, nr);
	err_release(&err);
}

/* The text of the record of key in w. */
static char *record_text(const struct resolve_where *w, const char *key)
{
	char *path = xstrfmt("%s/patches/%s/.resolutions/%s.refused", w->root,
			     w->name, key);
	struct buf b = BUF_INIT;
	struct err err = ERR_INIT;

	assert_int_equal(fs_read_file(&b, path, 1 << 20, &err), 0);
	free(path);
	return buf_detach(&b, NULL);
}

static void record_names_its_series_in_clear(void **state)
{
	struct fixture *fx = *state;
	struct resolve_where w = { fx->dir, "s", "v1", "tgt", NULL, NULL };
	char key[41], *text;

	record(fx, &w, &fx->tree, key);
	text = record_text(&w, key);
	assert_non_null(strstr(text, "\ntarget tgt\nversion v1\n"));
	assert_non_null(strstr(text, "\npatch " FP "\nseries s\n"));
	assert_non_null(strstr(text, "\nrefused 1 2 fs/btrfs/demo.c\n"
				     "adapted " ID "\ndiag "));
	free(text);
}

static void another_cell_tree_or_patch_finds_none(void **state)
{
	struct fixture *fx = *state;
	struct resolve_where w = { fx->dir, "s", "v1", "tgt", NULL, NULL };
	struct resolve_where v2 = { fx->dir, "s", "v2", "tgt", NULL, NULL };
	struct resolve_where t2 = { fx->dir, "s", "v1", "tgt2", NULL, NULL };
	struct carry_refusal *r = NULL;
	struct err err = ERR_INIT;
	char key[41];
	size_t nr = 9;

	record(fx, &w, &fx->tree, key);
	assert_int_equal(resolve_read_refusals(&r, &nr,
					       at(&v2, &fx->tree, FP), &err),
			 ERR_NOTFOUND);
	assert_int_equal(resolve_read_refusals(&r, &nr,
					       at(&t2, &fx->tree, FP), &err),
			 ERR_NOTFOUND);
	assert_int_equal(resolve_read_refusals(&r, &nr,
					       at(&w, &fx->other, FP), &err),
			 ERR_NOTFOUND);
	assert_int_equal(resolve_read_refusals(
				 &r, &nr,
				 at(&w, &fx->tree,
				    "fedcba9876543210fedcba9876543210fedcba98"),
				 &err),
			 ERR_NOTFOUND);
	assert_null(r);
	assert_int_equal(nr, 0);
	err_release(&err);
}

/* The record of key in w, overwritten with text. */
static void overwrite(const struct resolve_where *w, const char *key,
		      const char *text)
{
	char *path = xstrfmt("%s/patches/%s/.resolutions/%s.refused", w->root,
			     w->name, key);
	struct err err = ERR_INIT;

	assert_int_equal(fs_write_atomic(path, text, strlen(text), &err), 0);
	free(path);
}

static void damaged_record_is_not_used(void **state)
{
	struct fixture *fx = *state;
	struct resolve_where w = { fx->dir, "s", "v1", "tgt", NULL, NULL };
	struct carry_refusal *r = NULL;
	struct err err = ERR_INIT;
	struct buf head = BUF_INIT;
	char key[41];
	size_t nr;

	record(fx, &w, &fx->tree, key);
	buf_addf(&head, "kcarry refused adaptations\ntarget tgt\nversion v1\n"
			"tree 1111111111111111111111111111111111111111\n"
			"patch %s\n",
		 FP);
	/* a hunk without its diagnostic */
	buf_adds(&head, "refused 1 1 fs/btrfs/demo.c\n");
	overwrite(&w, key, head.ptr);
	assert_int_equal(resolve_read_refusals(&r, &nr,
					       at(&w, &fx->tree, FP), &err),
			 ERR_NOTFOUND);
	/* a line it does not know */
	buf_adds(&head, "diag x.c:1: error: y\nfrobnicate 1\n");
	overwrite(&w, key, head.ptr);
	assert_int_equal(resolve_read_refusals(&r, &nr,
					       at(&w, &fx->tree, FP), &err),
			 ERR_NOTFOUND);
	/* hunk 0 does not exist (1-based) */
	overwrite(&w, key,
		  "kcarry refused adaptations\ntarget tgt\nversion v1\n"
		  "tree 1111111111111111111111111111111111111111\n"
		  "patch " FP "\nrefused 1 0 a.c\ndiag a.c:1: error: b\n");
	assert_int_equal(resolve_read_refusals(&r, &nr,
					       at(&w, &fx->tree, FP), &err),
			 ERR_NOTFOUND);
	assert_null(r);
	buf_release(&head);
	err_release(&err);
}

/* A record kcarry wrote before it kept the adapted hunks (issue 18):
 * read, and its refusals hold for any adaptation, as they did. */
static void old_record_refuses_any_adaptation(void **state)
{
	struct fixture *fx = *state;
	struct resolve_where w = { fx->dir, "s", "v1", "tgt", NULL, NULL };
	struct adaptation a = { .adapted = "@@ -1 +1 @@\n-a\n+b\n" };
	struct carry_refusal *r = NULL;
	struct err err = ERR_INIT;
	char key[41];
	size_t nr;

	record(fx, &w, &fx->tree, key);
	overwrite(&w, key,
		  "kcarry refused adaptations\ntarget tgt\nversion v1\n"
		  "tree 1111111111111111111111111111111111111111\n"
		  "patch " FP "\nrefused 1 2 a.c\ndiag a.c:1: error: b\n");
	assert_int_equal(resolve_read_refusals(&r, &nr,
					       at(&w, &fx->tree, FP), &err),
			 0);
	assert_int_equal(nr, 1);
	assert_null(r[0].adapted);
	assert_true(carry_refusal_holds(&r[0], &a));
	assert_true(carry_refusal_holds(&r[0], NULL));
	carry_refusals_free(r, nr);
	err_release(&err);
}

static void refusal_holds_for_the_same_adaptation_alone(void **state)
{
	struct adaptation a = { .adapted = "@@ -1 +1 @@\n-a\n+b\n" };
	struct adaptation same = { .adapted = "@@ -1 +1 @@\n-a\n+b\n" };
	struct adaptation other = { .adapted = "@@ -1 +1 @@\n-a\n+c\n" };
	struct carry_refusal r = { 0, 0, "a.c", "a.c:1: error: b", NULL };
	char id[41];

	(void)state;
	carry_adaptation_id(id, &a);
	r.adapted = id;
	assert_true(carry_refusal_holds(&r, &same));
	assert_false(carry_refusal_holds(&r, &other));
	/* the hunk is not adapted now: nothing to refuse */
	assert_false(carry_refusal_holds(&r, NULL));
}

static size_t nr_records(const char *root)
{
	char *dir = xstrfmt("%s/patches/s/.resolutions", root);
	char **names = NULL;
	size_t nr = 0, n = 0;
	struct err err = ERR_INIT;

	if (fs_list_dir(dir, &names, &nr, &err) == 0)
		for (size_t i = 0; i < nr; i++)
			n += strstr(names[i], ".refused") != NULL;
	fs_free_list(names, nr);
	err_release(&err);
	free(dir);
	return n;
}

static void prune_keeps_its_keys_and_other_cells(void **state)
{
	struct fixture *fx = *state;
	struct resolve_where w = { fx->dir, "s", "v1", "tgt", NULL, NULL };
	struct resolve_where t2 = { fx->dir, "s", "v1", "tgt2", NULL, NULL };
	struct err err = ERR_INIT;
	char keep[1][41], old[41], other[41];
	struct carry_refusal *r;
	size_t nr;

	record(fx, &w, &fx->tree, keep[0]);
	record(fx, &w, &fx->other, old);
	record(fx, &t2, &fx->tree, other);
	assert_int_equal(nr_records(fx->dir), 3);
	assert_int_equal(resolve_prune_refusals(&w, keep, 1, &err), 0);
	assert_int_equal(nr_records(fx->dir), 2);
	assert_int_equal(resolve_read_refusals(&r, &nr,
					       at(&w, &fx->tree, FP), &err),
			 0);
	carry_refusals_free(r, nr);
	assert_int_equal(resolve_read_refusals(&r, &nr,
					       at(&w, &fx->other, FP), &err),
			 ERR_NOTFOUND);
	assert_int_equal(resolve_read_refusals(&r, &nr,
					       at(&t2, &fx->tree, FP), &err),
			 0);
	carry_refusals_free(r, nr);
	/* none kept: the cell has no record left; recording none removes */
	assert_int_equal(resolve_prune_refusals(&w, NULL, 0, &err), 0);
	assert_int_equal(nr_records(fx->dir), 1);
	assert_int_equal(resolve_record_refusals(other, at(&t2, &fx->tree, FP),
						 NULL, 0, &err),
			 0);
	assert_int_equal(nr_records(fx->dir), 0);
	err_release(&err);
}

/* root/rel with text (its folders made). */
static void put(const char *root, const char *rel, const char *text)
{
	char *path = fs_join(root, rel), *slash;
	struct err err = ERR_INIT;

	slash = strrchr(path, '/');
	*slash = '\0';
	assert_int_equal(fs_mkdirs(path, &err), 0);
	*slash = '/';
	assert_int_equal(fs_write_atomic(path, text, strlen(text), &err), 0);
	free(path);
}

static const struct resolve_gc_entry *
gc_entry(const struct resolve_gc_result *res, const char *key)
{
	for (size_t i = 0; i < res->nr; i++)
		if (strstr(res->entries[i].path, key))
			return &res->entries[i];
	return NULL;
}

/*
 * gc judges each record by what it names: a target gone and a version
 * gone make it stale; an older record (no series line), one naming
 * another series and one it cannot read stay, said why; --dry-run
 * removes nothing, gc the stale alone.
 */
static void gc_removes_the_stale_and_keeps_what_it_cannot_judge(void **state)
{
	struct fixture *fx = *state;
	struct resolve_where tgt = { fx->dir, "s", "v1", "tgt", NULL, NULL };
	struct resolve_where gone = { fx->dir, "s", "v1", "gone", NULL, NULL };
	struct resolve_where v9 = { fx->dir, "s", "v9", "tgt", NULL, NULL };
	struct resolve_gc_opts o = { fx->dir, NULL, 0, true };
	struct resolve_gc_result res;
	const struct resolve_gc_entry *e;
	struct err err = ERR_INIT;
	char k_gone[41], k_v9[41], k_old[41], k_other[41], k_bad[41];
	char *text;

	put(fx->dir, "kernels/tgt.conf", "");
	put(fx->dir, "patches/s/v1/series", "");
	record(fx, &gone, &fx->tree, k_gone);
	record(fx, &v9, &fx->tree, k_v9);
	record(fx, &tgt, &fx->other, k_old);
	record(fx, &tgt, &fx->tree, k_other);
	record(fx, &v9, &fx->other, k_bad);
	/* older: the same record without its series line */
	text = record_text(&tgt, k_old);
	memmove(strstr(text, "series s\n"), strstr(text, "series s\n") + 9,
		strlen(strstr(text, "series s\n") + 9) + 1);
	overwrite(&tgt, k_old, text);
	free(text);
	text = record_text(&tgt, k_other);
	memcpy(strstr(text, "series s\n"), "series t\n", 9);
	overwrite(&tgt, k_other, text);
	free(text);
	overwrite(&tgt, k_bad, "not a record\n");
	assert_int_equal(nr_records(fx->dir), 5);

	assert_int_equal(resolve_gc_refusals(&res, &o, &err), 0);
	assert_int_equal(nr_records(fx->dir), 5);
	assert_int_equal(res.nr, 5);
	assert_non_null(e = gc_entry(&res, k_gone));
	assert_true(e->stale);
	assert_string_equal(e->why, "target gone is no target of the workspace");
	assert_non_null(e = gc_entry(&res, k_v9));
	assert_true(e->stale);
	assert_string_equal(e->why, "s has no version v9");
	assert_non_null(e = gc_entry(&res, k_old));
	assert_false(e->stale);
	assert_non_null(strstr(e->why, "an older record"));
	assert_non_null(e = gc_entry(&res, k_other));
	assert_false(e->stale);
	assert_non_null(strstr(e->why, "names series t, not s"));
	assert_non_null(e = gc_entry(&res, k_bad));
	assert_false(e->stale);
	resolve_gc_result_release(&res);

	o.dry_run = false;
	assert_int_equal(resolve_gc_refusals(&res, &o, &err), 0);
	assert_int_equal(nr_records(fx->dir), 3);
	assert_int_equal(res.nr, 5);
	resolve_gc_result_release(&res);
	assert_int_equal(resolve_gc_refusals(&res, &o, &err), 0);
	assert_int_equal(res.nr, 3); /* the kept alone */
	resolve_gc_result_release(&res);
	err_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			recorded_refusals_read_back_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(
			another_cell_tree_or_patch_finds_none, setup, teardown),
		cmocka_unit_test_setup_teardown(
			record_names_its_series_in_clear, setup, teardown),
		cmocka_unit_test_setup_teardown(damaged_record_is_not_used,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			old_record_refuses_any_adaptation, setup, teardown),
		cmocka_unit_test(refusal_holds_for_the_same_adaptation_alone),
		cmocka_unit_test_setup_teardown(
			prune_keeps_its_keys_and_other_cells, setup, teardown),
		cmocka_unit_test_setup_teardown(
			gc_removes_the_stale_and_keeps_what_it_cannot_judge,
			setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
