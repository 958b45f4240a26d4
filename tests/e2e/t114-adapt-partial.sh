#!/bin/sh
# Adaptation next to an already-applied hunk: the target already holds
# part of the patch (one hunk's change stands there), and another hunk
# conflicts but could be adapted (rule 4, drifted context).  The target
# may carry an edited backport of this very patch, so adapting the rest
# could apply a change twice: the patch stays "partially applied", not
# committed (exit 1, with --accept-adapted too), the adapted hunk shown
# as a proposal.
#  - one.c: both hunks in one file;
#  - a.c and b.c: the already-applied hunk in one file, the adapted one
#    in another.
# A patch whose only other hunks apply is still adapted (t070).
here=$(pwd)
. ./lib.sh
. "$here/adapt-lib.sh"

BODY='static int foo(struct ctx *c)
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

static int helper(struct ctx *c)
{
	return c->n;
}
'
BODY_TGT=$(printf '%s' "$BODY" | sed 's/	lock(c);/	mutex_lock(\&c->lock);/; s/	unlock(c);/	mutex_unlock(\&c->lock);/; s/goto out;/goto fail;/; s/^out:/fail:/; s/return c->n;/return c->n + 1;/')
BODY_TGT="$BODY_TGT
"
BODY_NEW=$(printf '%s' "$BODY" | sed 's/step_two(c, 0)/step_two(c, FLAG_X)/; s/return c->n;/return c->n + 1;/')
BODY_NEW="$BODY_NEW
"
A='int a(void)
{
	return 1;
}
'
A_NEW='int a(void)
{
	return 2;
}
'
make_repo up d/one.c "$BODY" d/a.c "$A" d/b.c "$BODY"
commit_file up d/one.c "$BODY_NEW" "one: flag and helper"
git -C up checkout -q -b two base
printf '%s' "$A_NEW" >up/d/a.c
printf '%s' "$BODY" | sed 's/step_two(c, 0)/step_two(c, FLAG_X)/' >up/d/b.c
git -C up commit -qam "two: a returns 2, b flags" || fail commit
make_repo tgt d/one.c "$BODY_TGT" d/a.c "$A_NEW" d/b.c "$BODY_TGT"

kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/tgt\n\tref = base\n' "$TEST_TMP" >ws/kernels/old.conf
expect_exit 0 kcarry -C ws import one --git up base..master
expect_exit 0 kcarry -C ws import two --git up base..two

for s in one two; do
	expect_exit 1 kcarry -C ws apply --accept-adapted $s old
	stdout_has "^  0001 partially applied "
	stdout_has 'hunk [0-9]: adapted at line'
	stdout_has 'already-applied'
	git -C tgt rev-parse -q --verify "kcarry/$s/v1/old" >/dev/null &&
		! git -C tgt diff --quiet base "kcarry/$s/v1/old" &&
		fail "$s: a partial patch was committed"
done

expect_exit 1 kcarry -C ws apply --json two old
python3 - "$OUT" <<'PY' || fail "JSON"
import json, sys
d = json.load(open(sys.argv[1]))
p = d["results"][0]["patches"][0]
assert p["outcome"] == "partial", p["outcome"]
assert not p["committed"], p
rules = sorted(h["rule"] for f in p["files"] for h in f["hunks"])
assert rules == ["adapted", "already-applied"], rules
PY
exit 0
