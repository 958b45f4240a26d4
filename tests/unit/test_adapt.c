/*
 * test_adapt: rule 4 (drifted context) on small texts: the rewritten hunk,
 * its anchor, the places where it must refuse (the lines it removes stand
 * twice, or only blank lines and braces to anchor on, or outside the
 * function the header names), and apply_file's hook: the adapted hunk
 * placed exactly, never clean, and no adaptation with no_adapt.
 */
#include "unit.h"

#include "adapt.h"
#include "apply.h"
#include "patch.h"

struct tpatch {
	struct patch p;
	const struct patch_file *f;
};

static void tpatch_parse(struct tpatch *t, const char *text)
{
	struct patch_parse_opts po = { "test.patch", 1, false };
	struct err err = ERR_INIT;

	patch_init(&t->p);
	if (patch_parse(&t->p, text, strlen(text), &po, &err) < 0)
		fail_msg("cannot parse: %s", err.msg.ptr);
	assert_int_equal(t->p.nr_files, 1);
	t->f = &t->p.files[0];
	err_release(&err);
}

static const char drift_patch[] =
	"--- a/x.c\n"
	"+++ b/x.c\n"
	"@@ -5,7 +5,7 @@ static int foo(struct ctx *c)\n"
	" \tlock(c);\n"
	" \tret = step_one(c);\n"
	" \tif (ret)\n"
	"-\tret = step_two(c, 0);\n"
	"+\tret = step_two(c, FLAG);\n"
	" \tunlock(c);\n"
	" out:\n"
	" \treturn ret;\n";

static const char drift_target[] = "static int foo(struct ctx *c)\n"
				   "{\n"
				   "\tint ret;\n"
				   "\n"
				   "\tmutex_lock(&c->lock);\n"
				   "\tret = step_one_locked(c);\n"
				   "\tif (ret < 0)\n"
				   "\tret = step_two(c, 0);\n"
				   "\tmutex_unlock(&c->lock);\n"
				   "fail:\n"
				   "\treturn ret;\n"
				   "}\n";

static void drift(struct adaptation **a, const struct tpatch *t,
		  const char *target, const char *func)
{
	struct adapt_in in = {
		&t->f->hunks[0], func, { target, strlen(target) }, "x.c"
	};

	adapt_drift(a, &in);
}

static void drift_rewrites_context_from_target(void **state)
{
	struct tpatch t;
	struct adaptation *a;

	(void)state;
	tpatch_parse(&t, drift_patch);
	drift(&a, &t, drift_target, "foo");
	assert_non_null(a);
	assert_int_equal(a->rule, ADAPT_DRIFT);
	assert_int_equal(a->line, 5);
	assert_string_equal(a->adapted,
			    "@@ -5,7 +5,7 @@ static int foo(struct ctx *c)\n"
			    " \tmutex_lock(&c->lock);\n"
			    " \tret = step_one_locked(c);\n"
			    " \tif (ret < 0)\n"
			    "-\tret = step_two(c, 0);\n"
			    "+\tret = step_two(c, FLAG);\n"
			    " \tmutex_unlock(&c->lock);\n"
			    " fail:\n"
			    " \treturn ret;\n");
	assert_non_null(strstr(a->original, " \tif (ret)\n"));
	assert_non_null(strstr(a->note, "foo()"));
	adaptation_free(a);
	patch_release(&t.p);
}

/* A function a macro names ("SYSCALL_DEFINE3(ioctl)") is said as it is
 * named, without a second "()" (5.10's RT 0314 on 5.10.262 read
 * "EXPORT_SYMBOL_GPL(ww_mutex_lock)()"). */
static void drift_note_names_a_macro_function_once(void **state)
{
	static const char patch[] =
		"--- a/x.c\n+++ b/x.c\n"
		"@@ -5,7 +5,7 @@ SYSCALL_DEFINE3(ioctl, unsigned int, fd, unsigned int, cmd, unsigned long, arg)\n"
		" \tlock(c);\n \tret = step_one(c);\n \tif (ret)\n"
		"-\tret = step_two(c, 0);\n+\tret = step_two(c, FLAG);\n"
		" \tunlock(c);\n out:\n \treturn ret;\n";
	static const char target[] =
		"SYSCALL_DEFINE3(ioctl, unsigned int, fd, unsigned int, cmd, unsigned long, arg)\n"
		"{\n\tint ret;\n\n\tmutex_lock(&c->lock);\n"
		"\tret = step_one_locked(c);\n\tif (ret < 0)\n"
		"\tret = step_two(c, 0);\n\tmutex_unlock(&c->lock);\n"
		"fail:\n\treturn ret;\n}\n";
	struct tpatch t;
	struct adaptation *a;

	(void)state;
	tpatch_parse(&t, patch);
	drift(&a, &t, target, "SYSCALL_DEFINE3(ioctl)");
	assert_non_null(a);
	assert_non_null(strstr(a->note, "once in SYSCALL_DEFINE3(ioctl), at line 8"));
	adaptation_free(a);
	patch_release(&t.p);
}

