#!/bin/sh
# Adaptation, rule 5 (the series' own conversion): a series drops the
# helper argument (2 of 4) of btrfs_init_work() and converts its four
# callers.  On the target, scrub.c's call is not the one the series saw:
# other arguments, wrapped over two lines, other context, so neither
# fuzz, 3-way, nor the other rules place its hunk.  The conversion the
# series shows on its calls (learned from 4 converted calls) is applied to
# the call as the target has it (a line break after the argument dropped
# is kept):
#  - the patch is "adapted" by rule series-conversion, never clean (exit
#    1 until --accept-adapted), the original hunk shown beside it;
#  - ordered-data.c's hunk removes only the helper line of a call over
#    three lines (its first line is context), and the target names the
#    helper otherwise: the call is read from its context line on;
#  - the branch holds scrub.c with the target's call converted and every
#    other line the target's; the refreshed patch applies with git apply;
#  - JSON carries the adaptation (schema-valid).
here=$(pwd)
. ./lib.sh
. "$here/conv-lib.sh"

mkdir -p up/fs/btrfs
for f in disk-io inode raid56 scrub; do
	conv_caller $f ${f%%-*}_start >up/fs/btrfs/$f.c
done
# a call over three lines: the series removes only its helper line
conv_caller ordered ordered_start |
	sed 's/^\tbtrfs_init_work(w, ordered_start_helper, /\tbtrfs_init_work(w,\n\t\t\tordered_start_helper,\n\t\t\t/' >up/fs/btrfs/ordered-data.c
conv_upstream
sed -i '/^\t\t\tordered_start_helper,$/d' up/fs/btrfs/ordered-data.c
git -C up commit -q --amend -a --no-edit || fail amend

SCRUB_TGT='#include "async-thread.h"

static void scrub_start_fn(struct btrfs_work *w)
{
}

static void scrub_ordered(struct btrfs_work *w)
{
}

void scrub_start(struct btrfs_work *w)
{
	struct scrub_ctx *sctx = to_sctx(w);

	btrfs_init_work(&sctx->work, scrub_start_helper,
			scrub_start_fn, scrub_ordered);
	btrfs_queue_work(&sctx->work);
}
'
# the target names the helper otherwise, and its call differs
ORDERED_TGT='#include "async-thread.h"

static void ordered_start_fn(struct btrfs_work *w)
{
}

void ordered_start(struct btrfs_work *w)
{
	struct ordered *oe = to_oe(w);

	btrfs_init_work(&oe->work,
			btrfs_ordered_helper,
			ordered_start_fn, oe_done);
	btrfs_queue_work(&oe->work);
}
'
make_repo tgt fs/btrfs/async-thread.h "$WH" fs/btrfs/async-thread.c "$WC" \
	fs/btrfs/disk-io.c "$(conv_caller disk-io disk_start)
" fs/btrfs/inode.c "$(conv_caller inode inode_start)
" fs/btrfs/raid56.c "$(conv_caller raid56 raid56_start)
" fs/btrfs/scrub.c "$SCRUB_TGT" fs/btrfs/ordered-data.c "$ORDERED_TGT"

kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/tgt\n\tref = base\n' "$TEST_TMP" >ws/kernels/old.conf
expect_exit 0 kcarry -C ws import wq --git up base..HEAD

# never clean: exit 1 until accepted
expect_exit 1 kcarry -C ws apply wq old
expect_stdout <<'EOT'
wq@v1 on old (kcarry/wq/v1/old)
  0001 adapted           btrfs: get rid of unique workqueue helper functions
         fs/btrfs/ordered-data.c hunk 1: adapted at line 8 (offset -1): the series' conversion, btrfs_init_work() argument 2 of 4 dropped (learned from 4 converted calls), applied to the call in ordered_start() as the target has it, at line 11; the rest of the hunk is the target's
           adapted by rule series-conversion; not accepted yet
         fs/btrfs/scrub.c hunk 1: adapted at line 12 (offset +4): the series' conversion, btrfs_init_work() argument 2 of 4 dropped (learned from 4 converted calls), applied to the call in scrub_start() as the target has it, at line 15; the rest of the hunk is the target's
           adapted by rule series-conversion; not accepted yet
  summary: 1 adapted
EOT

