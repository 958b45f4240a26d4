#!/bin/sh
# kcarry gc sweeps the build refusals that can no longer apply (issue 18):
# a .resolutions/KEY.refused record whose target is gone from kernels/,
# whose series version is gone from patches/, or whose patch fingerprint
# no patch of that version has on the tree it names.  A live record
# stays, and so does an older record that does not name its series
# (gc cannot tell; --dry-run says so).  --dry-run lists and removes
# nothing; gc prints what it removed.
# The series "bad" of t144 (0001's adaptation refused by the build),
# built as v1 on targets tgt and tgt2 and as v2 on tgt.
here=$(pwd)
. ./lib.sh
. "$here/adapt-lib.sh"
. "$here/adapt-build-lib.sh"

ab_bad_fixture
cp ws/kernels/tgt.conf ws/kernels/tgt2.conf
expect_exit 0 kcarry -C ws import bad@v2 --git up base..bad
expect_exit 1 kcarry -C ws check --build bad@v1
expect_exit 1 kcarry -C ws check --build bad@v2 tgt
rd=ws/patches/bad/.resolutions
# the record of VERSION on TARGET
rec_of() {
	grep -l "^target $2\$" $(grep -l "^version $1\$" "$rd"/*.refused)
}
live=$(rec_of v1 tgt)
gone_target=$(rec_of v1 tgt2)
gone_version=$(rec_of v2 tgt)
for f in "$live" "$gone_target" "$gone_version"; do
	[ -f "$f" ] || fail "three records expected: $(ls $rd)"
done
# a record of v1 on tgt for a patch (fingerprint) no patch of v1 has
sed 's/^patch .*/patch 0123456789abcdef0123456789abcdef01234567/' \
	"$live" >"$rd/1111111111111111111111111111111111111111.refused"
gone_patch=$rd/1111111111111111111111111111111111111111.refused
# an older record (no series line) of a version that is gone
grep -v '^series \|^adapted ' "$gone_version" |
	sed 's/^version v2$/version v7/' \
	>"$rd/2222222222222222222222222222222222222222.refused"
old=$rd/2222222222222222222222222222222222222222.refused
# a record of a tree the repository does not hold: gc cannot tell
sed 's/^tree .*/tree 3333333333333333333333333333333333333333/' \
	"$live" >"$rd/3333333333333333333333333333333333333333.refused"
notree=$rd/3333333333333333333333333333333333333333.refused

rm ws/kernels/tgt2.conf
rm -r ws/patches/bad/v2
rel() { echo "${1#ws/}"; }

ls "$rd" >before
expect_exit 0 kcarry -C ws gc --dry-run
ls "$rd" >after
cmp -s before after || fail "gc --dry-run removed records"
stdout_has "^would remove $(rel "$gone_target"): target tgt2 is no target of the workspace\$"
stdout_has "^would remove $(rel "$gone_version"): bad has no version v2\$"
stdout_has "^would remove $(rel "$gone_patch"): no patch of bad@v1 has fingerprint 0123456789abcdef0123456789abcdef01234567 on tree [0-9a-f]{40}\$"
stdout_has "^kept $(rel "$old"): an older record, without its series: gc cannot tell whether it applies\$"
grep -q "$(rel "$live")" "$OUT" && { cat "$OUT"; fail "gc --dry-run names the live record"; }
stdout_has "^kept $(rel "$notree"): gc cannot tell whether a patch of bad@v1 meets tree 3{40}: "

# with names, the records of those targets alone
expect_exit 0 kcarry -C ws gc --dry-run tgt
stdout_has "^would remove $(rel "$gone_version"): "
stdout_has "^would remove $(rel "$gone_patch"): "
grep -q "$(rel "$gone_target")" "$OUT" && { cat "$OUT"; fail "gc tgt judges tgt2's record"; }

expect_exit 0 kcarry -C ws gc
stdout_has "^removed $(rel "$gone_target"): target tgt2 is no target of the workspace\$"
stdout_has "^removed $(rel "$gone_version"): bad has no version v2\$"
stdout_has "^removed $(rel "$gone_patch"): no patch of bad@v1 "
grep -q "^kept" "$OUT" && { cat "$OUT"; fail "gc without -v lists what it kept"; }
for f in "$gone_target" "$gone_version" "$gone_patch"; do
	[ ! -e "$f" ] || fail "gc left $f"
done
[ -f "$live" ] || fail "gc removed the live record"
[ -f "$old" ] || fail "gc removed the older record"
[ -f "$notree" ] || fail "gc removed a record it cannot judge"

# the live record still refuses 0001
git -C tgt update-ref refs/heads/kcarry/bad/v1/tgt base
expect_exit 1 kcarry -C ws apply bad tgt
stdout_has '^ *cause: a build on tgt refused this adaptation: fs/btrfs/demo.c:'

# nothing stale left: gc -v says what it kept, and removes nothing more
expect_exit 0 kcarry -C ws -v gc
stdout_has "^kept $(rel "$old"): an older record"
grep -q "^removed" "$OUT" && { cat "$OUT"; fail "gc removed more"; }

[ -f "$live" ] || fail "gc removed the live record"
exit 0
