/*
 * test_lore: what a message-id or an archive URL names, thread URLs, the
 * search b4 sends for later revisions and the matching of its answer,
 * gzip, and the choice of a version in a fetched thread.
 */
#include "unit.h"

#include <zlib.h>

#include "lore.h"
#include "series.h"

static void ref_ok(const char *arg, const char *base, const char *msgid)
{
	struct lore_ref r;
	struct err err = ERR_INIT;

	assert_int_equal(lore_parse_ref(&r, arg, &err), 1);
	if (base)
		assert_string_equal(r.base, base);
	else
		assert_null(r.base);
	assert_string_equal(r.msgid, msgid);
	lore_ref_release(&r);
	err_release(&err);
}

static void message_ids_name_threads(void **state)
{
	ref_ok("cover.1713267925.git.fdmanana@suse.com", NULL,
	       "cover.1713267925.git.fdmanana@suse.com");
	ref_ok("<20211102124916.433836-1-nborisov@suse.com>", NULL,
	       "20211102124916.433836-1-nborisov@suse.com");
	/* brackets make a '/' part of the id */
	ref_ok("<a/b@c>", NULL, "a/b@c");
	ref_ok("mid:a%40b.c", NULL, "a@b.c");
}

static void file_names_are_not_threads(void **state)
{
	static const char *const names[] = {
		"series.mbox", "dir/a@b.mbox", "./x@y",		"a b@c",
		"@x",	       "x@",	       "apt:linux=6.1",
	};
	struct lore_ref r;
	struct err err = ERR_INIT;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		assert_int_equal(lore_parse_ref(&r, names[i], &err), 0);
		lore_ref_release(&r);
	}
	assert_int_equal(lore_parse_ref(&r, "<not an id>", &err), ERR_USAGE);
	lore_ref_release(&r);
	err_release(&err);
}

static void archive_urls_give_server_and_message(void **state)
{
	ref_ok("https://lore.kernel.org/linux-btrfs/cover.1@x.org/T/#u",
	       "https://lore.kernel.org/linux-btrfs/", "cover.1@x.org");
	ref_ok("https://lore.kernel.org/all/20240101.1-1-a%40x.org/",
	       "https://lore.kernel.org/all/", "20240101.1-1-a@x.org");
	ref_ok("http://127.0.0.1:8080/lists/btrfs/a@b/raw",
	       "http://127.0.0.1:8080/lists/btrfs/", "a@b");
	ref_ok("https://lore.kernel.org/all/a@b/t.mbox.gz",
	       "https://lore.kernel.org/all/", "a@b");
	ref_ok("https://lore.kernel.org/all/%3Ca@b%3E/",
	       "https://lore.kernel.org/all/", "a@b");
	/* lore's redirectors lead to its /all/ inbox */
	ref_ok("https://lore.kernel.org/r/a@b", "https://lore.kernel.org/all/",
	       "a@b");
	ref_ok("https://patch.msgid.link/a@b", "https://lore.kernel.org/all/",
	       "a@b");
	/* a query string names nothing */
	ref_ok("https://x.org/inbox/a@b/?q=c@d", "https://x.org/inbox/", "a@b");
}

static void url_without_message_is_refused(void **state)
{
	struct lore_ref r;
	struct err err = ERR_INIT;

	assert_int_equal(
		lore_parse_ref(&r, "https://lore.kernel.org/all/", &err),
		ERR_USAGE);
	assert_string_equal(err.msg.ptr,
			    "'https://lore.kernel.org/all/' names no message");
	lore_ref_release(&r);
	err_release(&err);
}

static void thread_url_escapes_the_message_id(void **state)
{
	char *u = lore_thread_url("https://x.org/all/", "a/b@c?d#e%f");

	assert_string_equal(u, "https://x.org/all/a%2Fb@c%3Fd%23e%25f/");
	free(u);
	u = lore_thread_url("http://h/btrfs", "a+b=c@d");
	assert_string_equal(u, "http://h/btrfs/a+b=c@d/");
	free(u);
}

static struct lore_series_id make_id(const char *title, const char *email,
				     bool cover, unsigned version)
{
	struct lore_series_id id = { 0 };

	id.title = xstrdup(title);
	id.email = xstrdup(email);
	id.has_cover = cover;
	id.version = version;
	id.date = 1712748512; /* 2024-04-10 11:28:32 UTC */
	return id;
}

