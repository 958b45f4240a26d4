/*
 * diag: compiler output of gcc 12 and clang 14 (cut down from real kernel
 * builds) read into diagnostics, notes, units and failed objects.
 */
#include "unit.h"

#include "diag.h"

static const struct diag_parse_opts kbuild = { "/cache/build/6.1/src",
					       "/cache/build/6.1/out-abc" };

static void parse(struct diag_list *l, const char *text)
{
	diag_list_init(l);
	diag_parse(l, text, strlen(text), &kbuild);
}

static void absolute_source_path_is_made_relative(void **state)
{
	struct diag_list l;

	parse(&l, "  CC [M]  fs/btrfs/disk-io.o\n"
		  "/cache/build/6.1/src/fs/btrfs/disk-io.c: In function "
		  "'btrfs_wq_submit_bio':\n"
		  "/cache/build/6.1/src/fs/btrfs/disk-io.c:696:9: error: too "
		  "many arguments to function 'btrfs_init_work'\n"
		  "  696 |         btrfs_init_work(&async->work, run_one_async_start,\n"
		  "      |         ^~~~~~~~~~~~~~~\n");
	assert_int_equal(l.nr, 1);
	assert_string_equal(l.items[0].path, "fs/btrfs/disk-io.c");
	assert_int_equal(l.items[0].line, 696);
	assert_int_equal(l.items[0].col, 9);
	assert_int_equal(l.items[0].sev, DIAG_ERROR);
	assert_string_equal(l.items[0].message,
			    "too many arguments to function 'btrfs_init_work'");
	assert_string_equal(l.items[0].function, "btrfs_wq_submit_bio");
	assert_string_equal(l.items[0].unit, "fs/btrfs/disk-io.c");
	assert_non_null(strstr(l.items[0].text.ptr, "  696 |"));
	assert_non_null(strstr(l.items[0].text.ptr, "In function"));
	diag_list_release(&l);
}

static void path_relative_to_output_folder_is_resolved(void **state)
{
	static const struct diag_parse_opts inside = { "/k/src", "/k/src/out" };
	struct diag_list l;
	const char *t = "../fs/btrfs/ctree.c:12:3: warning: unused variable 'x' "
			"[-Wunused-variable]\n";

	diag_list_init(&l);
	diag_parse(&l, t, strlen(t), &inside);
	assert_int_equal(l.nr, 1);
	assert_string_equal(l.items[0].path, "fs/btrfs/ctree.c");
	assert_int_equal(l.items[0].sev, DIAG_WARNING);
	diag_list_release(&l);
}

static void include_chain_names_the_unit_and_notes_attach(void **state)
{
	struct diag_list l;

	parse(&l,
	      "In file included from /cache/build/6.1/src/fs/btrfs/ctree.h:22,\n"
	      "                 from /cache/build/6.1/src/fs/btrfs/inode.c:30:\n"
	      "/cache/build/6.1/src/fs/btrfs/async-thread.h: In function 'f':\n"
	      "/cache/build/6.1/src/fs/btrfs/async-thread.h:40:6: warning: "
	      "'x' is used uninitialized [-Wuninitialized]\n"
	      "In file included from /cache/build/6.1/src/fs/btrfs/inode.c:31:\n"
	      "/cache/build/6.1/src/fs/btrfs/async-thread.h:30:6: note: "
	      "declared here\n"
	      "   30 | void f(void);\n");
	assert_int_equal(l.nr, 1);
	assert_string_equal(l.items[0].path, "fs/btrfs/async-thread.h");
	assert_string_equal(l.items[0].unit, "fs/btrfs/inode.c");
	assert_string_equal(l.items[0].function, "f");
	assert_int_equal(l.items[0].nr_notes, 1);
	assert_string_equal(l.items[0].notes[0].path, "fs/btrfs/async-thread.h");
	assert_int_equal(l.items[0].notes[0].line, 30);
	assert_string_equal(l.items[0].notes[0].message, "declared here");
	assert_non_null(strstr(l.items[0].text.ptr, "note: declared here"));
	diag_list_release(&l);
}

static void header_warning_of_several_objects_is_kept_once(void **state)
{
	struct diag_list l;

	parse(&l, "  CC      fs/btrfs/a.o\n"
		  "/cache/build/6.1/src/fs/btrfs/x.h:3:1: warning: w\n"
		  "  CC      fs/btrfs/b.o\n"
		  "/cache/build/6.1/src/fs/btrfs/x.h:3:1: warning: w\n");
	assert_int_equal(l.nr, 1);
	/* without an include chain, the CC line tells the unit */
	assert_string_equal(l.items[0].unit, "fs/btrfs/a.c");
	diag_list_release(&l);
}

