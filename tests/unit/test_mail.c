/*
 * test_mail: mail containers, MIME and header decoding, subjects, and the
 * series found in real linux-btrfs threads (../shared/corpus, skipped when
 * absent) and in small fixtures under tests/fixtures/mail/.
 */
#include "unit.h"

#include "mail.h"
#include "thread.h"

#include <stdio.h>
#include <unistd.h>

struct ctx {
	struct mail_list l;
	struct mail_series_list sl;
	struct err err;
	char *path;
};

static void ctx_release(struct ctx *c)
{
	mail_series_list_release(&c->sl);
	mail_list_release(&c->l);
	err_release(&c->err);
	free(c->path);
	c->path = NULL;
}

static char *fixture(const char *rel)
{
	char *dir = fs_join(unit_fixtures(), "mail");
	char *p = fs_join(dir, rel);
	free(dir);
	return p;
}

/* Path of a corpus file; skips the test when the corpus is absent. */
static char *corpus(const char *name)
{
	const char *dir = unit_corpus();
	if (!dir)
		skip();
	return fs_join(dir, name);
}

/* Read path and find its series; both must succeed. */
static void load(struct ctx *c, char *path)
{
	memset(c, 0, sizeof(*c));
	err_init(&c->err);
	c->path = path;
	if (mail_read_path(&c->l, path, &c->err) < 0)
		fail_msg("%s", c->err.msg.ptr);
	if (mail_find_series(&c->sl, &c->l, &c->err) < 0)
		fail_msg("%s", c->err.msg.ptr);
}

/* Read path expecting failure; returns the error code. */
static int load_fails(struct ctx *c, char *path)
{
	int code;

	memset(c, 0, sizeof(*c));
	err_init(&c->err);
	c->path = path;
	code = mail_read_path(&c->l, path, &c->err);
	if (code == 0)
		code = mail_find_series(&c->sl, &c->l, &c->err);
	assert_true(code < 0);
	assert_int_equal(c->err.code, code);
	return code;
}

static bool has(const struct buf *b, const char *s)
{
	return strstr(b->ptr, s) != NULL;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void assert_author(const struct mail_patch *p, const char *name,
			  const char *email)
{
	if (name)
		assert_string_equal(p->author_name, name);
	else
		assert_null(p->author_name);
	assert_string_equal(p->author_email, email);
}

static void assert_titles(const struct mail_series *s, const char *const *t,
			  size_t n)
{
	assert_int_equal(s->nr_patches, n);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(s->patches[i].subj.title, t[i]);
		assert_int_equal(s->patches[i].subj.index, i + 1);
		assert_int_equal(s->patches[i].subj.version, s->version);
	}
}

static bool has_trailer(const struct mail_patch *p, const char *t)
{
	for (size_t i = 0; i < p->nr_extra_trailers; i++)
		if (!strcmp(p->extra_trailers[i], t))
			return true;
	return false;
}

/* ---- corpus: real threads --------------------------------------------- */

static void corpus_files_hold_the_documented_message_counts(void **state)
{
	static const struct {
		const char *file;
		size_t msgs;
	} files[] = {
		{ "btrfs-workqueue-cleanups.v1.mbox", 8 },
		{ "btrfs-workqueue-cleanups.v2.mbox", 9 },
		{ "btrfs-workqueue-fixes-cleanups.v1.mbox", 14 },
		{ "btrfs-fix-memory-ordering-between-normal-and-ordered-work-"
		  "functions.v1.mbox",
		  4 },
		{ "btrfs-add-a-shrinker-for-extent-maps.v1.mbox", 17 },
		{ "btrfs-add-a-shrinker-for-extent-maps.v2.mbox", 26 },
		{ "btrfs-add-a-shrinker-for-extent-maps.v3.mbox", 21 },
	};

	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		struct ctx c;
		load(&c, corpus(files[i].file));
		assert_int_equal(c.l.nr, files[i].msgs);
		assert_int_equal(c.sl.nr, 1);
		ctx_release(&c);
	}
}

static void corpus_workqueue_cleanups_v1_has_cover_and_two_patches(void **state)
{
	static const char *const titles[] = {
		"Btrfs: get rid of unique workqueue helper functions",
		"Btrfs: get rid of pointless wtag variable in async-thread.c",
	};
	struct ctx c;
	const struct mail_series *s;

	load(&c, corpus("btrfs-workqueue-cleanups.v1.mbox"));
	s = &c.sl.items[0];
	assert_int_equal(s->version, 1);
	assert_int_equal(s->total, 2);
	assert_non_null(s->cover);
	assert_string_equal(s->cover->message_id,
			    "cover.1565680721.git.osandov@fb.com");
	assert_string_equal(s->cover_title, "Btrfs: workqueue cleanups");
	assert_null(s->base_commit);
	assert_titles(s, titles, 2);
	for (size_t i = 0; i < 2; i++)
		assert_author(&s->patches[i], "Omar Sandoval",
			      "osandov@fb.com");
	assert_int_equal(s->nr_msgids, 3);
	assert_string_equal(s->msgids[0],
			    "cover.1565680721.git.osandov@fb.com");
	ctx_release(&c);
}

static void corpus_workqueue_cleanups_v2_is_version_2(void **state)
{
	static const char *const titles[] = {
		"Btrfs: get rid of unique workqueue helper functions",
		"Btrfs: get rid of pointless wtag variable in async-thread.c",
	};
	struct ctx c;
	const struct mail_series *s;

	load(&c, corpus("btrfs-workqueue-cleanups.v2.mbox"));
	s = &c.sl.items[0];
	assert_int_equal(s->version, 2);
	assert_string_equal(s->cover->message_id,
			    "cover.1565717247.git.osandov@fb.com");
	assert_titles(s, titles, 2);
	assert_author(&s->patches[1], "Omar Sandoval", "osandov@fb.com");
	ctx_release(&c);
}

static void corpus_workqueue_fixes_cleanups_has_seven_patches(void **state)
{
	static const char *const titles[] = {
		"btrfs: get rid of unnecessary memset() of work item",
		"btrfs: don't prematurely free work in run_ordered_work()",
		"btrfs: don't prematurely free work in end_workqueue_fn()",
		"btrfs: don't prematurely free work in "
		"reada_start_machine_worker()",
		"btrfs: don't prematurely free work in "
		"scrub_missing_raid56_worker()",
		"btrfs: get rid of unique workqueue helper functions",
		"btrfs: get rid of pointless wtag variable in async-thread.c",
	};
	struct ctx c;
	const struct mail_series *s;

	load(&c, corpus("btrfs-workqueue-fixes-cleanups.v1.mbox"));
	s = &c.sl.items[0];
	assert_int_equal(s->version, 1);
	assert_int_equal(s->total, 7);
	assert_string_equal(s->cover_title, "btrfs: workqueue fixes+cleanups");
	assert_titles(s, titles, 7);
	for (size_t i = 0; i < 7; i++)
		assert_author(&s->patches[i], "Omar Sandoval",
			      "osandov@fb.com");
	ctx_release(&c);
}

static void corpus_single_patch_without_cover(void **state)
{
	struct ctx c;
	const struct mail_series *s;
	const struct mail_patch *p;

	load(&c, corpus("btrfs-fix-memory-ordering-between-normal-and-"
			"ordered-work-functions.v1.mbox"));
	s = &c.sl.items[0];
	assert_null(s->cover);
	assert_int_equal(s->nr_patches, 1);
	assert_int_equal(s->total, 1);
	p = &s->patches[0];
	assert_string_equal(p->subj.title, "btrfs: fix memory ordering between "
					   "normal and ordered work functions");
	assert_int_equal(p->subj.version, 1);
	assert_author(p, "Nikolay Borisov", "nborisov@suse.com");
	assert_string_equal(p->date, "Tue,  2 Nov 2021 14:49:16 +0200");
	assert_string_equal(p->msg->message_id,
			    "20211102124916.433836-1-nborisov@suse.com");
	assert_int_equal(p->msg->date_epoch, 1635857356);
	assert_int_equal(p->msg->date_tz, 120);
	ctx_release(&c);
}

static const char *const shrinker_v2_titles[] = {
	"btrfs: pass an inode to btrfs_add_extent_mapping()",
	"btrfs: tests: error out on unexpected extent map reference count",
	"btrfs: simplify add_extent_mapping() by removing pointless label",
	"btrfs: pass the extent map tree's inode to add_extent_mapping()",
	"btrfs: pass the extent map tree's inode to clear_em_logging()",
	"btrfs: pass the extent map tree's inode to remove_extent_mapping()",
	"btrfs: pass the extent map tree's inode to replace_extent_mapping()",
	"btrfs: pass the extent map tree's inode to setup_extent_mapping()",
	"btrfs: pass the extent map tree's inode to try_merge_map()",
	("btrfs: add a global per cpu counter to track number of used extent "
	 "maps"),
	"btrfs: export find_next_inode() as btrfs_find_first_inode()",
	"btrfs: use btrfs_find_first_inode() at btrfs_prune_dentries()",
	"btrfs: add a shrinker for extent maps",
	"btrfs: update comment for btrfs_set_inode_full_sync() about locking",
	"btrfs: add tracepoints for extent map shrinker events",
};

