/*
 * Allocation-failure injection, as curl's test suite does it: the parsers
 * (mail, series finder, patch, apply, the quilt series reader) and the
 * config loaders (kernels/NAME.conf, series/NAME.conf with its stacks-on,
 * watch list and versions, the workspace's kcarry.conf; well-formed and
 * malformed files in a temporary workspace) are run once to count their
 * allocations, then once per allocation with that one failing, each run
 * in a child process.  Every run must end cleanly: it returns (an error,
 * or success with what the run where nothing failed got) with every
 * allocation it made freed again, or xmalloc ends the program with exit
 * status 3 and "out of memory"; never a signal.
 *
 * libgit2's allocations are counted and failed too: its allocator calls
 * malloc, and so does kcarry's own (tree_global_init), which ends the
 * program as xmalloc does.  Without that, libgit2 1.5 crashes or leaks
 * on its own out-of-memory paths.  A block is counted by its address, so
 * that freeing one from before the run (libgit2's global state) does not
 * hide a leak; libgit2's per-thread error text is made by the uncounted
 * first run and only grown in place after (git_error_clear() empties it,
 * never frees it), and each loader's run ends with libgit2's shutdown,
 * which frees what libgit2 still holds, so that whatever stays live
 * after it is a leak, of kcarry's or of a libgit2 object kcarry kept.
 *
 * malloc, calloc and realloc are replaced in this program (glibc's own
 * are called through __libc_*), so the test cannot run under ASan, which
 * replaces them too: it skips there.
 */
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "apply.h"
#include "audit.h"
#include "conf.h"
#include "mail.h"
#include "thread.h"
#include "patch.h"
#include "series.h"
#include "settings.h"
#include "target.h"
#include "tree.h"

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

static long fail_at;   /* the n-th allocation fails (0: none) */
static long nr_allocs; /* allocations counted since counting began */
static long live;      /* allocated while counting and not freed */
static bool counting;

/*
 * The blocks handed out while counting, by address (open addressing,
 * linear probing): freeing a block from before counting began (libgit2's
 * global state, which its shutdown frees) changes nothing, and a block
 * realloc moves stays what it was.
 */
#define TRACK_SLOTS ((size_t)1 << 16)
static void *tracked[TRACK_SLOTS];

/* by address, malloc's 16-byte steps apart: blocks made one after the
 * other share the table's pages, which a forked child then copies few of */
static size_t slot_of(const void *p)
{
	return (size_t)((uintptr_t)p >> 4) & (TRACK_SLOTS - 1);
}

static void track(void *p)
{
	size_t i = slot_of(p);

	if ((size_t)live >= TRACK_SLOTS / 2)
		abort(); /* more live blocks than the table is for */
	while (tracked[i])
		i = (i + 1) & (TRACK_SLOTS - 1);
	tracked[i] = p;
	live++;
}

/* Forget p; false when it was not handed out while counting. */
static bool untrack(const void *p)
{
	size_t i = slot_of(p), j;

	while (tracked[i] != p) {
		if (!tracked[i])
			return false;
		i = (i + 1) & (TRACK_SLOTS - 1);
	}
	tracked[i] = NULL;
	live--;
	/* close the gap: an entry further on whose home slot is not
	 * between the gap and itself moves into the gap */
	for (j = (i + 1) & (TRACK_SLOTS - 1); tracked[j];
	     j = (j + 1) & (TRACK_SLOTS - 1)) {
		size_t k = slot_of(tracked[j]);
		bool stays = i <= j ? i < k && k <= j : i < k || k <= j;

		if (!stays) {
			tracked[i] = tracked[j];
			tracked[j] = NULL;
			i = j;
		}
	}
	return true;
}

static void start_counting(long n)
{
	if (live)
		memset(tracked, 0, sizeof(tracked));
	live = 0;
	nr_allocs = 0;
	fail_at = n;
	counting = true;
}

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
		track(p);
	return p;
}

void *calloc(size_t a, size_t b)
{
	void *p;
	if (should_fail())
		return NULL;
	p = __libc_calloc(a, b);
	if (p && counting)
		track(p);
	return p;
}

void *realloc(void *old, size_t n)
{
	void *p;
	if (should_fail())
		return NULL;
	p = __libc_realloc(old, n);
	/* moved, or freed by size 0: the new block is the old one's
	 * successor, counted if the old one was */
	if (counting && p != old && (p || !n) && (!old || untrack(old)) && p)
		track(p);
	return p;
}

