#!/bin/sh
# Every download's HTTP rules against a misbehaving server this test starts
# on 127.0.0.1 (httpd.py): a mail thread by URL and a tarball target.
# 404, 500 then 200 (retried), 5xx and 429 for good, Retry-After (honoured,
# or too long), a redirect to file:// and from https down to http
# (refused), a self-signed certificate (refused, then trusted through
# http.cainfo), an announced 5 GB body, an endless body, a server that
# drips a byte every 0.9 s (total timeout) or stalls (low-speed limit), an
# HTML page with status 200 (not cached), ETag and Last-Modified
# revalidation (304 reuses the cache), --offline with and without a
# cached copy, a proxy from the environment.  Each error names the URL and
# the HTTP status or the limit, exits 3, and comes within the limits set
# here so that the test takes seconds.
HTTPD=$(pwd)/httpd.py
. ./lib.sh
need python3
need openssl
need gzip
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy
export no_proxy=127.0.0.1,localhost
export KCARRY_HTTP_RETRY_WAIT=100ms KCARRY_HTTP_RETRY_MAX_WAIT=2s
export KCARRY_HTTP_TIMEOUT=3s KCARRY_HTTP_CONNECT_TIMEOUT=2s
export KCARRY_HTTP_LOW_SPEED_LIMIT=1 KCARRY_HTTP_LOW_SPEED_TIME=2s
export KCARRY_HTTP_MAX_SIZE=1M

# what the server serves: a one-patch thread and a tarball
mkdir -p srv/t@x src/linux-1.0
cat >thread.mbox <<'EOT'
From mboxrd@z Thu Jan  1 00:00:00 1970
From: A U Thor <author@example.org>
Subject: [PATCH] demo: fix
Date: Tue, 16 Apr 2024 14:08:02 +0100
Message-ID: <t@x>

A fix.

Signed-off-by: A U Thor <author@example.org>
---
diff --git a/Makefile b/Makefile
--- a/Makefile
+++ b/Makefile
@@ -1 +1 @@
-VERSION = 1
+VERSION = 2

EOT
gzip -c thread.mbox >srv/t@x/t.mbox.gz
echo "VERSION = 1" >src/linux-1.0/Makefile
tar -C src -czf srv/linux.tar.gz linux-1.0

# TLS: a self-signed certificate for 127.0.0.1
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
	-addext subjectAltName=IP:127.0.0.1 -keyout key.pem -out cert.pem \
	>/dev/null 2>&1 || fail "openssl req"

start() { # PORTFILE [CERT KEY]
	python3 "$HTTPD" "$TEST_TMP/srv" "$@" >>"$TEST_TMP/httpd.err" 2>&1 &
	echo $!
}
pid1=$(start "$TEST_TMP/port")
pid2=$(start "$TEST_TMP/tport" "$TEST_TMP/cert.pem" "$TEST_TMP/key.pem")
trap 'kill $pid1 $pid2 2>/dev/null; rm -rf "$TEST_TMP"' EXIT
i=0
while { [ ! -s port ] || [ ! -s tport ]; } && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ -s port ] && [ -s tport ] || { cat httpd.err; fail "httpd.py did not start"; }
P=http://127.0.0.1:$(cat port)
S=https://127.0.0.1:$(cat tport)
log() { cat srv/.log 2>/dev/null; }
clear_log() { : >srv/.log; }
ms() { date +%s%3N; }
# run: expect_exit under a watchdog, with the elapsed time in $took (ms)
run() {
	t0=$(ms)
	expect_exit "$@"
	took=$(($(ms) - t0))
}
within() { # MIN MAX: $took in [MIN, MAX] ms
	[ "$took" -ge "$1" ] && [ "$took" -le "$2" ] ||
		fail "took $took ms, expected $1..$2 ms"
}

kcarry init ws >/dev/null

# --- a thread by URL: fetched, cached, revalidated by ETag -----------------
clear_log
run 0 kcarry -C ws import demo "$P/files/t@x/"
expect_stdout <<'EOT'
imported demo@v1: 1 patch in patches/demo/v1
EOT
git config -f ws/series/demo.conf version.v1.source >got
echo "$P/files/t@x/" | diff - got || fail "source"
[ -f .cache/lore/127.0.0.1:$(cat port)/files/t@x/t.mbox.gz ] || fail "thread not cached"
run 0 kcarry -C ws import demo "$P/files/t@x/"
stdout_has "^demo@v1 is unchanged"
log >got
grep -q '^GET /files/t@x/t.mbox.gz 200 inm=- ' got || fail "first request: $(cat got)"
grep -q '^GET /files/t@x/t.mbox.gz 304 inm="' got || fail "no revalidation: $(cat got)"

# a progress line on a terminal only (script(1) gives kcarry one)
if command -v script >/dev/null 2>&1; then
	script -qec "\"$KCARRY\" -C ws import tty \"$P/flaky/0/t@x/\"" /dev/null \
		>tty.out 2>&1 || fail "import on a terminal: $(cat tty.out)"
	grep -Eq "downloading t.mbox.gz: [0-9]+ bytes of [0-9]+ bytes \(100%\)" tty.out ||
		fail "no progress line on a terminal: $(cat tty.out)"
