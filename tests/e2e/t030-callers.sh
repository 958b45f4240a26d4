#!/bin/sh
# kcarry callers: the reference map of a target's tree, for the exports of
# the watched files or the symbols named, checked exactly and against
# 'git grep -n -w' on the same repository; --scope, --watch, --json and
# the usage and target errors.
. ./lib.sh

make_repo tgt fs/btrfs/async-thread.h '#ifndef BTRFS_ASYNC_THREAD_H
#define BTRFS_ASYNC_THREAD_H

struct btrfs_work;
typedef void (*btrfs_func_t)(struct btrfs_work *arg);

struct btrfs_work {
	btrfs_func_t func;
	unsigned long flags;
};

void btrfs_init_work(struct btrfs_work *work, btrfs_func_t func,
		     btrfs_func_t ordered_func, btrfs_func_t ordered_free);
void btrfs_queue_work(struct btrfs_work *work);
#define btrfs_work_pending(w) ((w)->flags != 0)

#endif
' fs/btrfs/async-thread.c '#include "async-thread.h"

void btrfs_init_work(struct btrfs_work *work, btrfs_func_t func,
		     btrfs_func_t ordered_func, btrfs_func_t ordered_free)
{
	work->func = func;
}

void btrfs_queue_work(struct btrfs_work *work)
{
	if (btrfs_work_pending(work))
		return;
	queue(work);
}
' fs/btrfs/inode.c '#include "async-thread.h"

static void fixup_worker(struct btrfs_work *work)
{
	/* btrfs_queue_work(work) would loop: not a call */
	do_fixup(work, "btrfs_init_work");
}

static int start_fixup(struct fixup *fixup)
{
	btrfs_init_work(&fixup->work, fixup_worker, NULL,
			NULL);
	btrfs_queue_work(&fixup->work);
	return 0;
}

#if 0
static void dead(void) { btrfs_queue_work(NULL); }
#endif
' fs/btrfs/ops.c '#include "async-thread.h"

static const struct queue_ops ops = {
	.queue = btrfs_queue_work,
};

int requeue(struct btrfs_work *w)
{
	return run_later(btrfs_queue_work, w);
}
' fs/other/user.c 'void user(void *w)
{
	btrfs_queue_work(w);
}
'

kcarry init ws >/dev/null
cat >ws/kernels/T.conf <<EOT
[kernel]
	name = T
	url = $TEST_TMP/tgt
	ref = base
EOT

# every export of async-thread.[ch]: calls and uses, no declarations
expect_exit 0 kcarry -C ws callers T
expect_stdout <<'EOT'
fs/btrfs/async-thread.c:3: btrfs_init_work: use struct btrfs_work
fs/btrfs/async-thread.c:3: btrfs_init_work: use btrfs_func_t
fs/btrfs/async-thread.c:4: btrfs_init_work: use btrfs_func_t
fs/btrfs/async-thread.c:4: btrfs_init_work: use btrfs_func_t
fs/btrfs/async-thread.c:9: btrfs_queue_work: use struct btrfs_work
fs/btrfs/async-thread.c:11: btrfs_queue_work: call btrfs_work_pending
fs/btrfs/async-thread.h:5: -: use struct btrfs_work
fs/btrfs/async-thread.h:8: -: use btrfs_func_t
fs/btrfs/async-thread.h:12: -: use struct btrfs_work
fs/btrfs/async-thread.h:12: -: use btrfs_func_t
fs/btrfs/async-thread.h:13: -: use btrfs_func_t
fs/btrfs/async-thread.h:13: -: use btrfs_func_t
fs/btrfs/async-thread.h:14: -: use struct btrfs_work
fs/btrfs/inode.c:3: fixup_worker: use struct btrfs_work
fs/btrfs/inode.c:11: start_fixup: call btrfs_init_work
fs/btrfs/inode.c:13: start_fixup: call btrfs_queue_work
fs/btrfs/ops.c:4: -: use btrfs_queue_work
fs/btrfs/ops.c:7: requeue: use struct btrfs_work
fs/btrfs/ops.c:9: requeue: use btrfs_queue_work
EOT
expect_stderr <<'EOT'
T: 19 references (3 calls, 16 uses) in 4 files
EOT