static void corpus_shrinker_v1_has_eleven_patches(void **state)
{
	struct ctx c;
	const struct mail_series *s;

	load(&c, corpus("btrfs-add-a-shrinker-for-extent-maps.v1.mbox"));
	s = &c.sl.items[0];
	assert_int_equal(s->version, 1);
	assert_int_equal(s->total, 11);
	assert_string_equal(s->cover->message_id,
			    "cover.1712748143.git.fdmanana@suse.com");
	assert_int_equal(s->nr_patches, 11);
	/* v1 09/11 is the shrinker that v2 splits in three */
	assert_string_equal(s->patches[8].subj.title,
			    "btrfs: add a shrinker for extent maps");
	assert_string_equal(s->patches[10].subj.title,
			    "btrfs: add tracepoints for extent map shrinker "
			    "events");
	/* the header says fdmanana@kernel.org, the in-body From: wins */
	for (size_t i = 0; i < 11; i++)
		assert_author(&s->patches[i], "Filipe Manana",
			      "fdmanana@suse.com");
	assert_null(s->patches[0].msg->from_name);
	assert_string_equal(s->patches[0].msg->from_email,
			    "fdmanana@kernel.org");
	ctx_release(&c);
}

static void corpus_shrinker_v2_has_fifteen_renumbered_patches(void **state)
{
	struct ctx c;
	const struct mail_series *s;

	load(&c, corpus("btrfs-add-a-shrinker-for-extent-maps.v2.mbox"));
	s = &c.sl.items[0];
	assert_int_equal(s->version, 2);
	assert_int_equal(s->total, 15);
	assert_string_equal(s->cover_title,
			    "btrfs: add a shrinker for extent maps");
	assert_titles(s, shrinker_v2_titles, 15);
	assert_author(&s->patches[12], "Filipe Manana", "fdmanana@suse.com");
	ctx_release(&c);
}

static void corpus_shrinker_v3_has_ten_patches(void **state)
{
	static const char *const titles[] = {
		"btrfs: pass the extent map tree's inode to "
		"add_extent_mapping()",
		"btrfs: pass the extent map tree's inode to clear_em_logging()",
		"btrfs: pass the extent map tree's inode to "
		"remove_extent_mapping()",
		"btrfs: pass the extent map tree's inode to "
		"replace_extent_mapping()",
		"btrfs: pass the extent map tree's inode to "
		"setup_extent_mapping()",
		"btrfs: pass the extent map tree's inode to try_merge_map()",
		"btrfs: add a global per cpu counter to track number of used "
		"extent maps",
		"btrfs: add a shrinker for extent maps",
		"btrfs: update comment for btrfs_set_inode_full_sync() about "
		"locking",
		"btrfs: add tracepoints for extent map shrinker events",
	};
	struct ctx c;
	const struct mail_series *s;

	load(&c, corpus("btrfs-add-a-shrinker-for-extent-maps.v3.mbox"));
	s = &c.sl.items[0];
	assert_int_equal(s->version, 3);
	assert_string_equal(s->cover->message_id,
			    "cover.1713267925.git.fdmanana@suse.com");
	assert_titles(s, titles, 10);
	ctx_release(&c);
}

static void corpus_three_versions_read_together_give_three_series(void **s)
{
	static const char *const files[] = {
		"btrfs-add-a-shrinker-for-extent-maps.v3.mbox",
		"btrfs-add-a-shrinker-for-extent-maps.v1.mbox",
		"btrfs-add-a-shrinker-for-extent-maps.v2.mbox",
	};
	static const size_t nr[] = { 11, 15, 10 };
	struct mail_list l = { 0 };
	struct mail_series_list sl = { 0 };
	struct err err = ERR_INIT;

	for (size_t i = 0; i < 3; i++) {
		char *p = corpus(files[i]);
		if (mail_read_path(&l, p, &err) < 0)
			fail_msg("%s", err.msg.ptr);
		free(p);
	}
	assert_int_equal(l.nr, 17 + 26 + 21);
	assert_int_equal(mail_find_series(&sl, &l, &err), 0);
	assert_int_equal(sl.nr, 3);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(sl.items[i].version, i + 1);
		assert_int_equal(sl.items[i].nr_patches, nr[i]);
		assert_non_null(sl.items[i].cover);
	}
	assert_titles(&sl.items[1], shrinker_v2_titles, 15);
	mail_series_list_release(&sl);
	mail_list_release(&l);
	err_release(&err);
}

static void check_failed_68(const struct ctx *c)
{
	const struct mail_series *s = &c->sl.items[0];
	const struct mail_patch *p;

	assert_int_equal(c->sl.nr, 1);
	assert_int_equal(s->nr_patches, 1);
	p = &s->patches[0];
	assert_string_equal(p->subj.title, "btrfs: do not skip re-registration "
					   "for the mounted device");
	assert_int_equal(p->subj.version, 1);
	assert_author(p, "Anand Jain", "anand.jain@oracle.com");
	assert_string_equal(p->date, "Tue, 13 Feb 2024 09:13:56 +0800");
	assert_string_equal(p->commit_id,
			    "d565fffa68560ac540bf3d62cc79719da50d5e7a");
	assert_true(starts_with(p->text.ptr,
				"From d565fffa68560ac540bf3d62cc79719da50d5e7a"
				" Mon Sep 17 00:00:00 2001\n"
				"From: Anand Jain <anand.jain@oracle.com>\n"
				"Date: Tue, 13 Feb 2024 09:13:56 +0800\n"
				"Subject: [PATCH] btrfs: do not skip "
				"re-registration for the mounted device\n"));
	/* the report's own words are not the commit's */
	assert_false(has(&p->text, "Sasha"));
	assert_false(has(&p->text, "does not apply to the 6.8-stable"));
	assert_true(has(&p->text, "\n\nThere are reports that since version"));
	assert_true(has(&p->text, "Signed-off-by: David Sterba "
				  "<dsterba@suse.com>\n---\n"
				  " fs/btrfs/volumes.c | 58 "));
	assert_true(has(&p->text, "diff --git a/fs/btrfs/volumes.c "
				  "b/fs/btrfs/volumes.c\n"));
}

static void corpus_failed_report_yields_the_upstream_commit(void **state)
{
	struct ctx c;

	load(&c, corpus("failed-6.8-stable-btrfs-do-not-skip-re-registration-"
			"for-the-mounted-device.v1.mbox"));
	check_failed_68(&c);
	ctx_release(&c);
}

static void failed_report_fixture_yields_the_upstream_commit(void **state)
{
	struct ctx c;

	load(&c, fixture("failed-report.mbox"));
	check_failed_68(&c);
	ctx_release(&c);
}

static void corpus_failed_v6_6_report_yields_the_upstream_commit(void **s)
{
	struct ctx c;
	const struct mail_patch *p;

	load(&c, corpus("failed-v6.6-stable-btrfs-fix-error-propagation-of-"
			"split-bios.v1.mbox"));
	assert_int_equal(c.sl.items[0].nr_patches, 1);
	p = &c.sl.items[0].patches[0];
	assert_string_equal(p->subj.title,
			    "btrfs: fix error propagation of split bios");
	assert_author(p, "Naohiro Aota", "naohiro.aota@wdc.com");
	assert_string_equal(p->commit_id,
			    "d48e1dea3931de64c26717adc2b89743c7ab6594");
	assert_true(has(&p->text, "diff --git a/fs/btrfs/bio.h"));
	assert_false(has(&p->text, "v6.6-stable"));
	ctx_release(&c);
}

static void corpus_base64_crlf_body_and_cjk_from(void **state)
{
	struct ctx c;
	const struct mail_patch *p;

	load(&c, corpus("odd-base64-crlf-cjk-from-btrfs-remove-redundant-"
			"code.v1.mbox"));
	p = &c.sl.items[0].patches[0];
	assert_string_equal(p->subj.title, "btrfs: remove redundant code");
	assert_string_equal(p->msg->subject, "[PATCH] btrfs: remove redundant "
					     "code");
	assert_author(p, "flyingpeng(彭浩)", "flyingpeng@tencent.com");
	assert_null(strchr(p->text.ptr, '\r'));
	assert_true(has(&p->text, "From: flyingpeng(彭浩) "
				  "<flyingpeng@tencent.com>\n"));
	assert_true(has(&p->text, "\n-fail_unlock:\n"));
	assert_true(has(&p->text, "Signed-off-by: Peng Hao "
				  "<flyingpeng@tencent.com>\n---\n"));
	ctx_release(&c);
}

static void corpus_qp_webmail_body_is_decoded(void **state)
{
	struct ctx c;
	const struct mail_patch *p;

	load(&c, corpus("odd-qp-webmail-btrfs-balance-raid1-raid10-mirror-"
			"selection.v1.mbox"));
	p = &c.sl.items[0].patches[0];
	assert_string_equal(p->subj.title,
			    "btrfs: balance RAID1/RAID10 mirror selection");
	assert_author(p, NULL, "louis@waffle.tech");
	assert_true(has(&p->text, "\n+atomic_t rr_counter = "
				  "ATOMIC_INIT(0);\n"));
	assert_true(has(&p->text, "\n-\tpreferred_mirror = first + "
				  "current->pid % num_stripes;\n"));
	assert_false(has(&p->text, "=0A"));
	ctx_release(&c);
}

