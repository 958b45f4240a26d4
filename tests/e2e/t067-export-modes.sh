#!/bin/sh
# File modes and symlinks survive the refreshed series and every export
# format: a mode-only patch (chmod +x), a new symlink and a new executable
# file, a change of content and mode at once, a symlink pointed elsewhere,
# a file that becomes a symlink and back.
# The real git decides: the patches of each form, applied by git apply
# (or git am) in order onto the target, give exactly the tree of the
# kcarry branch (git ls-tree -r: modes, symlinks, content).
. ./export-lib.sh
. ./lib.sh

make_repo up Makefile "VERSION = 6
PATCHLEVEL = 1
SUBLEVEL = 170
EXTRAVERSION =
NAME = Curry Ramen
" scripts/x.sh "#!/bin/sh
echo x
" scripts/other.sh "#!/bin/sh
echo other
"
git clone -q up tgt && git -C tgt tag v6.1.170 || fail "clone"
chmod +x up/scripts/x.sh
git -C up commit -qam "scripts: make x.sh executable" || fail "commit 1"
ln -s x.sh up/scripts/y.sh
printf '#!/bin/sh\necho new\n' >up/scripts/new.sh
chmod +x up/scripts/new.sh
git -C up add -A && git -C up commit -qm "scripts: add y.sh and new.sh" ||
	fail "commit 2"
printf '#!/bin/sh\necho other, executable\n' >up/scripts/other.sh
chmod +x up/scripts/other.sh
rm up/scripts/y.sh && ln -s new.sh up/scripts/y.sh
git -C up add -A && git -C up commit -qm "scripts: other.sh runs, y.sh is new.sh" ||
	fail "commit 3"
# a file that becomes a symlink, a symlink that becomes a file
rm up/scripts/other.sh up/scripts/y.sh && ln -s x.sh up/scripts/other.sh
printf 'y\n' >up/scripts/y.sh
git -C up add -A && git -C up commit -qm "scripts: other.sh is x.sh, y.sh a file" ||
	fail "commit 4"

kcarry init ws >/dev/null
cat >ws/kernels/6.1.conf <<EOT
[kernel]
	name = 6.1
	url = $TEST_TMP/tgt
	ref = v6.1.170
EOT
expect_exit 0 kcarry -C ws import s --git up base..HEAD
expect_exit 0 kcarry -C ws apply s 6.1
kbranch=$(git -C tgt ls-tree -r kcarry/s/v1/6.1)
[ "$kbranch" = "$(git -C up ls-tree -r HEAD)" ] || fail "the kcarry branch"

# check_applied WHAT PATCH...: git apply of each PATCH in order onto
# v6.1.170 gives the kcarry branch's tree
check_applied() {
	what=$1
	shift
	rm -rf "$TEST_TMP/chk"
	git clone -q "$TEST_TMP/tgt" "$TEST_TMP/chk" || fail "clone"
	git -C "$TEST_TMP/chk" checkout -q v6.1.170 || fail "checkout"
	for p in "$@"; do
		git -C "$TEST_TMP/chk" apply --index "$p" ||
			fail "$what: git apply $p"
	done
	got=$(git -C "$TEST_TMP/chk" ls-tree -r "$(git -C "$TEST_TMP/chk" write-tree)")
	[ "$got" = "$kbranch" ] ||
		{ printf '%s\n---\n%s\n' "$kbranch" "$got"; fail "$what: tree differs"; }
}

# the refreshed series: four patches, the mode-only one too
set -- "$TEST_TMP"/ws/patches/s/v1/6.1/0*.patch
[ $# -eq 4 ] || fail "refreshed series: $# patches"
check_applied "refreshed series" "$@"
grep -q '^new file mode 120000$' ws/patches/s/v1/6.1/0002-*.patch ||
	fail "symlink mode in the refreshed patch"

expect_exit 0 kcarry -C ws export s 6.1 --format quilt -o qd
check_applied quilt $(grep -v '^#' qd/series | sed "s|^|$TEST_TMP/qd/|")

# quilt push (GNU patch) applies the modes and symlinks too
if command -v quilt >/dev/null; then
	rm -rf qp && git clone -q tgt qp && git -C qp checkout -q v6.1.170 &&
		cp -r qd qp/patches || fail "quilt checkout"
	(cd qp && quilt push -aq --fuzz=0 >/dev/null) || fail "quilt push -a"
	rm -rf qp/patches qp/.pc
	git -C qp add -A
	[ "$(git -C qp ls-tree -r "$(git -C qp write-tree)")" = "$kbranch" ] ||
		fail "quilt push: tree differs"
fi
# kcarry reads its own export back: imported and carried again, the same
expect_exit 0 kcarry -C ws import s2 qd
expect_exit 0 kcarry -C ws apply s2 6.1
[ "$(git -C tgt ls-tree -r kcarry/s2/v1/6.1)" = "$kbranch" ] ||
	fail "the quilt export imported again"

mkdir rpmsrc
expect_exit 0 kcarry -C ws export s 6.1 --format rpm -o rpmsrc
check_applied rpm "$TEST_TMP"/rpmsrc/*.patch

mkdir -p ksrc/patches.suse
printf '\t########################################################\n\t# end of sorted patches\n\t########################################################\n' >ksrc/series.conf
expect_exit 0 kcarry -C ws export s 6.1 --format suse --into ksrc --mainline v6.12
check_applied suse $(sed -n 's|^[[:space:]]*\(patches\.[^[:space:]]*\).*|'"$TEST_TMP"'/ksrc/\1|p' ksrc/series.conf)

mkdir -p deb/debian/patches deb/debian/source
echo '3.0 (quilt)' >deb/debian/source/format
expect_exit 0 kcarry -C ws export s 6.1 --format debian --into deb
# dpkg-source -b refuses a patch that changes or removes a symlink of
# the tree ("modifies file ... through a symlink"): the export says so
expect_stderr <<'EOT'
note: 0003-scripts-other.sh-runs-y.sh-is-new.sh.patch changes the symlink 'scripts/y.sh': dpkg-source refuses such a patch
note: 0004-scripts-other.sh-is-x.sh-y.sh-a-file.patch changes the symlink 'scripts/y.sh': dpkg-source refuses such a patch
EOT
check_applied debian $(grep -v '^#' deb/debian/patches/series | sed "s|^|$TEST_TMP/deb/debian/patches/|")

# mbox: git am, as the stable maintainers apply it
expect_exit 0 kcarry -C ws export s 6.1 --format mbox -o out
rm -rf am && git clone -q tgt am && git -C am checkout -q v6.1.170 || fail "clone"
for p in out/0*.patch; do
	case $p in out/0000-*) continue ;; esac
	git -C am am -q "$TEST_TMP/$p" || fail "git am $p"
done
[ "$(git -C am ls-tree -r HEAD)" = "$kbranch" ] || fail "mbox: git am tree differs"
[ "$(git -C am rev-list --count v6.1.170..HEAD)" = 4 ] || fail "mbox: not 4 commits"

# git: into another repository, three commits, the same tree
git init -q --bare other.git
git -C tgt push -q "$TEST_TMP/other.git" v6.1.170 || fail "push"
expect_exit 0 kcarry -C ws export s 6.1 --format git --git-dir other.git --onto v6.1.170
[ "$(git -C other.git ls-tree -r kcarry-export/s/v1/6.1)" = "$kbranch" ] ||
	fail "git: tree differs"
[ "$(git -C other.git rev-list --count v6.1.170..kcarry-export/s/v1/6.1)" = 4 ] ||
	fail "git: not 4 commits"
exit 0