# one symbol, checked against git grep: every line naming it except the
# declarations and the definition, a comment, a string and '#if 0' code
expect_exit 0 kcarry -C ws callers T btrfs_queue_work
expect_stdout <<'EOT'
fs/btrfs/inode.c:13: start_fixup: call btrfs_queue_work
fs/btrfs/ops.c:4: -: use btrfs_queue_work
fs/btrfs/ops.c:9: requeue: use btrfs_queue_work
EOT
cut -d: -f1,2 "$OUT" >got
git -C tgt grep -n -w btrfs_queue_work base -- fs/btrfs |
	sed 's/^base://' | cut -d: -f1,2 |
	grep -v -e '^fs/btrfs/async-thread\.h:14$' -e '^fs/btrfs/async-thread\.c:9$' \
		-e '^fs/btrfs/inode\.c:5$' -e '^fs/btrfs/inode\.c:18$' >want
diff -u want got || fail "callers differ from git grep"
[ "$(wc -l <want)" = 3 ] || fail "git grep found $(wc -l <want) lines"

# the same for btrfs_init_work, with no filter but the declarations
expect_exit 0 kcarry -q -C ws callers T btrfs_init_work
cut -d: -f1,2 "$OUT" >got
git -C tgt grep -n -w btrfs_init_work base -- fs/btrfs | sed 's/^base://' |
	cut -d: -f1,2 | grep -v -e '^fs/btrfs/async-thread\.[ch]:' \
	-e '^fs/btrfs/inode\.c:6$' >want
diff -u want got || fail "btrfs_init_work callers differ from git grep"
expect_stderr </dev/null

# a folder outside the watched files' own
expect_exit 0 kcarry -C ws callers --scope fs/other T btrfs_queue_work
stdout_has '^fs/other/user\.c:3: user: call btrfs_queue_work$'
stderr_has '^T: 4 references \(2 calls, 2 uses\) in 3 files$'

# other watched files
expect_exit 0 kcarry -C ws callers --watch ./fs/btrfs/inode.c T
expect_stdout </dev/null
stderr_has '^T: 0 references'
expect_exit 2 kcarry -C ws callers --watch fs/xfs/xfs_buf.h T
expect_stderr <<'EOT'
error: 'fs/xfs/xfs_buf.h': not in the tree
hint: name the symbols, or the files to watch with --watch
EOT

# JSON
expect_exit 0 kcarry -C ws callers --json T btrfs_init_work
python3 - "$OUT" "$(git -C tgt rev-parse base)" <<'EOT' || fail "json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "kcarry-callers/1", d
assert d["target"] == "T" and d["commit"] == sys.argv[2], d
assert d["references"] == [{
    "path": "fs/btrfs/inode.c", "line": 11, "function": "start_fixup",
    "kind": "call", "symbol": "btrfs_init_work",
    "text": "btrfs_init_work(&fixup->work, fixup_worker, NULL,"}], d
EOT

# errors
expect_exit 2 kcarry -C ws callers nosuch
stderr_has "^error: no target 'nosuch'"
expect_exit 2 kcarry -C ws callers
expect_stderr <<'EOT'
error: no target named
usage: kcarry callers [options] TARGET [SYMBOL...]
EOT
expect_exit 2 kcarry -C ws callers --bogus T
stderr_has "^error: unknown option '--bogus'"
expect_exit 2 kcarry -C ws callers T --scope
stderr_has "^error: --scope needs DIR$"
# an empty path would name the whole tree
expect_exit 2 kcarry -C ws callers T --watch ''
stderr_has "^error: --watch needs FILE$"
expect_exit 0 kcarry callers --help
stdout_has '^usage: kcarry callers \[options\] TARGET \[SYMBOL\.\.\.\]'
