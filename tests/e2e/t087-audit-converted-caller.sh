#!/bin/sh
# The watch audit on a target that already carries one of the series'
# caller conversions: the series changes btrfs_init_work (drops
# ordered_free) and converts disk-io.c (patch 1) and inode.c (patch 2);
# the target has the old API, inode.c already in its new form (patch 2
# is already-applied), zoned.c already calling the new three-argument
# form (the series never touches it) and scrub.c, which the series never
# converts.  check lists scrub.c's call as unconverted (and exits 1 for
# it), never inode.c's or zoned.c's, which already match the series'
# result: git grep on the carried branch is the independent judge of
# which calls keep the old four-argument form.
here=$(pwd)
. ./lib.sh
. "$here/wq-lib.sh"
caller() { # FILE FUNC CALLBACK [ARGS]
	printf '#include "async-thread.h"\n\nstatic void %s(struct btrfs_work *w)\n{\n}\n\nvoid %s(struct btrfs_work *w)\n{\n\tint x = 1;\n\n\tbtrfs_init_work(w, %s, %s);\n\tbtrfs_queue_work(w);\n}\n' "$3" "$2" "$3" "${4:-NULL, NULL}"
}
make_repo up fs/btrfs/async-thread.h "$H" fs/btrfs/async-thread.c "$C" \
	fs/btrfs/disk-io.c "$(caller disk-io end_workqueue end_io)
" fs/btrfs/inode.c "$(caller inode submit_compressed compress_fn)
"
python3 - up <<'PY'
import sys
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

# the target: the old API, inode.c already converted, scrub.c never
make_repo tgt fs/btrfs/async-thread.h "$H" fs/btrfs/async-thread.c "$C" \
	fs/btrfs/disk-io.c "$(caller disk-io end_workqueue end_io)
" fs/btrfs/inode.c "$(caller inode submit_compressed compress_fn NULL)
" fs/btrfs/scrub.c "$(caller scrub scrub_start scrub_fn)
" fs/btrfs/zoned.c "$(caller zoned zone_start zone_fn NULL)
"
kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/tgt\n\tref = base\n' "$TEST_TMP" >ws/kernels/tgt.conf
expect_exit 0 kcarry -C ws import wq --git up base..HEAD
expect_exit 1 kcarry -C ws check --no-refresh wq tgt
cp "$OUT" check.txt
# the peer: the calls of the result still in the old form
git -C tgt grep -n 'btrfs_init_work(w, [a-z_]*, NULL, NULL)' kcarry/wq/v1/tgt -- fs/btrfs |
	sed 's/^[^:]*:\([^:]*:[0-9]*\):.*/\1/' >peer.txt
[ "$(cat peer.txt)" = "fs/btrfs/scrub.c:11" ] || fail "peer: $(cat peer.txt)"
sed -n '/^  watch,/,$p' check.txt | grep -Eq 'inode\.c|zoned\.c' &&
	{ cat check.txt; fail "a caller in the new form is listed"; }
grep -q '^    unconverted btrfs_init_work: 1 use in fs/btrfs/scrub.c (11)$' check.txt ||
	{ cat check.txt; fail "scrub.c not listed as unconverted"; }
grep -q '^  wq@v1 on tgt: 1 already applied, 1 clean, 1 unconverted caller$' check.txt ||
	{ cat check.txt; fail "summary"; }

# json: the unconverted sites are the peer's; every caller classified
expect_exit 1 kcarry -C ws check --no-refresh --format json wq tgt
python3 - "$OUT" peer.txt <<'PY' || fail "json audit"
import json, sys
a = json.load(open(sys.argv[1]))["cells"][0]["audit"]
peer = open(sys.argv[2]).read().split()
got = ["%s:%d" % (u["path"], u["line"]) for u in a["unconverted"]]
assert got == peer, (got, peer)
cls = sorted((c["path"], c["class"], c["patch"]) for c in a["callers"])
want = [("fs/btrfs/disk-io.c", "converted", 1),
        ("fs/btrfs/inode.c", "converted", 2),
        ("fs/btrfs/scrub.c", "target-only", None)]
assert cls == want, cls
PY