static void drift_refuses_twice_in_function(void **state)
{
	static const char target[] = "static int foo(struct ctx *c)\n"
				     "{\n"
				     "\ta(c);\n"
				     "\tret = step_two(c, 0);\n"
				     "\tb(c);\n"
				     "\tret = step_two(c, 0);\n"
				     "\treturn ret;\n"
				     "}\n";
	struct tpatch t;
	struct adaptation *a;

	(void)state;
	tpatch_parse(&t, drift_patch);
	drift(&a, &t, target, "foo");
	assert_null(a);
	patch_release(&t.p);
}

static void drift_stays_in_named_function(void **state)
{
	static const char target[] = "static int foo_renamed(struct ctx *c)\n"
				     "{\n"
				     "\tret = step_two(c, 0);\n"
				     "}\n"
				     "\n"
				     "static int foo(struct ctx *c)\n"
				     "{\n"
				     "\tret = other(c);\n"
				     "}\n";
	struct tpatch t;
	struct adaptation *a;

	(void)state;
	tpatch_parse(&t, drift_patch);
	drift(&a, &t, target, "foo");
	assert_null(a); /* the line stands once, but in another function */
	patch_release(&t.p);
}

static void drift_needs_a_significant_anchor(void **state)
{
	static const char patch[] = "--- a/x.c\n"
				    "+++ b/x.c\n"
				    "@@ -2,5 +2,4 @@\n"
				    " \ta(c);\n"
				    " \tb(c);\n"
				    "-\n"
				    " \tc(c);\n"
				    " \td(c);\n";
	static const char target[] = "\tx(c);\n\ty(c);\n\n\tz(c);\n";
	struct tpatch t;
	struct adaptation *a;

	(void)state;
	tpatch_parse(&t, patch);
	drift(&a, &t, target, NULL);
	assert_null(a); /* a blank line is no anchor */
	patch_release(&t.p);
}

static void drift_anchors_an_insertion_on_both_neighbours(void **state)
{
	static const char patch[] = "--- a/x.c\n"
				    "+++ b/x.c\n"
				    "@@ -1,6 +1,7 @@\n"
				    " void f(void)\n"
				    " {\n"
				    " \tprepare(c);\n"
				    "+\tcount++;\n"
				    " \treset(c);\n"
				    " \tfinish(c);\n"
				    " }\n";
	static const char once[] =
		"void f(void)\n{\n\tinit(c);\n"
		"\tprepare(c);\n\treset(c);\n\tdone(c);\n}\n";
	static const char twice[] = "void f(void)\n{\n\tprepare(c);\n"
				    "\treset(c);\n\tprepare(c);\n\treset(c);\n"
				    "}\n";
	static const char twice_unpinned[] =
		"void f(void)\n{\n\tinit(c);\n\tprepare(c);\n"
		"\treset(c);\n\tprepare(c);\n\treset(c);\n}\n";
	static const char apart[] = "void f(void)\n{\n\tprepare(c);\n"
				    "\tflush(c);\n\treset(c);\n}\n";
	struct tpatch t;
	struct adaptation *a;

	(void)state;
	tpatch_parse(&t, patch);
	drift(&a, &t, once, NULL);
	assert_non_null(a);
	assert_non_null(strstr(a->adapted, " \tprepare(c);\n+\tcount++;\n"
					   " \treset(c);\n"));
	adaptation_free(a);
	/* the pair stands twice, but the context before it ("{" and the
	 * function's first line) pins the first */
	drift(&a, &t, twice, NULL);
	assert_non_null(a);
	assert_int_equal(a->line, 1);
	assert_non_null(strstr(a->adapted, " {\n \tprepare(c);\n+\tcount++;\n"
					   " \treset(c);\n"));
	adaptation_free(a);
	drift(&a, &t, twice_unpinned, NULL);
	assert_null(a);
	drift(&a, &t, apart, NULL);
	assert_null(a);
	patch_release(&t.p);
}

/* the hunk's lines as the target has them, each in its own run */
static const char sides_patch[] = "--- a/x.c\n"
				  "+++ b/x.c\n"
				  "@@ -1,8 +1,9 @@\n"
				  " void f(void)\n"
				  " {\n"
				  " \tif (enabled(c))\n"
				  " \t\tinit(c);\n"
				  "+\tsecure(c);\n"
				  " \tprobe_old(c);\n"
				  " \tstart(c);\n"
				  " \tdone(c);\n"
				  " }\n";

