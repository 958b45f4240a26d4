#!/bin/sh
# Acceptance of an adapted hunk by a build (issue 18).  Two one-line fixes
# to foo() in fs/btrfs/demo.c, whose context the target rewrote (locking
# helpers, a label), so that each is adapted by rule 4 (drifted context):
#  - "fine" passes 1 to step_two(): the adapted result compiles;
#  - "bad" passes a third argument the target's step_two() does not take:
#    the compiler's error stands on the adapted line.
# Without a build both are "adapted" and exit 1.  With check --build:
#  - fine is "adapted, builds" (text, the matrix letter A, JSON built:
#    true, valid against the schema), exit 0 with --accept-adapted=built
#    and still 1 without it;
#  - bad turns back into a conflict, the compiler's diagnostic its cause
#    (cause kind "build"), and no --accept-adapted makes the run pass;
#  - the built tree holds the adapted line (the branch's demo.c);
#  - kcarry build says which adapted hunk builds and which does not;
#  - report merge keeps "built" and judges --accept-adapted=built alike.
here=$(pwd)
. ./lib.sh
. "$here/adapt-lib.sh"
. "$here/adapt-build-lib.sh"

ab_texts decl
ab_repo tgt fs/btrfs/demo.c "$TGT_C"
# upstream: its own demo.c; "fine" and "bad" change the same line
ab_repo up fs/btrfs/demo.c "$UP_C"
git -C up checkout -qb fine
commit_file up fs/btrfs/demo.c "$(printf '%s' "$UP_C" |
	sed 's/step_two(c, 0)/step_two(c, 1)/')
" "btrfs: demo: pass 1 to step two"
git -C up checkout -qb bad base
commit_file up fs/btrfs/demo.c "$(printf '%s' "$UP_C" |
	sed 's/step_two(c, 0)/step_two(c, 0, 1)/')
" "btrfs: demo: pass more to step two"

ab_ws tgt
expect_exit 0 kcarry -C ws import fine --git up base..fine
expect_exit 0 kcarry -C ws import bad --git up base..bad

# the ground: the target's step_two takes two arguments, so "bad" does
# not compile there, "fine" does (the same compiler, the same flags)
printf '%s' "$TGT_C" | sed 's/step_two(c, 0);/step_two(c, 1);/' >fine.c
printf '%s' "$TGT_C" | sed 's/step_two(c, 0);/step_two(c, 0, 1);/' >bad.c
gcc -c -Wall -o fine.o fine.c || fail "fine.c does not compile"
! gcc -c -Wall -o bad.o bad.c 2>/dev/null || fail "bad.c compiles"

# not built: both adapted, exit 1 whatever the build flag says
expect_exit 1 kcarry -C ws check
stdout_has '^ *0001 .* a *$'
expect_exit 1 kcarry -C ws check --accept-adapted=built
expect_exit 0 kcarry -C ws check --accept-adapted
expect_exit 2 kcarry -C ws check --accept-adapted=maybe
stderr_has "accept-adapted.*'built'"

# built: fine builds, bad is a conflict again with the compiler's words
expect_exit 1 kcarry -C ws check --build fine
stdout_has '^  fine@v1 on tgt: 1 adapted \(1 builds\), builds$'
stdout_has '^ *0001 .* A *$'
stdout_has 'A adapted, builds'
expect_exit 0 kcarry -C ws check --build --accept-adapted=built fine
git -C tgt show kcarry/fine/v1/tgt:fs/btrfs/demo.c | cmp - fine.c ||
	fail "the branch that was built is not the adapted result"
cmp "$KCARRY_CACHE/build/tgt/src/fs/btrfs/demo.c" fine.c ||
	fail "the tree that was built lacks the adapted hunk"
expect_exit 1 kcarry -C ws check --build --format html fine
stdout_has 'adapted \(drifted-context, builds\)' 

