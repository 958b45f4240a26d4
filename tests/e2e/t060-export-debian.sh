#!/bin/sh
# kcarry export --format debian: DEP-3 patches and their series lines in a
# throw-away 3.0 (quilt) source package.  The real dpkg-source decides:
# -b builds it (applying the new patches), -x of the result applies every
# patch of the series; quilt push -a --fuzz=0 does too; the tree equals
# the kcarry branch.  A re-export replaces its block, other entries and a
# user's files are never touched.
. ./export-lib.sh
. ./lib.sh
need dpkg-source
need quilt

export_setup

# the package: the 6.1.170 tree as upstream tarball, one patch of its own
mkdir deb
git -C tgt archive --prefix=kfoo-6.1.170/ v6.1.170 | tar -x -C deb
(cd deb && tar -cJf kfoo_6.1.170.orig.tar.xz kfoo-6.1.170)
pkg=deb/kfoo-6.1.170
mkdir -p $pkg/debian/source $pkg/debian/patches/debian
echo '3.0 (quilt)' >$pkg/debian/source/format
cat >$pkg/debian/control <<'EOT'
Source: kfoo
Section: kernel
Priority: optional
Maintainer: A U Thor <author@example.org>
Standards-Version: 4.6.2

Package: kfoo
Architecture: all
Description: a throw-away kernel package
 for kcarry's tests
EOT
cat >$pkg/debian/changelog <<'EOT'
kfoo (6.1.170-1) unstable; urgency=medium

  * Initial release.

 -- A U Thor <author@example.org>  Wed, 06 Nov 2024 02:09:00 +0000
EOT
printf '#!/usr/bin/make -f\n%%:\n\tdh $@\n' >$pkg/debian/rules
chmod +x $pkg/debian/rules
cat >$pkg/debian/patches/debian/readme.patch <<'EOT'
Description: a patch of the package's own
Author: A U Thor <author@example.org>
Forwarded: not-needed

--- /dev/null
+++ b/README.debian-kernel
@@ -0,0 +1 @@
+built by Debian
EOT
echo 'debian/readme.patch' >$pkg/debian/patches/series

# --into: the package's own entry stays first and untouched
expect_exit 0 kcarry -C ws export wq 6.1 --format debian --into $pkg
expect_stdout <<EOT
exported wq@v1 on 6.1 as debian: 2 patches ($pkg)
  $pkg/debian/patches/kcarry/wq/btrfs-exact-fix.patch
  $pkg/debian/patches/kcarry/wq/btrfs-offset-fix.patch
  $pkg/debian/patches/series (block 'wq')
EOT
expect_stderr <<'EOT'
6.1: created kcarry/wq/v1/6.1
EOT
cat >"$TEST_TMP/want" <<'EOT'
debian/readme.patch
# kcarry export begin: wq
# wq@v1 on 6.1 (Linux 6.1.170), written by 'kcarry export'; a new export replaces this block
kcarry/wq/btrfs-exact-fix.patch
kcarry/wq/btrfs-offset-fix.patch
# kcarry export end: wq
EOT
diff -u "$TEST_TMP/want" $pkg/debian/patches/series || fail "series"

cat >"$TEST_TMP/want" <<EOT
Description: btrfs: offset fix
 The second fix.
 .
 Link: https://lore.kernel.org/r/20241106-offset-1-author@example.org
 Signed-off-by: A U Thor <author@example.org>
 [ C O Mitter: backported to 6.1.y: fs/btrfs/async-thread.c: hunk 1
   offset +5 lines ]
Author: A U Thor <author@example.org>
Origin: upstream, commit:$UP2
Applied-Upstream: 6.12-rc3, commit:$UP2
Last-Update: 2024-11-06

---
 fs/btrfs/async-thread.c | 1 +
 1 file changed, 1 insertion(+)

EOT
head -n 16 $pkg/debian/patches/kcarry/wq/btrfs-offset-fix.patch >"$TEST_TMP/got"
diff -u "$TEST_TMP/want" "$TEST_TMP/got" || fail "DEP-3 header of the offset fix"
grep -q "^Bug-Debian: https://bugs.debian.org/1085000$" \
	$pkg/debian/patches/kcarry/wq/btrfs-exact-fix.patch || fail "Bug-Debian"