fi

# a thread is one source
run 2 kcarry -C ws import two thread.mbox t@x
expect_stderr <<'EOT'
error: 't@x' names a thread, which is imported on its own
EOT

# --- statuses -------------------------------------------------------------
run 3 kcarry -C ws import nf "$P/status/404/t@x/"
expect_stderr <<EOT
error: cannot fetch '$P/status/404/t@x/t.mbox.gz': HTTP 404 Not Found
hint: is <t@x> archived at $P/status/404/? series.list-url, or kcarry.lore in kcarry.conf, names the server
EOT
# 500 once, then 200: retried after the backoff
run 0 kcarry -C ws import flaky "$P/flaky/1/t@x/"
expect_stderr <<EOT
'$P/flaky/1/t@x/t.mbox.gz': HTTP 500 Internal Server Error; retrying in 0.1 s (1 of 3)
EOT
# 5xx for good: 1 + 3 tries, 0.1 + 0.2 + 0.4 s apart
run 3 kcarry -C ws import down "$P/status/502/t@x/"
within 700 2500
stderr_has "^'$P/status/502/t@x/t.mbox.gz': HTTP 502 Bad Gateway; retrying in 0.4 s \(3 of 3\)$"
stderr_has "^error: cannot fetch '$P/status/502/t@x/t.mbox.gz': HTTP 502 Bad Gateway$"
stderr_has "^hint: tried 4 times$"
run 3 kcarry -C ws import many "$P/status/429/t@x/"
stderr_has "^error: cannot fetch '$P/status/429/t@x/t.mbox.gz': HTTP 429 Too Many Requests$"
# Retry-After: 1 is honoured
run 0 kcarry -C ws import busy "$P/busy/1/t@x/"
within 1000 2500
expect_stderr <<EOT
'$P/busy/1/t@x/t.mbox.gz': HTTP 503 Service Unavailable; retrying in 1.0 s (1 of 3)
EOT
# Retry-After beyond http.retry-max-wait: no waiting an hour
run 3 kcarry -C ws import later "$P/busy/3600/t@x/"
within 0 1500
expect_stderr <<EOT
error: cannot fetch '$P/busy/3600/t@x/t.mbox.gz': HTTP 503 Service Unavailable, and the server asks to wait 3600 s (more than http.retry-max-wait, 2 s)
EOT
# an HTML page with status 200 is no thread, and is not kept
run 3 kcarry -C ws import html "$P/html/t@x/"
expect_stderr <<EOT
error: '$P/html/t@x/t.mbox.gz' (HTTP 200, text/html; charset=utf-8): not gzip data
hint: nothing was cached; is the URL right?
EOT
[ -z "$(find .cache/lore/*/html -type f 2>/dev/null)" ] || fail "the HTML page was cached"
[ ! -d ws/patches/html ] || fail "stored"

# --- --offline -------------------------------------------------------------
clear_log
run 0 kcarry -C ws import --offline demo2 "$P/files/t@x/"
expect_stderr <<EOT
offline: the cached copy of $P/files/t@x/
EOT
[ -z "$(log)" ] || fail "--offline used the network: $(log)"
KCARRY_OFFLINE=1 run 3 kcarry -C ws import demo3 "$P/files/u@x/"
expect_stderr <<EOT
error: cannot fetch '$P/files/u@x/t.mbox.gz' offline: the cache has no copy
hint: run once without --offline (or KCARRY_OFFLINE) to fill the cache
EOT
[ -z "$(log)" ] || fail "offline used the network: $(log)"

# --- a proxy from the environment ----------------------------------------
clear_log
http_proxy=$P no_proxy= run 0 kcarry -C ws import proxied "http://kcarry-test.invalid/files/t@x/"
stdout_has "^imported proxied@v1: 1 patch"
grep -q '^proxy GET /files/t@x/t.mbox.gz 200' srv/.log || fail "not through the proxy: $(log)"

# --- tarball targets -------------------------------------------------------
# prep URL: a target 't' with that tarball, prepared from scratch
prep() {
	want=$1
	shift
	printf '[kernel]\n\ttarball = %s\n' "$1" >ws/kernels/t.conf
	rm -rf .cache/trees
	run "$want" kcarry -C ws kernels --prepare
}
clear_log
prep 0 "$P/files/linux.tar.gz"
stdout_has "^t +tarball +ready "
[ -f ".cache/tarballs/127.0.0.1:$(cat port)/files/linux.tar.gz" ] || fail "tarball not cached"
# again, the tree gone: revalidated by ETag, 304, the cached copy used
prep 0 "$P/files/linux.tar.gz"
log >got
[ "$(grep -c '^GET /files/linux.tar.gz 200 inm=- ' got)" = 1 ] || fail "$(cat got)"
grep -q '^GET /files/linux.tar.gz 304 inm="' got || fail "no If-None-Match: $(cat got)"
# Last-Modified alone: If-Modified-Since
prep 0 "$P/lm/linux.tar.gz"
prep 0 "$P/lm/linux.tar.gz"
grep -q '^GET /lm/linux.tar.gz 304 inm=- ims=Tue, 16 Apr 2024 13:08:02 GMT$' srv/.log ||
	fail "no If-Modified-Since: $(log)"
