#!/bin/sh
# Malformed input: one clear error line naming file and line, exit 2,
# nothing written under patches/.
. ./lib.sh
kcarry init ws >/dev/null

good_patch() {
	cat <<'EOT'
From: A U Thor <author@example.org>
Date: Tue, 2 Nov 2021 14:49:16 +0200
Subject: [PATCH] btrfs: fix

Body.
---
diff --git a/fs/btrfs/a.c b/fs/btrfs/a.c
--- a/fs/btrfs/a.c
+++ b/fs/btrfs/a.c
@@ -1,3 +1,4 @@
 one
 two
+three
 four
EOT
}

# a hunk whose counts lie (claims 5 old lines, has 3)
good_patch | sed 's/^@@ -1,3 +1,4 @@/@@ -1,5 +1,6 @@/' >lie.patch
expect_exit 2 kcarry -C ws import bad lie.patch
stderr_has "^error: .*lie.patch.*:1[0-9]: "
[ "$(wc -l <"$ERR")" -le 2 ] || fail "more than one error line"

# NUL byte
{ good_patch; printf ' tail\000x\n'; } >nul.patch
expect_exit 2 kcarry -C ws import bad nul.patch
stderr_has "^error: .*nul.patch.*:[0-9]+: .*NUL"

# a 10 MB line
{ good_patch; head -c 10485760 /dev/zero | tr '\0' 'x'; echo; } >long.patch
expect_exit 2 kcarry -C ws import bad long.patch
stderr_has "^error: .*long.patch.*:[0-9]+: "

# garbage
head -c 4096 /dev/urandom >garbage.bin
expect_exit 2 kcarry -C ws import bad garbage.bin
stderr_has "^error: "

# truncated mbox: the second message is cut inside a hunk
{ echo "From mboxrd@z Thu Jan  1 00:00:00 1970"; good_patch | sed 's/Subject: \[PATCH\]/Subject: [PATCH 1\/2]/'
  echo; echo "From mboxrd@z Thu Jan  1 00:00:00 1970"; good_patch | sed 's/Subject: \[PATCH\]/Subject: [PATCH 2\/2]/' | head -n 12; } >trunc.mbox
expect_exit 2 kcarry -C ws import bad trunc.mbox
stderr_has "^error: .*trunc.mbox"

# path escaping the tree
good_patch | sed 's|a/fs/btrfs/a.c|a/../../etc/passwd|g' >escape.patch
expect_exit 2 kcarry -C ws import bad escape.patch
stderr_has "^error: .*escape.patch.*:[0-9]+: .*\.\."

[ ! -e ws/patches/bad ] || fail "something was written for bad input"
ls ws/patches ws/series | grep -q bad && fail "bad series recorded"

# bad names
expect_exit 2 kcarry -C ws import ../x lie.patch
stderr_has "^error: '../x': '/' is not allowed in a series name"
expect_exit 2 kcarry -C ws import ok nosuchfile
stderr_has "^error: 'nosuchfile' does not exist"
# a URL of another scheme is no file that "does not exist"
expect_exit 2 kcarry -C ws import ok ftp://example.org/all/a@b/
stderr_has "^error: 'ftp://example.org/all/a@b/': only http:// and https:// URLs are fetched$"
expect_exit 2 kcarry -C ws import ok file:///etc/passwd
stderr_has "^error: 'file:///etc/passwd': only http:// and https:// URLs are fetched$"
# fetch of a series none of whose versions names a msgid says so
good_patch >fine.patch
expect_exit 0 kcarry -C ws import fine fine.patch
expect_exit 0 kcarry -C ws fetch fine
stderr_has "^fine: no version names a msgid \\(a line 'msgid = ID' in a \\[version \"V\"\\] section of series/fine.conf\\); 'kcarry fetch --new fine' looks for later ones$"
exit 0
