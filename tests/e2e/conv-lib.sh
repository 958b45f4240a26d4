# conv-lib.sh: the fixture of the series-conversion tests (t125, t126),
# sourced after lib.sh.  WH and WC: an async-thread.[ch] whose
# btrfs_init_work() takes a helper as its argument 2 of 4, as Linux 3.15
# to 5.3 had it; conv_caller FILE FUNC: a file calling it once;
# conv_upstream FILE...: the repository 'up', those callers at tag base,
# and one commit that drops the helper argument from the API and from
# every call of the callers (as "btrfs: get rid of unique workqueue
# helper functions" does), after the caller files the test wrote into
# up/ already (conv_upstream copies nothing it did not write).
WH='#ifndef BTRFS_ASYNC_THREAD_H
#define BTRFS_ASYNC_THREAD_H
struct btrfs_work;
typedef void (*btrfs_func_t)(struct btrfs_work *arg);
typedef void (*btrfs_work_func_t)(struct btrfs_work *arg);
struct btrfs_work {
	btrfs_work_func_t helper;
	btrfs_func_t func;
	btrfs_func_t ordered_func;
};
void btrfs_init_work(struct btrfs_work *work, btrfs_work_func_t helper,
		     btrfs_func_t func, btrfs_func_t ordered_func);
void btrfs_queue_work(struct btrfs_work *work);
#endif
'
WC='#include "async-thread.h"

void btrfs_init_work(struct btrfs_work *work, btrfs_work_func_t helper,
		     btrfs_func_t func, btrfs_func_t ordered_func)
{
	work->helper = helper;
	work->func = func;
	work->ordered_func = ordered_func;
}

void btrfs_queue_work(struct btrfs_work *work)
{
	work->func(work);
}
'
conv_caller() { # FILE FUNC
	printf '#include "async-thread.h"\n\nstatic void %s_fn(struct btrfs_work *w)\n{\n}\n\nvoid %s(struct btrfs_work *w)\n{\n\tint x = 1;\n\n\tbtrfs_init_work(w, %s_helper, %s_fn, NULL);\n\tbtrfs_queue_work(w);\n}\n' "$2" "$2" "$2" "$2"
}
# conv_upstream: commit what up/ holds as base, then the conversion
conv_upstream() {
	mkdir -p up/fs/btrfs
	printf '%s' "$WH" >up/fs/btrfs/async-thread.h
	printf '%s' "$WC" >up/fs/btrfs/async-thread.c
	git init -q up && git -C up add -A && git -C up commit -qm base &&
		git -C up tag base || fail "conv_upstream base"
	python3 - up <<'PY' || fail "conv_upstream edit"
import os, re, sys
d = os.path.join(sys.argv[1], "fs/btrfs")
for f in os.listdir(d):
    p = os.path.join(d, f)
    s = open(p).read()
    if f.startswith("async-thread"):
        s = s.replace("btrfs_work_func_t helper,\n\t\t     btrfs_func_t func, "
                      "btrfs_func_t ordered_func)",
                      "btrfs_func_t func,\n\t\t     btrfs_func_t ordered_func)")
        s = s.replace("\tbtrfs_work_func_t helper;\n", "")
        s = s.replace("\twork->helper = helper;\n", "")
        s = s.replace("typedef void (*btrfs_work_func_t)(struct btrfs_work *arg);\n", "")
    else:
        s = re.sub(r"btrfs_init_work\(([^,]*), [a-z0-9_]*_helper,\s*", r"btrfs_init_work(\1, ", s)
    open(p, "w").write(s)
PY
	git -C up commit -qam "btrfs: get rid of unique workqueue helper functions" ||
		fail "conv_upstream commit"
}