void free(void *p)
{
	if (p && counting)
		untrack(p);
	__libc_free(p);
}

/*
 * What a run got, as a hash, so that a run where an allocation failed but
 * that returned success can be compared with the run where nothing
 * failed; adding to it allocates nothing.
 */
struct digest {
	uint64_t h;
};

static void digest_add(struct digest *d, const char *s)
{
	/* FNV-1a; NULL differs from "" */
	d->h = (d->h ^ (s ? 1 : 2)) * 0x100000001b3ULL;
	for (; s && *s; s++)
		d->h = (d->h ^ (unsigned char)*s) * 0x100000001b3ULL;
}

static void digest_num(struct digest *d, unsigned long long n)
{
	char num[24];

	snprintf(num, sizeof(num), "%llu", n);
	digest_add(d, num);
}

static void digest_list(struct digest *d, char *const *v, size_t nr)
{
	digest_num(d, nr);
	for (size_t i = 0; i < nr; i++)
		digest_add(d, v[i]);
}

/* One thing under test and its input. */
struct subject {
	const char *name; /* for the messages */
	/* < 0 for an error; else 0 and what it got in d (parsers: nothing) */
	int (*run)(const struct subject *s, struct digest *d);
	struct buf data;  /* parsers: the input */
	const char *root; /* loaders: the workspace folder */
	const char *arg;  /* loaders: the series or target name */
	bool libgit2;     /* shut libgit2 down at the end of a run */
};

static int parse_mail(const struct subject *s, struct digest *d)
{
	struct mail_list l = { 0 };
	struct mail_series_list sl = { 0 };
	struct err err = ERR_INIT;

	if (mail_read_mbox(&l, s->data.ptr, s->data.len, "input", &err) == 0)
		mail_find_series(&sl, &l, &err);
	mail_series_list_release(&sl);
	mail_list_release(&l);
	err_release(&err);
	return 0;
}

static int parse_patch(const struct subject *s, struct digest *d)
{
	struct patch p;
	struct patch_parse_opts po = { "input", 1, true };
	struct err err = ERR_INIT;

	patch_init(&p);
	if (patch_parse(&p, s->data.ptr, s->data.len, &po, &err) == 0) {
		struct buf out = BUF_INIT;
		patch_format(&out, &p, NULL);
		buf_release(&out);
	}
	patch_release(&p);
	err_release(&err);
	return 0;
}

static int parse_quilt(const struct subject *s, struct digest *d)
{
	struct series_quilt q = { 0 };
	struct err err = ERR_INIT;

	series_quilt_parse(&q, (struct span){ s->data.ptr, s->data.len },
			   "series", 1, &err);
	series_quilt_release(&q);
	err_release(&err);
	return 0;
}

/* data: the target file, a NUL, the patch */
static int parse_apply(const struct subject *s, struct digest *d)
{
	const char *data = s->data.ptr;
	size_t len = s->data.len;
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
	return 0;
}

/* kernels/ARG.conf, as every command that opens a target reads it */
static int load_kernel(const struct subject *s, struct digest *d)
{
	struct target t;
	struct err err = ERR_INIT;
	int error = target_load(&t, s->root, s->arg, &err);

	if (!error) {
		digest_num(d, t.kind);
		digest_add(d, t.url);
		digest_add(d, t.ref);
		digest_add(d, t.tarball);
		digest_add(d, t.repo_path);
		digest_add(d, t.source);
		digest_add(d, t.history);
		digest_add(d, t.build_command);
		digest_list(d, t.build_config, t.nr_build_config);
		digest_list(d, t.build_targets, t.nr_build_targets);
		digest_add(d, t.build_cc);
		digest_num(d, t.build_jobs);
		digest_add(d, t.build_make_flags);
		digest_add(d, t.build_profile);
		target_release(&t);
	}
	err_release(&err);
	return error;
}

/* series/ARG.conf, as check reads it: stacks-on, then the audit's watch */
static int load_series(const struct subject *s, struct digest *d)
{
	struct audit_opts ao;
	struct err err = ERR_INIT;
	char *base = NULL;
	int error;

	if ((error = series_stacks_on(&base, s->root, s->arg, &err)) == 0) {
		digest_add(d, base);
		free(base);
		if ((error = audit_opts_load(&ao, s->root, s->arg, &err)) ==
		    0) {
			digest_list(d, ao.watch, ao.nr_watch);
			digest_list(d, ao.scope, ao.nr_scope);
			audit_opts_release(&ao);
		}
	}
	err_release(&err);
	return error;
}