static void newer_query_is_b4s(void **state)
{
	struct lore_series_id id =
		make_id("btrfs: add a \"shrinker\" for extent maps",
			"fdmanana@kernel.org", true, 1);
	char *q = lore_newer_query(&id);

	assert_string_equal(q, "((s:\"btrfs: add a shrinker for extent maps\" "
			       "AND f:\"fdmanana@kernel.org\")) AND "
			       "d:20240410..");
	free(q);
	/* without a cover letter the sender is unknown: no f: */
	id.has_cover = false;
	id.change_id = xstrdup("20240410-shrink-abc");
	q = lore_newer_query(&id);
	assert_string_equal(q, "((s:\"btrfs: add a shrinker for extent maps\")"
			       " OR nq:\"change-id: 20240410-shrink-abc\") AND "
			       "d:20240410..");
	free(q);
	lore_series_id_release(&id);
}

static void titles_compare_without_case_and_blanks(void **state)
{
	assert_true(lore_title_eq("Btrfs: workqueue  cleanups",
				  " btrfs: Workqueue cleanups "));
	assert_false(lore_title_eq("btrfs: workqueue cleanups",
				   "btrfs: workqueue fixes+cleanups"));
	assert_false(lore_title_eq("btrfs: a", "btrfs: a b"));
}

#define SEP "From mboxrd@z Thu Jan  1 00:00:00 1970\n"
#define MSG(from, subj, id, body)                                       \
	SEP "From: " from "\nSubject: " subj "\nMessage-ID: <" id ">\n" \
	    "Date: Thu, 11 Apr 2024 17:18:54 +0100\n\n" body "\n"

static void search_answer_gives_later_revisions(void **state)
{
	static const char data[] =
		/* the stored version and older: not later */
		MSG("F <f@k.org>", "[PATCH 00/11] btrfs: shrink", "v1c@x", "")
			MSG("F <f@k.org>", "[PATCH v0 1/2] btrfs: shrink",
			    "v0@x", "")
		/* v2: its cover wins over its first patch */
		MSG("F <f@k.org>", "[PATCH v2 01/15] btrfs: shrink", "v2p1@x",
		    "") MSG("F <f@k.org>", "[PATCH v2 00/15] btrfs: shrink",
			    "v2c@x", "") MSG("F <f@k.org>",
					     "[PATCH v2 13/15] btrfs: shrink",
					     "v2p13@x", "")
			MSG("R <r@x.org>", "Re: [PATCH v2 00/15] btrfs: shrink",
			    "re@x", "")
		/* v3 without a cover: its patch 1 */
		MSG("F <f@k.org>", "[PATCH v3 1/2] btrfs:  Shrink", "v3p1@x",
		    "")
		/* other titles, other senders */
		MSG("F <f@k.org>", "[PATCH v4 0/3] btrfs: grow", "v4c@x", "")
			MSG("X <x@y.org>", "[PATCH v6 0/3] btrfs: shrink",
			    "v6c@x", "")
		/* b4's change-id ties a renamed series */
		MSG("F <f@k.org>", "[PATCH v5 0/3] btrfs: shrink more", "v5c@x",
		    "Text.\n\nchange-id: 20240410-shrink\n");
	struct mail_list l = { 0 };
	struct lore_revisions r;
	struct lore_series_id id = make_id("btrfs: shrink", "f@k.org", true, 1);
	struct err err = ERR_INIT;

	assert_int_equal(mail_read_mbox(&l, data, strlen(data), "m", &err), 0);
	lore_match_newer(&r, &l, &id);
	assert_int_equal(r.nr, 2);
	assert_int_equal(r.items[0].version, 2);
	assert_string_equal(r.items[0].msgid, "v2c@x");
	assert_int_equal(r.items[0].total, 15);
	assert_string_equal(r.items[0].subject,
			    "[PATCH v2 00/15] btrfs: shrink");
	assert_int_equal(r.items[1].version, 3);
	assert_string_equal(r.items[1].msgid, "v3p1@x");
	lore_revisions_release(&r);

	id.change_id = xstrdup("20240410-shrink");
	lore_match_newer(&r, &l, &id);
	assert_int_equal(r.nr, 3);
	assert_int_equal(r.items[2].version, 5);
	assert_string_equal(r.items[2].msgid, "v5c@x");
	lore_revisions_release(&r);
	lore_series_id_release(&id);

	/* no cover stored: the author may be the in-body From: */
	id = make_id("btrfs: shrink", "author@x.org", false, 2);
	mail_list_release(&l);
	{
		static const char d2[] =
			MSG("Sender <s@x.org>", "[PATCH v3] btrfs: shrink",
			    "v3@x", "From: Au Thor <author@x.org>\n\nText.\n");
		assert_int_equal(mail_read_mbox(&l, d2, strlen(d2), "m", &err),
				 0);
	}
	lore_match_newer(&r, &l, &id);
	assert_int_equal(r.nr, 1);
	assert_string_equal(r.items[0].msgid, "v3@x");
	lore_revisions_release(&r);
	lore_series_id_release(&id);
	mail_list_release(&l);
	err_release(&err);
}

