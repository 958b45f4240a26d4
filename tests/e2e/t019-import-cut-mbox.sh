#!/bin/sh
# An mbox with a message cut short (truncated in its header) is an error
# naming that message, never re-read as one plain patch: import said
# "1 patch" and lost the other changes.  From a file and over HTTP (a
# valid gzip of the cut mbox).  git mailsplit is the peer: it finds every
# message of the good mbox, and one more 'From ' message in the cut one.
HTTPD=$(pwd)/httpd.py
. ./lib.sh
need git
need python3
need gzip
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy
export no_proxy=127.0.0.1,localhost
export KCARRY_HTTP_RETRY_WAIT=100ms KCARRY_HTTP_TIMEOUT=5s

make_repo up f0 "zero
"
for i in 1 2 3; do
	commit_file up "f$i" "line $i
" "change $i"
done
git -C up format-patch -q --stdout base..HEAD >raw.mbox || fail "format-patch"
# the first message is <good@x>, as a thread fetched by message-id has it
sed '0,/^Subject:/s//Message-ID: <good@x>\nSubject:/' raw.mbox >good.mbox
{
	cat good.mbox
	printf 'From 1234567890123456789012345678901234567890 Mon Sep 17 00:00:00 2001\n'
	printf 'From: A U Thor <author@example.org>\nSubj'
} >cut.mbox
# the line 'Subj', two below the cut message's 'From ' line
cut_line=$(($(wc -l <good.mbox) + 3))

mkdir split.good split.cut
n_good=$(git mailsplit -osplit.good good.mbox) || fail "mailsplit"
n_cut=$(git mailsplit -osplit.cut cut.mbox) || fail "mailsplit"
[ "$n_good" = 3 ] && [ "$n_cut" = 4 ] || fail "mailsplit: $n_good, $n_cut"

kcarry init ws >/dev/null
expect_exit 0 kcarry -C ws import good good.mbox
expect_stdout <<EOT
imported good@v1: $n_good patches in patches/good/v1
EOT

# the cut mbox: the error names the cut message; nothing is stored
expect_exit 2 kcarry -C ws import cut cut.mbox
stderr_has "^error: cut.mbox:$cut_line: malformed header line 'Subj'$"
[ ! -e ws/patches/cut ] || fail "the cut mbox was stored: $(ls -R ws/patches/cut)"
[ ! -e ws/series/cut.conf ] || fail "the cut mbox was recorded"

# a plain diff with no mail header is still read as one patch
git -C up diff base HEAD~2 >plain.diff
expect_exit 0 kcarry -C ws import plain plain.diff
stdout_has "^imported plain@v1: 1 patch in patches/plain/v1$"

# --- the same over HTTP ---------------------------------------------------
mkdir -p srv/cut/good@x srv/good@x srv/other@x
gzip -c cut.mbox >srv/cut/good@x/t.mbox.gz
gzip -c good.mbox >srv/good@x/t.mbox.gz
gzip -c good.mbox >srv/other@x/t.mbox.gz
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

expect_exit 0 kcarry -C ws import hgood "$P/files/good@x/"
stdout_has "^imported hgood@v1: $n_good patches in patches/hgood/v1$"
expect_exit 2 kcarry -C ws import hcut "$P/files/cut/good@x/"
stderr_has "^error: .*t\\.mbox:$cut_line: malformed header line 'Subj'$"
[ ! -e ws/patches/hcut ] || fail "the cut thread was stored"

# a server that answers with a thread without the asked message: refused
expect_exit 2 kcarry -C ws import other "$P/files/other@x/"
expect_stderr <<EOT
error: '$P/files/other@x/': the thread holds no message <other@x> ($n_good messages, none of them it)
hint: the server answered for <other@x> with another thread; nothing is stored
EOT
[ ! -e ws/patches/other ] || fail "another thread was stored"
exit 0
