/*
 * Tests for cause: the function a hunk names found under another name by
 * its body, the names hunks use that a throw-away kernel-shaped tree does
 * not define (and the ones a patch or an earlier patch declares), and
 * how they are told.
 */
#include "unit.h"

#include "cause.h"
#include "patch.h"
#include "tree.h"

/* async-thread.c as 5.3 had it: the helper is normal_work_helper() */
static const char at_c[] =
	"static void run_ordered_work(struct __btrfs_workqueue *wq)\n"
	"{\n"
	"\tstruct list_head *list = &wq->ordered_list;\n"
	"\tspin_lock_irqsave(lock, flags);\n"
	"}\n"
	"\n"
	"static void normal_work_helper(struct btrfs_work *work)\n"
	"{\n"
	"\tstruct __btrfs_workqueue *wq;\n"
	"\tvoid *wtag;\n"
	"\tint need_order = 0;\n"
	"\n"
	"\tif (work->ordered_func)\n"
	"\t\tneed_order = 1;\n"
	"\twq = work->wq;\n"
	"\twtag = work;\n"
	"\ttrace_btrfs_work_sched(work);\n"
	"\tthresh_exec_hook(wq);\n"
	"\twork->func(work);\n"
	"}\n";

/* a hunk of a later series, in btrfs_work_helper() */
static const char helper_patch[] =
	"--- a/fs/btrfs/async-thread.c\n"
	"+++ b/fs/btrfs/async-thread.c\n"
	"@@ -10,9 +10,8 @@ static void btrfs_work_helper(struct work_struct *normal_work)\n"
	" \tint need_order = 0;\n"
	" \n"
	" \tif (work->ordered_func)\n"
	" \t\tneed_order = 1;\n"
	" \twq = work->wq;\n"
	"-\twtag = work;\n"
	" \ttrace_btrfs_work_sched(work);\n"
	" \tthresh_exec_hook(wq);\n"
	" \twork->func(work);\n";

