#!/bin/sh
# Names that become paths or refs: target names, series.stacks-on and
# version names are refused unless they are plain names, so that nothing
# outside the workspace is read or replaced; distinct versions give
# distinct branches; two tarballs with the same file name never share a
# cached tree.
. ./lib.sh
need xz

make_repo up fs/btrfs/a.c "one
two
three
"
commit_file up fs/btrfs/a.c "one
two
2.5
three
" "btrfs: add 2.5"
kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/up\n\tref = base\n' "$TEST_TMP" >ws/kernels/t.conf
expect_exit 0 kcarry -C ws import s --git up base..HEAD

# --- a target name that climbs out of the workspace (hardening 1) -------
mkdir -p victim/t
echo precious >victim/t/keep
printf '[kernel]\n\turl = %s/up\n\tref = base\n' "$TEST_TMP" >victim/t.conf
up=../../../../../../../../../..
for cmd in apply refresh; do
	expect_exit 2 kcarry -C ws $cmd s "$up$TEST_TMP/victim/t"
	stderr_has "^error: '.*': '/' is not allowed in a target name$"
done
expect_exit 2 kcarry -C ws resolve s "$up$TEST_TMP/victim/t" 1
stderr_has "'/' is not allowed in a target name"
expect_exit 2 kcarry -C ws callers "$up$TEST_TMP/victim/t"
expect_exit 2 kcarry -C ws check s "$up$TEST_TMP/victim/t"
[ "$(cat victim/t/keep)" = precious ] || fail "victim/t/keep was replaced"
[ "$(ls victim/t)" = keep ] || fail "files written into victim/t"
[ -z "$(find victim -newer victim/t.conf -not -path victim)" ] ||
	fail "something under victim/ changed"
[ ! -e victim/t/files ] && [ ! -e victim/t/state ] || fail "resolve wrote outside"

# --- series.stacks-on outside the workspace (hardening 2) ---------------
# a series outside that adds OUTSIDE: every command that follows
# stacks-on (check, build through check, export) refuses the value before
# it reads or carries anything of it
mkdir -p base/v1/t
echo precious >base/v1/t/keep
cat >base/v1/0001-outside.patch <<'EOT'
From: Eve <eve@example.com>
Subject: [PATCH] outside

---
diff --git a/OUTSIDE b/OUTSIDE
new file mode 100644
--- /dev/null
+++ b/OUTSIDE
@@ -0,0 +1 @@
+outside
EOT
echo 0001-outside.patch >base/v1/series
cat >>ws/series/s.conf <<EOT
[series]
	stacks-on = $up$TEST_TMP/base
