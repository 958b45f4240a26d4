#!/bin/sh
# Responses that are no proper HTTP answer get words that say so, from
# httpd.py on 127.0.0.1: a 10 MB response header (was "Out of memory"),
# a status line that is no HTTP and a lone "100 Continue" (both were
# "refusing the redirect").  Each names the URL, exits 3, keeps nothing.
HTTPD=$(pwd)/httpd.py
. ./lib.sh
need python3
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy
export no_proxy=127.0.0.1,localhost
export KCARRY_HTTP_RETRY_WAIT=100ms KCARRY_HTTP_RETRY_MAX_WAIT=1s
export KCARRY_HTTP_TIMEOUT=10s KCARRY_HTTP_CONNECT_TIMEOUT=2s

mkdir srv
python3 "$HTTPD" "$TEST_TMP/srv" "$TEST_TMP/port" >>"$TEST_TMP/httpd.err" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$TEST_TMP"' EXIT
i=0
while [ ! -s port ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ -s port ] || { cat httpd.err; fail "httpd.py did not start"; }
P=http://127.0.0.1:$(cat port)
kcarry init ws >/dev/null

expect_exit 3 kcarry -C ws import big "$P/bighead/t@x/"
stderr_has "^error: cannot fetch '$P/bighead/t@x/t.mbox.gz': the server's response header is larger than the [0-9.]+ [KM]iB limit$"
grep -qi "out of memory" "$ERR" && fail "out of memory: $(cat "$ERR")"
expect_exit 3 kcarry -C ws import many "$P/manyhead/t@x/"
stderr_has "^error: cannot fetch '$P/manyhead/t@x/t.mbox.gz': the server's response header is larger than the 64.0 KiB limit$"

expect_exit 3 kcarry -C ws import garbage "$P/garbage/t@x/"
stderr_has "^error: cannot fetch '$P/garbage/t@x/t.mbox.gz': the server sent a malformed response \\(no HTTP status line\\)$"
grep -q "redirect" "$ERR" && fail "a redirect: $(cat "$ERR")"

expect_exit 3 kcarry -C ws import cont "$P/continue/t@x/"
stderr_has "^error: cannot fetch '$P/continue/t@x/t.mbox.gz': the server sent an unexpected response \\(HTTP 100, then no final status\\)$"
grep -q "redirect" "$ERR" && fail "a redirect: $(cat "$ERR")"

[ -z "$(find .cache -name 't.mbox*' -type f 2>/dev/null)" ] || fail "something was cached"
[ -z "$(ls ws/patches)" ] || fail "something was stored"
exit 0
