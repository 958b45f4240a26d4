#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "patch.h"

/* ---- helpers ------------------------------------------------------------ */

/* Parse tests/fixtures/patch/<name> with -p<strip>; fails the test on error. */
static void parse_fixture(struct patch *p, const char *name, int strip)
{
	struct buf text = BUF_INIT;
	struct err err = ERR_INIT;
	struct patch_parse_opts opts = { name, strip, true };
	char *rel = xstrfmt("patch/%s", name);

	unit_read_fixture(&text, rel);
	patch_init(p);
	if (patch_parse(p, text.ptr, text.len, &opts, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	free(rel);
	buf_release(&text);
	err_release(&err);
}

/* Parse text that must fail; returns the error message (caller frees). */
static char *parse_error(const char *text, size_t len, int strip)
{
	struct patch p;
	struct err err = ERR_INIT;
	struct patch_parse_opts opts = { "t.patch", strip, true };
	char *msg;

	patch_init(&p);
	assert_int_equal(patch_parse(&p, text, len, &opts, &err), ERR_PARSE);
	assert_int_equal(p.nr_files, 0);
	msg = buf_detach(&err.msg, NULL);
	patch_release(&p);
	err_release(&err);
	return msg;
}

static void assert_error(const char *text, const char *expect)
{
	char *msg = parse_error(text, strlen(text), 1);

	assert_string_equal(msg, expect);
	free(msg);
}

static void assert_span(struct span s, const char *expect)
{
	char *d = span_dup(s);

	assert_string_equal(d, expect);
	free(d);
}

/* The diff part of a format-patch file: "diff --git" up to "-- \n". */
static struct span diff_of(const char *text)
{
	const char *start = strstr(text, "\ndiff --git ");
	const char *end = start ? strstr(start, "\n-- \n") : NULL;

	assert_non_null(start);
	assert_non_null(end);
	return (struct span){ start + 1, (size_t)(end - start) };
}

static bool span_same(struct span a, struct span b)
{
	return a.len == b.len && !memcmp(a.ptr, b.ptr, a.len);
}

/* ---- git format ------------------------------------------------------- */

static void git_new_file_is_an_add(void **state)
{
	struct patch p;

	parse_fixture(&p, "git-new-file.patch", 1);
	assert_int_equal(p.nr_files, 1);
	assert_int_equal(p.files[0].op, PATCH_ADD);
	assert_null(p.files[0].old_path);
	assert_string_equal(p.files[0].new_path, "fs/btrfs/new.c");
	assert_int_equal(p.files[0].new_mode, 0100644);
	assert_string_equal(p.files[0].old_oid, "0000000");
	assert_string_equal(p.files[0].new_oid, "b5c125a");
	assert_int_equal(p.files[0].nr_hunks, 1);
	assert_int_equal(p.files[0].hunks[0].old_count, 0);
	assert_int_equal(p.files[0].hunks[0].new_count, 4);
	assert_int_equal(p.files[0].hunks[0].nr_lines, 4);
	assert_int_equal(p.files[0].hunks[0].lines[0].kind, '+');
	assert_span(p.files[0].hunks[0].lines[0].text, "int added(void)");
	assert_string_equal(patch_file_path(&p.files[0]), "fs/btrfs/new.c");
	patch_release(&p);
}

static void git_deleted_file_is_a_delete(void **state)
{
	struct patch p;

	parse_fixture(&p, "git-delete.patch", 1);
	assert_int_equal(p.nr_files, 1);
	assert_int_equal(p.files[0].op, PATCH_DELETE);
	assert_string_equal(p.files[0].old_path, "fs/btrfs/old.c");
	assert_null(p.files[0].new_path);
	assert_int_equal(p.files[0].old_mode, 0100644);
	assert_int_equal(p.files[0].hunks[0].nr_lines, 4);
	assert_string_equal(patch_file_path(&p.files[0]), "fs/btrfs/old.c");
	patch_release(&p);
}

static void git_mode_change_has_no_hunks(void **state)
{
	struct patch p;

	parse_fixture(&p, "git-mode.patch", 1);
	assert_int_equal(p.nr_files, 1);
	assert_int_equal(p.files[0].op, PATCH_MODIFY);
	assert_string_equal(p.files[0].old_path, "fs/btrfs/gen.sh");
	assert_string_equal(p.files[0].new_path, "fs/btrfs/gen.sh");
	assert_int_equal(p.files[0].old_mode, 0100644);
	assert_int_equal(p.files[0].new_mode, 0100755);
	assert_int_equal(p.files[0].nr_hunks, 0);
	assert_span(p.diff, "diff --git a/fs/btrfs/gen.sh b/fs/btrfs/gen.sh\n"
			    "old mode 100644\nnew mode 100755\n");
	patch_release(&p);
}

static void git_rename_keeps_similarity(void **state)
{
	struct patch p;

	parse_fixture(&p, "git-rename.patch", 1);
	assert_int_equal(p.nr_files, 1);
	assert_int_equal(p.files[0].op, PATCH_RENAME);
	assert_string_equal(p.files[0].old_path, "fs/btrfs/async-thread.h");
	assert_string_equal(p.files[0].new_path, "fs/btrfs/workqueue.h");
	assert_int_equal(p.files[0].similarity, 84);
	assert_int_equal(p.files[0].old_mode, 0100644);
	assert_int_equal(p.files[0].nr_hunks, 1);
	assert_int_equal(p.files[0].hunks[0].nr_lines, 6);
	patch_release(&p);
}

static void git_copy_without_hunks(void **state)
{
	struct patch p;

	parse_fixture(&p, "git-copy.patch", 1);
	assert_int_equal(p.nr_files, 1);
	assert_int_equal(p.files[0].op, PATCH_COPY);
	assert_string_equal(p.files[0].old_path, "fs/btrfs/async-thread.c");
	assert_string_equal(p.files[0].new_path, "fs/btrfs/copy.c");
	assert_int_equal(p.files[0].similarity, 100);
	assert_int_equal(p.files[0].nr_hunks, 0);
	patch_release(&p);
}

static void git_binary_patches_are_detected(void **state)
{
	struct patch p;
	struct err err = ERR_INIT;

	parse_fixture(&p, "git-binary.patch", 1);
	assert_int_equal(p.nr_files, 2);
	assert_true(p.files[0].binary);
	assert_int_equal(p.files[0].op, PATCH_ADD);
	assert_string_equal(p.files[0].new_path, "fs/btrfs/blob.bin");
	assert_int_equal(p.files[0].nr_hunks, 0);
	assert_true(p.files[1].binary);
	assert_int_equal(p.files[1].op, PATCH_MODIFY);
	assert_string_equal(p.files[1].new_path, "fs/btrfs/logo.png");
	/* The base85 blocks and their blank lines belong to the diff. */
	assert_int_equal(p.diff.ptr[p.diff.len - 1], '\n');
	assert_non_null(memmem(p.diff.ptr, p.diff.len, "HcmV?d00001\n\n", 13));
	assert_non_null(memmem(p.diff.ptr, p.diff.len, " differ\n", 8));
	assert_int_equal(patch_check_text(&p, &err), ERR_PARSE);
	assert_string_equal(err.msg.ptr,
			    "git-binary.patch: 'fs/btrfs/blob.bin' is a binary "
			    "patch, which kcarry cannot apply");
	err_release(&err);
	patch_release(&p);
}

static void text_patch_passes_check_text(void **state)
{
	struct patch p;
	struct err err = ERR_INIT;

	parse_fixture(&p, "git-rename.patch", 1);
	assert_int_equal(patch_check_text(&p, &err), 0);
	err_release(&err);
	patch_release(&p);
}

static void quoted_names_are_unquoted(void **state)
{
	static const char text[] =
		"diff --git \"a/fs/na\\303\\257ve \\\"x\\\".c\" "
		"\"b/fs/na\\303\\257ve \\\"x\\\".c\"\n"
		"index 1111111..2222222 100644\n"
		"--- \"a/fs/na\\303\\257ve \\\"x\\\".c\"\n"
		"+++ \"b/fs/na\\303\\257ve \\\"x\\\".c\"\n"
		"@@ -1 +1 @@\n-a\n+b\n";
	struct patch p;
	struct err err = ERR_INIT;

	patch_init(&p);
	assert_int_equal(patch_parse(&p, text, strlen(text), NULL, &err), 0);
	assert_string_equal(p.files[0].new_path, "fs/na\xc3\xafve \"x\".c");
	assert_string_equal(p.files[0].old_path, "fs/na\xc3\xafve \"x\".c");
	patch_release(&p);
	err_release(&err);
}

static void names_with_spaces_split_where_they_match(void **state)
{
	static const char text[] =
		"diff --git a/Documentation/my file.txt "
		"b/Documentation/my file.txt\n"
		"old mode 100644\nnew mode 100755\n";
	struct patch p;
	struct err err = ERR_INIT;

	patch_init(&p);
	assert_int_equal(patch_parse(&p, text, strlen(text), NULL, &err), 0);
	assert_string_equal(p.files[0].new_path, "Documentation/my file.txt");
	patch_release(&p);
	err_release(&err);
}

/* ---- quilt and plain diff ---------------------------------------------- */

static void quilt_index_lines_and_timestamps(void **state)
{
	struct patch p;

	parse_fixture(&p, "quilt-index.patch", 1);
	assert_null(p.subject);
	assert_null(p.author_name);
	assert_string_equal(p.message.ptr,
			    "btrfs: add a barrier before dropping the workers "
			    "lock\n\nStopping must be visible to the workers "
			    "before they look again.\n\nSigned-off-by: Qu "
			    "Wenruo <quwenruo@cn.fujitsu.com>\n");
	assert_int_equal(p.nr_trailers, 1);
	assert_int_equal(p.nr_files, 2);
	assert_int_equal(p.files[0].op, PATCH_MODIFY);
	assert_string_equal(p.files[0].old_path, "fs/btrfs/async-thread.c");
	assert_string_equal(p.files[0].new_path, "fs/btrfs/async-thread.c");
	assert_int_equal(p.files[0].lineno, 12);
	assert_int_equal(p.files[1].op, PATCH_ADD);
	assert_string_equal(p.files[1].new_path, "fs/btrfs/extra.c");
	assert_true(span_starts_with(p.diff, "Index: linux/fs/btrfs/async"));
	assert_true(p.diff.ptr + p.diff.len == p.raw.ptr + p.raw.len);
	patch_release(&p);
}

static void diff_urN_epoch_means_absent(void **state)
{
	struct patch p;

	parse_fixture(&p, "diff-urN.diff", 1);
	assert_int_equal(p.nr_files, 3);
	assert_int_equal(p.files[0].op, PATCH_MODIFY);
	assert_int_equal(p.files[0].lineno, 1);
	assert_int_equal(p.files[1].op, PATCH_ADD);
	assert_null(p.files[1].old_path);
	assert_string_equal(p.files[1].new_path, "fs/btrfs/extra.c");
	assert_int_equal(p.files[2].op, PATCH_DELETE);
	assert_string_equal(p.files[2].old_path, "fs/btrfs/gone.c");
	assert_null(p.files[2].new_path);
	assert_int_equal(p.diff.len, p.raw.len);
	patch_release(&p);
}

static void strip_0_keeps_whole_names(void **state)
{
	struct patch p;

	parse_fixture(&p, "p0.diff", 0);
	assert_string_equal(p.files[0].old_path,
			    "fs/btrfs/async-thread.c.orig");
	assert_string_equal(p.files[0].new_path, "fs/btrfs/async-thread.c");
	assert_string_equal(patch_file_path(&p.files[0]),
			    "fs/btrfs/async-thread.c");
	patch_release(&p);
}

static void strip_2_drops_two_components(void **state)
{
	struct patch p;

	parse_fixture(&p, "diff-urN.diff", 2);
	assert_string_equal(p.files[0].old_path, "btrfs/async-thread.c");
	assert_string_equal(p.files[1].new_path, "btrfs/extra.c");
	patch_release(&p);
}

static void strip_2_applies_to_git_renames_as_1(void **state)
{
	static const char text[] =
		"diff --git a/linux/fs/x.c b/linux/fs/y.c\n"
		"similarity index 100%\n"
		"rename from linux/fs/x.c\n"
		"rename to linux/fs/y.c\n";
	struct patch p;
	struct err err = ERR_INIT;
	struct patch_parse_opts opts = { "t", 2, true };

	patch_init(&p);
	assert_int_equal(patch_parse(&p, text, strlen(text), &opts, &err), 0);
	assert_string_equal(p.files[0].old_path, "fs/x.c");
	assert_string_equal(p.files[0].new_path, "fs/y.c");
	patch_release(&p);
	err_release(&err);
}

static void too_few_components_to_strip_is_an_error(void **state)
{
	static const char text[] = "--- x.c\n+++ x.c\n@@ -1 +1 @@\n-a\n+b\n";

	assert_error(text, "t.patch:1: cannot strip 1 leading component "
			   "from 'x.c'");
}

/* ---- hunks --------------------------------------------------------------- */

static void no_newline_marker_marks_previous_line(void **state)
{
	struct patch p;
	const struct patch_hunk *h;

	parse_fixture(&p, "no-newline.patch", 1);
	h = &p.files[0].hunks[0];
	assert_int_equal(h->nr_lines, 4);
	assert_int_equal(h->lines[1].kind, '-');
	assert_true(h->lines[1].no_eol);
	assert_false(h->lines[2].no_eol);
	assert_int_equal(h->lines[3].kind, '+');
	assert_span(h->lines[3].text, "last line");
	assert_true(h->lines[3].no_eol);
	assert_true(span_starts_with(
		(struct span){ p.diff.ptr + p.diff.len - 28, 28 },
		"\\ No newline at end of file\n"));
	patch_release(&p);
}

static void section_keeps_function_context(void **state)
{
	struct patch p;
	const struct patch_hunk *h;

	parse_fixture(&p, "format-patch-trailers.patch", 1);
	h = &p.files[0].hunks[0];
	assert_int_equal(h->old_start, 5);
	assert_int_equal(h->old_count, 7);
	assert_int_equal(h->new_start, 5);
	assert_int_equal(h->new_count, 7);
	assert_int_equal(h->lineno, 22);
	assert_span(h->section,
		    "static int __btrfs_start_workers(struct btrfs_workers "
		    "*workers)");
	assert_span(h->lines[2].text, "");
	assert_int_equal(h->lines[2].kind, ' ');
	patch_release(&p);
	parse_fixture(&p, "quilt-index.patch", 1);
	assert_int_equal(p.files[0].hunks[0].section.len, 0);
	patch_release(&p);
}

static void empty_line_in_hunk_is_context(void **state)
{
	static const char text[] = "--- a/x.c\n+++ b/x.c\n"
				   "@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n";
	struct patch p;
	struct err err = ERR_INIT;

	patch_init(&p);
	assert_int_equal(patch_parse(&p, text, strlen(text), NULL, &err), 0);
	assert_int_equal(p.files[0].hunks[0].nr_lines, 4);
	assert_int_equal(p.files[0].hunks[0].lines[1].kind, ' ');
	assert_int_equal(p.files[0].hunks[0].lines[1].text.len, 0);
	patch_release(&p);
	err_release(&err);
}

static void hunk_count_defaults_to_one(void **state)
{
	static const char text[] = "--- a/x.c\n+++ b/x.c\n"
				   "@@ -3 +3,2 @@ int f(void)\n-a\n+b\n+c\n";
	struct patch p;
	struct err err = ERR_INIT;

	patch_init(&p);
	assert_int_equal(patch_parse(&p, text, strlen(text), NULL, &err), 0);
	assert_int_equal(p.files[0].hunks[0].old_start, 3);
	assert_int_equal(p.files[0].hunks[0].old_count, 1);
	assert_int_equal(p.files[0].hunks[0].new_count, 2);
	assert_span(p.files[0].hunks[0].section, "int f(void)");
	patch_release(&p);
	err_release(&err);
}

/* ---- metadata ------------------------------------------------------------ */

static void format_patch_trailers_and_diffstat(void **state)
{
	struct patch p;

	parse_fixture(&p, "format-patch-trailers.patch", 1);
	assert_string_equal(p.commit,
			    "0165d3fc29338e94a18248ee70779032c4a4a5e0");
	assert_string_equal(p.author_name, "Qu Wenruo");
	assert_string_equal(p.author_email, "quwenruo@cn.fujitsu.com");
	assert_string_equal(p.date, "Thu, 7 Nov 2013 13:52:07 +0800");
	assert_string_equal(p.subject,
			    "btrfs: allocate workers with GFP_KERNEL");
	assert_string_equal(p.message_id,
			    "1383803527-23736-8-git-send-email-quwenruo@cn."
			    "fujitsu.com");
	assert_string_equal(p.message.ptr,
			    "The worker is allocated at mount time, when "
			    "GFP_KERNEL is fine.\n\nSigned-off-by: Qu Wenruo "
			    "<quwenruo@cn.fujitsu.com>\nReviewed-by: David "
			    "Sterba <dsterba@suse.cz>\n");
	assert_int_equal(p.nr_trailers, 2);
	assert_string_equal(p.trailers[0].key, "Signed-off-by");
	assert_string_equal(p.trailers[0].value,
			    "Qu Wenruo <quwenruo@cn.fujitsu.com>");
	assert_string_equal(p.trailers[1].key, "Reviewed-by");
	assert_true(span_starts_with(p.diff, "diff --git a/fs/btrfs/"));
	assert_true(ends_with(p.raw.ptr, "-- \n2.39.5\n\n"));
	assert_int_equal(p.raw.ptr + p.raw.len - (p.diff.ptr + p.diff.len),
			 strlen("-- \n2.39.5\n\n"));
	assert_int_equal(p.files[0].lineno, 18);
	patch_release(&p);
}

static void dep3_header_with_multiline_description(void **state)
{
	struct patch p;

	parse_fixture(&p, "dep3.patch", 1);
	assert_string_equal(p.subject, "btrfs: fix the worker shutdown race");
	assert_string_equal(p.message.ptr,
			    "btrfs_stop_workers() sets workers->stopping "
			    "without a barrier, so a\nworker can miss it and "
			    "sleep forever.\n\nAdd the barrier that upstream "
			    "added in 3.14.\n");
	assert_string_equal(p.author_name, "Qu Wenruo");
	assert_string_equal(p.author_email, "quwenruo@cn.fujitsu.com");
	assert_null(p.date);
	assert_int_equal(p.nr_dep3, 6);
	assert_string_equal(p.dep3[2].key, "Origin");
	assert_string_equal(p.dep3[2].value,
			    "upstream, https://git.kernel.org/linus/"
			    "0123456789abcdef");
	assert_string_equal(p.dep3[3].key, "Bug-Debian");
	assert_string_equal(p.dep3[4].value, "not-needed");
	assert_int_equal(p.nr_trailers, 0);
	assert_int_equal(p.nr_files, 1);
	assert_string_equal(p.files[0].new_path, "fs/btrfs/async-thread.c");
	patch_release(&p);
}

static void debian_mail_style_header(void **state)
{
	struct patch p;

	parse_fixture(&p, "debian-mail.patch", 1);
	assert_string_equal(p.subject,
			    "btrfs: Disable the experimental workqueue");
	assert_string_equal(p.author_name, "Ben Hutchings");
	assert_string_equal(p.author_email, "ben@decadent.org.uk");
	assert_string_equal(p.date, "Mon, 13 Apr 2009 17:34:00 +0100");
	assert_int_equal(p.nr_dep3, 5);
	assert_string_equal(p.message.ptr,
			    "The new workqueue is not ready for a stable "
			    "release.\n\nCc: stable@vger.kernel.org # 3.10+\n"
			    "Signed-off-by: Ben Hutchings "
			    "<ben@decadent.org.uk>\n");
	assert_int_equal(p.nr_trailers, 2);
	assert_string_equal(p.trailers[0].key, "Cc");
	assert_string_equal(p.trailers[0].value,
			    "stable@vger.kernel.org # 3.10+");
	assert_string_equal(p.files[0].new_path, "fs/btrfs/Kconfig");
	patch_release(&p);
}

static void bare_diff_has_no_metadata(void **state)
{
	struct patch p;

	parse_fixture(&p, "bare.patch", 1);
	assert_null(p.subject);
	assert_null(p.author_name);
	assert_null(p.author_email);
	assert_null(p.date);
	assert_null(p.commit);
	assert_int_equal(p.message.len, 0);
	assert_int_equal(p.nr_dep3, 0);
	assert_int_equal(p.nr_files, 2);
	assert_string_equal(p.files[1].new_path, "fs/btrfs/Makefile");
	assert_int_equal(p.diff.len, p.raw.len);
	patch_release(&p);
}

static void rfc2047_subject_and_author_are_decoded(void **state)
{
	struct patch p;

	parse_fixture(&p, "rfc2047.patch", 1);
	assert_string_equal(p.subject, "btrfs: f\xc3\xbcr die Workqueue");
	assert_string_equal(p.author_name, "J\xc3\xbcrgen Gro\xc3\x9f");
	assert_string_equal(p.author_email, "jgross@suse.com");
	assert_string_equal(p.message.ptr, "Gr\xc3\xbc\xc3\x9f"
					   "e.\n");
	patch_release(&p);
}

static void inbody_from_overrides_sender(void **state)
{
	static const char text[] =
		"From: Sender <s@example.org>\n"
		"Subject: [PATCH] x: fix\n\n"
		"From: Real Author <a@example.org>\n\n"
		"Body.\n---\n--- a/x.c\n+++ b/x.c\n@@ -1 +1 @@\n-a\n+b\n";
	struct patch p;
	struct err err = ERR_INIT;

	patch_init(&p);
	assert_int_equal(patch_parse(&p, text, strlen(text), NULL, &err), 0);
	assert_string_equal(p.author_name, "Real Author");
	assert_string_equal(p.author_email, "a@example.org");
	assert_string_equal(p.subject, "x: fix");
	assert_string_equal(p.message.ptr, "Body.\n");
	patch_release(&p);
	err_release(&err);
}

static void base64_body_is_decoded(void **state)
{
	struct patch p;

	parse_fixture(&p, "base64.patch", 1);
	assert_string_equal(p.subject, "btrfs: add workqueue.o");
	assert_string_equal(p.message.ptr,
			    "Build the workqueue.\n\nSigned-off-by: Qu Wenruo "
			    "<quwenruo@cn.fujitsu.com>\n");
	assert_int_equal(p.nr_files, 1);
	assert_span(p.files[0].hunks[0].lines[1].text, "obj-y += workqueue.o");
	assert_true(span_starts_with(p.diff, "diff --git "));
	assert_true(p.diff.len > 22 &&
		    !memcmp(p.diff.ptr + p.diff.len - 22,
			    "+obj-y += workqueue.o\n", 22));
	patch_release(&p);
}

static void crlf_lines_keep_their_cr_in_hunks(void **state)
{
	struct buf text = BUF_INIT, crlf = BUF_INIT;
	struct err err = ERR_INIT;
	struct patch p;

	unit_read_fixture(&text, "patch/format-patch-trailers.patch");
	for (size_t i = 0; i < text.len; i++) {
		if (text.ptr[i] == '\n')
			buf_addc(&crlf, '\r');
		buf_addc(&crlf, text.ptr[i]);
	}
	patch_init(&p);
	assert_int_equal(patch_parse(&p, crlf.ptr, crlf.len, NULL, &err), 0);
	assert_string_equal(p.subject,
			    "btrfs: allocate workers with GFP_KERNEL");
	assert_int_equal(p.nr_trailers, 2);
	assert_string_equal(p.files[0].new_path, "fs/btrfs/async-thread.c");
	assert_span(p.files[0].hunks[0].section,
		    "static int __btrfs_start_workers(struct btrfs_workers "
		    "*workers)");
	assert_span(p.files[0].hunks[0].lines[2].text, "\r");
	assert_span(p.files[0].hunks[0].lines[3].text,
		    "\tworker = kzalloc(sizeof(*worker), GFP_NOFS);\r");
	patch_release(&p);
	buf_release(&text);
	buf_release(&crlf);
	err_release(&err);
}

static void sentence_starting_with_from_is_message(void **state)
{
	static const char text[] = "From the upstream commit, adapted.\n\n"
				   "--- a/x.c\n+++ b/x.c\n"
				   "@@ -1 +1 @@\n-a\n+b\n";
	struct patch p;
	struct err err = ERR_INIT;

	patch_init(&p);
	assert_int_equal(patch_parse(&p, text, strlen(text), NULL, &err), 0);
	assert_null(p.commit);
	assert_null(p.subject);
	assert_string_equal(p.message.ptr,
			    "From the upstream commit, adapted.\n");
	patch_release(&p);
	err_release(&err);
}

static void add_trailer_appends_once(void **state)
{
	struct patch p;

	parse_fixture(&p, "format-patch-trailers.patch", 1);
	patch_add_trailer(&p, "Reviewed-by", "David Sterba <dsterba@suse.cz>");
	assert_int_equal(p.nr_trailers, 2);
	patch_add_trailer(&p, "Tested-by", "Chris Mason <clm@fb.com>");
	assert_int_equal(p.nr_trailers, 3);
	assert_true(ends_with(p.message.ptr,
			      "<dsterba@suse.cz>\nTested-by: Chris Mason "
			      "<clm@fb.com>\n"));
	patch_release(&p);
	parse_fixture(&p, "git-new-file.patch", 1);
	patch_add_trailer(&p, "Acked-by", "A <a@b>");
	assert_string_equal(p.message.ptr, "Acked-by: A <a@b>\n");
	patch_release(&p);
}

/* ---- malformed input ---------------------------------------------------- */

static void hunk_claiming_too_few_lines_is_an_error(void **state)
{
	static const char text[] = "--- a/x.c\n+++ b/x.c\n"
				   "@@ -1,2 +1,2 @@\n a\n-b\n+c\n d\n e\n";

	assert_error(text, "t.patch:3: hunk claims 2 old and 2 new lines but "
			   "has more at line 7");
}

static void hunk_claiming_too_many_lines_is_an_error(void **state)
{
	static const char text[] =
		"--- a/x.c\n+++ b/x.c\n@@ -1,4 +1,4 @@\n a\n-b\n+c\n d\n"
		"--- a/y.c\n+++ b/y.c\n@@ -1 +1 @@\n-a\n+b\n";

	/* Not read as "-" and "+" lines: a file header and hunk follow. */
	assert_error(text, "t.patch:3: hunk claims 4 old and 4 new lines but "
			   "ends after 3 and 3");
}

static void hunk_cut_by_next_hunk_is_an_error(void **state)
{
	static const char text[] = "--- a/x.c\n+++ b/x.c\n"
				   "@@ -1,3 +1,3 @@\n a\n-b\n+c\n"
				   "@@ -9 +9 @@\n-x\n+y\n";

	assert_error(text, "t.patch:3: hunk claims 3 old and 3 new lines but "
			   "ends after 2 and 2");
}

static void truncated_hunk_is_an_error(void **state)
{
	static const char text[] = "diff --git a/x.c b/x.c\n--- a/x.c\n"
				   "+++ b/x.c\n@@ -10,6 +10,7 @@ int f(void)\n"
				   " a\n b\n+c\n";

	assert_error(text, "t.patch:4: hunk claims 6 old and 7 new lines but "
			   "ends after 2 and 3");
}

static void malformed_hunk_header_is_an_error(void **state)
{
	assert_error("--- a/x.c\n+++ b/x.c\n@@ -1,x +1 @@\n-a\n+b\n",
		     "t.patch:3: malformed hunk header '@@ -1,x +1 @@'");
	assert_error("--- a/x.c\n+++ b/x.c\n"
		     "@@ -1,99999999999999999999999 +1 @@\n",
		     "t.patch:3: malformed hunk header "
		     "'@@ -1,99999999999999999999999 +1 @@'");
}

static void hunk_over_the_line_limit_is_an_error(void **state)
{
	assert_error("--- a/x.c\n+++ b/x.c\n@@ -1,1000001 +1,2 @@\n-a\n+b\n",
		     "t.patch:3: hunk claims 1000001 lines, more than the "
		     "limit of 1000000");
}

static void hunk_without_file_header_is_an_error(void **state)
{
	assert_error("diff --git a/x.c b/x.c\nindex 1..2 100644\n"
		     "@@ -1 +1 @@\n-a\n+b\n",
		     "t.patch:3: hunk without a file header");
}

static void nul_byte_is_an_error(void **state)
{
	static const char text[] = "--- a/x.c\n+++ b/x.c\n@@ -1 +1 @@\n"
				   "-a\n+b\0c\n";
	char *msg = parse_error(text, sizeof(text) - 1, 1);

	assert_string_equal(msg, "t.patch:5: NUL byte");
	free(msg);
}

static void ten_mb_line_is_an_error(void **state)
{
	struct buf b = BUF_INIT;
	char *msg;

	buf_adds(&b, "Subject: x\n\n--- a/x.c\n+++ b/x.c\n@@ -1 +1 @@\n-a\n+");
	buf_grow(&b, 10 * 1024 * 1024);
	memset(b.ptr + b.len, 'x', 10 * 1024 * 1024);
	b.len += 10 * 1024 * 1024;
	buf_adds(&b, "\n");
	msg = parse_error(b.ptr, b.len, 1);
	assert_string_equal(msg, "t.patch:7: line longer than 1048576 bytes");
	free(msg);
	buf_release(&b);
}

static void absolute_path_is_rejected(void **state)
{
	static const char text[] = "--- /etc/passwd\n+++ /etc/passwd\n"
				   "@@ -1 +1 @@\n-a\n+b\n";
	char *msg = parse_error(text, strlen(text), 0);

	assert_string_equal(msg, "t.patch:1: path '/etc/passwd' is absolute");
	free(msg);
}

static void dotdot_path_is_rejected(void **state)
{
	assert_error("--- a/../x\n+++ b/../x\n@@ -1 +1 @@\n-a\n+b\n",
		     "t.patch:1: path 'a/../x' escapes the tree");
	assert_error("diff --git a/fs/x.c b/fs/x.c\nsimilarity index 90%\n"
		     "rename from fs/x.c\nrename to fs/../../y.c\n",
		     "t.patch:4: path 'fs/../../y.c' escapes the tree");
	assert_error("diff --git a/x b/x\nnew file mode 100644\n"
		     "--- /dev/null\n+++ b/.git/hooks/post-checkout\n"
		     "@@ -0,0 +1 @@\n+rm -rf ~\n",
		     "t.patch:4: path 'b/.git/hooks/post-checkout' is "
		     "inside .git");
}

/*
 * What git apply --check refuses, kcarry refuses at parse: git decides
 * (a repository with f, 100644, holding a b c), when git is here.
 */
static const struct {
	const char *text, *error;
} git_refuses[] = {
	{ "diff --git a/f b//etc/passwd2\nnew file mode 100644\n"
	  "--- /dev/null\n+++ b//etc/passwd2\n@@ -0,0 +1 @@\n+x\n",
	  "t.patch:4: path 'b//etc/passwd2' is absolute" },
	{ "diff --git a/f b/f\nold mode 100644\nnew mode 120000\n",
	  "t.patch:1: 'f' changes type from mode 100644 to 120000 in place" },
	{ "diff --git a/f b/f\nold mode 120000\nnew mode 100755\n"
	  "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n",
	  "t.patch:1: 'f' changes type from mode 120000 to 100755 in place" },
	{ "diff --git a/f b/f\nindex 1234567..89abcde 100644\n",
	  "t.patch:1: the header of 'f' changes nothing (no hunk, mode, "
	  "rename or binary data)" },
	{ "diff --git a/f b/f\nold mode 100644\nnew mode 100644\n",
	  "t.patch:1: the header of 'f' changes nothing (no hunk, mode, "
	  "rename or binary data)" },
	{ "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -0,0 +0,0 @@\n",
	  "t.patch:4: hunk has no lines ('@@ -0,0 +0,0 @@')" },
	{ "diff --git a/f b/f\nold mode 100644\nnew mode 40000\n",
	  "t.patch:3: invalid mode '40000'" },
	{ "diff --git a/f b/f\nold mode 100644\nnew mode 644\n",
	  "t.patch:3: invalid mode '644'" },
};

static void git_apply_refusals_are_refused(void **state)
{
	const char *tmp = getenv("TMPDIR");
	char *dir = xstrfmt("%s/kcarry-test-refuse-XXXXXX",
			    tmp && *tmp ? tmp : "/tmp");
	bool git = unit_run("git --version") == 0 && mkdtemp(dir) &&
		   unit_run("cd '%s' && git init -q && printf 'a\\nb\\nc\\n' "
			    ">f && git add f",
			    dir) == 0;

	for (size_t i = 0; i < sizeof(git_refuses) / sizeof(git_refuses[0]); i++) {
		assert_error(git_refuses[i].text, git_refuses[i].error);
		if (git) {
			char *pf = xstrfmt("%s/p.patch", dir);
			FILE *fp = fopen(pf, "w");

			assert_non_null(fp);
			fputs(git_refuses[i].text, fp);
			fclose(fp);
			if (unit_run("cd '%s' && git apply --check p.patch",
				     dir) == 0)
				fail_msg("git apply accepts: %s",
					 git_refuses[i].text);
			free(pf);
		}
	}
	if (git)
		unit_run("rm -rf '%s'", dir);
	free(dir);
}

/* git apply takes 100777 as 100755 and 100664 as 100644 (canon_mode). */
static void odd_regular_modes_are_read_as_git_reads_them(void **state)
{
	static const char text[] = "diff --git a/f b/f\nold mode 100664\n"
				   "new mode 100777\n";
	struct patch p;
	struct err err = ERR_INIT;
	struct patch_parse_opts opts = { "t.patch", 1, true };

	patch_init(&p);
	assert_int_equal(patch_parse(&p, text, strlen(text), &opts, &err), 0);
	assert_int_equal(p.files[0].old_mode, 0100644);
	assert_int_equal(p.files[0].new_mode, 0100755);
	patch_release(&p);
}

static void text_without_diff_is_an_error(void **state)
{
	assert_error("From: A <a@b>\nSubject: hello\n\nJust mail.\n",
		     "t.patch: no diff found");
	assert_error("", "t.patch: no diff found");
	assert_error("garbage\n\x01\x02\xff\xfe\n@", "t.patch: no diff found");
}

/* Every prefix of a valid patch either parses or fails cleanly. */
static void truncated_inputs_never_crash(void **state)
{
	const char *names[] = { "format-patch-trailers.patch",
				"git-binary.patch", "dep3.patch",
				"quilt-index.patch" };

	for (size_t n = 0; n < sizeof(names) / sizeof(names[0]); n++) {
		struct buf text = BUF_INIT;
		char *rel = xstrfmt("patch/%s", names[n]);

		unit_read_fixture(&text, rel);
		for (size_t len = 0; len <= text.len; len++) {
			struct patch p;
			struct err err = ERR_INIT;
			struct buf out = BUF_INIT;
			/* Parse a copy so ASan sees reads past the end. */
			char *copy = xstrndup(text.ptr, len);

			patch_init(&p);
			if (patch_parse(&p, copy, len, NULL, &err) == 0) {
				patch_format(&out, &p, NULL);
				assert_true(out.len > 0);
			} else {
				assert_true(err.msg.len > 0);
				assert_null(strchr(err.msg.ptr, '\n'));
			}
			free(copy);
			buf_release(&out);
			patch_release(&p);
			err_release(&err);
		}
		free(rel);
		buf_release(&text);
	}
}

/* ---- writing ---------------------------------------------------------- */

static void format_writes_git_am_form(void **state)
{
	struct patch p;
	struct buf out = BUF_INIT;
	struct patch_format_opts opts = { 3, 17, NULL };

	parse_fixture(&p, "format-patch-trailers.patch", 1);
	patch_format(&out, &p, &opts);
	assert_true(starts_with(
		out.ptr,
		"From 0165d3fc29338e94a18248ee70779032c4a4a5e0 Mon Sep 17 "
		"00:00:00 2001\n"
		"From: Qu Wenruo <quwenruo@cn.fujitsu.com>\n"
		"Date: Thu, 7 Nov 2013 13:52:07 +0800\n"
		"Subject: [PATCH 3/17] btrfs: allocate workers with "
		"GFP_KERNEL\n\n"
		"The worker is allocated at mount time, when GFP_KERNEL is "
		"fine.\n\n"
		"Signed-off-by: Qu Wenruo <quwenruo@cn.fujitsu.com>\n"
		"Reviewed-by: David Sterba <dsterba@suse.cz>\n"
		"---\n"
		" fs/btrfs/async-thread.c | 2 +-\n"
		" 1 file changed, 1 insertion(+), 1 deletion(-)\n\n"
		"diff --git a/fs/btrfs/async-thread.c "));
	assert_non_null(strstr(out.ptr, "\t\tgoto fail;\n-- \nkcarry"));
	assert_true(ends_with(out.ptr, "\n\n"));
	buf_release(&out);
	patch_release(&p);
}

static void format_without_metadata_uses_the_name(void **state)
{
	struct patch p;
	struct buf out = BUF_INIT;

	parse_fixture(&p, "bare.patch", 1);
	patch_format(&out, &p, NULL);
	assert_true(starts_with(out.ptr,
				"From 0000000000000000000000000000000000000000"
				" Mon Sep 17 00:00:00 2001\n"
				"Subject: [PATCH] bare\n\n---\n"));
	buf_release(&out);
	patch_release(&p);
}

static void diffstat_summarises_file_operations(void **state)
{
	struct patch p;
	struct buf out = BUF_INIT;

	parse_fixture(&p, "git-rename.patch", 1);
	patch_diffstat(&out, &p);
	assert_string_equal(out.ptr,
			    " fs/btrfs/{async-thread.h => workqueue.h} | 2 +-\n"
			    " 1 file changed, 1 insertion(+), 1 deletion(-)\n"
			    " rename fs/btrfs/{async-thread.h => workqueue.h}"
			    " (84%)\n");
	buf_reset(&out);
	patch_release(&p);
	parse_fixture(&p, "git-mode.patch", 1);
	patch_diffstat(&out, &p);
	assert_string_equal(out.ptr,
			    " fs/btrfs/gen.sh | 0\n"
			    " 1 file changed, 0 insertions(+), 0 deletions(-)\n"
			    " mode change 100644 => 100755 fs/btrfs/gen.sh\n");
	buf_release(&out);
	patch_release(&p);
}

/* Names git quotes (a backslash, a tab, ESC, a quote, UTF-8 with
 * core.quotePath): the diffstat of git format-patch for this diff. */
static void diffstat_quotes_names_as_git_does(void **state)
{
	static const char text[] =
		"diff --git \"a/back\\\\slash\" \"b/back\\\\slash\"\n"
		"--- \"a/back\\\\slash\"\n"
		"+++ \"b/back\\\\slash\"\n"
		"@@ -1 +1,2 @@\n"
		" k\n"
		"+k2\n"
		"diff --git \"a/a\\tb\" b/c\n"
		"similarity index 100%\n"
		"rename from \"a\\tb\"\n"
		"rename to c\n"
		"diff --git \"a/e\\033x\" \"b/e\\033x\"\n"
		"new file mode 100644\n"
		"--- /dev/null\n"
		"+++ \"b/e\\033x\"\n"
		"@@ -0,0 +1 @@\n"
		"+n\n"
		"diff --git \"a/q\\\"d\" \"b/q\\\"d\"\n"
		"old mode 100644\n"
		"new mode 100755\n"
		"diff --git \"a/\\303\\244.c\" \"b/\\303\\244.c\"\n"
		"--- \"a/\\303\\244.c\"\n"
		"+++ \"b/\\303\\244.c\"\n"
		"@@ -1 +1,2 @@\n"
		" u\n"
		"+u2\n";
	struct patch_parse_opts opts = { "quoted", 1, true };
	struct buf out = BUF_INIT;
	struct err err = ERR_INIT;
	struct patch p;

	patch_init(&p);
	assert_int_equal(patch_parse(&p, text, sizeof(text) - 1, &opts, &err),
			 0);
	assert_string_equal(p.files[2].new_path, "e\033x");
	patch_diffstat(&out, &p);
	assert_string_equal(out.ptr,
			    " \"back\\\\slash\" | 1 +\n"
			    " \"a\\tb\" => c   | 0\n"
			    " \"e\\033x\"      | 1 +\n"
			    " \"q\\\"d\"        | 0\n"
			    " \"\\303\\244.c\"  | 1 +\n"
			    " 5 files changed, 3 insertions(+)\n"
			    " rename \"a\\tb\" => c (100%)\n"
			    " create mode 100644 \"e\\033x\"\n"
			    " mode change 100644 => 100755 \"q\\\"d\"\n");
	buf_release(&out);
	patch_release(&p);
	err_release(&err);
}

/* A diff of files that add and remove so many lines. */
static void counted_diff(struct buf *out, const char *path, unsigned adds,
			 unsigned dels)
{
	buf_addf(out, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n", path, path,
		 path, path);
	buf_addf(out, "@@ -1,%u +1,%u @@\n", dels, adds);
	for (unsigned i = 0; i < dels; i++)
		buf_addf(out, "-old %u\n", i);
	for (unsigned i = 0; i < adds; i++)
		buf_addf(out, "+new %u\n", i);
}

static void diffstat_graph_scales_as_git_does(void **state)
{
	struct buf text = BUF_INIT, out = BUF_INIT;
	struct patch p;
	struct err err = ERR_INIT;
	struct patch_parse_opts opts = { "stat", 1, true };

	/* the files of a real patch (btrfs, "pass an inode to
	 * btrfs_add_extent_mapping()") and git format-patch's graph */
	counted_diff(&text, "fs/btrfs/extent_map.c", 7, 7);
	counted_diff(&text, "fs/btrfs/extent_map.h", 1, 2);
	counted_diff(&text, "fs/btrfs/inode.c", 1, 1);
	counted_diff(&text, "fs/btrfs/tests/extent-map-tests.c", 86, 88);
	patch_init(&p);
	assert_int_equal(patch_parse(&p, text.ptr, text.len, &opts, &err), 0);
	patch_diffstat(&out, &p);
	assert_string_equal(out.ptr,
		" fs/btrfs/extent_map.c             |  14 +--\n"
		" fs/btrfs/extent_map.h             |   3 +-\n"
		" fs/btrfs/inode.c                  |   2 +-\n"
		" fs/btrfs/tests/extent-map-tests.c | 174 +++++++++++++++"
		"---------------\n"
		" 4 files changed, 95 insertions(+), 98 deletions(-)\n");
	patch_release(&p);
	buf_release(&text);
	buf_release(&out);
	err_release(&err);
}

static void format_then_parse_round_trips(void **state)
{
	const char *names[] = { "format-patch-trailers.patch",
				"git-binary.patch", "no-newline.patch",
				"rfc2047.patch",    "dep3.patch",
				"quilt-index.patch", "base64.patch" };

	for (size_t n = 0; n < sizeof(names) / sizeof(names[0]); n++) {
		struct patch a, b;
		struct buf out = BUF_INIT;
		struct err err = ERR_INIT;

		parse_fixture(&a, names[n], 1);
		patch_format(&out, &a, NULL);
		patch_init(&b);
		if (patch_parse(&b, out.ptr, out.len, NULL, &err) < 0)
			fail_msg("%s: %s", names[n], err.msg.ptr);
		assert_true(span_same(a.diff, b.diff));
		assert_string_equal(a.message.ptr, b.message.ptr);
		if (a.subject)
			assert_string_equal(a.subject, b.subject);
		if (a.author_name)
			assert_string_equal(a.author_name, b.author_name);
		if (a.date)
			assert_string_equal(a.date, b.date);
		assert_int_equal(a.nr_files, b.nr_files);
		assert_int_equal(a.nr_trailers, b.nr_trailers);
		patch_release(&a);
		patch_release(&b);
		buf_release(&out);
		err_release(&err);
	}
}

static void slug_follows_git(void **state)
{
	static const struct {
		const char *subject, *slug;
	} cases[] = {
		{ "btrfs: fix memory ordering", "btrfs-fix-memory-ordering" },
		{ "Btrfs: Use WQ_MEM_RECLAIM", "Btrfs-Use-WQ_MEM_RECLAIM" },
		{ "  [x] foo...bar!! ", "x-foo.bar" },
		{ "btrfs: add new.c", "btrfs-add-new.c" },
		{ "f\xc3\xbcr die Workqueue", "f-r-die-Workqueue" },
		{ "...", "" },
		{ "btrfs: Replace btrfs_workers with kernel workqueue based "
		  "btrfs_workqueue_struct",
		  "btrfs-Replace-btrfs_workers-with-kernel-workqueue-ba" },
		/* git cuts at 52 bytes and keeps a dash left at the end. */
		{ "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx yz",
		  "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx-" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = patch_slug(cases[i].subject);

		assert_string_equal(s, cases[i].slug);
		free(s);
	}
}

/* ---- against git --------------------------------------------------------- */



#define GIT "git -c user.name=T -c user.email=t@example.org " \
	    "-c init.defaultBranch=main -c core.autocrlf=false "

/* A throw-away repository: base, then commits of every kind. */
static void make_repo(const char *dir)
{
	static const char *const script =
		GIT "init -q .; mkdir -p fs/btrfs; "
		"printf 'obj-y += async-thread.o\\nobj-y += old.o\\n' "
		"> fs/btrfs/Makefile; "
		"printf 'int old(void)\\n{\\n\\treturn 0;\\n}\\n' > "
		"fs/btrfs/old.c; "
		"printf '#ifndef X\\n#define X\\nint a(void);\\nint b(void);\\n"
		"int c(void);\\nint d(void);\\n#endif\\n' > "
		"fs/btrfs/async-thread.h; "
		"printf 'static int f(void)\\n{\\n\\tint r = 0;\\n\\n"
		"\\tr = g(GFP_NOFS);\\n\\treturn r;\\n}\\n' > "
		"fs/btrfs/async-thread.c; "
		"printf '#!/bin/sh\\n' > fs/btrfs/gen.sh; "
		GIT "add .; " GIT "commit -qm base; " GIT "tag base; "
		"sed -i s/GFP_NOFS/GFP_KERNEL/ fs/btrfs/async-thread.c; "
		GIT "commit -qam 'btrfs: use GFP_KERNEL' "
		"-m 'It is fine at mount time.' "
		"-m 'Signed-off-by: T <t@example.org>'; "
		"printf 'int n(void);\\n' > fs/btrfs/new.c; "
		GIT "add fs/btrfs/new.c; "
		GIT "-c 'user.name=J\xc3\xbcrgen Gro\xc3\x9f' "
		"-c user.email=jgross@suse.com commit -qm "
		"'btrfs: add new.c f\xc3\xbcr Gr\xc3\xbc\xc3\x9f" "e' "
		"-m 'Sch\xc3\xb6n.'; "
		GIT "rm -q fs/btrfs/old.c; "
		"sed -i /old.o/d fs/btrfs/Makefile; "
		GIT "commit -qam 'btrfs: remove old.c'; "
		GIT "mv fs/btrfs/async-thread.h fs/btrfs/workqueue.h; "
		"sed -i 's/int d/long d/' fs/btrfs/workqueue.h; "
		GIT "commit -qam 'btrfs: rename async-thread.h to "
		"workqueue.h, a long subject line that git folds when it "
		"writes the mail'; "
		"printf 'tail' >> fs/btrfs/Makefile; chmod +x fs/btrfs/gen.sh; "
		GIT "commit -qam 'btrfs: no newline at end of Makefile'; "
		GIT "format-patch -q -M -o patches base";

	assert_int_equal(unit_run("set -e; cd '%s'; %s", dir, script), 0);
}

static void git_format_patch_round_trips_through_git_am(void **state)
{
	const char *tmp = getenv("TMPDIR");
	char *tmpl, *dir, *want, *got, **names = NULL;
	struct err err = ERR_INIT;
	size_t nr = 0;

	if (unit_run("git --version") != 0)
		skip();
	/* The user's git configuration must not change what git writes. */
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	tmpl = xstrfmt("%s/kcarry-test-patch-XXXXXX",
		       tmp && *tmp ? tmp : "/tmp");
	dir = mkdtemp(tmpl);
	assert_non_null(dir);
	make_repo(dir);
	assert_int_equal(unit_run("cd '%s' && mkdir formatted && "
			     "git clone -q . copy && git clone -q . copy2 && "
			     "git -C copy checkout -q base && "
			     "git -C copy2 checkout -q base",
			     dir),
			 0);
	char *pdir = xstrfmt("%s/patches", dir);
	assert_int_equal(fs_list_dir(pdir, &names, &nr, &err), 0);
	assert_int_equal(nr, 5);
	for (size_t i = 0; i < nr; i++) {
		struct buf text = BUF_INIT, out = BUF_INIT;
		struct patch a, b;
		struct patch_format_opts opts = { (unsigned)i + 1,
						   (unsigned)nr, NULL };
		char *path = fs_join(pdir, names[i]);
		char *outpath = xstrfmt("%s/formatted/%s", dir, names[i]);
		char *subject, *body, *author, *date, *slug;

		assert_int_equal(fs_read_file(&text, path, 0, &err), 0);
		patch_init(&a);
		if (patch_parse(&a, text.ptr, text.len, NULL, &err) < 0)
			fail_msg("%s", err.msg.ptr);
		/* The diff is the bytes git wrote, exactly. */
		assert_true(span_same(a.diff, diff_of(text.ptr)));

		/* Metadata is what git log says. */
		subject = unit_capture("cd '%s' && git log -1 --format=%%s %s", dir,
				  a.commit);
		body = unit_capture("cd '%s' && git log -1 --format=%%b %s", dir,
			       a.commit);
		author = unit_capture("cd '%s' && git log -1 --format='%%an <%%ae>' "
				 "%s",
				 dir, a.commit);
		date = unit_capture("cd '%s' && git log -1 --format=%%aD %s", dir,
			       a.commit);
		assert_string_equal(a.subject, subject);
		assert_true(!strncmp(a.message.ptr, body, strlen(body)));
		assert_true(!strcmp(a.message.ptr + strlen(body),
				    *body ? "\n" : ""));
		char *au = xstrfmt("%s <%s>", a.author_name, a.author_email);
		assert_string_equal(au, author);
		free(au);
		assert_string_equal(a.date, date);
		/* git format-patch names the file after the same slug. */
		slug = patch_slug(a.subject);
		char *fname = xstrfmt("%04zu-%s.patch", i + 1, slug);
		assert_string_equal(fname, names[i]);
		free(fname);

		patch_format(&out, &a, &opts);
		assert_int_equal(fs_write_atomic(outpath, out.ptr, out.len,
						 &err),
				 0);
		patch_init(&b);
		if (patch_parse(&b, out.ptr, out.len, NULL, &err) < 0)
			fail_msg("%s", err.msg.ptr);
		assert_true(span_same(a.diff, b.diff));
		assert_string_equal(a.subject, b.subject);
		assert_string_equal(a.message.ptr, b.message.ptr);
		assert_string_equal(a.author_name, b.author_name);
		assert_string_equal(a.author_email, b.author_email);
		assert_string_equal(a.date, b.date);
		assert_string_equal(a.commit, b.commit);

		free(subject);
		free(body);
		free(author);
		free(date);
		free(slug);
		free(path);
		free(outpath);
		buf_release(&text);
		buf_release(&out);
		patch_release(&a);
		patch_release(&b);
	}
	/* git am and git apply both make the same tree as the commits. */
	assert_int_equal(unit_run("cd '%s/copy' && " GIT
			     "am -q ../formatted/*.patch",
			     dir),
			 0);
	assert_int_equal(unit_run("cd '%s/copy2' && for f in ../formatted/*; do "
			     "git apply --index \"$f\" || exit 1; done",
			     dir),
			 0);
	want = unit_capture("cd '%s' && git rev-parse 'HEAD^{tree}'", dir);
	got = unit_capture("cd '%s/copy' && git rev-parse 'HEAD^{tree}'", dir);
	assert_string_equal(got, want);
	free(got);
	got = unit_capture("cd '%s/copy2' && git write-tree", dir);
	assert_string_equal(got, want);
	free(want);
	free(got);
	/* Authors, dates and messages survive git am too. */
#define LOG "git log --format='%%an%%n%%ae%%n%%aD%%n%%B' base.."
	want = unit_capture("cd '%s' && " LOG, dir);
	got = unit_capture("cd '%s/copy' && " LOG, dir);
#undef LOG
	assert_string_equal(got, want);
	free(want);
	free(got);

	fs_free_list(names, nr);
	free(pdir);
	assert_int_equal(fs_remove_tree(dir, &err), 0);
	free(tmpl);
	err_release(&err);
}

/* git's verify_path with core.protectHFS and core.protectNTFS (the
 * accepted and refused paths are git 2.39's answers to update-index
 * --cacheinfo), and the symlinks git fsck flags */
static void path_refused_as_git_verify_path_does(void **state)
{
	static const struct {
		const char *path;
		unsigned mode;
		const char *why; /* NULL: accepted */
	} cases[] = {
		{ "fs/btrfs/a.c", 0, NULL },
		{ ".gitignore", 0, NULL },
		{ "a.git/x", 0, NULL },
		{ "git~2/x", 0, NULL },
		{ ".git", 0, "is inside .git" },
		{ "x/.GiT/y", 0, "is inside .git" },
		{ ".git /x", 0, "is inside .git" },
		{ ".git. . ./x", 0, "is inside .git" },
		{ "GIT~1/x", 0, "is inside .git" },
		{ ".g\xe2\x80\x8cit/x", 0, "is inside .git" },
		{ "\xef\xbb\xbf.git", 0, "is inside .git" },
		{ ".gi\xe2\x81\xaft", 0, "is inside .git" },
		{ ".gitmodules", 0120000, "is a .gitmodules symlink" },
		/* NTFS: '\\' separates too; a stream (':') or a run of dots
		 * and spaces may follow; the short name git~1 */
		{ "a\\b", 0, NULL },
		{ "a\\b", 0120000, NULL },
		{ "a\\.gitx", 0, NULL },
		{ ".git~1", 0, NULL },
		{ "git~10", 0, NULL },
		{ "a\\.git\\x", 0, "is inside .git" },
		{ "a\\.git", 0, "is inside .git" },
		{ "x\\.GIT:", 0, "is inside .git" },
		{ ".git::$INDEX_ALLOCATION", 0, "is inside .git" },
		{ ".git:x", 0, "is inside .git" },
		{ ".git . :y", 0, "is inside .git" },
		{ "gIt~1", 0, "is inside .git" },
		{ "x\\git~1. ", 0, "is inside .git" },
		{ "x/git~1 /y", 0, "is inside .git" },
		/* symlinks: .gitmodules in every HFS and NTFS spelling, its
		 * short names, and the other files git reads from the tree */
		{ ".gitmodules", 0100644, NULL },
		{ "gitmod~1", 0100644, NULL },
		{ "x\\.gitmodules", 0100644, NULL },
		{ ".gitmodulesx", 0120000, NULL },
		{ "gitmodules", 0120000, NULL },
		{ "gitmod~5", 0120000, NULL },
		{ "gi7eba~0", 0120000, NULL },
		{ "gi7eba~12", 0120000, NULL },
		{ ".gitmodules/x", 0120000, "is a .gitmodules symlink" },
		{ "x/.GITMODULES. ", 0120000, "is a .gitmodules symlink" },
		{ ".gitmodules:$DATA", 0120000, "is a .gitmodules symlink" },
		{ ".g\xe2\x80\x8citmodules", 0120000,
		  "is a .gitmodules symlink" },
		{ "gitmod~1", 0120000, "is a .gitmodules symlink" },
		{ "GITMOD~4", 0120000, "is a .gitmodules symlink" },
		{ "gitmod~1:x", 0120000, "is a .gitmodules symlink" },
		{ "gi7eba~1", 0120000, "is a .gitmodules symlink" },
		{ "gi7eba~9", 0120000, "is a .gitmodules symlink" },
		{ "gi7e~123", 0120000, "is a .gitmodules symlink" },
		{ "x\\.gitmodules", 0120000, "is a .gitmodules symlink" },
		{ "x\\gitmod~1", 0120000, "is a .gitmodules symlink" },
		{ "x\\.gitmodules:/y", 0120000, "is a .gitmodules symlink" },
		{ ".gitattributes", 0100644, NULL },
		{ "gitatt~1", 0100644, NULL },
		{ ".gitattributes", 0120000, "is a .gitattributes symlink" },
		{ "gitatt~1", 0120000, "is a .gitattributes symlink" },
		{ "gi7d29~3", 0120000, "is a .gitattributes symlink" },
		{ ".gitignore", 0120000, "is a .gitignore symlink" },
		{ "gitign~2", 0120000, "is a .gitignore symlink" },
		{ "gi250a~1", 0120000, "is a .gitignore symlink" },
		{ ".mailmap", 0120000, "is a .mailmap symlink" },
		{ "mailma~1", 0120000, "is a .mailmap symlink" },
		{ "maba30~1", 0120000, "is a .mailmap symlink" },
		{ "a//b", 0, "has an empty component" },
		{ "a/./b", 0, "has a '.' component" },
		{ "a/../b", 0, "escapes the tree" },
		{ "dir/", 0, "ends with '/'" },
		{ "/etc/passwd", 0, "is absolute" },
		{ "", 0, "is empty" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *why = patch_path_refused(cases[i].path,
						     cases[i].mode);
		if (!cases[i].why && why)
			fail_msg("'%s' refused: %s", cases[i].path, why);
		if (cases[i].why && (!why || strcmp(why, cases[i].why)))
			fail_msg("'%s': got %s, want %s", cases[i].path,
				 why ? why : "accepted", cases[i].why);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(path_refused_as_git_verify_path_does),
		cmocka_unit_test(git_new_file_is_an_add),
		cmocka_unit_test(git_deleted_file_is_a_delete),
		cmocka_unit_test(git_mode_change_has_no_hunks),
		cmocka_unit_test(git_rename_keeps_similarity),
		cmocka_unit_test(git_copy_without_hunks),
		cmocka_unit_test(git_binary_patches_are_detected),
		cmocka_unit_test(text_patch_passes_check_text),
		cmocka_unit_test(quoted_names_are_unquoted),
		cmocka_unit_test(names_with_spaces_split_where_they_match),
		cmocka_unit_test(quilt_index_lines_and_timestamps),
		cmocka_unit_test(diff_urN_epoch_means_absent),
		cmocka_unit_test(strip_0_keeps_whole_names),
		cmocka_unit_test(strip_2_drops_two_components),
		cmocka_unit_test(strip_2_applies_to_git_renames_as_1),
		cmocka_unit_test(too_few_components_to_strip_is_an_error),
		cmocka_unit_test(no_newline_marker_marks_previous_line),
		cmocka_unit_test(section_keeps_function_context),
		cmocka_unit_test(empty_line_in_hunk_is_context),
		cmocka_unit_test(hunk_count_defaults_to_one),
		cmocka_unit_test(format_patch_trailers_and_diffstat),
		cmocka_unit_test(dep3_header_with_multiline_description),
		cmocka_unit_test(debian_mail_style_header),
		cmocka_unit_test(bare_diff_has_no_metadata),
		cmocka_unit_test(rfc2047_subject_and_author_are_decoded),
		cmocka_unit_test(inbody_from_overrides_sender),
		cmocka_unit_test(base64_body_is_decoded),
		cmocka_unit_test(crlf_lines_keep_their_cr_in_hunks),
		cmocka_unit_test(sentence_starting_with_from_is_message),
		cmocka_unit_test(add_trailer_appends_once),
		cmocka_unit_test(hunk_claiming_too_few_lines_is_an_error),
		cmocka_unit_test(hunk_claiming_too_many_lines_is_an_error),
		cmocka_unit_test(hunk_cut_by_next_hunk_is_an_error),
		cmocka_unit_test(truncated_hunk_is_an_error),
		cmocka_unit_test(malformed_hunk_header_is_an_error),
		cmocka_unit_test(hunk_over_the_line_limit_is_an_error),
		cmocka_unit_test(hunk_without_file_header_is_an_error),
		cmocka_unit_test(nul_byte_is_an_error),
		cmocka_unit_test(ten_mb_line_is_an_error),
		cmocka_unit_test(absolute_path_is_rejected),
		cmocka_unit_test(dotdot_path_is_rejected),
		cmocka_unit_test(git_apply_refusals_are_refused),
		cmocka_unit_test(odd_regular_modes_are_read_as_git_reads_them),
		cmocka_unit_test(text_without_diff_is_an_error),
		cmocka_unit_test(truncated_inputs_never_crash),
		cmocka_unit_test(format_writes_git_am_form),
		cmocka_unit_test(format_without_metadata_uses_the_name),
		cmocka_unit_test(diffstat_summarises_file_operations),
		cmocka_unit_test(diffstat_graph_scales_as_git_does),
		cmocka_unit_test(diffstat_quotes_names_as_git_does),
		cmocka_unit_test(format_then_parse_round_trips),
		cmocka_unit_test(slug_follows_git),
		cmocka_unit_test(git_format_patch_round_trips_through_git_am),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