static void drift_change_goes_beside_the_side_that_stands(void **state)
{
	static const char after[] = "void f(void)\n{\n\tif (enabled(c))\n"
				    "\t\tinit(c);\n\tstart_all(c);\n}\n";
	static const char twice[] = "void f(void)\n{\n\tinit(c);\n"
				    "\tif (enabled(c))\n\t\tinit(c);\n"
				    "\tif (enabled(c))\n\t\tinit(c);\n}\n";
	struct tpatch t;
	struct adaptation *a;

	(void)state;
	tpatch_parse(&t, sides_patch);
	drift(&a, &t, after, NULL);
	assert_non_null(a);
	assert_non_null(strstr(a->adapted, " \t\tinit(c);\n+\tsecure(c);\n"
					   " \tstart_all(c);\n"));
	assert_non_null(strstr(a->note, "at line 5 after the context before "
					"it (the context after it is gone)"));
	adaptation_free(a);
	/* the side left stands twice: where is not known */
	drift(&a, &t, twice, NULL);
	assert_null(a);
	patch_release(&t.p);
}

/*
 * Debian's lockdown patch from 6.1 to 6.12: the stub goes after
 * security_locked_down()'s, whose context stands in that function; the
 * context after it (#endif, #if) stands too, but outside it, below the
 * stubs 6.12 added.  The proposal may go after the context before it,
 * but its note must not say the context after it is gone.
 */
static void drift_change_says_where_the_other_side_stands(void **state)
{
	static const char patch[] =
		"--- a/x.h\n"
		"+++ b/x.h\n"
		"@@ -10,6 +10,11 @@ static inline int locked_down(int what)\n"
		" {\n"
		" \treturn 0;\n"
		" }\n"
		"+static inline int\n"
		"+lock_down(int level)\n"
		"+{\n"
		"+\treturn -1;\n"
		"+}\n"
		" #endif\t/* CONFIG_SECURITY */\n"
		" \n"
		" #if defined(CONFIG_SECURITY) && defined(CONFIG_WATCH_QUEUE)\n";
	static const char target[] =
		"static inline int locked_down(int what)\n"
		"{\n"
		"\treturn 0;\n"
		"}\n"
		"static inline int fill_ctx(int *ctx)\n"
		"{\n"
		"\treturn -1;\n"
		"}\n"
		"#endif\t/* CONFIG_SECURITY */\n"
		"\n"
		"#if defined(CONFIG_SECURITY) && defined(CONFIG_WATCH_QUEUE)\n"
		"#endif\n";
	/* the next definition follows right there, its second line
	 * changed: beside the insertion, not apart from it */
	static const char patch_next[] =
		"--- a/x.c\n"
		"+++ b/x.c\n"
		"@@ -1,15 +1,17 @@\n"
		" int first_value(void)\n"
		" {\n"
		" \tsetup_first();\n"
		"+\tadded_one();\n"
		" \tstep_a();\n"
		" \tstep_b();\n"
		" \tstep_c();\n"
		" \tstep_d();\n"
		" \tstep_e();\n"
		" \tstep_f();\n"
		" \treturn first_thing();\n"
		" }\n"
		" \n"
		"+int added_value(void);\n"
		" int second_value(void)\n"
		" {\n"
		" \treturn second_old();\n";
	static const char target_next[] =
		"int first_value(void)\n"
		"{\n"
		"\tsetup_first();\n"
		"\tstep_a();\n"
		"\tstep_b();\n"
		"\tstep_c();\n"
		"\tstep_new();\n"
		"\tstep_d();\n"
		"\tstep_e();\n"
		"\tstep_f();\n"
		"\treturn first_thing();\n"
		"}\n"
		"\n"
		"int second_value(void)\n"
		"{\n"
		"\treturn second_thing();\n"
		"}\n";
	struct tpatch t;
	struct adaptation *a;

	(void)state;
	tpatch_parse(&t, patch);
	drift(&a, &t, target, "locked_down");
	assert_non_null(a);
	assert_non_null(strstr(a->adapted, " }\n+static inline int\n"));
	assert_null(strstr(a->note, "is gone"));
	assert_non_null(strstr(a->note, "at line 5 after the context before "
					"it (the context after it stands "
					"apart, at line 9)"));
	adaptation_free(a);
	patch_release(&t.p);

	tpatch_parse(&t, patch_next);
	drift(&a, &t, target_next, NULL);
	assert_non_null(a);
	assert_non_null(strstr(a->adapted, " \n+int added_value(void);\n"
					   " int second_value(void)\n"));
	assert_non_null(strstr(a->note, "(the context after it stands "
					"right there, outside the function)"));
	adaptation_free(a);
	patch_release(&t.p);
}

