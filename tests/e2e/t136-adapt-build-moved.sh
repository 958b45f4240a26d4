#!/bin/sh
# A build diagnostic in the file adaptation rule 1 (moved code) moved a
# hunk into is pinned on that hunk (issue 18).  btrfs 6.2 moved
# btrfs_defrag_file() from ioctl.c into defrag.c; two one-line fixes to
# it, written for ioctl.c, are moved into defrag.c on the target:
#  - good calls cond_resched(), which the target declares: its file
#    compiles clean, so the moved hunk is "adapted, builds";
#  - bad calls cond_resched_now(), which nothing declares: the error in
#    defrag.c is pinned on 0001's hunk 1 ("<- 0001 (hunk 1)", as for a
#    line of the patch's own file), the hunk is a conflict again (cause
#    "build"), and the branch is carried again without the move: its
#    defrag.c is the target's.
here=$(pwd)
. ./lib.sh
need gcc
need make
FX=$KCARRY_FIXTURES/build/proj
[ -d "$FX" ] || FX=$(cd "$here/../fixtures/build/proj" && pwd)

DEFRAG_H='struct defrag_ctx { unsigned long start, end, cluster; };
int defrag_one_cluster(struct defrag_ctx *ctx, unsigned long cur);
void cond_resched(void);
int btrfs_defrag_file(struct defrag_ctx *ctx);
long btrfs_ioctl(unsigned int cmd, struct defrag_ctx *ctx);
'
DECLS='#include "defrag.h"
'
DEFRAG='int btrfs_defrag_file(struct defrag_ctx *ctx)
{
	unsigned long cur = ctx->start;
	int ret = 0;

	while (cur < ctx->end) {
		ret = defrag_one_cluster(ctx, cur);
		if (ret < 0)
			break;
		cur += ctx->cluster;
	}
	return ret;
}
'
IOCTL_REST='long btrfs_ioctl(unsigned int cmd, struct defrag_ctx *ctx)
{
	switch (cmd) {
	case 1:
		return btrfs_defrag_file(ctx);
	}
	return -25;
}
'
IOCTL_OLD="$DECLS
$DEFRAG
$IOCTL_REST"
for r in tgt up; do
	mkdir $r && cp "$FX/Makefile" $r/ && cp -r "$FX/include" $r/ || fail "$r"
done
make_repo up fs/btrfs/ioctl.c "$IOCTL_OLD" fs/btrfs/defrag.h "$DEFRAG_H"
make_repo tgt fs/btrfs/defrag.h "$DEFRAG_H" fs/btrfs/ioctl.c "$DECLS
$IOCTL_REST" fs/btrfs/defrag.c "$DECLS
$DEFRAG"
git -C up checkout -qb good
commit_file up fs/btrfs/ioctl.c "$(printf '%s' "$IOCTL_OLD" |
	sed 's/^		cur += ctx->cluster;/&\
		cond_resched();/')
" "btrfs: reschedule between defrag clusters"
git -C up checkout -qb bad base
commit_file up fs/btrfs/ioctl.c "$(printf '%s' "$IOCTL_OLD" |
	sed 's/^		cur += ctx->cluster;/&\
		cond_resched_now(ctx);/')
" "btrfs: reschedule now between defrag clusters"

kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/tgt\n\tref = base\n[build]\n\tconfig = defconfig\n\tjobs = 1\n' \
	"$TEST_TMP" >ws/kernels/tgt.conf
expect_exit 0 kcarry -C ws import good --git up base..good
expect_exit 0 kcarry -C ws import bad --git up base..bad

# both are moved into defrag.c before any build
for s in good bad; do
	expect_exit 1 kcarry -C ws apply $s tgt
	stdout_has 'fs/btrfs/ioctl.c hunk 1: adapted .*moved from fs/btrfs/ioctl.c to fs/btrfs/defrag.c'
done

# good: defrag.c compiled clean, the moved hunk builds
expect_exit 0 kcarry -C ws build good tgt
stdout_has '^0001 fs/btrfs/ioctl.c hunk 1: adapted, builds$'
expect_exit 1 kcarry -C ws check --build good
stdout_has '^ *0001 .* A *$'

# bad: the error in defrag.c is 0001's hunk 1
expect_exit 1 kcarry -C ws build bad tgt
stdout_has "^ *fs/btrfs/defrag.c:1[0-9]: error: implicit declaration of function 'cond_resched_now'.*  <- 0001 \(hunk 1\)$"
stdout_has '^0001 fs/btrfs/ioctl.c hunk 1: conflict again: the adapted hunk \(rule moved-code\) does not build; the branch was carried again without it$'
git -C tgt show kcarry/bad/v1/tgt:fs/btrfs/defrag.c >got.c
git -C tgt show base:fs/btrfs/defrag.c | cmp -s - got.c ||
	{ cat got.c; fail "the branch's defrag.c holds the refused move"; }
expect_exit 1 kcarry -C ws check --build --format json -o b.json bad
python3 - b.json <<'EOT' || fail "bad JSON"
import json, sys
d = json.load(open(sys.argv[1]))
p = d["cells"][0]["patches"][0]
h = p["files"][0]["hunks"][0]
assert p["outcome"] == "conflict" and not p["committed"], p
assert h["rule"] == "conflict" and h["adaptation"] is None, h
assert h["cause"]["kind"] == "build", h["cause"]
assert "cond_resched_now" in h["cause"]["text"], h["cause"]
EOT
exit 0
