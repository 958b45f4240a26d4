#include "unit.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* ---- fixture: a fresh temporary directory per test -------------------- */

struct fixture {
	char *dir;
};

static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR");
	struct fixture *fx = xcalloc(1, sizeof(*fx));

	fx->dir = xstrfmt("%s/kcarry-test-fs-XXXXXX",
			  tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(fx->dir)) {
		free(fx->dir);
		free(fx);
		return -1;
	}
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

/* fx->dir/rel; caller frees. */
static char *path_in(const struct fixture *fx, const char *rel)
{
	return fs_join(fx->dir, rel);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static void assert_dir_lists(const char *dir, const char *const *expect,
			     size_t n)
{
	struct err err = ERR_INIT;
	char **names;
	size_t nr;

	assert_int_equal(fs_list_dir(dir, &names, &nr, &err), 0);
	assert_int_equal(nr, n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(names[i], expect[i]);
	fs_free_list(names, nr);
	err_release(&err);
}

/* ---- reading ---------------------------------------------------------- */

static void read_returns_the_whole_file(void **state)
{
	const struct fixture *fx = *state;
	char *p = path_in(fx, "f");
	struct buf b = BUF_INIT;
	struct err err = ERR_INIT;

	write_file(p, "line 1\nline 2\n");
	buf_adds(&b, "old content is replaced");
	assert_int_equal(fs_read_file(&b, p, 0, &err), 0);
	assert_string_equal(b.ptr, "line 1\nline 2\n");
	assert_int_equal(b.len, 14);
	buf_release(&b);
	err_release(&err);
	free(p);
}

static void read_of_empty_file_is_empty(void **state)
{
	const struct fixture *fx = *state;
	char *p = path_in(fx, "empty");
	struct buf b = BUF_INIT;
	struct err err = ERR_INIT;

	write_file(p, "");
	assert_int_equal(fs_read_file(&b, p, 10, &err), 0);
	assert_int_equal(b.len, 0);
	assert_string_equal(b.ptr, "");
	buf_release(&b);
	err_release(&err);
	free(p);
}

static void read_larger_than_the_buffer_chunk(void **state)
{
	const struct fixture *fx = *state;
	char *p = path_in(fx, "big");
	struct buf want = BUF_INIT, got = BUF_INIT;
	struct err err = ERR_INIT;

	for (int i = 0; i < 50000; i++)
		buf_addf(&want, "%05d\n", i);
	assert_int_equal(fs_write_atomic(p, want.ptr, want.len, &err), 0);
	assert_int_equal(fs_read_file(&got, p, 0, &err), 0);
	assert_int_equal(got.len, want.len);
	assert_memory_equal(got.ptr, want.ptr, want.len);
	assert_int_equal(got.ptr[got.len], '\0');
	buf_release(&want);
	buf_release(&got);
	err_release(&err);
	free(p);
}

static void read_at_the_limit_succeeds(void **state)
{
	const struct fixture *fx = *state;
	char *p = path_in(fx, "f");
	struct buf b = BUF_INIT;
	struct err err = ERR_INIT;

	write_file(p, "0123456789");
	assert_int_equal(fs_read_file(&b, p, 10, &err), 0);
	assert_string_equal(b.ptr, "0123456789");
	buf_release(&b);
	err_release(&err);
	free(p);
}

static void read_over_the_limit_fails(void **state)
{
	const struct fixture *fx = *state;
	char *p = path_in(fx, "f");
	char *msg = xstrfmt("'%s' is larger than the 9-byte limit", p);
	struct buf b = BUF_INIT;
	struct err err = ERR_INIT;

	write_file(p, "0123456789");
	assert_int_equal(fs_read_file(&b, p, 9, &err), ERR_PARSE);
	assert_int_equal(err.code, ERR_PARSE);
	assert_string_equal(err.msg.ptr, msg);
	buf_release(&b);
	err_release(&err);
	free(msg);
	free(p);
}

static void read_of_missing_file_is_notfound(void **state)
{
	const struct fixture *fx = *state;
	char *p = path_in(fx, "absent");
	char *msg = xstrfmt("cannot open '%s': No such file or directory", p);
	struct buf b = BUF_INIT;
	struct err err = ERR_INIT;

	assert_int_equal(fs_read_file(&b, p, 0, &err), ERR_NOTFOUND);
	assert_string_equal(err.msg.ptr, msg);
	buf_release(&b);
	err_release(&err);
	free(msg);
	free(p);
}

static void read_of_directory_is_an_error(void **state)
{
	const struct fixture *fx = *state;
	char *msg = xstrfmt("'%s' is a folder, not a file", fx->dir);
	struct buf b = BUF_INIT;
	struct err err = ERR_INIT;

	assert_int_equal(fs_read_file(&b, fx->dir, 0, &err), ERR_PARSE);
	assert_string_equal(err.msg.ptr, msg);
	buf_release(&b);
	err_release(&err);
	free(msg);
}

/* Hardening 10: a FIFO named where a file belongs hung the import. */
static void read_of_fifo_fails_at_once(void **state)
{
	const struct fixture *fx = *state;
	char *p = fs_join(fx->dir, "fifo");
	char *msg = xstrfmt("'%s' is not a regular file", p);
	struct buf b = BUF_INIT;
	struct err err = ERR_INIT;

	assert_int_equal(mkfifo(p, 0600), 0);
	assert_int_equal(fs_read_file(&b, p, 0, &err), ERR_PARSE);
	assert_string_equal(err.msg.ptr, msg);
	err_release(&err);
	assert_int_equal(fs_read_file(&b, "/dev/zero", 0, &err), ERR_PARSE);
	assert_string_equal(err.msg.ptr, "'/dev/zero' is not a regular file");
	buf_release(&b);
	err_release(&err);
	free(msg);
	free(p);
}

/* ---- atomic writes ---------------------------------------------------- */

static void write_creates_the_file(void **state)
{
	const struct fixture *fx = *state;
	char *p = path_in(fx, "new");
	struct buf b = BUF_INIT;
	struct err err = ERR_INIT;

	assert_int_equal(fs_write_atomic(p, "a\0b", 3, &err), 0);
	assert_true(fs_is_file(p));
	assert_int_equal(fs_read_file(&b, p, 0, &err), 0);
	assert_int_equal(b.len, 3);
	assert_memory_equal(b.ptr, "a\0b", 3);
	buf_release(&b);
	err_release(&err);
	free(p);
}

static void write_replaces_content_and_leaves_no_temp_file(void **state)
{
	const struct fixture *fx = *state;
	char *p = path_in(fx, "series");
	static const char *const only[] = { "series" };
	struct buf b = BUF_INIT;
	struct err err = ERR_INIT;
	struct stat before, after;

	write_file(p, "a much longer old content than the new one\n");
	assert_int_equal(stat(p, &before), 0);
	assert_int_equal(fs_write_atomic(p, "new\n", 4, &err), 0);
	assert_int_equal(fs_read_file(&b, p, 0, &err), 0);
	assert_string_equal(b.ptr, "new\n");
	/* A new inode renamed over the old one, not a rewrite in place. */
	assert_int_equal(stat(p, &after), 0);
	assert_true(before.st_ino != after.st_ino);
	assert_dir_lists(fx->dir, only, 1);
	buf_release(&b);
	err_release(&err);
	free(p);
}

static void write_of_nothing_makes_an_empty_file(void **state)
{
	const struct fixture *fx = *state;
	char *p = path_in(fx, "empty");
	struct buf b = BUF_INIT;
	struct err err = ERR_INIT;

	write_file(p, "was here");
	assert_int_equal(fs_write_atomic(p, "", 0, &err), 0);
	assert_int_equal(fs_read_file(&b, p, 0, &err), 0);
	assert_int_equal(b.len, 0);
	buf_release(&b);
	err_release(&err);
	free(p);
}

static void write_into_missing_directory_fails_cleanly(void **state)
{
	const struct fixture *fx = *state;
	char *p = path_in(fx, "no/such/file");
	struct err err = ERR_INIT;

	assert_int_equal(fs_write_atomic(p, "x", 1, &err), ERR_IO);
	assert_true(starts_with(err.msg.ptr, "cannot create '"));
	assert_non_null(strstr(err.msg.ptr, "No such file or directory"));
	assert_dir_lists(fx->dir, NULL, 0);
	err_release(&err);
	free(p);
}

static void write_over_a_directory_fails_and_removes_temp(void **state)
{
	const struct fixture *fx = *state;
	char *p = path_in(fx, "d");
	static const char *const only[] = { "d" };
	struct err err = ERR_INIT;

	assert_int_equal(mkdir(p, 0777), 0);
	assert_int_equal(fs_write_atomic(p, "x", 1, &err), ERR_IO);
	assert_true(starts_with(err.msg.ptr, "cannot write '"));
	assert_true(fs_is_dir(p));
	assert_dir_lists(fx->dir, only, 1);
	err_release(&err);
	free(p);
}

/* The bytes waiting in a FIFO opened for reading without blocking. */
static void assert_fifo_holds(int fd, const char *expect)
{
	char got[64];
	ssize_t n = read(fd, got, sizeof(got) - 1);

	assert_true(n >= 0);
	got[n] = 0;
	assert_string_equal(got, expect);
}

static bool is_kind(const char *path, mode_t kind)
{
	struct stat st;

	return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == kind;
}

/* A rename over a FIFO (-o fifo) replaced it with a regular file. */
static void write_into_a_fifo_keeps_the_fifo(void **state)
{
	const struct fixture *fx = *state;
	char *p = path_in(fx, "fifo");
	static const char *const only[] = { "fifo" };
	struct fs_atomic a;
	struct err err = ERR_INIT;
	int rd;

	assert_int_equal(mkfifo(p, 0600), 0);
	rd = open(p, O_RDONLY | O_NONBLOCK);
	assert_true(rd >= 0);
	assert_int_equal(fs_atomic_open(&a, p, &err), 0);
	fputs("two\n", a.f);
	assert_int_equal(fs_atomic_commit(&a, &err), 0);
	assert_fifo_holds(rd, "two\n");
	assert_true(is_kind(p, S_IFIFO));
	assert_dir_lists(fx->dir, only, 1);
	close(rd);
	err_release(&err);
	free(p);
}

/*
 * The workspace's own writes replace a FIFO planted where they write,
 * with no reader: opening it would wait for one for ever (the alarm
 * turns such a wait into a failure).
 */
static void workspace_write_over_a_fifo_replaces_it_without_waiting(void **state)
{
	const struct fixture *fx = *state;
	char *p = path_in(fx, "fifo");
	struct buf b = BUF_INIT;
	struct err err = ERR_INIT;

	assert_int_equal(mkfifo(p, 0600), 0);
	alarm(10);
	assert_int_equal(fs_write_atomic(p, "one\n", 4, &err), 0);
	alarm(0);
	assert_true(is_kind(p, S_IFREG));
	assert_int_equal(fs_read_file(&b, p, 0, &err), 0);
	assert_string_equal(b.ptr, "one\n");
	buf_release(&b);
	err_release(&err);
	free(p);
}

/* -o takes a symlink to a FIFO or a device (/dev/stdout) through to it;
 * the workspace's own writes replace a symlink, never follow it. */
static void report_follows_a_symlink_to_a_fifo_other_writes_do_not(void **state)
{
	const struct fixture *fx = *state;
	char *p = path_in(fx, "fifo"), *l = path_in(fx, "link");
	struct fs_atomic a;
	struct buf b = BUF_INIT;
	struct err err = ERR_INIT;
	int rd;

	assert_int_equal(mkfifo(p, 0600), 0);
	assert_int_equal(symlink("fifo", l), 0);
	rd = open(p, O_RDONLY | O_NONBLOCK);
	assert_true(rd >= 0);
	assert_int_equal(fs_atomic_open(&a, l, &err), 0);
	fputs("report\n", a.f);
	assert_int_equal(fs_atomic_commit(&a, &err), 0);
	assert_fifo_holds(rd, "report\n");
	assert_true(is_kind(l, S_IFLNK));
	assert_int_equal(fs_write_atomic(l, "file\n", 5, &err), 0);
	assert_true(is_kind(l, S_IFREG));
	assert_true(is_kind(p, S_IFIFO));
	assert_fifo_holds(rd, "");
	assert_int_equal(fs_read_file(&b, l, 0, &err), 0);
	assert_string_equal(b.ptr, "file\n");
	close(rd);
	buf_release(&b);
	err_release(&err);
	free(l);
	free(p);
}

/* As root, -o /dev/null replaced the machine's /dev/null with a file.
 * The test makes its own null device (1:3), never touching /dev/null. */
static void write_into_a_character_device_keeps_the_device(void **state)
{
	const struct fixture *fx = *state;
	char *p = path_in(fx, "null");
	static const char *const only[] = { "null" };
	struct fs_atomic a;
	struct stat st;
	struct err err = ERR_INIT;
	int fd = -1;

	if (geteuid() != 0 || mknod(p, S_IFCHR | 0666, makedev(1, 3)) < 0 ||
	    (fd = open(p, O_WRONLY)) < 0) {
		free(p);
		skip(); /* not root, or a nodev mount */
		return;
	}
	close(fd);
	assert_int_equal(fs_atomic_open(&a, p, &err), 0);
	fputs("report\n", a.f);
	assert_int_equal(fs_atomic_commit(&a, &err), 0);
	assert_int_equal(lstat(p, &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(st.st_rdev, makedev(1, 3));
	assert_dir_lists(fx->dir, only, 1);
	err_release(&err);
	free(p);
}

static void report_over_a_directory_is_refused_at_open(void **state)
{
	const struct fixture *fx = *state;
	char *p = path_in(fx, "d");
	char *msg = xstrfmt("cannot write '%s': it is a folder", p);
	static const char *const only[] = { "d" };
	struct fs_atomic a;
	struct err err = ERR_INIT;

	assert_int_equal(mkdir(p, 0777), 0);
	assert_int_equal(fs_atomic_open(&a, p, &err), ERR_IO);
	assert_string_equal(err.msg.ptr, msg);
	assert_null(a.f);
	assert_dir_lists(fx->dir, only, 1);
	err_release(&err);
	free(msg);
	free(p);
}

/* ---- directories ------------------------------------------------------ */

static void mkdirs_creates_every_level(void **state)
{
	const struct fixture *fx = *state;
	char *p = path_in(fx, "a/b/c");
	struct err err = ERR_INIT;

	assert_int_equal(fs_mkdirs(p, &err), 0);
	assert_true(fs_is_dir(p));
	/* Again: existing directories are fine, a trailing slash too. */
	assert_int_equal(fs_mkdirs(p, &err), 0);
	free(p);
	p = path_in(fx, "a/b/c/d/");
	assert_int_equal(fs_mkdirs(p, &err), 0);
	assert_true(fs_is_dir(p));
	err_release(&err);
	free(p);
}

static void mkdirs_of_a_relative_path(void **state)
{
	const struct fixture *fx = *state;
	char *cwd = getcwd(NULL, 0);
	struct err err = ERR_INIT;

	assert_non_null(cwd);
	assert_int_equal(chdir(fx->dir), 0);
	assert_int_equal(fs_mkdirs("x/y", &err), 0);
	assert_true(fs_is_dir("x/y"));
	assert_int_equal(chdir(cwd), 0);
	free(cwd);
	err_release(&err);
}

static void mkdirs_through_a_file_fails(void **state)
{
	const struct fixture *fx = *state;
	char *f = path_in(fx, "file");
	char *p = path_in(fx, "file/sub");
	char *over = path_in(fx, "file");
	struct err err = ERR_INIT;

	write_file(f, "x");
	assert_int_equal(fs_mkdirs(p, &err), ERR_IO);
	assert_int_equal(err.code, ERR_IO);
	err_release(&err);
	err_init(&err);
	/* The last component exists but is a file. */
	assert_int_equal(fs_mkdirs(over, &err), ERR_IO);
	assert_true(ends_with(err.msg.ptr, "' is not a directory"));
	err_release(&err);
	free(over);
	free(p);
	free(f);
}

/*
 * Fixed: src/fs.c:104 fs_mkdirs("") starts scanning at p + 1, one byte past
 * the end of the 1-byte copy of "" (ASan: heap-buffer-overflow read).  A
 * user reaches it with 'kcarry check --reports ""' (cmd_check.c:211).
 * Expected: an error (or 0) without reading out of bounds.
 */
static void mkdirs_of_empty_path_is_an_error(void **state)
{
	struct err err = ERR_INIT;

	/* fixed: see the comment above */
	assert_true(fs_mkdirs("", &err) < 0);
	err_release(&err);
}

static void list_dir_is_sorted_without_dot_entries(void **state)
{
	const struct fixture *fx = *state;
	static const char *const names[] = { "0001-a.patch", "0002-b.patch",
					     "10", "9", "B", "a" };
	static const char *const want[] = { ".hidden",      "0001-a.patch",
					    "0002-b.patch", "10",
					    "9",            "B",
					    "a" };
	char *p;

	for (size_t i = sizeof(names) / sizeof(names[0]); i-- > 0;) {
		p = path_in(fx, names[i]);
		write_file(p, "");
		free(p);
	}
	p = path_in(fx, ".hidden");
	assert_int_equal(mkdir(p, 0777), 0);
	free(p);
	assert_dir_lists(fx->dir, want, sizeof(want) / sizeof(want[0]));
}

static void list_dir_of_empty_directory(void **state)
{
	const struct fixture *fx = *state;
	struct err err = ERR_INIT;
	char **names = (char **)&names;
	size_t nr = 7;

	assert_int_equal(fs_list_dir(fx->dir, &names, &nr, &err), 0);
	assert_null(names);
	assert_int_equal(nr, 0);
	fs_free_list(names, nr);
	err_release(&err);
}

static void list_dir_of_missing_directory_is_notfound(void **state)
{
	const struct fixture *fx = *state;
	char *p = path_in(fx, "absent");
	char *msg = xstrfmt("cannot open directory '%s': No such file or "
			    "directory", p);
	struct err err = ERR_INIT;
	char **names;
	size_t nr;

	assert_int_equal(fs_list_dir(p, &names, &nr, &err), ERR_NOTFOUND);
	assert_string_equal(err.msg.ptr, msg);
	assert_null(names);
	assert_int_equal(nr, 0);
	err_release(&err);
	free(msg);
	free(p);
}

static void remove_tree_removes_nested_content(void **state)
{
	const struct fixture *fx = *state;
	char *top = path_in(fx, "top");
	char *deep = path_in(fx, "top/a/b/c");
	char *f1 = path_in(fx, "top/a/file");
	char *f2 = path_in(fx, "top/a/b/c/.dot");
	struct err err = ERR_INIT;

	assert_int_equal(fs_mkdirs(deep, &err), 0);
	write_file(f1, "x");
	write_file(f2, "y");
	assert_int_equal(fs_remove_tree(top, &err), 0);
	assert_false(fs_is_dir(top));
	assert_dir_lists(fx->dir, NULL, 0);
	free(f2);
	free(f1);
	free(deep);
	free(top);
	err_release(&err);
}

static void remove_tree_of_a_file_or_nothing(void **state)
{
	const struct fixture *fx = *state;
	char *f = path_in(fx, "file");
	char *absent = path_in(fx, "absent");
	struct err err = ERR_INIT;

	write_file(f, "x");
	assert_int_equal(fs_remove_tree(f, &err), 0);
	assert_false(fs_is_file(f));
	assert_int_equal(fs_remove_tree(absent, &err), 0);
	assert_int_equal(err.code, 0);
	err_release(&err);
	free(absent);
	free(f);
}

static void remove_tree_does_not_follow_symlinks(void **state)
{
	const struct fixture *fx = *state;
	char *keep = path_in(fx, "keep");
	char *kept = path_in(fx, "keep/file");
	char *doomed = path_in(fx, "doomed");
	char *link = path_in(fx, "doomed/link");
	struct err err = ERR_INIT;

	assert_int_equal(fs_mkdirs(keep, &err), 0);
	assert_int_equal(fs_mkdirs(doomed, &err), 0);
	write_file(kept, "precious");
	assert_int_equal(symlink(keep, link), 0);
	assert_int_equal(fs_remove_tree(doomed, &err), 0);
	assert_false(fs_is_dir(doomed));
	assert_true(fs_is_file(kept));
	err_release(&err);
	free(link);
	free(doomed);
	free(kept);
	free(keep);
}

static void is_dir_and_is_file_tell_kinds_apart(void **state)
{
	const struct fixture *fx = *state;
	char *f = path_in(fx, "f");
	char *absent = path_in(fx, "absent");

	write_file(f, "");
	assert_true(fs_is_dir(fx->dir));
	assert_false(fs_is_file(fx->dir));
	assert_true(fs_is_file(f));
	assert_false(fs_is_dir(f));
	assert_false(fs_is_dir(absent));
	assert_false(fs_is_file(absent));
	free(absent);
	free(f);
}

/* ---- paths ------------------------------------------------------------ */

static void join_puts_one_slash_between(void **state)
{
	static const struct {
		const char *a, *b, *want;
	} cases[] = {
		{ "patches", "btrfs", "patches/btrfs" },
		{ "patches/", "btrfs", "patches/btrfs" },
		{ "", "btrfs", "btrfs" },
		{ "/", "etc", "/etc" },
		{ "a", "", "a/" },
		{ "a/b", "c/d", "a/b/c/d" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *j = fs_join(cases[i].a, cases[i].b);

		assert_string_equal(j, cases[i].want);
		free(j);
	}
}

static void absolute_keeps_absolute_paths(void **state)
{
	char *a = fs_absolute("/no/such/place");

	assert_string_equal(a, "/no/such/place");
	free(a);
}

static void absolute_puts_relative_paths_under_cwd(void **state)
{
	const struct fixture *fx = *state;
	char *cwd, *a, *want;

	cwd = getcwd(NULL, 0);
	assert_non_null(cwd);
	assert_int_equal(chdir(fx->dir), 0);
	{
		char *here = getcwd(NULL, 0);

		want = fs_join(here, "not/yet/there");
		free(here);
	}
	a = fs_absolute("not/yet/there");
	assert_string_equal(a, want);
	assert_int_equal(chdir(cwd), 0);
	free(a);
	free(want);
	free(cwd);
}

static void normalise_resolves_dots_in_the_text(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "/a/b/../c", "/a/c" },     { "/a/./b//c/", "/a/b/c" },
		{ "/../..", "/" },           { "/a/b/../../..", "/" },
		{ "/ws/../t.tar.xz", "/t.tar.xz" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *n = fs_normalise(cases[i].in);

		assert_string_equal(n, cases[i].want);
		free(n);
	}
}

static void sha256_of_a_file_is_its_digest(void **state)
{
	const struct fixture *fx = *state;
	char *path = fs_join(fx->dir, "abc");
	struct err err = ERR_INIT;
	char hex[65];

	assert_int_equal(fs_write_atomic(path, "abc", 3, &err), 0);
	assert_int_equal(fs_sha256_file(hex, path, &err), 0);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223"
				 "b00361a396177a9cb410ff61f20015ad");
	free(path);
	err_release(&err);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(read_returns_the_whole_file),
		T(read_of_empty_file_is_empty),
		T(read_larger_than_the_buffer_chunk),
		T(read_at_the_limit_succeeds),
		T(read_over_the_limit_fails),
		T(read_of_missing_file_is_notfound),
		T(read_of_directory_is_an_error),
		T(read_of_fifo_fails_at_once),
		T(write_creates_the_file),
		T(write_replaces_content_and_leaves_no_temp_file),
		T(write_of_nothing_makes_an_empty_file),
		T(write_into_missing_directory_fails_cleanly),
		T(write_over_a_directory_fails_and_removes_temp),
		T(workspace_write_over_a_fifo_replaces_it_without_waiting),
		T(write_into_a_fifo_keeps_the_fifo),
		T(report_follows_a_symlink_to_a_fifo_other_writes_do_not),
		T(write_into_a_character_device_keeps_the_device),
		T(report_over_a_directory_is_refused_at_open),
		T(mkdirs_creates_every_level),
		T(mkdirs_of_a_relative_path),
		T(mkdirs_through_a_file_fails),
		T(mkdirs_of_empty_path_is_an_error),
		T(list_dir_is_sorted_without_dot_entries),
		T(list_dir_of_empty_directory),
		T(list_dir_of_missing_directory_is_notfound),
		T(remove_tree_removes_nested_content),
		T(remove_tree_of_a_file_or_nothing),
		T(remove_tree_does_not_follow_symlinks),
		T(is_dir_and_is_file_tell_kinds_apart),
		T(join_puts_one_slash_between),
		T(absolute_keeps_absolute_paths),
		T(absolute_puts_relative_paths_under_cwd),
		T(normalise_resolves_dots_in_the_text),
		T(sha256_of_a_file_is_its_digest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
