#!/bin/sh
# Adaptation, rule 1 (moved code): the patch was written after
# fs/btrfs/fs.h was split out of fs/btrfs/ctree.h; the target is older
# and has no fs.h, the lines the hunk meets stand in ctree.h.
#  - moved: every hunk of fs.h applies exactly to ctree.h alone of the
#    folder's headers: adapted, written to ctree.h, the note "moved from
#    fs/btrfs/fs.h to fs/btrfs/ctree.h"; the refreshed patch changes
#    ctree.h and git apply --check accepts it;
#  - twice (adversarial): the same lines stand in two headers of the
#    folder (a file that exists twice): a conflict, neither touched.
. ./lib.sh

FS_H='#ifndef BTRFS_FS_H
#define BTRFS_FS_H

struct btrfs_fs_info {
	u64 generation;
	u64 last_trans_committed;
	struct super_block *sb;
};

static inline u64 btrfs_get_gen(const struct btrfs_fs_info *fs)
{
	return fs->generation;
}

#endif
'
CTREE_H='#ifndef BTRFS_CTREE_H
#define BTRFS_CTREE_H

struct btrfs_root {
	u64 objectid;
};

struct btrfs_fs_info {
	u64 generation;
	u64 last_trans_committed;
	struct super_block *sb;
};

static inline u64 btrfs_get_gen(const struct btrfs_fs_info *fs)
{
	return fs->generation;
}

#endif
'
OTHER_H='#ifndef BTRFS_OTHER_H
#define BTRFS_OTHER_H
struct btrfs_other { int x; };
#endif
'
make_repo up fs/btrfs/fs.h "$FS_H" fs/btrfs/ctree.h "$OTHER_H" fs/btrfs/x.c 'int x;
'
commit_file up fs/btrfs/fs.h "$(printf '%s' "$FS_H" | sed 's/	u64 last_trans_committed;/	u64 last_trans_committed;\
	u64 last_reloc_trans;/')
" "btrfs: track the last relocation transaction"

make_repo tgt fs/btrfs/ctree.h "$CTREE_H" fs/btrfs/other.h "$OTHER_H" fs/btrfs/x.c 'int x;
'
make_repo tgt2 fs/btrfs/ctree.h "$CTREE_H" fs/btrfs/ctree-compat.h "$CTREE_H" fs/btrfs/x.c 'int x;
'

ws_targets tgt tgt2
expect_exit 0 kcarry -C ws import mv --git up base..HEAD
expect_exit 1 kcarry -C ws apply mv tgt
stdout_has '^  0001 adapted           btrfs: track the last relocation transaction$'
stdout_has 'fs/btrfs/fs.h hunk 1: adapted at line [0-9]+ .*moved from fs/btrfs/fs.h to fs/btrfs/ctree.h: fs/btrfs/fs.h does not exist in this tree'
stdout_has 'adapted by rule moved-code; not accepted yet'

printf '%s' "$CTREE_H" | sed 's/	u64 last_trans_committed;/	u64 last_trans_committed;\
	u64 last_reloc_trans;/' >want.h
git -C tgt show kcarry/mv/v1/tgt:fs/btrfs/ctree.h >got.h
diff -u want.h got.h || fail "moved result"
git -C tgt show kcarry/mv/v1/tgt:fs/btrfs/fs.h >/dev/null 2>&1 && fail "fs.h created"

rp=ws/patches/mv/v1/tgt/0001-btrfs-track-the-last-relocation-transaction.patch
grep -q '^+++ b/fs/btrfs/ctree.h$' "$rp" || { cat "$rp"; fail "refreshed patch does not change ctree.h"; }
grep -q '^\[ adapted: fs/btrfs/fs.h hunk 1: moved from fs/btrfs/fs.h to fs/btrfs/ctree.h' "$rp" ||
	fail "no note in the refreshed patch"
git clone -q tgt chk && git -C chk checkout -q base
git -C chk apply --check "$TEST_TMP/$rp" || fail "git apply --check refuses it"

expect_exit 1 kcarry -C ws apply --json mv tgt
cp "$OUT" a.json
python3 - a.json "$KCARRY_FIXTURES/../../docs/kcarry-apply.schema.json" <<'EOT' || fail "apply JSON"
import json, sys
d = json.load(open(sys.argv[1]))
try:
    import jsonschema
    jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).validate(d)
except ImportError:
    pass
a = d["results"][0]["patches"][0]["files"][0]["hunks"][0]["adaptation"]
assert a["rule"] == "moved-code", a
EOT

# the same lines in two headers: which one is meant is not known
expect_exit 1 kcarry -C ws apply mv tgt2
stdout_has '^  0001 conflict          btrfs: track the last relocation transaction$'
stdout_has 'fs/btrfs/fs.h hunk 1: conflict'
exit 0