EOT
refs_before=$(git -C up for-each-ref)
stacks_refused() {
	stderr_has "^error: series/s.conf: stacks-on: '.*base': '/' is not allowed in a series name$"
	[ "$(cat base/v1/t/keep)" = precious ] || fail "base/v1/t replaced"
	[ "$(ls base/v1)" = "0001-outside.patch
series
t" ] || fail "files written into base/v1"
	[ "$(git -C up for-each-ref)" = "$refs_before" ] ||
		fail "a branch was written from the outside series"
	[ -z "$(git -C up log --all --format=%H -- OUTSIDE)" ] ||
		fail "the outside series was carried"
}
expect_exit 2 kcarry -C ws check --refresh s t
stacks_refused
expect_exit 2 kcarry -C ws build s t
stacks_refused
expect_exit 2 kcarry -C ws export s t --format git
stacks_refused
expect_exit 2 kcarry -C ws export s t --format quilt -o exported
stacks_refused
[ ! -e exported ] || fail "export wrote a quilt series"
git config -f ws/series/s.conf series.stacks-on nosuch
expect_exit 2 kcarry -C ws check s t
stderr_has "^error: series/s.conf: stacks-on: no series 'nosuch' in this workspace$"
expect_exit 2 kcarry -C ws export s t --format git
stderr_has "^error: series/s.conf: stacks-on: no series 'nosuch' in this workspace$"
git config -f ws/series/s.conf series.stacks-on s
expect_exit 2 kcarry -C ws export s t --format git
stderr_has "^error: series/s.conf: a series cannot stack on itself$"
git config -f ws/series/s.conf --unset series.stacks-on
[ "$(git -C up for-each-ref)" = "$refs_before" ] ||
	fail "a refused stacks-on wrote a branch"

# --- version names (hardening 8) ----------------------------------------
tab=$(printf 'a\tb')
expect_exit 2 kcarry -C ws import "s@$tab" --git up base..HEAD
stderr_has "^error: a version name cannot hold the byte 0x09$"
expect_exit 2 kcarry -C ws import "s@a
b" --git up base..HEAD
stderr_has "^error: a version name cannot hold the byte 0x0a$"
for bad in 'x:y' 'x y' 'x;y' 'x]y' '../x' '.x' '-x'; do
	expect_exit 2 kcarry -C ws import "s@$bad" --git up base..HEAD
	stderr_has "^error: .*version name"
done
[ "$(ls ws/patches/s)" = v1 ] || fail "a refused version left a folder"
[ "$(git config -f ws/series/s.conf --name-only --get-regexp '^version\.' |
	sed 's/^version\.\(.*\)\.[^.]*$/\1/' | sort -u)" = v1 ] ||
	fail "a refused version left provenance"
# versions git refuses in a ref map to distinct, valid branches
for v in v1 '1~rc1' '1_rc1' 'v1.lock' '1..2'; do
	expect_exit 0 kcarry -C ws import "s@$v" --git up base..HEAD
	expect_exit 0 kcarry -C ws apply "s@$v" t
done
n=$(git -C up for-each-ref 'refs/heads/kcarry/s/' | wc -l)
[ "$n" = 5 ] || fail "5 versions gave $n branches"
git -C up for-each-ref --format='%(refname)' refs/heads/kcarry/s/ |
	while read -r r; do
		git check-ref-format "$r" || fail "invalid ref $r"
	done
git -C up fsck --strict >/dev/null 2>&1 || fail "git fsck --strict"

# --- two tarballs with the same file name (hardening 3) -----------------
for d in a b; do
	mkdir -p tb$d/linux-1.0/fs/btrfs
	printf 'one\ntwo\nthree\n' >tb$d/linux-1.0/fs/btrfs/a.c
	echo "from $d" >tb$d/linux-1.0/WHICH
	tar -C tb$d -cJf tb$d/linux-1.0.tar.xz linux-1.0
	printf '[kernel]\n\ttarball = %s/tb%s/linux-1.0.tar.xz\n' "$TEST_TMP" $d >ws/kernels/tar$d.conf
done
expect_exit 0 kcarry -C ws apply s@v1 tara tarb
for d in a b; do
	# wherever the cache keeps it, each branch has its own tarball's tree
	for r in "$TEST_TMP"/.cache/trees/*.git; do
		git -C "$r" rev-parse -q --verify kcarry/s/v1/tar$d >/dev/null || continue
		[ "$(git -C "$r" show kcarry/s/v1/tar$d:WHICH)" = "from $d" ] ||
			fail "tar$d was carried on another tarball's tree"
	done
done
for d in a b; do
	repo=$(ls -d "$TEST_TMP"/.cache/trees/linux-1.0.tar.xz-*.git | while read -r r; do
		[ "$(git -C "$r" show kcarry-base:WHICH)" = "from $d" ] && echo "$r"; done)
	[ -n "$repo" ] || fail "no cached tree holds tarball $d"
	git -C "$repo" rev-parse -q --verify kcarry/s/v1/tar$d >/dev/null ||
		fail "tar$d was carried on another tarball's tree"
	[ "$(git -C "$repo" config kcarry.sha256)" = "$(sha256sum tb$d/linux-1.0.tar.xz | cut -d' ' -f1)" ] ||
		fail "tar$d: content hash not recorded"
	[ "$(git -C "$repo" config kcarry.source)" = "$TEST_TMP/tb$d/linux-1.0.tar.xz" ] ||
		fail "tar$d: source not recorded"
done
[ "$(ls -d "$TEST_TMP"/.cache/trees/linux-1.0.tar.xz-*.git | wc -l)" = 2 ] ||
	fail "the two tarballs share a cached tree"
# the same path with other bytes is imported again, not reused silently
echo "from a, again" >tba/linux-1.0/WHICH
tar -C tba -cJf tba/linux-1.0.tar.xz linux-1.0
expect_exit 0 kcarry -C ws apply s@v1 tara
stderr_has "^tara: the tarball changed since it was imported: importing it again$"
repo=$(ls -d "$TEST_TMP"/.cache/trees/linux-1.0.tar.xz-*.git | while read -r r; do
	[ "$(git -C "$r" config kcarry.source)" = "$TEST_TMP/tba/linux-1.0.tar.xz" ] && echo "$r"; done)
[ "$(git -C "$repo" show kcarry/s/v1/tara:WHICH)" = "from a, again" ] ||
	fail "the changed tarball was not used"
# touched but identical: no new import
touch tba/linux-1.0.tar.xz
expect_exit 0 kcarry -C ws apply s@v1 tara
[ -s "$ERR" ] && { cat "$ERR"; fail "an identical tarball was imported again"; }
exit 0
