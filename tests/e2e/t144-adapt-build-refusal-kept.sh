#!/bin/sh
# A build's refusal of an adaptation outlives the build (issue 18): check
# --build records it beside the resolutions (.resolutions/KEY.refused,
# the diagnostic that refused it), and every carry that does not build
# (apply, check, resolve, export) keeps that hunk a conflict whose cause
# is the build's diagnostic, instead of proposing the refused text again.
# The series "bad" on a throw-away Kbuild tree (t134's):
#   0001 fs/btrfs/demo.c: passes a third argument to step_two(), adapted
#        by rule 4; the target's step_two() takes two: the build refuses;
#   0002 fs/btrfs/other.c: a clean change;
#   0003 fs/btrfs/demo2.c: adapted by rule 4, not refused.
# After check --build:
#  - apply: 0001 a conflict, "cause: a build on tgt refused this
#    adaptation: fs/btrfs/demo.c:LINE: error: ...", off the branch and
#    out of the refreshed series; 0003 still adapted (its hunk untouched);
#  - check (no build) says the same; JSON gives cause kind "build";
#  - export --accept-adapted --allow-partial writes no adapted 0001;
#  - resolve shows 0001 as a conflict (markers, no proposal); a person's
#    own resolution is recorded by refresh and replayed: 0001 resolved.
here=$(pwd)
. ./lib.sh
. "$here/adapt-lib.sh"
. "$here/adapt-build-lib.sh"

ab_bad_fixture
br=kcarry/bad/v1/tgt
rd=ws/patches/bad/v1/tgt

# before any build, apply proposes 0001's adaptation
expect_exit 1 kcarry -C ws apply bad tgt
stdout_has '^  0001 adapted '
git -C tgt show "$br:fs/btrfs/demo.c" | grep -q 'step_two(c, 0, 1);' ||
	fail "apply did not adapt 0001 before the build"

# the build refuses it, and the refusal is recorded
expect_exit 1 kcarry -C ws check --build bad
stdout_has '^ *0001 .* X *$'
ls ws/patches/bad/.resolutions/*.refused >/dev/null 2>&1 ||
	fail "no refusal recorded"
cat ws/patches/bad/.resolutions/*.refused >refused.txt
grep -q 'too many arguments' refused.txt || { cat refused.txt; fail "the record lacks the diagnostic"; }
grep -q 'demo2.c' refused.txt && fail "the record names 0003's hunk"
! ls ws/patches/bad/.resolutions/*.tmp* >/dev/null 2>&1 || fail "a temporary file stayed"

# the branch set back to the base: plain apply keeps the refusal
git -C tgt update-ref "refs/heads/$br" base
expect_exit 1 kcarry -C ws apply bad tgt
stdout_has '^  0001 conflict '
stdout_has '^ *fs/btrfs/demo.c hunk 1: conflict'
stdout_has '^ *cause: a build on tgt refused this adaptation: fs/btrfs/demo.c:[0-9]*:[0-9:]* *error: .*too many arguments'
stdout_has '^  0002 clean'
stdout_has '^  0003 adapted '
git -C tgt show "$br:fs/btrfs/demo.c" >got.c
printf '%s' "$TGT_C" | cmp -s - got.c || { cat got.c; fail "apply: demo.c is not the target's"; }
git -C tgt show "$br:fs/btrfs/demo2.c" | grep -q 'step_two(c, 1);' ||
	fail "apply: 0003's adaptation is not on the branch"
git -C tgt log --format=%B base.."$br" | grep -q 'adapted: fs/btrfs/demo.c' &&
	fail "apply: a commit says demo.c was adapted"
grep -rq 'step_two(c, 0, 1)' "$rd" && fail "apply: the refreshed series holds it"

# check without --build, in JSON
expect_exit 1 kcarry -C ws check --format json -o c.json bad
python3 - c.json <<'EOT' || fail "check JSON"
import json, sys
d = json.load(open(sys.argv[1]))
ps = d["cells"][0]["patches"]
h = ps[0]["files"][0]["hunks"][0]
assert ps[0]["outcome"] == "conflict", ps[0]["outcome"]
assert h["rule"] == "conflict" and h["adaptation"] is None, h
assert h["cause"]["kind"] == "build", h["cause"]
assert h["cause"]["text"].startswith("a build on tgt refused this adaptation: fs/btrfs/demo.c:"), h["cause"]
assert "too many arguments" in h["cause"]["text"], h["cause"]
a = ps[2]["files"][0]["hunks"][0]
assert a["rule"] == "adapted", a
EOT

# export: the refused adaptation is not exported
expect_exit 1 kcarry -C ws export bad tgt --format quilt --accept-adapted -o q1
[ ! -e q1/series ] || fail "export wrote a series that did not carry"
expect_exit 0 kcarry -C ws export bad tgt --format quilt --accept-adapted --allow-partial -o q2
grep -rq 'step_two(c, 0, 1)' q2 && fail "export carried the refused adaptation"
grep -rq 'step_two(c, 1);' q2 || fail "export lost 0003"

# resolve: a conflict, not a proposal
expect_exit 0 kcarry -C ws resolve bad tgt 1
grep -q 'adapted' "$OUT" && { cat "$OUT"; fail "resolve shows a proposal"; }
f=ws/.kcarry/resolve/bad/v1/tgt/files/fs/btrfs/demo.c
[ -f "$f.rej" ] || { cat "$OUT"; fail "resolve shows no conflict"; }
[ ! -e "$f.adapted" ] || fail "resolve shows the refused proposal"
grep -q 'step_two(c, 0, 1);' "$f" && fail "resolve wrote the refused adaptation"
# the person's own resolution: a fourth argument the target's step_two
# does not take either, but a person's word is recorded and replayed
printf '%s' "$TGT_C" | sed 's/step_two(c, 0);/step_two(c, 0 | 1);/' >"$f"
expect_exit 1 kcarry -C ws refresh bad tgt  # 0003 stays adapted, not accepted
stderr_has 'recorded the resolution of 0001-'
expect_exit 1 kcarry -C ws apply bad tgt
stdout_has '^  0001 clean +\[resolved\]'
git -C tgt show "$br:fs/btrfs/demo.c" | grep -q 'step_two(c, 0 | 1);' ||
	fail "the person's resolution is not on the branch"
exit 0