# the original hunk beside the adapted one
expect_exit 1 kcarry -C ws apply -v wq old
stdout_has '^           original hunk:$'
stdout_has '^           adapted hunk:$'
stdout_has '^ *-[[:space:]]*btrfs_init_work\(w, scrub_start_helper, scrub_start_fn, NULL\);$'
stdout_has '^ *\+[[:space:]]*btrfs_init_work\(&sctx->work,$'
stdout_has '^ *\+[[:space:]]*scrub_start_fn, scrub_ordered\);$'

# --no-adapt: the hunk stays a conflict
expect_exit 1 kcarry -C ws apply --no-adapt wq old
stdout_has 'fs/btrfs/scrub.c hunk 1: conflict'

expect_exit 0 kcarry -C ws apply --accept-adapted wq old
printf '%s' "$SCRUB_TGT" | python3 -c '
import sys
s = sys.stdin.read()
s = s.replace("&sctx->work, scrub_start_helper,\n", "&sctx->work,\n")
sys.stdout.write(s)' >want.c
git -C tgt show kcarry/wq/v1/old:fs/btrfs/scrub.c >got.c
diff -u want.c got.c || fail "converted scrub.c"
grep -q 'helper' got.c && fail "the helper argument stayed"
git -C tgt show kcarry/wq/v1/old:fs/btrfs/ordered-data.c >got-o.c
printf '%s' "$ORDERED_TGT" | sed '/^\t\t\tbtrfs_ordered_helper,$/d' >want-o.c
diff -u want-o.c got-o.c || fail "converted ordered-data.c"
git -C tgt show kcarry/wq/v1/old:fs/btrfs/disk-io.c | grep -qx '	btrfs_init_work(w, disk_start_fn, NULL);' ||
	fail "disk-io.c not converted"

# the refreshed patch applies to the target as git applies it
rp=ws/patches/wq/v1/old/0001-btrfs-get-rid-of-unique-workqueue-helper-functions.patch
[ -f "$rp" ] || fail "no refreshed patch"
sed -n '/^Subject:/,/^---$/p' "$rp" |
	grep -q '^\[ adapted: fs/btrfs/scrub.c hunk 1: the series. conversion, ' ||
	fail "no note in the refreshed description"
git clone -q tgt chk && git -C chk checkout -q base
git -C chk apply "$TEST_TMP/$rp" || fail "git apply refuses the refreshed patch"
diff -u want.c chk/fs/btrfs/scrub.c || fail "git apply of the refreshed patch differs"

# JSON: the adaptation object, valid against the schema
expect_exit 1 kcarry -C ws apply --json wq old
cp "$OUT" a.json
python3 - a.json "$KCARRY_FIXTURES/../../docs/kcarry-apply.schema.json" <<'EOT' || fail "apply JSON"
import json, sys
d = json.load(open(sys.argv[1]))
try:
    import jsonschema
    jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).validate(d)
except ImportError:
    pass
p = d["results"][0]["patches"][0]
assert p["outcome"] == "adapted", p["outcome"]
hs = [(f["path"], h) for f in p["files"] for h in f["hunks"] if h["rule"] != "exact"]
assert [x[0] for x in hs] == ["fs/btrfs/ordered-data.c", "fs/btrfs/scrub.c"], hs
assert hs[0][1]["adaptation"]["adapted"].endswith(
    "-\tbtrfs_init_work(&oe->work,\n-\t\t\tbtrfs_ordered_helper,\n-\t\t\tordered_start_fn, oe_done);\n"
    "+\tbtrfs_init_work(&oe->work,\n+\t\t\tordered_start_fn, oe_done);\n \tbtrfs_queue_work(&oe->work);\n }\n"), hs[0]
a = hs[1][1]["adaptation"]
assert a["rule"] == "series-conversion", a
assert "-\tbtrfs_init_work(w, scrub_start_helper, scrub_start_fn, NULL);\n" in a["original"], a["original"]
assert "-\tbtrfs_init_work(&sctx->work, scrub_start_helper,\n-\t\t\tscrub_start_fn, scrub_ordered);\n" in a["adapted"], a["adapted"]
assert "+\tbtrfs_init_work(&sctx->work,\n+\t\t\tscrub_start_fn, scrub_ordered);\n" in a["adapted"], a["adapted"]
EOT
exit 0
