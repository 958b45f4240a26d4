#!/bin/sh
# Adaptation, rule 3 with a substitution of several tokens: btrfs 6.7
# wrote root->root_key.objectid as btrfs_root_id(root); a fix written
# after that meets the older form in an older tree, on every line of the
# hunk that uses it.
#  - good.c: the context and the removed line use btrfs_root_id(root)
#    where the target has root->root_key.objectid, the same substitution
#    each time: adapted, the added line written with the target's form;
#  - other.c (adversarial): the added line calls btrfs_root_id(reloc), an
#    argument the alignment never showed: no form is guessed, a conflict;
#  - kept.c (adversarial): the target converted one line but kept
#    btrfs_root_id(root) on another: no one substitution, a conflict;
#  - back.c: the other way round (a fix written with the older form,
#    carried to a tree with the newer one): adapted the same way.
here=$(pwd)
. ./lib.sh
. "$here/adapt-lib.sh"

UP='static int check_root(struct btrfs_root *root, u64 gen)
{
	u64 id = btrfs_root_id(root);

	if (btrfs_root_id(root) == BTRFS_FS_TREE_OBJECTID)
		return 0;
	trace_check(btrfs_root_id(root), gen);
	return verify(root, gen);
}
'
TGT=$(printf '%s' "$UP" | sed 's/btrfs_root_id(root)/root->root_key.objectid/g')
TGT="$TGT
"
KEPT=$(printf '%s' "$UP" | sed '7s/btrfs_root_id(root)/root->root_key.objectid/')
KEPT="$KEPT
"
make_repo up d/good.c "$UP" d/other.c "$UP" d/kept.c "$UP" d/back.c "$TGT"
commit_file up d/good.c "$(printf '%s' "$UP" | sed 's/trace_check(btrfs_root_id(root), gen);/trace_check(btrfs_root_id(root), gen + 1);/')
" "good: trace the next generation"
commit_file up d/other.c "$(printf '%s' "$UP" | sed 's/trace_check(btrfs_root_id(root), gen);/trace_check(btrfs_root_id(reloc), gen);/')
" "other: trace the reloc root"
commit_file up d/kept.c "$(printf '%s' "$UP" | sed 's/trace_check(btrfs_root_id(root), gen);/trace_check(btrfs_root_id(root), gen + 1);/')
" "kept: trace the next generation"
commit_file up d/back.c "$(printf '%s' "$TGT" | sed 's/gen);$/gen + 1);/; s/return verify(root, gen + 1);/return verify(root, gen);/')
" "back: trace the next generation"
make_repo tgt d/good.c "$TGT" d/other.c "$TGT" d/kept.c "$KEPT" d/back.c "$UP"
adapt_ws ex

expect_exit 1 kcarry -C ws apply ex old
stdout_has '^  0001 adapted           good: trace the next generation$'
stdout_has 'names renamed here, as the lines around it show: btrfs_root_id\(root\) -> root->root_key.objectid'
stdout_has '^  0002 conflict          other: trace the reloc root$'
stdout_has '^  0003 conflict          kept: trace the next generation$'
stdout_has '^  0004 adapted           back: trace the next generation$'
stdout_has 'root->root_key.objectid -> btrfs_root_id\(root\)'
printf '%s' "$UP" | sed 's/trace_check(btrfs_root_id(root), gen);/trace_check(btrfs_root_id(root), gen + 1);/' >want.c
git -C tgt show kcarry/ex/v1/old:d/back.c >got.c
diff -u want.c got.c || fail "back.c: not the substituted port"
printf '%s' "$TGT" | sed 's/trace_check(root->root_key.objectid, gen);/trace_check(root->root_key.objectid, gen + 1);/' >want.c
git -C tgt show kcarry/ex/v1/old:d/good.c >got.c
diff -u want.c got.c || fail "good.c: not the substituted port"
for f in other kept; do
	git -C tgt show kcarry/ex/v1/old:d/$f.c | cmp -s - tgt/d/$f.c ||
		fail "$f.c changed"
done
rp=ws/patches/ex/v1/old/0001-good-trace-the-next-generation.patch
git clone -q tgt chk && git -C chk checkout -q base
git -C chk apply --check "$TEST_TMP/$rp" || fail "git apply --check refuses it"
exit 0
