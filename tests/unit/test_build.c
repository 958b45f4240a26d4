/*
 * build: the source folder synced to a commit by rewriting only what
 * differs (mtimes kept, rewritten files newer), the default make targets,
 * the compatibility profiles and gc.
 */
#include "unit.h"

#include <sys/stat.h>
#include <unistd.h>

#include "build.h"
#include "profile.h"

struct fixture {
	char *dir, *src, *manifest;
	struct tree_repo *repo;
	struct tree_oid c1, c2;
};

/* The group's state is HOME for git and libgit2, a folder of its own. */
static int group_setup(void **state)
{
	return unit_git_setup(state, "build", "A", "a@example.org", "A",
			      "a@example.org");
}

#define GIT "git -c init.defaultBranch=main "

static int setup(void **state)
{
	static const char script[] =
		GIT "init -q repo && cd repo && mkdir -p dir && "
		"printf 'a\\n' > a.c && printf 'b\\n' > dir/b.c && "
		"printf '#!/bin/sh\\n' > run.sh && chmod +x run.sh && "
		"ln -s a.c link && "
		GIT "add . && " GIT "commit -qm one && " GIT "tag c1 && "
		"printf 'a2\\n' > a.c && " GIT "rm -q dir/b.c && "
		"printf 'n\\n' > new.c && " GIT "add . && "
		GIT "commit -qm two && " GIT "tag c2";
	struct fixture *fx = xcalloc(1, sizeof(*fx));
	struct err err = ERR_INIT;
	char *path;

	fx->dir = xstrfmt("%s/kcarry-test-build-XXXXXX", unit_tmpdir());
	if (!mkdtemp(fx->dir) || unit_run("cd '%s' && %s", fx->dir, script))
		return -1;
	path = fs_join(fx->dir, "repo");
	fx->src = fs_join(fx->dir, "src");
	fx->manifest = fs_join(fx->dir, "src.manifest");
	if (tree_open(&fx->repo, path, &err) < 0 ||
	    tree_resolve(&fx->c1, fx->repo, "c1", &err) < 0 ||
	    tree_resolve(&fx->c2, fx->repo, "c2", &err) < 0)
		return -1;
	free(path);
	err_release(&err);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	struct err err = ERR_INIT;

	tree_close(fx->repo);
	fs_remove_tree(fx->dir, &err);
	err_release(&err);
	free(fx->dir);
	free(fx->src);
	free(fx->manifest);
	free(fx);
	return 0;
}

