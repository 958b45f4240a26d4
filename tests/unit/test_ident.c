/*
 * Tests for ident: a throw-away repository shaped like a kernel (include/,
 * a folder with its header, a tracepoint header), a file that includes a
 * system header and a file of made-up calls; what each file sees.
 */
#include "unit.h"

#include <sys/time.h>
#include <unistd.h>

#include "ident.h"
#include "kconfig.h"
#include "tree.h"

static const char blkdev_h[] =
	"#ifndef _LINUX_BLKDEV_H\n"
	"#define _LINUX_BLKDEV_H\n"
	"struct block_device {\n"
	"\tunsigned int bd_dev;\n"
	"};\n"
	"void blkdev_put(struct block_device *bdev);\n"
	"#define TRACE_EVENT(name) void trace_##name(void)\n"
	"#endif\n";

static const char trace_h[] =
	"#include <linux/blkdev.h>\n"
	"TRACE_EVENT(btrfs_device_close);\n"
	"TRACE_EVENT(btrfs_other);\n";

static const char volumes_h[] =
	"#include <linux/blkdev.h>\n"
	"struct btrfs_device {\n"
	"\tstruct block_device *bdev;\n"
	"\tint open_devices;\n"
	"};\n"
	"void btrfs_close_bdev(struct btrfs_device *device);\n";

static const char volumes_c[] =
	"#include <linux/blkdev.h>\n"
	"#include <trace/events/btrfs.h>\n"
	"#include \"volumes.h\"\n"
	"\n"
	"void btrfs_close_bdev(struct btrfs_device *device)\n"
	"{\n"
	"\tblkdev_put(device->bdev);\n"
	"\tdevice->bdev = 0;\n"
	"\ttrace_btrfs_device_close();\n"
	"}\n";

static const char super_c[] =
	"#include \"volumes.h\"\n"
	"\n"
	"static int btrfs_scan_one(struct btrfs_device *device)\n"
	"{\n"
	"\treturn device->open_devices;\n"
	"}\n";

static const char app_c[] =
	"#include <stdio.h>\n"
	"\n"
	"int main(void)\n"
	"{\n"
	"\tprintf(\"hi\\n\");\n"
	"\treturn 0;\n"
	"}\n";

static const char fake_c[] =
	"void w(void)\n"
	"{\n"
	"\tw_line_1();\n"
	"\tw_line_2();\n"
	"\tw_line_3();\n"
	"}\n";

struct repo {
	char dir[64];
	char cache[96];
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
	struct repo *rp = xcalloc(1, sizeof(*rp));
	struct err err = ERR_INIT;
	struct tree_oid commit;

	snprintf(rp->dir, sizeof(rp->dir), "/tmp/kcarry-ident-XXXXXX");
	if (!mkdtemp(rp->dir) || tree_global_init(&err) < 0)
		return -1;
	snprintf(rp->cache, sizeof(rp->cache), "%s/cache", rp->dir);
	put(rp->dir, "tree/include/linux/blkdev.h", blkdev_h);
	put(rp->dir, "tree/include/trace/events/btrfs.h", trace_h);
	put(rp->dir, "tree/fs/btrfs/volumes.h", volumes_h);
	put(rp->dir, "tree/fs/btrfs/volumes.c", volumes_c);
	put(rp->dir, "tree/fs/btrfs/super.c", super_c);
	put(rp->dir, "tree/tools/app.c", app_c);
	put(rp->dir, "tree/fake/fake.c", fake_c);
	put(rp->dir, "tree/Kconfig", "config TOP\n\tbool\n\nsource \"fs/Kconfig\"\n");
	put(rp->dir, "tree/fs/btrfs/Kconfig.debug",
	    "menuconfig BTRFS_DEBUG\n\tbool \"debug\"\n\tselect TOP\n");
	put(rp->dir, "tree/fs/btrfs/kconfig.txt", "config NOT_A_KCONFIG_FILE\n");
	if (unit_run(GIT "init -q '%s/tree' && " GIT "-C '%s/tree' add -A && "
		     GIT "-C '%s/tree' commit -qm base",
		     rp->dir, rp->dir, rp->dir) != 0)
		return -1;
	{
		char *path = fs_join(rp->dir, "tree");
		if (tree_open(&rp->r, path, &err) < 0 ||
		    tree_resolve(&commit, rp->r, "HEAD", &err) < 0 ||
		    tree_commit_tree(&rp->tree, rp->r, &commit, &err) < 0)
			return -1;
		free(path);
	}
	*state = rp;
	return 0;
}