static void drift_change_stays_between_the_other_hunks(void **state)
{
	/* the context before stands once, above the previous hunk's place,
	 * apart from the context after it */
	static const char target[] = "void f(void)\n{\n\tif (enabled(c))\n"
				     "\t\tinit(c);\n\tprobe_new(c);\n"
				     "\tprobe_old(c);\n\tstart(c);\n"
				     "\tdone(c);\n}\n";
	struct tpatch t;
	struct adaptation *a;
	struct adapt_in in;

	(void)state;
	tpatch_parse(&t, sides_patch);
	in = (struct adapt_in){
		&t.f->hunks[0], NULL, { target, strlen(target) }, "x.c", 0, 0
	};
	adapt_drift(&a, &in);
	assert_null(a); /* both sides stand once, apart */
	in.after = 5;	/* the previous hunk landed at line 5 */
	adapt_drift(&a, &in);
	assert_non_null(a);
	assert_non_null(strstr(a->adapted, " \tprobe_new(c);\n+\tsecure(c);\n"
					   " \tprobe_old(c);\n"));
	assert_non_null(strstr(a->note, "before the context after it"));
	adaptation_free(a);
	patch_release(&t.p);
}

static void drift_sorted_list_takes_the_sorted_place(void **state)
{
	static const char patch[] = "--- a/Kconfig\n"
				    "+++ b/Kconfig\n"
				    "@@ -2,4 +2,5 @@ config ARM\n"
				    " \tselect A_ONE\n"
				    " \tselect B_TWO\n"
				    "+\tselect C_TWO_B\n"
				    " \tselect E_FIVE\n"
				    " \tselect F_SIX\n";
	static const char sorted[] = "config ARM\n\tselect A_ZERO\n"
				     "\tselect B_TWO\n\tselect C_THREE\n"
				     "\tselect D_FOUR\n\tselect E_FIVE\n"
				     "\tselect F_SIX\n";
	static const char unsorted[] = "config ARM\n\tselect A_ZERO\n"
				       "\tselect B_TWO\n\tselect D_FOUR\n"
				       "\tselect C_THREE\n\tselect E_FIVE\n"
				       "\tselect F_SIX\n";
	struct tpatch t;
	struct adaptation *a;

	(void)state;
	tpatch_parse(&t, patch);
	drift(&a, &t, sorted, NULL);
	assert_non_null(a);
	assert_non_null(strstr(a->adapted, " \tselect C_THREE\n"
					   "+\tselect C_TWO_B\n"
					   " \tselect D_FOUR\n"));
	assert_non_null(strstr(a->note, "in sorted order"));
	adaptation_free(a);
	drift(&a, &t, unsorted, NULL);
	assert_null(a);
	patch_release(&t.p);
}

static void apply_file_marks_the_hunk_adapted(void **state)
{
	struct tpatch t;
	struct apply_file_result res;
	struct apply_opts opts = APPLY_OPTS_INIT;
	struct err err = ERR_INIT;
	struct span old = { drift_target, strlen(drift_target) };
	const char *want;

	(void)state;
	tpatch_parse(&t, drift_patch);
	apply_file_result_init(&res);
	assert_int_equal(apply_file(&res, t.f, old, true, &opts, &err), 0);
	assert_int_equal(res.outcome, OUTCOME_ADAPTED);
	assert_int_equal(res.hunks[0].rule, RULE_ADAPTED);
	assert_int_equal(res.hunks[0].line, 5);
	assert_non_null(res.hunks[0].adapt);
	assert_int_equal(res.rej.len, 0);
	want = strstr(drift_target, "\tret = step_two(c, 0);");
	assert_int_equal(res.out.len, old.len + 3);
	assert_memory_equal(res.out.ptr, drift_target, want - drift_target);
	assert_non_null(strstr(res.out.ptr, "\tret = step_two(c, FLAG);\n"
					    "\tmutex_unlock(&c->lock);\n"));
	apply_file_result_release(&res);

	opts.no_adapt = true;
	apply_file_result_init(&res);
	assert_int_equal(apply_file(&res, t.f, old, true, &opts, &err), 0);
	assert_int_equal(res.outcome, OUTCOME_CONFLICT);
	assert_null(res.hunks[0].adapt);
	apply_file_result_release(&res);
	patch_release(&t.p);
}

static const char rename_patch[] =
	"--- a/x.c\n"
	"+++ b/x.c\n"
	"@@ -5,7 +5,7 @@ static int scan_inode(struct ctx *c)\n"
	" \tret = prepare(c);\n"
	" \tif (ret)\n"
	" \t\treturn ret;\n"
	"-\tret = walk(c, 0);\n"
	"+\tret = walk_retry(c, scan_inode, \"scan_inode\");\n"
	" \tdone(c);\n"
	" \treturn ret;\n"
	" }\n";

static const char rename_target[] = "static int scan_root(struct ctx *c)\n"
				    "{\n"
				    "\tint ret;\n"
				    "\n"
				    "\tret = prepare(c);\n"
				    "\tif (ret)\n"
				    "\t\tgoto fail;\n"
				    "\tret = walk(c, 0);\n"
				    "\tfinish(c);\n"
				    "\treturn ret;\n"
				    "}\n";

