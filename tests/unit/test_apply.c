/*
 * test_apply: hunk placement on cases cut from fs/btrfs of Linux 6.1 and
 * 6.12 (tests/fixtures/apply/<case>/{orig,patch,expect,...}; see
 * make-fixtures.py there), and a cross-check against GNU patch -F2.
 */
#include "unit.h"

#include <sys/wait.h>

#include "apply.h"
#include "patch.h"
#include "tree.h"

/* A one-file patch read by patch_parse(). */
struct tdiff {
	struct buf raw;
	struct patch p;
	const struct patch_file *f;
};

static void tdiff_parse(struct tdiff *d)
{
	struct patch_parse_opts po = { "test.patch", 1, false };
	struct err err = ERR_INIT;

	patch_init(&d->p);
	if (patch_parse(&d->p, d->raw.ptr, d->raw.len, &po, &err) < 0)
		fail_msg("cannot parse: %s", err.msg.ptr);
	assert_int_equal(d->p.nr_files, 1);
	d->f = &d->p.files[0];
	err_release(&err);
}

static void tdiff_release(struct tdiff *d)
{
	patch_release(&d->p);
	buf_release(&d->raw);
}

/* One fixture directory. */
struct tcase {
	const char *name;
	struct buf orig, expect, blob, patch_text;
	bool has_orig, has_expect, has_blob;
	struct tdiff d;
	int blob_calls;
	int blob_error; /* what the fake loader returns instead of the blob */
};

static bool read_opt(struct buf *out, const char *name, const char *file)
{
	char *rel = xstrfmt("apply/%s/%s", name, file);
	char *path = fs_join(unit_fixtures(), rel);
	bool ok = fs_is_file(path);

	if (ok)
		unit_read_fixture(out, rel);
	free(path);
	free(rel);
	return ok;
}

static void case_load(struct tcase *c, const char *name)
{
	memset(c, 0, sizeof(*c));
	c->name = name;
	buf_init(&c->orig, 0);
	buf_init(&c->expect, 0);
	buf_init(&c->blob, 0);
	buf_init(&c->patch_text, 0);
	buf_init(&c->d.raw, 0);
	if (!read_opt(&c->d.raw, name, "patch"))
		fail_msg("fixture apply/%s has no patch", name);
	buf_add(&c->patch_text, c->d.raw.ptr, c->d.raw.len);
	c->has_orig = read_opt(&c->orig, name, "orig");
	c->has_expect = read_opt(&c->expect, name, "expect");
	c->has_blob = read_opt(&c->blob, name, "blob");
	tdiff_parse(&c->d);
}

static void case_release(struct tcase *c)
{
	buf_release(&c->orig);
	buf_release(&c->expect);
	buf_release(&c->blob);
	buf_release(&c->patch_text);
	tdiff_release(&c->d);
}

/* The fake blob loader: the fixture's blob file when it has one. */
static int fake_load_blob(void *ctx, const char *hex, struct buf *out,
			  struct err *err)
{
	struct tcase *c = ctx;

	c->blob_calls++;
	if (c->blob_error)
		return err_set(err, c->blob_error, "cannot read blob %s", hex);
	if (!c->has_blob)
		return err_set(err, ERR_NOTFOUND, "no blob %s", hex);
	buf_reset(out);
	buf_add(out, c->blob.ptr, c->blob.len);
	return 0;
}

static void run(struct apply_file_result *res, struct tcase *c,
		const struct apply_opts *opts)
{
	struct err err = ERR_INIT;
	struct apply_opts o = opts ? *opts : (struct apply_opts)APPLY_OPTS_INIT;

	o.load_blob = fake_load_blob;
	o.ctx = c;
	apply_file_result_init(res);
	if (apply_file(res, c->d.f, (struct span){ c->orig.ptr, c->orig.len },
		       c->has_orig, &o, &err) < 0)
		fail_msg("%s: %s", c->name, err.msg.ptr);
	err_release(&err);
}

static void assert_out(const struct apply_file_result *res,
		       const struct buf *want)
{
	if (res->out.len != want->len || memcmp(res->out.ptr, want->ptr, want->len)) {
		print_error("--- got ---\n%s--- want ---\n%s", res->out.ptr,
			    want->ptr);
		fail();
	}
}

/* Load case name, apply with opts, compare with expect. */
#define CASE(c, res, name, opts)            \
	struct tcase c;                      \
	struct apply_file_result res;        \
	case_load(&c, name);                 \
	run(&res, &c, opts)

#define DONE(c, res)                         \
	do {                                 \
		apply_file_result_release(&res); \
		case_release(&c);            \
	} while (0)

static void exact_patch_applies_at_stated_lines(void **state)
{
	size_t k;
	CASE(c, res, "exact", NULL);

	assert_int_equal(res.outcome, OUTCOME_CLEAN);
	assert_int_equal(res.nr_hunks, 5);
	for (k = 0; k < res.nr_hunks; k++) {
		assert_int_equal(res.hunks[k].rule, RULE_EXACT);
		assert_int_equal(res.hunks[k].offset, 0);
		assert_false(res.hunks[k].risk);
		assert_null(res.hunks[k].reason);
	}
	assert_int_equal(res.hunks[0].line, 208);
	assert_string_equal(res.hunks[0].func, "run_ordered_work");
	assert_string_equal(res.hunks[0].found_func, "run_ordered_work");
	assert_false(res.risk);
	assert_int_equal(res.rej.len, 0);
	assert_int_equal(c.blob_calls, 0);
	assert_out(&res, &c.expect);
	DONE(c, res);
}

static void offset_3_lines_down_is_found(void **state)
{
	CASE(c, res, "offset-3-down", NULL);

	assert_int_equal(res.outcome, OUTCOME_OFFSET);
	assert_int_equal(res.hunks[0].rule, RULE_OFFSET);
	assert_int_equal(res.hunks[0].offset, 3);
	assert_int_equal(res.hunks[0].line, 208);
	assert_int_equal(res.hunks[0].fuzz, 0);
	assert_false(res.risk);
	assert_out(&res, &c.expect);
	DONE(c, res);
}

static void offset_13_lines_up_is_found(void **state)
{
	CASE(c, res, "offset-13-up", NULL);

	assert_int_equal(res.outcome, OUTCOME_OFFSET);
	assert_int_equal(res.hunks[0].offset, -13);
	assert_int_equal(res.hunks[0].line, 208);
	assert_false(res.risk);
	assert_out(&res, &c.expect);
	DONE(c, res);
}

static void hunks_after_an_applied_hunk_keep_its_offset(void **state)
{
	size_t k;
	CASE(c, res, "already-modify", NULL);

	/* 6.12 has 34 more lines above these hunks than 6.1 */
	for (k = 0; k < res.nr_hunks; k++)
		assert_int_equal(res.hunks[k].offset, 34);
	DONE(c, res);
}

static void nearest_match_wins_without_function_name(void **state)
{
	CASE(c, res, "nearest-without-function", NULL);

	/* the header names no function: nearest first, as GNU patch */
	assert_null(res.hunks[0].func);
	assert_int_equal(res.hunks[0].rule, RULE_OFFSET);
	assert_int_equal(res.hunks[0].offset, 8);
	assert_false(res.risk);
	assert_out(&res, &c.expect);
	DONE(c, res);
}

static void match_inside_named_function_beats_nearer_one(void **state)
{
	CASE(c, res, "named-function-preferred", NULL);

	assert_int_equal(res.hunks[0].rule, RULE_OFFSET);
	assert_int_equal(res.hunks[0].offset, -13);
	assert_string_equal(res.hunks[0].found_func, "btrfs_insert_orphan_item");
	/* GNU patch picks the nearer copy: kcarry says it chose otherwise */
	assert_true(res.hunks[0].risk);
	assert_non_null(strstr(res.hunks[0].reason,
			       "nearer match at line 32 is in btrfs_del_orphan_item()"));
	assert_out(&res, &c.expect);
	DONE(c, res);
}

static void fuzz_1_drops_one_outer_context_line(void **state)
{
	CASE(c, res, "fuzz-1", NULL);

	assert_int_equal(res.outcome, OUTCOME_FUZZY);
	assert_int_equal(res.hunks[0].rule, RULE_FUZZ);
	assert_int_equal(res.hunks[0].fuzz, 1);
	assert_int_equal(res.hunks[0].offset, 0);
	assert_false(res.risk);
	assert_out(&res, &c.expect);
	DONE(c, res);
}

static void fuzz_2_drops_two_outer_context_lines(void **state)
{
	CASE(c, res, "fuzz-2", NULL);

	assert_int_equal(res.hunks[0].rule, RULE_FUZZ);
	assert_int_equal(res.hunks[0].fuzz, 2);
	assert_out(&res, &c.expect);
	DONE(c, res);
}

static void fuzz_beyond_opts_fuzz_is_refused(void **state)
{
	struct apply_opts o = APPLY_OPTS_INIT;

	o.fuzz = 1;
	o.no_3way = true;
	o.no_adapt = true; /* rule 4 would anchor it (test_adapt) */
	CASE(c, res, "fuzz-2", &o);
	assert_int_equal(res.outcome, OUTCOME_CONFLICT);
	assert_int_equal(res.hunks[0].rule, RULE_CONFLICT);
	assert_string_equal(res.hunks[0].reason,
			    "context does not match near line 208");
	assert_true(res.rej.len > 0);
	/* out holds the target with what applied: nothing */
	assert_out(&res, &c.orig);
	DONE(c, res);
}

static void fuzz_beyond_opts_fuzz_goes_to_hunk_3way(void **state)
{
	struct apply_opts o = APPLY_OPTS_INIT;

	o.fuzz = 1;
	CASE(c, res, "fuzz-2", &o);
	assert_int_equal(res.outcome, OUTCOME_3WAY);
	assert_int_equal(res.hunks[0].rule, RULE_3WAY_HUNK);
	assert_int_equal(res.hunks[0].line, 208);
	assert_out(&res, &c.expect);
	DONE(c, res);
}

static void fuzz_match_must_be_unique(void **state)
{
	/*
	 * btrfs_previous_item() and btrfs_previous_extent_item() share their
	 * loop; both lost the first context line: fuzz 1 matches twice.
	 */
	static const char orig[] =
		"int btrfs_previous_item(struct btrfs_root *root)\n"
		"{\n"
		"\twhile (1) {\n"
		"\t\tleaf = path->nodes[0];\n"
		"\t\tnritems = btrfs_header_nritems(path->nodes[0]);\n"
		"\t\tif (nritems == 0)\n"
		"\t\t\treturn 1;\n"
		"\t\tif (path->slots[0] == nritems)\n"
		"\t\t\tpath->slots[0]--;\n"
		"\n"
		"\t\tbtrfs_item_key_to_cpu(leaf, &found_key, path->slots[0]);\n"
		"\t}\n"
		"}\n"
		"\n"
		"int btrfs_previous_extent_item(struct btrfs_root *root)\n"
		"{\n"
		"\twhile (1) {\n"
		"\t\tleaf = path->nodes[0];\n"
		"\t\tnritems = btrfs_header_nritems(path->nodes[0]);\n"
		"\t\tif (nritems == 0)\n"
		"\t\t\treturn 1;\n"
		"\t\tif (path->slots[0] == nritems)\n"
		"\t\t\tpath->slots[0]--;\n"
		"\n"
		"\t\tbtrfs_item_key_to_cpu(leaf, &found_key, path->slots[0]);\n"
		"\t}\n"
		"}\n";
	static const char patch[] =
		"--- a/fs/btrfs/ctree.c\n"
		"+++ b/fs/btrfs/ctree.c\n"
		"@@ -19,8 +19,8 @@\n"
		" \t\tnritems = btrfs_header_nritems(leaf);\n"
		" \t\tif (nritems == 0)\n"
		" \t\t\treturn 1;\n"
		"-\t\tif (path->slots[0] == nritems)\n"
		"-\t\t\tpath->slots[0]--;\n"
		"+\t\tif (path->slots[0] >= nritems)\n"
		"+\t\t\tpath->slots[0] = nritems - 1;\n"
		" \n"
		" \t\tbtrfs_item_key_to_cpu(leaf, &found_key, path->slots[0]);\n"
		" \t}\n";
	struct apply_opts o = APPLY_OPTS_INIT;
	struct apply_file_result res;
	struct tdiff d;
	struct err err = ERR_INIT;

	o.no_3way = true;
	buf_init(&d.raw, 0);
	buf_adds(&d.raw, patch);
	tdiff_parse(&d);
	apply_file_result_init(&res);
	assert_int_equal(apply_file(&res, d.f, span_from(orig), true, &o, &err), 0);
	assert_int_equal(res.hunks[0].rule, RULE_CONFLICT);
	assert_string_equal(res.hunks[0].reason,
			    "context does not match near line 19; "
			    "fuzz 1 matches at lines 19 and 5 alike");
	apply_file_result_release(&res);
	tdiff_release(&d);
}

/* Apply patch text to orig with --no-3way (*res and *d to release). */
static void apply_no_3way(struct apply_file_result *res, struct tdiff *d,
			  const char *orig, const char *patch)
{
	struct apply_opts o = APPLY_OPTS_INIT;
	struct err err = ERR_INIT;

	o.no_3way = true;
	buf_init(&d->raw, 0);
	buf_adds(&d->raw, patch);
	tdiff_parse(d);
	apply_file_result_init(res);
	if (apply_file(res, d->f, span_from(orig), true, &o, &err) < 0)
		fail_msg("apply_file: %s", err.msg.ptr);
	err_release(&err);
}

/*
 * A fuzzed insertion whose dropped context line stands once elsewhere in
 * the file, far from the landing: the lines may belong there, so the
 * placement is a risk.  Both shapes come from Debian's own ports between
 * 5.10 and 6.1 (bench/port-accuracy, 5.10-6.1 set), where fuzz put them
 * elsewhere without a word:
 *  - kbuild-fix-recordmcount-dependency: fuzz 2 dropped the leading
 *    "$(sub_cmd_record_mcount))" and put the block inside the next
 *    ifdef (ifdef CONFIG_STACK_VALIDATION), changing what it does;
 *  - the unprivileged_userns_clone sysctl: fuzz 1 dropped the trailing
 *    '.procname = "tainted",' and put the entry before another one.
 */
static void fuzz_dropped_line_standing_elsewhere_is_a_risk(void **state)
{
	static const char mk[] =
		"cmd_record_mcount = $(if $(findstring x,y),\t\\\n"
		"\t$(sub_cmd_record_mcount))\n"
		"endif # CC_USING_RECORD_MCOUNT\n"
		"endif # CONFIG_FTRACE_MCOUNT_RECORD\n"
		"\n"
		"ifdef CONFIG_STACK_VALIDATION\n"
		"objtool_args = check\n"
		"ifdef CONFIG_SLS\n"
		"  objtool_args += --sls\n"
		"endif\n"
		"\n"
		"# 'OBJECT_FILES_NON_STANDARD := y': skip objtool checking\n"
		"# 'OBJECT_FILES_NON_STANDARD_foo.o := 'y': skip a file\n"
		"# 'OBJECT_FILES_NON_STANDARD_foo.o := 'n': override\n"
		"cmd_objtool = $(__objtool_obj) $(objtool_args) $@\n"
		"endif # CONFIG_STACK_VALIDATION\n";
	static const char mk_patch[] =
		"--- a/scripts/Makefile.build\n"
		"+++ b/scripts/Makefile.build\n"
		"@@ -2,6 +2,11 @@\n"
		" \t$(sub_cmd_record_mcount))\n"
		" endif # CONFIG_FTRACE_MCOUNT_USE_RECORDMCOUNT\n"
		" \n"
		"+# Don't require recordmcount source for an OOT build.\n"
		"+ifdef KBUILD_EXTMOD\n"
		"+recordmcount_source :=\n"
		"+endif\n"
		"+\n"
		" # 'OBJECT_FILES_NON_STANDARD := y': skip objtool checking\n"
		" # 'OBJECT_FILES_NON_STANDARD_foo.o := 'y': skip a file\n"
		" # 'OBJECT_FILES_NON_STANDARD_foo.o := 'n': override\n";
	static const char tbl[] =
		"static struct ctl_table kern_table[] = {\n"
		"\t{\n"
		"\t\t.procname\t= \"sched_child_runs_first\",\n"
		"\t\t.proc_handler\t= proc_dointvec,\n"
		"\t},\n"
		"\t{\n"
		"\t\t.procname\t= \"sched_latency\",\n"
		"\t\t.proc_handler\t= proc_dointvec,\n"
		"\t},\n"
		"#ifdef CONFIG_PROC_SYSCTL\n"
		"\t{\n"
		"\t\t.procname\t= \"tainted\",\n"
		"\t\t.proc_handler\t= proc_taint,\n"
		"\t},\n"
		"#endif\n";
	/* entries enough to keep "tainted" 40 lines and more away */
	static const char tbl_fill[] =
		"\t{\n"
		"\t\t.procname\t= \"other\",\n"
		"\t\t.proc_handler\t= proc_dointvec_minmax,\n"
		"\t},\n";
	static const char tbl_tail[] =
		"#ifdef CONFIG_MAGIC_SYSRQ\n"
		"\t{\n"
		"\t\t.procname\t= \"sysrq\",\n"
		"\t\t.proc_handler\t= sysrq_sysctl_handler,\n"
		"\t},\n"
		"#endif\n"
		"#ifdef CONFIG_PROC_SYSCTL\n"
		"\t{\n"
		"\t\t.procname\t= \"cad_pid\",\n"
		"\t\t.proc_handler\t= proc_do_cad_pid,\n"
		"\t},\n"
		"#endif\n"
		"\t{ }\n"
		"};\n";
	static const char tbl_patch[] =
		"--- a/kernel/sysctl.c\n"
		"+++ b/kernel/sysctl.c\n"
		"@@ -8,6 +8,11 @@ static struct ctl_table kern_table[] = {\n"
		" \t\t.proc_handler\t= proc_dointvec,\n"
		" \t},\n"
		" #endif\n"
		"+#ifdef CONFIG_USER_NS\n"
		"+\t{\n"
		"+\t\t.procname\t= \"unprivileged_userns_clone\",\n"
		"+\t},\n"
		"+#endif\n"
		" #ifdef CONFIG_PROC_SYSCTL\n"
		" \t{\n"
		" \t\t.procname\t= \"tainted\",\n";
	struct buf big = BUF_INIT;
	struct {
		const char *orig, *patch, *why;
	} c[] = {
		{ mk, mk_patch,
		  "the context line \"$(sub_cmd_record_mcount))\" that fuzz 2 "
		  "dropped stands at line 2, apart from the landing: the "
		  "lines may belong there" },
		{ tbl, tbl_patch,
		  "the context line \".procname\t= \"tainted\",\" that fuzz 1 "
		  "dropped stands at line 12, apart from the landing: the "
		  "lines may belong there" },
	};

	(void)state;
	buf_adds(&big, tbl);
	for (int i = 0; i < 12; i++)
		buf_adds(&big, tbl_fill);
	buf_adds(&big, tbl_tail);
	c[1].orig = big.ptr;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct apply_file_result res;
		struct tdiff d;

		apply_no_3way(&res, &d, c[i].orig, c[i].patch);
		assert_int_equal(res.hunks[0].rule, RULE_FUZZ);
		assert_true(res.hunks[0].risk);
		assert_non_null(res.hunks[0].reason);
		if (!strstr(res.hunks[0].reason, c[i].why))
			fail_msg("reason: %s", res.hunks[0].reason);
		apply_file_result_release(&res);
		tdiff_release(&d);
	}
	buf_release(&big);
}

