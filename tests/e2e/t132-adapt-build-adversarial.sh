#!/bin/sh
# Acceptance by a build, where "it built" would be the wrong conclusion
# (issue 18).  Each series has an adapted hunk (rule 4, drifted
# context) on a throw-away Kbuild tree:
#  - hdr: the adapted hunk is in a header; the build succeeds, but a
#    header is compiled only through what includes it: never "builds",
#    --accept-adapted=built does not accept it;
#  - warn: the adapted hunk compiles with a new warning on its own line:
#    a new diagnostic pinned on it, so it is a conflict again (a warning
#    alone does not fail a build);
#  - mixed: the adapted hunk compiles clean, but another patch breaks
#    another object: a failed build proves nothing, the hunk stays
#    "adapted" (not built).
here=$(pwd)
. ./lib.sh
. "$here/adapt-lib.sh"
. "$here/adapt-build-lib.sh"

ab_texts hdr
ab_repo tgt fs/btrfs/demo.c "$TGT_C" fs/btrfs/demo.h "$TGT_H" \
	fs/btrfs/other.c "$OTHER_C"
ab_repo up fs/btrfs/demo.c "$UP_C" fs/btrfs/demo.h "$UP_H" \
	fs/btrfs/other.c "$OTHER_C"
git -C up checkout -qb hdr
commit_file up fs/btrfs/demo.h "$(printf '%s' "$UP_H" |
	sed 's/^int demo_flags(void);/int demo_flags(void) __attribute__((const));/')
" "btrfs: demo: demo_flags is const"
git -C up checkout -qb warn base
commit_file up fs/btrfs/demo.c "$(printf '%s' "$UP_C" |
	sed 's/^	ret = step_two(c, 0);/	if (ret = step_two(c, 0)) ret = 1;/')
" "btrfs: demo: one for any error"
git -C up checkout -qb mixed base
commit_file up fs/btrfs/demo.c "$(printf '%s' "$UP_C" |
	sed 's/step_two(c, 0)/step_two(c, 1)/')
" "btrfs: demo: pass 1 to step two"
commit_file up fs/btrfs/other.c "$(printf '%s' "$OTHER_C" |
	sed 's/return n + 1;/return n + undefined_thing;/')
" "btrfs: other: break it"

ab_ws tgt
for s in hdr warn mixed; do
	expect_exit 0 kcarry -C ws import $s --git up base..$s
done

# each is adapted before any build
expect_exit 1 kcarry -C ws apply hdr tgt
stdout_has '^  0001 adapted '
expect_exit 1 kcarry -C ws apply warn tgt
stdout_has '^  0001 adapted '
expect_exit 1 kcarry -C ws apply mixed tgt
stdout_has '^  0001 adapted '

# hdr builds, but its header hunk is not proven by it
expect_exit 1 kcarry -C ws check --build --accept-adapted=built hdr
stdout_has '^build +B *$'
stdout_has '^ *0001 .* a *$'
stdout_has '^  hdr@v1 on tgt: 1 adapted, builds$'
expect_exit 0 kcarry -C ws build hdr tgt
stdout_has '^0001 fs/btrfs/demo.h hunk 1: adapted \(not built\)$'

# warn: the new warning is pinned on the adapted line
expect_exit 1 kcarry -C ws check --build --accept-adapted warn
stdout_has '^ *0001 .* X *$'
stdout_has '^build +W *$'
expect_exit 1 kcarry -C ws check --build --format json -o w.json warn
python3 - w.json <<'EOT' || fail "warn JSON"
import json, sys
d = json.load(open(sys.argv[1]))
h = d["cells"][0]["patches"][0]["files"][0]["hunks"][0]
assert h["rule"] == "conflict", h
assert h["cause"]["kind"] == "build", h["cause"]
assert "warning: suggest parentheses around assignment" in h["cause"]["text"], h["cause"]
EOT

# mixed: the build fails in other.c; demo.c's adapted hunk is not proven
expect_exit 1 kcarry -C ws check --build --accept-adapted=built mixed
stdout_has '^build +E *$'
stdout_has '^ *0001 .* a *$'
stdout_has '^ *0002 .* \.! *$'
expect_exit 1 kcarry -C ws build mixed tgt
stdout_has '^0001 fs/btrfs/demo.c hunk 1: adapted \(not built\)$'
exit 0