expect_exit 1 kcarry -C ws check --build --accept-adapted bad
stdout_has '^ *0001 .* X *$'
stdout_has '^  bad@v1 on tgt: 1 conflict, build: 1 error$'
# the conflict's cause is the compiler's diagnostic (JUnit, Markdown)
expect_exit 1 kcarry -C ws check --build --format markdown bad
stdout_has '^- fs/btrfs/demo.c hunk 1: conflict near line 13: the adapted hunk \(rule drifted-context\) does not build; the branch was carried again without it$'
stdout_has "^  - cause: fs/btrfs/demo.c:16: error: too many arguments to function 'step.?_two'$"
expect_exit 1 kcarry -C ws check --build --format junit fine
stdout_has 'failure message="adapted, builds: 1 hunk rewritten to apply, not accepted yet" type="adapted"'


# both at once, JSON: built true for fine; bad a conflict, cause "build"
expect_exit 1 kcarry -C ws check --build --format json -o c.json
python3 - c.json "$KCARRY_FIXTURES/../../docs/kcarry-check.schema.json" <<'EOT' || fail "check JSON"
import json, sys
d = json.load(open(sys.argv[1]))
try:
    import jsonschema
    jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).validate(d)
except ImportError:
    pass
cells = {c["series"]: c for c in d["cells"]} if "cells" in d else None
text = json.dumps(d)
hunks = []
def walk(o):
    if isinstance(o, dict):
        if "rule" in o and "adaptation" in o:
            hunks.append(o)
        for v in o.values():
            walk(v)
    elif isinstance(o, list):
        for v in o:
            walk(v)
walk(d)
adapted = [h for h in hunks if h["rule"] == "adapted"]
conflict = [h for h in hunks if h["rule"] == "conflict"]
assert len(adapted) == 1 and len(conflict) == 1, (len(adapted), len(conflict))
a = adapted[0]["adaptation"]
assert a["built"] is True and a["accepted"] is False, a
c = conflict[0]
assert c["adaptation"] is None, c
assert c["cause"]["kind"] == "build", c["cause"]
assert "too many arguments to function" in c["cause"]["text"], c["cause"]
EOT

# kcarry build tells which adapted hunk builds
expect_exit 0 kcarry -C ws build fine tgt
stdout_has '^0001 fs/btrfs/demo.c hunk 1: adapted, builds$'
expect_exit 1 kcarry -C ws build bad tgt
stdout_has '^0001 fs/btrfs/demo.c hunk 1: conflict again: the adapted hunk \(rule drifted-context\) does not build; the branch was carried again without it$'
! grep -q 'did not apply' "$OUT" || fail "the rebuilt conflict counted as not built"

# kcarry-build/1 lists them, valid against its schema
expect_exit 1 kcarry -C ws build --json bad tgt
cp "$OUT" b.json
expect_exit 0 kcarry -C ws build --json fine tgt
python3 - b.json "$OUT" "$KCARRY_FIXTURES/../../docs/kcarry-build.schema.json" <<'EOT' || fail "build JSON"
import json, sys
bad, fine = (json.load(open(p)) for p in sys.argv[1:3])
try:
    import jsonschema
    v = jsonschema.Draft202012Validator(json.load(open(sys.argv[3])))
    v.validate(bad)
    v.validate(fine)
except ImportError:
    pass
assert fine["builds"][0]["adapted"] == [{"patch": 1, "path": "fs/btrfs/demo.c", "hunk": 1, "rule": "drifted-context", "state": "builds", "cause": None}], fine["builds"][0]["adapted"]
a = bad["builds"][0]["adapted"]
assert len(a) == 1 and a[0]["state"] == "conflict" and a[0]["rule"] is None, a
assert "too many arguments" in a[0]["cause"], a
EOT

# report merge reads "built" back: =built passes fine alone
expect_exit 1 kcarry -C ws check --build --format json -o f.json fine
expect_exit 1 kcarry -C ws report merge f.json
expect_exit 0 kcarry -C ws report merge --accept-adapted=built f.json
expect_exit 1 kcarry -C ws report merge --accept-adapted=built c.json
exit 0
