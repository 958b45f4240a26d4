#!/bin/sh
# 3-way: a hunk whose inner context drifted in the target (neither offset
# nor fuzz can place it) is merged with the preimage blob named on the
# index line, and the result equals real 'git apply --3way' on the same
# input.  Without the blob (a target with no history) kcarry merges at
# hunk level and reaches the same tree.
. ./lib.sh

lines() {
	i=1
	while [ $i -le 30 ]; do
		case " $* " in
		*" $i:"*) for a; do [ "${a%%:*}" = $i ] && echo "	${a#*:}"; done ;;
		*) echo "	line_$i();" ;;
		esac
		i=$((i + 1))
	done
}
make_repo r fs/btrfs/ctree.c "$(lines)
"
git -C r checkout -q -b up
commit_file r fs/btrfs/ctree.c "$(lines 14:fix_14\(\)\; 18:fix_18\(\)\;)
" "btrfs: fix two calls"
git -C r checkout -q -b target base
commit_file r fs/btrfs/ctree.c "$(lines 16:target_16\(\)\;)
" "target: its own change between them"

kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/r\n\tref = target\n' "$TEST_TMP" >ws/kernels/t.conf
expect_exit 0 kcarry -C ws import fix --git r base..up
expect_exit 0 kcarry -C ws apply fix t
stdout_has "^  0001 3-way             btrfs: fix two calls$"
blob=$(git -C r rev-parse --short=7 base:fs/btrfs/ctree.c)
stdout_has "fs/btrfs/ctree.c hunk 1: 3-way at line 11: merged with the preimage blob $blob"
stdout_has "^  summary: 1 3-way$"

# the peer: git apply --3way on a checkout of the target
git clone -q r peer && git -C peer checkout -q target
git -C peer apply --3way "$TEST_TMP"/ws/patches/fix/v1/0001-*.patch 2>/dev/null ||
	fail "git apply --3way failed"
git -C r show kcarry/fix/v1/t:fs/btrfs/ctree.c | cmp -s - peer/fs/btrfs/ctree.c ||
	fail "kcarry and git apply --3way disagree"
grep -q target_16 peer/fs/btrfs/ctree.c && grep -q fix_14 peer/fs/btrfs/ctree.c || fail "merge lost a side"

# no history, no blob: the hunk-level merge reaches the same content
mkdir flat && git -C r archive target | tar -x -C flat
git -C flat init -q && git -C flat add -A && git -C flat commit -qm flat && git -C flat tag base
printf '[kernel]\n\turl = %s/flat\n\tref = base\n' "$TEST_TMP" >ws/kernels/flat.conf
expect_exit 0 kcarry -C ws apply fix flat
stdout_has "^  0001 3-way"
stdout_has "hunk 1: 3-way-hunk"
git -C flat show kcarry/fix/v1/flat:fs/btrfs/ctree.c | cmp -s - peer/fs/btrfs/ctree.c ||
	fail "hunk-level merge differs from git apply --3way"
# and --no-3way merges nothing: the hunk is no longer clean.  Adaptation
# (issue 18, rule 4 change by change) anchors each change on the line it
# removes, target_16 kept between them, flagged (exit 1), equal to the
# merge's result
expect_exit 1 kcarry -C ws apply --no-3way --no-refresh fix flat
stdout_has "^  0001 adapted "
stdout_has "adapted by rule drifted-context; not accepted yet"
git -C flat show kcarry/fix/v1/flat:fs/btrfs/ctree.c | cmp -s - peer/fs/btrfs/ctree.c ||
	fail "adapted result differs from git apply --3way"