/* The hunk of patch lands on orig with fuzz, a risk or not; with a risk
 * its reason holds what, else the result does. */
static void fuzz_case(const char *orig, const char *patch, bool risk,
		      const char *what)
{
	struct apply_file_result res;
	struct tdiff d;

	apply_no_3way(&res, &d, orig, patch);
	assert_int_equal(res.hunks[0].rule, RULE_FUZZ);
	assert_int_equal(res.hunks[0].risk, risk);
	assert_non_null(strstr(risk ? res.hunks[0].reason : res.out.ptr, what));
	apply_file_result_release(&res);
	tdiff_release(&d);
}

/*
 * A fuzzed insertion whose dropped context stands a few lines away, with
 * the target's new lines between it and the kept context: a risk when
 * what fuzz kept on that side is punctuation or blank (the insertion may
 * belong before the new lines), none when it kept a line that stands
 * once in the file, right beside the insertion (Debian's module_softdep
 * patch from 6.1 to 6.12: MODULE_DESCRIPTION() came between "}" and
 * MODULE_LICENSE("GPL"), and the added MODULE_SOFTDEP() still goes after
 * MODULE_LICENSE; the risk was a false alarm on a right result).
 */
static void fuzz_dropped_context_nearby_needs_an_unanchored_side(void **state)
{
	static const char blank_orig[] =
		"int f(void)\n{\n\tsetup_one();\n\tsetup_two();\n\n"
		"\textra_new();\n\n\tfinish();\n\treturn 0;\n}\n";
	static const char blank_patch[] =
		"--- a/f.c\n+++ b/f.c\n"
		"@@ -3,6 +3,7 @@ int f(void)\n"
		" \tsetup_one();\n \tsetup_two();\n \n"
		"+\tadded();\n"
		" \tfinish();\n \treturn 0;\n }\n";
	static const char mod_orig[] =
		"static void __exit journal_exit(void)\n{\n"
		"\tjbd2_journal_destroy_caches();\n}\n\n"
		"MODULE_DESCRIPTION(\"Generic filesystem journal-writing "
		"module\");\n"
		"MODULE_LICENSE(\"GPL\");\n"
		"module_init(journal_init);\n"
		"module_exit(journal_exit);\n\n"
		"/* end */\n";
	static const char mod_patch[] =
		"--- a/fs/jbd2/journal.c\n+++ b/fs/jbd2/journal.c\n"
		"@@ -4,6 +4,7 @@\n"
		" }\n \n"
		" MODULE_LICENSE(\"GPL\");\n"
		"+MODULE_SOFTDEP(\"pre: crypto-crc32c\");\n"
		" module_init(journal_init);\n"
		" module_exit(journal_exit);\n \n";
	/* RT's "powerpc/kvm: Disable in-kernel MPIC emulation", 6.12 onto
	 * 6.1: HAVE_KVM_IRQFD came between the trailing context's first
	 * select and the others; "select HAVE_KVM_IRQCHIP", kept, stands
	 * twice in the file, the dropped selects once, one line further
	 * down than the hunk has them */
	static const char kvm_orig[] =
		"config KVM_MPIC\n"
		"\tbool \"KVM in-kernel MPIC emulation\"\n"
		"\tdepends on KVM && PPC_E500\n"
		"\tselect HAVE_KVM_IRQCHIP\n"
		"\tselect HAVE_KVM_IRQFD\n"
		"\tselect HAVE_KVM_IRQ_ROUTING\n"
		"\tselect HAVE_KVM_MSI\n"
		"\thelp\n"
		"\t  Enable support for emulating MPIC devices.\n"
		"\n"
		"config KVM_XICS\n"
		"\tbool \"KVM in-kernel XICS emulation\"\n"
		"\tselect HAVE_KVM_IRQCHIP\n";
	static const char kvm_patch[] =
		"--- a/arch/powerpc/kvm/Kconfig\n"
		"+++ b/arch/powerpc/kvm/Kconfig\n"
		"@@ -1,6 +1,7 @@\n"
		" config KVM_MPIC\n"
		" \tbool \"KVM in-kernel MPIC emulation\"\n"
		" \tdepends on KVM && PPC_E500\n"
		"+\tdepends on !PREEMPT_RT\n"
		" \tselect HAVE_KVM_IRQCHIP\n"
		" \tselect HAVE_KVM_IRQ_ROUTING\n"
		" \tselect HAVE_KVM_MSI\n";
	(void)state;
	fuzz_case(blank_orig, blank_patch, true,
		  "dropped stands at line 3, apart from the rest");
	fuzz_case(mod_orig, mod_patch, false,
		  "MODULE_LICENSE(\"GPL\");\nMODULE_SOFTDEP(");
	/* the side is no longer whole over there either: no second place */
	fuzz_case(kvm_orig, kvm_patch, false,
		  "PPC_E500\n\tdepends on !PREEMPT_RT\n"
		  "\tselect HAVE_KVM_IRQCHIP\n");
}

/*
 * A dropped context line that is a bare block keyword ("endchoice",
 * "endif", "#endif", "else") names no place: the one that stands
 * elsewhere closes another block.  Debian's 5.10 perf-restrict Kconfig
 * entry on 6.1, after an "endchoice" of a choice 6.1 lacks: fuzz 2 puts
 * it before "config SECURITY", Debian's own answer, while 6.1's only
 * "endchoice" closes the LSM choice far below.
 */
static void fuzz_dropped_block_keyword_names_no_place(void **state)
{
	static const char orig[] =
		"menu \"Security options\"\n\n"
		"config SECURITY_DMESG_RESTRICT\n"
		"\tbool \"Restrict dmesg\"\n\thelp\n\t  Restrict.\n\n"
		"config SECURITY\n"
		"\tbool \"Enable different security models\"\n"
		"\tdepends on SYSFS\n\n"
		"choice\n\tprompt \"First legacy LSM\"\n\n"
		"endchoice\n\nendmenu\n";
	static const char patch[] =
		"--- a/security/Kconfig\n+++ b/security/Kconfig\n"
		"@@ -51,6 +51,10 @@\n"
		" \n endchoice\n \n"
		"+config SECURITY_PERF\n"
		"+\tbool \"Restrict perf\"\n"
		"+\tdepends on PERF_EVENTS\n"
		"+\n"
		" config SECURITY\n"
		" \tbool \"Enable different security models\"\n"
		" \tdepends on SYSFS\n";

	(void)state;
	fuzz_case(orig, patch, false,
		  "Restrict.\n\nconfig SECURITY_PERF\n");
}

/*
 * The other side of the rule above: Kconfig entries sorted anew put the
 * entry before "config VIDEO_VS6624" elsewhere, and fuzz 2 dropped its
 * help text, which stands once in the file.  The kept "config
 * VIDEO_VS6624" stands once too and anchors the line added after it:
 * right, and no risk (Debian's vs6624-disable.patch, 5.10 <-> 6.1).
 */
static void fuzz_kept_unique_anchor_is_no_risk(void **state)
{
	static const char orig[] =
		"config VIDEO_SR030PC30\n"
		"\thelp\n"
		"\t  This driver supports SR030PC30 VGA camera\n"
		"\n"
		"config VIDEO_VS6624\n"
		"\ttristate \"ST VS6624 sensor support\"\n"
		"\tdepends on VIDEO_DEV && I2C\n"
		"\thelp\n"
		"\n"
		"config VIDEO_OV13858\n"
		"\ttristate \"OmniVision OV13858 sensor support\"\n"
		"\thelp\n"
		"\t  OV13858 camera.\n"
		"\n"
		"config VIDEO_OV13B10\n"
		"\ttristate \"OmniVision OV13B10 sensor support\"\n";
	static const char patch[] =
		"--- a/drivers/media/i2c/Kconfig\n"
		"+++ b/drivers/media/i2c/Kconfig\n"
		"@@ -12,6 +12,7 @@ config VIDEO_OV13858\n"
		" \t  OV13858 camera.\n"
		" \n"
		" config VIDEO_VS6624\n"
		"+\tdepends on BROKEN\n"
		" \ttristate \"ST VS6624 sensor support\"\n"
		" \tdepends on VIDEO_V4L2 && I2C\n"
		" \thelp\n";
	struct apply_file_result res;
	struct tdiff d;

	(void)state;
	apply_no_3way(&res, &d, orig, patch);
	assert_int_equal(res.hunks[0].rule, RULE_FUZZ);
	if (res.hunks[0].risk)
		fail_msg("risk: %s", res.hunks[0].reason);
	assert_non_null(strstr(res.out.ptr, "config VIDEO_VS6624\n"
					   "\tdepends on BROKEN\n"));
	apply_file_result_release(&res);
	tdiff_release(&d);
}

/*
 * Hardening 10: placement was quadratic in the hunk and the file.  A
 * hunk of 3,000 lines of "}" around one change, against a file of 40,000
 * such lines, is placed by the candidate search (KMP over lines) at the
 * nearest place, as GNU patch places it, and the same hunk with one line
 * that matches nowhere goes to the banded 3-way alignment, which finds
 * the region the whole alignment finds.
 *
 * Speed is not timed here (bench/placement-scale times it): the work is
 * counted as pairs of lines compared (apply_comparisons), against the
 * file's n lines and the hunk's m.  Trying every place, then aligning
 * the whole window, compared 129,869,019 and 759,491,165 pairs (3,020
 * and 17,662 times n + m).  The bounds: 32 (n + m) for the searches, and
 * m * m more for the band (64 + m/8 lines either side of a diagonal,
 * m * (m/4 + 129) cells), far below the whole window's m * (7m + 400).
 */
static void long_hunks_of_repeated_lines_place_as_patch_does(void **state)
{
	const size_t n = 40000, m = 3001;
	struct buf orig = BUF_INIT, patch = BUF_INIT, want = BUF_INIT;
	struct apply_opts o = APPLY_OPTS_INIT;
	struct apply_file_result res;
	struct tdiff d = { 0 };
	struct err err = ERR_INIT;
	size_t work;

	for (size_t i = 0; i < n; i++)
		buf_adds(&orig, i == 30000 ? "\tmark();\n" : "\t}\n");
	buf_adds(&patch, "--- a/x.c\n+++ b/x.c\n@@ -28500,3001 +28500,3001 @@\n");
	for (size_t i = 0; i < m; i++)
		buf_adds(&patch, i == 1500 ? "-\tmark();\n+\tmarked();\n"
					   : " \t}\n");
	/* the preimage stands exactly once: at line 28501 (offset +1) */
	buf_init(&d.raw, 0);
	buf_add(&d.raw, patch.ptr, patch.len);
	tdiff_parse(&d);
	apply_file_result_init(&res);
	work = apply_comparisons();
	assert_int_equal(apply_file(&res, d.f, (struct span){ orig.ptr, orig.len },
				    true, &o, &err), 0);
	work = apply_comparisons() - work;
	/* KMP: each search compares at most 2 (n + m) pairs (216,507 in
	 * all here) */
	if (work > 32 * (n + m))
		fail_msg("offset placement compared %zu pairs of lines", work);
	assert_int_equal(res.hunks[0].rule, RULE_OFFSET);
	assert_int_equal(res.hunks[0].line, 28501);
	/* what GNU patch gives: mark() became marked() in place */
	buf_add(&want, orig.ptr, orig.len);
	{
		char *at = strstr(want.ptr, "\tmark();\n");
		size_t off = (size_t)(at - want.ptr);
		buf_truncate(&want, off);
		buf_adds(&want, "\tmarked();\n");
		buf_add(&want, orig.ptr + off + 9, orig.len - off - 9);
	}
	assert_int_equal(res.out.len, want.len);
	assert_memory_equal(res.out.ptr, want.ptr, want.len);
	apply_file_result_release(&res);

	/* one context line differs in the target, 700 lines above the
	 * change: no exact or fuzzy place; 3-way at hunk level, in the band
	 * of the diagonal that the one distinct line (mark) votes for */
	{
		char *at = strstr(orig.ptr, "\tmark();\n") - 700 * 3;
		assert_memory_equal(at, "\t}\n", 3);
		buf_truncate(&want, 0);
		buf_add(&want, orig.ptr, (size_t)(at - orig.ptr));
		buf_adds(&want, "\t}/*x*/\n");
		buf_add(&want, at + 3, orig.len - (size_t)(at + 3 - orig.ptr));
		buf_swap(&want, &orig);
	}
	apply_file_result_init(&res);
	work = apply_comparisons();
	assert_int_equal(apply_file(&res, d.f, (struct span){ orig.ptr, orig.len },
				    true, &o, &err), 0);
	work = apply_comparisons() - work;
	/* the searches, then the band (3,755,819 in all here) */
	if (work > 32 * (n + m) + m * m)
		fail_msg("3-way placement compared %zu pairs of lines", work);
	assert_int_equal(res.hunks[0].rule, RULE_3WAY_HUNK);
	/* the region mark() votes for (1500 lines above line 30001), as
	 * the whole alignment finds it: in a sea of "}" it starts one line
	 * early, which the merge makes no difference to */
	assert_int_equal(res.hunks[0].line, 28500);
	assert_non_null(strstr(res.out.ptr, "\tmarked();\n"));
	assert_non_null(strstr(res.out.ptr, "\t}/*x*/\n"));
	assert_null(strstr(res.out.ptr, "\tmark();\n"));
	apply_file_result_release(&res);
	tdiff_release(&d);
	buf_release(&orig);
	buf_release(&patch);
	buf_release(&want);
	err_release(&err);
}

/*
 * A long hunk of new lines: whether each is already in the target, and
 * (when the hunk conflicts) whether its removed lines are anywhere, is
 * asked of lines sharing its hash, not of every line of the file (each
 * was compared with the whole file: 6,000 added lines in a file of
 * 100,000 took 1.3 s).
 */