static void corpus_qp_soft_breaks_inside_diff_lines_are_joined(void **s)
{
	struct ctx c;
	const struct mail_patch *p;

	load(&c, corpus("odd-qp-git-send-email-btrfs-properly-enable-async-"
			"discard-when-switching-from-ro-rw.v1.mbox"));
	p = &c.sl.items[0].patches[0];
	assert_string_equal(p->subj.title,
			    "btrfs: properly enable async discard when "
			    "switching from RO->RW");
	assert_author(p, "Chris Mason", "clm@fb.com");
	assert_true(has(&p->text, "\n@@ -1841,6 +1841,12 @@ static int "
				  "btrfs_remount(struct super_block *sb, int "
				  "*flags, char *data)\n"));
	assert_true(has(&p->text, "\t\tbtrfs_clear_sb_rdonly(sb);\n \n"));
	ctx_release(&c);
}

static void corpus_rfc2047_subject_and_in_body_from(void **state)
{
	struct ctx c;
	const struct mail_patch *p;

	load(&c, corpus("odd-rfc2047-subject-btrfs-remove-duplicate-included-"
			"header-files.v1.mbox"));
	p = &c.sl.items[0].patches[0];
	assert_string_equal(p->msg->subject, "[PATCH linux-next] btrfs: "
					     "remove duplicate included header "
					     "files");
	assert_string_equal(p->subj.title,
			    "btrfs: remove duplicate included header files");
	assert_null(p->msg->from_name);
	assert_author(p, "ye xingchen", "ye.xingchen@zte.com.cn");
	assert_int_equal(p->msg->date_tz, 480);
	/* the in-body From: line is not part of the message */
	assert_true(has(&p->text, "\n\nextent-tree.h is included more"));
	assert_int_equal(count(p->text.ptr, "From: "), 1);
	ctx_release(&c);
}

static void corpus_rfc2047_from_and_in_body_from_differ(void **state)
{
	struct ctx c;
	const struct mail_patch *p;

	load(&c, corpus("odd-rfc2047-from-btrfs-tree-checker-fix-error-format-"
			"string.v1.mbox"));
	assert_int_equal(c.sl.items[0].total, 2);
	assert_null(c.sl.items[0].cover);
	p = &c.sl.items[0].patches[0];
	assert_string_equal(p->msg->from_name, "Andreas Färber");
	assert_string_equal(p->msg->from_email, "afaerber@suse.de");
	assert_author(p, "Andreas Färber", "afaerber@suse.com");
	assert_string_equal(p->subj.title,
			    "btrfs: tree-checker: Fix error format string");
	assert_int_equal(p->subj.index, 1);
	assert_int_equal(p->subj.total, 2);
	ctx_release(&c);
}

static void corpus_gmail_attachment_is_the_diff(void **state)
{
	struct ctx c;
	const struct mail_patch *p;

	load(&c, corpus("odd-attachment-gmail-btrfs-allow-setting-per-extent-"
			"compression.v1.mbox"));
	p = &c.sl.items[0].patches[0];
	assert_int_equal(p->msg->nr_attachments, 1);
	assert_string_equal(p->msg->attachment_names[0],
			    "allow-per-extent-compression.patch");
	assert_string_equal(p->subj.title,
			    "btrfs: allow setting per extent compression");
	assert_author(p, "stijn rutjens", "rutjensstijn@gmail.com");
	assert_true(has(&p->text, "Stijn Rutjens\n---\ndiff --git "
				  "a/fs/btrfs/file-item.c"));
	assert_true(has(&p->text, "diff --git a/fs/btrfs/ioctl.c"));
	ctx_release(&c);
}

static void corpus_thunderbird_flowed_text_and_attachment(void **state)
{
	struct ctx c;
	const struct mail_patch *p;

	load(&c, corpus("odd-attachment-thunderbird-btrfs-avoid-potential-"
			"out-of-bounds-in-btrfs-encode-fh.v1.mbox"));
	p = &c.sl.items[0].patches[0];
	assert_string_equal(p->subj.title,
			    "btrfs: Avoid potential out-of-bounds in "
			    "btrfs_encode_fh()");
	assert_author(p, "Anderson Nascimento", "anderson@allelesecurity.com");
	/* format=flowed soft breaks are joined in the text part */
	assert_true(has(&p->text, "account for the three cases"));
	assert_true(has(&p->text, "\n---\n"));
	assert_true(has(&p->text, "\n+\t\tif(btrfs_root_id(BTRFS_I(inode)->"
				  "root) != btrfs_root_id(BTRFS_I(parent)->"
				  "root))\n"));
	assert_int_equal(count(p->text.ptr, "\n---\n"), 1);
	ctx_release(&c);
}

static void corpus_quoted_reply_is_no_patch(void **state)
{
	struct ctx c;

	assert_int_equal(load_fails(&c, corpus("odd-quoted-reply-btrfs-stripe-"
					       "tree-correctly-truncate-stripe-"
					       "extents-on-delete.v1.mbox")),
			 ERR_NOTFOUND);
	assert_int_equal(c.l.nr, 1);
	assert_int_equal(c.sl.nr, 0);
	ctx_release(&c);
}

static void quoted_reply_fixture_is_no_patch(void **state)
{
	struct ctx c;

	assert_int_equal(load_fails(&c, fixture("quoted-reply.mbox")),
			 ERR_NOTFOUND);
	assert_true(strstr(c.err.msg.ptr, "no patch found in 1 message") !=
		    NULL);
	ctx_release(&c);
}

static void corpus_localized_reply_prefix_is_no_patch(void **state)
{
	struct ctx c;
	struct subject_info si;

	assert_int_equal(load_fails(&c, corpus("odd-localized-reply-prefix-"
					       "inline-diff-btrfs-use-btrfs-"
					       "path-auto-free.v1.mbox")),
			 ERR_NOTFOUND);
	assert_true(starts_with(c.l.items[0].subject,
				"回复: [PATCH] btrfs: use "
				"BTRFS_PATH_AUTO_FREE"));
	/* the gb2312 base64 body holds an unquoted diff: still a reply */
	assert_true(strstr(c.l.items[0].body.ptr, "\ndiff --git ") ||
		    strstr(c.l.items[0].body.ptr, "\n--- a/"));
	assert_null(strchr(c.l.items[0].body.ptr, '\r'));
	subject_parse(&si, c.l.items[0].subject);
	assert_true(si.is_reply);
	subject_info_release(&si);
	ctx_release(&c);
}

static void corpus_reply_trailers_land_on_the_patch_they_answer(void **st)
{
	struct ctx c;
	const struct mail_series *s;

	load(&c, corpus("btrfs-workqueue-cleanups.v1.mbox"));
	s = &c.sl.items[0];
	assert_int_equal(s->patches[0].nr_extra_trailers, 2);
	assert_true(has(&s->patches[0].text, "Signed-off-by: Omar Sandoval "
					     "<osandov@fb.com>\n"
					     "Reviewed-by: Nikolay Borisov "
					     "<nborisov@suse.com>\n"
					     "Reviewed-by: Filipe Manana "
					     "<fdmanana@suse.com>\n---\n"));
	/* "... <nborisov@suse.com> albeit one small nit" is left out, as
	 * b4 leaves it out, and said so */
	assert_int_equal(s->patches[1].nr_extra_trailers, 1);
	assert_true(has(&s->patches[1].text, "Signed-off-by: Omar Sandoval "
					     "<osandov@fb.com>\n"
					     "Reviewed-by: Filipe Manana "
					     "<fdmanana@suse.com>\n---\n"));
	assert_int_equal(s->nr_skipped_trailers, 1);
	assert_string_equal(s->skipped_trailers[0],
			    "Reviewed-by: Nikolay Borisov <nborisov@suse.com> "
			    "albeit one small nit (reply from "
			    "nborisov@suse.com)");
	ctx_release(&c);

	load(&c, corpus("btrfs-fix-memory-ordering-between-normal-and-ordered-"
			"work-functions.v1.mbox"));
	s = &c.sl.items[0];
	assert_int_equal(s->patches[0].nr_extra_trailers, 2);
	assert_true(has_trailer(&s->patches[0], "Reviewed-by: Josef Bacik "
						"<josef@toxicpanda.com>"));
	assert_true(has_trailer(&s->patches[0], "Tested-by: Chris Murphy "
						"<chris@colorremedies.com>"));
	ctx_release(&c);

	/* v3: Josef's and Johannes' replies to 10/10, Josef's to 08/10 */
	load(&c, corpus("btrfs-add-a-shrinker-for-extent-maps.v3.mbox"));
	s = &c.sl.items[0];
	assert_int_equal(s->patches[8].nr_extra_trailers, 0);
	assert_int_equal(s->patches[7].nr_extra_trailers, 1);
	assert_true(has_trailer(&s->patches[7], "Reviewed-by: Josef Bacik "
						"<josef@toxicpanda.com>"));
	assert_int_equal(s->patches[9].nr_extra_trailers, 2);
	assert_true(has_trailer(&s->patches[9],
				"Reviewed-by: Johannes Thumshirn "
				"<johannes.thumshirn@wdc.com>"));
	ctx_release(&c);
}

static void corpus_cover_reply_trailers_go_to_every_patch(void **state)
{
	struct ctx c;
	const struct mail_series *s;

	load(&c, corpus("btrfs-add-a-shrinker-for-extent-maps.v1.mbox"));
	s = &c.sl.items[0];
	for (size_t i = 0; i < s->nr_patches; i++) {
		assert_int_equal(s->patches[i].nr_extra_trailers, 1);
		assert_true(has_trailer(&s->patches[i],
					"Reviewed-by: Qu Wenruo "
					"<wqu@suse.com>"));
	}
	ctx_release(&c);
}

