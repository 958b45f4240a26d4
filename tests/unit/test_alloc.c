/*
 * Allocation-failure injection, as curl's test suite does it: the parsers
 * (mail, series finder, patch, apply, the quilt series reader) are run once
 * to count their allocations, then once per allocation with that one
 * failing, each run in a child process.  Every run must end cleanly: the
 * parser returns (an error or a result) with every allocation it made freed
 * again, or xmalloc ends the program with exit status 3 and "out of memory";
 * never a signal.
 *
 * The config loader is libgit2's: a failing allocation there leaves its
 * per-thread error message allocated, which counting cannot tell from a
 * leak, so it is not injected here.
 *
 * malloc, calloc and realloc are replaced in this program (glibc's own
 * are called through __libc_*), so the test cannot run under ASan, which
 * replaces them too: it skips there.
 */
#include "unit.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "apply.h"
#include "mail.h"
#include "patch.h"
#include "series.h"

#if defined(__SANITIZE_ADDRESS__)
#define NO_INJECTION 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NO_INJECTION 1
#endif
#endif

#ifndef NO_INJECTION
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

static long fail_at;    /* the n-th allocation fails (0: none) */
static long nr_allocs;  /* allocations counted since counting began */
static long live;       /* allocated and not freed */
static bool counting;

static bool should_fail(void)
{
	if (!counting)
		return false;
	return ++nr_allocs == fail_at;
}

void *malloc(size_t n)
{
	void *p;
	if (should_fail())
		return NULL;
	p = __libc_malloc(n);
	if (p && counting)
		live++;
	return p;
}

void *calloc(size_t a, size_t b)
{
	void *p;
	if (should_fail())
		return NULL;
	p = __libc_calloc(a, b);
	if (p && counting)
		live++;
	return p;
}

void *realloc(void *old, size_t n)
{
	void *p;
	if (should_fail())
		return NULL;
	p = __libc_realloc(old, n);
	if (p && !old && counting)
		live++;
	return p;
}

void free(void *p)
{
	if (p && counting)
		live--;
	__libc_free(p);
}

typedef void (*parse_fn)(const char *data, size_t len);

static void parse_mail(const char *data, size_t len)
{
	struct mail_list l = { 0 };
	struct mail_series_list sl = { 0 };
	struct err err = ERR_INIT;

	if (mail_read_mbox(&l, data, len, "input", &err) == 0)
		mail_find_series(&sl, &l, &err);
	mail_series_list_release(&sl);
	mail_list_release(&l);
	err_release(&err);
}

static void parse_patch(const char *data, size_t len)
{
	struct patch p;
	struct patch_parse_opts po = { "input", 1, true };
	struct err err = ERR_INIT;

	patch_init(&p);
	if (patch_parse(&p, data, len, &po, &err) == 0) {
		struct buf out = BUF_INIT;
		patch_format(&out, &p, NULL);
		buf_release(&out);
	}
	patch_release(&p);
	err_release(&err);
}

static void parse_quilt(const char *data, size_t len)
{
	struct series_quilt q = { 0 };
	struct err err = ERR_INIT;

	series_quilt_parse(&q, (struct span){ data, len }, "series", 1, &err);
	series_quilt_release(&q);
	err_release(&err);
}

/* data: the target file, a NUL, the patch */
static void parse_apply(const char *data, size_t len)
{
	const char *nul = memchr(data, '\0', len);
	struct patch p;
	struct patch_parse_opts po = { "input", 1, true };
	struct apply_opts ao = APPLY_OPTS_INIT;
	struct err err = ERR_INIT;

	patch_init(&p);
	if (patch_parse(&p, nul + 1, len - (size_t)(nul - data) - 1, &po,
			&err) == 0 &&
	    p.nr_files) {
		struct apply_file_result res;
		apply_file_result_init(&res);
		apply_file(&res, &p.files[0],
			   (struct span){ data, (size_t)(nul - data) }, true,
			   &ao, &err);
		apply_file_result_release(&res);
	}
	patch_release(&p);
	err_release(&err);
}

/* Exit status of one run with allocation n failing: 0 clean, 3 out of
 * memory, 99 a leak, 98 allocation n never came; a signal is a crash.
 * n 0: nothing fails. */
static int run_child(parse_fn fn, const struct buf *in, long n)
{
	pid_t pid;
	int status;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);
		dup2(devnull, 2); /* the "out of memory" line */
		/* once uncounted: what glibc keeps for good (iconv's gconv
		 * modules) is loaded before the counted run */
		fn(in->ptr, in->len);
		nr_allocs = 0;
		live = 0;
		fail_at = n;
		counting = true;
		fn(in->ptr, in->len);
		counting = false;
		_exit(live ? 99 : nr_allocs < n ? 98 : 0);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status))
		fail_msg("allocation %ld failing: killed by signal %d", n,
			 WTERMSIG(status));
	return WEXITSTATUS(status);
}