static void long_hunks_of_new_lines_cost_linear_work(void **state)
{
	const size_t n = 40000, m = 3000;
	struct buf orig = BUF_INIT, patch = BUF_INIT;
	struct apply_opts o = APPLY_OPTS_INIT;
	struct apply_file_result res;
	struct tdiff d = { 0 };
	struct err err = ERR_INIT;
	size_t work;

	for (size_t i = 0; i < n; i++)
		buf_addf(&orig, "\tline_%zu();\n", i);
	buf_adds(&patch, "--- a/x.c\n+++ b/x.c\n");
	buf_addf(&patch, "@@ -30001,6 +30001,%zu @@\n", m + 6);
	for (size_t i = 30000; i < 30003; i++)
		buf_addf(&patch, " \tline_%zu();\n", i);
	for (size_t i = 0; i < m; i++)
		buf_addf(&patch, "+\tadded_%zu(x, y);\n", i);
	for (size_t i = 30003; i < 30006; i++)
		buf_addf(&patch, " \tline_%zu();\n", i);
	/* and one whose m removed lines the file lacks */
	buf_addf(&patch, "@@ -35001,%zu +35001,4 @@\n", m + 3);
	buf_adds(&patch, " \tline_35000();\n");
	for (size_t i = 0; i < m; i++)
		buf_addf(&patch, "-\tgone_%zu();\n", i);
	buf_adds(&patch, "+\tinstead();\n \tline_35001();\n \tline_35002();\n");
	buf_init(&d.raw, 0);
	buf_add(&d.raw, patch.ptr, patch.len);
	tdiff_parse(&d);
	apply_file_result_init(&res);
	work = apply_comparisons();
	assert_int_equal(apply_file(&res, d.f, (struct span){ orig.ptr, orig.len },
				    true, &o, &err), 0);
	work = apply_comparisons() - work;
	/* the searches and the conflict's banded alignment (3,023,656 in
	 * all here); asking the whole file for each line was m * n */
	if (work > 32 * (n + m) + m * m)
		fail_msg("placing the hunks compared %zu pairs of lines", work);
	assert_int_equal(res.hunks[0].rule, RULE_EXACT);
	assert_int_equal(res.hunks[1].rule, RULE_CONFLICT);
	assert_non_null(strstr(res.hunks[1].reason, "removed lines not found"));
	apply_file_result_release(&res);
	tdiff_release(&d);
	buf_release(&orig);
	buf_release(&patch);
	err_release(&err);
}

static void section_cut_short_by_diff_p_is_a_prefix(void **state)
{
	/* security/lockdown/lockdown.c of 6.12 and the hunk of Debian's
	 * "efi: Lock down the kernel if booted in secure boot mode", whose
	 * section GNU diff -p cut at 40 bytes */
	static const char orig[] =
		"static enum lockdown_reason kernel_locked_down;\n"
		"\n"
		"static const enum lockdown_reason lockdown_levels[] = {LOCKDOWN_NONE,\n"
		"\t\t\t\t\t\t LOCKDOWN_INTEGRITY_MAX,\n"
		"\t\t\t\t\t\t LOCKDOWN_CONFIDENTIALITY_MAX};\n"
		"\n"
		"/*\n"
		" * Put the kernel into lock-down mode.\n"
		" */\n"
		"static int lock_kernel_down(const char *where, enum lockdown_reason level)\n"
		"{\n"
		"\tif (kernel_locked_down >= level)\n"
		"\t\treturn -EPERM;\n";
	static const char patch[] =
		"--- a/security/lockdown/lockdown.c\n"
		"+++ b/security/lockdown/lockdown.c\n"
		"@@ -24,7 +24,7 @@ static const enum lockdown_reason lockdo\n"
		" /*\n"
		"  * Put the kernel into lock-down mode.\n"
		"  */\n"
		"-static int lock_kernel_down(const char *where, "
		"enum lockdown_reason level)\n"
		"+int lock_kernel_down(const char *where, enum lockdown_reason level)\n"
		" {\n"
		" \tif (kernel_locked_down >= level)\n"
		" \t\treturn -EPERM;\n";
	struct apply_file_result res;
	struct tdiff d;
	struct err err = ERR_INIT;

	buf_init(&d.raw, 0);
	buf_adds(&d.raw, patch);
	tdiff_parse(&d);
	apply_file_result_init(&res);
	assert_int_equal(apply_file(&res, d.f, span_from(orig), true, NULL, &err), 0);
	assert_int_equal(res.hunks[0].rule, RULE_OFFSET);
	assert_int_equal(res.hunks[0].offset, -17);
	assert_string_equal(res.hunks[0].func, "lockdo");
	assert_string_equal(res.hunks[0].found_func, "lockdown_levels");
	assert_false(res.risk);
	apply_file_result_release(&res);
	tdiff_release(&d);
}

static void hunk_showing_its_own_entry_needs_no_section(void **state)
{
	/* 6.12 sorted drivers/media/usb/dvb-usb/Kconfig: DVB_USB_AF9005 now
	 * follows DVB_USB_A800, not DVB_USB_OPERA1 as the section of
	 * Debian's dfsg hunk says; the hunk shows "config DVB_USB_AF9005"
	 * itself, and that is what places it */
	static const char orig[] =
		"config DVB_USB_A800\n"
		"\ttristate \"AVerMedia AverTV DVB-T USB 2.0 (A800)\"\n"
		"\tdepends on DVB_USB\n"
		"\thelp\n"
		"\t  Say Y here to support the AVerMedia AverTV DVB-T USB 2.0 "
		"(A800) receiver.\n"
		"\n"
		"config DVB_USB_AF9005\n"
		"\ttristate \"Afatech AF9005 DVB-T USB1.1 support\"\n"
		"\tdepends on DVB_USB\n"
		"\tselect MEDIA_TUNER_MT2060 if MEDIA_SUBDRV_AUTOSELECT\n"
		"\tselect MEDIA_TUNER_QT1010 if MEDIA_SUBDRV_AUTOSELECT\n"
		"\thelp\n"
		"\n"
		"config DVB_USB_OPERA1\n"
		"\ttristate \"Opera1 DVB-S USB2.0 receiver\"\n"
		"\tdepends on DVB_USB\n";
	static const char patch[] =
		"--- a/drivers/media/usb/dvb-usb/Kconfig\n"
		"+++ b/drivers/media/usb/dvb-usb/Kconfig\n"
		"@@ -227,6 +227,7 @@ config DVB_USB_OPERA1\n"
		" \n"
		" config DVB_USB_AF9005\n"
		" \ttristate \"Afatech AF9005 DVB-T USB1.1 support\"\n"
		"+\tdepends on BROKEN\n"
		" \tdepends on DVB_USB\n"
		" \tselect MEDIA_TUNER_MT2060 if MEDIA_SUBDRV_AUTOSELECT\n"
		" \tselect MEDIA_TUNER_QT1010 if MEDIA_SUBDRV_AUTOSELECT\n";
	struct apply_file_result res;
	struct tdiff d;
	struct err err = ERR_INIT;

	buf_init(&d.raw, 0);
	buf_adds(&d.raw, patch);
	tdiff_parse(&d);
	apply_file_result_init(&res);
	assert_int_equal(apply_file(&res, d.f, span_from(orig), true, NULL, &err), 0);
	assert_int_equal(res.hunks[0].rule, RULE_OFFSET);
	assert_string_equal(res.hunks[0].func, "DVB_USB_OPERA1");
	assert_false(res.risk);
	assert_non_null(strstr(res.out.ptr, "support\"\n\tdepends on BROKEN\n"));
	apply_file_result_release(&res);
	tdiff_release(&d);
}

static void already_applied_addition_is_recognised(void **state)
{
	CASE(c, res, "already-add", NULL);

	assert_int_equal(res.outcome, OUTCOME_ALREADY);
	assert_int_equal(res.hunks[0].rule, RULE_ALREADY);
	assert_false(res.risk);
	assert_int_equal(res.rej.len, 0);
	assert_out(&res, &c.orig);
	DONE(c, res);
}

static void already_applied_deletion_is_recognised(void **state)
{
	CASE(c, res, "already-delete", NULL);

	assert_int_equal(res.outcome, OUTCOME_ALREADY);
	assert_int_equal(res.hunks[0].rule, RULE_ALREADY);
	assert_false(res.risk);
	assert_out(&res, &c.orig);
	DONE(c, res);
}

static void already_applied_modification_is_recognised(void **state)
{
	size_t k;
	CASE(c, res, "already-modify", NULL);

	assert_int_equal(res.outcome, OUTCOME_ALREADY);
	for (k = 0; k < res.nr_hunks; k++)
		assert_int_equal(res.hunks[k].rule, RULE_ALREADY);
	assert_false(res.risk);
	assert_out(&res, &c.orig);
	DONE(c, res);
}

static void partially_applied_patch_names_its_hunks(void **state)
{
	CASE(c, res, "partial", NULL);

	assert_int_equal(res.outcome, OUTCOME_PARTIAL);
	assert_int_equal(res.hunks[0].rule, RULE_ALREADY);
	assert_int_equal(res.hunks[1].rule, RULE_CONFLICT);
	assert_non_null(res.hunks[1].reason);
	/* only the conflicting hunk goes to the .rej */
	assert_null(strstr(res.rej.ptr, "@@ -208,7"));
	assert_non_null(strstr(res.rej.ptr, "@@ -295,11 +295,10 @@ "));
	assert_out(&res, &c.orig);
	DONE(c, res);
}

static void conflict_writes_rej(void **state)
{
	struct buf rej = BUF_INIT;
	CASE(c, res, "conflict-rej", NULL);

	unit_read_fixture(&rej, "apply/conflict-rej/rej");
	assert_int_equal(res.outcome, OUTCOME_CONFLICT);
	assert_int_equal(res.hunks[0].rule, RULE_CONFLICT);
	assert_string_equal(res.hunks[0].reason,
			    "context does not match near line 135");
	assert_string_equal(res.hunks[0].func, "btrfs_alloc_ordered_workqueue");
	assert_string_equal(res.rej.ptr, rej.ptr);
	assert_out(&res, &c.expect);
	buf_release(&rej);
	DONE(c, res);
}

static void removed_lines_missing_are_named(void **state)
{
	static const char patch[] =
		"--- a/fs/btrfs/async-thread.c\n"
		"+++ b/fs/btrfs/async-thread.c\n"
		"@@ -2,3 +2,2 @@ void btrfs_init_work(struct btrfs_work *work)\n"
		" \twork->func = func;\n"
		"-\twork->ordered_free = ordered_free;\n"
		" \twork->flags = 0;\n";
	static const char orig[] = "void btrfs_init_work(struct btrfs_work *work)\n"
				   "{\n\twork->func = func;\n"
				   "\tINIT_WORK(&work->normal_work, helper);\n"
				   "\twork->flags = 0;\n}\n";
	struct apply_file_result res;
	struct tdiff d;
	struct err err = ERR_INIT;

	buf_init(&d.raw, 0);
	buf_adds(&d.raw, patch);
	tdiff_parse(&d);
	apply_file_result_init(&res);
	assert_int_equal(apply_file(&res, d.f, span_from(orig), true, NULL, &err), 0);
	assert_int_equal(res.outcome, OUTCOME_CONFLICT);
	assert_string_equal(res.hunks[0].reason,
			    "removed lines not found near line 2; "
			    "3-way merge with the hunk conflicts at lines 3-5");
	apply_file_result_release(&res);
	tdiff_release(&d);
}

static void added_lines_already_there_are_not_added_twice(void **state)
{
	CASE(c, res, "already-present-drifted", NULL);

	/* GNU patch adds the struct member again with fuzz 2 */
	assert_int_equal(res.outcome, OUTCOME_ALREADY);
	assert_int_equal(res.hunks[0].rule, RULE_ALREADY);
	assert_true(res.hunks[0].risk);
	assert_string_equal(res.hunks[0].reason,
			    "the added lines are already present at line 22; "
			    "fuzz 2 would add them again at line 29");
	assert_out(&res, &c.orig);
	DONE(c, res);
}

/* Debian's 6.1 ODROID-M1 thermal patch on 6.12, where upstream has the
 * same &tsadc block: the preimage matches exactly right after it, and GNU
 * patch adds the block a second time. */
static void added_block_beside_an_exact_match_is_already_applied(void **state)
{
	CASE(c, res, "already-block-beside-exact", NULL);

	assert_int_equal(res.outcome, OUTCOME_ALREADY);
	assert_int_equal(res.hunks[0].rule, RULE_ALREADY);
	assert_true(res.hunks[0].risk);
	assert_non_null(strstr(res.hunks[0].reason,
			       "the added lines are already present at line 26"));
	assert_out(&res, &c.orig);
	DONE(c, res);
}

/* The hunk of patch on orig (no 3-way): already applied, a risk or not;
 * the reason holds what (NULL: none). */
static void already_case(const char *orig, const char *patch, bool risk,
			 const char *what)
{
	struct apply_file_result res;
	struct tdiff d;

	apply_no_3way(&res, &d, orig, patch);
	if (res.hunks[0].rule != RULE_ALREADY)
		fail_msg("rule %s: %s", apply_rule_name(res.hunks[0].rule),
			 res.hunks[0].reason);
	if (res.hunks[0].risk != risk)
		fail_msg("risk %d: %s", res.hunks[0].risk, res.hunks[0].reason);
	if (what && !strstr(res.hunks[0].reason, what))
		fail_msg("reason: %s", res.hunks[0].reason);
	assert_int_equal(res.out.len, strlen(orig));
	assert_memory_equal(res.out.ptr, orig, res.out.len);
	apply_file_result_release(&res);
	tdiff_release(&d);
}

/* Hunk n of patch on orig (no 3-way), case what: rule, and a risk or
 * not as risk says. */
static void judged_case(const char *what, const char *orig, const char *patch,
			size_t n, enum apply_rule rule, bool risk)
{
	struct apply_file_result res;
	struct tdiff d;

	apply_no_3way(&res, &d, orig, patch);
	if (res.hunks[n].rule != rule || res.hunks[n].risk != risk)
		fail_msg("%s, hunk %zu: %s%s: %s", what, n + 1,
			 apply_rule_name(res.hunks[n].rule),
			 res.hunks[n].risk ? ", a risk" : "",
			 res.hunks[n].reason);
	apply_file_result_release(&res);
	tdiff_release(&d);
}

/* The hunk of patch on orig (no 3-way): placed by rule, no risk, the
 * result want. */
static void placed_case(const char *orig, const char *patch,
			enum apply_rule rule, const char *want)
{
	struct apply_file_result res;
	struct tdiff d;

	apply_no_3way(&res, &d, orig, patch);
	if (res.hunks[0].rule != rule || res.hunks[0].risk)
		fail_msg("%s%s: %s", apply_rule_name(res.hunks[0].rule),
			 res.hunks[0].risk ? ", a risk" : "",
			 res.hunks[0].reason);
	assert_int_equal(res.out.len, strlen(want));
	assert_memory_equal(res.out.ptr, want, res.out.len);
	apply_file_result_release(&res);
	tdiff_release(&d);
}

/*
 * A hunk that adds a sibling ending as its leading context does (a
 * regulator node after another, both ending "vin-supply ...; };"): where
 * the postimage stands with fuzz, the preimage matches with the same fuzz
 * inside it, at the added lines' own tail.  That match is the added
 * lines' echo, not a second place: taking it would add a line that
 * stands once in the file a second time, inside its own copy.  Already
 * applied, no risk (Debian's 6.1 ODROID-M1 and SOQuartz dts patches on
 * 6.12, upstream there: 10 risks on right results).  A preimage match
 * apart from the postimage, or added lines of which none stands once,
 * stay a risk.
 */
static void preimage_echoed_by_the_added_lines_is_no_second_place(void **state)
{
	static const char patch[] =
		"--- a/b.dts\n+++ b/b.dts\n"
		"@@ -4,6 +4,12 @@ / {\n"
		" \t\tmax = <5>;\n \t\tvin = <&sys>;\n \t};\n"
		"+\n+\tb_reg {\n+\t\tname = \"b\";\n"
		"+\t\tmax = <5>;\n+\t\tvin = <&sys>;\n+\t};\n"
		" };\n \n &cpu0 {\n";
#define REGS(b) "/ {\n\ta_reg {\n\t\tname = \"a\";\n" \
	"\t\tmax = <5>;\n\t\tvin = <&sys>;\n\t};\n\n" \
	"\tb_reg {\n\t\tname = \"" b "\";\n" \
	"\t\tmax = <5>;\n\t\tvin = <&sys>;\n\t};\n};\n\n"
	static const char echo[] =
		REGS("b") "&combphy {\n\tstatus = \"okay\";\n};\n\n&cpu0 {\n};\n";
	/* b_reg stands twice: nothing added stands once */
	static const char twice[] =
		REGS("b") "&combphy {\n\tstatus = \"okay\";\n};\n\n"
		"&other {\n\tb_reg {\n\t\tname = \"b\";\n\t};\n};\n\n"
		"&cpu0 {\n};\n";
	/* the preimage's match apart from where the postimage stands */
	static const char apart[] =
		REGS("b") "&combphy {\n\tstatus = \"okay\";\n};\n\n"
		"&c_reg {\n\t\tvin = <&sys>;\n\t};\n};\n\n&cpu0 {\n};\n";
#undef REGS
	/* the nearer preimage taken, the added lines found beside it: the
	 * same echo (ODROID-M1's &i2s0_8ch, where 6.12 has pinctrl lines
	 * after &i2s1_8ch) */
	static const char node_patch[] =
		"--- a/m.dts\n+++ b/m.dts\n"
		"@@ -9,6 +9,10 @@ &foo {\n"
		" \t};\n };\n \n"
		"+&i2s0 {\n+\tstatus = \"okay\";\n+};\n+\n"
		" &i2s1 {\n \tsync;\n \tstatus = \"okay\";\n";
#define NODES(x) "&foo {\n\tstatus = \"okay\";\n\tbar {\n\t\tx;\n" \
	"\t};\n};\n\n&i2s0 {\n\tstatus = \"okay\";\n};\n\n" \
	"&i2s1 {\n\tpinctrl = <1>;\n\tsync;\n\tstatus = \"okay\";\n};\n" x
	static const char node_echo[] = NODES("");
	static const char node_twice[] =
		NODES("\n&i2s0 {\n\tstatus = \"okay\";\n};\n");
#undef NODES
	(void)state;
	already_case(echo, patch, false, NULL);
	already_case(node_echo, node_patch, false, NULL);
	fuzz_case(node_twice, node_patch, true,
		  "the postimage is already present at line 5");
	already_case(twice, patch, true, "the preimage also matches at line 10");
	already_case(apart, patch, true, "the preimage also matches at line 19");
}

