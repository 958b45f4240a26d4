#!/bin/sh
# Adaptation, rule 5, where the obvious conversion is wrong.  The series
# drops the helper argument (2 of 4) of btrfs_init_work() and converts its
# callers; on the target four of those calls are not as the series saw
# them:
#  - volumes.c: the target's call has 5 arguments (a distro's variant):
#    the rule was learned on calls of 4, so dropping argument 2 would be
#    a guess: it stays a conflict;
#  - scrub.c: the function calls btrfs_init_work() twice where the hunk
#    converts one call: which one is meant cannot be told: a conflict;
#  - reada.c: the hunk also deletes a line besides converting the call,
#    and the target lacks that line: the conversion is not all the hunk
#    does: a conflict;
#  - qgroup.c: only the call differs (another last argument, wrapped over
#    two lines): adapted (the control: rule 5 is there and takes what it
#    may).
here=$(pwd)
. ./lib.sh
. "$here/conv-lib.sh"

mkdir -p up/fs/btrfs
for f in disk-io inode raid56 volumes scrub qgroup; do
	conv_caller $f ${f%%-*}_start >up/fs/btrfs/$f.c
done
conv_caller reada reada_start | sed 's/^\tint x = 1;$/&\n\tw->flags = 0;/' >up/fs/btrfs/reada.c
conv_upstream
sed -i '/w->flags = 0;/d' up/fs/btrfs/reada.c
git -C up commit -q --amend -a --no-edit || fail amend

make_repo tgt fs/btrfs/async-thread.h "$WH" fs/btrfs/async-thread.c "$WC" \
	fs/btrfs/disk-io.c "$(conv_caller disk-io disk_start)
" fs/btrfs/inode.c "$(conv_caller inode inode_start)
" fs/btrfs/raid56.c "$(conv_caller raid56 raid56_start)
" fs/btrfs/volumes.c "$(conv_caller volumes volumes_start |
	sed 's/volumes_start_fn, NULL);/volumes_start_fn, NULL, NULL);/')
" fs/btrfs/scrub.c "$(conv_caller scrub scrub_start |
	sed 's/^\tbtrfs_init_work(w, scrub_start_helper, scrub_start_fn, NULL);$/\tif (x)\n\t&\n\telse\n\t\tbtrfs_init_work(w, scrub_start_helper, scrub_other_fn, NULL);/')
" fs/btrfs/reada.c "$(conv_caller reada reada_start | sed 's/^\tint x = 1;$/&\n\tw->flags = 2;/')
" fs/btrfs/qgroup.c "$(conv_caller qgroup qgroup_start | sed 's/(w, qgroup_start_helper, qgroup_start_fn, NULL)/(w, qgroup_start_helper,\n\t\t\tqgroup_start_fn, qgroup_done)/')
"
grep -q 'NULL, NULL);' tgt/fs/btrfs/volumes.c && grep -q 'scrub_other_fn' tgt/fs/btrfs/scrub.c &&
	grep -q 'flags = 2' tgt/fs/btrfs/reada.c && grep -q 'qgroup_done' tgt/fs/btrfs/qgroup.c ||
	fail "fixture"

kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/tgt\n\tref = base\n' "$TEST_TMP" >ws/kernels/old.conf
expect_exit 0 kcarry -C ws import wq --git up base..HEAD

expect_exit 1 kcarry -C ws apply --json wq old
cp "$OUT" a.json
python3 - a.json <<'EOT' || fail "rules"
import json, sys
p = json.load(open(sys.argv[1]))["results"][0]["patches"][0]
rules = {f["path"].split("/")[-1]: [h["rule"] for h in f["hunks"]] for f in p["files"]}
want = {"volumes.c": ["conflict"], "scrub.c": ["conflict"], "reada.c": ["conflict"],
        "qgroup.c": ["adapted"], "disk-io.c": ["exact"], "inode.c": ["exact"],
        "raid56.c": ["exact"]}
for f, r in want.items():
    assert rules[f] == r, (f, rules[f])
for f in p["files"]:
    for h in f["hunks"]:
        if h["rule"] == "adapted":
            assert h["adaptation"]["rule"] == "series-conversion", h
            assert "+\tbtrfs_init_work(w,\n+\t\t\tqgroup_start_fn, qgroup_done);\n" in h["adaptation"]["adapted"], h
assert p["outcome"] == "conflict", p["outcome"]
EOT
exit 0
