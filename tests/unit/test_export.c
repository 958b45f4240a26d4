#include "unit.h"

#include "export.h"
#include "adapt.h"

/* ---- a hand-made series of one patch, without a repository ------------ */

#define UP "d48e1dea3931de64c26717adc2b89743c7ab6594"

static const char diff_text[] = "diff --git a/fs/btrfs/bio.c b/fs/btrfs/bio.c\n"
				"index 1111111..2222222 100644\n"
				"--- a/fs/btrfs/bio.c\n"
				"+++ b/fs/btrfs/bio.c\n"
				"@@ -10,3 +10,4 @@ static void "
				"btrfs_bio_end_io(struct btrfs_bio *bbio)\n"
				" \ta();\n"
				"+\tb();\n"
				" \tc();\n"
				" \td();\n";

struct fixture {
	struct export_series s;
	struct carry_patch cp;
	struct carry_file cf;
	struct apply_hunk_result hunks[2];
};

static int setup(void **state)
{
	struct fixture *fx = xcalloc(1, sizeof(*fx));
	struct export_patch *p;
	struct patch_parse_opts po = { 0 };
	struct err err = ERR_INIT;

	fx->s.name = xstrdup("bio");
	fx->s.version = xstrdup("v1");
	fx->s.target = xstrdup("6.1");
	fx->s.kernel = xstrdup("6.1.170");
	fx->s.stable = xstrdup("6.1.y");
	fx->s.backporter_name = xstrdup("Bea Porter");
	fx->s.backporter_email = xstrdup("bea@example.org");
	fx->s.now = 1730858940; /* 2024-11-06 */
	fx->s.nr = 1;
	fx->s.nr_included = 1;
	fx->s.patches = xcalloc(2, sizeof(*fx->s.patches));
	p = &fx->s.patches[0];
	p->number = 1;
	p->file = "0001-btrfs-fix-error-propagation-of-split-bios.patch";
	p->slug = xstrdup("btrfs-fix-error-propagation-of-split-bios");
	p->included = true;
	p->subject = xstrdup("btrfs: fix error propagation of split bios");
	p->author_name = xstrdup("Naohiro Aota");
	p->author_email = xstrdup("naohiro.aota@wdc.com");
	p->date = xstrdup("Wed, 9 Oct 2024 22:52:06 +0900");
	memcpy(p->upstream, UP, 41);
	p->upstream_from = UPSTREAM_MAIL;
	buf_init(&p->message, 0);
	buf_adds(&p->message,
		 "The purpose of btrfs_bbio_propagate_error() shall "
		 "be propagating an error.\n\n"
		 "Fixes: 852eee62d31a (\"btrfs: allow btrfs_submit_bio "
		 "to split bios\")\n"
		 "Reviewed-by: Qu Wenruo <wqu@suse.com>\n"
		 "Signed-off-by: Naohiro Aota <naohiro.aota@wdc.com>\n");
	p->has_trailers = true;
	patch_init(&p->diff);
	po.name = p->file;
	if (patch_parse(&p->diff, diff_text, strlen(diff_text), &po, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	err_release(&err);

	/* hunk 1 landed 12 lines further down with fuzz 1 */
	fx->hunks[0].rule = RULE_FUZZ;
	fx->hunks[0].offset = 12;
	fx->hunks[0].fuzz = 1;
	fx->cf.path = "fs/btrfs/bio.c";
	fx->cf.hunks = fx->hunks;
	fx->cf.nr_hunks = 1;
	fx->cp.files = &fx->cf;
	fx->cp.nr_files = 1;
	fx->cp.outcome = OUTCOME_FUZZY;
	fx->cp.committed = true;
	p->cp = &fx->cp;
	p->adjusted = true;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	struct export_patch *p = &fx->s.patches[0];

	/* borrowed, not the model's to free */
	p->cp = NULL;
	p->file = NULL;
	export_series_release(&fx->s);
	free(fx);
	return 0;
}

static struct export_patch *patch0(void **state)
{
	return &((struct fixture *)*state)->s.patches[0];
}

/* ---- the upstream commit ---------------------------------------------- */

static enum export_upstream find_in(const char *message, char hex[41])
{
	struct patch p;
	enum export_upstream u;

	patch_init(&p);
	buf_adds(&p.message, message);
	u = export_find_upstream(hex, &p);
	patch_release(&p);
	return u;
}

static void commit_upstream_line_is_found(void **state)
{
	char hex[41];

	assert_int_equal(find_in("commit " UP " upstream.\n\nText.\n", hex),
			 UPSTREAM_LINE);
	assert_string_equal(hex, UP);
}

static void bracket_upstream_line_is_found(void **state)
{
	char hex[41];

	assert_int_equal(find_in("[ Upstream commit " UP " ]\n\nText.\n", hex),
			 UPSTREAM_LINE);
	assert_string_equal(hex, UP);
}

static void cherry_pick_line_is_found(void **state)
{
	char hex[41];

	assert_int_equal(find_in("Text.\n\nSigned-off-by: A <a@b>\n"
				 "(cherry picked from commit " UP ")\n",
				 hex),
			 UPSTREAM_CHERRY);
	assert_string_equal(hex, UP);
}

static void upstream_line_wins_over_a_cherry_pick(void **state)
{
	char hex[41];

	/* a stable commit picked again: the upstream line names mainline */
	assert_int_equal(find_in("commit " UP " upstream.\n\nText.\n"
				 "(cherry picked from commit "
				 "1111111111111111111111111111111111111111)\n",
				 hex),
			 UPSTREAM_LINE);
	assert_string_equal(hex, UP);
}

static void abbreviated_or_quoted_ids_are_not_upstream(void **state)
{
	char hex[41];

	assert_int_equal(find_in("commit d48e1dea3931 upstream.\n", hex),
			 UPSTREAM_NONE);
	assert_int_equal(find_in("This reverts commit " UP ".\n", hex),
			 UPSTREAM_NONE);
	assert_int_equal(find_in("Fixes: d48e1dea3931 (\"btrfs: x\")\n", hex),
			 UPSTREAM_NONE);
	assert_string_equal(hex, "");
}

static void dep3_origin_commit_is_found(void **state)
{
	static const char text[] =
		"Description: fix\n"
		"Origin: upstream, https://git.kernel.org/linus/" UP "\n"
		"\n"
		"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n";
	struct patch p;
	struct err err = ERR_INIT;
	char hex[41];

	patch_init(&p);
	assert_int_equal(patch_parse(&p, text, strlen(text), NULL, &err), 0);
	assert_int_equal(export_find_upstream(hex, &p), UPSTREAM_DEP3);
	assert_string_equal(hex, UP);
	patch_release(&p);
	err_release(&err);
}

/* ---- the target's version --------------------------------------------- */

static void kernel_version_comes_from_the_makefile(void **state)
{
	static const char mk[] = "# SPDX-License-Identifier: GPL-2.0\n"
				 "VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 170\n"
				 "EXTRAVERSION =\nNAME = Curry Ramen\n";
	char *v = export_kernel_version(mk, strlen(mk));

	assert_string_equal(v, "6.1.170");
	free(v);
}

static void kernel_release_without_sublevel_is_two_numbers(void **state)
{
	static const char mk[] = "VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 0\n"
				 "EXTRAVERSION = -rc3\n";
	char *v = export_kernel_version(mk, strlen(mk));

	assert_string_equal(v, "6.12");
	free(v);
}

static void a_makefile_of_something_else_is_no_kernel(void **state)
{
	static const char mk[] = "VERSIONS = 3\nall:\n\tcc -o x x.c\n";

	assert_null(export_kernel_version(mk, strlen(mk)));
}

/* ---- file names ----------------------------------------------------------- */

static void slugs_are_lower_case_whole_words(void **state)
{
	char *a = export_slug("Btrfs: fix error propagation of split bios");
	char *b = export_slug("btrfs: pass the extent map tree's inode to "
			      "clear_em_logging() and other long function "
			      "names");
	char *c = export_slug("[RFC] Ça marche: é!");

	assert_string_equal(a, "btrfs-fix-error-propagation-of-split-bios");
	assert_string_equal(b, "btrfs-pass-the-extent-map-tree-s-inode-to-"
			       "clear-em-logging-and-other");
	assert_true(strlen(b) <= 72);
	assert_string_equal(c, "rfc-a-marche");
	free(a);
	free(b);
	free(c);
}

/* ---- what the backport adjusted ---------------------------------------- */

static void adjustments_name_file_hunk_and_rule(void **state)
{
	struct fixture *fx = *state;
	struct buf b = BUF_INIT;

	fx->hunks[1].rule = RULE_3WAY_HUNK;
	fx->hunks[1].risk = true;
	fx->cf.nr_hunks = 2;
	export_adjustments(&b, patch0(state));
	assert_string_equal(b.ptr, "fs/btrfs/bio.c: hunk 1 fuzz 1 at offset "
				   "+12 lines, hunk 2 3-way merge (placement "
				   "risk)");
	buf_release(&b);
}

static void exact_hunks_need_no_note(void **state)
{
	struct fixture *fx = *state;
	struct buf b = BUF_INIT;

	fx->hunks[0].rule = RULE_EXACT;
	fx->hunks[0].offset = 0;
	fx->hunks[0].fuzz = 0;
	export_note(&b, &fx->s, patch0(state));
	assert_string_equal(b.ptr, "");
	buf_release(&b);
}

static void a_resolution_by_hand_is_noted(void **state)
{
	struct fixture *fx = *state;
	struct buf b = BUF_INIT;

	fx->hunks[0].rule = RULE_EXACT;
	fx->cp.resolved = true;
	export_note(&b, &fx->s, patch0(state));
	assert_string_equal(b.ptr, "[ Bea Porter: backported to 6.1.y: "
				   "conflict resolved by hand ]\n");
	buf_release(&b);
}

static void long_notes_wrap_at_72_columns(void **state)
{
	struct fixture *fx = *state;
	struct buf b = BUF_INIT;
	const char *l;

	fx->hunks[1].rule = RULE_OFFSET;
	fx->hunks[1].offset = -1;
	fx->cf.nr_hunks = 2;
	export_note(&b, &fx->s, patch0(state));
	assert_string_equal(
		b.ptr, "[ Bea Porter: backported to 6.1.y: fs/btrfs/bio.c: "
		       "hunk 1 fuzz 1 at\n"
		       "  offset +12 lines, hunk 2 offset -1 line ]\n");
	for (l = b.ptr; *l; l += strcspn(l, "\n") + 1)
		assert_true(strcspn(l, "\n") <= 72);
	buf_release(&b);
}

/*
 * refresh.note = rhel: no bracket; what was adjusted is a line a file of
 * RHEL's Conflicts paragraph, of its own when no hunk was adapted.
 */
static void rhel_note_is_a_conflicts_paragraph(void **state)
{
	struct fixture *fx = *state;
	struct buf b = BUF_INIT;

	fx->cp.note_form = CARRY_NOTE_RHEL;
	fx->hunks[1].rule = RULE_OFFSET;
	fx->hunks[1].offset = -1;
	fx->cf.nr_hunks = 2;
	export_note(&b, &fx->s, patch0(state));
	assert_string_equal(b.ptr, "Conflicts: fs/btrfs/bio.c: hunk 1 fuzz 1 "
				   "at offset +12 lines, hunk 2 offset -1 "
				   "line\n");
	buf_release(&b);
}

/*
 * An adapted hunk opened the Conflicts paragraph with its own note
 * (carry_adapted_notes): the backporter's lines continue it and do not
 * name that hunk again; a resolution by hand is one of them.
 */
static void rhel_note_continues_the_adapted_notes(void **state)
{
	struct fixture *fx = *state;
	struct adaptation a;
	struct buf b = BUF_INIT;

	memset(&a, 0, sizeof(a));
	fx->cp.note_form = CARRY_NOTE_RHEL;
	fx->cp.resolved = true;
	fx->hunks[0].rule = RULE_ADAPTED;
	fx->hunks[0].adapt = &a;
	fx->hunks[1].rule = RULE_3WAY_HUNK;
	fx->cf.nr_hunks = 2;
	export_note(&b, &fx->s, patch0(state));
	assert_string_equal(b.ptr, "  resolved by hand\n"
				   "  fs/btrfs/bio.c: hunk 2 3-way merge\n");
	/* only adapted hunks: nothing of the backporter's to add */
	fx->cp.resolved = false;
	fx->cf.nr_hunks = 1;
	buf_reset(&b);
	export_note(&b, &fx->s, patch0(state));
	assert_string_equal(b.ptr, "");
	fx->hunks[0].adapt = NULL;
	buf_release(&b);
}

/* ---- formats ------------------------------------------------------------ */

/* DEP-3 (https://dep-team.pages.debian.net/deps/dep3/) defines these. */
static bool dep3_field(const char *key, size_t n)
{
	static const char *const keys[] = {
		"Description", "Subject",	   "Origin",
		"Bug",	       "Forwarded",	   "Author",
		"From",	       "Reviewed-by",	   "Acked-by",
		"Last-Update", "Applied-Upstream",
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++)
		if (strlen(keys[i]) == n && !strncmp(key, keys[i], n))
			return true;
	return n > 4 && !strncmp(key, "Bug-", 4);
}

static void debian_header_holds_only_dep3_fields(void **state)
{
	struct fixture *fx = *state;
	struct export_patch *p = patch0(state);
	struct export_text_opts o = { 0 };
	struct buf b = BUF_INIT;
	const char *l;
	size_t fields = 0;

	p->bugs = xcalloc(4, sizeof(char *));
	p->bugs[p->nr_bugs++] = xstrdup("https://bugs.debian.org/1085000");
	p->bugs[p->nr_bugs++] = xstrdup("bsc#1234567");
	p->bugs[p->nr_bugs++] = xstrdup("https://bugzilla.kernel.org/1");
	p->reviewed = xcalloc(2, sizeof(char *));
	p->reviewed[p->nr_reviewed++] = xstrdup("Reviewed-by\tQu Wenruo "
						"<wqu@suse.com>");
	p->release = xstrdup("v6.12-rc7");
	export_debian_patch(&b, &fx->s, p, &o);
	for (l = b.ptr; *l && *l != '\n'; l += strcspn(l, "\n") + 1) {
		if (*l == ' ')
			continue; /* a continuation line */
		assert_true(strcspn(l, ":") < strcspn(l, "\n"));
		if (!dep3_field(l, strcspn(l, ":")))
			fail_msg("not a DEP-3 field: %.*s",
				 (int)strcspn(l, "\n"), l);
		fields++;
	}
	assert_int_equal(fields, 9);
	assert_non_null(strstr(b.ptr,
			       "Description: btrfs: fix error propagation "
			       "of split bios\n The purpose of"));
	assert_non_null(strstr(b.ptr, "\n .\n Fixes: 852eee62d31a"));
	assert_non_null(strstr(b.ptr, "\nAuthor: Naohiro Aota "
				      "<naohiro.aota@wdc.com>\n"));
	assert_non_null(strstr(b.ptr, "\nOrigin: upstream, commit:" UP "\n"));
	assert_non_null(strstr(b.ptr, "\nBug-Debian: "
				      "https://bugs.debian.org/1085000\n"));
	assert_non_null(strstr(b.ptr, "\nBug-SUSE: https://bugzilla.suse.com/"
				      "show_bug.cgi?id=1234567\n"));
	assert_non_null(
		strstr(b.ptr, "\nBug: https://bugzilla.kernel.org/1\n"));
	assert_non_null(
		strstr(b.ptr, "\nApplied-Upstream: 6.12-rc7, commit:" UP "\n"));
	assert_non_null(
		strstr(b.ptr, "\nReviewed-by: Qu Wenruo <wqu@suse.com>\n"));
	assert_non_null(strstr(b.ptr, "\nLast-Update: 2024-11-06\n\n---\n"));
	assert_non_null(strstr(b.ptr, "\n\ndiff --git a/fs/btrfs/bio.c"));
	buf_release(&b);
}

static void merged_patch_is_a_backport_in_dep3(void **state)
{
	struct fixture *fx = *state;
	struct export_text_opts o = { 0 };
	struct buf b = BUF_INIT;

	fx->hunks[0].rule = RULE_3WAY;
	export_debian_patch(&b, &fx->s, patch0(state), &o);
	assert_non_null(strstr(b.ptr, "\nOrigin: backport, commit:" UP "\n"));
	buf_release(&b);
}

static void a_mailed_patch_points_at_lore(void **state)
{
	struct fixture *fx = *state;
	struct export_patch *p = patch0(state);
	struct export_text_opts o = { 0 };
	struct buf b = BUF_INIT;

	p->upstream[0] = '\0';
	p->link = xstrdup("https://lore.kernel.org/r/x@y");
	export_debian_patch(&b, &fx->s, p, &o);
	assert_non_null(strstr(b.ptr, "\nOrigin: backport, "
				      "https://lore.kernel.org/r/x@y\n"));
	assert_non_null(strstr(b.ptr, "\nForwarded: "
				      "https://lore.kernel.org/r/x@y\n"));
	assert_null(strstr(b.ptr, "Applied-Upstream"));
	buf_release(&b);
}

static void mbox_message_is_stable_style(void **state)
{
	struct fixture *fx = *state;
	struct export_text_opts o = { 0 };
	struct buf b = BUF_INIT;

	o.signoff = true;
	o.index = 2;
	o.total = 3;
	export_mbox_patch(&b, &fx->s, patch0(state), &o);
	assert_non_null(strstr(b.ptr, "\nSubject: [PATCH 6.1.y 2/3] btrfs: fix "
				      "error propagation of split bios\n"));
	assert_non_null(strstr(b.ptr, "\nFrom: Naohiro Aota "
				      "<naohiro.aota@wdc.com>\n"));
	assert_non_null(strstr(b.ptr, "\n\ncommit " UP " upstream.\n\nThe "
				      "purpose"));
	assert_non_null(strstr(b.ptr, "Signed-off-by: Naohiro Aota "
				      "<naohiro.aota@wdc.com>\n[ Bea Porter: "
				      "backported to 6.1.y: fs/btrfs/bio.c: "
				      "hunk 1 fuzz 1 at\n  offset +12 lines "
				      "]\nSigned-off-by: Bea Porter "
				      "<bea@example.org>\n---\n"));
	buf_release(&b);
}

static void mbox_upstream_line_in_brackets(void **state)
{
	struct fixture *fx = *state;
	struct export_text_opts o = { 0 };
	struct buf b = BUF_INIT;

	o.upstream_style = UPSTREAM_STYLE_BRACKET;
	export_mbox_patch(&b, &fx->s, patch0(state), &o);
	assert_non_null(strstr(b.ptr, "\nSubject: [PATCH 6.1.y] btrfs: fix"));
	assert_non_null(strstr(b.ptr, "\n\n[ Upstream commit " UP " ]\n\n"));
	buf_release(&b);
}

static void a_message_with_its_upstream_line_gets_no_second(void **state)
{
	struct fixture *fx = *state;
	struct export_patch *p = patch0(state);
	struct export_text_opts o = { 0 };
	struct buf b = BUF_INIT;

	buf_reset(&p->message);
	buf_adds(&p->message, "commit " UP " upstream.\n\nText.\n");
	p->upstream_from = UPSTREAM_LINE;
	p->has_trailers = false;
	export_mbox_patch(&b, &fx->s, p, &o);
	assert_non_null(
		strstr(b.ptr, "\n\ncommit " UP " upstream.\n\nText.\n"));
	assert_null(strstr(strstr(b.ptr, "upstream.") + 1, "upstream."));
	buf_release(&b);
}

static void git_message_says_cherry_picked_once(void **state)
{
	struct fixture *fx = *state;
	struct export_patch *p = patch0(state);
	struct export_text_opts o = { 0 };
	struct buf b = BUF_INIT;

	o.signoff = true;
	export_git_message(&b, &fx->s, p, &o);
	assert_non_null(strstr(b.ptr, "Signed-off-by: Naohiro Aota "
				      "<naohiro.aota@wdc.com>\n(cherry picked "
				      "from commit " UP ")\n[ Bea Porter:"));
	assert_true(ends_with(b.ptr, "\nSigned-off-by: Bea Porter "
				     "<bea@example.org>\n"));
	/* picked again from a message that says so already */
	buf_reset(&b);
	buf_adds(&p->message, "(cherry picked from commit " UP ")\n");
	export_git_message(&b, &fx->s, p, &o);
	assert_null(
		strstr(strstr(b.ptr, "cherry picked") + 1, "cherry picked"));
	buf_release(&b);
}

static void suse_patch_has_kernel_source_headers(void **state)
{
	struct fixture *fx = *state;
	struct export_patch *p = patch0(state);
	struct export_text_opts o = { 0 };
	struct buf b = BUF_INIT;

	o.signoff = true;
	p->release = xstrdup("v6.12-rc7");
	p->bugs = xcalloc(4, sizeof(char *));
	p->bugs[p->nr_bugs++] =
		xstrdup("https://bugzilla.suse.com/show_bug.cgi?"
			"id=1232921");
	p->bugs[p->nr_bugs++] = xstrdup("CVE-2024-50170");
	p->bugs[p->nr_bugs++] = xstrdup("https://lore.kernel.org/x");
	export_suse_patch(&b, &fx->s, p, &o);
	assert_true(starts_with(
		b.ptr, "From: Naohiro Aota <naohiro.aota@wdc.com>\n"
		       "Date: Wed, 9 Oct 2024 22:52:06 +0900\n"
		       "Subject: btrfs: fix error propagation of split "
		       "bios\n"
		       "Patch-mainline: v6.12-rc7\n"
		       "Git-commit: " UP "\n"
		       "References: bsc#1232921 CVE-2024-50170\n\n"
		       "The purpose"));
	assert_non_null(strstr(b.ptr, "\nAcked-by: Bea Porter "
				      "<bea@example.org>\n---\n"));
	buf_release(&b);
}

/* ---- marked blocks ------------------------------------------------------ */

static void block_is_added_then_replaced_in_place(void **state)
{
	struct buf t = BUF_INIT, old = BUF_INIT;
	struct err err = ERR_INIT;

	buf_adds(&t, "debian/a.patch\nb.patch");
	assert_int_equal(export_block_update(&t, "wq", "x.patch\n", SIZE_MAX,
					     &old, &err),
			 0);
	assert_string_equal(t.ptr, "debian/a.patch\nb.patch\n"
				   "# kcarry export begin: wq\nx.patch\n"
				   "# kcarry export end: wq\n");
	assert_string_equal(old.ptr, "");
	buf_adds(&t, "c.patch\n");
	assert_int_equal(export_block_update(&t, "wq", "y.patch\nz.patch\n",
					     SIZE_MAX, &old, &err),
			 0);
	assert_string_equal(t.ptr, "debian/a.patch\nb.patch\n"
				   "# kcarry export begin: wq\ny.patch\n"
				   "z.patch\n# kcarry export end: wq\n"
				   "c.patch\n");
	assert_string_equal(old.ptr, "x.patch\n");
	buf_release(&t);
	buf_release(&old);
	err_release(&err);
}

/* A merge of two branches of a package can leave the block twice: the
 * update keeps one, and the files of both count as kcarry's. */
static void a_second_stale_block_is_removed(void **state)
{
	struct buf t = BUF_INIT, old = BUF_INIT;
	struct err err = ERR_INIT;

	buf_adds(&t, "a.patch\n# kcarry export begin: wq\nx.patch\n"
		     "# kcarry export end: wq\nb.patch\n"
		     "# kcarry export begin: wq\nold.patch\n"
		     "# kcarry export end: wq\nc.patch\n");
	assert_int_equal(export_block_update(&t, "wq", "y.patch\n", SIZE_MAX,
					     &old, &err),
			 0);
	assert_string_equal(t.ptr, "a.patch\n# kcarry export begin: wq\n"
				   "y.patch\n# kcarry export end: wq\n"
				   "b.patch\nc.patch\n");
	assert_string_equal(old.ptr, "x.patch\nold.patch\n");
	buf_release(&t);
	buf_release(&old);
	err_release(&err);
}

/* series.conf indents its lines with a tab: so may a user the markers. */
static void an_indented_block_is_recognised(void **state)
{
	struct buf t = BUF_INIT, old = BUF_INIT;
	struct err err = ERR_INIT;

	buf_adds(&t, "\tpatches.suse/a.patch\n\t# kcarry export begin: wq\n"
		     "\tpatches.suse/x.patch\n  # kcarry export end: wq\n"
		     "\tpatches.suse/b.patch\n");
	assert_int_equal(export_block_update(&t, "wq",
					     "\tpatches.suse/y.patch\n",
					     SIZE_MAX, &old, &err),
			 0);
	assert_string_equal(t.ptr, "\tpatches.suse/a.patch\n"
				   "# kcarry export begin: wq\n"
				   "\tpatches.suse/y.patch\n"
				   "# kcarry export end: wq\n"
				   "\tpatches.suse/b.patch\n");
	assert_string_equal(old.ptr, "\tpatches.suse/x.patch\n");
	buf_release(&t);
	buf_release(&old);
	err_release(&err);
}

static int check_opts(const struct export_opts *o)
{
	struct err err = ERR_INIT;
	int rc = export_check_opts(o, &err);

	err_release(&err);
	return rc;
}

static void options_that_forge_or_misplace_are_refused(void **state)
{
	const char *to[] = { "stable@vger.kernel.org", "a@b\nBcc: e@f" };
	struct export_opts o = { 0 };

	assert_int_equal(check_opts(&o), 0);
	o.text.to = to;
	o.text.nr_to = 1;
	assert_int_equal(check_opts(&o), 0);
	o.text.nr_to = 2;
	assert_int_equal(check_opts(&o), ERR_USAGE);
	o.text.nr_to = 0;
	o.text.in_reply_to = "<x@y>\r\nBcc: e@f";
	assert_int_equal(check_opts(&o), ERR_USAGE);
	o.text.in_reply_to = "";
	o.text.subject_prefix = "PATCH 6.1.y";
	assert_int_equal(check_opts(&o), 0);

	o.subdir = "bugfix/kcarry-wq_2";
	assert_int_equal(check_opts(&o), 0);
	o.subdir = "a b";
	assert_int_equal(check_opts(&o), ERR_USAGE);
	o.subdir = "series";
	assert_int_equal(check_opts(&o), ERR_USAGE);
	o.subdir = "x/.pc";
	assert_int_equal(check_opts(&o), ERR_USAGE);
	o.subdir = NULL;

	o.branch = "kcarry-export/wq/v1/6.1";
	assert_int_equal(check_opts(&o), 0);
	o.branch = "refs/heads/for-stable";
	assert_int_equal(check_opts(&o), 0);
	o.branch = "HEAD";
	assert_int_equal(check_opts(&o), ERR_USAGE);
	o.branch = "-x";
	assert_int_equal(check_opts(&o), ERR_USAGE);
	o.branch = "refs/remotes/origin/x";
	assert_int_equal(check_opts(&o), ERR_USAGE);
	o.branch = "a..b";
	assert_int_equal(check_opts(&o), ERR_USAGE);
}

static void blocks_of_other_series_are_left_alone(void **state)
{
	struct buf t = BUF_INIT;
	struct err err = ERR_INIT;

	buf_adds(&t, "# kcarry export begin: wq2\nq.patch\n"
		     "# kcarry export end: wq2\n");
	assert_int_equal(
		export_block_update(&t, "wq", "x.patch\n", 0, NULL, &err), 0);
	assert_string_equal(t.ptr, "# kcarry export begin: wq\nx.patch\n"
				   "# kcarry export end: wq\n"
				   "# kcarry export begin: wq2\nq.patch\n"
				   "# kcarry export end: wq2\n");
	buf_release(&t);
	err_release(&err);
}

static void block_without_its_end_is_refused(void **state)
{
	struct buf t = BUF_INIT;
	struct err err = ERR_INIT;

	buf_adds(&t, "# kcarry export begin: wq\nx.patch\nmine.patch\n");
	assert_int_equal(export_block_update(&t, "wq", "y.patch\n", SIZE_MAX,
					     NULL, &err),
			 ERR_PARSE);
	assert_string_equal(err.msg.ptr, "kcarry's block 'wq' has a start but "
					 "no end ('# kcarry export end: wq')");
	assert_string_equal(t.ptr,
			    "# kcarry export begin: wq\nx.patch\nmine.patch\n");
	buf_release(&t);
	err_release(&err);
}

/* ---- reading the branch: a repository per group ------------------------- */

#define GIT "git -c init.defaultBranch=main -c core.autocrlf=false "

struct repo_fx {
	char *dir;
	struct tree_repo *repo;
};

static const char *tmpdir(void)
{
	const char *tmp = getenv("TMPDIR");

	return tmp && *tmp ? tmp : "/tmp";
}

/*
 * one: fs/btrfs/{a,b}.c, fs/ext4/e.c, Makefile (tag v6.11); two: a.c
 * changed, b.c made executable, fs/ext4 gone, fs/new/n.c added (annotated
 * tag v6.12-rc1); three: Makefile changed (v6.12-rc3 and the stable tag
 * v6.12.1); four: Makefile a folder (v6.12).
 */
static int repo_setup(void **state)
{
	static const char script[] =
		GIT "init -q r && cd r && mkdir -p fs/btrfs fs/ext4 && "
		"echo a > fs/btrfs/a.c && echo b > fs/btrfs/b.c && "
		"echo e > fs/ext4/e.c && echo m > Makefile && " GIT "add . && "
		GIT "commit -qm one && " GIT "tag v6.11 && "
		"echo a2 > fs/btrfs/a.c && chmod +x fs/btrfs/b.c && "
		GIT "rm -q -r fs/ext4 && mkdir fs/new && echo n > fs/new/n.c && "
		GIT "add -A && " GIT "commit -qm two && "
		GIT "tag -a -m rc1 v6.12-rc1 && "
		"echo x > Makefile && " GIT "commit -qam three && "
		GIT "tag v6.12-rc3 && " GIT "tag v6.12.1 && "
		"rm Makefile && mkdir Makefile && echo y > Makefile/y && "
		GIT "add -A && " GIT "commit -qm four && " GIT "tag v6.12";
	struct repo_fx *fx = xcalloc(1, sizeof(*fx));
	struct err err = ERR_INIT;
	char *home = xstrfmt("%s/kcarry-test-export-XXXXXX", tmpdir());
	char *path;

	if (!mkdtemp(home))
		return -1;
	fx->dir = home;
	setenv("HOME", home, 1);
	setenv("XDG_CONFIG_HOME", home, 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_AUTHOR_NAME", "A U Thor", 1);
	setenv("GIT_AUTHOR_EMAIL", "author@example.org", 1);
	setenv("GIT_COMMITTER_NAME", "A U Thor", 1);
	setenv("GIT_COMMITTER_EMAIL", "author@example.org", 1);
	if (tree_global_init(&err) < 0 ||
	    unit_run("cd '%s' && %s", home, script) != 0)
		return -1;
	path = fs_join(home, "r");
	if (tree_open(&fx->repo, path, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg.ptr);
		return -1;
	}
	free(path);
	err_release(&err);
	*state = fx;
	return 0;
}

static int repo_teardown(void **state)
{
	struct repo_fx *fx = *state;
	struct err err = ERR_INIT;
	int rc;

	tree_close(fx->repo);
	rc = fs_remove_tree(fx->dir, &err);
	tree_global_shutdown();
	err_release(&err);
	free(fx->dir);
	free(fx);
	return rc;
}

static void changed_between(struct repo_fx *fx, const char *from,
			    const char *to, const char *want)
{
	struct tree_oid a, b;
	struct err err = ERR_INIT;
	struct buf got = BUF_INIT;
	char **paths;
	size_t nr;

	assert_int_equal(tree_resolve(&a, fx->repo, from, &err), 0);
	assert_int_equal(tree_resolve(&b, fx->repo, to, &err), 0);
	assert_int_equal(tree_changed_paths(&paths, &nr, fx->repo, &a, &b,
					    &err),
			 0);
	for (size_t i = 0; i < nr; i++) {
		buf_addf(&got, "%s\n", paths[i]);
		free(paths[i]);
	}
	free(paths);
	assert_string_equal(got.ptr, want);
	buf_release(&got);
	err_release(&err);
}

static void changed_paths_are_the_files_that_differ(void **state)
{
	/* content, mode, a folder gone, a folder new; unchanged ones not */
	changed_between(*state, "v6.11", "v6.12-rc1",
			"fs/btrfs/a.c\nfs/btrfs/b.c\nfs/ext4/e.c\n"
			"fs/new/n.c\n");
	changed_between(*state, "v6.12-rc1", "v6.12-rc3", "Makefile\n");
	changed_between(*state, "v6.12-rc3", "v6.12-rc3", "");
}

static void a_file_that_becomes_a_folder_is_both(void **state)
{
	changed_between(*state, "v6.12-rc3", "v6.12",
			"Makefile\nMakefile/y\n");
}

static void release_is_the_first_mainline_tag_with_the_commit(void **state)
{
	struct repo_fx *fx = *state;
	struct err err = ERR_INIT;
	struct tree_oid c;
	char hex[41], *tag;

	assert_int_equal(tree_resolve(&c, fx->repo, "v6.12-rc1", &err), 0);
	tree_oid_hex(hex, &c);
	assert_int_equal(tree_release_containing(&tag, fx->repo, hex, &err), 0);
	assert_string_equal(tag, "v6.12-rc1"); /* annotated: peeled */
	free(tag);
	assert_int_equal(tree_resolve(&c, fx->repo, "v6.12-rc3", &err), 0);
	tree_oid_hex(hex, &c);
	assert_int_equal(tree_release_containing(&tag, fx->repo, hex, &err), 0);
	assert_string_equal(tag, "v6.12-rc3"); /* not the stable v6.12.1 */
	free(tag);
	assert_int_equal(tree_resolve(&c, fx->repo, "v6.11", &err), 0);
	tree_oid_hex(hex, &c);
	assert_int_equal(tree_release_containing(&tag, fx->repo, hex, &err), 0);
	assert_string_equal(tag, "v6.11");
	free(tag);
	assert_int_equal(tree_release_containing(&tag, fx->repo, UP, &err), 0);
	assert_null(tag); /* a commit the repository does not hold */
	err_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(commit_upstream_line_is_found),
		cmocka_unit_test(bracket_upstream_line_is_found),
		cmocka_unit_test(cherry_pick_line_is_found),
		cmocka_unit_test(upstream_line_wins_over_a_cherry_pick),
		cmocka_unit_test(abbreviated_or_quoted_ids_are_not_upstream),
		cmocka_unit_test(dep3_origin_commit_is_found),
		cmocka_unit_test(kernel_version_comes_from_the_makefile),
		cmocka_unit_test(
			kernel_release_without_sublevel_is_two_numbers),
		cmocka_unit_test(a_makefile_of_something_else_is_no_kernel),
		cmocka_unit_test(slugs_are_lower_case_whole_words),
		cmocka_unit_test_setup_teardown(
			adjustments_name_file_hunk_and_rule, setup, teardown),
		cmocka_unit_test_setup_teardown(exact_hunks_need_no_note, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_resolution_by_hand_is_noted,
						setup, teardown),
		cmocka_unit_test_setup_teardown(long_notes_wrap_at_72_columns,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			rhel_note_is_a_conflicts_paragraph, setup, teardown),
		cmocka_unit_test_setup_teardown(
			rhel_note_continues_the_adapted_notes, setup, teardown),
		cmocka_unit_test_setup_teardown(
			debian_header_holds_only_dep3_fields, setup, teardown),
		cmocka_unit_test_setup_teardown(
			merged_patch_is_a_backport_in_dep3, setup, teardown),
		cmocka_unit_test_setup_teardown(a_mailed_patch_points_at_lore,
						setup, teardown),
		cmocka_unit_test_setup_teardown(mbox_message_is_stable_style,
						setup, teardown),
		cmocka_unit_test_setup_teardown(mbox_upstream_line_in_brackets,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			a_message_with_its_upstream_line_gets_no_second, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			git_message_says_cherry_picked_once, setup, teardown),
		cmocka_unit_test_setup_teardown(
			suse_patch_has_kernel_source_headers, setup, teardown),
		cmocka_unit_test(block_is_added_then_replaced_in_place),
		cmocka_unit_test(a_second_stale_block_is_removed),
		cmocka_unit_test(an_indented_block_is_recognised),
		cmocka_unit_test(options_that_forge_or_misplace_are_refused),
		cmocka_unit_test(blocks_of_other_series_are_left_alone),
		cmocka_unit_test(block_without_its_end_is_refused),
		cmocka_unit_test(changed_paths_are_the_files_that_differ),
		cmocka_unit_test(a_file_that_becomes_a_folder_is_both),
		cmocka_unit_test(
			release_is_the_first_mainline_tag_with_the_commit),
	};

	return cmocka_run_group_tests(tests, repo_setup, repo_teardown);
}