/* the versions of series/ARG.conf, as list and import read them */
static int load_versions(const struct subject *s, struct digest *d)
{
	char *path = xstrfmt("%s/series/%s.conf", s->root, s->arg);
	struct conf *c = NULL;
	struct err err = ERR_INIT;
	char **vs = NULL;
	size_t nr = 0;
	int error;

	if ((error = conf_open(&c, path, false, &err)) == 0 &&
	    (error = conf_subsections(c, "version", &vs, &nr, &err)) == 0) {
		digest_list(d, vs, nr);
		for (size_t i = 0; i < nr && !error; i++) {
			char *key = xstrfmt("version.%s.msgid", vs[i]);
			char **ids = NULL;
			size_t nids = 0;

			error = conf_get_all(c, key, &ids, &nids, &err);
			digest_list(d, ids, nids);
			conf_free_list(ids, nids);
			free(key);
		}
	}
	conf_free_list(vs, nr);
	conf_free(c);
	err_release(&err);
	free(path);
	return error;
}

/* the workspace's kcarry.conf */
static int load_settings(const struct subject *s, struct digest *d)
{
	struct settings set;
	struct err err = ERR_INIT;
	const struct fetch_limits *l = &set.fetch.limits;
	int error = settings_load(&set, s->root, &err);

	if (!error) {
		digest_add(d, set.lore);
		digest_add(d, set.cainfo);
		digest_num(d, set.fetch.offline);
		digest_num(d, set.tarball.max_bytes);
		digest_num(d, set.tarball.max_entries);
		digest_num(d, (unsigned long long)l->connect_timeout_ms);
		digest_num(d, (unsigned long long)l->timeout_ms);
		digest_num(d, (unsigned long long)l->low_speed_limit);
		digest_num(d, (unsigned long long)l->low_speed_time);
		digest_num(d, l->max_size);
		digest_num(d, l->retries);
		digest_num(d, (unsigned long long)l->retry_wait_ms);
		digest_num(d, (unsigned long long)l->retry_max_wait_ms);
		digest_num(d, (unsigned long long)l->max_redirects);
	}
	settings_release(&set);
	err_release(&err);
	return error;
}

/* What one counted run got: its return value and digest. */
struct outcome {
	int rc;
	uint64_t h;
};

/*
 * One counted run with allocation n failing (0: none).  A loader's run
 * ends with libgit2's shutdown (see the top): the caller inits libgit2
 * again.
 */
static struct outcome counted_run(const struct subject *s, long n)
{
	struct outcome o = { 0, 0 };
	struct digest d = { 0xcbf29ce484222325ULL };

	start_counting(n);
	o.rc = s->run(s, &d);
	o.h = d.h;
	if (s->libgit2)
		tree_global_shutdown();
	counting = false;
	return o;
}

static void init_libgit2(void)
{
	struct err err = ERR_INIT;

	if (tree_global_init(&err) < 0)
		fail_msg("%s", err.msg.ptr);
	err_release(&err);
}

static void end_child(int status, void *unused)
{
	_exit(status);
}

/* Exit status of one run with allocation n failing: 0 clean, 3 out of
 * memory, 99 a leak, 98 allocation n never came, 97 it returned success
 * with another result than want; a signal is a crash.  n 0: nothing
 * fails. */
static int run_child(const struct subject *s, long n,
		     const struct outcome *want)
{
	pid_t pid;
	int status;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);
		struct digest d = { 0 };
		struct outcome got;
		static const int sigs[] = { SIGSEGV, SIGABRT, SIGBUS, SIGILL,
					    SIGFPE };

		/* cmocka's handlers would catch a crash in the child and run
		 * the remaining tests there: a crash must end the child */
		for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			signal(sigs[i], SIG_DFL);
		/* xmalloc's exit(3) ends the child at once, without the
		 * libraries' destructors (most of a child's time) */
		on_exit(end_child, NULL);
		dup2(devnull, 2); /* the "out of memory" line */
		/* once uncounted: what glibc keeps for good (iconv's gconv
		 * modules) is loaded before the counted run */
		s->run(s, &d);
		got = counted_run(s, n);
		if (live)
			_exit(99);
		if (nr_allocs < n)
			_exit(98);
		if (got.rc == 0 && (want->rc != 0 || got.h != want->h))
			_exit(97);
		_exit(0);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status))
		fail_msg("%s: allocation %ld failing: killed by signal %d",
			 s->name, n, WTERMSIG(status));
	return WEXITSTATUS(status);
}

