#!/bin/sh
# report diff and check --baseline know the outcome "adapted": a patch
# that applied clean on the target's v1 and needs an adaptation on v2 (the
# context around its line drifted) waits for a person, so it is a
# regression; from adapted to a conflict (v3: the line itself changed) is
# a regression too; back from a conflict to adapted, or from adapted to
# clean, is a fix.  git apply --check on each tree is the independent
# judge of "applies as it stands".
. ./lib.sh

C1='#include "core.h"

static int foo(struct ctx *c)
{
	int ret;

	lock(c);
	ret = step_one(c);
	if (ret)
		goto out;
	ret = step_two(c, 0);
	unlock(c);
out:
	return ret;
}
'
make_repo up drivers/demo/core.c "$C1"
commit_file up drivers/demo/core.c "$(printf '%s' "$C1" |
	sed 's/step_two(c, 0)/step_two(c, FLAG_X)/')
" "demo: pass FLAG_X to step two"
git -C up format-patch -q -o "$TEST_TMP/fp" base..HEAD || fail format-patch

# the target: v1 as upstream's base, v2 with the context drifted (the
# line stands), v3 with the line itself changed (nothing to anchor on)
make_repo tgt drivers/demo/core.c "$C1"
git -C tgt tag v1
commit_file tgt drivers/demo/core.c "$(printf '%s' "$C1" |
	sed 's/lock(c);/mutex_lock(\&c->lock);/; s/step_one(c)/step_one_locked(c)/;
	     s/goto out;/goto fail;/; s/^out:/fail:/')
" "drift"
git -C tgt tag v2
commit_file tgt drivers/demo/core.c "$(printf '%s' "$C1" |
	sed 's/lock(c);/mutex_lock(\&c->lock);/; s/step_one(c)/step_one_locked(c)/;
	     s/goto out;/goto fail;/; s/^out:/fail:/;
	     s/ret = step_two(c, 0);/ret = step_two_locked(c, 0, 0);/')
" "the line changed"
git -C tgt tag v3

applies() { # REF: what git apply --check says of the patch there
	rm -rf "$TEST_TMP/peer"
	git -C tgt worktree add -q --detach "$TEST_TMP/peer" "$1" || fail worktree
	if git -C "$TEST_TMP/peer" apply --check "$TEST_TMP"/fp/*.patch 2>/dev/null
	then echo applies; else echo fails; fi
	git -C tgt worktree remove --force "$TEST_TMP/peer"
}
[ "$(applies v1)" = applies ] || fail "peer: v1 should take the patch"
[ "$(applies v2)" = fails ] || fail "peer: v2 should refuse it as it stands"
[ "$(applies v3)" = fails ] || fail "peer: v3 should refuse it"

kcarry init ws >/dev/null
expect_exit 0 kcarry -C ws import demo --git up base..HEAD
run_on() { # REF OUT: check on tgt at REF, the JSON report into OUT
	printf '[kernel]\n\turl = %s/tgt\n\tref = %s\n' "$TEST_TMP" "$1" \
		>ws/kernels/tgt.conf
	kcarry -C ws check --format json -o "$2" >/dev/null 2>&1
	grep -q '"outcome"' "$2" || fail "no report at $1"
}
run_on v1 r1.json
run_on v2 r2.json
run_on v3 r3.json
grep -q '"outcome": "adapted"' r2.json || fail "v2 is not adapted"
grep -q '"outcome": "conflict"' r3.json || fail "v3 is not a conflict"

# clean -> adapted: a regression (a person must look)
expect_exit 1 kcarry report diff r1.json r2.json
stdout_has 'regression'
stdout_has 'clean -> adapted'
# adapted -> conflict: a regression
expect_exit 1 kcarry report diff r2.json r3.json
stdout_has 'adapted -> conflict'
# conflict -> adapted and adapted -> clean: fixes, no regression
expect_exit 0 kcarry report diff r3.json r2.json
stdout_has 'conflict -> adapted'
expect_exit 0 kcarry report diff r2.json r1.json
stdout_has 'adapted -> clean'
# adapted on both: nothing to say about the outcome
expect_exit 0 kcarry report diff r2.json r2.json

# check --baseline exits 1 on the regression alone
printf '[kernel]\n\turl = %s/tgt\n\tref = v2\n' "$TEST_TMP" >ws/kernels/tgt.conf
expect_exit 1 kcarry -C ws check --baseline r1.json
expect_exit 0 kcarry -C ws check --baseline r2.json
