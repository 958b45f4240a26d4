#!/bin/sh
# A quilt directory (series file, -p levels, DEP-3 and bare patches)
# imports completely; the stored series still passes real quilt push -a.
. ./lib.sh
need quilt

make_repo tree fs/btrfs/ctree.c "$(c_lines 30 c)
" fs/btrfs/disk-io.c "$(c_lines 30 d)
" Makefile "VERSION = 6
"
mkdir -p q/patches/debian q/patches/bugfix
cat >q/patches/debian/version.patch <<'EOT'
Description: make the version visible
 Debian adds its version string.
 .
 Second paragraph.
Author: Ben Hutchings <ben@decadent.org.uk>
Forwarded: not-needed

--- a/Makefile
+++ b/Makefile
@@ -1 +1,2 @@
 VERSION = 6
+EXTRAVERSION = -debian
EOT
cat >q/patches/bugfix/bare.patch <<'EOT'
--- a/fs/btrfs/ctree.c
+++ b/fs/btrfs/ctree.c
@@ -3,3 +3,4 @@
 	c_line_3();
 	c_line_4();
+	c_fix();
 	c_line_5();
EOT
cat >q/patches/bugfix/p0.patch <<'EOT'
From: Jane Doe <jane@example.org>
Date: Tue, 2 Nov 2021 14:49:16 +0200
Subject: [PATCH] btrfs: fix disk-io

Body text.
---
 disk-io.c | 1 +
--- fs/btrfs/disk-io.c.orig	2021-11-02 12:00:00.000000000 +0100
+++ fs/btrfs/disk-io.c	2021-11-02 12:00:01.000000000 +0100
@@ -10,3 +10,4 @@
 	d_line_10();
 	d_line_11();
+	d_fix();
 	d_line_12();
EOT
cat >q/patches/series <<'EOT'
# Debian-style series
debian/version.patch
bugfix/bare.patch   # no header at all

bugfix/p0.patch -p0
EOT

kcarry init ws >/dev/null
expect_exit 0 kcarry -C ws import deb@6.1 q
expect_stdout <<'EOT'
imported deb@6.1: 3 patches in patches/deb/6.1
EOT
expect_stdout_file() { diff -u - "$1" || fail "$1 differs"; }
expect_stdout_file ws/patches/deb/6.1/series <<'EOT'
0001-make-the-version-visible.patch
0002-bare.patch
0003-btrfs-fix-disk-io.patch -p0
EOT
expect_stdout_file ws/patches/deb/6.1/origins <<'EOT'
0001-make-the-version-visible.patch	debian/version.patch
0002-bare.patch	bugfix/bare.patch
0003-btrfs-fix-disk-io.patch	bugfix/p0.patch
EOT

expect_exit 0 kcarry -C ws show deb@6.1
stdout_has "^ +1  make the version visible"
stdout_has "Ben Hutchings <ben@decadent.org.uk>"
stdout_has "^ +3  btrfs: fix disk-io"
stdout_has "Jane Doe <jane@example.org>"
stdout_has "3 files changed, 3 insertions\(\+\), 0 deletions\(-\)"

# real quilt accepts the stored series on the tree, like the original
cp -r tree a && cp -r tree b
cp -r q/patches a/patches
(cd a && quilt push -aq >/dev/null) || fail "quilt push of the original"
cp -r ws/patches/deb/6.1 b/patches
(cd b && quilt push -aq >/dev/null) || fail "quilt push of the stored series"
diff -r -x .pc -x patches -x .git a b || fail "quilt results differ"

# idempotent, refused, forced
expect_exit 0 kcarry -C ws import deb@6.1 q
expect_stdout <<'EOT'
deb@6.1 is unchanged: 3 patches in patches/deb/6.1
EOT
sed -i 's/c_fix/c_fix2/' q/patches/bugfix/bare.patch
expect_exit 2 kcarry -C ws import deb@6.1 q
expect_stderr <<'EOT'
error: deb@6.1 is already stored with other content
hint: import as another version, or use --force to replace patches/deb/6.1
EOT
grep -q c_fix2 ws/patches/deb/6.1/0002-bare.patch && fail "overwritten without --force"
expect_exit 0 kcarry -C ws import --force deb@6.1 q
stdout_has "^replaced deb@6.1: 3 patches"
grep -q c_fix2 ws/patches/deb/6.1/0002-bare.patch || fail "--force did not replace"

expect_exit 0 kcarry -C ws list
stdout_has "^deb +6.1 +3  quilt $TEST_TMP/q/patches$"

# a series naming a missing patch: error names the series line
echo "bugfix/missing.patch" >>q/patches/series
expect_exit 2 kcarry -C ws import deb@6.2 q
stderr_has "^error: q/patches/series:6: cannot open 'q/patches/bugfix/missing.patch'"
[ ! -d ws/patches/deb/6.2 ] || fail "half-written version"