/* What the subjects injected so far counted, for a summary line. */
struct counts {
	long subjects, allocs, runs, clean, oom;
};

/* Every allocation of s failing in turn; counted in sum (may be NULL). */
static void inject(const struct subject *s, struct counts *sum)
{
	struct outcome want;
	long total, step, clean = 0, oom = 0, runs = 0;
	struct digest d = { 0 };
	int rc;

	/* count, with nothing failing, after a run uncounted as in
	 * run_child; and no leak then either */
	s->run(s, &d);
	want = counted_run(s, 0);
	if (s->libgit2)
		init_libgit2();
	total = nr_allocs;
	assert_true(total > 0);
	if ((rc = run_child(s, 0, &want)) != 0)
		fail_msg("%s: with nothing failing: %s (exit %d)", s->name,
			 rc == 99 ? "a leak" : "another result", rc);
	/* every allocation up to 600, then a spread of the rest */
	step = total > 600 ? total / 300 : 1;
	for (long n = 1; n <= total; n += n < 600 ? 1 : step) {
		rc = run_child(s, n, &want);
		if (rc == 99)
			fail_msg("%s: allocation %ld of %ld failing leaks",
				 s->name, n, total);
		if (rc == 97)
			fail_msg("%s: allocation %ld of %ld failing gives "
				 "success with another result",
				 s->name, n, total);
		if (rc != 0 && rc != 3)
			fail_msg("%s: allocation %ld of %ld failing: exit %d",
				 s->name, n, total, rc);
		runs++;
		if (rc == 0)
			clean++;
		else
			oom++;
	}
	print_message("%s: %ld allocations; %ld runs returned cleanly, %ld "
		      "ended with out of memory\n",
		      s->name, total, clean, oom);
	if (sum) {
		sum->subjects++;
		sum->allocs += total;
		sum->runs += runs;
		sum->clean += clean;
		sum->oom += oom;
	}
}

static void inject_data(int (*run)(const struct subject *, struct digest *),
			const char *name, const struct buf *in)
{
	struct subject s = { name, run, *in, NULL, NULL, false };

	inject(&s, NULL);
}

static void inject_path(int (*run)(const struct subject *, struct digest *),
			const char *path)
{
	struct buf in = BUF_INIT;
	struct err err = ERR_INIT;

	assert_int_equal(fs_read_file(&in, path, 0, &err), 0);
	inject_data(run, strrchr(path, '/') + 1, &in);
	buf_release(&in);
}

static void inject_fixture(int (*run)(const struct subject *, struct digest *),
			   const char *fixture, bool apply_pair)
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
	inject_data(run, fixture, &in);
	buf_release(&in);
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
	inject_fixture(parse_mail, "mail/crlf.mbox", false);
	inject_fixture(parse_mail, "mail/versions.mbox", false);
	inject_fixture(parse_mail, "mail/failed-report.mbox", false);
}

static void patch_survives_every_failing_allocation(void **state)
{
	inject_fixture(parse_patch, "patch/base64.patch", false);
	inject_fixture(parse_patch, "patch/dep3.patch", false);
	inject_fixture(parse_patch, "patch/rfc2047.patch", false);
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
	inject_fixture(parse_apply, "conflict-rej", true);
	inject_fixture(parse_apply, "already-block-beside-exact", true);
}

/* ---- the config loaders, on files in a temporary workspace ----------- */


static void put(const char *root, const char *rel, const char *text)
{
	char *path = fs_join(root, rel);
	char *dir = xstrdup(path);
	struct err err = ERR_INIT;

	*strrchr(dir, '/') = '\0';
	if (fs_mkdirs(dir, &err) < 0 ||
	    fs_write_atomic(path, text, strlen(text), &err) < 0)
		fail_msg("%s", err.msg.ptr);
	free(dir);
	free(path);
}

static char *new_root(void)
{
	const char *tmp = getenv("TMPDIR");
	char *root = xstrfmt("%s/kcarry-test-alloc-XXXXXX",
			     tmp && *tmp ? tmp : "/tmp");

	if (!mkdtemp(root))
		fail_msg("mkdtemp: %s", strerror(errno));
	return root;
}