static void corpus_trailers_already_in_the_patch_are_not_repeated(void **s)
{
	struct ctx c;
	const struct mail_series *se;

	/* v2 01-07 carry Qu's Reviewed-by from v1 already */
	load(&c, corpus("btrfs-add-a-shrinker-for-extent-maps.v2.mbox"));
	se = &c.sl.items[0];
	for (size_t i = 0; i < 7; i++) {
		assert_int_equal(se->patches[i].nr_extra_trailers, 0);
		assert_int_equal(count(se->patches[i].text.ptr,
				       "Reviewed-by: Qu Wenruo <wqu@suse.com>"),
				 1);
	}
	assert_true(has_trailer(&se->patches[7], "Reviewed-by: Qu Wenruo "
						 "<wqu@suse.com>"));
	/* a robot's "Reported-by" for a separate fix is quoted with "| " */
	assert_int_equal(se->patches[9].nr_extra_trailers, 0);
	ctx_release(&c);
}

/* ---- containers ---------------------------------------------------------- */

static void mboxrd_and_mboxo_from_quoting_is_undone(void **state)
{
	struct mail_list l = { 0 };
	struct err err = ERR_INIT;
	char *path = fixture("quoting.mbox");

	assert_int_equal(mail_read_path(&l, path, &err), 0);
	assert_int_equal(l.nr, 2);
	assert_string_equal(l.items[0].body.ptr,
			    "From the mboxo days, one '>' was added.\n"
			    ">From mboxrd, two were.\n"
			    "From here on nothing was quoted (no date in this "
			    "line).\n"
			    "> From this is a plain quote.\n");
	assert_string_equal(l.items[1].body.ptr, "body\n");
	assert_int_equal(l.items[1].lineno, 13);
	assert_true(ends_with(l.items[1].source, "quoting.mbox:13"));
	mail_list_release(&l);
	err_release(&err);
	free(path);
}

static void crlf_mbox_gives_lf_text(void **state)
{
	struct ctx c;
	const struct mail_patch *p;

	load(&c, fixture("crlf.mbox"));
	assert_int_equal(c.l.nr, 1);
	assert_string_equal(c.l.items[0].subject,
			    "[PATCH] foo: crlf transport");
	assert_string_equal(c.l.items[0].from_email, "jane@example.org");
	p = &c.sl.items[0].patches[0];
	assert_null(strchr(p->text.ptr, '\r'));
	assert_true(has(&p->text, "\n@@ -1,3 +1,3 @@\n int a;\n-int b;\n"
				  "+int b2;\n int c;\n"));
	ctx_release(&c);
}

static void maildir_is_read_in_delivery_order(void **state)
{
	struct ctx c;
	const struct mail_series *s;

	load(&c, fixture("maildir"));
	assert_int_equal(c.l.nr, 3);
	assert_string_equal(c.l.items[0].message_id, "mdr@example.org");
	assert_string_equal(c.l.items[2].message_id, "md2@example.org");
	assert_int_equal(c.sl.nr, 1);
	s = &c.sl.items[0];
	assert_int_equal(s->nr_patches, 2);
	assert_string_equal(s->patches[0].subj.title, "foo: add helper");
	assert_true(has_trailer(&s->patches[0], "Reviewed-by: Rev One "
						"<rev1@example.org>"));
	assert_int_equal(s->patches[1].nr_extra_trailers, 0);
	ctx_release(&c);
}

static void format_patch_directory_is_one_series_with_its_cover(void **st)
{
	struct ctx c;
	const struct mail_series *s;

	/* unthreaded format-patch output, plus a quilt "series" file */
	load(&c, fixture("fp-dir"));
	assert_int_equal(c.l.nr, 3);
	assert_int_equal(c.sl.nr, 1);
	s = &c.sl.items[0];
	assert_non_null(s->cover);
	assert_string_equal(s->cover_title, "foo: make bar faster");
	assert_string_equal(s->base_commit,
			    "abcdef0123456789abcdef0123456789abcdef01");
	assert_int_equal(s->nr_patches, 2);
	assert_string_equal(s->patches[0].commit_id,
			    "1234567890abcdef1234567890abcdef12345678");
	assert_true(starts_with(s->patches[1].text.ptr,
				"From fedcba0987654321fedcba0987654321fedcba09 "
				"Mon Sep 17 00:00:00 2001\nFrom: Jane Dev "
				"<jane@example.org>\n"));
	ctx_release(&c);
}

static void format_patch_file_is_a_one_message_mbox(void **state)
{
	struct ctx c;

	load(&c, fixture("fp-dir/0001-foo-add-helper.patch"));
	assert_int_equal(c.l.nr, 1);
	assert_string_equal(c.l.items[0].commit_id,
			    "1234567890abcdef1234567890abcdef12345678");
	assert_int_equal(c.l.items[0].lineno, 2);
	assert_int_equal(c.sl.items[0].nr_patches, 1);
	assert_int_equal(c.sl.items[0].total, 2);
	ctx_release(&c);
}

static void mail_parse_reads_format_patch_text(void **state)
{
	static const char text[] =
		"From 1234567890abcdef1234567890abcdef12345678 Mon Sep 17 "
		"00:00:00 2001\n"
		"From: =?UTF-8?q?Andreas=20F=C3=A4rber?= <afaerber@suse.de>\n"
		"Date: Fri,  8 Nov 2019 22:38:52 +0100\n"
		"Subject: [PATCH] x\n\nbody\n";
	struct mail m;
	struct err err = ERR_INIT;

	mail_init(&m);
	assert_int_equal(mail_parse(&m, text, strlen(text), "x.patch", &err),
			 0);
	assert_string_equal(m.commit_id,
			    "1234567890abcdef1234567890abcdef12345678");
	assert_string_equal(m.from_name, "Andreas Färber");
	assert_string_equal(mail_header(&m, "from"),
			    "Andreas Färber <afaerber@suse.de>");
	assert_string_equal(m.body.ptr, "body\n");
	assert_string_equal(m.source, "x.patch");
	assert_int_equal(m.date_epoch, 1573249132);
	assert_int_equal(m.date_tz, 60);
	mail_release(&m);
	err_release(&err);
}

/* ---- malformed input ------------------------------------------------- */

static void expect_error(const char *rel, const char *what)
{
	struct ctx c;
	char *want;

	load_fails(&c, fixture(rel));
	assert_int_equal(c.err.code, ERR_PARSE);
	want = xstrfmt("%s%s", c.path, what);
	assert_string_equal(c.err.msg.ptr, want);
	free(want);
	ctx_release(&c);
}

static void nul_byte_names_file_and_line(void **state)
{
	static const char data[] = "From x@y Mon Jan  6 10:00:00 2025\n"
				   "Subject: a\n\nok\nbad\0byte\n";
	struct mail_list l = { 0 };
	struct err err = ERR_INIT;

	expect_error("nul-byte.mbox", ":8: NUL byte in message");
	assert_int_equal(mail_read_mbox(&l, data, sizeof(data) - 1, "mem",
					&err),
			 ERR_PARSE);
	assert_string_equal(err.msg.ptr, "mem:5: NUL byte in message");
	assert_int_equal(l.nr, 0);
	mail_list_release(&l);
	err_release(&err);
}

static void ten_megabyte_line_names_file_and_line(void **state)
{
	char path[] = "/tmp/kcarry-test-mail-XXXXXX";
	size_t big = 10 * 1024 * 1024;
	struct buf data = BUF_INIT;
	struct mail_list l = { 0 };
	struct err err = ERR_INIT;
	char *want;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	buf_adds(&data, "From x@y Mon Jan  6 10:00:00 2025\n"
			"Subject: [PATCH] big\n\n+");
	buf_grow(&data, big + 1);
	memset(data.ptr + data.len, 'x', big);
	data.len += big;
	buf_adds(&data, "\n");
	assert_int_equal(write(fd, data.ptr, data.len), (ssize_t)data.len);
	close(fd);

	assert_int_equal(mail_read_path(&l, path, &err), ERR_PARSE);
	want = xstrfmt("%s:4: line is longer than %d bytes", path,
		       MAIL_MAX_LINE);
	assert_string_equal(err.msg.ptr, want);
	assert_int_equal(l.nr, 0);
	free(want);

	/* the same bytes handed over in memory, without the From line */
	{
		struct mail m;
		const char *msg = strchr(data.ptr, '\n') + 1;

		mail_init(&m);
		assert_int_equal(mail_parse(&m, msg,
					    data.len - (size_t)(msg - data.ptr),
					    "mem", &err),
				 ERR_PARSE);
		assert_string_equal(err.msg.ptr, "mem:3: line is longer than "
						 "1048576 bytes");
		mail_release(&m);
	}
	unlink(path);
	buf_release(&data);
	mail_list_release(&l);
	err_release(&err);
}

static void garbage_header_names_file_and_line(void **state)
{
	expect_error("garbage-header.mbox",
		     ":4: malformed header line 'this line is no header'");
}

static void truncated_header_names_file_and_line(void **state)
{
	expect_error("truncated-header.mbox",
		     ":29: message ends inside its header (truncated?)");
}

static void truncated_multipart_names_file_and_line(void **state)
{
	expect_error("truncated-multipart.mbox",
		     ":19: multipart message ends before its closing boundary "
		     "(truncated?)");
}