static int teardown(void **state)
{
	struct repo *rp = *state;
	struct err err = ERR_INIT;

	tree_close(rp->r);
	fs_remove_tree(rp->dir, &err);
	err_release(&err);
	free(rp);
	tree_global_shutdown();
	return 0;
}

static int index_new(void **state)
{
	struct repo *rp = *state;

	return ident_index_new(&rp->x, rp->r, rp->cache);
}

static int index_free(void **state)
{
	struct repo *rp = *state;

	ident_index_free(rp->x);
	rp->x = NULL;
	return 0;
}

/* Open path's view with its text in the tree. */
static void view(struct ident_view *v, struct repo *rp, const char *path)
{
	struct buf text = BUF_INIT;
	struct err err = ERR_INIT;
	bool exists;

	assert_int_equal(tree_read_file(&text, &exists, NULL, rp->r, &rp->tree,
					path, &err), 0);
	ident_view_open(v, rp->x, &rp->tree, path,
			(struct span){ text.ptr, text.len });
	buf_release(&text);
	err_release(&err);
}

static bool find(struct ident_view *v, const char *name)
{
	struct err err = ERR_INIT;
	bool found;

	if (ident_view_find(&found, v, name, strlen(name), &err) < 0)
		fail_msg("%s", err.msg.ptr);
	err_release(&err);
	return found;
}

static void name_in_the_file_is_found(void **state)
{
	struct ident_view v;

	view(&v, *state, "fs/btrfs/volumes.c");
	assert_true(find(&v, "blkdev_put"));
	assert_false(v.loaded); /* the text alone answered */
	ident_view_release(&v);
}

static void member_of_a_shared_header_is_found(void **state)
{
	struct ident_view v;

	view(&v, *state, "fs/btrfs/volumes.c");
	assert_true(find(&v, "bd_dev"));
	assert_true(v.complete);
	ident_view_release(&v);
}

static void name_of_a_sibling_file_is_found(void **state)
{
	struct ident_view v;

	view(&v, *state, "fs/btrfs/volumes.c");
	assert_true(find(&v, "btrfs_scan_one"));
	assert_true(v.folder_loaded);
	ident_view_release(&v);
}

static void name_declared_nowhere_is_missing(void **state)
{
	struct ident_view v;

	view(&v, *state, "fs/btrfs/volumes.c");
	assert_false(find(&v, "bdev_file"));
	assert_true(v.complete);
	assert_true(v.coverage >= IDENT_COVERAGE);
	ident_view_release(&v);
}

static void name_a_macro_pastes_is_found(void **state)
{
	struct ident_view v;

	view(&v, *state, "fs/btrfs/volumes.c");
	/* TRACE_EVENT(btrfs_other) builds trace_btrfs_other */
	assert_true(find(&v, "trace_btrfs_other"));
	assert_false(find(&v, "trace_btrfs_nothing"));
	ident_view_release(&v);
}

static void system_header_makes_nothing_missing(void **state)
{
	struct ident_view v;

	view(&v, *state, "tools/app.c");
	assert_true(find(&v, "fopen"));
	assert_false(v.complete);
	ident_view_release(&v);
}

static void made_up_tree_makes_nothing_missing(void **state)
{
	struct ident_view v;

	view(&v, *state, "fake/fake.c");
	assert_true(find(&v, "w_line_4"));
	assert_true(v.coverage < IDENT_COVERAGE);
	assert_false(v.complete);
	ident_view_release(&v);
}

