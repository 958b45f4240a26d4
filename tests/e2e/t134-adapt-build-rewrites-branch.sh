#!/bin/sh
# An adapted hunk a build turns back into a conflict leaves the branch and
# the refreshed series (issue 18): they are carried again as if that hunk
# had been a conflict from the start, so that neither carries the
# adaptation the compiler refused while the report says conflict.
# The series "bad" on a throw-away Kbuild tree:
#   0001 fs/btrfs/demo.c: passes a third argument to step_two(), adapted
#        by rule 4 (drifted context); the target's step_two() takes two,
#        so the build's error stands on the adapted line;
#   0002 fs/btrfs/other.c: a clean change, carried on top;
#   0003 fs/btrfs/demo2.c: passes 1 to step_two(), adapted by rule 4;
#        it compiles, but a failed build proves nothing.
# After check --build (--refresh), and after build:
#  - 0001 is a conflict (cause "build"), the reason says the branch was
#    carried again without it; 0002 applies, 0003 stays adapted;
#  - the branch's demo.c is the target's, no commit says "[ adapted:
#    fs/btrfs/demo.c", and it holds 0002 and 0003;
#  - the refreshed series lists 0001 as a conflict and no file of it holds
#    the adapted line (an older refreshed series written by apply, which
#    held it, is replaced);
#  - the JSON's refreshed patches agree with the branch.
# The peer: 'apply --no-adapt' of a series of 0001 and 0002 alone (its one
# adaptation refused) gives the same branch tree and refreshed series as
# check --build gives for it.
here=$(pwd)
. ./lib.sh
. "$here/adapt-lib.sh"
. "$here/adapt-build-lib.sh"

ab_bad_fixture pair
expect_exit 0 kcarry -C ws import pair --git up base..pair

# the ground: the adapted 0001 does not compile on the target
printf '%s' "$TGT_C" | sed 's/step_two(c, 0);/step_two(c, 0, 1);/' >bad.c
! gcc -c -Wall -o bad.o bad.c 2>/dev/null || fail "bad.c compiles"

# apply (no build) adapts 0001 and 0003 and writes them refreshed
expect_exit 1 kcarry -C ws apply bad tgt
stdout_has '^  0001 adapted '
stdout_has '^  0003 adapted '
rd=ws/patches/bad/v1/tgt
grep -q 'step_two(c, 0, 1)' "$rd"/0001-*.patch ||
	fail "apply did not write the adapted 0001"

# the branch and the refreshed series hold what the report says:
# each patch's line as the branch has it
assert_rewritten() {
	br=kcarry/bad/v1/tgt
	git -C tgt show "$br:fs/btrfs/demo.c" | cmp -s - bad.c &&
		fail "$1: the branch holds the adaptation the build refused"
	git -C tgt show "$br:fs/btrfs/demo.c" >got.c
	printf '%s' "$TGT_C" | cmp -s - got.c ||
		{ diff -u got.c bad.c; fail "$1: demo.c is not the target's"; }
	git -C tgt log --format=%B base.."$br" >log.txt
	grep -q 'adapted: fs/btrfs/demo.c' log.txt &&
		fail "$1: a commit says demo.c was adapted"
	grep -q '^btrfs: other: one more$' log.txt ||
		fail "$1: 0002 is not on the branch"
	grep -q 'adapted: fs/btrfs/demo2.c' log.txt ||
		fail "$1: 0003 is not on the branch"
	[ "$(git -C tgt rev-list --count base.."$br")" = 2 ] ||
		fail "$1: the branch does not hold two patches"
	git -C tgt show "$br:fs/btrfs/demo2.c" | grep -q 'step_two(c, 1);' ||
		fail "$1: 0003's adaptation is not on the branch"
}

expect_exit 1 kcarry -C ws check --build --refresh bad
stdout_has '^ *0001 .* X *$'
stdout_has '^ *0002 .* \. *$'
stdout_has '^ *0003 .* a *$'
assert_rewritten "check --build --refresh"
grep -q '^# 0001-btrfs-demo-pass-more-to-step-two.patch: conflict in tgt$' \
	"$rd/series" || { cat "$rd/series"; fail "refreshed series: 0001"; }
! ls "$rd"/0001-* >/dev/null 2>&1 || fail "refreshed 0001 left behind"
grep -rq 'step_two(c, 0, 1)' "$rd" && fail "the refreshed series holds it"
grep -rq 'adapted: fs/btrfs/demo.c' "$rd" &&
	fail "the refreshed series says demo.c was adapted"
grep -q '^+++ b/fs/btrfs/other.c$' "$rd"/0002-*.patch ||
	fail "refreshed 0002 missing"

# JSON: the report, the refreshed texts and the branch agree
expect_exit 1 kcarry -C ws check --build --format json -o c.json bad
assert_rewritten "check --build (JSON)"
python3 - c.json "$KCARRY_FIXTURES/../../docs/kcarry-check.schema.json" <<'EOT' || fail "check JSON"
import json, sys
d = json.load(open(sys.argv[1]))
try:
    import jsonschema
    jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).validate(d)
except ImportError:
    pass
ps = d["cells"][0]["patches"]
h = ps[0]["files"][0]["hunks"][0]
assert ps[0]["outcome"] == "conflict", ps[0]["outcome"]
assert h["rule"] == "conflict" and h["adaptation"] is None, h
assert h["cause"]["kind"] == "build", h["cause"]
assert "too many arguments" in h["cause"]["text"], h["cause"]
assert "carried again without it" in h["reason"], h["reason"]
assert ps[0]["committed"] is False and ps[0]["commit"] is None, ps[0]
assert not ps[0].get("refreshed_patch"), ps[0].get("refreshed_patch")
assert ps[1]["committed"] and ps[2]["committed"], ps
assert ps[1]["outcome"] == "clean", ps[1]["outcome"]
a = ps[2]["files"][0]["hunks"][0]
assert a["rule"] == "adapted" and a["adaptation"]["built"] is False, a
for p in ps:
    assert "step_two(c, 0, 1)" not in (p.get("refreshed_patch") or ""), p
assert "fs/btrfs/other.c" in ps[1]["refreshed_patch"], ps[1]
EOT

# kcarry build says the same and rewrites the branch the same way
git -C tgt update-ref refs/heads/kcarry/bad/v1/tgt base
expect_exit 1 kcarry -C ws build bad tgt
stdout_has '^0001 fs/btrfs/demo.c hunk 1: conflict again: the adapted hunk \(rule drifted-context\) does not build; the branch was carried again without it$'
stdout_has '^0003 fs/btrfs/demo2.c hunk 1: adapted \(not built\)$'
! grep -q 'did not apply' "$OUT" || fail "the rebuilt conflict counted as not built"
assert_rewritten "build"

# the peer: the series whose one adaptation the build refuses, carried
# by check --build, is what apply --no-adapt carries
expect_exit 1 kcarry -C ws check --build --refresh pair
stdout_has '^ *0001 .* X *$'
git -C tgt rev-parse kcarry/pair/v1/tgt^{tree} >built.tree
cp -r ws/patches/pair/v1/tgt built.refreshed
expect_exit 1 kcarry -C ws apply --no-adapt pair tgt
git -C tgt rev-parse kcarry/pair/v1/tgt^{tree} | cmp -s - built.tree ||
	fail "the branch differs from apply --no-adapt's"
diff -r built.refreshed ws/patches/pair/v1/tgt ||
	fail "the refreshed series differs from apply --no-adapt's"
exit 0