# offline, the tree gone: the cached tarball, no request
clear_log
KCARRY_OFFLINE=1 prep 0 "$P/files/linux.tar.gz"
[ -z "$(log)" ] || fail "offline used the network: $(log)"
KCARRY_OFFLINE=1 prep 3 "$P/files/other.tar.gz"
stderr_has "^error: cannot fetch '$P/files/other.tar.gz' offline: the cache has no copy$"

# an HTML page with status 200 is no tarball: not cached, asked again
clear_log
prep 3 "$P/html/linux.tar.gz"
expect_stderr <<EOT
t: preparing the tree
error: '$P/html/linux.tar.gz' (HTTP 200, text/html; charset=utf-8): not a tar archive (Unrecognized archive format)
hint: nothing was cached; is the URL right?
EOT
prep 3 "$P/html/linux.tar.gz"
[ "$(grep -c '^GET /html/linux.tar.gz 200' srv/.log)" = 2 ] || fail "a failure was cached: $(log)"
[ -z "$(find .cache/tarballs/*/html -type f 2>/dev/null)" ] || fail "the HTML page was kept"

# a redirect to file:// is refused; so is one from https to http
prep 3 "$P/redirect/1/file:___etc_passwd"
stderr_has "^error: cannot fetch '$P/redirect/1/file:___etc_passwd': refusing the redirect to 'file:///etc/passwd' \(only http and https are followed, and https only to https\)$"
# the part file of a killed download is removed by the next one
mkdir -p ".cache/tarballs/127.0.0.1:$(cat port)/files"
: >".cache/tarballs/127.0.0.1:$(cat port)/files/linux.tar.gz.part.999999999"
prep 0 "$P/files/linux.tar.gz"
[ -z "$(find .cache/tarballs -name '*.part*')" ] || fail "a stale part file is left"
# a self-signed certificate is refused, and trusted through http.cainfo
prep 3 "$S/files/linux.tar.gz"
stderr_has "^error: cannot fetch '$S/files/linux.tar.gz': SSL certificate problem: self-signed certificate$"
stderr_has "^hint: the server's certificate is checked against the system's CAs"
KCARRY_HTTP_CAINFO=$TEST_TMP/cert.pem prep 0 "$S/files/linux.tar.gz"
printf '[http]\n\tcainfo = %s\n' "$TEST_TMP/cert.pem" >ws/kcarry.conf
prep 3 "$S/redirect/1/$(echo "$P" | tr / _)_files_linux.tar.gz"
stderr_has "^error: cannot fetch '$S/redirect/1/.*': refusing the redirect to '$P/files/linux.tar.gz'"
rm ws/kcarry.conf
# only http and https
prep 2 "ftp://127.0.0.1/linux.tar.gz"
stderr_has "^error: 'ftp://127.0.0.1/linux.tar.gz': only http:// and https:// URLs are fetched$"

# --- size and time limits -------------------------------------------------
# 5 GB announced: refused before a byte is kept
prep 3 "$P/huge/linux.tar.gz"
within 0 2500
stderr_has "^error: cannot fetch '$P/huge/linux.tar.gz': the server announces 4.7 GiB, more than the 1.0 MiB limit$"
stderr_has "^hint: http.max-size in kcarry.conf or KCARRY_HTTP_MAX_SIZE raises the limit$"
[ -z "$(find .cache/tarballs -name '*.part*')" ] || fail "a part file is left"
# an endless body: stopped at the limit
prep 3 "$P/endless/linux.tar.gz"
within 0 2500
stderr_has "^error: cannot fetch '$P/endless/linux.tar.gz': more than the 1.0 MiB limit arrived$"
[ -z "$(find .cache/tarballs -name '*.part*')" ] || fail "a part file is left"
# a byte every 0.9 s passes the low-speed limit (1 B/s): the total
# timeout (3 s) ends it
prep 3 "$P/drip/linux.tar.gz"
within 2900 6000
stderr_has "^error: cannot fetch '$P/drip/linux.tar.gz': not done after 3 s \(http.timeout\)$"
stderr_has "^hint: the limits are set in kcarry.conf \[http\] or KCARRY_HTTP_\* \(kcarry\(1\), NETWORK\)$"
# a server that sends headers and nothing: the low-speed limit
KCARRY_HTTP_LOW_SPEED_LIMIT=1k KCARRY_HTTP_LOW_SPEED_TIME=1 KCARRY_HTTP_TIMEOUT=20s \
	prep 3 "$P/stall/linux.tar.gz"
within 900 4000
stderr_has "^error: cannot fetch '$P/stall/linux.tar.gz': slower than 1.0 KiB/s for 1 s \(http.low-speed-limit, http.low-speed-time\)$"
# a setting that does not parse names itself
KCARRY_HTTP_TIMEOUT=soon prep 2 "$P/files/linux.tar.gz"
stderr_has "^error: KCARRY_HTTP_TIMEOUT: 'soon' is not a duration \(250ms, 30s, 5m, 1h\)$"
