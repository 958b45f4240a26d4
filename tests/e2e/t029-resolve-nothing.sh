#!/bin/sh
# A person may resolve a conflict by deciding the target needs none of
# the patch: files left as the tree has them, a new file not created.
# refresh records that ("nothing to apply"), and every later carry reads
# the patch as already applied instead of failing on an empty resolution.
. ./lib.sh
four_patch_series
# a fifth patch: a new file plus a line the target does not have
printf 'int added;\n' >up/fs/btrfs/new.c
sed -i 's/^	w_line_51_changed();$/	w_line_51_changed_more();/' up/fs/btrfs/async-thread.c
git -C up add -A && git -C up commit -qm "btrfs: new file and a conflicting line"
kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/tgt\n\tref = base\n' "$TEST_TMP" >ws/kernels/t.conf
expect_exit 0 kcarry -C ws import wq --git up base..HEAD
expect_exit 1 kcarry -C ws apply wq t
stdout_has "^  0003 conflict"

# patch 3: leave the file exactly as the tree has it
expect_exit 0 kcarry -C ws resolve wq t 3
f=ws/.kcarry/resolve/wq/v1/t/files/fs/btrfs/async-thread.c
git -C tgt show base:fs/btrfs/async-thread.c |
	sed 's/^	w_line_10();/	w_line_10();\n	exact_fix();/' >"$f.tmp"
awk '{print} /w_line_40\(\);/{print "\toffset_fix();"}' "$f.tmp" >"$f"
rm -f "$f.tmp" "$f.rej"
expect_exit 1 kcarry -C ws refresh wq t
stderr_has "^recorded the resolution of 0003-btrfs-conflicting-fix.patch"
stdout_has "^  0005 conflict +btrfs: new file and a conflicting line$"
stdout_has "^  0003 already applied +\[resolved\] btrfs: conflicting fix$"
expect_exit 1 kcarry -C ws apply wq t
stdout_has "^  0003 already applied +\[resolved\] btrfs: conflicting fix$"
expect_exit 1 kcarry -C ws check wq t

# patch 5 (new.c and a conflicting line): new.c not created, the file kept
expect_exit 0 kcarry -C ws resolve wq t 5
d=ws/.kcarry/resolve/wq/v1/t/files
rm -f "$d/fs/btrfs/new.c" "$d/fs/btrfs/new.c.rej"
git -C tgt show "kcarry/wq/v1/t:fs/btrfs/async-thread.c" |
	sed 's/^	w_line_51_target();$/	w_line_51_changed_more();/' >"$d/fs/btrfs/async-thread.c"
rm -f "$d/fs/btrfs/async-thread.c.rej"
expect_exit 0 kcarry -C ws refresh wq t
git -C tgt cat-file -e "kcarry/wq/v1/t:fs/btrfs/new.c" 2>/dev/null && fail "new.c was created"
git -C tgt show kcarry/wq/v1/t:fs/btrfs/async-thread.c | grep -q w_line_51_changed_more ||
	fail "the person's edit is not on the branch"
expect_exit 0 kcarry -C ws apply wq t
git -C tgt fsck --strict >/dev/null 2>&1 || fail "git fsck --strict"
exit 0
