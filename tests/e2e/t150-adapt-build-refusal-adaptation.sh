#!/bin/sh
# A build's refusal holds for the adaptation it refused, not for the hunk
# (issue 18).  The record keeps, per refused hunk, the id of the adapted
# hunk the build refused ("adapted ID"), and the series it is kept for
# ("series NAME").  A carry that adapts the hunk the same way keeps it a
# conflict whose cause is the build's diagnostic; a carry that adapts it
# otherwise (a newer kcarry, a changed rule: here, the record's id made
# to differ) proposes the adaptation again, to be built.  A record
# written before the id was kept (no "adapted" line) refuses as it did.
# The series "bad" on t134's throw-away Kbuild tree: 0001 adapted by rule
# 4, refused by the build; 0003 adapted and built.
here=$(pwd)
. ./lib.sh
. "$here/adapt-lib.sh"
. "$here/adapt-build-lib.sh"

ab_bad_fixture
br=kcarry/bad/v1/tgt

expect_exit 1 kcarry -C ws check --build bad
set -- ws/patches/bad/.resolutions/*.refused
[ $# -eq 1 ] && [ -f "$1" ] || fail "not one refusal recorded: $*"
rec=$1
cp "$rec" refused.orig
grep -q '^series bad$' "$rec" || { cat "$rec"; fail "the record does not name its series"; }
grep -q '^adapted [0-9a-f]\{40\}$' "$rec" ||
	{ cat "$rec"; fail "the record does not keep the adapted hunk"; }
[ "$(grep -c '^adapted ' "$rec")" -eq 1 ] || { cat "$rec"; fail "one hunk was refused"; }

# the same adaptation: refused
git -C tgt update-ref "refs/heads/$br" base
expect_exit 1 kcarry -C ws apply bad tgt
stdout_has '^  0001 conflict '
stdout_has '^ *cause: a build on tgt refused this adaptation: fs/btrfs/demo.c:'
stdout_has '^  0003 adapted '

# another adaptation under the same KEY: proposed again
sed 's/^adapted .*/adapted 0123456789abcdef0123456789abcdef01234567/' \
	refused.orig >"$rec"
git -C tgt update-ref "refs/heads/$br" base
expect_exit 1 kcarry -C ws apply bad tgt
stdout_has '^  0001 adapted '
grep -q 'refused this adaptation' "$OUT" && { cat "$OUT"; fail 'still refused'; }
git -C tgt show "$br:fs/btrfs/demo.c" | grep -q 'step_two(c, 0, 1);' ||
	fail "apply did not propose 0001's adaptation again"
expect_exit 1 kcarry -C ws check bad
grep -q 'refused this adaptation' "$OUT" && { cat "$OUT"; fail 'still refused'; }
# resolve shows it as the proposal it is again
expect_exit 0 kcarry -C ws resolve bad tgt 1
f=ws/.kcarry/resolve/bad/v1/tgt/files/fs/btrfs/demo.c
[ -e "$f.adapted" ] || { cat "$OUT"; fail "resolve does not propose the new adaptation"; }
expect_exit 0 kcarry -C ws resolve --abort bad tgt

# a record without the adapted hunks (an older kcarry's): refused as before
grep -v '^adapted \|^series ' refused.orig >"$rec"
git -C tgt update-ref "refs/heads/$br" base
expect_exit 1 kcarry -C ws apply bad tgt
stdout_has '^  0001 conflict '
stdout_has '^ *cause: a build on tgt refused this adaptation: fs/btrfs/demo.c:'
expect_exit 0 kcarry -C ws resolve bad tgt 1
[ ! -e "$f.adapted" ] || fail "resolve shows the refused proposal of an old record"
[ -f "$f.rej" ] || fail "resolve shows no conflict for an old record"
exit 0
