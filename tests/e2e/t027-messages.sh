#!/bin/sh
# Clear errors for odd input (hardening 10 and 12): special files as
# sources or in a quilt series fail at once with exit 2, strip counts are
# checked, a header-less diff imports, control characters from a Subject
# never reach the terminal, and global options may follow the command.
. ./lib.sh
need timeout

make_repo t f "x
"
kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/t\n\tref = base\n' "$TEST_TMP" >ws/kernels/t.conf

mkfifo fifo
expect_exit 2 timeout 10 "$KCARRY" -C ws import s fifo
expect_stderr <<'EOT'
error: 'fifo' is neither a file nor a folder
EOT
expect_exit 2 kcarry -C ws import s /dev/zero
expect_stderr <<'EOT'
error: '/dev/zero' is neither a file nor a folder
EOT

mkdir q
printf -- '--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n x\n+y\n' >q/ok.patch
mkfifo q/fifo.patch
mkdir q/folder.patch
echo fifo.patch >q/series
expect_exit 2 timeout 10 "$KCARRY" -C ws import s q
expect_stderr <<'EOT'
error: q/series:1: 'q/fifo.patch' is not a regular file
EOT
echo folder.patch >q/series
expect_exit 2 kcarry -C ws import s q
expect_stderr <<'EOT'
error: q/series:1: 'q/folder.patch' is a folder, not a file
EOT
echo 'ok.patch -p99999999999999999999' >q/series
expect_exit 2 kcarry -C ws import s q
expect_stderr <<'EOT'
error: q/series:1: -p takes 0 to 64 path components
EOT
echo 'ok.patch -p 1 -R' >q/series
expect_exit 2 kcarry -C ws import s q
expect_stderr <<'EOT'
error: q/series:1: reversed patches (-R) are not supported
EOT
expect_exit 2 kcarry -C ws import -p99999999999999999999 s q
stderr_has "^error: -p takes a number from 0 to 64, not '99999999999999999999'$"
[ ! -d ws/patches/s ] || fail "a failed import left a folder"

# a diff with no header at all is a patch file
expect_exit 0 kcarry -C ws import plain q/ok.patch
expect_stdout <<'EOT'
imported plain@v1: 1 patch in patches/plain/v1
EOT
expect_exit 0 kcarry -C ws apply plain t
stdout_has "^  0001 clean +ok$"

# control characters in a Subject (an encoded word can carry them)
cat >esc.patch <<'EOT'
From: =?utf-8?q?Mallory=1B=5B31m?= <m@example.org>
Subject: [PATCH] =?utf-8?q?evil=1B=5D0=3Btitle=07=1B=5B2J_subject?=

---
--- a/f
+++ b/f
@@ -1 +1,2 @@
 x
+z
EOT
expect_exit 0 kcarry -C ws import esc esc.patch
for cmd in "show esc" "apply esc t" "check esc t" "list"; do
	expect_exit 0 kcarry -C ws $cmd
	if LC_ALL=C grep -q "$(printf '[\033\007]')" "$OUT" "$ERR"; then
		cat -v "$OUT"
		fail "'kcarry $cmd' printed a control character"
	fi
done
kcarry -C ws check --format markdown esc t >md.out || true
LC_ALL=C grep -q "$(printf '[\033\007]')" md.out && fail "markdown carries a control character"
git -C t log -1 --format=%s kcarry/esc/v1/t | LC_ALL=C grep -q "$(printf '\033')" &&
	fail "the commit subject carries ESC"

# global options after the command
expect_exit 0 kcarry check plain t -v -C ws
expect_exit 0 kcarry -C ws check -q plain t
[ -s "$ERR" ] && { cat "$ERR"; fail "-q after the command was ignored"; }
exit 0