static void include_a_patch_adds_is_read(void **state)
{
	struct ident_view v;
	struct err err = ERR_INIT;

	view(&v, *state, "fs/btrfs/volumes.c");
	assert_int_equal(ident_view_include(&v, "linux/blkdev.h", true, &err),
			 0);
	/* a header the tree has: a missing name is still missing */
	assert_false(find(&v, "bdev_file"));
	assert_true(v.complete);
	/* one it cannot have (generated): nothing is said missing; an
	 * include added after the headers were read counts as well */
	assert_int_equal(ident_view_include(&v, "generated/package.h", true,
					    &err),
			 0);
	assert_true(find(&v, "LINUX_PACKAGE_ID"));
	assert_false(v.complete);
	ident_view_release(&v);
	err_release(&err);
}

static void shared_names_are_kept_in_the_cache(void **state)
{
	struct repo *rp = *state;
	struct ident_view v;
	char **names;
	size_t nr;
	struct err err = ERR_INIT;

	view(&v, rp, "fs/btrfs/volumes.c");
	assert_false(find(&v, "bdev_file"));
	ident_view_release(&v);
	assert_int_equal(fs_list_dir(rp->cache, &names, &nr, &err), 0);
	assert_int_equal(nr, 1);
	fs_free_list(names, nr);
	/* a new index reads them back */
	ident_index_free(rp->x);
	assert_int_equal(ident_index_new(&rp->x, rp->r, rp->cache), 0);
	view(&v, rp, "fs/btrfs/volumes.c");
	assert_true(find(&v, "bd_dev"));
	assert_false(find(&v, "bdev_file"));
	ident_view_release(&v);
	err_release(&err);
}

/* A cache file cut short, of an older form or of another byte order is
 * built again, never read as a set. */
static void damaged_cache_is_built_again(void **state)
{
	static const char *const damage[] = { "cut", "old", "mark" };
	struct repo *rp = *state;
	struct ident_view v;
	struct err err = ERR_INIT;

	for (size_t d = 0; d < 3; d++) {
		char **names, *path;
		size_t nr;
		struct buf b = BUF_INIT;

		view(&v, rp, "fs/btrfs/volumes.c");
		assert_false(find(&v, "bdev_file"));
		ident_view_release(&v);
		assert_int_equal(fs_list_dir(rp->cache, &names, &nr, &err), 0);
		assert_int_equal(nr, 1);
		path = fs_join(rp->cache, names[0]);
		fs_free_list(names, nr);
		assert_int_equal(fs_read_file(&b, path, 0, &err), 0);
		if (!strcmp(damage[d], "cut"))
			b.len -= 12;
		else if (!strcmp(damage[d], "old"))
			b.ptr[13] = '3';
		else
			b.ptr[strtoul(b.ptr + 15, NULL, 10)] ^= 1;
		assert_int_equal(fs_write_atomic(path, b.ptr, b.len, &err), 0);
		ident_index_free(rp->x);
		assert_int_equal(ident_index_new(&rp->x, rp->r, rp->cache), 0);
		view(&v, rp, "fs/btrfs/volumes.c");
		assert_true(find(&v, "bd_dev"));
		assert_false(find(&v, "bdev_file"));
		ident_view_release(&v);
		buf_release(&b);
		free(path);
	}
	err_release(&err);
}

/* The Kconfig symbols of a tree: every file named Kconfig*, kept in the
 * cache as <tree>.kconfig and read back from there; pruned apart from
 * the other kinds. */
