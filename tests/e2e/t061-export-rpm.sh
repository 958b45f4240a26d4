#!/bin/sh
# kcarry export --format rpm: the patch files, PatchN lines and %patch
# lines.  The real rpmbuild -bp decides: on a minimal spec whose Source0
# is the target tree (git archive) and which includes the fragments,
# %prep applies every patch with --fuzz=0 and the tree equals the kcarry
# branch.  --into SPEC puts both blocks into a spec in place, keeps the
# spec's own patches, refuses a PatchN number that is taken, and leaves
# %prep alone when %autosetup applies every patch.
. ./export-lib.sh
. ./lib.sh
need rpmbuild

export_setup
expect_exit 0 kcarry -C ws apply wq 6.1

rpmtop=$TEST_TMP/rpm
mkdir -p $rpmtop/SOURCES $rpmtop/SPECS
git -C tgt archive --format=tar.gz --prefix=kfoo-6.1.170/ \
	-o $rpmtop/SOURCES/kfoo-6.1.170.tar.gz v6.1.170

# rpmbuild_bp SPEC: %prep only; its output goes to $TEST_TMP/bp
rpmbuild_bp() {
	rm -rf $rpmtop/BUILD
	rpmbuild --define "_topdir $rpmtop" --nodeps -bp "$1" >"$TEST_TMP/bp" 2>&1 ||
		{ cat "$TEST_TMP/bp"; fail "rpmbuild -bp $1"; }
}

# fuzz0_patches SPEC: how many of kcarry's patches %prep applies with
# --fuzz=0, as rpmspec expands it (the xtrace of rpmbuild's pipelines
# interleaves, so its log is no place to count)
fuzz0_patches() {
	rpmspec --define "_topdir $rpmtop" -P "$1" | sed -n '/^%prep/,/^%build/p' |
		sed -e ':a' -e '/| *$/{N;s/| *\n/| /;ba' -e '}' |
		grep '/usr/bin/patch .*-p1' | grep -- '--fuzz=0' | grep -c '/wq-[0-9]'
}

# fragments: NAME-patches.inc in the preamble, NAME-prep.inc in %prep
expect_exit 0 kcarry -C ws export wq 6.1 --format rpm -o $rpmtop/SOURCES --start 2000
expect_stdout <<EOT
exported wq@v1 on 6.1 as rpm: 2 patches ($rpmtop/SOURCES)
  $rpmtop/SOURCES/wq-0001-btrfs-exact-fix.patch
  $rpmtop/SOURCES/wq-0002-btrfs-offset-fix.patch
  $rpmtop/SOURCES/wq-patches.inc (block 'wq')
  $rpmtop/SOURCES/wq-prep.inc (block 'wq prep')
EOT
cat >"$TEST_TMP/want" <<'EOT'
# kcarry export begin: wq
# wq@v1 on 6.1 (Linux 6.1.170), written by 'kcarry export'; a new export replaces this block
Patch2000: wq-0001-btrfs-exact-fix.patch
Patch2001: wq-0002-btrfs-offset-fix.patch
# kcarry export end: wq
# kcarry export begin: wq prep
%patch -P 2000 -p1 -F0
%patch -P 2001 -p1 -F0
# kcarry export end: wq prep
EOT
cat $rpmtop/SOURCES/wq-patches.inc $rpmtop/SOURCES/wq-prep.inc >"$TEST_TMP/got"
diff -u "$TEST_TMP/want" "$TEST_TMP/got" || fail "fragments"
grep -q "^(cherry picked from commit $UP2)$" $rpmtop/SOURCES/wq-0002-btrfs-offset-fix.patch ||
	fail "patch file without its upstream commit"

cat >$rpmtop/SPECS/kfoo.spec <<'EOT'
Name: kfoo
Version: 6.1.170
Release: 1
Summary: a throw-away kernel package
License: GPL-2.0-only
BuildArch: noarch
Source0: kfoo-%{version}.tar.gz
%include %{_sourcedir}/wq-patches.inc

%description
For kcarry's tests.

%prep
%setup -q
%include %{_sourcedir}/wq-prep.inc

%build

%files
EOT
rpmbuild_bp $rpmtop/SPECS/kfoo.spec
grep '^Patch #' "$TEST_TMP/bp" >"$TEST_TMP/got"
cat >"$TEST_TMP/want" <<'EOT'
Patch #2000 (wq-0001-btrfs-exact-fix.patch):
Patch #2001 (wq-0002-btrfs-offset-fix.patch):
EOT
diff -u "$TEST_TMP/want" "$TEST_TMP/got" || fail "rpmbuild applied"
[ "$(fuzz0_patches $rpmtop/SPECS/kfoo.spec)" = 2 ] || fail "not applied with fuzz 0"
same_tree $rpmtop/BUILD/kfoo-6.1.170 kcarry/wq/v1/6.1

# --into: a spec with a patch of its own and %setup; both blocks go in
# place, the spec's own lines stay
rm $rpmtop/SOURCES/wq-*
cat >$rpmtop/SOURCES/own.patch <<'EOT'
--- /dev/null
+++ b/README.rpm
@@ -0,0 +1 @@
+built by rpm
EOT
cat >$rpmtop/SPECS/kfoo.spec <<'EOT'
Name: kfoo
Version: 6.1.170
Release: 1
Summary: a throw-away kernel package
License: GPL-2.0-only
BuildArch: noarch
Source0: kfoo-%{version}.tar.gz
Patch0: own.patch

