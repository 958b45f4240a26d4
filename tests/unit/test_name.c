/*
 * name: the one rule set for series, version and target names, checked
 * wherever a name becomes a path or a ref.
 */
#include "unit.h"

#include "name.h"

static void plain_names_are_valid(void **state)
{
	static const char *const ok[] = { "6.1", "btrfs-wq", "a_b", "x..y",
					  "v3", "3.10.108" };

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_true(name_valid(NAME_SERIES, ok[i]));
		assert_true(name_valid(NAME_TARGET, ok[i]));
		assert_true(name_valid(NAME_VERSION, ok[i]));
	}
	assert_true(name_valid(NAME_VERSION, "6.12.100-1~deb12u1"));
	assert_true(name_valid(NAME_VERSION, "1.0+dfsg"));
}

static void path_and_control_characters_are_refused(void **state)
{
	static const char *const bad[] = {
		"",      "..",  ".",   "../x", "a/b",  "/abs", "a b",
		"a\tb",  "a\nb", "-x", ".x",   "a:b",  "a;b",  "a]b",
		"a\\b",  "a*b", "a?b", "a@b",  "a%b",  "\xc3\xa9",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		for (int k = NAME_SERIES; k <= NAME_VERSION; k++)
			if (name_valid((enum name_kind)k, bad[i]))
				fail_msg("'%s' accepted as kind %d", bad[i], k);
}

static void tilde_and_plus_are_for_versions_only(void **state)
{
	struct err err = ERR_INIT;

	assert_int_equal(name_check(NAME_TARGET, "t~1", &err), ERR_USAGE);
	assert_string_equal(err.msg.ptr,
			    "'t~1': '~' is not allowed in a target name");
	assert_string_equal(err.hint.ptr, "a target name takes letters, "
					  "digits, '-', '_' and '.'");
	err_release(&err);
	assert_false(name_valid(NAME_SERIES, "a+b"));
	assert_true(name_valid(NAME_VERSION, "a+b"));
}

static void long_names_are_refused(void **state)
{
	char s[NAME_MAX_LEN + 2];

	memset(s, 'a', sizeof(s) - 1);
	s[NAME_MAX_LEN] = '\0';
	assert_true(name_valid(NAME_SERIES, s));
	s[NAME_MAX_LEN] = 'a';
	s[NAME_MAX_LEN + 1] = '\0';
	assert_false(name_valid(NAME_SERIES, s));
}

static void control_bytes_are_not_echoed(void **state)
{
	struct err err = ERR_INIT;

	assert_int_equal(name_check(NAME_VERSION, "a\033[2Jb", &err),
			 ERR_USAGE);
	assert_string_equal(err.msg.ptr,
			    "a version name cannot hold the byte 0x1b");
	err_release(&err);
}

static void ref_components_are_injective_and_valid(void **state)
{
	static const char *const names[] = {
		"x_y", "x:y", "x y", "x%y", "x%3Ay", ".x", "x.", "x..y",
		"x.lock", "x%2Elock", "a~b", "a%7Eb", "", "%00",
	};
	size_t n = sizeof(names) / sizeof(names[0]);
	struct buf refs[sizeof(names) / sizeof(names[0])];

	for (size_t i = 0; i < n; i++) {
		refs[i] = (struct buf)BUF_INIT;
		buf_adds(&refs[i], "refs/heads/k/");
		name_ref_component(&refs[i], names[i]);
		assert_int_equal(unit_run("git check-ref-format '%s'",
					  refs[i].ptr), 0);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(refs[i].ptr, refs[j].ptr);
	}
	for (size_t i = 0; i < n; i++)
		buf_release(&refs[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plain_names_are_valid),
		cmocka_unit_test(path_and_control_characters_are_refused),
		cmocka_unit_test(tilde_and_plus_are_for_versions_only),
		cmocka_unit_test(long_names_are_refused),
		cmocka_unit_test(control_bytes_are_not_echoed),
		cmocka_unit_test(ref_components_are_injective_and_valid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