/*
 * The same echo where the patch adds its block twice (a header's two
 * #ifdef branches: io-mapping's io_mapping_map_local_wc() in RT's 5.10
 * patch, upstream in 6.1): the added lines stand twice, once per copy the
 * patch adds, so every copy there is the patch's own.  A line standing
 * more often than the patch adds it proves nothing (the single-hunk
 * "twice" case above).
 */
static void echo_of_a_block_the_patch_adds_twice_is_no_risk(void **state)
{
	/* each branch: a node, then the b node the patch adds (its "max"
	 * differs per branch, its first two lines do not) */
#define HUNK(at, max, vin, bmax, tail) "@@ -" at " @@\n" \
	" \t\tmax = <" max ">;\n \t\tvin = <" vin ">;\n \t};\n" \
	"+\n+\tb_reg {\n+\t\tname = \"b\";\n" \
	"+\t\tmax = <" bmax ">;\n+\t\tvin = <" vin ">;\n+\t};\n" \
	" };\n \n " tail "\n"
#define NODE(head, first, max, vin, bmax, tail) head "\n\t" first "_reg {\n" \
	"\t\tname = \"" first "\";\n\t\tmax = <" max ">;\n" \
	"\t\tvin = <" vin ">;\n\t};\n\n\tb_reg {\n\t\tname = \"b\";\n" \
	"\t\tmax = <" bmax ">;\n\t\tvin = <" vin ">;\n\t};\n};\n\n" \
	"&x_" first " {\n};\n\n" tail " {\n};\n\n"
	static const char patch[] =
		"--- a/b.dts\n+++ b/b.dts\n"
		HUNK("4,6 +4,12", "5", "&sys", "5", "&cpu0 {")
		HUNK("18,6 +24,12", "6", "&alt", "7", "&gpu {");
	static const char orig[] =
		NODE("/ {", "a", "5", "&sys", "5", "&cpu0")
		NODE("&alt {", "c", "6", "&alt", "7", "&gpu");
#undef HUNK
#undef NODE
	struct apply_file_result res;
	struct tdiff d;

	(void)state;
	apply_no_3way(&res, &d, orig, patch);
	for (size_t k = 0; k < 2; k++) {
		if (res.hunks[k].rule != RULE_ALREADY)
			fail_msg("hunk %zu: %s: %s", k + 1,
				 apply_rule_name(res.hunks[k].rule),
				 res.hunks[k].reason);
		if (res.hunks[k].risk)
			fail_msg("hunk %zu: %s", k + 1, res.hunks[k].reason);
	}
	apply_file_result_release(&res);
	tdiff_release(&d);
}

/*
 * A patch that moves a node (Debian's rk356x spdif ordering fix, upstream
 * in 6.12): where the move is done, the node stands once, at its new
 * place, and the preimage of the adding hunk matches at the node's own
 * tail.  The echo, no risk.  Where the node still stands at its old place
 * too, it stands twice for one the patch adds: a risk.
 */
static void echo_of_a_moved_block_is_no_risk(void **state)
{
#define NODE(n) "\t" n ": " n "@" n " {\n\t\treg = <" n ">;\n" \
	"\t\tstatus = \"disabled\";\n\t};\n\n"
#define TAIL " \t\tstatus = \"disabled\";\n \t};\n \n"
#define MOVED "\tb: b@2 {\n" "\t\treg = <2>;\n" \
	"\t\tstatus = \"disabled\";\n" "\t};\n" "\n"
	static const char patch[] =
		"--- a/m.dtsi\n+++ b/m.dtsi\n"
		"@@ -4,11 +4,6 @@\n" TAIL
		"-\tb: b@2 {\n-\t\treg = <2>;\n-\t\tstatus = \"disabled\";\n"
		"-\t};\n-\n"
		" \tc: c@c {\n \t\treg = <c>;\n \t\tstatus = \"disabled\";\n"
		"@@ -14,6 +9,11 @@\n" TAIL
		"+\tb: b@2 {\n+\t\treg = <2>;\n+\t\tstatus = \"disabled\";\n"
		"+\t};\n+\n"
		" \td: d@4 {\n \t\treg = <4>;\n \t};\n";
	static const char moved[] = "/ {\n" NODE("a") NODE("c") MOVED
		"\td: d@4 {\n\t\treg = <4>;\n\t};\n};\n";
	static const char both[] = "/ {\n" NODE("a") MOVED NODE("c") MOVED
		"\td: d@4 {\n\t\treg = <4>;\n\t};\n};\n";
#undef NODE
#undef TAIL
#undef MOVED
	struct apply_file_result res;
	struct tdiff d;

	(void)state;
	apply_no_3way(&res, &d, moved, patch);
	for (size_t k = 0; k < 2; k++)
		if (res.hunks[k].rule != RULE_ALREADY || res.hunks[k].risk)
			fail_msg("hunk %zu: %s%s: %s", k + 1,
				 apply_rule_name(res.hunks[k].rule),
				 res.hunks[k].risk ? ", a risk" : "",
				 res.hunks[k].reason);
	apply_file_result_release(&res);
	tdiff_release(&d);

	apply_no_3way(&res, &d, both, patch);
	assert_int_equal(res.hunks[1].rule, RULE_ALREADY);
	assert_true(res.hunks[1].risk);
	apply_file_result_release(&res);
	tdiff_release(&d);
}

/*
 * A whole postimage that adds a line found once in the file is the change
 * itself: a preimage that matches only with more fuzz elsewhere is where
 * GNU patch would add that line a second time, not a second reading
 * (Debian's 6.1 ODROID-M1 IR receiver patch on 6.12: the preimage of its
 * first hunk matched with fuzz 2 at the second's place).  When the added
 * line stands twice, the postimage proves less: still a risk.
 */
static void whole_postimage_adding_a_line_found_once_is_no_risk(void **state)
{
	static const char patch[] =
		"--- a/d.c\n+++ b/d.c\n"
		"@@ -2,6 +2,7 @@ int eps(struct d *d)\n"
		" {\n \tint ret;\n \n"
		"+\tcheck_eps(d);\n"
		" \tret = one(d);\n \tif (ret)\n \t\tgoto out;\n";
#define EPS(brace) "int eps(struct d *d)\n" brace "\n\tint ret;\n\n" \
	"\tcheck_eps(d);\n\tret = one(d);\n\tif (ret)\n\t\tgoto out;\nout:\n" \
	"\treturn ret;\n}\n\nint zeta(struct d *d)\n{\n\tint ret;\n" \
	"\tlong x;\n\n\tret = one(d);\n\tif (ret)\n\t\treturn 0;\n"
	static const char once[] = EPS("{") "\treturn ret;\n}\n";
	/* the postimage itself with fuzz 1 (the target's "{" has a
	 * comment): the fuzzier preimage is still weaker */
	static const char fuzzy[] = EPS("{ /* eps */") "\treturn ret;\n}\n";
	static const char twice[] = EPS("{") "\tcheck_eps(d);\n\treturn ret;\n}\n";
#undef EPS
	(void)state;
	already_case(once, patch, false, NULL);
	already_case(fuzzy, patch, false, NULL);
	already_case(twice, patch, true,
		     "the preimage also matches with fuzz 2 at line 15");
}

/* "btrfs: reject encoded write if inode has nodatasum flag set" is in
 * 6.12 with its final comment; an earlier posting with another comment
 * matches exactly 80 lines down, right below the check, and GNU patch
 * adds the check a second time. */
static void present_with_other_comment_at_offset_is_not_added_twice(void **state)
{
	CASE(c, res, "present-other-comment-offset", NULL);

	assert_int_equal(res.outcome, OUTCOME_ALREADY);
	assert_int_equal(res.hunks[0].rule, RULE_ALREADY);
	assert_true(res.hunks[0].risk);
	assert_int_equal(res.hunks[0].offset, 80);
	assert_string_equal(res.hunks[0].reason,
			    "the added lines already stand at line 221, "
			    "but for comments or whitespace; the context match "
			    "would add them again at line 226");
	assert_out(&res, &c.orig);
	DONE(c, res);
}

/* The same posting checking where upstream does: fuzz 1 would add it. */
static void present_with_other_comment_at_fuzz_is_not_added_twice(void **state)
{
	CASE(c, res, "present-other-comment-fuzz", NULL);

	assert_int_equal(res.outcome, OUTCOME_ALREADY);
	assert_int_equal(res.hunks[0].rule, RULE_ALREADY);
	assert_true(res.hunks[0].risk);
	assert_non_null(strstr(res.hunks[0].reason,
			       "the added lines already stand at line 221, "
			       "but for comments or whitespace; fuzz 1 would "
			       "add them again"));
	assert_out(&res, &c.orig);
	DONE(c, res);
}

/* Upstream's bdev_file fix on a 6.12 whose line has a comment of its own:
 * the line splits the hunk's context, nothing places the preimage and the
 * merge conflicts; the whole result stands there but for the comment. */
static void present_with_other_comment_inside_context_is_there(void **state)
{
	CASE(c, res, "present-other-comment-inside", NULL);

	assert_int_equal(res.outcome, OUTCOME_ALREADY);
	assert_int_equal(res.hunks[0].rule, RULE_ALREADY);
	assert_true(res.hunks[0].risk);
	assert_int_equal(res.hunks[0].line, 20);
	assert_string_equal(res.hunks[0].reason,
			    "the hunk's result already stands at lines 20-26, "
			    "but for comments or whitespace");
	assert_out(&res, &c.orig);
	DONE(c, res);
}

/* A hunk that changes only a comment is not "there" where the code is. */
static void comment_only_change_is_not_present_in_edited_form(void **state)
{
	static const char orig[] = "int f(void)\n"
				   "{\n"
				   "\tint a = 1; /* one */\n"
				   "\tint b = 2;\n"
				   "\treturn a + b;\n"
				   "}\n";
	static const char patch[] = "--- a/f.c\n"
				    "+++ b/f.c\n"
				    "@@ -1,6 +1,6 @@\n"
				    " int f(void)\n"
				    " {\n"
				    "-\tint a = 1; /* the first */\n"
				    "+\tint a = 1; /* the one */\n"
				    " \tint b = 2;\n"
				    " \treturn a + b;\n"
				    " }\n";
	struct apply_opts o = APPLY_OPTS_INIT;
	struct apply_file_result res;
	struct tdiff d;
	struct err err = ERR_INIT;

	buf_init(&d.raw, 0);
	buf_adds(&d.raw, patch);
	tdiff_parse(&d);
	apply_file_result_init(&res);
	assert_int_equal(apply_file(&res, d.f, span_from(orig), true, &o, &err), 0);
	assert_int_equal(res.hunks[0].rule, RULE_CONFLICT);
	apply_file_result_release(&res);
	tdiff_release(&d);
}

/* Debian's af_802154 patch (6.1) on 6.12: it comments a line out, so its
 * result holds no added code; the code of the lines around it standing
 * there (MODULE_DESCRIPTION between them) says nothing. */
static void commented_out_line_is_not_present_in_edited_form(void **state)
{
	static const char orig[] = "module_init(af_ieee802154_init);\n"
				   "module_exit(af_ieee802154_remove);\n"
				   "\n"
				   "MODULE_LICENSE(\"GPL\");\n"
				   "MODULE_DESCRIPTION(\"IEEE 802.15.4 socket "
				   "interface\");\n"
				   "MODULE_ALIAS_NETPROTO(PF_IEEE802154);\n";
	static const char patch[] =
		"--- a/net/ieee802154/socket.c\n"
		"+++ b/net/ieee802154/socket.c\n"
		"@@ -2,4 +2,4 @@ module_init(af_ieee802154_init);\n"
		" module_exit(af_ieee802154_remove);\n"
		" \n"
		" MODULE_LICENSE(\"GPL\");\n"
		"-MODULE_ALIAS_NETPROTO(PF_IEEE802154);\n"
		"+/* MODULE_ALIAS_NETPROTO(PF_IEEE802154); */\n";
	struct apply_opts o = APPLY_OPTS_INIT;
	struct apply_file_result res;
	struct tdiff d;
	struct err err = ERR_INIT;

	buf_init(&d.raw, 0);
	buf_adds(&d.raw, patch);
	tdiff_parse(&d);
	apply_file_result_init(&res);
	assert_int_equal(apply_file(&res, d.f, span_from(orig), true, &o, &err), 0);
	/* not already applied; the line it comments out stands once, so
	 * rule 4 (drifted context) proposes it, never as clean */
	assert_int_equal(res.hunks[0].rule, RULE_ADAPTED);
	assert_int_equal(res.outcome, OUTCOME_ADAPTED);
	apply_file_result_release(&res);
	tdiff_release(&d);
}

/* Debian's 6.1 yama patch on 6.12: the context line after the change
 * differs (security_add_hooks takes &yama_lsmid), so neither fuzz 2 nor
 * the hunk merge can place it; the removed line is unique and unchanged. */
static void removed_lines_found_when_their_context_drifted(void **state)
{
	CASE(c, res, "removed-lines-context-drifted", NULL);

	assert_int_equal(res.outcome, OUTCOME_3WAY);
	assert_int_equal(res.hunks[0].rule, RULE_3WAY_HUNK);
	assert_false(res.hunks[0].risk);
	assert_non_null(strstr(res.hunks[0].reason,
			       "the removed lines stand unchanged at line 15"));
	assert_out(&res, &c.expect);
	DONE(c, res);
}

static void applied_hunk_with_drifted_context_is_not_applied_twice(void **state)
{
	CASE(c, res, "already-applied-drifted", NULL);

	assert_int_equal(res.outcome, OUTCOME_ALREADY);
	assert_int_equal(res.hunks[0].rule, RULE_ALREADY);
	assert_false(res.hunks[0].risk);
	assert_int_equal(res.hunks[1].rule, RULE_ALREADY);
	assert_true(res.hunks[1].risk);
	assert_non_null(strstr(res.hunks[1].reason,
			       "the added lines are already present at line 59"));
	assert_out(&res, &c.orig);
	DONE(c, res);
}

static void adding_a_function_the_target_defines_is_a_risk(void **state)
{
	CASE(c, res, "defines-existing-function", NULL);

	assert_int_equal(res.outcome, OUTCOME_3WAY);
	assert_int_equal(res.hunks[0].rule, RULE_ALREADY);
	assert_int_equal(res.hunks[1].rule, RULE_3WAY_HUNK);
	assert_true(res.hunks[1].risk);
	assert_non_null(strstr(res.hunks[1].reason,
			       "adds btrfs_scan_inode(), which the target "
			       "already defines at line 105"));
	assert_non_null(strstr(res.hunks[1].reason, "btrfs_free_extent_maps()"));
	assert_out(&res, &c.expect);
	DONE(c, res);
}

static void three_way_with_blob_merges_drifted_context(void **state)
{
	CASE(c, res, "drift-inside-hunk", NULL);

	assert_int_equal(c.blob_calls, 1);
	assert_int_equal(res.outcome, OUTCOME_3WAY);
	assert_int_equal(res.hunks[0].rule, RULE_3WAY);
	assert_int_equal(res.hunks[0].line, 139);
	assert_non_null(strstr(res.hunks[0].reason, "preimage blob"));
	assert_false(res.risk);
	assert_out(&res, &c.expect);
	DONE(c, res);
}

static void three_way_at_hunk_level_merges_drifted_context(void **state)
{
	CASE(c, res, "drift-inside-hunk", NULL);

	/* the same without the blob */
	apply_file_result_release(&res);
	c.has_blob = false;
	run(&res, &c, NULL);
	assert_int_equal(res.outcome, OUTCOME_3WAY);
	assert_int_equal(res.hunks[0].rule, RULE_3WAY_HUNK);
	assert_int_equal(res.hunks[0].line, 139);
	assert_int_equal(res.hunks[0].offset, 0);
	assert_false(res.risk);
	assert_out(&res, &c.expect);
	DONE(c, res);
}

static void blob_that_does_not_fit_the_patch_is_not_used(void **state)
{
	CASE(c, res, "drift-inside-hunk", NULL);

	/* a blob the patch does not apply to exactly: hunk-level 3-way */
	apply_file_result_release(&res);
	buf_reset(&c.blob);
	buf_adds(&c.blob, "something else\n");
	run(&res, &c, NULL);
	assert_int_equal(res.hunks[0].rule, RULE_3WAY_HUNK);
	assert_out(&res, &c.expect);
	DONE(c, res);
}