static void kconfig_symbols_are_kept_in_the_cache(void **state)
{
	struct repo *rp = *state;
	struct kconfig_set s;
	struct err err = ERR_INIT;
	char hex[41], *path;
	assert_int_equal(fs_remove_tree(rp->cache, &err), 0);
	kconfig_set_init(&s);
	assert_int_equal(ident_kconfig_decls(&s, rp->x, &rp->tree, &err), 0);
	assert_int_equal(s.nr, 2);
	assert_true(kconfig_set_has(&s, "TOP", 3));
	assert_true(kconfig_set_has(&s, "BTRFS_DEBUG", 11));
	assert_false(kconfig_set_has(&s, "NOT_A_KCONFIG_FILE", 18));
	kconfig_set_release(&s);
	/* read back from the cache: a set written there is what is read */
	tree_oid_hex(hex, &rp->tree);
	path = xstrfmt("%s/%s.kconfig", rp->cache, hex);
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(fs_write_atomic(path, "kcarry-kconfig/2\nONLY\n", 22,
					 &err), 0);
	kconfig_set_init(&s);
	assert_int_equal(ident_kconfig_decls(&s, rp->x, &rp->tree, &err), 0);
	assert_int_equal(s.nr, 1);
	assert_true(kconfig_set_has(&s, "ONLY", 4));
	kconfig_set_release(&s);
	/* a file of another form is built again */
	assert_int_equal(fs_write_atomic(path, "kcarry-kconfig/1\n7\nONLY\n",
					 24, &err), 0);
	kconfig_set_init(&s);
	assert_int_equal(ident_kconfig_decls(&s, rp->x, &rp->tree, &err), 0);
	assert_int_equal(s.nr, 2);
	kconfig_set_release(&s);
	free(path);
	assert_int_equal(fs_remove_tree(rp->cache, &err), 0);
	err_release(&err);
}

/* The cache keeps the 16 most recently used sets of each kind. */
static void cache_keeps_the_newest_sets(void **state)
{
	struct repo *rp = *state;
	struct ident_view v;
	struct err err = ERR_INIT;
	char **names;
	size_t nr, sets = 0;
	bool headers = false;

	assert_int_equal(fs_remove_tree(rp->cache, &err), 0);
	assert_int_equal(fs_mkdirs(rp->cache, &err), 0);
	for (int i = 0; i < 20; i++) {
		char *path = xstrfmt("%s/%040d", rp->cache, i);
		struct timeval tv[2] = { { 1000000 + i, 0 },
					 { 1000000 + i, 0 } };

		assert_int_equal(fs_write_atomic(path, "x", 1, &err), 0);
		assert_int_equal(utimes(path, tv), 0);
		free(path);
	}
	put(rp->cache, "old.headers", "x");
	view(&v, rp, "fs/btrfs/volumes.c");
	assert_false(find(&v, "bdev_file"));
	ident_view_release(&v);
	assert_int_equal(fs_list_dir(rp->cache, &names, &nr, &err), 0);
	for (size_t i = 0; i < nr; i++) {
		if (!strcmp(names[i], "old.headers")) {
			headers = true;
			continue;
		}
		sets++;
	}
	assert_int_equal(sets, 16);
	/* the oldest five went, the new set stays */
	for (int i = 0; i < 20; i++) {
		char *path = xstrfmt("%s/%040d", rp->cache, i);

		assert_int_equal(access(path, F_OK) == 0, i >= 5);
		free(path);
	}
	assert_true(headers);
	fs_free_list(names, nr);
	err_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(name_in_the_file_is_found,
						index_new, index_free),
		cmocka_unit_test_setup_teardown(
			kconfig_symbols_are_kept_in_the_cache, index_new,
			index_free),
		cmocka_unit_test_setup_teardown(member_of_a_shared_header_is_found,
						index_new, index_free),
		cmocka_unit_test_setup_teardown(name_of_a_sibling_file_is_found,
						index_new, index_free),
		cmocka_unit_test_setup_teardown(name_declared_nowhere_is_missing,
						index_new, index_free),
		cmocka_unit_test_setup_teardown(name_a_macro_pastes_is_found,
						index_new, index_free),
		cmocka_unit_test_setup_teardown(system_header_makes_nothing_missing,
						index_new, index_free),
		cmocka_unit_test_setup_teardown(made_up_tree_makes_nothing_missing,
						index_new, index_free),
		cmocka_unit_test_setup_teardown(include_a_patch_adds_is_read,
						index_new, index_free),
		cmocka_unit_test_setup_teardown(shared_names_are_kept_in_the_cache,
						index_new, index_free),
		cmocka_unit_test_setup_teardown(damaged_cache_is_built_again,
						index_new, index_free),
		cmocka_unit_test_setup_teardown(cache_keeps_the_newest_sets,
						index_new, index_free),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
