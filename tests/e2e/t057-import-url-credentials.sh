#!/bin/sh
# Credentials in an import URL (http://user:pass@host/...) are used for
# the request and never kept or shown: not in series/NAME.conf, not in
# 'kcarry list', not in the cache (its paths or records), not in errors.
HTTPD=$(pwd)/httpd.py
. ./lib.sh
need python3
need gzip
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy
export no_proxy=127.0.0.1,localhost
export KCARRY_HTTP_RETRY_WAIT=100ms KCARRY_HTTP_TIMEOUT=5s

mkdir -p srv/t@x
cat >thread.mbox <<'EOT'
From mboxrd@z Thu Jan  1 00:00:00 1970
From: A U Thor <author@example.org>
Subject: [PATCH] demo: fix
Date: Tue, 16 Apr 2024 14:08:02 +0100
Message-ID: <t@x>

A fix.
---
diff --git a/Makefile b/Makefile
--- a/Makefile
+++ b/Makefile
@@ -1 +1 @@
-VERSION = 1
+VERSION = 2

EOT
gzip -c thread.mbox >srv/t@x/t.mbox.gz
python3 "$HTTPD" "$TEST_TMP/srv" "$TEST_TMP/port" >>"$TEST_TMP/httpd.err" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$TEST_TMP"' EXIT
i=0
while [ ! -s port ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ -s port ] || { cat httpd.err; fail "httpd.py did not start"; }
H=127.0.0.1:$(cat port)
kcarry init ws >/dev/null

# without the credentials the server refuses; with them it serves
expect_exit 3 kcarry -C ws import demo "http://$H/auth/kc:s3cret/t@x/"
stderr_has "HTTP 401"
expect_exit 0 kcarry -C ws import demo "http://kc:s3cret@$H/auth/kc:s3cret/t@x/"
expect_stdout <<'EOT'
imported demo@v1: 1 patch in patches/demo/v1
EOT
git config -f ws/series/demo.conf version.v1.source >got
echo "http://$H/auth/kc:s3cret/t@x/" | diff - got || fail "source: $(cat got)"
# the password in the path is the test server's; the one of the URL's
# user part must be nowhere
expect_exit 0 kcarry -C ws list
stdout_has "^demo +v1 +1 +mbox http://$H/auth/kc:s3cret/t@x/$"
grep -rl "kc:s3cret@" ws .cache && fail "credentials kept"
grep -q "kc:s3cret@" "$OUT" "$ERR" && fail "credentials shown"

# an error names the URL without them
expect_exit 3 kcarry -C ws import nope "http://kc:s3cret@$H/status/404/t@x/"
stderr_has "^error: cannot fetch 'http://$H/status/404/t@x/t.mbox.gz': HTTP 404 Not Found$"
grep -q "s3cret" "$ERR" && fail "credentials in the error: $(cat "$ERR")"

# a .conf written before: list shows the source without them
git config -f ws/series/demo.conf version.v1.source "https://kc:s3cret@example.org/all/t@x/"
expect_exit 0 kcarry -C ws list
stdout_has "^demo +v1 +1 +mbox https://example.org/all/t@x/$"
grep -q "s3cret" "$OUT" && fail "list shows credentials: $(cat "$OUT")"
exit 0
