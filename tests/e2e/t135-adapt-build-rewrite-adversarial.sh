#!/bin/sh
# The branch carried again without the adaptations a build refused
# (issue 18), where the rewrite could claim more than the build proved.
# Rule 4 (drifted context) adapts each series' hunks on a throw-away
# Kbuild tree:
#  - warn: 0001's adapted line in demo.c draws a new warning (the build
#    does not fail), 0002's adapted hunk in demo2.c compiles clean: 0001
#    is a conflict, off the branch; 0002 stays "adapted, builds", since
#    the carry again changed demo.c alone, a .c file it does not compile;
#  - hdr: 0001's adapted line in demo.h draws the warning (in every
#    object including it), 0002 as in warn: 0001 is a conflict, off the
#    branch; 0002 is no longer "builds": the branch's demo.h is not the
#    one that was compiled with it;
#  - top stacks on warn: it is carried on warn's branch as carried
#    again, never on the one with the refused adaptation.
here=$(pwd)
. ./lib.sh
. "$here/adapt-lib.sh"
. "$here/adapt-build-lib.sh"

# demo.h also declares foo2(), defined in demo2.c
ab_texts hdr
UP_H="${UP_H}int foo2(struct ctx *c);
"
TGT_H="${TGT_H}int foo2(struct ctx *c);
"
ab_repo tgt fs/btrfs/demo.c "$TGT_C" fs/btrfs/demo2.c "$TGT2_C
" fs/btrfs/demo.h "$TGT_H" fs/btrfs/other.c "$OTHER_C"
ab_repo up fs/btrfs/demo.c "$UP_C" fs/btrfs/demo2.c "$UP2_C
" fs/btrfs/demo.h "$UP_H" fs/btrfs/other.c "$OTHER_C"
D2_FIX="$(printf '%s' "$UP2_C" | sed 's/step_two(c, 0)/step_two(c, 1)/')
"
git -C up checkout -qb warn
commit_file up fs/btrfs/demo.c "$(printf '%s' "$UP_C" |
	sed 's/^	ret = step_two(c, 0);/	if (ret = step_two(c, 0)) ret = 1;/')
" "btrfs: demo: one for any error"
commit_file up fs/btrfs/demo2.c "$D2_FIX" "btrfs: demo2: pass 1 to step two"
git -C up checkout -qb hdr base
commit_file up fs/btrfs/demo.h "$(printf '%s' "$UP_H" |
	sed 's/^int demo_flags(void);/static int demo_flags(void) { int x; return 0; }/')
" "btrfs: demo: demo_flags inline"
commit_file up fs/btrfs/demo2.c "$D2_FIX" "btrfs: demo2: pass 1 to step two"
git -C up checkout -qb top warn
commit_file up fs/btrfs/other.c "$(printf '%s' "$OTHER_C" |
	sed 's/n + 1/n + 2/')
" "btrfs: other: one more"

ab_ws tgt
expect_exit 0 kcarry -C ws import warn --git up base..warn
expect_exit 0 kcarry -C ws import hdr --git up base..hdr
expect_exit 0 kcarry -C ws import top --git up warn..top
printf '[series]\n\tname = top\n\tstacks-on = warn\n' >ws/series/top.conf

# before any build, each series' two patches are adapted
for s in warn hdr; do
	expect_exit 1 kcarry -C ws apply $s tgt
	stdout_has '^  0001 adapted '
	stdout_has '^  0002 adapted '
done

# the target's file, as the branch must hold it again
same_as_target() {
	git -C tgt show "kcarry/$1/v1/tgt:$2" >got
	git -C tgt show "base:$2" | cmp -s - got ||
		{ cat got; fail "$1: the branch's $2 holds the refused adaptation"; }
}

# warn: a warning alone turns 0001 back; 0002 still builds
expect_exit 1 kcarry -C ws check --build --refresh warn top
stdout_has '^ *0001 .* X *$'
stdout_has '^ *0002 .* A *$'
stdout_has '^ *build +W *$'
same_as_target warn fs/btrfs/demo.c
git -C tgt show kcarry/warn/v1/tgt:fs/btrfs/demo2.c | grep -q 'step_two(c, 1)' ||
	fail "warn: 0002 is not on the branch"
grep -rq 'if (ret = step_two' ws/patches/warn/v1/tgt &&
	fail "warn: the refreshed series holds the refused adaptation"
expect_exit 1 kcarry -C ws check --build --accept-adapted=built \
	--format json -o w.json warn
python3 - w.json <<'EOT' || fail "warn JSON"
import json, sys
d = json.load(open(sys.argv[1]))
ps = d["cells"][0]["patches"]
h = ps[0]["files"][0]["hunks"][0]
assert h["rule"] == "conflict" and h["cause"]["kind"] == "build", h
assert "suggest parentheses" in h["cause"]["text"], h["cause"]
assert "carried again without it" in h["reason"], h["reason"]
a = ps[1]["files"][0]["hunks"][0]
assert a["rule"] == "adapted" and a["adaptation"]["built"] is True, a
EOT

# top: carried on warn's branch as it is now
git -C tgt merge-base --is-ancestor kcarry/warn/v1/tgt kcarry/top/v1/tgt ||
	fail "top is not carried on warn's branch"
same_as_target top fs/btrfs/demo.c
git -C tgt show kcarry/top/v1/tgt:fs/btrfs/other.c | grep -q 'n + 2' ||
	fail "top's patch is not on its branch"

# hdr: the refused hunk was in a header: 0002 is not proven any more
expect_exit 1 kcarry -C ws check --build --refresh hdr
stdout_has '^ *0001 .* X *$'
stdout_has '^ *0002 .* a *$'
stdout_has '^ *build +W *$'
same_as_target hdr fs/btrfs/demo.h
git -C tgt show kcarry/hdr/v1/tgt:fs/btrfs/demo2.c | grep -q 'step_two(c, 1)' ||
	fail "hdr: 0002 is not on the branch"
expect_exit 1 kcarry -C ws build hdr tgt
stdout_has '^0001 fs/btrfs/demo.h hunk 1: conflict again: '
stdout_has '^0002 fs/btrfs/demo2.c hunk 1: adapted \(not built\)$'
same_as_target hdr fs/btrfs/demo.h
exit 0