static void renamed_function_renames_identifiers_only(void **state)
{
	struct tpatch t;
	struct adaptation *a;
	struct adapt_in in;

	(void)state;
	tpatch_parse(&t, rename_patch);
	in = (struct adapt_in){ &t.f->hunks[0],
				"scan_inode",
				{ rename_target, strlen(rename_target) },
				"x.c" };
	adapt_drift(&a, &in);
	assert_null(a); /* scan_inode() is not there: not rule 4's */
	adapt_renamed_function(&a, &in);
	assert_non_null(a);
	assert_int_equal(a->rule, ADAPT_RENAMED_FUNCTION);
	assert_int_equal(a->line, 5);
	/* the identifier renamed, the string left as it is */
	assert_non_null(strstr(a->adapted, "+\tret = walk_retry(c, scan_root, "
					   "\"scan_inode\");\n"));
	assert_non_null(strstr(a->adapted, "@@ static int scan_root(struct "
					   "ctx *c)\n \tret = prepare(c);\n"));
	assert_non_null(strstr(a->note, "scan_inode() is scan_root() here"));
	adaptation_free(a);
	patch_release(&t.p);
}

static void renamed_function_refuses_two_alike(void **state)
{
	struct buf two = BUF_INIT;
	struct tpatch t;
	struct adaptation *a;
	struct adapt_in in;
	const char *second = "static int scan_root_locked(struct ctx *c)\n"
			     "{\n\tint ret;\n\n\tret = prepare(c);\n"
			     "\tif (ret)\n\t\tgoto fail;\n"
			     "\tret = walk(c, 0);\n\tfinish(c);\n"
			     "\treturn ret;\n}\n";

	(void)state;
	buf_adds(&two, rename_target);
	buf_adds(&two, "\n");
	buf_adds(&two, second);
	tpatch_parse(&t, rename_patch);
	in = (struct adapt_in){
		&t.f->hunks[0], "scan_inode", { two.ptr, two.len }, "x.c"
	};
	adapt_renamed_function(&a, &in);
	assert_null(a);
	patch_release(&t.p);
	buf_release(&two);
}

static const char folio_patch[] = "--- a/x.c\n"
				  "+++ b/x.c\n"
				  "@@ -3,4 +3,4 @@ int f(struct folio *folio)\n"
				  " \tlock(folio);\n"
				  " \tx = get(folio, 1);\n"
				  "-\ty = compute(folio, x);\n"
				  "+\ty = compute_fast(folio, x);\n"
				  " \tunlock(folio);\n";

static void idents(struct adaptation **a, const char *patch, const char *target)
{
	struct tpatch t;
	struct adapt_in in;

	tpatch_parse(&t, patch);
	in = (struct adapt_in){
		&t.f->hunks[0], "f", { target, strlen(target) }, "x.c"
	};
	adapt_renamed_idents(a, &in);
	patch_release(&t.p);
}

static void renamed_idents_consistent_map(void **state)
{
	static const char target[] = "int f(struct page *page)\n{\n"
				     "\tlock(page);\n"
				     "\tx = get(page, 1);\n"
				     "\ty = compute(page, x);\n"
				     "\tunlock(page);\n}\n";
	struct adaptation *a;

	(void)state;
	idents(&a, folio_patch, target);
	assert_non_null(a);
	assert_int_equal(a->rule, ADAPT_RENAMED_IDENTS);
	assert_int_equal(a->line, 3);
	assert_non_null(strstr(a->adapted, "-\ty = compute(page, x);\n"
					   "+\ty = compute_fast(page, x);\n"));
	assert_non_null(strstr(a->note, "folio -> page"));
	adaptation_free(a);
}

static void renamed_idents_inconsistent_map(void **state)
{
	static const char target[] = "int f(struct page *page)\n{\n"
				     "\tlock(page);\n"
				     "\tx = get(pg, 1);\n"
				     "\ty = compute(page, x);\n"
				     "\tunlock(page);\n}\n";
	static const char kept[] = "int f(struct page *page)\n{\n"
				   "\tlock(folio);\n"
				   "\tx = get(page, 1);\n"
				   "\ty = compute(page, x);\n"
				   "\tunlock(page);\n}\n";
	struct adaptation *a;

	(void)state;
	idents(&a, folio_patch, target); /* folio is page and pg */
	assert_null(a);
	idents(&a, folio_patch, kept); /* folio kept, and renamed */
	assert_null(a);
}

