#!/bin/sh
# kcarry export --format suse: patches.suse/ with SUSE kernel-source
# headers (From, Date, Subject, Patch-mainline, Git-commit, References,
# Acked-by) and their lines in series.conf.  guards (the filter SUSE's
# sequence-patch.sh runs series.conf through) reads the block; the patches
# apply in that order with quilt push --fuzz=0 and with patch -p1 -F0, and
# give the kcarry branch's tree.
. ./export-lib.sh
. ./lib.sh
need quilt
need guards

export_setup

# a kernel-source checkout: series.conf with a section of its own
mkdir -p ksrc/patches.suse
cat >ksrc/series.conf <<'EOT'
# Kernel patches configuration file
# vim: set ts=8 sw=8 noet:

	########################################################
	# sorted patches
	########################################################
	patches.suse/mine.patch
EOT
cat >ksrc/patches.suse/mine.patch <<'EOT'
From: A U Thor <author@example.org>
Subject: a patch of the checkout's own
Patch-mainline: Never, packaging
References: bsc#1

--- /dev/null
+++ b/README.suse
@@ -0,0 +1 @@
+built by SUSE
EOT
cp ksrc/series.conf "$TEST_TMP/conf.before"

expect_exit 0 kcarry -C ws export wq 6.1 --format suse --into ksrc --bug bsc#1234567 --signoff
expect_stdout <<'EOT'
exported wq@v1 on 6.1 as suse: 2 patches (ksrc)
  ksrc/patches.suse/btrfs-exact-fix.patch
  ksrc/patches.suse/btrfs-offset-fix.patch
  ksrc/series.conf (block 'wq')
EOT
cat "$TEST_TMP/conf.before" - >"$TEST_TMP/want" <<'EOT'
# kcarry export begin: wq
	# wq@v1 on 6.1 (Linux 6.1.170), written by 'kcarry export'; a new export replaces this block
	patches.suse/btrfs-exact-fix.patch
	patches.suse/btrfs-offset-fix.patch
# kcarry export end: wq
EOT
diff -u "$TEST_TMP/want" ksrc/series.conf || fail "series.conf"

# the release comes from the target's tags, the bug from --bug
sed '/^---$/q' ksrc/patches.suse/btrfs-offset-fix.patch >"$TEST_TMP/got"
cat >"$TEST_TMP/want" <<EOT
From: A U Thor <author@example.org>
Date: Thu, 7 Nov 2013 10:00:00 +0800
Subject: btrfs: offset fix
Patch-mainline: v6.12-rc3
Git-commit: $UP2
References: bsc#1234567

The second fix.

Link: https://lore.kernel.org/r/20241106-offset-1-author@example.org
Signed-off-by: A U Thor <author@example.org>
[ C O Mitter: backported to 6.1.y: fs/btrfs/async-thread.c: hunk 1
  offset +5 lines ]
Acked-by: C O Mitter <committer@example.org>
---
EOT
diff -u "$TEST_TMP/want" "$TEST_TMP/got" || fail "SUSE header"
# every header the SUSE checker wants, in the header block
for f in ksrc/patches.suse/btrfs-*.patch; do
	for h in From Date Subject Patch-mainline Git-commit References; do
		sed '/^$/q' "$f" | grep -q "^$h: ." || fail "$f: no $h"
	done
done

# guards reads series.conf as sequence-patch.sh does; quilt applies it
guards <ksrc/series.conf >ksrc/series || fail "guards"
printf 'patches.suse/mine.patch\npatches.suse/btrfs-exact-fix.patch\npatches.suse/btrfs-offset-fix.patch\n' >"$TEST_TMP/want"
diff -u "$TEST_TMP/want" ksrc/series || fail "guards' list"
git clone -q tgt q && git -C q checkout -q v6.1.170
(cd q && QUILT_PATCHES=../ksrc quilt push -a --fuzz=0) >"$TEST_TMP/quilt.log" 2>&1 ||
	{ cat "$TEST_TMP/quilt.log"; fail "quilt push -a --fuzz=0"; }
same_tree q kcarry/wq/v1/6.1 -x README.suse
# and plain patch -p1 -F0, one after the other
git clone -q tgt p && git -C p checkout -q v6.1.170
while read -r f; do
	patch -s -p1 -F0 -d p <"ksrc/$f" || fail "patch -p1 -F0 $f"
done <ksrc/series
same_tree p kcarry/wq/v1/6.1 -x README.suse

# a target whose repository cannot tell the release: SUSE needs it given
git clone -q --no-tags tgt t2
cat >ws/kernels/notags.conf <<EOT
[kernel]
	url = $TEST_TMP/t2
	ref = master
EOT
expect_exit 2 kcarry -C ws export wq notags --format suse -o s2
expect_stderr <<EOT
notags: created kcarry/wq/v1/notags
error: 0001-btrfs-exact-fix.patch: upstream commit ${UP1%????????????????????????????}, but no release tag of notags's repository tells which release has it
hint: SUSE's Patch-mainline wants it: give it with --mainline VERSION (as 'v6.12-rc3')
EOT
[ ! -e s2 ] || fail "wrote without a release"
expect_exit 0 kcarry -C ws export wq notags --format suse -o s2 --mainline v6.12
grep -qx 'Patch-mainline: v6.12' s2/patches.suse/btrfs-exact-fix.patch || fail "--mainline"

# --into wants a kernel-source checkout
mkdir empty
expect_exit 2 kcarry -C ws export wq 6.1 --format suse --into empty
expect_stderr <<'EOT'
error: 'empty' is not a kernel-source checkout (no series.conf)
EOT
expect_exit 2 kcarry -C ws export wq 6.1 --format suse --into nowhere
expect_stderr <<'EOT'
error: --into 'nowhere': no such folder
EOT
exit 0
