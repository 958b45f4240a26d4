#!/bin/sh
# kill -9 at random moments of kcarry rebase, in a loop: after each kill
# git fsck --strict passes, and rebase run again ends with the tree an
# uninterrupted rebase gives (what a killed run recorded is replayed, never
# half-written), with no lock or temporary folder left.
. ./lib.sh
need timeout

edit() {
	sed -i "$2" "$1/fs/btrfs/a.c" || fail "sed $2"
	git -C "$1" commit -qam "$3" || fail "commit $3"
}
make_repo up fs/btrfs/a.c "$(c_lines 60 w)
"
git -C up checkout -qb v1
edit up 's/w_line_10();/w_line_10(one);/' "btrfs: first"
edit up 's/w_line_51();/w_line_51_changed();/' "btrfs: conflicting fix"
edit up 's/w_line_30();/w_line_30(third);/' "btrfs: third"
git -C up checkout -q base
git -C up checkout -qb v2
edit up 's/w_line_10();/w_line_10(one, two);/' "btrfs: first"
edit up 's/w_line_51();/w_line_51_changed();/; s/w_line_58();/w_line_58(2);/' "btrfs: conflicting fix"
edit up 's/w_line_30();/w_line_30(third);/' "btrfs: third"
edit up 's/w_line_40();/w_line_40(new);/' "btrfs: new"
make_repo tgt fs/btrfs/a.c "$(c_lines 50 w)
	w_line_51_target();
$(c_lines 60 w | tail -n 9)
"
kcarry init ws >/dev/null
for t in t ref; do
	printf '[kernel]\n\turl = %s/tgt\n\tref = base\n' "$TEST_TMP" >ws/kernels/$t.conf
done
expect_exit 0 kcarry -C ws import wq@v1 --git up base..v1
expect_exit 0 kcarry -C ws import wq@v2 --git up base..v2
expect_exit 1 kcarry -C ws apply wq@v1 t
expect_exit 0 kcarry -C ws resolve wq@v1 t 2
f=ws/.kcarry/resolve/wq/v1/t/files/fs/btrfs/a.c
git -C tgt show base:fs/btrfs/a.c |
	sed 's/w_line_10();/w_line_10(one);/; s/w_line_51_target()/w_line_51_resolved()/' >"$f"
expect_exit 0 kcarry -C ws refresh wq@v1 t

# the reference: a rebase nobody interrupts, in a copy of the workspace
cp -r ws ref
expect_exit 0 kcarry -C ref rebase wq v1 v2 ref
want=$(git -C tgt rev-parse kcarry/wq/v2/ref^{tree})
git -C tgt show "$want:fs/btrfs/a.c" | grep -q '^	w_line_51_resolved();$' ||
	fail "the reference lost the resolution"

kills=${KCARRY_FAULT_KILLS:-20}
r=1 hit=0
while [ $r -le "$kills" ]; do
	"$KCARRY" -q -C ws rebase wq v1 v2 t >/dev/null 2>&1 &
	pid=$!
	sleep "0.$(printf '%03d' $(( $(od -An -N2 -tu2 /dev/urandom) % 45 )))"
	kill -9 $pid 2>/dev/null && hit=$((hit + 1))
	wait $pid 2>/dev/null
	git -C tgt fsck --strict --no-dangling >fsck.out 2>&1 ||
		{ cat fsck.out; fail "round $r: git fsck --strict"; }
	timeout 60 "$KCARRY" -q -C ws rebase wq v1 v2 t >again.out 2>&1 ||
		{ cat again.out; fail "round $r: rebase after the kill exited $?"; }
	[ "$(git -C tgt rev-parse kcarry/wq/v2/t^{tree})" = "$want" ] ||
		fail "round $r: the tree differs from the uninterrupted rebase's"
	ls -d ws/patches/wq/.tmp-* ws/patches/wq/*/.tmp-* ws/patches/wq/.resolutions/.tmp* \
		2>/dev/null && fail "round $r: temporary files left"
	for l in ws/series/*.lock ws/patches/wq/.resolutions/*.lock; do
		[ -e "$l" ] && fail "round $r: $l left"
	done
	r=$((r + 1))
done
echo "$kills kills ($hit while rebase ran) survived"