static void blob_loader_failure_is_an_error(void **state)
{
	struct tcase c;
	struct apply_file_result res;
	struct apply_opts o = APPLY_OPTS_INIT;
	struct err err = ERR_INIT;

	case_load(&c, "drift-inside-hunk");
	c.blob_error = ERR_IO;
	o.load_blob = fake_load_blob;
	o.ctx = &c;
	apply_file_result_init(&res);
	assert_int_equal(apply_file(&res, c.d.f,
				    (struct span){ c.orig.ptr, c.orig.len },
				    true, &o, &err),
			 ERR_IO);
	assert_non_null(strstr(err.msg.ptr, "cannot read blob"));
	err_release(&err);
	DONE(c, res);
}

static void three_way_conflict_writes_diff3_markers(void **state)
{
	struct apply_opts o = APPLY_OPTS_INIT;

	o.markers = true;
	CASE(c, res, "drift-conflict", &o);
	assert_int_equal(res.outcome, OUTCOME_CONFLICT);
	assert_int_equal(res.hunks[0].rule, RULE_CONFLICT);
	assert_string_equal(res.hunks[0].reason,
			    "context does not match near line 139; "
			    "3-way merge with the hunk conflicts at lines 139-152");
	assert_non_null(strstr(res.out.ptr, "<<<<<<< target\n"));
	assert_non_null(strstr(res.out.ptr, "||||||| patch preimage\n"));
	assert_non_null(strstr(res.out.ptr, ">>>>>>> patch\n"));
	assert_out(&res, &c.expect);
	DONE(c, res);
}

static void three_way_conflict_without_markers_keeps_target(void **state)
{
	CASE(c, res, "drift-conflict", NULL);

	assert_int_equal(res.outcome, OUTCOME_CONFLICT);
	assert_null(strstr(res.out.ptr, "<<<<<<<"));
	assert_out(&res, &c.orig);
	DONE(c, res);
}

static void placement_risk_when_offset_lands_in_another_function(void **state)
{
	CASE(c, res, "placement-risk", NULL);

	assert_int_equal(res.outcome, OUTCOME_OFFSET);
	assert_int_equal(res.hunks[0].rule, RULE_OFFSET);
	assert_true(res.hunks[0].risk);
	assert_true(res.risk);
	assert_string_equal(res.hunks[0].func, "btrfs_insert_orphan_item");
	assert_string_equal(res.hunks[0].found_func, "btrfs_del_orphan_item");
	assert_string_equal(res.hunks[0].reason,
			    "lands in btrfs_del_orphan_item() at line 11, not in "
			    "btrfs_insert_orphan_item() named by the hunk header "
			    "(not found in the target); "
			    "btrfs_insert_orphan_item() is btrfs_del_orphan_item() "
			    "here (100% of the hunk's lines are in it)");
	assert_string_equal(res.hunks[0].similar, "btrfs_del_orphan_item");
	assert_int_equal(res.hunks[0].similarity, 100);
	assert_out(&res, &c.expect);
	DONE(c, res);
}

/*
 * A hunk that changes a function's own first line is placed by that line:
 * its leading context is only the tail of whatever comes above, and
 * functions the target added there are no other place (Debian's 6.1 mana
 * patch changing mana_start_xmit()'s return type, on 6.12 where
 * mana_get_gso_hs() came between it and mana_map_skb(), the function the
 * header names: a risk on a right result, forward or already applied).
 */
static void hunk_changing_a_definition_line_is_placed_by_it(void **state)
{
	static const char patch[] =
		"--- a/x.c\n+++ b/x.c\n"
		"@@ -4,7 +4,7 @@ static int map_skb(struct sk_buff *skb)\n"
		" \treturn -ENOMEM;\n }\n \n"
		"-int start_xmit(struct sk_buff *skb, struct net_device *ndev)\n"
		"+netdev_tx_t start_xmit(struct sk_buff *skb, struct net_device *ndev)\n"
		" {\n \tenum fmt pkt_fmt = SHORT;\n"
		" \tstruct port *apc = priv(ndev);\n";
#define TOP "static int map_skb(struct sk_buff *skb)\n{\n\tif (!skb)\n" \
	"\t\treturn -EINVAL;\n\treturn -ENOMEM;\n}\n\n" \
	"static int get_gso_hs(struct sk_buff *skb)\n{\n\tif (skb->len)\n" \
	"\t\treturn 1;\n\treturn -ENOMEM;\n}\n\n"
#define BODY "(struct sk_buff *skb, struct net_device *ndev)\n{\n" \
	"\tenum fmt pkt_fmt = SHORT;\n\tstruct port *apc = priv(ndev);\n" \
	"\treturn 0;\n}\n"
	static const char before[] = TOP "int start_xmit" BODY;
	static const char after[] = TOP "netdev_tx_t start_xmit" BODY;
#undef TOP
#undef BODY
	(void)state;
	placed_case(before, patch, RULE_OFFSET, after);
	already_case(after, patch, false, NULL);
}

/*
 * A file-scope hunk whose section is the declaration above it, cut by
 * diff -p ("static struct kmem_cache *perf_event_cac"), gone from the
 * target: the declaration in its own lines places it, and it does not
 * land "in perf_online_mask()", a variable (Debian's perf-restrict patch,
 * 5.10 <-> 6.1).  A line found twice places nothing: still a risk.
 */
static void file_scope_hunk_is_placed_by_its_declaration(void **state)
{
	static const char patch[] =
		"--- a/kernel/events/core.c\n+++ b/kernel/events/core.c\n"
		"@@ -5,8 +5,11 @@ static struct kmem_cache *perf_event_cac\n"
		" /*\n"
		"  * paranoia level:\n"
		"  *  2 - disallow kernel profiling\n"
		"+ *  3 - disallow all\n"
		"  */\n"
		"+#ifndef RESTRICT\n"
		" int sysctl_perf_event_paranoid __read_mostly = 2;\n"
		"+#endif\n"
		" \n"
		" int sysctl_perf_event_mlock __read_mostly = 516;\n"
		" int sysctl_perf_event_max_stack __read_mostly = 127;\n";
#define TOP "static LIST_HEAD(pmus);\nstatic cpumask_var_t perf_online_mask;\n\n" \
	"/*\n * paranoia level:\n *  2 - disallow kernel profiling\n"
#define DECL "int sysctl_perf_event_paranoid __read_mostly = 2;\n"
#define BOTTOM "\nint sysctl_perf_event_mlock __read_mostly = 516;\n" \
	"int sysctl_perf_event_max_stack __read_mostly = 127;\n"
	static const char orig[] = TOP " */\n" DECL BOTTOM;
	static const char want[] = TOP " *  3 - disallow all\n */\n"
		"#ifndef RESTRICT\n" DECL "#endif\n" BOTTOM;
	static const char twice[] = TOP " */\n" DECL BOTTOM "#if 0\n"
		TOP " */\n" DECL BOTTOM "#endif\n";
#undef TOP
#undef DECL
#undef BOTTOM
	struct apply_file_result res;
	struct tdiff d;

	(void)state;
	placed_case(orig, patch, RULE_OFFSET, want);
	apply_no_3way(&res, &d, twice, patch);
	assert_true(res.hunks[0].risk);
	assert_non_null(strstr(res.hunks[0].reason, "lands in perf_online_mask()"));
	apply_file_result_release(&res);
	tdiff_release(&d);
}

/*
 * Already applied in another function while the one the header names
 * holds none of the hunk's lines: the code moved there (6.1 split
 * __set_cpus_allowed_ptr() into a wrapper and a _locked function, which
 * holds the change of RT's 5.10 patch; print_hex_dump_debug() beside
 * print_hex_dump_devel()).  Where the named function still holds one of
 * them, the change may be missing there: a risk.
 */
static void already_applied_where_the_code_moved_is_no_risk(void **state)
{
	static const char patch[] =
		"--- a/s.c\n+++ b/s.c\n"
		"@@ -3,7 +3,7 @@ int set_allowed(struct task *p, int flags)\n"
		" \tstruct rq *rq = task_rq_lock(p);\n"
		" \tint ret = 0;\n \n"
		"-\tif (flags & SCA_CHECK)\n"
		"+\tif ((flags & SCA_CHECK) && !p->migration_disabled)\n"
		" \t\tret = check_allowed(p);\n"
		" \ttask_rq_unlock(rq, p);\n"
		" \treturn ret;\n";
#define LOCKED "static int set_allowed_locked(struct task *p, int flags, " \
	"struct rq *rq)\n{\n\tstruct rq *rq = task_rq_lock(p);\n" \
	"\tint ret = 0;\n\n" \
	"\tif ((flags & SCA_CHECK) && !p->migration_disabled)\n" \
	"\t\tret = check_allowed(p);\n\ttask_rq_unlock(rq, p);\n" \
	"\treturn ret;\n}\n\n" \
	"int set_allowed(struct task *p, int flags)\n{\n"
	static const char moved[] = LOCKED
		"\treturn set_allowed_locked(p, flags, NULL);\n}\n";
	static const char kept[] = LOCKED
		"\tint ret = 0;\n\n\tret = set_allowed_locked(p, flags, NULL);\n"
		"\treturn ret;\n}\n";
#undef LOCKED
	(void)state;
	already_case(moved, patch, false, NULL);
	already_case(kept, patch, true,
		     "lands in set_allowed_locked() at line 3, not in "
		     "set_allowed() named by the hunk header");
}

/*
 * The function the header names is gone and the one the hunk lands in
 * bears its name with a part added (raw_, __, _locked) and holds every
 * line of the hunk, matched without fuzz: the same function, renamed when
 * a wrapper took the old name elsewhere (5.15 made
 * irqentry_exit_cond_resched() a static call around
 * raw_irqentry_exit_cond_resched(); RT's 5.10 patch on 6.1 and back).
 * No risk.  A name that differs otherwise (btrfs_del_orphan_item for
 * btrfs_insert_orphan_item: placement_risk_when_offset_lands_in_another_
 * function), or a match with fuzz, stays one.
 */
static void landing_in_the_renamed_function_by_an_added_part(void **state)
{
	static const char patch[] =
		"--- a/e.c\n+++ b/e.c\n"
		"@@ -3,7 +3,7 @@ void exit_cond_resched(void)\n"
		" \tif (!preempt_count()) {\n"
		" \t\trcu_irq_exit_check_preempt();\n"
		" \t\tif (IS_ENABLED(CONFIG_DEBUG_ENTRY))\n"
		"-\t\t\tWARN_ON_ONCE(!on_thread_stack());\n"
		"+\t\t\tWARN_ON_ONCE(!on_thread_stack() && 1);\n"
		" \t\tif (need_resched())\n"
		" \t\t\tpreempt_schedule_irq();\n"
		" \t}\n";
#define BODY(name, check) "static int helper(void)\n{\n\treturn 0;\n}\n\n" \
	"void " name "(void)\n{\n\tif (!preempt_count()) {\n" \
	"\t\trcu_irq_exit_check_preempt();\n" \
	"\t\tif (IS_ENABLED(CONFIG_DEBUG_ENTRY))\n" \
	"\t\t\tWARN_ON_ONCE(!on_thread_stack()" check ");\n" \
	"\t\tif (need_resched())\n\t\t\tpreempt_schedule_irq();\n\t}\n}\n"
	static const char raw[] = BODY("raw_exit_cond_resched", "");
	static const char raw_after[] = BODY("raw_exit_cond_resched", " && 1");
	static const char bare[] = BODY("exit_cond_resched", "");
	static const char bare_after[] = BODY("exit_cond_resched", " && 1");
	static const char other[] = BODY("exit_cond_check", "");
#undef BODY
	const char *at = strstr(patch, "void exit_");
	struct buf back = BUF_INIT;
	struct apply_file_result res;
	struct tdiff d;

	(void)state;
	placed_case(raw, patch, RULE_OFFSET, raw_after);
	/* and back: the header names raw_..., the target has the bare name */
	buf_add(&back, patch, (size_t)(at - patch));
	buf_adds(&back, "void raw_exit_");
	buf_adds(&back, at + strlen("void exit_"));
	placed_case(bare, back.ptr, RULE_OFFSET, bare_after);
	buf_release(&back);

	apply_no_3way(&res, &d, other, patch);
	assert_int_equal(res.hunks[0].rule, RULE_OFFSET);
	assert_true(res.hunks[0].risk);
	assert_non_null(strstr(res.hunks[0].reason,
			       "lands in exit_cond_check() at line"));
	apply_file_result_release(&res);
	tdiff_release(&d);
}

/*
 * A hunk-level merge differs from GNU patch's placement, and GNU's match
 * keeps only punctuation ("}," and "{" of a table): a risk while the
 * hunk's two sides point to different places (t103: the leading
 * context's fields moved into the next entry), none when one side has no
 * line left in the file and the other holds one found once, beside which
 * the merge put the change (Debian's disable-some-marvell-phys on 6.1:
 * the .led_hw_control_* lines above the 88E1145 entry are 6.12's; the
 * entry's MARVELL_PHY_ID_88E1145 line stands once).
 */
static void merge_beside_the_only_side_left_is_no_risk(void **state)
{
	static const char patch[] =
		"--- a/drivers/t.c\n+++ b/drivers/t.c\n"
		"@@ -10,6 +10,7 @@ static struct d t[] = {\n"
		" \t\t.led_set = led_set,\n"
		" \t\t.led_get = led_get,\n"
		" \t},\n"
		"+#if 0\n"
		" \t{\n"
		" \t\t.id = ID_1145,\n"
		" \t\t.mask = MASK,\n";
#define TABLE(mid) "static struct d t[] = {\n" \
	"\t{\n\t\t.id = ID_1111,\n\t\t.mask = MASK,\n\t\t.x = 1,\n\t},\n" \
	mid "\t{\n\t\t.id = ID_1145,\n\t\t.mask = MASK,\n\t\t.x = 2,\n\t},\n" \
	"\t{\n\t\t.id = ID_1149,\n\t\t.mask = MASK,\n\t\t.x = 3,\n\t},\n};\n"
	static const char orig[] = TABLE("");
	static const char want[] = TABLE("#if 0\n");
#undef TABLE
	struct apply_opts o = APPLY_OPTS_INIT;
	struct apply_file_result res;
	struct err err = ERR_INIT;
	struct tdiff d;

	(void)state;
	buf_init(&d.raw, 0);
	buf_adds(&d.raw, patch);
	tdiff_parse(&d);
	apply_file_result_init(&res);
	assert_int_equal(apply_file(&res, d.f, span_from(orig), true, &o, &err), 0);
	assert_int_equal(res.hunks[0].rule, RULE_3WAY_HUNK);
	if (res.hunks[0].risk)
		fail_msg("risk: %s", res.hunks[0].reason);
	assert_int_equal(res.out.len, strlen(want));
	assert_memory_equal(res.out.ptr, want, res.out.len);
	apply_file_result_release(&res);
	tdiff_release(&d);
}

/*
 * The same where only a fuzzier postimage stands and a preimage matches
 * with that fuzz somewhere else too (a blank and "do {"): the change is
 * where the code went, already applied, not a conflict (RT's 5.10
 * "timers: Don't block on expiry_lock for TIMER_IRQSAFE" on 6.1, whose
 * timer_delete_sync() calls __timer_delete_sync() holding the loop).
 * While the named function holds one of the hunk's lines, the match
 * outside it is not taken: a conflict, as before.
 */
static void fuzzy_postimage_where_the_code_moved_is_already_applied(void **state)
{
	static const char patch[] =
		"--- a/t.c\n+++ b/t.c\n"
		"@@ -3,6 +3,9 @@ int del_sync(struct timer *t)\n"
		" \t */\n \tWARN_ON(in_irq() && !safe);\n \n"
		"+\tif (IS_ENABLED(RT) && !safe)\n+\t\tassert_preemptible();\n+\n"
		" \tdo {\n \t\tret = try_del(t);\n \n";
#define LOCKED "static int __del_sync(struct timer *t, bool shutdown)\n{\n" \
	"\t/*\n\t * no hardirq\n\t */\n\tWARN_ON(in_hardirq() && !safe);\n\n" \
	"\tif (IS_ENABLED(RT) && !safe)\n\t\tassert_preemptible();\n\n" \
	"\tdo {\n\t\tret = __try_del(t, shutdown);\n\n\t\tif (ret < 0)\n" \
	"\t\t\trelax();\n\t} while (ret < 0);\n\treturn ret;\n}\n\n" \
	"int del_sync(struct timer *t)\n{\n"
#define OTHER "}\n\nstatic void other(void)\n{\n\tint n = 0;\n\n" \
	"\tdo {\n\t\twork();\n\t} while (more(n++));\n}\n"
	static const char moved[] = LOCKED "\treturn __del_sync(t, false);\n" OTHER;
	static const char kept[] = LOCKED "\tWARN_ON(in_irq() && !safe);\n"
		"\treturn __del_sync(t, false);\n" OTHER;
#undef LOCKED
#undef OTHER
	struct apply_opts o = APPLY_OPTS_INIT;
	struct apply_file_result res;
	struct err err = ERR_INIT;
	struct tdiff d;

	(void)state;
	for (int i = 0; i < 2; i++) {
		buf_init(&d.raw, 0);
		buf_adds(&d.raw, patch);
		tdiff_parse(&d);
		apply_file_result_init(&res);
		assert_int_equal(apply_file(&res, d.f, span_from(i ? kept : moved),
					    true, &o, &err), 0);
		if (res.hunks[0].rule != (i ? RULE_CONFLICT : RULE_ALREADY) ||
		    res.hunks[0].risk)
			fail_msg("%s: %s%s: %s", i ? "kept" : "moved",
				 apply_rule_name(res.hunks[0].rule),
				 res.hunks[0].risk ? ", a risk" : "",
				 res.hunks[0].reason);
		apply_file_result_release(&res);
		tdiff_release(&d);
	}
}

