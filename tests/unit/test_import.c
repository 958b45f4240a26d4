#include "unit.h"

#include <stdio.h>

#include "import.h"
#include "tree.h"

/* ---- fixture: a temporary directory; git kept from the user's config -- */

struct fixture {
	char *dir;
};

/* The group's state is HOME for git and libgit2, a folder of its own. */
static int group_setup(void **state)
{
	return unit_git_setup(state, "import", "Ann Author", "ann@example.org",
			      "Cee Committer", "cee@example.org");
}

static int setup(void **state)
{
	struct fixture *fx = xcalloc(1, sizeof(*fx));

	fx->dir = xstrfmt("%s/kcarry-test-import-XXXXXX", unit_tmpdir());
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

/* Write text to dir/rel, creating folders. */
static void put(const struct fixture *fx, const char *rel, const char *text)
{
	char *path = fs_join(fx->dir, rel);
	char *slash = strrchr(path, '/');
	struct err err = ERR_INIT;

	*slash = '\0';
	if (fs_mkdirs(path, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	*slash = '/';
	if (fs_write_atomic(path, text, strlen(text), &err) < 0)
		fail_msg("%s", err.msg.ptr);
	free(path);
	err_release(&err);
}


/* Import sources (paths relative to fx->dir); fails the test on error. */
static void import_ok(struct import_set *set, const struct fixture *fx,
		      const char *const *rel, size_t nr,
		      const struct import_opts *opts)
{
	static const struct import_opts defaults = { 0 };
	char **paths = xcalloc(nr, sizeof(*paths));
	struct err err = ERR_INIT;

	for (size_t i = 0; i < nr; i++)
		paths[i] = fs_join(fx->dir, rel[i]);
	memset(set, 0, sizeof(*set));
	if (import_sources(set, paths, nr, opts ? opts : &defaults, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	for (size_t i = 0; i < nr; i++)
		free(paths[i]);
	free(paths);
	err_release(&err);
}

/* Import one source that must fail with code; returns the message. */
static char *import_fails(const struct fixture *fx, const char *rel, int code)
{
	static const struct import_opts opts = { 0 };
	char *path = fs_join(fx->dir, rel);
	struct import_set set = { 0 };
	struct err err = ERR_INIT;
	char *msg;

	assert_int_equal(import_sources(&set, &path, 1, &opts, &err), code);
	msg = buf_detach(&err.msg, NULL);
	import_set_release(&set);
	err_release(&err);
	free(path);
	return msg;
}

/* ---- patch texts ------------------------------------------------------ */

#define DIFF_A(old, new)                                                    \
	"--- a/fs/btrfs/a.c\n"                                              \
	"+++ b/fs/btrfs/a.c\n"                                              \
	"@@ -1,3 +1,3 @@\n"                                                 \
	" int a(void)\n"                                                    \
	"-{ return " old "; }\n"                                            \
	"+{ return " new "; }\n"                                            \
	" /* end */\n"

static const char quilt_first[] =
	"From: Ann Author <ann@example.org>\n"
	"Subject: btrfs: fix a\n"
	"\n"
	"Fix a.\n"
	"---\n" DIFF_A("0", "1");

static const char quilt_second_p0[] =
	"Description: btrfs: fix b\n"
	"Author: Ben Builder <ben@example.org>\n"
	"\n"
	"--- fs/btrfs/b.c\n"
	"+++ fs/btrfs/b.c\n"
	"@@ -1 +1 @@\n"
	"-int b;\n"
	"+long b;\n";

static const char quilt_third[] =
	"--- a/fs/btrfs/c.c\n"
	"+++ b/fs/btrfs/c.c\n"
	"@@ -1 +1 @@\n"
	"-int c;\n"
	"+long c;\n";

static void make_quilt(const struct fixture *fx, const char *sub)
{
	char *series = xstrfmt("%s/series", sub);
	char *first = xstrfmt("%s/first.patch", sub);
	char *second = xstrfmt("%s/sub/second.diff", sub);
	char *third = xstrfmt("%s/third.patch", sub);

	put(fx, series,
	    "# patches for btrfs, in order\n"
	    "first.patch\n"
	    "   # an indented comment\n"
	    "sub/second.diff -p0   # trailing comment\n"
	    "\n"
	    "third.patch\t-p1\n");
	put(fx, first, quilt_first);
	put(fx, second, quilt_second_p0);
	put(fx, third, quilt_third);
	free(third);
	free(second);
	free(first);
	free(series);
}

/* An mbox posting of one version: cover and two patches. */
static void add_posting(struct buf *mbox, unsigned version, const char *day)
{
	struct buf tag = BUF_INIT;

	buf_adds(&tag, "PATCH");
	if (version > 1)
		buf_addf(&tag, " v%u", version);
	buf_addf(mbox,
		 "From mboxrd@z Thu Jan  1 00:00:00 1970\n"
		 "From: Ann Author <ann@example.org>\n"
		 "Date: %s Nov 2021 10:00:00 +0000\n"
		 "Subject: [%s 0/2] btrfs: two fixes\n"
		 "Message-ID: <v%u-0@example.org>\n"
		 "\n"
		 "Two fixes, take %u.\n"
		 "\n"
		 "base-commit: 0123456789abcdef0123456789abcdef0123456%u\n"
		 "\n",
		 day, tag.ptr, version, version, version);
	for (unsigned i = 1; i <= 2; i++)
		buf_addf(mbox,
			 "From mboxrd@z Thu Jan  1 00:00:00 1970\n"
			 "From: Ann Author <ann@example.org>\n"
			 "Date: %s Nov 2021 10:0%u:00 +0000\n"
			 "Subject: [%s %u/2] btrfs: fix %c\n"
			 "Message-ID: <v%u-%u@example.org>\n"
			 "In-Reply-To: <v%u-0@example.org>\n"
			 "References: <v%u-0@example.org>\n"
			 "\n"
			 "Fix %c, take %u.\n"
			 "\n"
			 "Signed-off-by: Ann Author <ann@example.org>\n"
			 "---\n"
			 "--- a/fs/btrfs/%c.c\n"
			 "+++ b/fs/btrfs/%c.c\n"
			 "@@ -1 +1 @@\n"
			 "-int %c = 0;\n"
			 "+int %c = %u;\n"
			 "\n",
			 day, i, tag.ptr, i, 'a' + i - 1, version, i, version,
			 version, 'a' + i - 1, version, 'a' + i - 1,
			 'a' + i - 1, 'a' + i - 1, 'a' + i - 1, version);
	buf_release(&tag);
}

#define GIT "git -c init.defaultBranch=main -c core.autocrlf=false "

/* dir/repo: base, then three commits, an empty one, and their patches. */
static void make_repo(const struct fixture *fx)
{
	static const char script[] =
		GIT "init -q repo && cd repo && mkdir -p fs/btrfs && "
		"printf 'int a = 0;\\n' > fs/btrfs/a.c && "
		"printf 'int b = 0;\\n' > fs/btrfs/b.c && "
		GIT "add . && " GIT "commit -qm base && " GIT "tag base && "
		"printf 'int a = 1;\\n' > fs/btrfs/a.c && "
		"GIT_AUTHOR_DATE='2021-11-02 14:49:16 +0200' "
		GIT "commit -qam 'btrfs: set a' -m 'Because.' && "
		GIT "commit -q --allow-empty -m 'empty: nothing at all' && "
		"printf 'int b = 2;\\n' > fs/btrfs/b.c && "
		"GIT_AUTHOR_NAME='Ben Builder' "
		"GIT_AUTHOR_EMAIL=ben@example.org "
		GIT "commit -qam 'btrfs: set b' && "
		"printf 'int c;\\n' > fs/btrfs/c.c && "
		GIT "add fs/btrfs/c.c && "
		GIT "commit -qm 'btrfs: add c' && "
		GIT "format-patch -q -o ../formatted base";

	if (unit_run("git --version") != 0)
		skip();
	assert_int_equal(unit_run("cd '%s' && %s", fx->dir, script), 0);
}

static void assert_files(const struct series_version *v, const char *expect)
{
	struct buf b = BUF_INIT;

	for (size_t i = 0; i < v->nr; i++)
		buf_addf(&b, "%s%s", i ? "|" : "", v->items[i].file);
	assert_string_equal(b.ptr, expect);
	buf_release(&b);
}

/* ---- quilt ------------------------------------------------------------ */

static void quilt_series_with_comments_and_strip_levels(void **state)
{
	const struct fixture *fx = *state;
	static const char *const src[] = { "q" };
	struct import_set set;
	const struct import_candidate *c;
	char *abs;

	make_quilt(fx, "q");
	import_ok(&set, fx, src, 1, NULL);
	assert_int_equal(set.nr, 1);
	c = &set.items[0];
	assert_string_equal(c->kind, "quilt");
	abs = fs_join(fx->dir, "q");
	assert_string_equal(c->source, abs);
	free(abs);
	assert_null(c->version);
	assert_int_equal(c->nr_msgids, 0);
	assert_files(&c->sv, "0001-btrfs-fix-a.patch|0002-btrfs-fix-b.patch|"
			     "0003-third.patch");
	assert_string_equal(c->sv.items[0].origin, "first.patch");
	assert_string_equal(c->sv.items[1].origin, "sub/second.diff");
	assert_string_equal(c->sv.items[2].origin, "third.patch");
	assert_int_equal(c->sv.items[0].strip, 1);
	assert_int_equal(c->sv.items[1].strip, 0);
	assert_int_equal(c->sv.items[2].strip, 1);
	assert_string_equal(c->sv.items[1].patch.files[0].new_path,
			    "fs/btrfs/b.c");
	assert_string_equal(c->sv.items[1].patch.author_name, "Ben Builder");
	/* Stored in format-patch form. */
	assert_true(starts_with(c->sv.items[0].text.ptr, "From "));
	assert_non_null(strstr(c->sv.items[0].text.ptr,
			       "Subject: [PATCH] btrfs: fix a\n"));
	import_set_release(&set);
}

static void quilt_folder_found_under_debian_patches(void **state)
{
	const struct fixture *fx = *state;
	static const char *const src[] = { "linux-6.1" };
	struct import_set set;
	char *abs;

	make_quilt(fx, "linux-6.1/debian/patches");
	import_ok(&set, fx, src, 1, NULL);
	assert_int_equal(set.nr, 1);
	abs = fs_join(fx->dir, "linux-6.1/debian/patches");
	assert_string_equal(set.items[0].source, abs);
	assert_int_equal(set.items[0].sv.nr, 3);
	free(abs);
	import_set_release(&set);
}

static void quilt_strip_option_sets_the_default(void **state)
{
	const struct fixture *fx = *state;
	static const char *const src[] = { "q" };
	const struct import_opts opts = { 0, true };
	struct import_set set;

	put(fx, "q/series", "second.diff\nthird.patch -p1\n");
	put(fx, "q/second.diff", quilt_second_p0);
	put(fx, "q/third.patch", quilt_third);
	import_ok(&set, fx, src, 1, &opts);
	assert_int_equal(set.items[0].sv.items[0].strip, 0);
	assert_string_equal(set.items[0].sv.items[0].patch.files[0].new_path,
			    "fs/btrfs/b.c");
	assert_int_equal(set.items[0].sv.items[1].strip, 1);
	import_set_release(&set);
}

static void quilt_missing_patch_names_series_line(void **state)
{
	const struct fixture *fx = *state;
	char *msg, *want;

	make_quilt(fx, "q");
	put(fx, "q/series", "first.patch\n# comment\nmissing.patch\n");
	msg = import_fails(fx, "q", ERR_NOTFOUND);
	want = xstrfmt("%s/q/series:3: cannot open '%s/q/missing.patch': "
		       "No such file or directory",
		       fx->dir, fx->dir);
	assert_string_equal(msg, want);
	free(want);
	free(msg);
}

static void quilt_unknown_option_is_an_error(void **state)
{
	const struct fixture *fx = *state;
	char *msg, *want;

	make_quilt(fx, "q");
	put(fx, "q/series", "first.patch\nthird.patch --fuzz=3\n");
	msg = import_fails(fx, "q", ERR_PARSE);
	want = xstrfmt("%s/q/series:2: unknown option '--fuzz=3'", fx->dir);
	assert_string_equal(msg, want);
	free(want);
	free(msg);
}

static void quilt_patch_outside_the_folder_is_refused(void **state)
{
	const struct fixture *fx = *state;
	static const char *const escapes[] = { "../x.patch", "/etc/passwd",
					       "a/../../x.patch", ".." };

	make_quilt(fx, "q");
	for (size_t i = 0; i < sizeof(escapes) / sizeof(escapes[0]); i++) {
		char *series = xstrfmt("first.patch\n%s\n", escapes[i]);
		char *want = xstrfmt("%s/q/series:2: '%s' escapes the patch "
				     "directory",
				     fx->dir, escapes[i]);
		char *msg;

		put(fx, "q/series", series);
		msg = import_fails(fx, "q", ERR_PARSE);
		assert_string_equal(msg, want);
		free(msg);
		free(want);
		free(series);
	}
}

/*
 * Fixed: src/import.c:208 reads one option after a series entry and lets
 * "-R" through without acting on it: quilt push applies "x.patch -R"
 * reversed (quilt's push_patch_args), kcarry stores it forward.  And with
 * "x.patch -R -p0" the -p0 is never read, so the patch gets -p1.
 * Expected: -R reverses the patch or is refused; here, refused.
 */
static void quilt_reverse_option_is_not_dropped(void **state)
{
	const struct fixture *fx = *state;
	char *msg;

	/* fixed: see the comment above */
	make_quilt(fx, "q");
	put(fx, "q/series", "first.patch\nsub/second.diff -R -p0\n");
	msg = import_fails(fx, "q", ERR_PARSE);
	assert_non_null(strstr(msg, "-R"));
	free(msg);
}

static void quilt_series_without_patches_is_an_error(void **state)
{
	const struct fixture *fx = *state;
	char *msg, *want;

	put(fx, "q/series", "# nothing yet\n\n");
	msg = import_fails(fx, "q", ERR_PARSE);
	want = xstrfmt("%s/q/series: lists no patch", fx->dir);
	assert_string_equal(msg, want);
	free(want);
	free(msg);
}

static void quilt_patch_that_does_not_parse_names_its_file(void **state)
{
	const struct fixture *fx = *state;
	char *msg;

	put(fx, "q/series", "bad.patch\n");
	put(fx, "q/bad.patch", "just words, no diff\n");
	msg = import_fails(fx, "q", ERR_PARSE);
	assert_true(starts_with(msg, "bad.patch"));
	free(msg);
}

/* ---- mail ------------------------------------------------------------- */

static void format_patch_folder_is_one_version(void **state)
{
	const struct fixture *fx = *state;
	static const char *const src[] = { "formatted" };
	struct import_set set;
	const struct import_candidate *c;

	make_repo(fx);
	import_ok(&set, fx, src, 1, NULL);
	assert_int_equal(set.nr, 1);
	c = &set.items[0];
	assert_string_equal(c->kind, "mbox");
	assert_string_equal(c->version, "v1");
	assert_files(&c->sv, "0001-btrfs-set-a.patch|0002-btrfs-set-b.patch|"
			     "0003-btrfs-add-c.patch");
	assert_string_equal(c->sv.items[0].patch.author_name, "Ann Author");
	assert_string_equal(c->sv.items[1].patch.author_name, "Ben Builder");
	assert_string_equal(c->sv.items[0].patch.date,
			    "Tue, 2 Nov 2021 14:49:16 +0200");
	assert_string_equal(c->sv.items[0].patch.message.ptr, "Because.\n");
	assert_int_equal(c->sv.items[2].patch.files[0].op, PATCH_ADD);
	import_set_release(&set);
}

static void mbox_with_two_versions_gives_two_candidates(void **state)
{
	const struct fixture *fx = *state;
	static const char *const src[] = { "thread.mbox" };
	struct buf mbox = BUF_INIT;
	struct import_set set;
	struct series_provenance prov;
	char *abs;

	/* The newer posting comes first in the file. */
	add_posting(&mbox, 2, "Tue, 9");
	add_posting(&mbox, 1, "Mon, 1");
	put(fx, "thread.mbox", mbox.ptr);
	import_ok(&set, fx, src, 1, NULL);
	assert_int_equal(set.nr, 2);
	assert_string_equal(set.items[0].version, "v1");
	assert_string_equal(set.items[1].version, "v2");
	for (size_t i = 0; i < 2; i++) {
		const struct import_candidate *c = &set.items[i];
		char *id0 = xstrfmt("v%zu-0@example.org", i + 1);
		char *id2 = xstrfmt("v%zu-2@example.org", i + 1);
		char *take = xstrfmt("take %zu.", i + 1);

		assert_string_equal(c->kind, "mbox");
		assert_int_equal(c->sv.nr, 2);
		assert_files(&c->sv, "0001-btrfs-fix-a.patch|"
				     "0002-btrfs-fix-b.patch");
		assert_string_equal(c->sv.items[1].origin, id2);
		assert_non_null(strstr(c->sv.items[0].patch.message.ptr, take));
		assert_string_equal(c->cover_subject, "btrfs: two fixes");
		assert_int_equal(c->nr_msgids, 3);
		assert_string_equal(c->msgids[0], id0);
		assert_string_equal(c->msgids[2], id2);
		assert_non_null(c->base_commit);
		assert_int_equal(strlen(c->base_commit), 40);
		assert_int_equal(c->base_commit[39], (char)('1' + i));
		assert_non_null(strstr(c->sv.cover.ptr, "Two fixes, take"));
		free(take);
		free(id2);
		free(id0);
	}
	abs = fs_join(fx->dir, "thread.mbox");
	import_provenance(&prov, &set.items[1]);
	assert_string_equal(prov.kind, "mbox");
	assert_string_equal(prov.source, abs);
	assert_int_equal(prov.nr_msgids, 3);
	assert_ptr_equal(prov.msgids, set.items[1].msgids);
	assert_string_equal(prov.cover_subject, "btrfs: two fixes");
	assert_ptr_equal(prov.base_commit, set.items[1].base_commit);
	free(abs);
	import_set_release(&set);
	buf_release(&mbox);
}

static void several_mail_paths_form_one_thread(void **state)
{
	const struct fixture *fx = *state;
	static const char *const src[] = { "part2.eml", "part1.mbox" };
	struct buf mbox = BUF_INIT;
	struct import_set set;
	const char *second;

	add_posting(&mbox, 3, "Wed, 10");
	/* Split after the first patch: cover and 1/2 in an mbox, 2/2 alone. */
	second = strstr(mbox.ptr, "From mboxrd@z Thu Jan  1 00:00:00 1970\n"
				  "From: Ann Author <ann@example.org>\n"
				  "Date: Wed, 10 Nov 2021 10:02:00");
	assert_non_null(second);
	put(fx, "part2.eml", strchr(second, '\n') + 1);
	buf_truncate(&mbox, (size_t)(second - mbox.ptr));
	put(fx, "part1.mbox", mbox.ptr);
	import_ok(&set, fx, src, 2, NULL);
	assert_int_equal(set.nr, 1);
	assert_string_equal(set.items[0].version, "v3");
	assert_files(&set.items[0].sv, "0001-btrfs-fix-a.patch|"
				       "0002-btrfs-fix-b.patch");
	assert_int_equal(set.items[0].nr_msgids, 3);
	import_set_release(&set);
	buf_release(&mbox);
}

static void mail_without_patches_is_an_error(void **state)
{
	const struct fixture *fx = *state;
	static const struct import_opts opts = { 0 };
	char *path = fs_join(fx->dir, "chat.mbox");
	char *want = xstrfmt("%s: no patch found in 2 messages", path);
	struct import_set set = { 0 };
	struct err err = ERR_INIT;

	put(fx, "chat.mbox",
	    "From mboxrd@z Thu Jan  1 00:00:00 1970\n"
	    "From: A <a@example.org>\nSubject: hello\nMessage-ID: <1@x>\n\n"
	    "Hi.\n\n"
	    "From mboxrd@z Thu Jan  1 00:00:00 1970\n"
	    "From: B <b@example.org>\nSubject: Re: hello\n"
	    "Message-ID: <2@x>\nIn-Reply-To: <1@x>\n\nHello.\n");
	assert_int_equal(import_sources(&set, &path, 1, &opts, &err),
			 ERR_PARSE);
	assert_string_equal(err.msg.ptr, want);
	assert_string_equal(err.hint.ptr,
			    "replies that only quote a patch are not patches");
	import_set_release(&set);
	err_release(&err);
	free(want);
	free(path);
}

/* ---- argument checks -------------------------------------------------- */

static void no_source_is_a_usage_error(void **state)
{
	static const struct import_opts opts = { 0 };
	struct import_set set = { 0 };
	struct err err = ERR_INIT;

	assert_int_equal(import_sources(&set, NULL, 0, &opts, &err), ERR_USAGE);
	assert_string_equal(err.msg.ptr, "no source given");
	err_release(&err);
}

static void missing_source_is_notfound(void **state)
{
	const struct fixture *fx = *state;
	char *msg = import_fails(fx, "nowhere", ERR_NOTFOUND);
	char *want = xstrfmt("'%s/nowhere' does not exist", fx->dir);

	assert_string_equal(msg, want);
	free(want);
	free(msg);
}

static void quilt_folder_with_other_sources_is_a_usage_error(void **state)
{
	const struct fixture *fx = *state;
	static const struct import_opts opts = { 0 };
	struct import_set set = { 0 };
	struct err err = ERR_INIT;
	struct buf mbox = BUF_INIT;
	char *paths[2];
	char *want;

	make_quilt(fx, "q");
	add_posting(&mbox, 1, "Mon, 1");
	put(fx, "x.mbox", mbox.ptr);
	paths[0] = fs_join(fx->dir, "x.mbox");
	paths[1] = fs_join(fx->dir, "q");
	want = xstrfmt("'%s' must be imported on its own (several sources "
		       "must all be mail)",
		       paths[1]);
	assert_int_equal(import_sources(&set, paths, 2, &opts, &err),
			 ERR_USAGE);
	assert_string_equal(err.msg.ptr, want);
	assert_int_equal(set.nr, 0);
	err_release(&err);
	buf_release(&mbox);
	free(want);
	free(paths[0]);
	free(paths[1]);
}

/* ---- git -------------------------------------------------------------- */

static void git_range_gives_its_commits_oldest_first(void **state)
{
	const struct fixture *fx = *state;
	char *repo, *want_source;
	struct import_opts opts = { 0 };
	struct import_set set = { 0 };
	struct err err = ERR_INIT;
	const struct import_candidate *c;

	make_repo(fx);
	repo = fs_join(fx->dir, "repo");
	want_source = xstrfmt("%s base..main", repo);
	opts.git_repo = repo;
	opts.git_range = "base..main";
	if (import_git(&set, &opts, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	assert_int_equal(set.nr, 1);
	c = &set.items[0];
	assert_string_equal(c->kind, "git");
	assert_string_equal(c->source, want_source);
	assert_null(c->version);
	assert_files(&c->sv, "0001-btrfs-set-a.patch|0002-btrfs-set-b.patch|"
			     "0003-btrfs-add-c.patch");
	/* The empty commit is left out, and said so. */
	assert_int_equal(set.nr_notes, 1);
	assert_string_equal(set.notes[0],
			    "left out 1 empty commit of base..main");
	/* Origins are the commit ids. */
	for (size_t i = 0; i < c->sv.nr; i++) {
		assert_int_equal(strlen(c->sv.items[i].origin), 40);
		assert_int_equal(strspn(c->sv.items[i].origin,
					"0123456789abcdef"),
				 40);
	}
	assert_string_equal(c->sv.items[1].patch.author_name, "Ben Builder");
	assert_string_equal(c->sv.items[1].patch.author_email,
			    "ben@example.org");
	assert_string_equal(c->sv.items[0].patch.subject, "btrfs: set a");
	assert_string_equal(c->sv.items[0].patch.message.ptr, "Because.\n");
	assert_string_equal(c->sv.items[0].patch.files[0].new_path,
			    "fs/btrfs/a.c");
	import_set_release(&set);
	err_release(&err);
	free(want_source);
	free(repo);
}

static void git_range_matches_format_patch(void **state)
{
	const struct fixture *fx = *state;
	static const char *const src[] = { "formatted" };
	char *repo;
	struct import_opts opts = { 0 };
	struct import_set from_git = { 0 }, from_mail;
	struct err err = ERR_INIT;

	make_repo(fx);
	repo = fs_join(fx->dir, "repo");
	opts.git_repo = repo;
	opts.git_range = "base..main";
	if (import_git(&from_git, &opts, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	import_ok(&from_mail, fx, src, 1, NULL);
	assert_int_equal(from_git.items[0].sv.nr, from_mail.items[0].sv.nr);
	for (size_t i = 0; i < from_mail.items[0].sv.nr; i++) {
		const struct patch *a = &from_git.items[0].sv.items[i].patch;
		const struct patch *b = &from_mail.items[0].sv.items[i].patch;

		assert_string_equal(a->subject, b->subject);
		assert_string_equal(a->author_email, b->author_email);
		assert_int_equal(a->diff.len, b->diff.len);
		assert_memory_equal(a->diff.ptr, b->diff.ptr, a->diff.len);
	}
	import_set_release(&from_git);
	import_set_release(&from_mail);
	err_release(&err);
	free(repo);
}

static void git_bad_ranges_are_errors(void **state)
{
	const struct fixture *fx = *state;
	char *repo, *want;
	struct import_opts opts = { 0 };
	struct import_set set = { 0 };
	struct err err = ERR_INIT;

	make_repo(fx);
	repo = fs_join(fx->dir, "repo");
	opts.git_repo = repo;
	opts.git_range = "main";
	assert_int_equal(import_git(&set, &opts, &err), ERR_USAGE);
	assert_string_equal(err.msg.ptr,
			    "'main' is not a range (expected A..B)");
	err_release(&err);

	err_init(&err);
	opts.git_range = "nosuch..main";
	assert_int_equal(import_git(&set, &opts, &err), ERR_NOTFOUND);
	want = xstrfmt("cannot resolve range 'nosuch..main' in '%s': ", repo);
	assert_true(starts_with(err.msg.ptr, want));
	free(want);
	err_release(&err);

	err_init(&err);
	opts.git_range = "main..main";
	assert_int_equal(import_git(&set, &opts, &err), ERR_NOTFOUND);
	assert_string_equal(err.msg.ptr, "range 'main..main' has no commits");
	assert_int_equal(set.nr, 0);
	err_release(&err);
	import_set_release(&set);
	free(repo);
}

/*
 * libgit2 1.5's git_revwalk_push_range() leaks the object the left side
 * names when the right side does not resolve (git_revparse fills
 * revspec.from, then fails, and nobody frees it); LeakSanitizer reports it
 * from tree_range_patches (src/tree.c:195).  tree.c could resolve both ends
 * itself (git_revparse, then git_revwalk_push/hide) to avoid it.  Until
 * then this case runs only without ASan.
 */
static void git_range_to_unknown_revision_is_notfound(void **state)
{
	const struct fixture *fx = *state;
	char *repo, *want;
	struct import_opts opts = { 0 };
	struct import_set set = { 0 };
	struct err err = ERR_INIT;

	make_repo(fx);
	repo = fs_join(fx->dir, "repo");
	opts.git_repo = repo;
	opts.git_range = "base..nosuch";
	assert_int_equal(import_git(&set, &opts, &err), ERR_NOTFOUND);
	want = xstrfmt("cannot resolve range 'base..nosuch' in '%s': ", repo);
	assert_true(starts_with(err.msg.ptr, want));
	free(want);
	err_release(&err);
	import_set_release(&set);
	free(repo);
}

static void git_repository_that_is_not_one_is_an_error(void **state)
{
	const struct fixture *fx = *state;
	struct import_opts opts = { 0 };
	struct import_set set = { 0 };
	struct err err = ERR_INIT;
	char *want = xstrfmt("cannot open repository '%s': ", fx->dir);

	opts.git_repo = fx->dir;
	opts.git_range = "a..b";
	assert_int_equal(import_git(&set, &opts, &err), ERR_IO);
	assert_true(starts_with(err.msg.ptr, want));
	import_set_release(&set);
	err_release(&err);
	free(want);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(quilt_series_with_comments_and_strip_levels),
		T(quilt_folder_found_under_debian_patches),
		T(quilt_strip_option_sets_the_default),
		T(quilt_missing_patch_names_series_line),
		T(quilt_unknown_option_is_an_error),
		T(quilt_patch_outside_the_folder_is_refused),
		T(quilt_reverse_option_is_not_dropped),
		T(quilt_series_without_patches_is_an_error),
		T(quilt_patch_that_does_not_parse_names_its_file),
		T(format_patch_folder_is_one_version),
		T(mbox_with_two_versions_gives_two_candidates),
		T(several_mail_paths_form_one_thread),
		T(mail_without_patches_is_an_error),
		T(no_source_is_a_usage_error),
		T(missing_source_is_notfound),
		T(quilt_folder_with_other_sources_is_a_usage_error),
		T(git_range_gives_its_commits_oldest_first),
		T(git_range_matches_format_patch),
		T(git_bad_ranges_are_errors),
		T(git_range_to_unknown_revision_is_notfound),
		T(git_repository_that_is_not_one_is_an_error),
	};

	return cmocka_run_group_tests(tests, group_setup, unit_git_teardown);
}
