#!/bin/sh
# kcarry export --format quilt: what 'apply' refreshes (the patches with
# their headers and the note of what was adjusted), in a folder of the
# user's choosing whose 'series' keeps its own lines.  The real quilt
# decides: push -a --fuzz=0 applies every patch and gives the kcarry
# branch's tree.
. ./export-lib.sh
. ./lib.sh
need quilt

export_setup
expect_exit 1 kcarry -C ws apply wq4 6.1

mkdir qd
printf '# my series\nmine.patch\n' >qd/series
cat >qd/mine.patch <<'EOT'
--- /dev/null
+++ b/README.mine
@@ -0,0 +1 @@
+mine
EOT
expect_exit 0 kcarry -C ws export wq4 6.1 --format quilt -o qd --allow-partial
expect_stdout <<'EOT'
exported wq4@v1 on 6.1 as quilt: 2 patches, 2 left out (qd)
  qd/0001-btrfs-exact-fix.patch
  qd/0002-btrfs-offset-fix.patch
  qd/series (block 'wq4')
left out:
  0003-btrfs-conflicting-fix.patch: conflict in 6.1
  0004-btrfs-already-upstream.patch: already applied in 6.1
EOT
cat >"$TEST_TMP/want" <<'EOT'
# my series
mine.patch
# kcarry export begin: wq4
# wq4@v1 on 6.1 (Linux 6.1.170), written by 'kcarry export'; a new export replaces this block
0001-btrfs-exact-fix.patch
0002-btrfs-offset-fix.patch
# 0003-btrfs-conflicting-fix.patch: conflict in 6.1
# 0004-btrfs-already-upstream.patch: already applied in 6.1
# kcarry export end: wq4
EOT
diff -u "$TEST_TMP/want" qd/series || fail "series"
# the patches are those apply refreshed, headers and notes kept
for f in 0001-btrfs-exact-fix.patch 0002-btrfs-offset-fix.patch; do
	cmp -s qd/$f ws/patches/wq4/v1/6.1/$f || fail "$f is not what refresh wrote"
done
sed -n '1,4p' qd/0002-btrfs-offset-fix.patch >"$TEST_TMP/got"
cat >"$TEST_TMP/want" <<EOT
From $(git -C tgt rev-parse kcarry/wq4/v1/6.1) Mon Sep 17 00:00:00 2001
From: A U Thor <author@example.org>
Date: Thu, 7 Nov 2013 10:00:00 +0800
Subject: [PATCH] btrfs: offset fix
EOT
diff -u "$TEST_TMP/want" "$TEST_TMP/got" || fail "headers"
grep -q '^kcarry: refreshed for 6.1:$' qd/0002-btrfs-offset-fix.patch || fail "note"

git clone -q tgt q && git -C q checkout -q v6.1.170
cp -r qd q/patches
(cd q && quilt push -a --fuzz=0) >"$TEST_TMP/quilt.log" 2>&1 ||
	{ cat "$TEST_TMP/quilt.log"; fail "quilt push -a --fuzz=0"; }
[ "$(grep -c '^Applying patch' "$TEST_TMP/quilt.log")" = 3 ] || fail "quilt applied"
same_tree q kcarry/wq4/v1/6.1 -x README.mine -x patches

# again: nothing changes
cp qd/series "$TEST_TMP/series.before"
expect_exit 0 kcarry -C ws export wq4 6.1 --format quilt -o qd --allow-partial
diff -u "$TEST_TMP/series.before" qd/series || fail "re-export changed series"
exit 0