static void series_id_comes_from_the_cover_letter(void **state)
{
	struct series_version v;
	struct lore_series_id id;
	struct err err = ERR_INIT;

	series_version_init(&v, "shrinker", "v1");
	buf_adds(&v.cover, "From: <fdmanana@kernel.org>\n"
			   "Date: Wed, 10 Apr 2024 12:28:32 +0100\n"
			   "Subject: [PATCH 00/11] btrfs: add a shrinker\n"
			   "Message-ID: <c@x>\n\nText.\n");
	assert_int_equal(lore_series_id_from_version(&id, &v, &err), 0);
	assert_string_equal(id.title, "btrfs: add a shrinker");
	assert_string_equal(id.email, "fdmanana@kernel.org");
	assert_true(id.has_cover);
	assert_int_equal(id.version, 1);
	assert_int_equal(id.date, 1712748512);
	lore_series_id_release(&id);
	series_version_release(&v);

	series_version_init(&v, "deb", "6.1.170-3");
	assert_int_equal(lore_series_id_from_version(&id, &v, &err), ERR_USAGE);
	series_version_release(&v);
	err_release(&err);
}

static void gz(struct buf *out, const char *text)
{
	z_stream zs;
	size_t n = strlen(text);

	memset(&zs, 0, sizeof(zs));
	assert_int_equal(deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8,
				      Z_DEFAULT_STRATEGY),
			 Z_OK);
	buf_grow(out, n + 128);
	zs.next_in = (unsigned char *)text;
	zs.avail_in = (uInt)n;
	zs.next_out = (unsigned char *)out->ptr + out->len;
	zs.avail_out = (uInt)(out->alloc - out->len - 1);
	assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
	out->len = (size_t)((char *)zs.next_out - out->ptr);
	deflateEnd(&zs);
}

static void gunzip_reads_members_and_keeps_its_limit(void **state)
{
	struct buf in = BUF_INIT, out = BUF_INIT;
	struct err err = ERR_INIT;

	gz(&in, "From a\n");
	gz(&in, "From b\n"); /* a second member */
	assert_int_equal(lore_gunzip(&out, in.ptr, in.len, 0, "t", &err), 0);
	assert_string_equal(out.ptr, "From a\nFrom b\n");
	assert_int_equal(lore_gunzip(&out, in.ptr, in.len, 10, "t", &err),
			 ERR_PARSE);
	assert_string_equal(err.msg.ptr, "t: more than 10 bytes once inflated");
	assert_int_equal(lore_gunzip(&out, in.ptr, in.len - 3, 0, "t", &err),
			 ERR_PARSE);
	assert_int_equal(lore_gunzip(&out, "<html>", 6, 0, "t", &err),
			 ERR_PARSE);
	buf_release(&in);
	buf_release(&out);
	err_release(&err);
}

static void pick_prefers_the_named_message(void **state)
{
	struct import_set set = { 0 };
	struct import_candidate c[2];
	char *ids0[] = { "a@x" }, *ids1[] = { "b@x", "c@x" };

	memset(c, 0, sizeof(c));
	c[0].version = "v1";
	c[0].msgids = ids0;
	c[0].nr_msgids = 1;
	c[1].version = "v2";
	c[1].msgids = ids1;
	c[1].nr_msgids = 2;
	set.items = c;
	set.nr = 2;
	assert_int_equal(lore_pick(&set, "c@x", "v1"), 1);
	assert_int_equal(lore_pick(&set, "z@x", "v1"), 0);
	assert_int_equal(lore_pick(&set, "z@x", "v9"), -1);
	set.nr = 1;
	/* a v1 thread is no v9: it was stored as v2 ... v999 */
	assert_int_equal(lore_pick(&set, "z@x", "v9"), -1);
	assert_int_equal(lore_pick(&set, "a@x", "v9"), 0);
	/* a version name of the user's own takes the only one */
	assert_int_equal(lore_pick(&set, "z@x", "6.1.1-1"), 0);
	assert_int_equal(lore_pick(&set, "z@x", NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(message_ids_name_threads),
		cmocka_unit_test(file_names_are_not_threads),
		cmocka_unit_test(archive_urls_give_server_and_message),
		cmocka_unit_test(url_without_message_is_refused),
		cmocka_unit_test(thread_url_escapes_the_message_id),
		cmocka_unit_test(newer_query_is_b4s),
		cmocka_unit_test(titles_compare_without_case_and_blanks),
		cmocka_unit_test(search_answer_gives_later_revisions),
		cmocka_unit_test(series_id_comes_from_the_cover_letter),
		cmocka_unit_test(gunzip_reads_members_and_keeps_its_limit),
		cmocka_unit_test(pick_prefers_the_named_message),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