static void renamed_idents_not_guessed_in_added_lines(void **state)
{
	static const char patch[] =
		"--- a/x.c\n"
		"+++ b/x.c\n"
		"@@ -3,4 +3,4 @@ int f(struct folio *folio)\n"
		" \tlock(folio);\n"
		" \tx = get(folio, 1);\n"
		"-\ty = compute(folio, x);\n"
		"+\ty = compute(folio, folio_size(folio));\n"
		" \tunlock(folio);\n";
	static const char target[] = "int f(struct page *page)\n{\n"
				     "\tlock(page);\n"
				     "\tx = get(page, 1);\n"
				     "\ty = compute(page, x);\n"
				     "\tunlock(page);\n}\n";
	struct adaptation *a;

	(void)state;
	/* folio -> page holds in the context; folio_size() is no name the
	 * alignment showed: no page_size() is guessed */
	idents(&a, patch, target);
	assert_null(a);
}

static void renamed_idents_refuses_two_places(void **state)
{
	static const char target[] = "int f(struct page *page)\n{\n"
				     "\tlock(page);\n"
				     "\tx = get(page, 1);\n"
				     "\ty = compute(page, x);\n"
				     "\tunlock(page);\n"
				     "\tlock(pg);\n"
				     "\tx = get(pg, 1);\n"
				     "\ty = compute(pg, x);\n"
				     "\tunlock(pg);\n}\n";
	struct adaptation *a;

	(void)state;
	idents(&a, folio_patch, target);
	assert_null(a);
}

/*
 * Rule 3 across drifted context (Debian's RT patch "arm: Disable
 * FAST_GUP on PREEMPT_RT if HIGHPTE is also enabled", 6.1 -> 6.12):
 * 6.12 renamed HAVE_FAST_GUP to HAVE_GUP_FAST and added a select among
 * the trailing context.  The context on both sides stands once, with
 * exactly the one line between them that the hunk removes, which aligns
 * with it token by token but for the renamed name: the added line takes
 * the same rename.
 */
static const char gup_patch[] =
	"--- a/arch/arm/Kconfig\n"
	"+++ b/arch/arm/Kconfig\n"
	"@@ -3,7 +3,7 @@ config ARM\n"
	" \tselect HAVE_DYNAMIC_FTRACE_WITH_REGS if HAVE_DYNAMIC_FTRACE\n"
	" \tselect HAVE_EFFICIENT_UNALIGNED_ACCESS if MMU\n"
	" \tselect HAVE_EXIT_THREAD\n"
	"-\tselect HAVE_FAST_GUP if ARM_LPAE\n"
	"+\tselect HAVE_FAST_GUP if ARM_LPAE && !(PREEMPT_RT && HIGHPTE)\n"
	" \tselect HAVE_FTRACE_MCOUNT_RECORD if !XIP_KERNEL\n"
	" \tselect HAVE_FUNCTION_GRAPH_TRACER\n"
	" \tselect HAVE_FUNCTION_TRACER if !XIP_KERNEL\n";

/* Rule 3 on a hunk of path whose header names func, as apply_file
 * calls it. */
static void idents_in(struct adaptation **a, const char *patch,
		      const char *target, const char *func, const char *path)
{
	struct tpatch t;
	struct adapt_in in;

	tpatch_parse(&t, patch);
	in = (struct adapt_in){ &t.f->hunks[0], func,
				{ target, strlen(target) }, path };
	adapt_renamed_idents(a, &in);
	patch_release(&t.p);
}

static void kconfig_idents(struct adaptation **a, const char *patch,
			   const char *target)
{
	idents_in(a, patch, target, "ARM", "arch/arm/Kconfig");
}

static const char gup_target_head[] =
	"config ARM\n"
	"\tbool\n"
	"\tselect HAVE_DYNAMIC_FTRACE_WITH_REGS if HAVE_DYNAMIC_FTRACE\n"
	"\tselect HAVE_EFFICIENT_UNALIGNED_ACCESS if MMU\n"
	"\tselect HAVE_EXIT_THREAD\n";

static void renamed_idents_across_drifted_context(void **state)
{
	char *target = xstrfmt("%s%s", gup_target_head,
			       "\tselect HAVE_GUP_FAST if ARM_LPAE\n"
			       "\tselect HAVE_FTRACE_MCOUNT_RECORD if !XIP_KERNEL\n"
			       "\tselect HAVE_FUNCTION_ERROR_INJECTION\n"
			       "\tselect HAVE_FUNCTION_GRAPH_TRACER\n"
			       "\tselect HAVE_FUNCTION_TRACER if !XIP_KERNEL\n");
	struct adaptation *a;

	(void)state;
	kconfig_idents(&a, gup_patch, target);
	assert_non_null(a);
	assert_int_equal(a->rule, ADAPT_RENAMED_IDENTS);
	assert_non_null(strstr(a->adapted,
		"-\tselect HAVE_GUP_FAST if ARM_LPAE\n"
		"+\tselect HAVE_GUP_FAST if ARM_LPAE && !(PREEMPT_RT && HIGHPTE)\n"
		" \tselect HAVE_FTRACE_MCOUNT_RECORD if !XIP_KERNEL\n"
		" \tselect HAVE_FUNCTION_ERROR_INJECTION\n"));
	assert_non_null(strstr(a->note, "HAVE_FAST_GUP -> HAVE_GUP_FAST"));
	adaptation_free(a);
	free(target);
}

