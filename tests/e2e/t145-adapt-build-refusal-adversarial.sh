#!/bin/sh
# A build's recorded refusal of an adaptation (t144) holds for that hunk
# of that patch on that target's tree alone (issue 18).  The series
# "two" on a throw-away Kbuild tree: one patch, two adapted hunks (rule
# 4, drifted context), one in fs/btrfs/demo.c that the build refuses (a
# third argument the target's step_two() does not take), one in
# fs/btrfs/demo2.c that compiles.
#  - one hunk refused does not touch the other: apply keeps demo2.c's
#    hunk adapted, demo.c's a conflict with the build's cause;
#  - another target with the same tree was not built: proposed there;
#  - the target moves (a file the patch does not touch): proposed again;
#    moved back to the tree that was built: refused again;
#  - a new series version (the same patch) and a changed patch: proposed;
#  - the target's step_two() takes more: the patch meets another
#    demo.c, proposed again; a build there that passes removes the
#    cell's old record, and the adaptation stays "adapted, builds".
here=$(pwd)
. ./lib.sh
. "$here/adapt-lib.sh"
. "$here/adapt-build-lib.sh"

ab_texts decl
ab_repo tgt fs/btrfs/demo.c "$TGT_C" fs/btrfs/demo2.c "$TGT2_C
"
ab_repo up fs/btrfs/demo.c "$UP_C" fs/btrfs/demo2.c "$UP2_C
"
git -C up checkout -qb two
printf '%s' "$UP_C" | sed 's/step_two(c, 0)/step_two(c, 0, 1)/' >up/fs/btrfs/demo.c
printf '%s\n' "$UP2_C" | sed 's/step_two(c, 0)/step_two(c, 1)/' >up/fs/btrfs/demo2.c
git -C up commit -qam "btrfs: demo: pass more to step two" || fail "commit"

ab_ws tgt same
expect_exit 0 kcarry -C ws import two --git up base..two
res=ws/patches/two/.resolutions

# both hunks proposed
proposed() { # $1: what, $2: NAME[@VERSION], $3: target
	expect_exit 1 kcarry -C ws apply "$2" "$3"
	stdout_has '^  0001 adapted '
	stdout_has '^ *fs/btrfs/demo.c hunk 1: adapted'
	grep -q 'refused this adaptation' "$OUT" &&
		fail "$1: the refusal still applies"
	return 0
}
refused() { # $1: what, $2: target
	expect_exit 1 kcarry -C ws apply two@v1 "$2"
	stdout_has '^  0001 conflict '
	stdout_has '^ *fs/btrfs/demo.c hunk 1: conflict'
	stdout_has "^ *cause: a build on $2 refused this adaptation: fs/btrfs/demo.c:[0-9]*:"
	stdout_has '^ *fs/btrfs/demo2.c hunk 1: adapted'
	grep -q 'demo2.c.*refused' "$OUT" && fail "$1: demo2.c's hunk refused"
	return 0
}
proposed "before any build" two tgt

expect_exit 1 kcarry -C ws check --build two tgt
stdout_has '^ *0001 .* X *$'
[ "$(ls "$res" | grep -c '\.refused$')" = 1 ] || { ls -la "$res"; fail "not one record"; }
grep -q '^refused 1 1 fs/btrfs/demo.c$' "$res"/*.refused ||
	{ cat "$res"/*.refused; fail "the record does not name demo.c's hunk"; }
grep -q 'demo2' "$res"/*.refused && fail "the record names demo2.c"

# one hunk refused, the other kept
refused "after the build" tgt
# check without --build, JSON: demo2.c's hunk is adapted, demo.c's not
expect_exit 1 kcarry -C ws check --format json -o c.json two tgt
python3 - c.json <<'EOT' || fail "check JSON"
import json, sys
d = json.load(open(sys.argv[1]))
fs = d["cells"][0]["patches"][0]["files"]
by = {f["path"]: f["hunks"][0] for f in fs}
assert by["fs/btrfs/demo.c"]["rule"] == "conflict", by
assert by["fs/btrfs/demo.c"]["cause"]["kind"] == "build", by
assert by["fs/btrfs/demo2.c"]["rule"] == "adapted", by
assert by["fs/btrfs/demo2.c"]["adaptation"]["adapted"], by
EOT

# another target with the same tree: not built there
proposed "another target" two same

# the target moves in a file the patch does not touch
old=$(git -C tgt rev-parse base)
git -C tgt checkout -q base
printf 'int unrelated;\n' >tgt/fs/btrfs/unrelated.c
git -C tgt add fs/btrfs/unrelated.c && git -C tgt commit -qm "tgt: unrelated" &&
	git -C tgt tag -f base >/dev/null 2>&1 || fail "move base"
proposed "the target moved" two tgt
# and back: the tree that was built
git -C tgt tag -f base "$old" >/dev/null 2>&1 || fail "move base back"
refused "the target moved back" tgt

# a new series version holding the same patch, and a changed patch
expect_exit 0 kcarry -C ws import two@v2 --git up base..two
proposed "a new version" two@v2 tgt
git -C up checkout -q two
printf '%s' "$UP_C" | sed 's/step_two(c, 0)/step_two(c, 0, 2)/' >up/fs/btrfs/demo.c
git -C up commit -q --amend -a --no-edit || fail "amend"
expect_exit 0 kcarry -C ws import two@v3 --git up base..two
proposed "a changed patch" two@v3 tgt
refused "v1 again" tgt

# the target's step_two() takes more: demo.c changes under the patch
git -C tgt checkout -q "$old"
sed -i 's/int step_two(struct ctx \*c, int flags);/int step_two(struct ctx *c, int flags, ...);/' \
	tgt/fs/btrfs/demo.c
git -C tgt commit -qam "tgt: step_two takes more" && git -C tgt tag -f base >/dev/null 2>&1 ||
	fail "move base"
proposed "the file moved under the patch" two@v1 tgt
# a build there passes: the cell's old record goes, the hunk builds
expect_exit 0 kcarry -C ws check --build --accept-adapted=built two@v1 tgt
stdout_has '^ *0001 .* A *$'
! ls "$res"/*.refused >/dev/null 2>&1 || fail "the old record outlived a build that passed"
exit 0