static void parse(struct patch *p, const char *text)
{
	struct patch_parse_opts po = { "t.patch", 1, false };
	struct err err = ERR_INIT;

	patch_init(p);
	if (patch_parse(p, text, strlen(text), &po, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	err_release(&err);
}

static void renamed_function_is_found_by_its_body(void **state)
{
	struct patch p;
	char *name;
	unsigned pct;

	parse(&p, helper_patch);
	cause_similar_function(&name, &pct,
			       (struct span){ at_c, strlen(at_c) },
			       "fs/btrfs/async-thread.c", &p.files[0].hunks[0],
			       "btrfs_work_helper");
	assert_non_null(name);
	assert_string_equal(name, "normal_work_helper");
	assert_int_equal(pct, 100);
	free(name);
	patch_release(&p);
}

static void function_the_file_defines_has_no_double(void **state)
{
	struct patch p;
	char *name;
	unsigned pct;

	parse(&p, helper_patch);
	cause_similar_function(&name, &pct,
			       (struct span){ at_c, strlen(at_c) },
			       "fs/btrfs/async-thread.c", &p.files[0].hunks[0],
			       "normal_work_helper");
	assert_null(name);
	assert_true(cause_defines_function((struct span){ at_c, strlen(at_c) },
					   "fs/btrfs/async-thread.c",
					   "normal_work_helper"));
	assert_false(cause_defines_function((struct span){ at_c, strlen(at_c) },
					    "fs/btrfs/async-thread.c",
					    "btrfs_work_helper"));
	patch_release(&p);
}

static void unlike_function_is_not_the_same(void **state)
{
	static const char other[] =
		"--- a/fs/btrfs/async-thread.c\n"
		"+++ b/fs/btrfs/async-thread.c\n"
		"@@ -10,4 +10,4 @@ static void btrfs_work_helper(struct work_struct *w)\n"
		" \tpending = atomic_read(&wq->pending);\n"
		"-\tif (pending > wq->thresh)\n"
		"+\tif (pending >= wq->thresh)\n"
		" \t\tnew_active++;\n"
		" \tcurrent_active = wq->current_active;\n";
	struct patch p;
	char *name;
	unsigned pct;

	parse(&p, other);
	cause_similar_function(&name, &pct,
			       (struct span){ at_c, strlen(at_c) },
			       "fs/btrfs/async-thread.c", &p.files[0].hunks[0],
			       "btrfs_work_helper");
	assert_null(name);
	patch_release(&p);
}

/* ---- names, against a kernel-shaped tree ---- */

static const char blkdev_h[] =
	"struct block_device {\n"
	"\tunsigned int bd_dev;\n"
	"};\n"
	"void blkdev_put(struct block_device *bdev);\n"
	"void kfree(const void *p);\n";

static const char volumes_h[] =
	"#include <linux/blkdev.h>\n"
	"struct btrfs_device {\n"
	"\tstruct block_device *bdev;\n"
	"\tint open_devices;\n"
	"};\n";

static const char volumes_c[] =
	"#include <linux/blkdev.h>\n"
	"#include \"volumes.h\"\n"
	"\n"
	"static void btrfs_close_one_device(struct btrfs_device *device)\n"
	"{\n"
	"\tif (device->bdev) {\n"
	"\t\tblkdev_put(device->bdev);\n"
	"\t\tdevice->open_devices--;\n"
	"\t\tdevice->bdev = 0;\n"
	"\t}\n"
	"}\n";

/* upstream aec8e6bf8391's change, as the 6.1 stable patch has it */
static const char bdev_file_patch[] =
	"--- a/fs/btrfs/volumes.c\n"
	"+++ b/fs/btrfs/volumes.c\n"
	"@@ -6,6 +6,8 @@ static void btrfs_close_one_device(struct btrfs_device *device)\n"
	" \tif (device->bdev) {\n"
	" \t\tblkdev_put(device->bdev);\n"
	" \t\tdevice->open_devices--;\n"
	" \t\tdevice->bdev = 0;\n"
	"+\t\tdevice->bdev_file = 0;\n"
	"+\t\tkfree(device->bdev);\n"
	" \t}\n"
	" }\n";

/* the same, with the member added to the struct by the patch itself */
static const char with_member_patch[] =
	"--- a/fs/btrfs/volumes.h\n"
	"+++ b/fs/btrfs/volumes.h\n"
	"@@ -2,4 +2,5 @@ struct btrfs_device {\n"
	" struct btrfs_device {\n"
	" \tstruct block_device *bdev;\n"
	"+\tstruct file *bdev_file;\n"
	" \tint open_devices;\n"
	" };\n";

struct trepo {
	char dir[64];
	struct tree_repo *r;
	struct tree_oid tree;
	struct ident_index *x;
};

static void put(const char *repo, const char *rel, const char *text)
{
	struct err err = ERR_INIT;
	char *path = fs_join(repo, rel), *slash = strrchr(path, '/');

	*slash = '\0';
	assert_int_equal(fs_mkdirs(path, &err), 0);
	*slash = '/';
	assert_int_equal(fs_write_atomic(path, text, strlen(text), &err), 0);
	free(path);
	err_release(&err);
}

#define GIT "git -c user.name=T -c user.email=t@example.org " \
	    "-c init.defaultBranch=master "

static int setup(void **state)
{
	struct trepo *rp = xcalloc(1, sizeof(*rp));
	struct err err = ERR_INIT;
	struct tree_oid commit;
	char *path;

	snprintf(rp->dir, sizeof(rp->dir), "/tmp/kcarry-cause-XXXXXX");
	if (!mkdtemp(rp->dir) || tree_global_init(&err) < 0)
		return -1;
	put(rp->dir, "include/linux/blkdev.h", blkdev_h);
	put(rp->dir, "fs/btrfs/volumes.h", volumes_h);
	put(rp->dir, "fs/btrfs/volumes.c", volumes_c);
	if (unit_run(GIT "init -q '%s' && " GIT "-C '%s' add -A && "
		     GIT "-C '%s' commit -qm base",
		     rp->dir, rp->dir, rp->dir) != 0)
		return -1;
	path = xstrdup(rp->dir);
	if (tree_open(&rp->r, path, &err) < 0 ||
	    tree_resolve(&commit, rp->r, "HEAD", &err) < 0 ||
	    tree_commit_tree(&rp->tree, rp->r, &commit, &err) < 0)
		return -1;
	free(path);
	ident_index_new(&rp->x, rp->r, NULL);
	*state = rp;
	return 0;
}

static int teardown(void **state)
{
	struct trepo *rp = *state;
	struct err err = ERR_INIT;

	ident_index_free(rp->x);
	tree_close(rp->r);
	fs_remove_tree(rp->dir, &err);
	err_release(&err);
	free(rp);
	tree_global_shutdown();
	return 0;
}

/* The names hunk 0 of patch text uses on kinds that volumes.c lacks. */
static void missing(struct trepo *rp, const char *text, const char *kinds,
		    const struct watch_set *own, const struct cause_defs *defs,
		    struct cause_name **names, size_t *nr)
{
	struct patch p;
	struct ident_view v;
	struct cause_check chk;
	struct err err = ERR_INIT;

	parse(&p, text);
	ident_view_open(&v, rp->x, &rp->tree, "fs/btrfs/volumes.c",
			(struct span){ volumes_c, strlen(volumes_c) });
	chk = (struct cause_check){ &v, &p, own, defs, NULL };
	*names = NULL;
	*nr = 0;
	if (cause_missing_names(names, nr, &chk, &p.files[0].hunks[0], kinds,
				&err) < 0)
		fail_msg("%s", err.msg.ptr);
	ident_view_release(&v);
	patch_release(&p);
	err_release(&err);
}

static void member_no_struct_has_is_missing(void **state)
{
	struct cause_name *names;
	size_t nr;
	struct buf t = BUF_INIT;

	missing(*state, bdev_file_patch, "+", NULL, NULL, &names, &nr);
	assert_int_equal(nr, 1);
	assert_string_equal(names[0].name, "bdev_file");
	assert_int_equal(names[0].use, USE_MEMBER);
	cause_names_text(&t, names, nr);
	assert_string_equal(t.ptr, "bdev_file: no such member in this tree");
	buf_release(&t);
	cause_names_free(names, nr);
}

static void member_the_patch_adds_is_not_missing(void **state)
{
	struct patch p;
	struct watch_set own;
	struct cause_name *names;
	size_t nr;

	parse(&p, with_member_patch);
	watch_set_init(&own);
	cause_patch_decls(&own, &p, false);
	assert_non_null(watch_set_find(&own, "bdev_file", 9));
	missing(*state, bdev_file_patch, "+", &own, NULL, &names, &nr);
	assert_int_equal(nr, 0);
	cause_names_free(names, nr);
	watch_set_release(&own);
	patch_release(&p);
}

static void member_of_a_failed_earlier_patch_names_it(void **state)
{
	struct patch p;
	struct watch_set decls;
	struct cause_defs defs;
	struct cause_name *names;
	size_t nr;
	struct buf t = BUF_INIT;

	parse(&p, with_member_patch);
	watch_set_init(&decls);
	cause_patch_decls(&decls, &p, true);
	cause_defs_init(&defs);
	cause_defs_add(&defs, &decls, 2, false);
	missing(*state, bdev_file_patch, "+", NULL, &defs, &names, &nr);
	assert_int_equal(nr, 1);
	assert_int_equal(names[0].source.kind, SOURCE_SERIES);
	assert_int_equal(names[0].source.patch, 2);
	cause_names_text(&t, names, nr);
	assert_string_equal(t.ptr, "bdev_file: no such member in this tree "
				   "(added by 0002 of this series, which did "
				   "not apply)");
	buf_release(&t);
	cause_names_free(names, nr);
	/* applied, it is there */
	cause_defs_release(&defs);
	cause_defs_init(&defs);
	cause_defs_add(&defs, &decls, 2, true);
	missing(*state, bdev_file_patch, "+", NULL, &defs, &names, &nr);
	assert_int_equal(nr, 0);
	cause_names_free(names, nr);
	cause_defs_release(&defs);
	watch_set_release(&decls);
	patch_release(&p);
}

static void context_names_are_checked_for_a_conflict(void **state)
{
	static const char wq_patch[] =
		"--- a/fs/btrfs/volumes.c\n"
		"+++ b/fs/btrfs/volumes.c\n"
		"@@ -6,3 +6,3 @@ static void btrfs_close_one_device(struct btrfs_device *device)\n"
		" \tstruct __btrfs_workqueue *wq = device->wq;\n"
		"-\tbtrfs_queue_work(wq, &device->work);\n"
		"+\tbtrfs_queue_work_ordered(wq, &device->work);\n"
		" \tdevice->open_devices--;\n";
	struct cause_name *names;
	size_t nr;
	struct buf t = BUF_INIT;

	missing(*state, wq_patch, " -+", NULL, NULL, &names, &nr);
	cause_names_text(&t, names, nr);
	assert_string_equal(t.ptr,
			    "struct __btrfs_workqueue: no such type in this tree; "
			    "wq: no such member in this tree; "
			    "btrfs_queue_work(): no such function in this tree; "
			    "work: no such member in this tree; "
			    "btrfs_queue_work_ordered(): no such function in "
			    "this tree");
	buf_release(&t);
	cause_names_free(names, nr);
}

static void sources_are_told(void **state)
{
	struct cause_name n = { (char *)"__btrfs_workqueue", (char *)"struct",
				USE_TYPE, { SOURCE_OTHER, 2, (char *)"btrfs-workqueue",
					    (char *)"v3", NULL, NULL, NULL } };
	struct buf t = BUF_INIT;

	cause_name_text(&t, &n);
	assert_string_equal(t.ptr, "struct __btrfs_workqueue: no such type in "
				   "this tree (added by btrfs-workqueue@v3 0002)");
	buf_reset(&t);
	n.source = (struct cause_source){ SOURCE_UPSTREAM, 0, NULL, NULL, NULL,
					  (char *)"08a9ff3264181986d1d692a4e6fce3669700c9f8",
					  (char *)"btrfs: Add btrfs_workqueue" };
	cause_name_text(&t, &n);
	assert_string_equal(t.ptr, "struct __btrfs_workqueue: no such type in "
				   "this tree (introduced upstream by "
				   "08a9ff326418 \"btrfs: Add btrfs_workqueue\")");
	buf_release(&t);
	assert_string_equal(cause_kind_name(CAUSE_FUNCTION), "function");
	assert_string_equal(cause_use_name(USE_MEMBER), "member");
}

int main(void)
{
	const struct CMUnitTest plain[] = {
		cmocka_unit_test(renamed_function_is_found_by_its_body),
		cmocka_unit_test(function_the_file_defines_has_no_double),
		cmocka_unit_test(unlike_function_is_not_the_same),
		cmocka_unit_test(sources_are_told),
	};
	const struct CMUnitTest tree[] = {
		cmocka_unit_test(member_no_struct_has_is_missing),
		cmocka_unit_test(member_the_patch_adds_is_not_missing),
		cmocka_unit_test(member_of_a_failed_earlier_patch_names_it),
		cmocka_unit_test(context_names_are_checked_for_a_conflict),
	};

	return cmocka_run_group_tests(plain, NULL, NULL) |
	       cmocka_run_group_tests(tree, setup, teardown);
}