static void empty_file_is_an_error(void **state)
{
	struct ctx c;

	load_fails(&c, fixture("empty.mbox"));
	assert_int_equal(c.err.code, ERR_PARSE);
	assert_true(strstr(c.err.msg.ptr, "empty.mbox' is empty: no message") !=
		    NULL);
	ctx_release(&c);
}

static void mbox_without_messages_is_an_error(void **state)
{
	static const char sep_only[] = "From x@y Mon Jan  6 10:00:00 2025\n\n";
	static const char not_mbox[] = "hello\n";
	struct mail_list l = { 0 };
	struct err err = ERR_INIT;

	assert_int_equal(mail_read_mbox(&l, "", 0, "m", &err), ERR_PARSE);
	assert_string_equal(err.msg.ptr, "'m' holds no message");
	assert_int_equal(mail_read_mbox(&l, sep_only, strlen(sep_only), "m",
					&err),
			 ERR_PARSE);
	assert_string_equal(err.msg.ptr, "m:1: empty message after the 'From ' "
					 "line (truncated?)");
	assert_int_equal(mail_read_mbox(&l, not_mbox, strlen(not_mbox), "m",
					&err),
			 ERR_PARSE);
	assert_string_equal(err.msg.ptr, "m:1: not an mbox: no 'From ' line");
	assert_int_equal(l.nr, 0);
	mail_list_release(&l);
	err_release(&err);
}

static void no_message_at_all_finds_no_series(void **state)
{
	struct mail_list l = { 0 };
	struct mail_series_list sl = { 0 };
	struct err err = ERR_INIT;

	assert_int_equal(mail_find_series(&sl, &l, &err), ERR_NOTFOUND);
	assert_int_equal(sl.nr, 0);
	err_release(&err);
}

/* ---- headers and encodings ------------------------------------------- */

static void decode(const char *in, const char *want)
{
	struct buf b = BUF_INIT;

	mail_decode_header(&b, in, strlen(in));
	assert_string_equal(b.ptr, want);
	buf_release(&b);
}

static void rfc2047_q_and_b_words_decode(void **state)
{
	decode("=?UTF-8?q?Andreas=20F=C3=A4rber?= <a@b>",
	       "Andreas Färber <a@b>");
	decode("=?utf-8?B?Zmx5aW5ncGVuZyjlva3mtakp?=", "flyingpeng(彭浩)");
	/* blanks between adjacent encoded words vanish, others stay */
	decode("=?UTF-8?Q?a?= =?UTF-8?Q?b?=", "ab");
	decode("=?UTF-8?Q?a?=\t =?UTF-8?Q?b?= c =?UTF-8?Q?d?=", "ab c d");
	/* one character split over two B words */
	decode("=?UTF-8?B?5b2t5g==?= =?UTF-8?B?tak=?=", "彭浩");
	decode("=?ISO-8859-1?Q?caf=E9?=", "café");
	decode("=?gb2312?B?u9i4tDo=?= x", "回复: x");
	decode("=?utf-8*en?Q?hi_there?=", "hi there");
	/* not encoded words: left as they are */
	decode("a =? b ?= c", "a =? b ?= c");
	decode("=?UTF-8?X?abc?=", "=?UTF-8?X?abc?=");
	/* raw 8-bit: UTF-8 as is, else Windows-1252 */
	decode("F\xc3\xa4rber", "Färber");
	decode("F\xe4rber", "Färber");
}

static void rfc2047_message_headers_decode(void **state)
{
	struct ctx c;
	const struct mail *m;
	const struct mail_patch *p;

	load(&c, fixture("rfc2047.eml"));
	m = &c.l.items[0];
	assert_string_equal(m->from_name, "彭浩");
	assert_string_equal(m->from_email, "peng@example.org");
	assert_string_equal(m->subject, "[PATCH] café: naïve fix");
	assert_string_equal(m->date, "Mon, 16 Jan 2023 15:58:44 +0800 (CST)");
	assert_int_equal(m->date_epoch, 1673855924);
	assert_int_equal(m->date_tz, 480);
	/* latin-1 quoted-printable body with a soft line break */
	assert_true(starts_with(m->body.ptr,
				"Café fix, with a soft break.\n"));
	p = &c.sl.items[0].patches[0];
	assert_string_equal(p->subj.title, "café: naïve fix");
	assert_true(starts_with(p->text.ptr,
				"From: 彭浩 <peng@example.org>\n"));
	ctx_release(&c);
}

static void encode(const char *in, const char *want)
{
	struct buf b = BUF_INIT, back = BUF_INIT;

	mail_encode_header(&b, in);
	assert_string_equal(b.ptr, want);
	mail_decode_header(&back, b.ptr, b.len);
	assert_string_equal(back.ptr, in);
	buf_release(&b);
	buf_release(&back);
}

static void encode_header_uses_q_words_and_round_trips(void **state)
{
	struct buf b = BUF_INIT, back = BUF_INIT;
	const char *long_name = "Ünïcödé Ünïcödé Ünïcödé "
				"Ünïcödé Ünïcödé Ünïcödé";

	encode("plain ascii", "plain ascii");
	encode("Andreas Färber <afaerber@suse.de>",
	       "=?UTF-8?q?Andreas_F=C3=A4rber?= <afaerber@suse.de>");
	encode("[PATCH] café", "=?UTF-8?q?=5BPATCH=5D_caf=C3=A9?=");
	/* long values become several words, no character split */
	mail_encode_header(&b, long_name);
	assert_true(strstr(b.ptr, "?=\n =?UTF-8?q?") != NULL);
	for (const char *p = b.ptr; (p = strstr(p, "=?UTF-8?q?")); p++) {
		const char *e = strstr(p, "?=");
		assert_true(e - p + 2 <= 75);
	}
	mail_decode_header(&back, b.ptr, b.len);
	assert_string_equal(back.ptr, long_name);
	buf_release(&b);
	buf_release(&back);
}

static void charsets_convert_to_utf8(void **state)
{
	struct buf b = BUF_INIT;

	mail_to_utf8(&b, "caf\xe9", 4, "iso-8859-1");
	assert_string_equal(b.ptr, "café");
	buf_reset(&b);
	mail_to_utf8(&b, "\xbb\xd8\xb8\xb4", 4, "gb2312");
	assert_string_equal(b.ptr, "回复");
	buf_reset(&b);
	mail_to_utf8(&b, "ok\xff!", 4, "utf-8");
	assert_string_equal(b.ptr, "ok\xEF\xBF\xBD!");
	buf_reset(&b);
	mail_to_utf8(&b, "x\xff", 2, "no-such-charset");
	assert_string_equal(b.ptr, "x\xEF\xBF\xBD");
	buf_reset(&b);
	mail_to_utf8(&b, "a\0b", 3, NULL);
	assert_string_equal(b.ptr, "a\xEF\xBF\xBD" "b");
	buf_release(&b);
}

static void addresses_parse(void **state)
{
	static const struct {
		const char *in, *name, *email;
	} cases[] = {
		{ "Jane Dev <jane@example.org>", "Jane Dev",
		  "jane@example.org" },
		{ "\"Dev, Jane\" <jane@example.org>", "Dev, Jane",
		  "jane@example.org" },
		{ "<ye.xingchen@zte.com.cn>", NULL, "ye.xingchen@zte.com.cn" },
		{ "louis@waffle.tech", NULL, "louis@waffle.tech" },
		{ "jane@example.org (Jane Dev)", "Jane Dev",
		  "jane@example.org" },
		{ "=?gb2312?B?wO7R7+i6?= <frank.li@vivo.com>", "李扬韬",
		  "frank.li@vivo.com" },
		{ "A <a@x>, B <b@x>", "A", "a@x" },
		{ "", NULL, NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *name, *email;

		mail_parse_address(cases[i].in, &name, &email);
		if (cases[i].name)
			assert_string_equal(name, cases[i].name);
		else
			assert_null(name);
		if (cases[i].email)
			assert_string_equal(email, cases[i].email);
		else
			assert_null(email);
		free(name);
		free(email);
	}
}

static void dates_parse_to_epoch_and_zone(void **state)
{
	static const struct {
		const char *in;
		long long epoch;
		int tz;
	} cases[] = {
		{ "Tue,  2 Nov 2021 14:49:16 +0200", 1635857356, 120 },
		{ "Mon, 16 Jan 2023 15:58:44 +0800 (CST)", 1673855924, 480 },
		{ "Tue,  5 Nov 2024 21:08:56 -0500", 1730858936, -300 },
		{ "Sun, 18 Sep 2022 07:26:07 +0000", 1663485967, 0 },
		{ "5 Jun 2023 12:03 -0700", 1685991780, -420 },
		{ "Mon Sep 17 00:00:00 2001", 1000684800, 0 },
		{ "Thu, 1 Jan 70 00:00:00 GMT", 0, 0 },
		{ "Fri, 16 Oct 2020 05:59:19 EDT", 1602842359, -240 },
	};
	long long epoch = 42;
	int tz = 7;

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		assert_true(mail_parse_date(cases[i].in, &epoch, &tz));
		assert_int_equal(epoch, cases[i].epoch);
		assert_int_equal(tz, cases[i].tz);
	}
	epoch = 42;
	assert_false(mail_parse_date("yesterday", &epoch, &tz));
	assert_false(mail_parse_date("", &epoch, &tz));
	assert_false(mail_parse_date("32 Jan 2020 10:00:00", &epoch, &tz));
	assert_int_equal(epoch, 42);
}

/* ---- subjects ------------------------------------------------------------ */