/*
 * A hunk after the end of the function its header names holds none of
 * that function's lines, yet no code moved: its postimage found elsewhere
 * (here with fuzz 2 under another "#ifdef") is outside the function, and
 * it is no second place.
 */
static void hunk_after_its_function_has_not_moved_out(void **state)
{
	static const char patch[] =
		"--- a/t.c\n+++ b/t.c\n"
		"@@ -16,6 +16,7 @@ void set_nid(struct task *p, int nid)\n"
		" #endif /* NUMA */\n \n #ifdef HOTPLUG\n+\n"
		" /*\n  * Ensure the idle task uses init_mm.\n  */\n";
	static const char target[] =
		"void set_nid(struct task *p, int nid)\n{\n\tp->nid = nid;\n"
		"\tunlock(p);\n}\n#endif /* NUMA */\n\n#ifdef HOTPLUG\n/*\n"
		" * Ensure the idle task uses init_mm.\n */\nvoid idle_exit(void)\n"
		"{\n\tdrop(current);\n}\n\nint cpu_starting(int cpu)\n{\n"
		"\tstart(cpu);\n\treturn 0;\n}\n\n#ifdef HOTPLUG\n\n/*\n"
		" * Invoked before the stopper thread runs.\n */\n"
		"int cpu_dying(int cpu)\n{\n\treturn 0;\n}\n#endif\n#endif\n";
	(void)state;
	judged_case("after", target, patch, 0, RULE_OFFSET, false);
}

/*
 * A revert after the last function of a header, already applied: its
 * postimage lands after the function above, not in the one the header
 * names, which the target defines without any of the hunk's lines.  No
 * risk, although the hunk is not in a body.
 */
static void revert_after_the_named_function_is_no_risk(void **state)
{
	static const char patch[] =
		"--- a/t.h\n+++ b/t.h\n"
		"@@ -20,12 +20,4 @@ static inline void dump_debug(const char *p, int t)\n"
		" #define dump_bytes(p, t, buf, len)\t\\\n"
		" \tdump_debug(p, t, 16, 1, buf, len, true)\n \n"
		"-#ifdef CONFIG_PRINTK\n-extern void __safe_enter(void);\n"
		"-#else\n-static inline void safe_enter(void)\n-{\n-}\n"
		"-#endif\n-\n #endif\n";
	static const char target[] =
		"static inline void dump_debug(const char *p, int t)\n{\n}\n"
		"static inline void dump_devel(const char *p, int t)\n{\n}\n\n"
		"/**\n * dump_bytes - shorthand\n */\n"
		"#define dump_bytes(p, t, buf, len)\t\\\n"
		"\tdump_debug(p, t, 16, 1, buf, len, true)\n\n#endif\n";
	(void)state;
	judged_case("revert", target, patch, 0, RULE_ALREADY, false);
}

/*
 * An insertion of a new entry whose leading context (and the entry the
 * header names) the target lacks, kept by fuzz before the next entry's
 * definition line, which stands once: that line places it, as Debian
 * placed "config SECURITY_PERF_EVENTS_RESTRICT" before "config SECURITY"
 * on 5.10, which has no "endchoice" there.  Stays a risk when the target
 * already defines the entry the hunk adds, elsewhere, or names it at all
 * (RT's printk_enter_irqsave() added as a function before
 * "int printk_delay_msec", where 6.1 has it as a macro).
 */
static void new_entry_placed_by_the_next_definition(void **state)
{
	static const char patch[] =
		"--- a/Kconfig\n+++ b/Kconfig\n"
		"@@ -51,6 +51,11 @@ config PROC_MEM_NO_FORCE\n"
		" \n endchoice\n \n"
		"+config PERF_RESTRICT\n+\tbool \"Restrict perf\"\n+\thelp\n"
		"+\t  If you say Y here.\n+\n"
		" config SECURITY\n \tbool \"Enable different security models\"\n"
		" \tdepends on SYSFS\n";
#define TOP "menu \"Security options\"\n\nsource \"keys/Kconfig\"\n\n" \
	"config DMESG_RESTRICT\n\tbool \"Restrict syslog\"\n\thelp\n" \
	"\t  If unsure, answer N.\n\nconfig SECURITY\n" \
	"\tbool \"Enable different security models\"\n\tdepends on SYSFS\n" \
	"\thelp\n\t  This allows you to choose.\n\n"
	static const char fresh[] = TOP "endmenu\n";
	static const char has[] = TOP "config PERF_RESTRICT\n"
		"\tbool \"Restrict perf\"\n\nendmenu\n";
	static const char named[] = TOP "config PERF_HARDEN\n"
		"\tbool \"Harden perf\"\n\tselect PERF_RESTRICT\n\nendmenu\n";
#undef TOP
	(void)state;
	judged_case("fresh", fresh, patch, 0, RULE_FUZZ, false);
	judged_case("has", has, patch, 0, RULE_FUZZ, true);
	judged_case("named", named, patch, 0, RULE_FUZZ, true);
}

/*
 * A patch that renames a function in one hunk and changes it in a later
 * one: the later hunk's header names the old name, and where the patch
 * is already applied its postimage stands in the new one.  The patch's
 * own rename says so; no risk (csky's highmem.c, kmap_pages_init() made
 * kmap_init(), on 6.1).
 */
static void function_renamed_by_the_patch_itself(void **state)
{
	static const char patch[] =
		"--- a/t.c\n+++ b/t.c\n"
		"@@ -1,6 +1,6 @@\n"
		" unsigned long start;\n \n"
		"-static void __init pages_init(void)\n"
		"+void __init map_init(void)\n"
		" {\n \tunsigned long vaddr;\n \n"
		"@@ -7,11 +7,3 @@ static void __init pages_init(void)\n"
		" \tvaddr = BASE;\n \ttable = pte;\n }\n-\n"
		"-void __init map_init(void)\n-{\n-\tunsigned long vaddr;\n-\n"
		"-\tpages_init();\n-\tvaddr = FIX;\n-}\n";
	static const char target[] =
		"#include <a.h>\n\nunsigned long start;\n\n"
		"void __init map_init(void)\n{\n\tunsigned long vaddr;\n\n"
		"\tvaddr = BASE;\n\ttable = pte;\n}\n";
	(void)state;
	judged_case("renamed", target, patch, 0, RULE_ALREADY, false);
	judged_case("renamed", target, patch, 1, RULE_ALREADY, false);
}

/*
 * A forward declaration is not a definition, even when its parameters
 * run over several lines: adding one for a function the target defines
 * further down is what C asks for, not a second definition (RT's 5.10
 * "sched: Add migrate_disable()" declares __set_cpus_allowed_ptr() before
 * its first caller).  A definition added so, over several lines, stays a
 * risk.
 */
static void forward_declaration_is_not_a_definition(void **state)
{
	static const char target[] =
		"#include <a.h>\n\nstatic int helper(int a);\n\n"
		"void caller(void)\n{\n\tgo();\n}\n\n"
		"static int set_ptr(struct task *p,\n\t\t   int flags)\n{\n"
		"\treturn flags;\n}\n";
	static const char decl[] =
		"--- a/t.c\n+++ b/t.c\n"
		"@@ -3,5 +3,9 @@\n"
		" static int helper(int a);\n \n"
		"+static int set_ptr(struct task *p,\n"
		"+\t\t   int flags);\n"
		"+static void\n+do_set(struct task *p, int flags);\n"
		" void caller(void)\n {\n \tgo();\n";
	static const char def[] =
		"--- a/t.c\n+++ b/t.c\n"
		"@@ -3,5 +3,10 @@\n"
		" static int helper(int a);\n \n"
		"+static int set_ptr(struct task *p,\n"
		"+\t\t   int flags)\n"
		"+{\n+\treturn 0;\n+}\n"
		" void caller(void)\n {\n \tgo();\n";
	(void)state;
	judged_case("declared", target, decl, 0, RULE_EXACT, false);
	judged_case("defined", target, def, 0, RULE_EXACT, true);
}

/*
 * Definitions that do not make two: a per-CPU variable of another name
 * (the macro's first argument is its type: "DEFINE_PER_CPU(struct)" is no
 * name), a definition in a preprocessor branch the hunk opens while the
 * target's stays in the other one (RT's zram slot locks, its TTWU_QUEUE
 * feature, its migrate_disable() stubs), and a function replacing the
 * macro the hunk removes, in the #else of the target's definition (RT's
 * tasklet_trylock() stubs).  Debian's 5.10.223 RT series on 5.10.262
 * drew all of them.  Two definitions in the same branch stay a risk: the
 * same per-CPU variable again, or a definition in a branch the hunk
 * closes again, which the target's unconditional one meets.
 */
static void definitions_in_other_branches(void **state)
{
	static const char percpu[] =
		"#include <a.h>\n\nstatic DEFINE_PER_CPU(struct pagesets, pagesets);\n\n"
		"int nr_ids;\nint nr_online;\n\nint mobility;\n";
	static const char percpu_new[] =
		"--- a/t.c\n+++ b/t.c\n@@ -5,4 +5,8 @@\n int nr_ids;\n int nr_online;\n \n"
		"+static DEFINE_PER_CPU(struct pa_lock, pa_lock) = {\n+\t.l = INIT,\n+};\n+\n"
		" int mobility;\n";
	static const char percpu_again[] =
		"--- a/t.c\n+++ b/t.c\n@@ -5,4 +5,8 @@\n int nr_ids;\n int nr_online;\n \n"
		"+static DEFINE_PER_CPU(struct pagesets, pagesets) = {\n+\t.l = INIT,\n+};\n+\n"
		" int mobility;\n";
	static const char percpu_init[] =
		"--- a/t.c\n+++ b/t.c\n@@ -2,4 +2,6 @@\n \n"
		"-static DEFINE_PER_CPU(struct pagesets, pagesets);\n"
		"+static DEFINE_PER_CPU(struct pagesets, pagesets) = {\n+\t.l = INIT,\n+};\n"
		" \n int nr_ids;\n";
	static const char slots[] =
		"#include <a.h>\n\nstatic void free_page(int i);\n\n"
		"static int slot_trylock(struct zram *z, u32 i)\n{\n"
		"\treturn bit_spin_trylock(i);\n}\n\n"
		"static void slot_unlock(struct zram *z, u32 i)\n{\n"
		"\tbit_spin_unlock(i);\n}\n";
	static const char slots_rt[] =
		"--- a/t.c\n+++ b/t.c\n@@ -2,6 +2,14 @@\n \n static void free_page(int i);\n \n"
		"+#ifdef CONFIG_PREEMPT_RT\n"
		"+static int slot_trylock(struct zram *z, u32 i)\n+{\n"
		"+\treturn spin_trylock(i);\n+}\n+\n+#else\n+\n"
		" static int slot_trylock(struct zram *z, u32 i)\n {\n"
		" \treturn bit_spin_trylock(i);\n";
	static const char slots_closed[] =
		"--- a/t.c\n+++ b/t.c\n@@ -2,6 +2,13 @@\n \n static void free_page(int i);\n \n"
		"+#ifdef CONFIG_PREEMPT_RT\n"
		"+static int slot_trylock(struct zram *z, u32 i)\n+{\n"
		"+\treturn spin_trylock(i);\n+}\n+#endif\n+\n"
		" static int slot_trylock(struct zram *z, u32 i)\n {\n"
		" \treturn bit_spin_trylock(i);\n";
	static const char slots2[] =
		"#include <a.h>\n\nstatic void free_page(int i);\n\n"
		"static int lock_init(void)\n{\n\tint a = 0;\n\ta++;\n\ta++;\n"
		"\treturn a;\n}\n\n"
		"static int slot_trylock(struct zram *z, u32 i)\n{\n"
		"\treturn bit_spin_trylock(i);\n}\n";
	static const char slots_closed_later[] =
		"--- a/t.c\n+++ b/t.c\n@@ -2,6 +2,12 @@\n \n static void free_page(int i);\n \n"
		"+#ifdef CONFIG_PREEMPT_RT\n"
		"+static int slot_trylock(struct zram *z, u32 i)\n+{\n"
		"+\treturn spin_trylock(i);\n+}\n+#else\n"
		" static int lock_init(void)\n {\n \tint a = 0;\n"
		"@@ -9,6 +15,7 @@ static int lock_init(void)\n"
		" \ta++;\n \treturn a;\n }\n+#endif\n \n"
		" static int slot_trylock(struct zram *z, u32 i)\n {\n";
	static const char stubs[] =
		"#ifdef CONFIG_SMP\nstatic inline int t_trylock(struct t *t)\n{\n"
		"\treturn !test_and_set_bit(0, &t->state);\n}\n#else\n"
		"#define t_trylock(t) 1\n#endif\n\nextern void t_schedule(struct t *t);\n";
	static const char stubs_inline[] =
		"--- a/t.h\n+++ b/t.h\n@@ -5,6 +5,6 @@\n }\n #else\n"
		"-#define t_trylock(t) 1\n"
		"+static inline int t_trylock(struct t *t) { return 1; }\n"
		" #endif\n \n extern void t_schedule(struct t *t);\n";
	(void)state;
	judged_case("per-cpu, new", percpu, percpu_new, 0, RULE_EXACT, false);
	judged_case("per-cpu, again", percpu, percpu_again, 0, RULE_EXACT, true);
	judged_case("per-cpu, given an initializer", percpu, percpu_init, 0,
		    RULE_EXACT, false);
	judged_case("RT branch", slots, slots_rt, 0, RULE_EXACT, false);
	judged_case("closed branch", slots, slots_closed, 0, RULE_EXACT, true);
	judged_case("closed by the next hunk", slots2, slots_closed_later, 0,
		    RULE_EXACT, true);
	judged_case("stub for a macro", stubs, stubs_inline, 0, RULE_EXACT, false);
}

/*
 * An added "#ifdef M" (or "#ifndef M", "#if defined(M)", "#elif defined
 * M") whose result stands under the target's own opposite test of M
 * guards code that is never built: a risk (5.10's RT local locks onto
 * 6.1's "#ifndef CONFIG_PREEMPT_RT").  Not one when the tests agree, when
 * the opposite test is the patch's own, or when the target's condition
 * is more than one macro's test.
 */
static void added_branch_under_opposite_test(void **state)
{
#define T(open, mid) "#include <a.h>\n\n" open "\n\nstruct lock {\n" \
	"\tint dep;\n};\n\n" mid "\n\nstruct lock {\n\tint spin;\n};\n\n#endif\n"
#define P(ctx, at, add) "--- a/t.h\n+++ b/t.h\n@@ -" at ",6 +" at ",9 @@\n" \
	" \n " ctx "\n \tint dep;\n" add " };\n \n #else\n"
#define RT "+#ifdef CONFIG_RT\n+\tint owner;\n+#endif\n"
	static const char not_rt[] = T("#ifndef CONFIG_RT", "#else");
	static const char rt[] = T("#ifdef CONFIG_RT", "#else");
	static const char rt_else[] = T("#ifdef CONFIG_RT", "#else /* RT */");
	static const char expr[] = T("#if !defined(CONFIG_RT) && defined(CONFIG_X)",
				     "#else");
	static const char add_rt[] = P("struct lock {", "4", RT);
	static const char add_not_rt[] = P("struct lock {", "4",
		"+#if !defined( CONFIG_RT ) /* no RT */\n+\tint owner;\n+#endif\n");
	static const char add_elif[] = P("struct lock {", "4",
		"+#if defined(CONFIG_X)\n+#elif defined CONFIG_RT\n+#endif\n");
	static const char own[] =
		"--- a/t.h\n+++ b/t.h\n@@ -1,4 +1,9 @@\n #include <a.h>\n \n"
		"+#ifndef CONFIG_RT\n+#ifdef CONFIG_RT\n+int never;\n+#endif\n"
		"+#endif\n #ifndef CONFIG_RT\n \n";
	static const char in_else[] =
		"--- a/t.h\n+++ b/t.h\n@@ -10,6 +10,9 @@\n \n struct lock {\n"
		" \tint spin;\n" RT " };\n \n #endif\n";
#undef T
#undef P
#undef RT
	(void)state;
	judged_case("#ifdef in #ifndef", not_rt, add_rt, 0, RULE_EXACT, true);
	judged_case("#ifdef in #ifdef", rt, add_rt, 0, RULE_EXACT, false);
	judged_case("#if !defined in #ifdef", rt, add_not_rt, 0, RULE_EXACT,
		    true);
	judged_case("#elif defined in #ifndef", not_rt, add_elif, 0,
		    RULE_EXACT, true);
	judged_case("the patch's own #ifndef", not_rt, own, 0, RULE_EXACT,
		    false);
	judged_case("#ifdef in an #else of #ifndef", not_rt, in_else, 0,
		    RULE_EXACT, false);
	judged_case("#ifdef in an #else of #ifdef", rt_else, in_else, 0,
		    RULE_EXACT, true);
	judged_case("under an expression", expr, add_rt, 0, RULE_EXACT, false);
}

