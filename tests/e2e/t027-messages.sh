#!/bin/sh
# Clear errors for odd input (hardening 10 and 12): special files as
# sources or in a quilt series fail at once with exit 2, strip counts are
# checked, a header-less diff imports, control characters from a Subject
# or a file name never reach the terminal, and global options may follow
# the command.
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

# control characters in a file name (git quotes them: "e\033[2Jx.c"):
# every text a person reads shows U+FFFD instead; the diffstat in the
# stored patch quotes the name as git format-patch does
printf 'one\n' >"t/$(printf 'e\033[2Jx.c')"
git -C t add -A && git -C t commit -qm esc-file && git -C t tag -f base2 >/dev/null
# f differs on the target (base2), so that the patch conflicts there
printf 'y\n' >t/f && git -C t commit -qam 'f: y'
printf 'one\ntwo\n' >"t/$(printf 'e\033[2Jx.c')"
printf 'new\n' >"t/$(printf 'n\033]0;t\007.c')"
printf 'nope\n' >t/f
git -C t add -A && git -C t commit -qm 'a file with ESC in its name'
git -C t format-patch -q -1 -o "$TEST_TMP/fp" || fail "git format-patch"
git -C t reset -q --hard base2
printf '[kernel]\n\turl = %s/t\n\tref = base2\n' "$TEST_TMP" >ws/kernels/t2.conf
expect_exit 0 kcarry -C ws import escp fp/0001-*.patch
# the stored diffstat is git's, quoted names and all
sed -n '/^---$/,/^$/p' fp/0001-*.patch >git.stat
sed -n '/^---$/,/^$/p' ws/patches/escp/v1/0001-*.patch >kcarry.stat
diff -u git.stat kcarry.stat || fail "the diffstat differs from git's"
ctl=$(printf '[\001-\010\013-\037\177]')
for cmd in "show escp" "show --stat escp" "apply escp t2" "apply -v escp t2" \
	"check escp t2" "check -v escp t2" "check --format markdown escp t2" \
	"check --format email escp t2" "check --format junit escp t2"; do
	kcarry -C ws $cmd >"$OUT" 2>"$ERR"
	[ $? -le 1 ] || { cat "$ERR"; fail "'kcarry $cmd' failed"; }
	if LC_ALL=C grep -q "$ctl" "$OUT" "$ERR"; then
		LC_ALL=C grep "$ctl" "$OUT" "$ERR" | cat -v
		fail "'kcarry $cmd' printed a control character of a file name"
	fi
done
# U+FFFD where each control character was
r=$(printf '\357\277\275')
expect_exit 0 kcarry -C ws show escp
grep -qxF "      e$r[2Jx.c (+1 -0)" "$OUT" || { cat "$OUT"; fail "show: e.c"; }
grep -qxF "      n$r]0;t$r.c (+1 -0)" "$OUT" || { cat "$OUT"; fail "show: n.c"; }
expect_exit 1 kcarry -C ws apply escp t2
grep -qF "         n$r]0;t$r.c hunk 1: " "$OUT" || { cat "$OUT"; fail "apply"; }
# an error naming such a path
mkdir -p q2 && printf -- '--- /dev/null\n+++ "b/.git/\\033[2J"\n@@ -0,0 +1 @@\n+x\n' >q2/bad.patch
echo bad.patch >q2/series
expect_exit 2 kcarry -C ws import bad q2
stderr_has "^error: .*bad.patch:2: path '.*' is inside .git$"
LC_ALL=C grep -q "$ctl" "$ERR" && { cat -v "$ERR"; fail "an error printed ESC"; }

# global options after the command
expect_exit 0 kcarry check plain t -v -C ws
expect_exit 0 kcarry -C ws check -q plain t
[ -s "$ERR" ] && { cat "$ERR"; fail "-q after the command was ignored"; }
exit 0
