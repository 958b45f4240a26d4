/*
 * test_settings: kcarry.conf and the KCARRY_* environment: sizes,
 * durations, defaults, which source wins, errors naming their key.
 */
#include "unit.h"

#include <unistd.h>

#include "settings.h"

static void sizes_take_binary_units(void **state)
{
	unsigned long long n = 0;

	assert_int_equal(settings_parse_size(&n, "512"), 0);
	assert_int_equal(n, 512);
	assert_int_equal(settings_parse_size(&n, "64k"), 0);
	assert_int_equal(n, 65536);
	assert_int_equal(settings_parse_size(&n, "2M"), 0);
	assert_int_equal(n, 2 << 20);
	assert_int_equal(settings_parse_size(&n, "1.5G"), 0);
	assert_int_equal(n, 3ULL << 29);
	assert_int_equal(settings_parse_size(&n, "3GiB"), 0);
	assert_int_equal(n, 3ULL << 30);
	assert_int_equal(settings_parse_size(&n, "0"), 0);
	assert_int_equal(n, 0);
	assert_int_equal(settings_parse_size(&n, ""), -1);
	assert_int_equal(settings_parse_size(&n, "-1"), -1);
	assert_int_equal(settings_parse_size(&n, "k"), -1);
	assert_int_equal(settings_parse_size(&n, "1x"), -1);
	assert_int_equal(settings_parse_size(&n, "99999999T"), -1);
}

static void durations_default_to_seconds(void **state)
{
	long ms = 0;

	assert_int_equal(settings_parse_duration(&ms, "250ms"), 0);
	assert_int_equal(ms, 250);
	assert_int_equal(settings_parse_duration(&ms, "30"), 0);
	assert_int_equal(ms, 30000);
	assert_int_equal(settings_parse_duration(&ms, "0.5s"), 0);
	assert_int_equal(ms, 500);
	assert_int_equal(settings_parse_duration(&ms, "5m"), 0);
	assert_int_equal(ms, 300000);
	assert_int_equal(settings_parse_duration(&ms, "1h"), 0);
	assert_int_equal(ms, 3600000);
	assert_int_equal(settings_parse_duration(&ms, "soon"), -1);
	assert_int_equal(settings_parse_duration(&ms, "5d"), -1);
	assert_int_equal(settings_parse_duration(&ms, "-3s"), -1);
}

static const char *const env_names[] = {
	"KCARRY_LORE",
	"KCARRY_HTTP_TIMEOUT",
	"KCARRY_HTTP_MAX_SIZE",
	"KCARRY_OFFLINE",
	"KCARRY_HTTP_LOW_SPEED_TIME",
	"KCARRY_TARBALL_MAX_SIZE",
	"KCARRY_TARBALL_MAX_ENTRIES",
	"KCARRY_HTTP_RETRIES",
	"KCARRY_HTTP_CAINFO",
	"KCARRY_HTTP_CONNECT_TIMEOUT",
	"KCARRY_HTTP_LOW_SPEED_LIMIT",
	"KCARRY_HTTP_RETRY_WAIT",
	"KCARRY_HTTP_RETRY_MAX_WAIT",
	"KCARRY_HTTP_MAX_REDIRECTS",
	"KCARRY_REFRESH_NOTE",
};

static int clean_env(void **state)
{
	for (size_t i = 0; i < sizeof(env_names) / sizeof(env_names[0]); i++)
		unsetenv(env_names[i]);
	return 0;
}

static void defaults_without_a_workspace(void **state)
{
	struct settings s;
	struct err err = ERR_INIT;

	assert_int_equal(settings_load(&s, NULL, &err), 0);
	assert_string_equal(s.lore, "https://lore.kernel.org/all/");
	assert_int_equal(s.fetch.limits.timeout_ms, 3600 * 1000);
	assert_int_equal(s.fetch.limits.connect_timeout_ms, 30 * 1000);
	assert_int_equal(s.fetch.limits.low_speed_limit, 1024);
	assert_int_equal(s.fetch.limits.low_speed_time, 60);
	assert_int_equal(s.fetch.limits.max_size, 2ULL << 30);
	assert_int_equal(s.fetch.limits.retries, 3);
	assert_false(s.fetch.offline);
	assert_null(s.fetch.cainfo);
	assert_int_equal(s.tarball.max_bytes, 3ULL << 30);
	assert_int_equal(s.tarball.max_entries, 500000);
	settings_release(&s);
	err_release(&err);
}

static char *workspace_with(const char *conf)
{
	char tmpl[] = "/tmp/kcarry-settings.XXXXXX";
	char *dir = xstrdup(mkdtemp(tmpl));
	char *path = fs_join(dir, SETTINGS_FILE);
	struct err err = ERR_INIT;

	assert_int_equal(fs_write_atomic(path, conf, strlen(conf), &err), 0);
	free(path);
	return dir;
}

static void drop(char *dir)
{
	unit_run("rm -rf '%s'", dir);
	free(dir);
}

static void file_then_environment(void **state)
{
	char *ws =
		workspace_with("[kcarry]\n\tlore = http://127.0.0.1:9/btrfs\n"
			       "[http]\n\ttimeout = 5m\n\tmax-size = 64M\n"
			       "\toffline = true\n\tlow-speed-time = 250ms\n"
			       "\tcainfo = /etc/ca.pem\n"
			       "[tarball]\n\tmax-size = 1G\n"
			       "\tmax-entries = 1000\n");
	struct settings s;
	struct err err = ERR_INIT;

	assert_int_equal(settings_load(&s, ws, &err), 0);
	assert_string_equal(s.lore, "http://127.0.0.1:9/btrfs/");
	assert_int_equal(s.fetch.limits.timeout_ms, 300000);
	assert_int_equal(s.fetch.limits.max_size, 64ULL << 20);
	assert_true(s.fetch.offline);
	/* libcurl counts the low-speed time in whole seconds */
	assert_int_equal(s.fetch.limits.low_speed_time, 1);
	assert_string_equal(s.fetch.cainfo, "/etc/ca.pem");
	assert_int_equal(s.tarball.max_bytes, 1ULL << 30);
	assert_int_equal(s.tarball.max_entries, 1000);
	settings_release(&s);

	setenv("KCARRY_HTTP_TIMEOUT", "3s", 1);
	setenv("KCARRY_OFFLINE", "0", 1);
	setenv("KCARRY_TARBALL_MAX_SIZE", "2M", 1);
	assert_int_equal(settings_load(&s, ws, &err), 0);
	assert_int_equal(s.fetch.limits.timeout_ms, 3000);
	assert_false(s.fetch.offline);
	assert_int_equal(s.tarball.max_bytes, 2 << 20);
	settings_release(&s);
	clean_env(NULL);
	drop(ws);
	err_release(&err);
}

static void bad_value_names_its_key(void **state)
{
	char *ws = workspace_with("[http]\n\tretries = many\n");
	struct settings s;
	struct err err = ERR_INIT;

	assert_int_equal(settings_load(&s, ws, &err), ERR_USAGE);
	assert_string_equal(err.msg.ptr, "http.retries: 'many' is not a count");
	settings_release(&s);
	setenv("KCARRY_HTTP_MAX_SIZE", "huge", 1);
	assert_int_equal(settings_load(&s, NULL, &err), ERR_USAGE);
	assert_string_equal(err.msg.ptr, "KCARRY_HTTP_MAX_SIZE: 'huge' is not "
					 "a size (512, 64k, 2M, 3G)");
	settings_release(&s);
	clean_env(NULL);
	drop(ws);
	err_release(&err);
}

static void note_form_stable_rhel_or_an_error(void **state)
{
	char *ws = workspace_with("[refresh]\n\tnote = rhel\n"
				  "[http]\n\tretries = many\n");
	enum carry_note_form f = CARRY_NOTE_RHEL;
	struct err err = ERR_INIT;

	assert_int_equal(settings_note_form(&f, NULL, &err), 0);
	assert_int_equal(f, CARRY_NOTE_STABLE);
	/* the other keys are not read: a bad one is not its error */
	assert_int_equal(settings_note_form(&f, ws, &err), 0);
	assert_int_equal(f, CARRY_NOTE_RHEL);
	setenv("KCARRY_REFRESH_NOTE", "stable", 1);
	assert_int_equal(settings_note_form(&f, ws, &err), 0);
	assert_int_equal(f, CARRY_NOTE_STABLE);
	setenv("KCARRY_REFRESH_NOTE", "RHEL", 1); /* as git config: any case */
	assert_int_equal(settings_note_form(&f, ws, &err), 0);
	assert_int_equal(f, CARRY_NOTE_RHEL);
	setenv("KCARRY_REFRESH_NOTE", "suse", 1);
	assert_int_equal(settings_note_form(&f, ws, &err), ERR_USAGE);
	assert_string_equal(err.msg.ptr, "KCARRY_REFRESH_NOTE: 'suse' is not "
					 "stable or rhel");
	clean_env(NULL);
	drop(ws);
	err_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sizes_take_binary_units),
		cmocka_unit_test(durations_default_to_seconds),
		cmocka_unit_test_setup(defaults_without_a_workspace, clean_env),
		cmocka_unit_test_setup(file_then_environment, clean_env),
		cmocka_unit_test_setup(bad_value_names_its_key, clean_env),
		cmocka_unit_test_setup(note_form_stable_rhel_or_an_error,
				       clean_env),
	};
	struct err err = ERR_INIT;

	/* kcarry.conf is read through libgit2 */
	if (tree_global_init(&err) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