static void remove_root(char *root)
{
	struct err err = ERR_INIT;

	fs_remove_tree(root, &err);
	err_release(&err);
	free(root);
}

static void inject_loader(int (*run)(const struct subject *, struct digest *),
			  const char *root, const char *arg, const char *name,
			  struct counts *sum)
{
	struct subject s = { name, run, BUF_INIT, root, arg, true };

	inject(&s, sum);
}

static void summary(const char *what, const struct counts *c)
{
	print_message("%s: %ld loads, %ld allocations, %ld failed in turn; "
		      "%ld returned, %ld ended with out of memory\n",
		      what, c->subjects, c->allocs, c->runs, c->clean, c->oom);
}

static void kernel_conf_survives_every_failing_allocation(void **state)
{
	char *root = new_root();
	struct counts sum = { 0 };

	put(root, "kernels/git.conf",
	    "# a local tree, as kcarry init's example has it\n"
	    "[kernel]\n"
	    "\turl = ../linux\n"
	    "\tref = v6.1\n"
	    "\thistory = ../linux-history\n"
	    "[build]\n"
	    "\tcommand = make -j8 bzImage\n"
	    "\tconfig = CONFIG_BTRFS_FS=y\n"
	    "\tconfig = CONFIG_BTRFS_FS_POSIX_ACL=y\n"
	    "\ttargets = fs/btrfs/\n"
	    "\ttargets = fs/btrfs/async-thread.o\n"
	    "\tcc = ccache gcc\n"
	    "\tjobs = 4\n"
	    "\tmake-flags = W=1 \"KCFLAGS=-O1 -g\"\n"
	    "\tprofile = none\n");
	put(root, "kernels/remote.conf",
	    "[kernel]\n\turl = https://git.kernel.org/pub/scm/linux/kernel/"
	    "git/stable/linux.git\n\tref = v6.1.119\n");
	put(root, "kernels/tarball.conf",
	    "[kernel]\n\ttarball = https://cdn.kernel.org/pub/linux/kernel/"
	    "v6.x/linux-6.12.tar.xz\n");
	put(root, "kernels/apt.conf",
	    "[kernel]\n\ttarball = apt:linux=6.1.119-1\n");
	/* malformed: git-config syntax, then values kcarry refuses */
	put(root, "kernels/section.conf", "[kernel\n\turl = ../linux\n");
	put(root, "kernels/quote.conf",
	    "[kernel]\n\turl = \"../linux\n\tref = v6.1\n");
	put(root, "kernels/jobs.conf",
	    "[kernel]\n\turl = ../linux\n\tref = v6.1\n[build]\n"
	    "\tjobs = many\n");
	put(root, "kernels/profile.conf",
	    "[kernel]\n\turl = ../linux\n\tref = v6.1\n[build]\n"
	    "\tprofile = fast\n");
	put(root, "kernels/empty.conf", "");
	put(root, "kernels/noref.conf", "[kernel]\n\turl = ../linux\n");
	inject_loader(load_kernel, root, "git", "kernels/git.conf", &sum);
	inject_loader(load_kernel, root, "remote", "kernels/remote.conf", &sum);
	inject_loader(load_kernel, root, "tarball", "kernels/tarball.conf",
		      &sum);
	inject_loader(load_kernel, root, "apt", "kernels/apt.conf", &sum);
	inject_loader(load_kernel, root, "section", "kernels/section.conf",
		      &sum);
	inject_loader(load_kernel, root, "quote", "kernels/quote.conf", &sum);
	inject_loader(load_kernel, root, "jobs", "kernels/jobs.conf", &sum);
	inject_loader(load_kernel, root, "profile", "kernels/profile.conf",
		      &sum);
	inject_loader(load_kernel, root, "empty", "kernels/empty.conf", &sum);
	inject_loader(load_kernel, root, "noref", "kernels/noref.conf", &sum);
	summary("kernels/*.conf", &sum);
	remove_root(root);
}

