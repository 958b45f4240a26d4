#include "unit.h"

#include "kconfig.h"

/* The symbols line refers to, joined by ' '. */
static void assert_refs(const char *line, bool in_help, const char *expect)
{
	struct span v[8];
	struct buf b = BUF_INIT;
	size_t n = kconfig_refs(line, strlen(line), in_help, v, 8);

	for (size_t i = 0; i < n && i < 8; i++) {
		if (i)
			buf_addc(&b, ' ');
		buf_add(&b, v[i].ptr, v[i].len);
	}
	if (strcmp(b.ptr ? b.ptr : "", expect))
		fail_msg("\"%s\": [%s], not [%s]", line, b.ptr ? b.ptr : "",
			 expect);
	buf_release(&b);
}

static void attributes_refer_to_symbols(void **state)
{
	(void)state;
	assert_refs("\tselect HAVE_GUP_FAST if ARM_LPAE && !(PREEMPT_RT && HIGHPTE)",
		    false, "HAVE_GUP_FAST ARM_LPAE PREEMPT_RT HIGHPTE");
	assert_refs("\timply FOO_BAR", false, "FOO_BAR");
	assert_refs("\tdepends on X86_X32 || (COMPAT && 64BIT)", false,
		    "X86_X32 COMPAT 64BIT");
	assert_refs("\tdepends on PCI=y && ACPI!=n # a comment NOT_ME", false,
		    "PCI ACPI");
	assert_refs("\tvisible if EXPERT", false, "EXPERT");
	assert_refs("if ARCH_FOO", false, "ARCH_FOO");
	assert_refs("\tdefault y if ARM64 && !CPU_BIG_ENDIAN", false,
		    "ARM64 CPU_BIG_ENDIAN");
	assert_refs("\tdefault 0x1000 if PAGE_SIZE_64KB", false,
		    "PAGE_SIZE_64KB");
	assert_refs("\tdefault \"LOCKDOWN IF SECURE\" if LOCK_DOWN", false,
		    "LOCK_DOWN");
	assert_refs("\tdef_bool $(success,$(CC) -Werror X) && FOO", false, "");
	assert_refs("\tdef_bool BAR && $(cc-option,-mFOO)", false, "BAR");
	assert_refs("\tbool \"Enable it if UNSURE\" if EXPERT || COMPILE_TEST",
		    false, "EXPERT COMPILE_TEST");
	assert_refs("\ttristate \"A driver\"", false, "");
	assert_refs("\tselect FOO\n", false, "FOO");
	/* not attributes, values, help text */
	assert_refs("config FOO", false, "");
	assert_refs("\tsource \"drivers/Kconfig\"", false, "");
	assert_refs("\tdefault m", false, "");
	assert_refs("\tdefault 3", false, "");
	assert_refs("\t  If unsure, select N and depend on NOTHING.", false, "");
	assert_refs("\tselect FOO", true, "");
	assert_refs("\tdepends on lowercase_thing", false, "");
}

static void declarations(void **state)
{
	struct span n;

	(void)state;
	assert_true(kconfig_decl("config PREEMPT_RT", 17, &n));
	assert_int_equal(n.len, 10);
	assert_memory_equal(n.ptr, "PREEMPT_RT", 10);
	assert_true(kconfig_decl("menuconfig 64BIT # x", 20, &n));
	assert_int_equal(n.len, 5);
	assert_false(kconfig_decl("\tselect FOO", 11, &n));
	assert_false(kconfig_decl("configure X", 11, &n));
	assert_true(kconfig_file("arch/x86/Kconfig"));
	assert_true(kconfig_file("arch/arm64/Kconfig.platforms"));
	assert_true(kconfig_file("Kconfig"));
	assert_false(kconfig_file("drivers/Makefile"));
	assert_false(kconfig_file("Documentation/kbuild/kconfig.rst"));
}

/* Help text runs from "help" to a line indented no deeper; blank lines
 * keep it. */
static void help_text_is_not_read(void **state)
{
	static const char *lines[] = {
		"config FOO", "\tbool \"foo\"", "\thelp", "\t  Say Y.",
		"", "\t  More.", "\tselect ENDS_THE_HELP",
		"config BAR", "\tdepends on FOO", "\t---help---", "\t  Text.",
		"config OLD", "\thelp", "\tSay Y at one tab.", "\tselect STILL_TEXT",
		"", "config NEXT",
	};
	static const bool want[] = {
		false, false, true, true, true, true, false,
		false, false, true, true,
		false, true, true, true, true, false,
	};
	size_t hi = 0;
	bool help = false;

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(*lines); i++) {
		bool text = kconfig_help_line(lines[i], strlen(lines[i]), help,
					      hi);

		if (text != (i && want[i - 1] && (want[i] || !*lines[i])))
			fail_msg("\"%s\": help text %d", lines[i], text);
		help = kconfig_help_after(lines[i], strlen(lines[i]), help, &hi);
		if (help != want[i])
			fail_msg("after \"%s\": help %d", lines[i], help);
	}
}