static void make_error_lines_name_failed_objects(void **state)
{
	struct diag_list l;

	parse(&l,
	      "make[4]: *** [/cache/build/6.1/src/scripts/Makefile.build:250: "
	      "fs/btrfs/disk-io.o] Error 1\n"
	      "make[2]: *** [fs/btrfs/inode.o] Error 1\n"
	      "make: *** [/cache/build/6.1/out-abc/fs/btrfs/scrub.o] Error 1\n"
	      "make[1]: *** [Makefile:1993: fs/btrfs] Error 2\n"
	      "make: *** No rule to make target 'fs/btrfs/nope.o'.  Stop.\n");
	assert_int_equal(l.nr, 0);
	assert_int_equal(l.nr_failed, 4);
	assert_string_equal(l.failed[0], "fs/btrfs/disk-io.o");
	assert_string_equal(l.failed[1], "fs/btrfs/inode.o");
	assert_string_equal(l.failed[2], "fs/btrfs/scrub.o");
	assert_string_equal(l.failed[3], "fs/btrfs/nope.o");
	diag_list_release(&l);
}

static void clang_output_is_read(void **state)
{
	struct diag_list l;

	parse(&l, "In file included from /cache/build/6.1/src/fs/btrfs/inode.c:9:\n"
		  "In file included from /cache/build/6.1/src/fs/btrfs/ctree.h:5:\n"
		  "/cache/build/6.1/src/fs/btrfs/async-thread.h:12:3: error: "
		  "unknown type name 'u65'\n"
		  "  u65 x;\n"
		  "  ^\n"
		  "/cache/build/6.1/src/fs/btrfs/inode.c:40:2: fatal error: "
		  "'nope.h' file not found\n");
	assert_int_equal(l.nr, 2);
	assert_string_equal(l.items[0].unit, "fs/btrfs/inode.c");
	assert_non_null(strstr(l.items[0].text.ptr, "  u65 x;"));
	assert_int_equal(l.items[1].sev, DIAG_ERROR);
	assert_string_equal(l.items[1].message, "'nope.h' file not found");
	diag_list_release(&l);
}

static void typographic_quotes_and_lines_without_column(void **state)
{
	struct diag_list l;

	parse(&l, "/cache/build/6.1/src/fs/btrfs/a.c: In function \xe2\x80\x98g\xe2\x80\x99:\n"
		  "/cache/build/6.1/src/include/linux/log2.h:22: warning: "
		  "ignoring attribute 'noreturn'\n"
		  "/tmp/ccX.s:12: Warning: no instruction mnemonic suffix\n"
		  "cc1: all warnings being treated as errors\n");
	assert_int_equal(l.nr, 1);
	assert_string_equal(l.items[0].function, "g");
	assert_string_equal(l.items[0].path, "include/linux/log2.h");
	assert_int_equal(l.items[0].line, 22);
	assert_int_equal(l.items[0].col, 0);
	diag_list_release(&l);
}

/* a compile farm's host in a UTF-8 locale and LANG=C here: one diagnostic */
static void both_quotings_read_the_same(void **state)
{
	struct diag_list l;

	parse(&l, "/cache/build/6.1/src/fs/btrfs/a.c:3:5: error: "
		  "\xe2\x80\x98x\xe2\x80\x99 undeclared (first use in this "
		  "function)\n"
		  "/cache/build/6.1/src/fs/btrfs/a.c:3:5: error: 'x' undeclared "
		  "(first use in this function)\n");
	assert_int_equal(l.nr, 1);
	assert_string_equal(l.items[0].message,
			    "'x' undeclared (first use in this function)");
	assert_null(strstr(l.items[0].text.ptr, "\xe2\x80"));
	diag_list_release(&l);
}

static void paths_outside_both_roots_stay(void **state)
{
	struct err err = ERR_INIT;
	char *p = diag_normalize_path("/usr/include/stdio.h", &kbuild);

	assert_string_equal(p, "/usr/include/stdio.h");
	free(p);
	p = diag_normalize_path("/cache/build/6.1/out-abc/include/generated/autoconf.h",
				&kbuild);
	assert_string_equal(p, "include/generated/autoconf.h");
	free(p);
	p = diag_normalize_path("./fs/../fs/btrfs//x.c", NULL);
	assert_string_equal(p, "fs/btrfs/x.c");
	free(p);
	err_release(&err);
}

/*
 * A location with no path before its line number (":3: error: x", an
 * "In file included from :3:" line) is no diagnostic and keeps nothing:
 * the empty path split_location cut used to leak (LSan, SANITIZE=1).
 */
static void location_without_path_is_no_diagnostic(void **state)
{
	struct diag_list l;

	parse(&l, "In file included from :3:\n"
		  ":1: error: no path\n"
		  ":2:5: warning: no path either\n"
		  "fs/btrfs/x.c:4:2: error: a path\n");
	assert_int_equal(l.nr, 1);
	assert_string_equal(l.items[0].path, "fs/btrfs/x.c");
	assert_int_equal(l.items[0].line, 4);
	assert_string_equal(l.items[0].message, "a path");
	diag_list_release(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(absolute_source_path_is_made_relative),
		cmocka_unit_test(path_relative_to_output_folder_is_resolved),
		cmocka_unit_test(include_chain_names_the_unit_and_notes_attach),
		cmocka_unit_test(header_warning_of_several_objects_is_kept_once),
		cmocka_unit_test(make_error_lines_name_failed_objects),
		cmocka_unit_test(clang_output_is_read),
		cmocka_unit_test(typographic_quotes_and_lines_without_column),
		cmocka_unit_test(both_quotings_read_the_same),
		cmocka_unit_test(paths_outside_both_roots_stay),
		cmocka_unit_test(location_without_path_is_no_diagnostic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