/*
 * A reading of a hunk at the place where another hunk of the same patch
 * lands is that hunk's, not a second reading: hunks of one patch never
 * share lines.  RT's tracing patch changes __kprobe_trace_func() and then
 * __kretprobe_trace_func(), whose lines are the same; on 5.10.223 the
 * first hunk's stated line is nearer the second function's copy, where
 * the second hunk lands.  With the second hunk left out, that nearer
 * match stays a risk.
 */
static void reading_where_another_hunk_lands(void **state)
{
#define BODY(v) "{\n\tint " v ";\n\n\tif (disabled(tk))\n\t\treturn;\n\n" \
	"\tsave_flags(buf.flags);\n\tbuf.pc = count();\n\tbuf.file = file;\n\n" \
	"\tsize = data_size(tk);\n}\n"
	static const char target[] =
		"#include <t.h>\n\nstatic void kprobe_func(struct tk *tk)\n"
		BODY("a") "\nstatic void kretprobe_func(struct tk *tk)\n" BODY("b");
#undef BODY
#define HUNK(at, to, f) "@@ -" at ",8 +" to ",7 @@ static void " f "(struct tk *tk)\n" \
	" \tif (disabled(tk))\n \t\treturn;\n \n" \
	"-\tsave_flags(buf.flags);\n-\tbuf.pc = count();\n+\tbuf.ctx = gen_ctx();\n" \
	" \tbuf.file = file;\n \n \tsize = data_size(tk);\n"
	static const char twins[] = "--- a/t.c\n+++ b/t.c\n"
		HUNK("20", "20", "kprobe_func") HUNK("34", "33", "kretprobe_func");
	static const char one[] = "--- a/t.c\n+++ b/t.c\n"
		HUNK("20", "20", "kprobe_func");
#undef HUNK
	(void)state;
	judged_case("twins", target, twins, 0, RULE_OFFSET, false);
	judged_case("twins", target, twins, 1, RULE_OFFSET, false);
	judged_case("one", target, one, 0, RULE_OFFSET, true);
}

/*
 * A hunk's postimage matching twice with fuzz while its preimage matches
 * nowhere is already applied, wherever it stands: both readings say the
 * same, and nothing is written.  (RT's 5.10 patch dropping the
 * "#ifndef __LINUX_SPINLOCK_TYPES_H" guard from alpha's spinlock_types.h,
 * on 6.1, where fuzz 2 keeps the blank line and "typedef struct {" that
 * stand twice.)  A preimage matching at that fuzz too keeps the tie a
 * conflict, and so does a tie outside the function the header names
 * (here lock_init(), which the file lacks), where kept lines so few are
 * a chance (far off in mm/page_alloc.c, 5.10's RT PCP patch on 6.1).
 */
static void postimage_tie_without_preimage_is_already_applied(void **state)
{
	static const char patch[] =
		"--- a/t.h\n+++ b/t.h\n"
		"@@ -2,10 +2,6 @@\n"
		" #ifndef _ALPHA_TYPES_H\n #define _ALPHA_TYPES_H\n \n"
		"-#ifndef __LINUX_TYPES_H\n"
		"-# error \"please don't include this file directly\"\n"
		"-#endif\n-\n"
		" typedef struct {\n \tvolatile unsigned int lock;\n"
		" } arch_spinlock_t;\n";
	static const char in_func[] =
		"--- a/t.h\n+++ b/t.h\n"
		"@@ -2,10 +2,6 @@ static inline void lock_init(void)\n"
		" #ifndef _ALPHA_TYPES_H\n #define _ALPHA_TYPES_H\n \n"
		"-#ifndef __LINUX_TYPES_H\n"
		"-# error \"please don't include this file directly\"\n"
		"-#endif\n-\n"
		" typedef struct {\n \tvolatile unsigned int lock;\n"
		" } arch_spinlock_t;\n";
#define TOP "/* SPDX */\n#ifndef _ALPHA_LOCK_TYPES_H\n" \
	"#define _ALPHA_LOCK_TYPES_H\n\n"
#define REST "typedef struct {\n\tvolatile unsigned int lock;\n" \
	"} arch_spinlock_t;\n\n#define SPIN_UNLOCKED\t{ 0 }\n\n" \
	"typedef struct {\n\tvolatile unsigned int lock;\n} arch_rwlock_t;\n\n" \
	"#endif\n"
	static const char gone[] = TOP REST;
	static const char guard[] = TOP "#ifndef __LINUX_TYPES_H\n"
		"# error \"please don't include this file directly\"\n"
		"#endif\n\n" REST;
#undef TOP
#undef REST
	(void)state;
	judged_case("gone", gone, patch, 0, RULE_ALREADY, false);
	judged_case("guard", guard, patch, 0, RULE_FUZZ, false);
	judged_case("elsewhere", gone, in_func, 0, RULE_CONFLICT, false);
}

static void
fuzz_finds_named_function_when_exact_match_is_elsewhere(void **state)
{
	CASE(c, res, "named-function-fuzz", NULL);

	assert_int_equal(res.hunks[0].rule, RULE_FUZZ);
	assert_int_equal(res.hunks[0].fuzz, 2);
	assert_string_equal(res.hunks[0].found_func, "btrfs_insert_orphan_item");
	assert_true(res.hunks[0].risk); /* GNU patch changes the other one */
	assert_out(&res, &c.expect);
	DONE(c, res);
}

static void conflict_rather_than_landing_in_another_function(void **state)
{
	CASE(c, res, "named-function-conflict", NULL);

	assert_int_equal(res.outcome, OUTCOME_CONFLICT);
	assert_int_equal(res.hunks[0].rule, RULE_CONFLICT);
	assert_non_null(strstr(res.hunks[0].reason,
			       "matches only outside btrfs_insert_orphan_item(), "
			       "at line 32 in btrfs_del_orphan_item()"));
	assert_out(&res, &c.expect);
	DONE(c, res);
}

static void without_3way_lands_like_gnu_patch_as_a_risk(void **state)
{
	struct buf want = BUF_INIT;
	struct apply_opts o = APPLY_OPTS_INIT;

	o.no_3way = true;
	CASE(c, res, "named-function-conflict", &o);
	unit_read_fixture(&want, "apply/named-function-conflict/expect-no3way");
	assert_int_equal(res.hunks[0].rule, RULE_OFFSET);
	assert_true(res.hunks[0].risk);
	assert_string_equal(res.hunks[0].found_func, "btrfs_del_orphan_item");
	assert_out(&res, &want);
	assert_int_equal(c.blob_calls, 0);
	buf_release(&want);
	DONE(c, res);
}

/*
 * scan_inode() with the line before the changed call as the target has
 * it; the hunk-level 3-way rule places the hunk (the drifted line is the
 * innermost context: fuzz 2 cannot drop it).
 */
static void apply_scan(struct apply_file_result *res, const char *func,
		       const char *drifted)
{
	static const char patch[] =
		"--- a/fs/scan.c\n"
		"+++ b/fs/scan.c\n"
		"@@ -14,7 +14,7 @@ int scan_inode(struct sb *sb)\n"
		" \tif (err)\n"
		" \t\tgoto out;\n"
		" \tcount_inodes(sb);\n"
		"-\terr = walk_tree(sb, 0);\n"
		"+\terr = walk_tree(sb, WALK_ALL);\n"
		" \tif (err)\n"
		" \t\tgoto out;\n"
		" \tmark_clean(sb);\n";
	char *orig = xstrfmt("#include \"fs.h\"\n\n"
			     "static int helper(int x)\n{\n\treturn x + 1;\n}\n\n"
			     "int %s(struct sb *sb)\n{\n\tint err = 0;\n\n"
			     "\tlock_sb(sb);\n\terr = read_super(sb);\n"
			     "\tif (err)\n\t\tgoto out;\n\t%s\n"
			     "\terr = walk_tree(sb, 0);\n\tif (err)\n"
			     "\t\tgoto out;\n\tmark_clean(sb);\nout:\n"
			     "\tunlock_sb(sb);\n\treturn err;\n}\n\n"
			     "int other(void)\n{\n\treturn helper(2);\n}\n",
			     func, drifted);
	struct apply_opts o = APPLY_OPTS_INIT;
	struct tdiff d;
	struct err err = ERR_INIT;

	o.no_adapt = true;
	buf_init(&d.raw, 0);
	buf_adds(&d.raw, patch);
	tdiff_parse(&d);
	apply_file_result_init(res);
	assert_int_equal(apply_file(res, d.f, span_from(orig), true, &o, &err), 0);
	assert_int_equal(res->nr_hunks, 1);
	assert_int_equal(res->hunks[0].rule, RULE_3WAY_HUNK);
	assert_int_equal(res->hunks[0].line, 14);
	assert_non_null(strstr(res->out.ptr, "\terr = walk_tree(sb, WALK_ALL);\n"));
	tdiff_release(&d);
	free(orig);
}

static void hunk_3way_into_a_renamed_function_is_a_risk(void **state)
{
	struct apply_file_result res;

	apply_scan(&res, "scan_root", "count_roots(sb);");
	assert_true(res.hunks[0].risk);
	assert_true(res.risk);
	assert_string_equal(res.hunks[0].found_func, "scan_root");
	assert_non_null(strstr(res.hunks[0].reason,
			       "lands in scan_root() at line 14, not in "
			       "scan_inode() named by the hunk header "
			       "(not found in the target)"));
	apply_file_result_release(&res);
}

static void hunk_3way_inside_the_named_function_is_no_risk(void **state)
{
	struct apply_file_result res;

	apply_scan(&res, "scan_inode", "count_roots(sb);");
	assert_false(res.hunks[0].risk);
	assert_false(res.risk);
	assert_string_equal(res.hunks[0].found_func, "scan_inode");
	apply_file_result_release(&res);
}

static void function_moved_far_away_is_found_by_name(void **state)
{
	CASE(c, res, "function-moved-far", NULL);

	assert_int_equal(res.hunks[0].rule, RULE_FUZZ);
	assert_int_equal(res.hunks[0].fuzz, 1);
	assert_int_equal(res.hunks[0].offset, 111);
	assert_string_equal(res.hunks[0].found_func, "btrfs_previous_extent_item");
	/* the exact copy in btrfs_previous_item() is where GNU patch goes */
	assert_true(res.hunks[0].risk);
	assert_non_null(strstr(res.hunks[0].reason, "in btrfs_previous_item()"));
	assert_out(&res, &c.expect);
	DONE(c, res);
}

static void new_file_is_created(void **state)
{
	CASE(c, res, "new-file", NULL);

	assert_false(c.has_orig);
	assert_int_equal(res.outcome, OUTCOME_CLEAN);
	assert_int_equal(res.hunks[0].rule, RULE_EXACT);
	assert_false(res.deleted);
	assert_out(&res, &c.expect);
	DONE(c, res);
}

static void new_file_already_present_is_already_applied(void **state)
{
	CASE(c, res, "new-file-exists", NULL);

	assert_int_equal(res.outcome, OUTCOME_ALREADY);
	assert_out(&res, &c.orig);
	DONE(c, res);
}

static void new_file_over_different_file_conflicts(void **state)
{
	CASE(c, res, "new-file", NULL);

	apply_file_result_release(&res);
	buf_adds(&c.orig, "/* something else */\n");
	c.has_orig = true;
	run(&res, &c, NULL);
	assert_int_equal(res.outcome, OUTCOME_CONFLICT);
	assert_string_equal(res.reason,
			    "'fs/btrfs/orphan.h' already exists in the target");
	assert_non_null(strstr(res.rej.ptr,
			       "--- /dev/null\n+++ b/fs/btrfs/orphan.h\n"));
	assert_out(&res, &c.orig);
	DONE(c, res);
}

static void deleted_file_is_deleted(void **state)
{
	CASE(c, res, "deleted-file", NULL);

	assert_int_equal(res.outcome, OUTCOME_CLEAN);
	assert_true(res.deleted);
	assert_int_equal(res.out.len, 0);
	DONE(c, res);
}

static void already_deleted_file_is_already_applied(void **state)
{
	CASE(c, res, "already-deleted", NULL);

	assert_int_equal(res.outcome, OUTCOME_ALREADY);
	assert_false(res.deleted);
	assert_int_equal(res.hunks[0].rule, RULE_ALREADY);
	DONE(c, res);
}

static void deleting_a_changed_file_conflicts(void **state)
{
	CASE(c, res, "deleted-file", NULL);

	apply_file_result_release(&res);
	buf_adds(&c.orig, "/* local addition */\n");
	run(&res, &c, NULL);
	assert_int_equal(res.outcome, OUTCOME_CONFLICT);
	assert_false(res.deleted);
	assert_out(&res, &c.orig);
	DONE(c, res);
}

static void missing_file_conflicts(void **state)
{
	CASE(c, res, "exact", NULL);

	apply_file_result_release(&res);
	c.has_orig = false;
	run(&res, &c, NULL);
	assert_int_equal(res.outcome, OUTCOME_CONFLICT);
	assert_string_equal(res.reason,
			    "'fs/btrfs/async-thread.c' does not exist in the target");
	DONE(c, res);
}

static void no_newline_at_eof_is_kept(void **state)
{
	CASE(c, res, "no-eol-context", NULL);

	assert_int_equal(res.outcome, OUTCOME_CLEAN);
	assert_true(res.out.ptr[res.out.len - 1] != '\n');
	assert_out(&res, &c.expect);
	DONE(c, res);
}

static void newline_added_at_eof(void **state)
{
	CASE(c, res, "no-eol-add-newline", NULL);

	assert_int_equal(res.outcome, OUTCOME_CLEAN);
	assert_out(&res, &c.expect);
	apply_file_result_release(&res);

	/* applied twice: the second time it is already there */
	buf_reset(&c.orig);
	buf_add(&c.orig, c.expect.ptr, c.expect.len);
	run(&res, &c, NULL);
	assert_int_equal(res.outcome, OUTCOME_ALREADY);
	DONE(c, res);
}

static void binary_patch_is_rejected(void **state)
{
	struct patch_file f;
	struct apply_file_result res;
	struct err err = ERR_INIT;

	memset(&f, 0, sizeof(f));
	f.old_path = "fs/btrfs/tests/image.bin";
	f.new_path = f.old_path;
	f.binary = true;
	apply_file_result_init(&res);
	assert_int_equal(apply_file(&res, &f, span_from("x"), true, NULL, &err),
			 ERR_PARSE);
	assert_string_equal(err.msg.ptr,
			    "fs/btrfs/tests/image.bin: binary patches are not supported");
	apply_file_result_release(&res);
	err_release(&err);
}

static void enclosing_function_follows_git_rule(void **state)
{
	static const char text[] =
		"#include <linux/init.h>\n"                      /* 1 */
		"static int __init init_btrfs_fs(void)\n"        /* 2 */
		"{\n"                                            /* 3 */
		"\tint err;\n"                                   /* 4 */
		"out:\n"                                         /* 5 */
		"\treturn err;\n"                                /* 6 */
		"}\n"                                            /* 7 */
		"struct btrfs_workqueue {\n"                     /* 8 */
		"\tint thresh;\n"                                /* 9 */
		"};\n"                                           /* 10 */
		"static const char *names[] = {\n"               /* 11 */
		"\t\"a\",\n";                                    /* 12 */
	char *s;

	assert_null(apply_enclosing_function(span_from(text), 1));
	s = apply_enclosing_function(span_from(text), 4);
	assert_string_equal(s, "init_btrfs_fs");
	free(s);
	s = apply_enclosing_function(span_from(text), 6); /* label skipped */
	assert_string_equal(s, "init_btrfs_fs");
	free(s);
	s = apply_enclosing_function(span_from(text), 9);
	assert_string_equal(s, "btrfs_workqueue");
	free(s);
	s = apply_enclosing_function(span_from(text), 12);
	assert_string_equal(s, "names");
	free(s);
	s = apply_enclosing_function(span_from(text), 999);
	assert_string_equal(s, "names");
	free(s);
}