/*
 * The adversarial ones: the line between the two sides is another
 * select (HAVE_FAST_GUP gone, HAVE_FOO_BAR there: no part in common), or
 * one side of the context does not stand (the line could be anywhere),
 * or more lines stand between the sides than the hunk removes.  Each
 * stays a conflict.
 */
static void renamed_idents_across_drift_refuses(void **state)
{
	const char *bodies[] = {
		"\tselect HAVE_FOO_BAR if ARM_LPAE\n"
		"\tselect HAVE_FTRACE_MCOUNT_RECORD if !XIP_KERNEL\n"
		"\tselect HAVE_FUNCTION_ERROR_INJECTION\n",
		"\tselect HAVE_GUP_FAST if ARM_LPAE\n"
		"\tselect HAVE_KPROBES\n",
		"\tselect HAVE_GUP_FAST if ARM_LPAE\n"
		"\tselect HAVE_KPROBES\n"
		"\tselect HAVE_FTRACE_MCOUNT_RECORD if !XIP_KERNEL\n",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
		char *target = xstrfmt("%s%s", gup_target_head, bodies[i]);
		struct adaptation *a;

		kconfig_idents(&a, gup_patch, target);
		if (a)
			fail_msg("case %zu adapted: %s", i, a->note);
		free(target);
	}
}

/*
 * The same across drifted context, the removed line edited rather than
 * renamed (Debian's mips-ieee754-relaxed.patch, 6.1 -> 6.12: 6.12 added
 * EMULATED to the enum the hunk rewrites): the
 * added line holding "STRICT, LEGACY" takes the same member; the lines
 * without it stay as they are.  Backward (6.12's patch on 6.1) the
 * member goes again.
 */
static const char mips_patch[] =
	"--- a/fpu-probe.c\n"
	"+++ b/fpu-probe.c\n"
	"@@ -3,6 +3,11 @@ static void cpu_set_fpu_2008(struct cpuinfo_mips *c)\n"
	"  * ABS.fmt/NEG.fmt execution mode.\n"
	"  */\n"
	"-static enum { STRICT, LEGACY, STD2008, RELAXED } ieee754 = STRICT;\n"
	"+enum ieee754_mode { STRICT, LEGACY, STD2008, RELAXED };\n"
	"+#ifdef CONFIG_CPU_LOONGSON64\n"
	"+static enum ieee754_mode ieee754 = RELAXED;\n"
	"+#else\n"
	"+static enum ieee754_mode ieee754 = STRICT;\n"
	"+#endif\n"
	" \n"
	" /*\n"
	"  * Set the IEEE 754 NaN encodings\n";

/* Rule 3 with the function the mips hunk's header names. */
static void mips_idents(struct adaptation **a, const char *patch,
			const char *target)
{
	idents_in(a, patch, target, "cpu_set_fpu_2008", "fpu-probe.c");
}

static void mips_target(char *out, size_t size, const char *member_line,
			const char *extra)
{
	snprintf(out, size,
		 "static void cpu_set_fpu_2008(struct cpuinfo_mips *c)\n"
		 "{\n"
		 "}\n"
		 "/*\n"
		 " * IEEE 754 conformance mode to use.  Affects the NaN encoding and the\n"
		 " * ABS.fmt/NEG.fmt execution mode.\n"
		 " */\n"
		 "%s\n"
		 "%s"
		 "\n"
		 "/*\n"
		 " * Set the IEEE 754 NaN encodings\n"
		 " */\n",
		 member_line, extra);
}

static void edited_line_across_drifted_context(void **state)
{
	char target[1024];
	struct adaptation *a;

	(void)state;
	mips_target(target, sizeof(target),
		    "static enum { STRICT, EMULATED, LEGACY, STD2008, RELAXED } "
		    "ieee754 = STRICT;", "");
	mips_idents(&a, mips_patch, target);
	assert_non_null(a);
	assert_int_equal(a->rule, ADAPT_RENAMED_IDENTS);
	assert_non_null(strstr(a->adapted,
		"-static enum { STRICT, EMULATED, LEGACY, STD2008, RELAXED } ieee754 = STRICT;\n"
		"+enum ieee754_mode { STRICT, EMULATED, LEGACY, STD2008, RELAXED };\n"
		"+#ifdef CONFIG_CPU_LOONGSON64\n"
		"+static enum ieee754_mode ieee754 = RELAXED;\n"));
	assert_non_null(strstr(a->note, "STRICT, LEGACY -> STRICT, EMULATED, LEGACY"));
	adaptation_free(a);
}

