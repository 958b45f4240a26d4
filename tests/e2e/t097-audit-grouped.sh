#!/bin/sh
# kcarry check, the watched-API audit in the terminal: by default the
# unconverted callers are grouped per symbol and file, with counts and
# line ranges (lines at most 3 apart join a range); -v keeps every line.
# The counts and lines are checked against git grep on the target.
here=$(pwd)
. ./lib.sh
. "$here/wq-lib.sh"
wq_upstream

# old: no raid56.c, but scrub.c that the series never converts
# old: scrub.c calls btrfs_init_work at lines 10-12 and 33, zoned.c once;
# the series converts neither
scrub='#include "async-thread.h"

static void scrub_fn(struct btrfs_work *w)
{
}

void scrub_start(struct btrfs_work *w, struct btrfs_work *v,
		 struct btrfs_work *u)
{
	btrfs_init_work(w, scrub_fn, NULL, NULL);
	btrfs_init_work(v, scrub_fn, NULL, NULL);
	btrfs_init_work(u, scrub_fn, NULL, NULL);
	btrfs_queue_work(w);
}
















void scrub_again(struct btrfs_work *w)
{
	btrfs_init_work(w, scrub_fn, NULL, NULL);
}
'
make_repo old fs/btrfs/async-thread.h "$H" fs/btrfs/async-thread.c "$C" \
	fs/btrfs/disk-io.c "$(caller disk-io end_workqueue end_io)
" fs/btrfs/inode.c "$(caller inode submit_compressed compress_fn)
" fs/btrfs/scrub.c "$scrub" fs/btrfs/zoned.c "$(caller zoned zone_start zone_fn)
"
kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/old\n\tref = base\n' "$TEST_TMP" >ws/kernels/old.conf
expect_exit 0 kcarry -C ws import wq --git up base..HEAD

# the independent count: git grep on the target
git -C old grep -n -w btrfs_init_work -- fs/btrfs/scrub.c fs/btrfs/zoned.c |
	cut -d: -f1,2 >"$TEST_TMP/grep"
[ "$(tr '\n' ' ' <"$TEST_TMP/grep")" = "fs/btrfs/scrub.c:10 fs/btrfs/scrub.c:11 fs/btrfs/scrub.c:12 fs/btrfs/scrub.c:33 fs/btrfs/zoned.c:11 " ] ||
	fail "fixture: $(cat "$TEST_TMP/grep")"

expect_exit 1 kcarry -C ws check wq old
stdout_has '^    unconverted btrfs_init_work: 4 uses in fs/btrfs/scrub.c \(10-12, 33\), 1 in fs/btrfs/zoned.c \(11\)$'
[ "$(grep -c '^    unconverted' "$OUT")" = 1 ] || fail "more than one grouped line"

# -v: every line, as before
expect_exit 1 kcarry -C ws -v check wq old
grep '^    unconverted ' "$OUT" | sed 's/^    unconverted \([^ ]*\) .*/\1/' >"$TEST_TMP/lines"
diff -u "$TEST_TMP/grep" "$TEST_TMP/lines" || fail "-v lines differ from git grep"
stdout_has '^    unconverted fs/btrfs/scrub.c:33 scrub_again\(\) btrfs_init_work$'
exit 0