static void subject_tags_parse(void **state)
{
	/* flags: P [PATCH] tag, R rfc, S resend, Y reply */
	static const struct {
		const char *in, *title;
		unsigned version, index, total;
		const char *flags;
	} cases[] = {
		{ "[PATCH v3 07/17] btrfs: foo", "btrfs: foo", 3, 7, 17, "P" },
		{ "[RFC PATCH v2 3/5] x: y", "x: y", 2, 3, 5, "PR" },
		{ "[PATCH RESEND] a", "a", 1, 0, 0, "PS" },
		{ "[PATCH linux-next] btrfs: remove", "btrfs: remove", 1, 0, 0,
		  "P" },
		{ "[PATCH next 1/2] btrfs: fix", "btrfs: fix", 1, 1, 2, "P" },
		{ "[PATCH 0/2] Btrfs: workqueue cleanups",
		  "Btrfs: workqueue cleanups", 1, 0, 2, "P" },
		{ "[PATCH v2 00/15] btrfs: add", "btrfs: add", 2, 0, 15, "P" },
		{ "[RFC][PATCH] a", "a", 1, 0, 0, "PR" },
		{ "[RFC] a", "a", 1, 0, 0, "R" },
		{ "[PATCHv4 2/3] a", "a", 4, 2, 3, "P" },
		{ "[PATCH 1/3 V2] a", "a", 2, 1, 3, "P" },
		{ "[PATCH]  btrfs: remove redundant code",
		  "btrfs: remove redundant code", 1, 0, 0, "P" },
		{ "Re: [PATCH] a", "a", 1, 0, 0, "PY" },
		{ "RE: Re: [PATCH 2/2] a", "a", 1, 2, 2, "PY" },
		{ "AW: [PATCH v2] a", "a", 2, 0, 0, "PY" },
		{ "Re[2]: [PATCH] a", "a", 1, 0, 0, "PY" },
		{ "回复: [PATCH] btrfs: use x", "btrfs: use x", 1, 0, 0,
		  "PY" },
		{ "答复：[PATCH] a", "a", 1, 0, 0, "PY" },
		{ "Antw: [PATCH] a", "a", 1, 0, 0, "PY" },
		{ "Fwd: a", "a", 1, 0, 0, "Y" },
		{ "[PATCH] Re: a title", "Re: a title", 1, 0, 0, "P" },
		{ "Reviewed: not a reply", "Reviewed: not a reply", 1, 0, 0,
		  "" },
		{ "FAILED: Patch \"x\" failed to apply",
		  "FAILED: Patch \"x\" failed to apply", 1, 0, 0, "" },
		{ "", "", 1, 0, 0, "" },
	};
	struct subject_info si;

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		const char *f = cases[i].flags;

		subject_parse(&si, cases[i].in);
		assert_string_equal(si.title, cases[i].title);
		assert_int_equal(si.version, cases[i].version);
		assert_int_equal(si.index, cases[i].index);
		assert_int_equal(si.total, cases[i].total);
		assert_int_equal(si.has_patch_tag, strchr(f, 'P') != NULL);
		assert_int_equal(si.rfc, strchr(f, 'R') != NULL);
		assert_int_equal(si.resend, strchr(f, 'S') != NULL);
		assert_int_equal(si.is_reply, strchr(f, 'Y') != NULL);
		subject_info_release(&si);
	}
	subject_parse(&si, NULL);
	assert_string_equal(si.title, "");
	subject_info_release(&si);
}

/* ---- series ---------------------------------------------------------- */

static void versions_in_one_mbox_give_one_series_each(void **state)
{
	struct ctx c;
	const struct mail_series *v1, *v2;

	load(&c, fixture("versions.mbox"));
	assert_int_equal(c.sl.nr, 2);
	v1 = &c.sl.items[0];
	v2 = &c.sl.items[1];
	assert_int_equal(v1->version, 1);
	assert_int_equal(v2->version, 2);
	assert_string_equal(v1->cover->message_id, "cover.v1@example.org");
	assert_string_equal(v2->cover->message_id, "cover.v2@example.org");
	assert_int_equal(v1->nr_patches, 2);
	assert_int_equal(v2->nr_patches, 2);
	assert_true(has(&v1->patches[0].text, "+int b, helper;\n"));
	assert_true(has(&v2->patches[0].text, "+int b, bar_helper;\n"));
	assert_string_equal(v2->patches[1].msg->message_id,
			    "p2.v2@example.org");
	assert_int_equal(v2->nr_msgids, 3);
	ctx_release(&c);
}

static void reply_trailers_are_collected_as_b4_does(void **state)
{
	struct ctx c;
	const struct mail_series *v1, *v2;
	const struct mail_patch *p;

	load(&c, fixture("versions.mbox"));
	v1 = &c.sl.items[0];
	v2 = &c.sl.items[1];
	/* v1: a review of 1/2, an ack of the cover for both */
	assert_int_equal(v1->patches[0].nr_extra_trailers, 2);
	assert_string_equal(v1->patches[0].extra_trailers[0],
			    "Reviewed-by: Rev One <rev1@example.org>");
	assert_string_equal(v1->patches[0].extra_trailers[1],
			    "Acked-by: Old Ack <old@example.org>");
	assert_int_equal(v1->patches[1].nr_extra_trailers, 1);
	/* v2 is threaded under the v1 cover: v1's replies stay in v1 */
	p = &v2->patches[0];
	assert_int_equal(p->nr_extra_trailers, 2);
	assert_string_equal(p->extra_trailers[0],
			    "Reviewed-by: Rev One <rev1@example.org>");
	assert_string_equal(p->extra_trailers[1],
			    "Acked-by: Maint Ainer <maint@example.org>");
	/* quoted trailers, Signed-off-by and Cc from replies never count */
	assert_false(has(&p->text, "Quoted Person"));
	assert_false(has(&p->text, "Not Collected"));
	assert_false(has(&p->text, "Not Either"));
	assert_false(has(&p->text, "Signature Line"));
	assert_true(has(&p->text, "Signed-off-by: Jane Dev <jane@example.org>\n"
				  "Reviewed-by: Rev One <rev1@example.org>\n"
				  "Acked-by: Maint Ainer <maint@example.org>\n"
				  "---\n"));
	/* 2/2 had Rev One's review already; a deeper reply gives a test */
	p = &v2->patches[1];
	assert_int_equal(p->nr_extra_trailers, 2);
	assert_string_equal(p->extra_trailers[0],
			    "Tested-by: Tess Ter <tess@example.org>");
	assert_string_equal(p->extra_trailers[1],
			    "Acked-by: Maint Ainer <maint@example.org>");
	assert_int_equal(count(p->text.ptr, "Rev One"), 1);
	ctx_release(&c);
}

static void base_commit_comes_from_the_cover(void **state)
{
	struct ctx c;

	load(&c, fixture("versions.mbox"));
	assert_null(c.sl.items[0].base_commit);
	assert_string_equal(c.sl.items[1].base_commit,
			    "0123456789abcdef0123456789abcdef01234567");
	ctx_release(&c);
}

static void root_without_tags_is_the_cover(void **state)
{
	struct ctx c;
	const struct mail_series *s;

	/* 2/2 replies to 1/2 (--chain-reply-to), 1/2 to the root */
	load(&c, fixture("root-cover.mbox"));
	assert_int_equal(c.sl.nr, 1);
	s = &c.sl.items[0];
	assert_non_null(s->cover);
	assert_string_equal(s->cover_title, "foo: a series without a 0/N tag");
	assert_int_equal(s->nr_patches, 2);
	assert_int_equal(s->total, 2);
	ctx_release(&c);
}

static void parse_one(struct mail *m, const char *text)
{
	struct err err = ERR_INIT;

	mail_init(m);
	if (mail_parse(m, text, strlen(text), "mem", &err) < 0)
		fail_msg("%s", err.msg.ptr);
	err_release(&err);
}

static void find_in(struct mail_list *l, struct mail_series_list *sl,
		    const char *const *texts, size_t n, int want)
{
	struct err err = ERR_INIT;

	memset(l, 0, sizeof(*l));
	memset(sl, 0, sizeof(*sl));
	for (size_t i = 0; i < n; i++) {
		ALLOC_GROW(l->items, l->nr + 1, l->alloc);
		parse_one(&l->items[l->nr++], texts[i]);
	}
	assert_int_equal(mail_find_series(sl, l, &err), want);
	err_release(&err);
}

static void reply_with_an_unquoted_diff_is_no_patch(void **state)
{
	static const char *const texts[] = {
		"Subject: Re: [PATCH] foo\nMessage-ID: <r@x>\n\n"
		"How about this instead:\n\n"
		"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n",
		"Subject: [PATCH] foo\nMessage-ID: <q@x>\n\n"
		"> diff --git a/f b/f\n> --- a/f\n> +++ b/f\n> @@ -1 +1 @@\n",
	};
	struct mail_list l;
	struct mail_series_list sl;

	find_in(&l, &sl, texts, 2, ERR_NOTFOUND);
	mail_series_list_release(&sl);
	mail_list_release(&l);
}