static void worse_outcome_rules(void **state)
{
	assert_int_equal(apply_worse(OUTCOME_CLEAN, OUTCOME_FUZZY), OUTCOME_FUZZY);
	assert_int_equal(apply_worse(OUTCOME_3WAY, OUTCOME_OFFSET), OUTCOME_3WAY);
	assert_int_equal(apply_worse(OUTCOME_ALREADY, OUTCOME_ALREADY),
			 OUTCOME_ALREADY);
	assert_int_equal(apply_worse(OUTCOME_ALREADY, OUTCOME_CLEAN), OUTCOME_CLEAN);
	assert_int_equal(apply_worse(OUTCOME_ALREADY, OUTCOME_CONFLICT),
			 OUTCOME_PARTIAL);
	assert_int_equal(apply_worse(OUTCOME_CONFLICT, OUTCOME_PARTIAL),
			 OUTCOME_PARTIAL);
	assert_int_equal(apply_worse(OUTCOME_CONFLICT, OUTCOME_CLEAN),
			 OUTCOME_CONFLICT);
	assert_int_equal(apply_worse(OUTCOME_PARTIAL, OUTCOME_FUZZY),
			 OUTCOME_PARTIAL);
}

static void rule_and_outcome_names(void **state)
{
	assert_string_equal(apply_rule_name(RULE_EXACT), "exact");
	assert_string_equal(apply_rule_name(RULE_3WAY_HUNK), "3-way-hunk");
	assert_string_equal(apply_rule_name(RULE_ALREADY), "already-applied");
	assert_string_equal(apply_outcome_name(OUTCOME_PARTIAL),
			    "partially applied");
	assert_string_equal(apply_outcome_name(OUTCOME_FUZZY), "fuzzy");
}

/* --- GNU patch cross-check ----------------------------------------------- */

enum gnu {
	GNU_CLEAN,    /* applied without a word */
	GNU_OFFSET,   /* applied, "(offset N lines)" */
	GNU_FUZZ,     /* applied, "with fuzz N" */
	GNU_FAILED,   /* "FAILED" */
	GNU_REVERSED, /* "Reversed (or previously applied)", skipped */
	GNU_EXISTS,   /* "already exists", skipped */
	GNU_DELETED,  /* applied and removed the file */
};

/* What kcarry does where GNU patch applies with offset or fuzz. */
enum relation {
	SAME,     /* kcarry's output is GNU patch's */
	RISK,     /* different, and kcarry reports a risk */
	CONFLICT, /* kcarry reports a conflict */
	OTHER,    /* GNU patch did not apply: kcarry's outcome below */
};

static const struct cross {
	const char *name;
	enum gnu gnu;
	enum relation rel;
	enum apply_outcome outcome; /* kcarry's */
} crosses[] = {
	{ "exact", GNU_CLEAN, SAME, OUTCOME_CLEAN },
	{ "offset-3-down", GNU_OFFSET, SAME, OUTCOME_OFFSET },
	{ "offset-13-up", GNU_OFFSET, SAME, OUTCOME_OFFSET },
	{ "fuzz-1", GNU_FUZZ, SAME, OUTCOME_FUZZY },
	{ "fuzz-2", GNU_FUZZ, SAME, OUTCOME_FUZZY },
	{ "nearest-without-function", GNU_OFFSET, SAME, OUTCOME_OFFSET },
	{ "placement-risk", GNU_OFFSET, SAME, OUTCOME_OFFSET },
	{ "named-function-preferred", GNU_OFFSET, RISK, OUTCOME_OFFSET },
	{ "named-function-fuzz", GNU_OFFSET, RISK, OUTCOME_FUZZY },
	{ "named-function-conflict", GNU_OFFSET, CONFLICT, OUTCOME_CONFLICT },
	{ "function-moved-far", GNU_OFFSET, RISK, OUTCOME_FUZZY },
	{ "no-eol-context", GNU_CLEAN, SAME, OUTCOME_CLEAN },
	{ "no-eol-add-newline", GNU_CLEAN, SAME, OUTCOME_CLEAN },
	{ "new-file", GNU_CLEAN, SAME, OUTCOME_CLEAN },
	{ "deleted-file", GNU_DELETED, SAME, OUTCOME_CLEAN },
	{ "new-file-exists", GNU_EXISTS, OTHER, OUTCOME_ALREADY },
	{ "already-add", GNU_REVERSED, OTHER, OUTCOME_ALREADY },
	{ "already-delete", GNU_REVERSED, OTHER, OUTCOME_ALREADY },
	{ "already-modify", GNU_REVERSED, OTHER, OUTCOME_ALREADY },
	{ "partial", GNU_REVERSED, OTHER, OUTCOME_PARTIAL },
	{ "conflict-rej", GNU_FAILED, OTHER, OUTCOME_CONFLICT },
	{ "drift-inside-hunk", GNU_FAILED, OTHER, OUTCOME_3WAY },
	{ "removed-lines-context-drifted", GNU_FAILED, OTHER, OUTCOME_3WAY },
	{ "drift-conflict", GNU_FAILED, OTHER, OUTCOME_CONFLICT },
	{ "already-present-drifted", GNU_FUZZ, RISK, OUTCOME_ALREADY },
	{ "already-block-beside-exact", GNU_OFFSET, RISK, OUTCOME_ALREADY },
	{ "present-other-comment-offset", GNU_OFFSET, RISK, OUTCOME_ALREADY },
	{ "present-other-comment-fuzz", GNU_FUZZ, RISK, OUTCOME_ALREADY },
	{ "present-other-comment-inside", GNU_FAILED, OTHER, OUTCOME_ALREADY },
	{ "already-applied-drifted", GNU_REVERSED, OTHER, OUTCOME_ALREADY },
	{ "defines-existing-function", GNU_REVERSED, OTHER, OUTCOME_3WAY },
};

struct gnu_run {
	bool ran;          /* patch(1) is installed */
	int status;
	bool exists;       /* the file exists afterwards */
	struct buf out, log;
};

static void gnu_patch(struct gnu_run *g, const struct tcase *c)
{
	char dir[] = "/tmp/kcarry-apply-XXXXXX";
	const char *path = patch_file_path(c->d.f);
	char *file, *pfile, *slash, *cmd, *logf;
	struct err err = ERR_INIT;
	int st;

	buf_init(&g->out, 0);
	buf_init(&g->log, 0);
	g->ran = system("patch --version >/dev/null 2>&1") == 0;
	if (!g->ran)
		return;
	assert_non_null(mkdtemp(dir));
	file = fs_join(dir, path);
	slash = strrchr(file, '/');
	*slash = '\0';
	assert_int_equal(fs_mkdirs(file, &err), 0);
	*slash = '/';
	if (c->has_orig)
		assert_int_equal(fs_write_atomic(file, c->orig.ptr, c->orig.len, &err), 0);
	pfile = fs_join(dir, "the.patch");
	logf = fs_join(dir, "log");
	assert_int_equal(fs_write_atomic(pfile, c->patch_text.ptr,
					 c->patch_text.len, &err), 0);
	cmd = xstrfmt("cd '%s' && patch -p1 -N -F2 --no-backup-if-mismatch "
		      "-i the.patch >log 2>&1 </dev/null", dir);
	st = system(cmd);
	g->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	g->exists = fs_is_file(file);
	if (g->exists)
		assert_int_equal(fs_read_file(&g->out, file, 0, &err), 0);
	assert_int_equal(fs_read_file(&g->log, logf, 0, &err), 0);
	assert_int_equal(fs_remove_tree(dir, &err), 0);
	free(cmd);
	free(logf);
	free(pfile);
	free(file);
	err_release(&err);
}

static enum gnu gnu_kind(const struct gnu_run *g)
{
	const char *log = g->log.ptr;

	if (strstr(log, "Reversed (or previously applied)"))
		return GNU_REVERSED;
	if (strstr(log, "already exists"))
		return GNU_EXISTS;
	if (strstr(log, "FAILED"))
		return GNU_FAILED;
	if (g->status != 0)
		return GNU_FAILED;
	if (!g->exists)
		return GNU_DELETED;
	if (strstr(log, "with fuzz"))
		return GNU_FUZZ;
	if (strstr(log, "(offset"))
		return GNU_OFFSET;
	return GNU_CLEAN;
}

static bool same_out(const struct apply_file_result *res, const struct buf *b)
{
	return res->out.len == b->len && !memcmp(res->out.ptr, b->ptr, b->len);
}

static void gnu_patch_cross_check(void **state)
{
	char *dirpath = fs_join(unit_fixtures(), "apply");
	char **names;
	size_t nr, i, j, checked = 0;
	struct err err = ERR_INIT;

	/* every fixture directory is in the table */
	assert_int_equal(fs_list_dir(dirpath, &names, &nr, &err), 0);
	for (i = 0; i < nr; i++) {
		char *sub = fs_join(dirpath, names[i]);
		bool dir = fs_is_dir(sub);

		free(sub);
		if (!dir)
			continue;
		for (j = 0; j < sizeof(crosses) / sizeof(crosses[0]); j++)
			if (!strcmp(crosses[j].name, names[i]))
				break;
		if (j == sizeof(crosses) / sizeof(crosses[0]) &&
		    strcmp(names[i], "already-deleted"))
			fail_msg("fixture apply/%s is not cross-checked", names[i]);
	}
	fs_free_list(names, nr);
	free(dirpath);

	for (j = 0; j < sizeof(crosses) / sizeof(crosses[0]); j++) {
		const struct cross *x = &crosses[j];
		struct gnu_run g;
		enum gnu kind;
		CASE(c, res, x->name, NULL);

		gnu_patch(&g, &c);
		if (!g.ran) {
			buf_release(&g.out);
			buf_release(&g.log);
			DONE(c, res);
			skip();
		}
		kind = gnu_kind(&g);
		if (kind != x->gnu)
			fail_msg("%s: GNU patch did %d, not %d:\n%s", x->name,
				 kind, x->gnu, g.log.ptr);
		if (res.outcome != x->outcome)
			fail_msg("%s: kcarry's outcome is %s, not %s", x->name,
				 apply_outcome_name(res.outcome),
				 apply_outcome_name(x->outcome));
		switch (kind) {
		case GNU_CLEAN:
			/* GNU patch is silent: kcarry must agree */
			if (!same_out(&res, &g.out))
				fail_msg("%s: differs from GNU patch", x->name);
			break;
		case GNU_DELETED:
			assert_true(res.deleted);
			break;
		case GNU_OFFSET:
		case GNU_FUZZ:
			if (x->rel == SAME && !same_out(&res, &g.out))
				fail_msg("%s: differs from GNU patch", x->name);
			if (x->rel == RISK &&
			    (same_out(&res, &g.out) || !res.risk))
				fail_msg("%s: expected a different result "
					 "reported as a risk", x->name);
			if (x->rel == CONFLICT &&
			    res.outcome != OUTCOME_CONFLICT)
				fail_msg("%s: expected a conflict", x->name);
			break;
		default:
			assert_int_equal(x->rel, OTHER);
			break;
		}
		checked++;
		buf_release(&g.out);
		buf_release(&g.log);
		DONE(c, res);
	}
	assert_int_equal(checked, sizeof(crosses) / sizeof(crosses[0]));
}

static int setup(void **state)
{
	struct err err = ERR_INIT;

	if (tree_global_init(&err) < 0) {
		err_release(&err);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	tree_global_shutdown();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exact_patch_applies_at_stated_lines),
		cmocka_unit_test(offset_3_lines_down_is_found),
		cmocka_unit_test(offset_13_lines_up_is_found),
		cmocka_unit_test(hunks_after_an_applied_hunk_keep_its_offset),
		cmocka_unit_test(nearest_match_wins_without_function_name),
		cmocka_unit_test(match_inside_named_function_beats_nearer_one),
		cmocka_unit_test(fuzz_1_drops_one_outer_context_line),
		cmocka_unit_test(fuzz_2_drops_two_outer_context_lines),
		cmocka_unit_test(fuzz_beyond_opts_fuzz_is_refused),
		cmocka_unit_test(fuzz_beyond_opts_fuzz_goes_to_hunk_3way),
		cmocka_unit_test(fuzz_match_must_be_unique),
		cmocka_unit_test(fuzz_dropped_line_standing_elsewhere_is_a_risk),
		cmocka_unit_test(fuzz_dropped_context_nearby_needs_an_unanchored_side),
		cmocka_unit_test(fuzz_kept_unique_anchor_is_no_risk),
	cmocka_unit_test(fuzz_dropped_block_keyword_names_no_place),
		cmocka_unit_test(long_hunks_of_repeated_lines_place_as_patch_does),
		cmocka_unit_test(long_hunks_of_new_lines_cost_linear_work),
		cmocka_unit_test(section_cut_short_by_diff_p_is_a_prefix),
		cmocka_unit_test(hunk_showing_its_own_entry_needs_no_section),
		cmocka_unit_test(already_applied_addition_is_recognised),
		cmocka_unit_test(already_applied_deletion_is_recognised),
		cmocka_unit_test(already_applied_modification_is_recognised),
		cmocka_unit_test(partially_applied_patch_names_its_hunks),
		cmocka_unit_test(conflict_writes_rej),
		cmocka_unit_test(removed_lines_missing_are_named),
		cmocka_unit_test(added_lines_already_there_are_not_added_twice),
		cmocka_unit_test(applied_hunk_with_drifted_context_is_not_applied_twice),
		cmocka_unit_test(added_block_beside_an_exact_match_is_already_applied),
	cmocka_unit_test(preimage_echoed_by_the_added_lines_is_no_second_place),
	cmocka_unit_test(echo_of_a_block_the_patch_adds_twice_is_no_risk),
	cmocka_unit_test(echo_of_a_moved_block_is_no_risk),
	cmocka_unit_test(whole_postimage_adding_a_line_found_once_is_no_risk),
		cmocka_unit_test(removed_lines_found_when_their_context_drifted),
		cmocka_unit_test(present_with_other_comment_at_offset_is_not_added_twice),
		cmocka_unit_test(present_with_other_comment_at_fuzz_is_not_added_twice),
		cmocka_unit_test(present_with_other_comment_inside_context_is_there),
		cmocka_unit_test(comment_only_change_is_not_present_in_edited_form),
		cmocka_unit_test(commented_out_line_is_not_present_in_edited_form),
		cmocka_unit_test(adding_a_function_the_target_defines_is_a_risk),
		cmocka_unit_test(three_way_with_blob_merges_drifted_context),
		cmocka_unit_test(three_way_at_hunk_level_merges_drifted_context),
		cmocka_unit_test(blob_that_does_not_fit_the_patch_is_not_used),
		cmocka_unit_test(blob_loader_failure_is_an_error),
		cmocka_unit_test(three_way_conflict_writes_diff3_markers),
		cmocka_unit_test(three_way_conflict_without_markers_keeps_target),
		cmocka_unit_test(placement_risk_when_offset_lands_in_another_function),
	cmocka_unit_test(hunk_changing_a_definition_line_is_placed_by_it),
	cmocka_unit_test(file_scope_hunk_is_placed_by_its_declaration),
	cmocka_unit_test(already_applied_where_the_code_moved_is_no_risk),
	cmocka_unit_test(fuzzy_postimage_where_the_code_moved_is_already_applied),
	cmocka_unit_test(hunk_after_its_function_has_not_moved_out),
	cmocka_unit_test(revert_after_the_named_function_is_no_risk),
	cmocka_unit_test(new_entry_placed_by_the_next_definition),
	cmocka_unit_test(function_renamed_by_the_patch_itself),
	cmocka_unit_test(forward_declaration_is_not_a_definition),
	cmocka_unit_test(definitions_in_other_branches),
	cmocka_unit_test(added_branch_under_opposite_test),
	cmocka_unit_test(reading_where_another_hunk_lands),
	cmocka_unit_test(postimage_tie_without_preimage_is_already_applied),
	cmocka_unit_test(landing_in_the_renamed_function_by_an_added_part),
	cmocka_unit_test(merge_beside_the_only_side_left_is_no_risk),
		cmocka_unit_test(fuzz_finds_named_function_when_exact_match_is_elsewhere),
		cmocka_unit_test(conflict_rather_than_landing_in_another_function),
		cmocka_unit_test(without_3way_lands_like_gnu_patch_as_a_risk),
		cmocka_unit_test(hunk_3way_into_a_renamed_function_is_a_risk),
		cmocka_unit_test(hunk_3way_inside_the_named_function_is_no_risk),
		cmocka_unit_test(function_moved_far_away_is_found_by_name),
		cmocka_unit_test(new_file_is_created),
		cmocka_unit_test(new_file_already_present_is_already_applied),
		cmocka_unit_test(new_file_over_different_file_conflicts),
		cmocka_unit_test(deleted_file_is_deleted),
		cmocka_unit_test(already_deleted_file_is_already_applied),
		cmocka_unit_test(deleting_a_changed_file_conflicts),
		cmocka_unit_test(missing_file_conflicts),
		cmocka_unit_test(no_newline_at_eof_is_kept),
		cmocka_unit_test(newline_added_at_eof),
		cmocka_unit_test(binary_patch_is_rejected),
		cmocka_unit_test(enclosing_function_follows_git_rule),
		cmocka_unit_test(worse_outcome_rules),
		cmocka_unit_test(rule_and_outcome_names),
		cmocka_unit_test(gnu_patch_cross_check),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
