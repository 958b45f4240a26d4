# wq-lib.sh: the watched-API fixture of the audit tests, sourced after
# lib.sh: H and C, the async-thread.[ch] of a btrfs_init_work() with an
# ordered_free argument; caller FILE FUNC CALLBACK, a file calling it;
# and wq_upstream [FILE CONTENT]..., which makes the repository 'up'
# (with the files given too) whose three commits drop the argument and
# convert disk-io.c, inode.c and raid56.c.
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
wq_upstream() {
make_repo up "$@" fs/btrfs/async-thread.h "$H" fs/btrfs/async-thread.c "$C" \
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
}
