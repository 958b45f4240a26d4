/*
 * unit: what every cmocka unit test includes; fixture paths come from
 * KCARRY_FIXTURES (set by scripts/run-tests) or tests/fixtures.
 */
#ifndef KCARRY_UNIT_H
#define KCARRY_UNIT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "fs.h"
#include "tree.h"

/* Directory of tests/fixtures (KCARRY_FIXTURES overrides). */
static inline const char *unit_fixtures(void)
{
	const char *d = getenv("KCARRY_FIXTURES");
	return d && *d ? d : "tests/fixtures";
}

/* Directory of ../shared/corpus, or NULL when absent (tests then skip). */
static inline const char *unit_corpus(void)
{
	const char *d = getenv("KCARRY_CORPUS");
	if (d && *d)
		return fs_is_dir(d) ? d : NULL;
	return fs_is_dir("../shared/corpus") ? "../shared/corpus" : NULL;
}

/* Read fixture file tests/fixtures/<rel> into out; fails the test if absent. */
static inline void unit_read_fixture(struct buf *out, const char *rel)
{
	struct err err = ERR_INIT;
	char *path = fs_join(unit_fixtures(), rel);
	if (fs_read_file(out, path, 0, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	free(path);
	err_release(&err);
}


/* Run a shell command (output discarded); its system() status. */
static inline int unit_run(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static inline int unit_run(const char *fmt, ...)
{
	struct buf cmd = BUF_INIT;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	buf_vaddf(&cmd, fmt, ap);
	va_end(ap);
	buf_adds(&cmd, " >/dev/null 2>&1");
	rc = system(cmd.ptr);
	buf_release(&cmd);
	return rc;
}

/* Run a shell command that must succeed; its stdout, right-trimmed. */
static inline char *unit_capture(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static inline char *unit_capture(const char *fmt, ...)
{
	struct buf cmd = BUF_INIT, out = BUF_INIT;
	char chunk[4096];
	va_list ap;
	FILE *f;
	size_t n;

	va_start(ap, fmt);
	buf_vaddf(&cmd, fmt, ap);
	va_end(ap);
	f = popen(cmd.ptr, "r");
	assert_non_null(f);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(&out, chunk, n);
	assert_int_equal(pclose(f), 0);
	buf_release(&cmd);
	buf_rtrim(&out);
	return buf_detach(&out, NULL);
}

/* The folder for temporary files: TMPDIR, or /tmp. */
static inline const char *unit_tmpdir(void)
{
	const char *tmp = getenv("TMPDIR");

	return tmp && *tmp ? tmp : "/tmp";
}

/*
 * A group setup for tests that run git and libgit2: HOME and
 * XDG_CONFIG_HOME a new folder TMPDIR/kcarry-test-NAME-home-XXXXXX (libgit2
 * looks HOME up when it starts: set first), no system or global git
 * configuration, commits by AUTHOR <AUTHOR_EMAIL> committed by COMMITTER
 * <COMMITTER_EMAIL>; then starts libgit2.  *state is the folder, which
 * unit_git_teardown removes.
 */
static inline int unit_git_setup(void **state, const char *name,
				 const char *author, const char *author_email,
				 const char *committer,
				 const char *committer_email)
{
	struct err err = ERR_INIT;
	char *home =
		xstrfmt("%s/kcarry-test-%s-home-XXXXXX", unit_tmpdir(), name);
	int rc;

	if (!mkdtemp(home)) {
		free(home);
		return -1;
	}
	setenv("HOME", home, 1);
	setenv("XDG_CONFIG_HOME", home, 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	setenv("GIT_AUTHOR_NAME", author, 1);
	setenv("GIT_AUTHOR_EMAIL", author_email, 1);
	setenv("GIT_COMMITTER_NAME", committer, 1);
	setenv("GIT_COMMITTER_EMAIL", committer_email, 1);
	rc = tree_global_init(&err);
	err_release(&err);
	*state = home;
	return rc;
}

/* The group teardown of unit_git_setup: stops libgit2, removes HOME. */
static inline int unit_git_teardown(void **state)
{
	struct err err = ERR_INIT;
	char *home = *state;
	int rc = fs_remove_tree(home, &err);

	tree_global_shutdown();
	err_release(&err);
	free(home);
	return rc;
}

/* A throw-away repository per test, made by unit_repo_setup. */
struct unit_repo {
	char *dir;	 /* temporary folder */
	char *repo_path; /* dir/repo, a work tree at tag 'base' */
	struct tree_repo *repo;
	struct tree_oid base; /* commit of tag 'base' */
};

/*
 * A test setup: a new folder TMPDIR/kcarry-test-NAME-XXXXXX in which the
 * shell command SCRIPT makes the work tree 'repo' with its tag 'base';
 * *state is a struct unit_repo with both opened.  Fails when git is
 * missing or SCRIPT fails.
 */
static inline int unit_repo_setup(void **state, const char *name,
				  const char *script)
{
	struct unit_repo *fx;
	struct err err = ERR_INIT;

	if (unit_run("git --version") != 0)
		return -1;
	fx = xcalloc(1, sizeof(*fx));
	fx->dir = xstrfmt("%s/kcarry-test-%s-XXXXXX", unit_tmpdir(), name);
	if (!mkdtemp(fx->dir) ||
	    unit_run("cd '%s' && %s", fx->dir, script) != 0)
		return -1;
	fx->repo_path = fs_join(fx->dir, "repo");
	if (tree_open(&fx->repo, fx->repo_path, &err) < 0 ||
	    tree_resolve(&fx->base, fx->repo, "base", &err) < 0) {
		fprintf(stderr, "%s\n", err.msg.ptr);
		err_release(&err);
		return -1;
	}
	err_release(&err);
	*state = fx;
	return 0;
}

/* The test teardown of unit_repo_setup: closes and removes it all. */
static inline int unit_repo_teardown(void **state)
{
	struct unit_repo *fx = *state;
	struct err err = ERR_INIT;
	int rc;

	tree_close(fx->repo);
	rc = fs_remove_tree(fx->dir, &err);
	err_release(&err);
	free(fx->repo_path);
	free(fx->dir);
	free(fx);
	return rc;
}

#endif
