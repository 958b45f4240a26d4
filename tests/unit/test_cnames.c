/*
 * Tests for cnames: the names a C text uses and declares, read from
 * whole files and from the lines of a hunk.
 */
#include "unit.h"

#include "cnames.h"

/* ---- names of C text ---- */

/* The id for name (the first one at line, when line is not 0). */
static const struct cnames_id *id_of(const struct cnames *c, const char *name,
				     size_t line)
{
	for (size_t i = 0; i < c->nr; i++)
		if (c->ids[i].len == strlen(name) &&
		    !memcmp(c->ids[i].name, name, c->ids[i].len) &&
		    (!line || c->ids[i].line == line))
			return &c->ids[i];
	fail_msg("no id '%s' at line %zu", name, line);
	return NULL;
}

static void scan_c(struct cnames *c, const char *text, unsigned flags)
{
	struct err err = ERR_INIT;

	cnames_init(c);
	if (cnames_scan(c, "x.c", text, strlen(text), flags, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	err_release(&err);
}

static void assert_decl(const struct cnames *c, const char *name,
			size_t line, enum cnames_decl_kind kind)
{
	const struct cnames_id *id = id_of(c, name, line);

	assert_int_equal(id->kind, CNAMES_ID_DECL);
	assert_int_equal(id->decl, kind);
}

static void names_tell_declarations_from_uses(void **state)
{
	static const char text[] =
		"static struct foo global_foo = { .a = 1 };\n"  /* 1 */
		"static int helper(struct foo *f, int n)\n"     /* 2 */
		"{\n"
		"\tstruct btrfs_device *device = f->c;\n"       /* 4 */
		"\tu64 bytes;\n"                                /* 5 */
		"\tfor (int j = 0; j < n; j++)\n"               /* 6 */
		"\t\tbytes += j;\n"
		"\tif (!device)\n"
		"\t\tgoto out;\n"                               /* 9 */
		"\tdevice->bdev_file = NULL;\n"                 /* 10 */
		"out:\n"                                        /* 11 */
		"\treturn kfree(device), 0;\n"                  /* 12 */
		"}\n"
		"int proto(int x);\n";                          /* 14 */
	struct cnames c;

	scan_c(&c, text, 0);
	assert_decl(&c, "global_foo", 1, CNAMES_DECL_VARIABLE);
	assert_int_equal(id_of(&c, "a", 1)->kind, CNAMES_ID_MEMBER);
	assert_int_equal(id_of(&c, "foo", 1)->kind, CNAMES_ID_TAG);
	assert_decl(&c, "helper", 2, CNAMES_DECL_FUNCTION);
	assert_decl(&c, "f", 2, CNAMES_DECL_LOCAL);
	assert_decl(&c, "n", 2, CNAMES_DECL_LOCAL);
	assert_decl(&c, "device", 4, CNAMES_DECL_LOCAL);
	assert_int_equal(id_of(&c, "c", 4)->kind, CNAMES_ID_MEMBER);
	assert_int_equal(id_of(&c, "u64", 5)->kind, CNAMES_ID_TYPE);
	assert_decl(&c, "bytes", 5, CNAMES_DECL_LOCAL);
	assert_decl(&c, "j", 6, CNAMES_DECL_LOCAL);
	assert_int_equal(id_of(&c, "out", 9)->kind, CNAMES_ID_LABEL);
	assert_int_equal(id_of(&c, "bdev_file", 10)->kind, CNAMES_ID_MEMBER);
	assert_decl(&c, "out", 11, CNAMES_DECL_LABEL);
	assert_int_equal(id_of(&c, "kfree", 12)->kind, CNAMES_ID_CALL);
	assert_decl(&c, "proto", 14, CNAMES_DECL_FUNCTION);
	assert_decl(&c, "x", 14, CNAMES_DECL_LOCAL);
	/* NULL and the keywords are not names */
	for (size_t i = 0; i < c.nr; i++)
		assert_false(c.ids[i].len == 4 && !memcmp(c.ids[i].name, "NULL", 4));
	assert_int_equal(c.nr_funcs, 1);
	assert_int_equal(c.funcs[0].first, 2);
	assert_int_equal(c.funcs[0].last, 13);
	cnames_release(&c);
}

static void names_of_records_enums_typedefs_and_macros(void **state)
{
	static const char text[] =
		"#include <linux/fs.h>\n"                               /* 1 */
		"#include \"ctree.h\"\n"                                /* 2 */
		"#define BTRFS_WORK_HELPER(name) \\\n"                  /* 3 */
		"void btrfs_##name(struct work_struct *arg);\n"         /* 4 */
		"struct foo {\n"                                        /* 5 */
		"\tint a, *b;\n"                                        /* 6 */
		"\tunsigned int flag:1;\n"                              /* 7 */
		"\tDECLARE_BITMAP(bits, 8);\n"                          /* 8 */
		"\tunion { u64 x; u32 y; } u;\n"                        /* 9 */
		"};\n"
		"enum e { E_A, E_B = 2 };\n"                            /* 11 */
		"typedef void (*btrfs_func_t)(struct btrfs_work *arg);\n" /* 12 */
		"typedef struct { int z; } zt;\n"                       /* 13 */
		"struct workqueue_struct;\n";                           /* 14 */
	struct cnames c;

	scan_c(&c, text, 0);
	assert_int_equal(c.nr_includes, 2);
	assert_true(c.includes[0].angle);
	assert_int_equal(c.includes[0].len, strlen("linux/fs.h"));
	assert_false(c.includes[1].angle);
	assert_decl(&c, "BTRFS_WORK_HELPER", 3, CNAMES_DECL_MACRO);
	assert_true(id_of(&c, "work_struct", 4)->directive);
	assert_int_equal(c.nr_pastes, 1);
	assert_string_equal(c.pastes[0], "btrfs_*");
	assert_decl(&c, "foo", 5, CNAMES_DECL_TAG);
	assert_decl(&c, "a", 6, CNAMES_DECL_MEMBER);
	assert_decl(&c, "b", 6, CNAMES_DECL_MEMBER);
	assert_decl(&c, "flag", 7, CNAMES_DECL_MEMBER);
	assert_decl(&c, "bits", 8, CNAMES_DECL_MACRO_ARG);
	assert_decl(&c, "x", 9, CNAMES_DECL_MEMBER);
	assert_decl(&c, "u", 9, CNAMES_DECL_MEMBER);
	assert_decl(&c, "E_A", 11, CNAMES_DECL_ENUM_CONST);
	assert_decl(&c, "E_B", 11, CNAMES_DECL_ENUM_CONST);
	assert_decl(&c, "btrfs_func_t", 12, CNAMES_DECL_TYPEDEF);
	assert_decl(&c, "arg", 12, CNAMES_DECL_LOCAL);
	assert_decl(&c, "z", 13, CNAMES_DECL_MEMBER);
	assert_decl(&c, "zt", 13, CNAMES_DECL_TYPEDEF);
	assert_decl(&c, "workqueue_struct", 14, CNAMES_DECL_TAG);
	cnames_release(&c);
}

/* Hunk lines start anywhere: in a comment, in a macro body. */
static void fragment_skips_the_comment_and_macro_it_starts_in(void **state)
{
	static const char text[] =
		"\t * mentions foo_bar in prose\n"
		"\t */\n"
		"\tnormal_work_helper(work);\t\t\\\n"
		"}\n"
		"\tdevice->bdev_file = NULL;\n"  /* 5 */
		"\tBTRFS_FS_NEW_A,\n"             /* 6 */
		"\tBTRFS_FS_NEW_B = 4,\n";
	struct cnames c;

	scan_c(&c, text, CNAMES_FRAGMENT);
	assert_int_equal(id_of(&c, "device", 5)->kind, CNAMES_ID_USE);
	assert_int_equal(id_of(&c, "bdev_file", 5)->kind, CNAMES_ID_MEMBER);
	assert_decl(&c, "BTRFS_FS_NEW_A", 6, CNAMES_DECL_ENUM_CONST);
	for (size_t i = 0; i < c.nr; i++)
		assert_true(c.ids[i].line >= 5);
	cnames_release(&c);
}

/*
 * A hunk of a function's end shows its labels at what looks like file
 * scope: "out_free_keys:" at the start of a statement there is a label
 * (nothing else at file scope reads so), not a use of a name.
 */
static void fragment_labels_are_declarations(void **state)
{
	static const char text[] =
		"\tif (p->off_max_hint)\n"    /* 1 */
		"\t\treturn ret;\n"
		"\n"
		"out_free_keys:\n"              /* 4 */
		"\tkfree(nparms->keys);\n"     /* 5 */
		"put_chain:\n"                  /* 6 */
		"\tx = flag ? a : b;\n"        /* 7 */
		"\tswitch (x) {\n"
		"\tcase FOO: y = 1; break;\n"  /* 9 */
		"\t}\n";
	struct cnames c;

	scan_c(&c, text, CNAMES_FRAGMENT);
	assert_decl(&c, "out_free_keys", 4, CNAMES_DECL_LABEL);
	assert_decl(&c, "put_chain", 6, CNAMES_DECL_LABEL);
	assert_int_equal(id_of(&c, "kfree", 5)->kind, CNAMES_ID_CALL);
	assert_int_equal(id_of(&c, "a", 7)->kind, CNAMES_ID_USE);
	assert_int_equal(id_of(&c, "FOO", 9)->kind, CNAMES_ID_USE);
	cnames_release(&c);
	/* a whole file has no labels at file scope */
	scan_c(&c, "int x;\nfoo:\n", 0);
	assert_int_equal(id_of(&c, "foo", 2)->kind, CNAMES_ID_USE);
	cnames_release(&c);
}

/*
 * Macro calls that end no statement (SCHED_FEAT(x, true) lines, X-macro
 * lists) in one branch of an #ifdef: the branch's names are not lost when
 * the #else puts the scanning state back.
 */
static void macro_lines_in_a_branch_declare(void **state)
{
	static const char text[] =
		"\n"
		"#ifdef CONFIG_PREEMPT_RT\n"
		"SCHED_FEAT(TTWU_QUEUE, false)\n"      /* 3 */
		"# ifdef CONFIG_PREEMPT_LAZY\n"
		"SCHED_FEAT(PREEMPT_LAZY, true)\n"     /* 5 */
		"# endif\n"
		"#else\n"
		"SCHED_FEAT(TTWU_QUEUE, true)\n"       /* 8 */
		"#endif\n";
	/* a declaration whose head differs per configuration still reads
	 * as one: the first branch is put back, not ended */
	static const char heads[] =
		"#ifdef CONFIG_X\n"
		"int f(int a)\n"                       /* 2 */
		"#else\n"
		"int f(void)\n"
		"#endif\n"
		"{\n"
		"\treturn 0;\n"
		"}\n";
	struct cnames c;

	scan_c(&c, text, CNAMES_FRAGMENT);
	assert_decl(&c, "TTWU_QUEUE", 3, CNAMES_DECL_MACRO_ARG);
	assert_decl(&c, "PREEMPT_LAZY", 5, CNAMES_DECL_MACRO_ARG);
	assert_decl(&c, "TTWU_QUEUE", 8, CNAMES_DECL_MACRO_ARG);
	cnames_release(&c);
	scan_c(&c, heads, 0);
	assert_int_equal(c.nr_funcs, 1);
	assert_decl(&c, "f", 4, CNAMES_DECL_FUNCTION);
	cnames_release(&c);
}

/*
 * At file scope "u8 *f(...);" is a prototype, not a product: a type named
 * by a typedef, then a pointer declarator (Debian 6.1's mana gdma.h,
 * "u8 *mana_gd_get_wqe_ptr(...)", read as a call of a missing function
 * when the header was new).  The parameters of a function typedef are
 * its own.  In a body, "a * b(c);" stays an expression.
 */
static void prototypes_returning_a_typedef_pointer(void **state)
{
	static const char text[] =
		"u8 *get_wqe_ptr(const struct gdma_queue *wq, u32 off);\n" /* 1 */
		"extern u8 *get_other(int a);\n"                          /* 2 */
		"typedef void handler_t(void *ctx, u32 rxq_id);\n"        /* 3 */
		"typedef u8 *(*alloc_t)(size_t n);\n"                    /* 4 */
		"int f(int a, int b)\n"                                   /* 5 */
		"{\n"
		"\ta * g(b);\n"                                          /* 7 */
		"\treturn a;\n"
		"}\n";
	struct cnames c;

	(void)state;
	scan_c(&c, text, 0);
	assert_decl(&c, "get_wqe_ptr", 1, CNAMES_DECL_FUNCTION);
	assert_decl(&c, "wq", 1, CNAMES_DECL_LOCAL);
	assert_decl(&c, "off", 1, CNAMES_DECL_LOCAL);
	assert_int_equal(id_of(&c, "u8", 1)->kind, CNAMES_ID_TYPE);
	assert_decl(&c, "get_other", 2, CNAMES_DECL_FUNCTION);
	assert_decl(&c, "handler_t", 3, CNAMES_DECL_TYPEDEF);
	assert_decl(&c, "ctx", 3, CNAMES_DECL_LOCAL);
	assert_decl(&c, "rxq_id", 3, CNAMES_DECL_LOCAL);
	assert_decl(&c, "alloc_t", 4, CNAMES_DECL_TYPEDEF);
	assert_decl(&c, "n", 4, CNAMES_DECL_LOCAL);
	assert_int_equal(id_of(&c, "g", 7)->kind, CNAMES_ID_CALL);
	assert_int_equal(id_of(&c, "a", 7)->kind, CNAMES_ID_USE);
	cnames_release(&c);
	/* a hunk's lines at column 1 are at file scope too */
	scan_c(&c, "u8 *get_wqe_ptr(const struct q *wq, u32 off);\n",
	       CNAMES_FRAGMENT);
	assert_decl(&c, "get_wqe_ptr", 1, CNAMES_DECL_FUNCTION);
	cnames_release(&c);
}

/*
 * A pointer to a struct at file scope or in a record declares the struct
 * (incomplete); in a parameter list or a body it is a use.
 */
static void pointer_tags_declare_incomplete_structs(void **state)
{
	static const char text[] =
		"struct dma_pool *dma_pool_create(const char *name);\n" /* 1 */
		"struct module {\n"                                      /* 2 */
		"\tstruct module_sect_attrs *sect_attrs;\n"              /* 3 */
		"\tint (*show)(struct seq_file *sf, int x);\n"           /* 4 */
		"\tstruct notes notes;\n"                                /* 5 */
		"};\n"
		"void igc_flush(struct igc_hw *hw);\n"                   /* 7 */
		"int f(void)\n"                                          /* 8 */
		"{\n"
		"\tstruct folio *folio;\n"                               /* 10 */
		"\treturn 0;\n"
		"}\n";
	struct cnames c;

	(void)state;
	scan_c(&c, text, 0);
	assert_decl(&c, "dma_pool", 1, CNAMES_DECL_INCOMPLETE);
	assert_decl(&c, "module_sect_attrs", 3, CNAMES_DECL_INCOMPLETE);
	assert_int_equal(id_of(&c, "seq_file", 4)->kind, CNAMES_ID_TAG);
	assert_int_equal(id_of(&c, "notes", 5)->kind, CNAMES_ID_TAG);
	assert_int_equal(id_of(&c, "igc_hw", 7)->kind, CNAMES_ID_TAG);
	assert_int_equal(id_of(&c, "folio", 10)->kind, CNAMES_ID_TAG);
	cnames_release(&c);
}

static void builtins_need_no_definition(void **state)
{
	assert_true(cnames_is_builtin("NULL", 4));
	assert_true(cnames_is_builtin("__builtin_expect", 16));
	assert_true(cnames_is_builtin("sizeof", 6));
	assert_true(cnames_is_builtin("__func__", 8));
	assert_false(cnames_is_builtin("kfree", 5));
	assert_false(cnames_is_builtin("bdev_file", 9));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_tell_declarations_from_uses),
		cmocka_unit_test(names_of_records_enums_typedefs_and_macros),
		cmocka_unit_test(fragment_skips_the_comment_and_macro_it_starts_in),
		cmocka_unit_test(fragment_labels_are_declarations),
		cmocka_unit_test(macro_lines_in_a_branch_declare),
		cmocka_unit_test(builtins_need_no_definition),
		cmocka_unit_test(prototypes_returning_a_typedef_pointer),
		cmocka_unit_test(pointer_tags_declare_incomplete_structs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