/*
 * Adversarial: the list around the edit stands twice in an added line
 * (which one?), or in none (the target's member would be lost), or the
 * edit is more than a few tokens (another line): each a conflict.  (t126
 * has the list the hunk changes itself: a call whose argument it drops,
 * the target's call with one more.)
 */
static void edited_line_refuses(void **state)
{
	static const char twice[] =
		"--- a/fpu-probe.c\n"
		"+++ b/fpu-probe.c\n"
		"@@ -3,6 +3,6 @@ static void cpu_set_fpu_2008(struct cpuinfo_mips *c)\n"
		"  * ABS.fmt/NEG.fmt execution mode.\n"
		"  */\n"
		"-static enum { STRICT, LEGACY, STD2008, RELAXED } ieee754 = STRICT;\n"
		"+enum m { STRICT, LEGACY, STD2008, RELAXED }; enum n { STRICT, LEGACY, STD2008, RELAXED };\n"
		" \n"
		" /*\n"
		"  * Set the IEEE 754 NaN encodings\n";
	static const char none[] =
		"--- a/fpu-probe.c\n"
		"+++ b/fpu-probe.c\n"
		"@@ -3,6 +3,6 @@ static void cpu_set_fpu_2008(struct cpuinfo_mips *c)\n"
		"  * ABS.fmt/NEG.fmt execution mode.\n"
		"  */\n"
		"-static enum { STRICT, LEGACY, STD2008, RELAXED } ieee754 = STRICT;\n"
		"+static int ieee754 = 0;\n"
		" \n"
		" /*\n"
		"  * Set the IEEE 754 NaN encodings\n";
	char target[1024], other[1024];
	struct adaptation *a;

	(void)state;
	mips_target(target, sizeof(target),
		    "static enum { STRICT, EMULATED, LEGACY, STD2008, RELAXED } "
		    "ieee754 = STRICT;", "");
	mips_target(other, sizeof(other),
		    "static enum { STRICT, ONE, TWO, THREE, FOUR, FIVE, LEGACY, "
		    "STD2008, RELAXED } ieee754 = STRICT;", "");
	mips_idents(&a, twice, target);
	assert_null(a);
	mips_idents(&a, none, target);
	assert_null(a);
	mips_idents(&a, mips_patch, other);
	assert_null(a);
}

static void adapted_is_worse_than_3way(void **state)
{
	(void)state;
	assert_int_equal(apply_worse(OUTCOME_3WAY, OUTCOME_ADAPTED),
			 OUTCOME_ADAPTED);
	assert_int_equal(apply_worse(OUTCOME_ADAPTED, OUTCOME_CONFLICT),
			 OUTCOME_CONFLICT);
	assert_int_equal(apply_worse(OUTCOME_ADAPTED, OUTCOME_ALREADY),
			 OUTCOME_ADAPTED);
	assert_string_equal(apply_outcome_name(OUTCOME_ADAPTED), "adapted");
	assert_string_equal(apply_rule_name(RULE_ADAPTED), "adapted");
	assert_string_equal(adapt_rule_name(ADAPT_DRIFT), "drifted-context");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(drift_rewrites_context_from_target),
		cmocka_unit_test(drift_note_names_a_macro_function_once),
		cmocka_unit_test(drift_refuses_twice_in_function),
		cmocka_unit_test(drift_stays_in_named_function),
		cmocka_unit_test(drift_needs_a_significant_anchor),
		cmocka_unit_test(drift_anchors_an_insertion_on_both_neighbours),
		cmocka_unit_test(drift_change_goes_beside_the_side_that_stands),
		cmocka_unit_test(drift_change_says_where_the_other_side_stands),
		cmocka_unit_test(drift_change_stays_between_the_other_hunks),
		cmocka_unit_test(drift_sorted_list_takes_the_sorted_place),
		cmocka_unit_test(apply_file_marks_the_hunk_adapted),
		cmocka_unit_test(renamed_function_renames_identifiers_only),
		cmocka_unit_test(renamed_function_refuses_two_alike),
		cmocka_unit_test(renamed_idents_consistent_map),
		cmocka_unit_test(renamed_idents_inconsistent_map),
		cmocka_unit_test(renamed_idents_not_guessed_in_added_lines),
		cmocka_unit_test(renamed_idents_refuses_two_places),
		cmocka_unit_test(renamed_idents_across_drifted_context),
		cmocka_unit_test(renamed_idents_across_drift_refuses),
		cmocka_unit_test(edited_line_across_drifted_context),
		cmocka_unit_test(edited_line_refuses),
		cmocka_unit_test(adapted_is_worse_than_3way),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