static void plain_diff_without_git_header_is_a_patch(void **state)
{
	static const char *const texts[] = {
		"From: A <a@x>\nSubject: [PATCH] foo\nMessage-ID: <p@x>\n\n"
		"Fix foo.\n\n"
		"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n",
	};
	struct mail_list l;
	struct mail_series_list sl;

	find_in(&l, &sl, texts, 1, 0);
	assert_string_equal(sl.items[0].patches[0].text.ptr,
			    "From: A <a@x>\nSubject: [PATCH] foo\n"
			    "Message-ID: <p@x>\n\nFix foo.\n---\n"
			    "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n");
	mail_series_list_release(&sl);
	mail_list_release(&l);
}

static void cover_letter_with_a_diff_is_no_patch(void **state)
{
	static const char *const texts[] = {
		"Subject: [PATCH v2 0/1] foo\nMessage-ID: <c@x>\n\n"
		"Interdiff against v1:\n"
		"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n",
		"Subject: [PATCH v2 1/1] foo\nMessage-ID: <p@x>\n"
		"In-Reply-To: <c@x>\n\nFix.\n---\n"
		"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+c\n",
	};
	struct mail_list l;
	struct mail_series_list sl;

	find_in(&l, &sl, texts, 2, 0);
	assert_int_equal(sl.nr, 1);
	assert_int_equal(sl.items[0].nr_patches, 1);
	assert_string_equal(sl.items[0].cover->message_id, "c@x");
	assert_int_equal(sl.items[0].version, 2);
	mail_series_list_release(&sl);
	mail_list_release(&l);
}

static void flowed_text_is_joined_but_attached_diff_is_kept(void **state)
{
	static const char *const texts[] = {
		"From: A <a@x>\nSubject: [PATCH] foo\nMessage-ID: <p@x>\n"
		"Content-Type: multipart/mixed; boundary=b\n\n"
		"--b\nContent-Type: text/plain; charset=UTF-8; "
		"format=flowed\n\n"
		"A long line that was \nwrapped by the mailer.\n"
		"> quoted \n> more\n\nSigned-off-by: A <a@x>\n\n"
		"--b\nContent-Type: text/x-patch; name=p.diff\n"
		"Content-Disposition: attachment; filename=p.diff\n\n"
		"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n"
		"-a trailing blank \n+b trailing blank \n"
		"--b--\n",
	};
	struct mail_list l;
	struct mail_series_list sl;
	const struct mail *m;

	find_in(&l, &sl, texts, 1, 0);
	m = &l.items[0];
	assert_string_equal(m->body.ptr, "A long line that was wrapped by the "
					 "mailer.\n> quoted more\n\n"
					 "Signed-off-by: A <a@x>\n");
	assert_int_equal(m->nr_attachments, 1);
	assert_string_equal(m->attachment_names[0], "p.diff");
	assert_string_equal(m->attachments[0].ptr,
			    "diff --git a/f b/f\n--- a/f\n+++ b/f\n"
			    "@@ -1 +1 @@\n"
			    "-a trailing blank \n+b trailing blank \n");
	assert_true(has(&sl.items[0].patches[0].text,
			"Signed-off-by: A <a@x>\n---\ndiff --git a/f b/f\n"));
	mail_series_list_release(&sl);
	mail_list_release(&l);
}

static void format_patch_attachment_is_used_whole(void **state)
{
	static const char *const texts[] = {
		"From: Sender <s@x>\nSubject: [PATCH 1/3] ignored title\n"
		"Message-ID: <p@x>\n"
		"Content-Type: multipart/mixed; boundary=b\n\n"
		"--b\nContent-Type: text/plain\n\nPlease apply.\n\n"
		"--b\nContent-Type: text/x-patch; name=0001.patch\n"
		"Content-Transfer-Encoding: base64\n\n"
		/* "From: Real Author <r@x>\nSubject: [PATCH] real title\n\n"
		   "Body.\n---\ndiff --git a/f b/f\n--- a/f\n+++ b/f\n"
		   "@@ -1 +1 @@\n-a\n+b\n" */
		"RnJvbTogUmVhbCBBdXRob3IgPHJAeD4KU3ViamVjdDogW1BBVENIXSByZWFs"
		"IHRpdGxlCgpCb2R5LgotLS0KZGlmZiAtLWdpdCBhL2YgYi9mCi0tLSBhL2YK"
		"KysrIGIvZgpAQCAtMSArMSBAQAotYQorYgo=\n"
		"--b--\n",
	};
	struct mail_list l;
	struct mail_series_list sl;
	const struct mail_patch *p;

	find_in(&l, &sl, texts, 1, 0);
	p = &sl.items[0].patches[0];
	assert_string_equal(p->subj.title, "real title");
	assert_int_equal(p->subj.index, 1);
	assert_int_equal(p->subj.total, 3);
	assert_author(p, "Real Author", "r@x");
	assert_string_equal(p->text.ptr,
			    "From: Real Author <r@x>\n"
			    "Subject: [PATCH] real title\nMessage-ID: <p@x>\n\n"
			    "Body.\n---\ndiff --git a/f b/f\n--- a/f\n+++ b/f\n"
			    "@@ -1 +1 @@\n-a\n+b\n");
	mail_series_list_release(&sl);
	mail_list_release(&l);
}

static void in_body_headers_override_the_mail_header(void **state)
{
	static const char *const texts[] = {
		"From: List Bot <bot@x>\nSubject: [PATCH v2] wrong\n"
		"Date: Mon, 6 Jan 2025 10:00:00 +0000\nMessage-ID: <p@x>\n\n"
		"From: Real Person <real@x>\nDate: Sun, 5 Jan 2025 09:00:00 "
		"+0100\nSubject: [PATCH] the real\n title\n\n"
		"Message.\n---\n"
		"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n",
	};
	struct mail_list l;
	struct mail_series_list sl;
	const struct mail_patch *p;

	find_in(&l, &sl, texts, 1, 0);
	p = &sl.items[0].patches[0];
	assert_int_equal(sl.items[0].version, 2);
	assert_string_equal(p->subj.title, "the real title");
	assert_author(p, "Real Person", "real@x");
	assert_string_equal(p->date, "Sun, 5 Jan 2025 09:00:00 +0100");
	assert_true(starts_with(p->text.ptr,
				"From: Real Person <real@x>\n"
				"Date: Sun, 5 Jan 2025 09:00:00 +0100\n"
				"Subject: [PATCH] the real title\n"
				"Message-ID: <p@x>\n\nMessage.\n---\n"));
	mail_series_list_release(&sl);
	mail_list_release(&l);
}

static void diff_keeps_its_bytes_while_the_message_is_converted(void **st)
{
	static const char *const texts[] = {
		"From: A <a@x>\nSubject: [PATCH] caf\xe9\nMessage-ID: <p@x>\n"
		"Content-Type: text/plain; charset=iso-8859-1\n"
		"Content-Transfer-Encoding: 8bit\n\n"
		"Caf\xe9 fix.\n---\n"
		"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n"
		"-/* Fran\xe7ois */\n+/* Fran\xe7ois M. */\n",
	};
	struct mail_list l;
	struct mail_series_list sl;
	const struct mail_patch *p;

	find_in(&l, &sl, texts, 1, 0);
	p = &sl.items[0].patches[0];
	assert_string_equal(p->subj.title, "café");
	assert_true(has(&p->text, "\n\nCafé fix.\n---\n"));
	assert_true(has(&p->text, "\n-/* Fran\xe7ois */\n+/* Fran\xe7ois "
				  "M. */\n"));
	mail_series_list_release(&sl);
	mail_list_release(&l);
}

static void mbox_first_line_needs_no_date(void **state)
{
	static const char data[] =
		"From - whatever\nSubject: one\n\n"
		"From the start of this line, no separator.\n\n"
		"From - Tue Jan  7 10:00:00 2025\nSubject: two\n\nb\n";
	struct mail_list l = { 0 };
	struct err err = ERR_INIT;

	assert_int_equal(mail_read_mbox(&l, data, strlen(data), "m", &err), 0);
	assert_int_equal(l.nr, 2);
	assert_string_equal(l.items[0].body.ptr,
			    "From the start of this line, no separator.\n");
	assert_string_equal(l.items[1].subject, "two");
	assert_int_equal(l.items[1].lineno, 7);
	mail_list_release(&l);
	err_release(&err);
}

static void unthreaded_patch_joins_the_cover_of_its_version(void **state)
{
	static const char *const texts[] = {
		"Subject: [PATCH v2 0/2] foo\nMessage-ID: <c@x>\n\nCover.\n",
		"Subject: [PATCH v2 1/2] foo\nMessage-ID: <p1@x>\n"
		"In-Reply-To: <c@x>\n\nOne.\n---\n"
		"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n",
		/* its mailer dropped In-Reply-To and References */
		"Subject: [PATCH v2 2/2] bar\nMessage-ID: <p2@x>\n\nTwo.\n---\n"
		"diff --git a/g b/g\n--- a/g\n+++ b/g\n@@ -1 +1 @@\n-a\n+b\n",
		/* another series of two patches, without a cover */
		"Subject: [PATCH 1/2] other\nMessage-ID: <o1@x>\n\nO.\n---\n"
		"diff --git a/h b/h\n--- a/h\n+++ b/h\n@@ -1 +1 @@\n-a\n+b\n",
	};
	struct mail_list l;
	struct mail_series_list sl;

	find_in(&l, &sl, texts, 4, 0);
	assert_int_equal(sl.nr, 2);
	assert_int_equal(sl.items[0].version, 1);
	assert_null(sl.items[0].cover);
	assert_int_equal(sl.items[0].nr_patches, 1);
	assert_int_equal(sl.items[1].version, 2);
	assert_string_equal(sl.items[1].cover->message_id, "c@x");
	assert_int_equal(sl.items[1].nr_patches, 2);
	assert_string_equal(sl.items[1].patches[1].subj.title, "bar");
	mail_series_list_release(&sl);
	mail_list_release(&l);
}