static void inject_data(parse_fn fn, const char *name, struct buf *in);

static void inject_path(parse_fn fn, const char *path)
{
	struct buf in = BUF_INIT;
	struct err err = ERR_INIT;

	assert_int_equal(fs_read_file(&in, path, 0, &err), 0);
	inject_data(fn, strrchr(path, '/') + 1, &in);
	buf_release(&in);
}

static void inject(parse_fn fn, const char *fixture, bool apply_pair)
{
	struct buf in = BUF_INIT;

	if (apply_pair) {
		struct buf orig = BUF_INIT, patch = BUF_INIT;
		char *o = xstrfmt("apply/%s/orig", fixture);
		char *p = xstrfmt("apply/%s/patch", fixture);
		unit_read_fixture(&orig, o);
		unit_read_fixture(&patch, p);
		buf_add(&in, orig.ptr, orig.len);
		buf_addc(&in, '\0');
		buf_add(&in, patch.ptr, patch.len);
		buf_release(&orig);
		buf_release(&patch);
		free(o);
		free(p);
	} else
		unit_read_fixture(&in, fixture);
	inject_data(fn, fixture, &in);
	buf_release(&in);
}

static void inject_data(parse_fn fn, const char *fixture, struct buf *inb)
{
	const struct buf in = *inb;
	long total, step, clean = 0, oom = 0;

	/* count, with nothing failing: no leak either */
	assert_int_equal(run_child(fn, &in, 0), 0);
	fn(in.ptr, in.len);
	nr_allocs = 0;
	counting = true;
	fail_at = 0;
	fn(in.ptr, in.len);
	counting = false;
	total = nr_allocs;
	assert_true(total > 0);
	/* every allocation up to 600, then a spread of the rest */
	step = total > 600 ? total / 300 : 1;
	for (long n = 1; n <= total; n += n < 600 ? 1 : step) {
		int rc = run_child(fn, &in, n);
		if (rc == 99)
			fail_msg("%s: allocation %ld of %ld failing leaks",
				 fixture, n, total);
		assert_true(rc == 0 || rc == 3);
		if (rc == 0)
			clean++;
		else
			oom++;
	}
	print_message("%s: %ld allocations; %ld runs returned cleanly, %ld "
		      "ended with out of memory\n",
		      fixture, total, clean, oom);
}

/* a gb2312 reply and a base64 CJK From: through iconv (skipped without
 * ../shared/corpus) */
static void charsets_survive_every_failing_allocation(void **state)
{
	static const char *const files[] = {
		"odd-localized-reply-prefix-inline-diff-btrfs-use-btrfs-path-auto-free.v1.mbox",
		"odd-base64-crlf-cjk-from-btrfs-remove-redundant-code.v1.mbox",
	};
	const char *corpus = unit_corpus();

	if (!corpus)
		skip();
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *abs = xstrfmt("%s/%s", corpus, files[i]);
		inject_path(parse_mail, abs);
		free(abs);
	}
}

static void mail_survives_every_failing_allocation(void **state)
{
	inject(parse_mail, "mail/crlf.mbox", false);
	inject(parse_mail, "mail/versions.mbox", false);
	inject(parse_mail, "mail/failed-report.mbox", false);
}

static void patch_survives_every_failing_allocation(void **state)
{
	inject(parse_patch, "patch/base64.patch", false);
	inject(parse_patch, "patch/dep3.patch", false);
	inject(parse_patch, "patch/rfc2047.patch", false);
}

static void quilt_series_survives_every_failing_allocation(void **state)
{
	struct buf in = BUF_INIT;

	buf_adds(&in, "# Debian's style\n"
		      "bugfix/all/fix-a.patch\n"
		      "features/x86/b.patch -p1\n"
		      "\n"
		      "debian/c.patch -p 0 # a comment\n"
		      "../outside.patch\n");
	inject_data(parse_quilt, "quilt series", &in);
	buf_release(&in);
}

static void apply_survives_every_failing_allocation(void **state)
{
	inject(parse_apply, "conflict-rej", true);
	inject(parse_apply, "already-block-beside-exact", true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mail_survives_every_failing_allocation),
		cmocka_unit_test(charsets_survive_every_failing_allocation),
		cmocka_unit_test(patch_survives_every_failing_allocation),
		cmocka_unit_test(apply_survives_every_failing_allocation),
		cmocka_unit_test(quilt_series_survives_every_failing_allocation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
static void skipped_under_asan(void **state)
{
	skip();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(skipped_under_asan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif
