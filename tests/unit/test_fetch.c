/*
 * test_fetch: where downloads are cached, URL escaping, and the refusals
 * that need no network (the HTTP behaviour itself is tested end to end
 * against real servers: tests/e2e/t015, t016).
 */
#include "unit.h"

#include "fetch.h"

static int cache_env(void **state)
{
	setenv("KCARRY_CACHE", "/c", 1);
	return 0;
}

static void cache_path(const char *url, const char *want)
{
	char *p = fetch_cache_path("a", url);
	assert_string_equal(p, want);
	free(p);
}

static void cache_path_mirrors_the_url(void **state)
{
	cache_path(
		"https://cdn.kernel.org/pub/linux/kernel/v6.x/linux-6.1.tar.xz",
		"/c/a/cdn.kernel.org/pub/linux/kernel/v6.x/linux-6.1.tar.xz");
	cache_path("http://127.0.0.1:8080/btrfs/a@b/t.mbox.gz",
		   "/c/a/127.0.0.1:8080/btrfs/a@b/t.mbox.gz");
	/* no way out of the cache, no hidden names */
	cache_path("http://h/../../etc/passwd", "/c/a/h/_./_./etc/passwd");
	cache_path("http://h//x/./.y", "/c/a/h/x/_/_y");
	cache_path("http://h/a b/%2F", "/c/a/h/a_b/%2F");
	/* credentials stay out of file names */
	cache_path("https://me:secret@h:8443/x", "/c/a/h:8443/x");
}

static void query_and_long_names_are_hashed(void **state)
{
	char *a = fetch_cache_path("a", "http://h/all/?x=m&q=foo");
	char *b = fetch_cache_path("a", "http://h/all/?x=m&q=bar");
	char long_url[400];

	assert_true(starts_with(a, "/c/a/h/all/query-"));
	assert_int_equal(strlen(a), strlen("/c/a/h/all/query-") + 16);
	assert_string_not_equal(a, b);
	free(a);
	free(b);
	memset(long_url, 'x', sizeof(long_url));
	memcpy(long_url, "http://h/", 9);
	long_url[sizeof(long_url) - 1] = '\0';
	a = fetch_cache_path("a", long_url);
	assert_int_equal(strlen(a), strlen("/c/a/h/") + 64);
	free(a);
}

static void escaping_as_b4_and_public_inbox(void **state)
{
	struct buf b = BUF_INIT;

	fetch_escape_segment(&b, "a/b@c d%é");
	assert_string_equal(b.ptr, "a%2Fb@c%20d%25%C3%A9");
	buf_reset(&b);
	/* urllib.parse.quote_plus */
	fetch_escape_query(&b, "(s:\"x y\" AND f:\"a@b\") AND d:20240410..");
	assert_string_equal(b.ptr, "%28s%3A%22x+y%22+AND+f%3A%22a%40b%22%29+"
				   "AND+d%3A20240410..");
	buf_release(&b);
}

static void only_http_and_https(void **state)
{
	struct fetch_opts o;
	struct fetch_request req = { 0 };
	struct fetch_result res;
	struct err err = ERR_INIT;

	fetch_opts_init(&o);
	req.url = "file:///etc/passwd";
	req.path = "/nonexistent/x";
	assert_int_equal(fetch_url(&res, &req, &o, &err), ERR_USAGE);
	assert_string_equal(err.msg.ptr, "'file:///etc/passwd': only http:// "
					 "and https:// URLs are fetched");
	fetch_result_release(&res);
	err_release(&err);
}

static void offline_needs_a_cached_copy(void **state)
{
	struct fetch_opts o;
	struct fetch_request req = { 0 };
	struct fetch_result res;
	struct err err = ERR_INIT;

	fetch_opts_init(&o);
	o.offline = true;
	req.url = "https://lore.kernel.org/all/a@b/t.mbox.gz";
	req.path = "/nonexistent/t.mbox.gz";
	assert_int_equal(fetch_url(&res, &req, &o, &err), ERR_IO);
	assert_string_equal(err.msg.ptr,
			    "cannot fetch 'https://lore.kernel.org/all/a@b/"
			    "t.mbox.gz' offline: the cache has no copy");
	fetch_result_release(&res);
	err_release(&err);
}

static void public(const char *url, const char *want)
{
	char *got = fetch_url_public(url);
	assert_string_equal(got, want);
	free(got);
}

static void a_url_is_shown_without_its_credentials(void **state)
{
	(void)state;
	public("https://u:p@lore.example/all/a@b/", "https://lore.example/all/a@b/");
	public("http://u@h:8080/x", "http://h:8080/x");
	public("https://u:p@x@h/y@z/", "https://h/y@z/");
	/* an '@' of the path or query is the message-id's, not a user */
	public("https://lore.example/all/a@b/", "https://lore.example/all/a@b/");
	public("http://h?q=a@b", "http://h?q=a@b");
	public("/srv/mbox", "/srv/mbox");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cache_path_mirrors_the_url),
		cmocka_unit_test(query_and_long_names_are_hashed),
		cmocka_unit_test(escaping_as_b4_and_public_inbox),
		cmocka_unit_test(only_http_and_https),
		cmocka_unit_test(offline_needs_a_cached_copy),
		cmocka_unit_test(a_url_is_shown_without_its_credentials),
	};
	return cmocka_run_group_tests(tests, cache_env, NULL);
}