static void series_conf_survives_every_failing_allocation(void **state)
{
	char *root = new_root();
	struct counts sum = { 0 };

	put(root, "series/base.conf", "[series]\n\tname = base\n");
	put(root, "series/rt.conf",
	    "[series]\n"
	    "\tname = rt\n"
	    "\tstacks-on = base\n"
	    "[watch]\n"
	    "\tfile = kernel/sched/core.c\n"
	    "\tfile = ./include/linux/sched.h\n"
	    "\tscope = kernel/\n"
	    "[version \"v2\"]\n"
	    "\tkind = mbox\n"
	    "\tsource = https://lore.kernel.org/all/20241107.1@example.org/\n"
	    "\tpatches = 3\n"
	    "\tmsgid = <20241107.1@example.org>\n"
	    "\tmsgid = <20241107.2@example.org>\n"
	    "[version \"v3\"]\n"
	    "\tkind = git\n"
	    "\tsource = ../rt v6.1..rt\n"
	    "\tpatches = 4\n");
	put(root, "series/plain.conf", "[watch]\n\tfile = mm/slab.c\n");
	/* malformed, and stacked on what cannot be */
	put(root, "series/quote.conf",
	    "[series]\n\tstacks-on = \"base\n[watch]\n\tfile = a.c\n");
	put(root, "series/key.conf", "[series]\n\tstacks on = base\n");
	put(root, "series/self.conf", "[series]\n\tstacks-on = self\n");
	put(root, "series/nosuch.conf", "[series]\n\tstacks-on = nosuch\n");
	put(root, "series/badname.conf",
	    "[series]\n\tstacks-on = ../base\n");
	inject_loader(load_series, root, "rt", "series/rt.conf", &sum);
	inject_loader(load_versions, root, "rt", "series/rt.conf versions",
		      &sum);
	inject_loader(load_series, root, "plain", "series/plain.conf", &sum);
	inject_loader(load_series, root, "none", "series/none.conf (absent)",
		      &sum);
	inject_loader(load_series, root, "quote", "series/quote.conf", &sum);
	inject_loader(load_versions, root, "quote",
		      "series/quote.conf versions", &sum);
	inject_loader(load_series, root, "key", "series/key.conf", &sum);
	inject_loader(load_series, root, "self", "series/self.conf", &sum);
	inject_loader(load_series, root, "nosuch", "series/nosuch.conf",
		      &sum);
	inject_loader(load_series, root, "badname", "series/badname.conf",
		      &sum);
	summary("series/*.conf", &sum);
	remove_root(root);
}

static void workspace_conf_survives_every_failing_allocation(void **state)
{
	static const char *const texts[] = {
		"[kcarry]\n"
		"\tlore = https://lore.example.org/all\n"
		"[http]\n"
		"\tcainfo = /etc/ssl/certs/ca-certificates.crt\n"
		"\tconnect-timeout = 10s\n"
		"\ttimeout = 5m\n"
		"\tmax-size = 512M\n"
		"\tretries = 5\n"
		"\tretry-wait = 250ms\n"
		"\tretry-max-wait = 1m\n"
		"\toffline = yes\n"
		"\tlow-speed-limit = 10k\n"
		"\tlow-speed-time = 30s\n"
		"\tmax-redirects = 3\n"
		"[tarball]\n"
		"\tmax-size = 2G\n"
		"\tmax-entries = 200000\n",
		"",
		/* malformed */
		"[http]\n\ttimeout = soon\n",
		"[tarball]\n\tmax-entries = -1\n",
		"[http]\n\toffline = maybe\n",
		"[http\n\ttimeout = 5m\n",
		"[http]\n\ttimeout = \"5m\n",
	};
	struct counts sum = { 0 };

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		char *root = new_root();
		char *name = xstrfmt("kcarry.conf #%zu", i + 1);

		put(root, SETTINGS_FILE, texts[i]);
		inject_loader(load_settings, root, NULL, name, &sum);
		free(name);
		remove_root(root);
	}
	summary("kcarry.conf", &sum);
}

static int group_setup(void **state)
{
	struct err err = ERR_INIT;
	int rc = tree_global_init(&err);

	err_release(&err);
	return rc;
}

static int group_teardown(void **state)
{
	tree_global_shutdown();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mail_survives_every_failing_allocation),
		cmocka_unit_test(charsets_survive_every_failing_allocation),
		cmocka_unit_test(patch_survives_every_failing_allocation),
		cmocka_unit_test(apply_survives_every_failing_allocation),
		cmocka_unit_test(quilt_series_survives_every_failing_allocation),
		cmocka_unit_test(kernel_conf_survives_every_failing_allocation),
		cmocka_unit_test(series_conf_survives_every_failing_allocation),
		cmocka_unit_test(workspace_conf_survives_every_failing_allocation),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
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