static size_t sync_to(struct fixture *fx, const struct tree_oid *c)
{
	struct err err = ERR_INIT;
	size_t written = 0;

	if (build_sync(&written, fx->repo, c, fx->src, fx->manifest, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	err_release(&err);
	return written;
}

static struct timespec mtime(struct fixture *fx, const char *rel)
{
	char *p = fs_join(fx->src, rel);
	struct stat st;
	struct timespec ts = { 0, 0 };

	if (lstat(p, &st) == 0)
		ts = st.st_mtim;
	free(p);
	return ts;
}

static bool same_time(struct timespec a, struct timespec b)
{
	return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

static bool newer(struct timespec a, struct timespec b)
{
	return a.tv_sec > b.tv_sec ||
	       (a.tv_sec == b.tv_sec && a.tv_nsec > b.tv_nsec);
}

static char *content(struct fixture *fx, const char *rel)
{
	char *s = unit_capture("cat '%s/%s'", fx->src, rel);
	return s;
}

static void first_sync_writes_every_file_with_modes(void **state)
{
	struct fixture *fx = *state;
	char *p, *s;
	struct stat st;

	assert_int_equal(sync_to(fx, &fx->c1), 4);
	s = content(fx, "dir/b.c");
	assert_string_equal(s, "b");
	free(s);
	p = fs_join(fx->src, "run.sh");
	assert_int_equal(stat(p, &st), 0);
	assert_true(st.st_mode & S_IXUSR);
	free(p);
	p = fs_join(fx->src, "link");
	assert_int_equal(lstat(p, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	free(p);
}

static void unchanged_files_keep_their_mtimes(void **state)
{
	struct fixture *fx = *state;
	struct timespec a, r, a2, r2;

	sync_to(fx, &fx->c1);
	a = mtime(fx, "a.c");
	r = mtime(fx, "run.sh");
	usleep(20000);
	assert_int_equal(sync_to(fx, &fx->c1), 0);
	assert_true(same_time(a, mtime(fx, "a.c")));
	/* to c2: a.c rewritten (newer), new.c added, dir/b.c deleted */
	assert_int_equal(sync_to(fx, &fx->c2), 3);
	a2 = mtime(fx, "a.c");
	r2 = mtime(fx, "run.sh");
	assert_true(newer(a2, a));
	assert_true(same_time(r, r2));
	{
		char *p = fs_join(fx->src, "dir/b.c");
		assert_false(fs_is_file(p));
		free(p);
	}
	/* and back: a.c gets a newer mtime again, never the old one */
	usleep(20000);
	assert_int_equal(sync_to(fx, &fx->c1), 3);
	assert_true(newer(mtime(fx, "a.c"), a2));
}

static void a_file_that_became_a_folder_is_replaced(void **state)
{
	struct fixture *fx = *state;
	struct err err = ERR_INIT;
	struct tree_oid c3;
	char *s;

	assert_int_equal(unit_run("cd '%s/repo' && " GIT "rm -q a.c && "
				  "mkdir a.c && printf 'in\\n' > a.c/inner.c && "
				  GIT "add . && " GIT "commit -qm three && "
				  GIT "tag c3", fx->dir), 0);
	assert_int_equal(tree_resolve(&c3, fx->repo, "c3", &err), 0);
	sync_to(fx, &fx->c1);
	assert_int_equal(sync_to(fx, &c3), 3); /* a.c/inner.c, b.c, new.c */
	s = content(fx, "a.c/inner.c");
	assert_string_equal(s, "in");
	free(s);
	/* and back */
	sync_to(fx, &fx->c1);
	s = content(fx, "a.c");
	assert_string_equal(s, "a");
	free(s);
	err_release(&err);
}

static void without_manifest_content_decides(void **state)
{
	struct fixture *fx = *state;
	struct timespec a;

	sync_to(fx, &fx->c2);
	a = mtime(fx, "a.c");
	assert_int_equal(unlink(fx->manifest), 0);
	usleep(20000);
	assert_int_equal(sync_to(fx, &fx->c2), 0);
	assert_true(same_time(a, mtime(fx, "a.c")));
	/* a file changed behind kcarry's back (another size) is rewritten */
	{
		char *f = fs_join(fx->src, "a.c");
		struct err e2 = ERR_INIT;
		assert_int_equal(fs_write_atomic(f, "tampered\n", 9, &e2), 0);
		free(f);
		err_release(&e2);
	}
	assert_int_equal(sync_to(fx, &fx->c2), 1);
	{
		char *s = content(fx, "a.c");
		assert_string_equal(s, "a2");
		free(s);
	}
}

static void old_tree_with_new_gcc_gets_the_profile(void **state)
{
	struct profile_facts f = { 0 };
	struct profile_use u;

	f.kernel_version = 3;
	f.kernel_patchlevel = 10;
	f.cc_major = 12;
	f.make_major = 4;
	f.make_minor = 3;
	f.makefile = "VERSION = 3\nPATCHLEVEL = 10\n"
		     "HOSTCFLAGS   = -Wall -Wmissing-prototypes -O2\n";
	f.compiler_gcc_h = "#include gcc_header(__GNUC__)\n"
			   "#define __gcc_header(x) #x\n"
			   "#define _gcc_header(x) __gcc_header(linux/compiler-gcc##x.h)\n";
	f.highest_gcc_header = 5;
	profile_choose(&u, &f);
	assert_string_equal(u.id, "linux-3-gcc6");
	assert_string_equal(u.cc_flags, "-fno-pie");
	assert_int_equal(u.nr_make_vars, 3);
	assert_string_equal(u.make_vars[0],
			    "HOSTCFLAGS=-Wall -Wmissing-prototypes -O2 -fcommon");
	assert_true(starts_with(u.make_vars[1], "make-cmd=$(subst \\\\,"));
	assert_string_equal(u.make_vars[2], "pound=#");
	assert_string_equal(u.shim_path, "include/linux/compiler-gcc12.h");
	assert_non_null(strstr(u.shim_text, "#include <linux/compiler-gcc5.h>"));
	profile_use_release(&u);

	/* make 4.2 reads '\#' as '#': no make-cmd override */
	f.make_minor = 2;
	profile_choose(&u, &f);
	assert_int_equal(u.nr_make_vars, 1);
	profile_use_release(&u);
}

static void new_tree_old_gcc_or_clang_get_none(void **state)
{
	struct profile_facts f = { 0 };
	struct profile_use u;

	f.kernel_version = 6;
	f.kernel_patchlevel = 1;
	f.cc_major = 12;
	f.make_major = 4;
	f.make_minor = 3;
	profile_choose(&u, &f);
	assert_null(u.id);
	profile_use_release(&u);
	f.kernel_version = 3;
	f.cc_major = 5;
	profile_choose(&u, &f);
	assert_null(u.id);
	profile_use_release(&u);
	f.cc_major = 14;
	f.clang = true;
	profile_choose(&u, &f);
	assert_null(u.id);
	profile_use_release(&u);
	f.kernel_version = -1; /* not a kernel tree */
	f.clang = false;
	f.cc_major = 12;
	profile_choose(&u, &f);
	assert_null(u.id);
	profile_use_release(&u);
}

static void folder_rule_from_the_top_makefile(void **state)
{
	/* 3.10: the %/ rule passes KBUILD_MODULES */
	assert_int_equal(profile_folder_rule(
				 "KBUILD_MODULES :=\n"
				 "%/: prepare scripts FORCE\n"
				 "\t$(cmd_crmodverdir)\n"
				 "\t$(Q)$(MAKE) KBUILD_MODULES=$(if $(CONFIG_MODULES),1) \\\n"
				 "\t$(build)=$(build-dir)\n"
				 "%.ko: prepare scripts FORCE\n"),
			 KBUILD_FOLDER_PATTERN);
	/* 5.10: single-targets with %/, the block leaves it unset */
	assert_int_equal(profile_folder_rule(
				 "single-targets := %.a %.i %.o %.s %/\n"
				 "KBUILD_MODULES :=\n"
				 "ifdef single-build\n"
				 "ifneq ($(x),)\n"
				 "KBUILD_MODULES := 0\n"
				 "endif\n"
				 "single-no-ko := $(MAKECMDGOALS)\n"
				 "endif\n"
				 "KBUILD_MODULES := 1\n"),
			 KBUILD_FOLDER_BUILTIN);
	/* 6.1: the block sets it */
	assert_int_equal(profile_folder_rule(
				 "single-targets := %.a %.i %.o %.s %/\n"
				 "ifdef single-build\n"
				 "single-goals := $(addprefix $(build-dir)/, x)\n"
				 "\n"
				 "KBUILD_MODULES := 1\n"
				 "\n"
				 "endif\n"),
			 KBUILD_FOLDER_SINGLE);
	assert_int_equal(profile_folder_rule("all:\n\tcc x.c\n"),
			 KBUILD_FOLDER_UNKNOWN);
	assert_int_equal(profile_folder_rule(NULL), KBUILD_FOLDER_UNKNOWN);
}

static void old_tools_build_gets_the_make43_fix(void **state)
{
	struct profile_facts f = { 0 };
	struct profile_use u;

	f.kernel_version = 4;
	f.kernel_patchlevel = 4;
	f.cc_major = 12;
	f.make_major = 4;
	f.make_minor = 3;
	f.tools_build_include =
		"dep-cmd = $(if $(wildcard $(fixdep)), x, \\\n"
		"           printf '\\# cannot find fixdep (%s)\\n' $(fixdep)\n";
	profile_choose(&u, &f);
	assert_null(u.id);
	assert_string_equal(u.tools_id, "make43-tools-build");
	assert_string_equal(u.makefiles_path, ".kcarry-tools-build.mk");
	assert_non_null(strstr(u.makefiles_text, "override dep-cmd = "));
	assert_null(strstr(u.makefiles_text, "printf '\\#"));
	profile_use_release(&u);
	/* fixed upstream ($(pound)), or make 4.2: nothing */
	f.tools_build_include = "printf '$(pound) cannot find fixdep (%s)\\n'\n";
	profile_choose(&u, &f);
	assert_null(u.tools_id);
	assert_null(u.makefiles_path);
	profile_use_release(&u);
	f.tools_build_include = "printf '\\# cannot find fixdep (%s)\\n'\n";
	f.make_minor = 2;
	profile_choose(&u, &f);
	assert_null(u.tools_id);
	profile_use_release(&u);
	/* with the 3.x profile: both */
	f.make_minor = 3;
	f.kernel_version = 3;
	f.kernel_patchlevel = 10;
	profile_choose(&u, &f);
	assert_string_equal(u.id, "linux-3-gcc6");
	assert_string_equal(u.tools_id, "make43-tools-build");
	profile_use_release(&u);
}

static void kernel_version_from_the_top_makefile(void **state)
{
	int v, p;

	assert_true(profile_kernel_version("# x\nVERSION = 3\nPATCHLEVEL = 11\n"
					   "SUBLEVEL = 0\n",
					   &v, &p));
	assert_int_equal(v, 3);
	assert_int_equal(p, 11);
	assert_false(profile_kernel_version("all:\n\tcc x.c\n", &v, &p));
	assert_int_equal(v, -1);
}

static void default_targets_are_changed_objects_and_watched_folders(void **state)
{
	static const char text[] =
		"From: A <a@example.org>\nSubject: x\n\n---\n"
		"diff --git a/lib/y.c b/lib/y.c\n--- a/lib/y.c\n+++ b/lib/y.c\n"
		"@@ -1 +1 @@\n-y\n+y2\n"
		"diff --git a/fs/btrfs/x.c b/fs/btrfs/x.c\n--- a/fs/btrfs/x.c\n"
		"+++ b/fs/btrfs/x.c\n@@ -1 +1 @@\n-x\n+x2\n"
		"diff --git a/include/z.h b/include/z.h\n--- a/include/z.h\n"
		"+++ b/include/z.h\n@@ -1 +1 @@\n-z\n+z2\n";
	struct series_version v;
	struct carry_patch cp = { 0 };
	struct carry_result cr = { 0 };
	struct patch p;
	struct buf b = BUF_INIT;
	struct err err = ERR_INIT;
	char **t = NULL;
	size_t nr = 0;

	series_version_init(&v, "s", "v1");
	patch_init(&p);
	assert_int_equal(patch_parse(&p, text, strlen(text), NULL, &err), 0);
	buf_adds(&b, text);
	series_version_add(&v, &p, &b, "t");
	cp.item = &v.items[0];
	cp.committed = true;
	cr.patches = &cp;
	cr.nr = 1;
	build_default_targets(&t, &nr, &cr, NULL);
	assert_int_equal(nr, 2);
	assert_string_equal(t[0], "lib/y.o");
	assert_string_equal(t[1], "fs/btrfs/");
	for (size_t i = 0; i < nr; i++)
		free(t[i]);
	free(t);
	patch_release(&p);
	buf_release(&b);
	series_version_release(&v);
	err_release(&err);
}

static char *gc_cache(const struct fixture *fx)
{
	char *cache = fs_join(fx->dir, "cache");
	struct err err = ERR_INIT;
	char *big = xcalloc(100000, 1), *f;

	setenv("KCARRY_CACHE", cache, 1);
	assert_int_equal(unit_run("rm -rf '%s' && mkdir -p '%s/build/6.1/src' "
				  "'%s/build/6.12' '%s/ident'",
				  cache, cache, cache, cache),
			 0);
	f = fs_join(cache, "build/6.1/src/f");
	assert_int_equal(fs_write_atomic(f, big, 100000, &err), 0);
	free(big);
	free(f);
	err_release(&err);
	return cache;
}

static bool cache_has(const char *cache, const char *rel)
{
	char *p = fs_join(cache, rel);
	bool yes = fs_is_dir(p);

	free(p);
	return yes;
}

static void gc_frees_the_named_build_folder(void **state)
{
	struct fixture *fx = *state;
	struct err err = ERR_INIT;
	struct build_gc_result res;
	char *cache = gc_cache(fx), *ident = fs_join(cache, "ident");
	char *t = xstrdup("6.1");
	struct build_gc_opts o = { &t, 1, NULL, 0, ident, false };

	assert_int_equal(build_gc(&res, &o, &err), 0);
	if (res.bytes < 100000)
		fail_msg("freed %llu", res.bytes);
	assert_int_equal(res.nr, 1);
	assert_true(cache_has(cache, "build/6.12"));
	assert_false(cache_has(cache, "build/6.1"));
	/* the identifier cache goes only when no target is named */
	assert_true(cache_has(cache, "ident"));
	build_gc_result_release(&res);
	o.targets = NULL;
	o.nr_targets = 0;
	assert_int_equal(build_gc(&res, &o, &err), 0);
	assert_int_equal(res.nr, 2);
	assert_false(cache_has(cache, "build/6.12"));
	assert_false(cache_has(cache, "ident"));
	build_gc_result_release(&res);
	unsetenv("KCARRY_CACHE");
	free(ident);
	free(cache);
	free(t);
	err_release(&err);
}

static void gc_of_an_unknown_name_frees_nothing(void **state)
{
	struct fixture *fx = *state;
	struct err err = ERR_INIT;
	struct build_gc_result res;
	char *cache = gc_cache(fx);
	char *t[] = { "6.1", "nosuch" };
	struct build_gc_opts o = { t, 2, NULL, 0, NULL, false };

	assert_int_equal(build_gc(&res, &o, &err), ERR_NOTFOUND);
	assert_non_null(strstr(err.msg.ptr, "no target 'nosuch'"));
	assert_string_equal(err.hint.ptr,
			    "gc can free the build folders of 6.1, 6.12; "
			    "without names also the identifier cache");
	assert_true(cache_has(cache, "build/6.1"));
	build_gc_result_release(&res);
	/* a target of the workspace that was never built: nothing to do */
	err_release(&err);
	err_init(&err);
	o.known = &t[1];
	o.nr_known = 1;
	assert_int_equal(build_gc(&res, &o, &err), 0);
	assert_int_equal(res.nr, 1);
	assert_false(cache_has(cache, "build/6.1"));
	build_gc_result_release(&res);
	unsetenv("KCARRY_CACHE");
	free(cache);
	err_release(&err);
}

static void gc_dry_run_measures_and_frees_nothing(void **state)
{
	struct fixture *fx = *state;
	struct err err = ERR_INIT;
	struct build_gc_result res;
	char *cache = gc_cache(fx), *ident = fs_join(cache, "ident");
	struct build_gc_opts o = { NULL, 0, NULL, 0, ident, true };

	assert_int_equal(build_gc(&res, &o, &err), 0);
	assert_int_equal(res.nr, 3);
	if (res.entries[0].bytes < 100000 || res.bytes < res.entries[0].bytes)
		fail_msg("measured %llu of %llu", res.entries[0].bytes,
			 res.bytes);
	assert_true(cache_has(cache, "build/6.1"));
	assert_true(cache_has(cache, "build/6.12"));
	assert_true(cache_has(cache, "ident"));
	build_gc_result_release(&res);
	unsetenv("KCARRY_CACHE");
	free(ident);
	free(cache);
	err_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			first_sync_writes_every_file_with_modes, setup, teardown),
		cmocka_unit_test_setup_teardown(unchanged_files_keep_their_mtimes,
						setup, teardown),
		cmocka_unit_test_setup_teardown(without_manifest_content_decides,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			a_file_that_became_a_folder_is_replaced, setup, teardown),
		cmocka_unit_test(old_tree_with_new_gcc_gets_the_profile),
		cmocka_unit_test(new_tree_old_gcc_or_clang_get_none),
		cmocka_unit_test(kernel_version_from_the_top_makefile),
		cmocka_unit_test(folder_rule_from_the_top_makefile),
		cmocka_unit_test(old_tools_build_gets_the_make43_fix),
		cmocka_unit_test(default_targets_are_changed_objects_and_watched_folders),
		cmocka_unit_test_setup_teardown(gc_frees_the_named_build_folder,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			gc_of_an_unknown_name_frees_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(
			gc_dry_run_measures_and_frees_nothing, setup, teardown),
	};
	return cmocka_run_group_tests(tests, group_setup, unit_git_teardown);
}
