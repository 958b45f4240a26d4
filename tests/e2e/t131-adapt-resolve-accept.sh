#!/bin/sh
# A person's acceptance of an adapted hunk (issue 18).  The drifted-
# context fix of t070: a one-line change to foo() whose context the
# target rewrote.
#  - resolve shows kcarry's proposal in the scratch folder, diff3 style:
#    the target's lines, the original hunk's, the adapted result; and
#    PATH.adapted with the original and adapted hunks;
#  - refresh refuses the markers; once the person keeps the proposal it
#    records the acceptance (not a resolution), exits 0, and the refreshed
#    patch is still the adapted one with its "[ adapted: ... ]" note;
#  - apply and check then exit 0 without --accept-adapted, JSON says
#    accepted, export needs no --accept-adapted;
#  - the acceptance holds for that proposal on those files only: when the
#    target's file changes, the new proposal is not accepted (exit 1);
#  - a person who edits the proposal records a resolution instead.
here=$(pwd)
. ./lib.sh
. "$here/adapt-lib.sh"

UP_C="#include \"core.h\"

static $FOO_UP"
TGT_C="#include \"core.h\"

static $FOO_TGT"
make_repo up drivers/demo/core.c "$UP_C"
commit_file up drivers/demo/core.c "$(printf '%s' "$UP_C" |
	sed 's/step_two(c, 0)/step_two(c, FLAG_X)/')
" "demo: pass FLAG_X to step two"
make_repo tgt drivers/demo/core.c "$TGT_C" drivers/demo/core.h '#define FLAG_X 1
'
kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/tgt\n\tref = base\n' "$TEST_TMP" >ws/kernels/old.conf
expect_exit 0 kcarry -C ws import demo --git up base..HEAD
expect_exit 1 kcarry -C ws apply demo old
stdout_has 'adapted by rule drifted-context; not accepted yet'

# resolve shows the proposal, diff3 style
expect_exit 0 kcarry -C ws resolve demo old 1
stdout_has '^0001-demo-pass-FLAG_X-to-step-two.patch \(demo: pass FLAG_X to step two\) is adapted on old: 1 hunk rewritten by kcarry.$'
stdout_has '^  .kcarry/resolve/demo/v1/old/files/drivers/demo/core.c$'
f=ws/.kcarry/resolve/demo/v1/old/files/drivers/demo/core.c
cat >want <<'EOT'
#include "core.h"

static int foo(struct ctx *c)
{
	int ret;

	mutex_lock(&c->lock);
<<<<<<< target: drivers/demo/core.c as the tree has it
	ret = step_one_locked(c);
	if (ret < 0)
		goto fail;
	ret = step_two(c, 0);
	mutex_unlock(&c->lock);
fail:
	return ret;
||||||| original: hunk 1 as the patch has it
	ret = step_one(c);
	if (ret)
		goto out;
	ret = step_two(c, 0);
	unlock(c);
out:
	return ret;
=======
	ret = step_one_locked(c);
	if (ret < 0)
		goto fail;
	ret = step_two(c, FLAG_X);
	mutex_unlock(&c->lock);
fail:
	return ret;
>>>>>>> adapted (drifted-context): kcarry's proposal, keep it to accept
}
EOT
diff -u want "$f" || fail "the proposal in diff3 style"
grep -q '^original hunk:$' "$f.adapted" && grep -q '^adapted hunk:$' "$f.adapted" &&
	grep -q '^+	ret = step_two(c, FLAG_X);$' "$f.adapted" &&
	grep -q '^hunk 1: adapted by rule drifted-context: context taken from the target' "$f.adapted" ||
	{ cat "$f.adapted"; fail "no PATH.adapted beside it"; }

# markers left: refused
expect_exit 1 kcarry -C ws refresh demo old
stderr_has 'conflict markers remain'

# the person keeps the proposal: the acceptance is recorded
sed -i '/^<<<<<<< /,/^=======$/d; /^>>>>>>> /d' "$f"
expect_exit 0 kcarry -C ws refresh demo old
stderr_has "recorded the acceptance of kcarry's adaptation of 0001-demo-pass-FLAG_X-to-step-two.patch"
stdout_has 'adapted by rule drifted-context; accepted by a person'
ls ws/patches/demo/.resolutions/*.accepted >/dev/null 2>&1 || fail "no acceptance recorded"
! ls ws/patches/demo/.resolutions/*.patch >/dev/null 2>&1 || fail "recorded as a resolution"
[ ! -e ws/.kcarry/resolve/demo/v1/old/state ] || fail "the scratch folder stayed"
rp=ws/patches/demo/v1/old/0001-demo-pass-FLAG_X-to-step-two.patch
sed -n '/^Subject:/,/^---$/p' "$rp" |
	grep -q '^\[ adapted: drivers/demo/core.c hunk 1: context taken from the target' ||
	fail "the refreshed patch lost the adaptation note"
grep -q '^+	ret = step_two(c, FLAG_X);$' "$rp" || fail "the refreshed patch is not the adapted one"
printf '%s' "$TGT_C" | sed 's/step_two(c, 0)/step_two(c, FLAG_X)/' >want.c
git -C tgt show kcarry/demo/v1/old:drivers/demo/core.c | diff -u want.c - ||
	fail "the branch is not the proposal"

# accepted from now on: apply, check, export
expect_exit 0 kcarry -C ws apply demo old
expect_exit 0 kcarry -C ws check
expect_exit 0 kcarry -C ws apply --json demo old
python3 - "$OUT" "$KCARRY_FIXTURES/../../docs/kcarry-apply.schema.json" <<'EOT' || fail "apply JSON"
import json, sys
d = json.load(open(sys.argv[1]))
try:
    import jsonschema
    jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).validate(d)
except ImportError:
    pass
p = d["results"][0]["patches"][0]
assert p["outcome"] == "adapted", p["outcome"]
a = p["files"][0]["hunks"][0]["adaptation"]
assert a["accepted"] is True and a["built"] is False, a
EOT
expect_exit 0 kcarry -C ws export demo old --format quilt -o qd
grep -rq '^\[ adapted: drivers/demo/core.c hunk 1: ' qd || fail "the export lost the note"

# the target's file changes: another proposal, not accepted
git -C tgt checkout -q base
sed -i 's/mutex_unlock(&c->lock);/mutex_unlock(\&c->lock); \/* done *\//' tgt/drivers/demo/core.c
git -C tgt commit -qam "tgt: comment" && git -C tgt tag -f base >/dev/null 2>&1 || fail "move base"
expect_exit 1 kcarry -C ws apply demo old
stdout_has 'adapted by rule drifted-context; not accepted yet'

# a person who edits the proposal records a resolution
expect_exit 0 kcarry -C ws resolve demo old 1
f=ws/.kcarry/resolve/demo/v1/old/files/drivers/demo/core.c
sed -i '/^<<<<<<< /,/^=======$/d; /^>>>>>>> /d; s/step_two(c, FLAG_X)/step_two(c, FLAG_X | 0)/' "$f"
expect_exit 0 kcarry -C ws refresh demo old
stderr_has 'recorded the resolution of 0001-'
stdout_has '0001 clean +\[resolved\]'
exit 0
