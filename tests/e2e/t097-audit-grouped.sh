#!/bin/sh
# kcarry check, the watched-API audit in the terminal: by default the
# unconverted callers are grouped per symbol and file, with counts and
# line ranges (lines at most 3 apart join a range); -v keeps every line.
# The counts and lines are checked against git grep on the target.
. ./lib.sh
H='#ifndef BTRFS_ASYNC_THREAD_H
#define BTRFS_ASYNC_THREAD_H
struct btrfs_work;
typedef void (*btrfs_func_t)(struct btrfs_work *arg);
struct btrfs_work {
	btrfs_func_t func;
	btrfs_func_t ordered_func;
	btrfs_func_t ordered_free;
};
void btrfs_init_work(struct btrfs_work *work, btrfs_func_t func,
		     btrfs_func_t ordered_func, btrfs_func_t ordered_free);
void btrfs_queue_work(struct btrfs_work *work);
#endif
'
C='#include "async-thread.h"

void btrfs_init_work(struct btrfs_work *work, btrfs_func_t func,
		     btrfs_func_t ordered_func, btrfs_func_t ordered_free)
{
	work->func = func;
	work->ordered_func = ordered_func;
	work->ordered_free = ordered_free;
}

void btrfs_queue_work(struct btrfs_work *work)
{
	work->func(work);
}
'
caller() { # FILE FUNC CALLBACK
	printf '#include "async-thread.h"\n\nstatic void %s(struct btrfs_work *w)\n{\n}\n\nvoid %s(struct btrfs_work *w)\n{\n\tint x = 1;\n\n\tbtrfs_init_work(w, %s, NULL, NULL);\n\tbtrfs_queue_work(w);\n}\n' "$3" "$2" "$3"
}
make_repo up fs/btrfs/async-thread.h "$H" fs/btrfs/async-thread.c "$C" \
	fs/btrfs/disk-io.c "$(caller disk-io end_workqueue end_io)
" fs/btrfs/inode.c "$(caller inode submit_compressed compress_fn)
" fs/btrfs/raid56.c "$(caller raid56 rmw_work rmw_fn)
"
# patch 1: the API change and the disk-io.c caller
sed -i 's/,\n\t\t     btrfs_func_t ordered_free//' up/fs/btrfs/async-thread.h
python3 - up <<'PY'
import sys, re
d = sys.argv[1] + "/fs/btrfs/"
for f in ("async-thread.h", "async-thread.c"):
    s = open(d + f).read()
    s = s.replace(",\n\t\t     btrfs_func_t ordered_func, btrfs_func_t ordered_free)",
                  ",\n\t\t     btrfs_func_t ordered_func)")
    s = s.replace("\twork->ordered_free = ordered_free;\n", "")
    s = s.replace("\tbtrfs_func_t ordered_free;\n", "")
    open(d + f, "w").write(s)
s = open(d + "disk-io.c").read().replace("end_io, NULL, NULL)", "end_io, NULL)")
open(d + "disk-io.c", "w").write(s)
PY
git -C up commit -qam "btrfs: drop ordered_free from btrfs_init_work" || fail commit
sed -i 's/compress_fn, NULL, NULL)/compress_fn, NULL)/' up/fs/btrfs/inode.c
git -C up commit -qam "btrfs: convert inode.c to the new btrfs_init_work" || fail commit
sed -i 's/rmw_fn, NULL, NULL)/rmw_fn, NULL)/' up/fs/btrfs/raid56.c
git -C up commit -qam "btrfs: convert raid56.c to the new btrfs_init_work" || fail commit

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
