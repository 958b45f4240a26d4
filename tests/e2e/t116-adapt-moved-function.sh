#!/bin/sh
# Adaptation, rule 1 (moved code) for a file that still exists: btrfs 6.2
# moved btrfs_defrag_file() from ioctl.c into the new defrag.c, so a fix
# to it written for 6.1's ioctl.c meets an ioctl.c without the function
# in a newer tree.  When every hunk of the file conflicts, each in a
# function the file no longer defines, and every hunk applies exactly to
# one other file of its folder, the file patch goes there:
#  - moved: adapted into defrag.c, the note says ioctl.c has no
#    btrfs_defrag_file(); ioctl.c is untouched;
#  - twice (adversarial): two files of the folder hold the function's
#    lines: a conflict;
#  - half (adversarial): one hunk of the file patch still applies to
#    half.c, the other is in the moved function, whose lines in defrag.c
#    patch 0001 already changed: rule 1 does not move a hunk onto drifted
#    lines (t146 moves one onto lines that stand), a conflict.
here=$(pwd)
. ./lib.sh
. "$here/adapt-lib.sh"

DEFRAG='int btrfs_defrag_file(struct inode *inode, struct defrag_ctx *ctx)
{
	u64 cur = ctx->start;
	int ret = 0;

	while (cur < ctx->end) {
		ret = defrag_one_cluster(inode, ctx, cur);
		if (ret < 0)
			break;
		cur += ctx->cluster;
	}
	return ret;
}
'
IOCTL_REST='long btrfs_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	switch (cmd) {
	case BTRFS_IOC_DEFRAG:
		return btrfs_ioctl_defrag(file, arg);
	}
	return -ENOTTY;
}
'
IOCTL_OLD="$DEFRAG
$IOCTL_REST"
FIX='s/		cur += ctx->cluster;/		cur += ctx->cluster;\
		cond_resched();/'
make_repo up fs/btrfs/ioctl.c "$IOCTL_OLD" fs/btrfs/half.c "$IOCTL_OLD"
commit_file up fs/btrfs/ioctl.c "$(printf '%s' "$IOCTL_OLD" | sed "$FIX")
" "btrfs: reschedule between defrag clusters"
commit_file up fs/btrfs/half.c "$(printf '%s' "$IOCTL_OLD" | sed "$FIX" |
	sed 's/return -ENOTTY;/return -EINVAL;/')
" "btrfs: half moved"
make_repo moved fs/btrfs/ioctl.c "$IOCTL_REST" fs/btrfs/defrag.c "$DEFRAG" \
	fs/btrfs/half.c "$IOCTL_REST"
make_repo twice fs/btrfs/ioctl.c "$IOCTL_REST" fs/btrfs/defrag.c "$DEFRAG" \
	fs/btrfs/defrag-compat.c "$DEFRAG"
adapt_ws mf moved:moved twice:twice

expect_exit 1 kcarry -C ws apply mf moved
stdout_has '^  0001 adapted           btrfs: reschedule between defrag clusters$'
stdout_has 'fs/btrfs/ioctl.c hunk 1: adapted .*moved from fs/btrfs/ioctl.c to fs/btrfs/defrag.c: fs/btrfs/ioctl.c has no btrfs_defrag_file\(\), and its lines stand exactly in fs/btrfs/defrag.c alone of its folder'
stdout_has '^  0002 conflict          btrfs: half moved'
expect_exit 1 kcarry -C ws apply --accept-adapted mf moved
printf '%s' "$DEFRAG" | sed "$FIX" >want.c
git -C moved show kcarry/mf/v1/moved:fs/btrfs/defrag.c >got.c
diff -u want.c got.c || fail "not moved into defrag.c"
git -C moved show kcarry/mf/v1/moved:fs/btrfs/ioctl.c | cmp -s - moved/fs/btrfs/ioctl.c ||
	fail "ioctl.c changed"
rp=ws/patches/mf/v1/moved/0001-btrfs-reschedule-between-defrag-clusters.patch
grep -q '^+++ b/fs/btrfs/defrag.c$' "$rp" || { cat "$rp"; fail "refreshed patch does not change defrag.c"; }

expect_exit 1 kcarry -C ws apply mf twice
stdout_has '^  0001 conflict          btrfs: reschedule between defrag clusters$'
grep -q 'adapted' "$OUT" && { cat "$OUT"; fail "twice: adapted"; }
exit 0