grep -q "^Reviewed-by: Re Viewer <reviewer@example.org>$" \
	$pkg/debian/patches/kcarry/wq/btrfs-exact-fix.patch || fail "Reviewed-by"
for f in $pkg/debian/patches/kcarry/wq/*.patch; do
	dep3_check "$f"
done

# dpkg-source -b applies the new patches and builds; -x applies them all
(cd deb && dpkg-source -b kfoo-6.1.170) >"$TEST_TMP/b" 2>&1 ||
	{ cat "$TEST_TMP/b"; fail "dpkg-source -b"; }
grep -c '^dpkg-source: info: applying ' "$TEST_TMP/b" >"$TEST_TMP/n"
[ "$(cat "$TEST_TMP/n")" = 3 ] || { cat "$TEST_TMP/b"; fail "dpkg-source -b applied $(cat "$TEST_TMP/n") patches"; }
(cd deb && dpkg-source -x kfoo_6.1.170-1.dsc x) >"$TEST_TMP/x" 2>&1 ||
	{ cat "$TEST_TMP/x"; fail "dpkg-source -x"; }
cat >"$TEST_TMP/want" <<'EOT'
dpkg-source: info: applying debian/readme.patch
dpkg-source: info: applying kcarry/wq/btrfs-exact-fix.patch
dpkg-source: info: applying kcarry/wq/btrfs-offset-fix.patch
EOT
grep '^dpkg-source: info: applying ' "$TEST_TMP/x" >"$TEST_TMP/got"
diff -u "$TEST_TMP/want" "$TEST_TMP/got" || fail "dpkg-source -x applied"
same_tree deb/x kcarry/wq/v1/6.1 -x README.debian-kernel

# quilt push -a --fuzz=0 on the unpatched source
(cd deb && dpkg-source -x --skip-patches kfoo_6.1.170-1.dsc q) >/dev/null 2>&1 ||
	fail "dpkg-source -x --skip-patches"
(cd deb/q && QUILT_PATCHES=debian/patches quilt push -a --fuzz=0) >"$TEST_TMP/q" 2>&1 ||
	{ cat "$TEST_TMP/q"; fail "quilt push -a --fuzz=0"; }
[ "$(grep -c '^Applying patch' "$TEST_TMP/q")" = 3 ] || fail "quilt applied"
same_tree deb/q kcarry/wq/v1/6.1 -x README.debian-kernel

# a second export replaces the block: nothing duplicated, the user's
# lines before and after it kept
echo 'debian/after.patch' >>$pkg/debian/patches/series
cp $pkg/debian/patches/series "$TEST_TMP/series.before"
expect_exit 0 kcarry -C ws export wq 6.1 --format debian --into $pkg
expect_stderr </dev/null
diff -u "$TEST_TMP/series.before" $pkg/debian/patches/series || fail "re-export changed series"

# a series that did not carry completely is refused, nothing written
expect_exit 1 kcarry -C ws export wq4 6.1 --format debian --into $pkg
expect_stderr <<'EOT'
6.1: created kcarry/wq4/v1/6.1
error: wq4@v1 did not carry completely onto 6.1: 0003-btrfs-conflicting-fix.patch (conflict)
hint: resolve it ('kcarry resolve wq4@v1 6.1 3', then 'kcarry refresh'), or export what applied with --allow-partial
EOT
expect_stdout </dev/null
diff -u "$TEST_TMP/series.before" $pkg/debian/patches/series || fail "refused export wrote"
[ ! -e $pkg/debian/patches/kcarry/wq4 ] || fail "refused export wrote patches"

# a file of the user's where a patch would go: refused before any write
mkdir -p $pkg/debian/patches/kcarry/wq4
echo mine >$pkg/debian/patches/kcarry/wq4/btrfs-offset-fix.patch
expect_exit 2 kcarry -C ws export wq4 6.1 --format debian --into $pkg --allow-partial
expect_stderr <<EOT
error: '$pkg/debian/patches/kcarry/wq4/btrfs-offset-fix.patch' exists and kcarry did not write it
hint: move it away, or export somewhere else
EOT
[ "$(cat $pkg/debian/patches/kcarry/wq4/btrfs-offset-fix.patch)" = mine ] || fail "user file overwritten"
[ ! -e $pkg/debian/patches/kcarry/wq4/btrfs-exact-fix.patch ] || fail "wrote before refusing"
rm -r $pkg/debian/patches/kcarry/wq4

# --allow-partial: what applied, and the series says what is missing
expect_exit 0 kcarry -C ws export wq4 6.1 --format debian --into $pkg --allow-partial
expect_stdout <<EOT
exported wq4@v1 on 6.1 as debian: 2 patches, 2 left out ($pkg)
  $pkg/debian/patches/kcarry/wq4/btrfs-exact-fix.patch
  $pkg/debian/patches/kcarry/wq4/btrfs-offset-fix.patch
  $pkg/debian/patches/series (block 'wq4')
left out:
  0003-btrfs-conflicting-fix.patch: conflict in 6.1
  0004-btrfs-already-upstream.patch: already applied in 6.1
EOT
sed -n '/^# kcarry export begin: wq4$/,/^# kcarry export end: wq4$/p' \
	$pkg/debian/patches/series >"$TEST_TMP/got"
cat >"$TEST_TMP/want" <<'EOT'
# kcarry export begin: wq4
# wq4@v1 on 6.1 (Linux 6.1.170), written by 'kcarry export'; a new export replaces this block
kcarry/wq4/btrfs-exact-fix.patch
kcarry/wq4/btrfs-offset-fix.patch
# 0003-btrfs-conflicting-fix.patch: conflict in 6.1
# 0004-btrfs-already-upstream.patch: already applied in 6.1
# kcarry export end: wq4
EOT
diff -u "$TEST_TMP/want" "$TEST_TMP/got" || fail "partial block"
sed -i '/^# kcarry export begin: wq4$/,/^# kcarry export end: wq4$/d' $pkg/debian/patches/series
rm -r $pkg/debian/patches/kcarry/wq4

# a smaller version replaces the block and removes the patch it dropped
expect_exit 0 kcarry -C ws import wq@v2 --git up base..HEAD~3
expect_exit 0 kcarry -C ws export wq@v2 6.1 --format debian --into $pkg
expect_stdout <<EOT
exported wq@v2 on 6.1 as debian: 1 patch ($pkg)
  $pkg/debian/patches/kcarry/wq/btrfs-exact-fix.patch
  $pkg/debian/patches/series (block 'wq')
  $pkg/debian/patches/kcarry/wq/btrfs-offset-fix.patch (removed)
EOT
[ ! -e $pkg/debian/patches/kcarry/wq/btrfs-offset-fix.patch ] || fail "stale patch kept"
grep -q '^debian/after.patch$' $pkg/debian/patches/series || fail "user's line lost"

# --into wants a 3.0 (quilt) package
mkdir -p old/debian/source
echo '1.0' >old/debian/source/format
expect_exit 2 kcarry -C ws export wq 6.1 --format debian --into old
expect_stderr <<'EOT'
error: 'old' is not an unpacked 3.0 (quilt) source package (debian/source/format is not '3.0 (quilt)')
EOT
expect_exit 2 kcarry -C ws export wq 6.1 --format debian --into nowhere
expect_stderr <<'EOT'
error: --into 'nowhere': no such folder
EOT

# usage
expect_exit 2 kcarry -C ws export wq 6.1
expect_stderr <<'EOT'
error: say which --format: debian, rpm, suse, quilt, mbox or git
usage: kcarry export [options] NAME[@VERSION] TARGET --format FORMAT [-o DIR]
EOT
expect_exit 2 kcarry -C ws export wq 6.1 --format debian --into $pkg -o elsewhere
expect_stderr <<'EOT'
error: -o and --into name the same place for --format debian: give one
usage: kcarry export [options] NAME[@VERSION] TARGET --format FORMAT [-o DIR]
EOT
expect_exit 2 kcarry -C ws export wq 6.1 --format debian --to stable@vger.kernel.org
expect_stderr <<'EOT'
error: --to does not go with --format debian
usage: kcarry export [options] NAME[@VERSION] TARGET --format FORMAT [-o DIR]
EOT
# --subdir: a name quilt reads as one word, never the series file
cp $pkg/debian/patches/series "$TEST_TMP/series.keep"
for d in 'a b' "$(printf 'a\nb')" series series/x ../x /x .pc x//y; do
	expect_exit 2 kcarry -C ws export wq 6.1 --format debian --into $pkg --subdir "$d"
	stderr_has "^error: --subdir "
done
cmp -s "$TEST_TMP/series.keep" $pkg/debian/patches/series || fail "series changed by a bad --subdir"
exit 0