static void sets_and_coverage(void **state)
{
	static const char text[] =
		"config A\n\tbool \"a\"\n\tdepends on B && C\n\thelp\n"
		"\t  depends on D\n\nconfig E\n\tselect A\n\tselect F\n";
	struct kconfig_set s;

	(void)state;
	kconfig_set_init(&s);
	kconfig_set_add(&s, "B", 1);
	kconfig_set_add(&s, "B", 1);
	assert_int_equal(s.nr, 1);
	/* refs: B, C, A, F (D is help text); known: B, A (the text's own) */
	assert_int_equal(kconfig_coverage(&s, text, strlen(text), false), 50);
	kconfig_text_decls(&s, text, strlen(text));
	assert_true(kconfig_set_has(&s, "E", 1));
	assert_false(kconfig_set_has(&s, "D", 1));
	assert_int_equal(kconfig_coverage(&s, "", 0, false), 100);
	kconfig_set_release(&s);
}

/* A makefile's CONFIG_X words, as X; X_MODULE is the module of X. */
static void makefile_lines_refer_to_symbols(void **state)
{
	struct span v[4];
	struct kconfig_set s;
	size_t n;

	(void)state;
	n = kconfig_make_refs("obj-$(CONFIG_ASHMEM) += ashmem.o # CONFIG_NOT",
			      45, v, 4);
	assert_int_equal(n, 1);
	assert_int_equal(v[0].len, 6);
	assert_memory_equal(v[0].ptr, "ASHMEM", 6);
	n = kconfig_make_refs("ifeq ($(CONFIG_A)$(CONFIG_B_MODULE),y) CONFIG_A",
			      47, v, 4);
	assert_int_equal(n, 2);
	assert_int_equal(kconfig_make_refs("MY_CONFIG_X := 1 CONFIG_", 24, v, 4),
			 0);
	assert_true(kconfig_makefile("drivers/staging/Makefile"));
	assert_true(kconfig_makefile("fs/btrfs/Kbuild"));
	assert_true(kconfig_makefile("scripts/Makefile.lib"));
	assert_false(kconfig_makefile("tools/perf/Makefile.config"));
	assert_false(kconfig_makefile("drivers/Kconfig"));
	kconfig_set_init(&s);
	kconfig_set_add(&s, "B", 1);
	assert_true(kconfig_module_of(&s, (struct span){ "B_MODULE", 8 }));
	assert_false(kconfig_module_of(&s, (struct span){ "C_MODULE", 8 }));
	assert_false(kconfig_module_of(&s, (struct span){ "B", 1 }));
	assert_int_equal(kconfig_coverage(&s, "obj-$(CONFIG_B_MODULE) += b.o\n"
					  "obj-$(CONFIG_C) += c.o\n", 53, true),
			 50);
	kconfig_set_release(&s);
}

/* The macros a makefile defines with -D; not in comments, not pasted. */
static void makefile_defines(void **state)
{
	static const char text[] =
		"basename_flags = -DKBUILD_BASENAME=$(call name-fix,$(b))\n"
		"ccflags-y += -DDEBUG -D__KBUILD_MODNAME=kmod_$(m) \\\n"
		"\t-I$(src) -DLEVEL=2 '-DQUOTED=\"x\"'\n"
		"# ccflags-y += -DCOMMENTED_OUT\n"
		"cflags-$(CONFIG_X) += -DAFTER_CONF # -DAFTER_HASH\n"
		"\\#define -DESCAPED_HASH\n"
		"x := $(call cc-option,-DIN_CALL) $(foo)-DPASTED x-DNOT -D$(VAR)\n"
		"-D9BAD\n";
	static const char *const yes[] = { "KBUILD_BASENAME", "DEBUG",
					    "__KBUILD_MODNAME", "LEVEL",
					    "QUOTED", "AFTER_CONF",
					    "ESCAPED_HASH", "IN_CALL" };
	static const char *const no[] = { "COMMENTED_OUT", "AFTER_HASH",
					   "PASTED", "NOT", "VAR", "9BAD",
					   "kmod_", "I" };
	struct kconfig_set s;

	(void)state;
	kconfig_set_init(&s);
	kconfig_make_defines(&s, text, strlen(text));
	for (size_t i = 0; i < sizeof(yes) / sizeof(*yes); i++)
		if (!kconfig_set_has(&s, yes[i], strlen(yes[i])))
			fail_msg("-D%s not read", yes[i]);
	for (size_t i = 0; i < sizeof(no) / sizeof(*no); i++)
		if (kconfig_set_has(&s, no[i], strlen(no[i])))
			fail_msg("%s read as a -D", no[i]);
	kconfig_set_release(&s);
	kconfig_set_init(&s);
	kconfig_make_defines(&s, "-DAT_START", 10);
	assert_true(kconfig_set_has(&s, "AT_START", 8));
	kconfig_set_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(attributes_refer_to_symbols),
		cmocka_unit_test(declarations),
		cmocka_unit_test(help_text_is_not_read),
		cmocka_unit_test(sets_and_coverage),
		cmocka_unit_test(makefile_lines_refer_to_symbols),
		cmocka_unit_test(makefile_defines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
