#!/bin/sh
# A full disk: the workspace on a small tmpfs (mounted in a private mount
# namespace; skipped where none can be made).  An import that runs out of
# space fails with exit 3 and leaves no half version; an apply whose
# refreshed series cannot be written leaves the branch where it was; once
# there is room, the same commands succeed and the provenance is whole.
if [ -z "${KCARRY_IN_NS:-}" ] && command -v unshare >/dev/null &&
	unshare -rm true 2>/dev/null; then
	KCARRY_IN_NS=1 exec unshare -rm sh "$0" "$@"
fi
. ./lib.sh
[ -n "${KCARRY_IN_NS:-}" ] || skip "no private mount namespace here"
mkdir -p small
mount -t tmpfs -o size=256k tmpfs small 2>/dev/null || skip "cannot mount a tmpfs here"
trap 'umount small 2>/dev/null; rm -rf "$TEST_TMP"' EXIT

make_repo up fs/big.c "$(c_lines 3000 big)
"
i=1
while [ $i -le 8 ]; do
	git -C up show HEAD:fs/big.c | sed "s/();$/_v$i();/" >x.tmp
	commit_file up fs/big.c "$(cat x.tmp)
" "fs: rename every line, round $i"
	i=$((i + 1))
done
git -C up tag v8
kcarry init small/ws >/dev/null
printf '[kernel]\n\turl = %s/up\n\tref = base\n' "$TEST_TMP" >small/ws/kernels/t.conf

expect_exit 3 kcarry -C small/ws import s@v1 --git up base..v8
stderr_has "No space left on device"
[ ! -d small/ws/patches/s/v1 ] || fail "a half version was left"
expect_exit 0 kcarry -C small/ws list
ls -a small/ws/patches/s 2>/dev/null | grep -q '^\.tmp' && fail "a temporary folder was left"

mount -o remount,size=8m small || skip "cannot resize the tmpfs"
expect_exit 0 kcarry -C small/ws import s@v1 --git up base..v8
[ "$(git config -f small/ws/series/s.conf version.s@v1.patches 2>/dev/null ||
	git config -f small/ws/series/s.conf version.v1.patches)" = 8 ] || fail "provenance"

# the refreshed series cannot be written: the branch does not move
fill=small/fill
dd if=/dev/zero of=$fill bs=1k count=8192 2>/dev/null
expect_exit 3 kcarry -C small/ws apply s@v1 t
stderr_has "No space left on device"
git -C up rev-parse -q --verify kcarry/s/v1/t >/dev/null && fail "the branch moved without its refreshed series"
rm -f $fill
expect_exit 0 kcarry -C small/ws apply s@v1 t
git -C up rev-parse -q --verify kcarry/s/v1/t >/dev/null || fail "no branch"
[ "$(grep -c . small/ws/patches/s/v1/t/series)" = 8 ] || fail "refreshed series"
umount small
exit 0