%description
For kcarry's tests.

%prep
%setup -q
%patch -P 0 -p1

%build
true

%files
EOT
expect_exit 0 kcarry -C ws export wq 6.1 --format rpm --into $rpmtop/SPECS/kfoo.spec -o $rpmtop/SOURCES
expect_stdout <<EOT
exported wq@v1 on 6.1 as rpm: 2 patches ($rpmtop/SPECS/kfoo.spec)
  $rpmtop/SOURCES/wq-0001-btrfs-exact-fix.patch
  $rpmtop/SOURCES/wq-0002-btrfs-offset-fix.patch
  $rpmtop/SPECS/kfoo.spec (block 'wq')
EOT
cat >"$TEST_TMP/want" <<'EOT'
Name: kfoo
Version: 6.1.170
Release: 1
Summary: a throw-away kernel package
License: GPL-2.0-only
BuildArch: noarch
Source0: kfoo-%{version}.tar.gz
Patch0: own.patch
# kcarry export begin: wq
# wq@v1 on 6.1 (Linux 6.1.170), written by 'kcarry export'; a new export replaces this block
Patch1000: wq-0001-btrfs-exact-fix.patch
Patch1001: wq-0002-btrfs-offset-fix.patch
# kcarry export end: wq

%description
For kcarry's tests.

%prep
%setup -q
%patch -P 0 -p1
# kcarry export begin: wq prep
%patch -P 1000 -p1 -F0
%patch -P 1001 -p1 -F0
# kcarry export end: wq prep

%build
true

%files
EOT
diff -u "$TEST_TMP/want" $rpmtop/SPECS/kfoo.spec || fail "spec"
rpmbuild_bp $rpmtop/SPECS/kfoo.spec
[ "$(grep -c '^Patch #' "$TEST_TMP/bp")" = 3 ] || fail "rpmbuild applied"
[ "$(fuzz0_patches $rpmtop/SPECS/kfoo.spec)" = 2 ] || fail "--into: fuzz 0"
same_tree $rpmtop/BUILD/kfoo-6.1.170 kcarry/wq/v1/6.1 -x README.rpm

# again: the same spec, byte for byte
cp $rpmtop/SPECS/kfoo.spec "$TEST_TMP/spec.before"
expect_exit 0 kcarry -C ws export wq 6.1 --format rpm --into $rpmtop/SPECS/kfoo.spec -o $rpmtop/SOURCES
diff -u "$TEST_TMP/spec.before" $rpmtop/SPECS/kfoo.spec || fail "re-export changed the spec"

# a number the spec uses is refused
expect_exit 2 kcarry -C ws export wq 6.1 --format rpm --into $rpmtop/SPECS/kfoo.spec -o $rpmtop/SOURCES --start 0
expect_stderr <<EOT
error: $rpmtop/SPECS/kfoo.spec: Patch0 is taken
hint: number kcarry's patches from elsewhere with --start N
EOT
diff -u "$TEST_TMP/spec.before" $rpmtop/SPECS/kfoo.spec || fail "refused export wrote"

# %autosetup applies every PatchN: no %patch lines, or each would apply twice
sed -i -e 's/^%setup -q$/%autosetup -p1/' -e '/^%patch -P 0 -p1$/d' $rpmtop/SPECS/kfoo.spec
expect_exit 0 kcarry -C ws export wq 6.1 --format rpm --into $rpmtop/SPECS/kfoo.spec -o $rpmtop/SOURCES
sed -n '/^# kcarry export begin: wq prep$/,/^# kcarry export end: wq prep$/p' \
	$rpmtop/SPECS/kfoo.spec >"$TEST_TMP/got"
cat >"$TEST_TMP/want" <<'EOT'
# kcarry export begin: wq prep
# applied by the autosetup or autopatch of this spec
# kcarry export end: wq prep
EOT
diff -u "$TEST_TMP/want" "$TEST_TMP/got" || fail "prep block under %autosetup"
rpmbuild_bp $rpmtop/SPECS/kfoo.spec
[ "$(fuzz0_patches $rpmtop/SPECS/kfoo.spec)" = 2 ] || fail "%autosetup applies them with fuzz 0"
same_tree $rpmtop/BUILD/kfoo-6.1.170 kcarry/wq/v1/6.1 -x README.rpm

# --autopatch: one %autopatch line for kcarry's range
expect_exit 0 kcarry -C ws export wq 6.1 --format rpm -o frag --autopatch
grep -qx '%autopatch -p1 -m 1000 -M 1001' frag/wq-prep.inc || fail "%autopatch line"

# a smaller version: its block names one patch, the other file goes
expect_exit 0 kcarry -C ws import wq@v2 --git up base..HEAD~3
expect_exit 0 kcarry -C ws export wq@v2 6.1 --format rpm -o frag
expect_stdout <<'EOT'
exported wq@v2 on 6.1 as rpm: 1 patch (frag)
  frag/wq-0001-btrfs-exact-fix.patch
  frag/wq-patches.inc (block 'wq')
  frag/wq-prep.inc (block 'wq prep')
  frag/wq-0002-btrfs-offset-fix.patch (removed)
EOT
grep -c '^Patch' frag/wq-patches.inc | grep -qx 1 || fail "Patch lines of v2"
exit 0