#define T(f) cmocka_unit_test(f)

/* Series of an mbox held in memory: messages after SEP lines. */
static void load_mem(struct ctx *c, const char *data)
{
	memset(c, 0, sizeof(*c));
	err_init(&c->err);
	if (mail_read_mbox(&c->l, data, strlen(data), "mem", &c->err) < 0 ||
	    mail_find_series(&c->sl, &c->l, &c->err) < 0)
		fail_msg("%s", c->err.msg.ptr);
}

#define SEP "From mboxrd@z Thu Jan  1 00:00:00 1970\n"
#define PATCH_MSG(v, id, subj, diffline)                                   \
	SEP "From: A <a@x.org>\nSubject: [PATCH " v "] " subj "\n"       \
	"Message-ID: <" id ">\n\nText.\n\nSigned-off-by: A <a@x.org>\n---\n"  \
	"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n" diffline  \
	"\n\n"

static void reply_trailer_must_be_its_senders(void **state)
{
	struct ctx c;

	load_mem(&c, PATCH_MSG("v1", "p@x", "foo", "+b")
		 SEP "From: Rev <rev+lists@mail.example.com>\n"
		 "Subject: Re: [PATCH v1] foo\nMessage-ID: <r1@x>\n"
		 "In-Reply-To: <p@x>\n\n"
		 "Reviewed-by: Rev <rev@example.com>\n"
		 "Reviewed-by: Boss <boss@example.com>\n"
		 "Acked-by: Rev <rev@example.com> with a nit\n"
		 "Tested-by: Rev <rev@example.com> # on arm64\n\n");
	/* +lists and one more domain level are the same person; the boss
	 * did not write this reply; text after the address is no trailer */
	assert_int_equal(c.sl.items[0].patches[0].nr_extra_trailers, 2);
	assert_true(has_trailer(&c.sl.items[0].patches[0],
				"Reviewed-by: Rev <rev@example.com>"));
	assert_true(has_trailer(&c.sl.items[0].patches[0],
				"Tested-by: Rev <rev@example.com>"));
	assert_int_equal(c.sl.items[0].nr_skipped_trailers, 2);
	assert_string_equal(c.sl.items[0].skipped_trailers[0],
			    "Reviewed-by: Boss <boss@example.com> (reply from "
			    "rev+lists@mail.example.com)");
	assert_string_equal(c.sl.items[0].skipped_trailers[1],
			    "Acked-by: Rev <rev@example.com> with a nit (reply "
			    "from rev+lists@mail.example.com)");
	ctx_release(&c);
}

static void trailers_carry_to_the_same_patch_of_another_version(void **st)
{
	struct ctx c;

	/* v2 1/2 is v1's patch unchanged; v2 2/2 changed */
	load_mem(&c, PATCH_MSG("1/2", "a1@x", "one", "+b")
		 PATCH_MSG("2/2", "a2@x", "two", "+c")
		 SEP "From: R <r@x.org>\nSubject: Re: [PATCH 1/2] one\n"
		 "Message-ID: <ra1@x>\nIn-Reply-To: <a1@x>\n\n"
		 "Reviewed-by: R <r@x.org>\n\n"
		 SEP "From: R <r@x.org>\nSubject: Re: [PATCH 2/2] two\n"
		 "Message-ID: <ra2@x>\nIn-Reply-To: <a2@x>\n\n"
		 "Acked-by: R <r@x.org>\n\n"
		 PATCH_MSG("v2 1/2", "b1@x", "one", "+b")
		 PATCH_MSG("v2 2/2", "b2@x", "two", "+d")
		 SEP "From: T <t@x.org>\nSubject: Re: [PATCH v2 1/2] one\n"
		 "Message-ID: <rb1@x>\nIn-Reply-To: <b1@x>\n\n"
		 "Tested-by: T <t@x.org>\n\n");
	assert_int_equal(c.sl.nr, 2);
	/* v1 1/2 gets v2's Tested-by, v2 1/2 v1's Reviewed-by */
	assert_int_equal(c.sl.items[0].patches[0].nr_extra_trailers, 2);
	assert_string_equal(c.sl.items[0].patches[0].extra_trailers[1],
			    "Tested-by: T <t@x.org>");
	assert_int_equal(c.sl.items[1].patches[0].nr_extra_trailers, 2);
	assert_string_equal(c.sl.items[1].patches[0].extra_trailers[0],
			    "Tested-by: T <t@x.org>");
	assert_string_equal(c.sl.items[1].patches[0].extra_trailers[1],
			    "Reviewed-by: R <r@x.org>");
	/* an ack of another diff does not carry */
	assert_int_equal(c.sl.items[1].patches[1].nr_extra_trailers, 0);
	ctx_release(&c);
}

static void author_is_the_in_body_from(void **state)
{
	struct mail m;
	struct err err = ERR_INIT;
	char *name, *email;
	static const char a[] = "From: Sender <s@x.org>\nSubject: x\n\n"
				"From: Real Author <real@x.org>\n\nText.\n";
	static const char b[] = "From: Sender <s@x.org>\nSubject: x\n\nText.\n";

	mail_init(&m);
	assert_int_equal(mail_parse(&m, a, strlen(a), "a", &err), 0);
	mail_author(&m, &name, &email);
	assert_string_equal(name, "Real Author");
	assert_string_equal(email, "real@x.org");
	free(name);
	free(email);
	mail_release(&m);
	mail_init(&m);
	assert_int_equal(mail_parse(&m, b, strlen(b), "b", &err), 0);
	mail_author(&m, &name, &email);
	assert_string_equal(name, "Sender");
	assert_string_equal(email, "s@x.org");
	free(name);
	free(email);
	mail_release(&m);
	err_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(corpus_files_hold_the_documented_message_counts),
		T(corpus_workqueue_cleanups_v1_has_cover_and_two_patches),
		T(corpus_workqueue_cleanups_v2_is_version_2),
		T(corpus_workqueue_fixes_cleanups_has_seven_patches),
		T(corpus_single_patch_without_cover),
		T(corpus_shrinker_v1_has_eleven_patches),
		T(corpus_shrinker_v2_has_fifteen_renumbered_patches),
		T(corpus_shrinker_v3_has_ten_patches),
		T(corpus_three_versions_read_together_give_three_series),
		T(corpus_failed_report_yields_the_upstream_commit),
		T(failed_report_fixture_yields_the_upstream_commit),
		T(corpus_failed_v6_6_report_yields_the_upstream_commit),
		T(corpus_base64_crlf_body_and_cjk_from),
		T(corpus_qp_webmail_body_is_decoded),
		T(corpus_qp_soft_breaks_inside_diff_lines_are_joined),
		T(corpus_rfc2047_subject_and_in_body_from),
		T(corpus_rfc2047_from_and_in_body_from_differ),
		T(corpus_gmail_attachment_is_the_diff),
		T(corpus_thunderbird_flowed_text_and_attachment),
		T(corpus_quoted_reply_is_no_patch),
		T(quoted_reply_fixture_is_no_patch),
		T(corpus_localized_reply_prefix_is_no_patch),
		T(corpus_reply_trailers_land_on_the_patch_they_answer),
		T(corpus_cover_reply_trailers_go_to_every_patch),
		T(corpus_trailers_already_in_the_patch_are_not_repeated),
		T(mboxrd_and_mboxo_from_quoting_is_undone),
		T(crlf_mbox_gives_lf_text),
		T(maildir_is_read_in_delivery_order),
		T(format_patch_directory_is_one_series_with_its_cover),
		T(format_patch_file_is_a_one_message_mbox),
		T(mail_parse_reads_format_patch_text),
		T(nul_byte_names_file_and_line),
		T(ten_megabyte_line_names_file_and_line),
		T(garbage_header_names_file_and_line),
		T(truncated_header_names_file_and_line),
		T(truncated_multipart_names_file_and_line),
		T(empty_file_is_an_error),
		T(mbox_without_messages_is_an_error),
		T(no_message_at_all_finds_no_series),
		T(rfc2047_q_and_b_words_decode),
		T(rfc2047_message_headers_decode),
		T(encode_header_uses_q_words_and_round_trips),
		T(charsets_convert_to_utf8),
		T(addresses_parse),
		T(dates_parse_to_epoch_and_zone),
		T(subject_tags_parse),
		T(versions_in_one_mbox_give_one_series_each),
		T(reply_trailers_are_collected_as_b4_does),
		T(base_commit_comes_from_the_cover),
		T(root_without_tags_is_the_cover),
		T(reply_with_an_unquoted_diff_is_no_patch),
		T(plain_diff_without_git_header_is_a_patch),
		T(cover_letter_with_a_diff_is_no_patch),
		T(flowed_text_is_joined_but_attached_diff_is_kept),
		T(format_patch_attachment_is_used_whole),
		T(in_body_headers_override_the_mail_header),
		T(diff_keeps_its_bytes_while_the_message_is_converted),
		T(mbox_first_line_needs_no_date),
		T(unthreaded_patch_joins_the_cover_of_its_version),
		T(reply_trailer_must_be_its_senders),
		T(trailers_carry_to_the_same_patch_of_another_version),
		T(author_is_the_in_body_from),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
