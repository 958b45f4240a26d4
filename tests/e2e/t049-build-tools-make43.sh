#!/bin/sh
# Trees whose tools/build predates the kernel's GNU make 4.3 fix (issue
# 16, item 3): their make modules_prepare stops with "missing separator"
# in a .cmd file dep-cmd's fixdep fallback wrote '\#' into.  A tiny tree
# (tests/fixtures/build/tools-old) builds its host tool through those
# definitions in sub-makes whose MAKEFLAGS are reset, as 4.x trees and
# 3.10 distro trees with objtool do.  The compatibility profile
# make43-tools-build fixes it from O= (MAKEFILES), never in the tree, and
# the build is incremental; with build.profile = none the failure shows
# the lines that carry the error, not the log's head and tail.
here=$(pwd)
. ./lib.sh
need gcc
need make
make --version | head -1 | grep -Eq 'GNU Make (4\.([3-9]|[1-9][0-9])|[5-9])' ||
	skip "GNU make before 4.3 reads '\\#' as '#'"
FX=$KCARRY_FIXTURES/build/tools-old
[ -d "$FX" ] || FX=$(cd ../fixtures/build/tools-old && pwd)
cp -r "$FX" tgt
(cd tgt && git init -q && git add -A && git commit -qm base && git tag base) || fail "target repo"
git clone -q tgt up || fail clone
sed -i 's/return n > 1/return n > 2/' up/fs/btrfs/ctree.c
git -C up commit -qam "btrfs: deeper trees" || fail c1
kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/tgt\n\tref = base\n[build]\n\tconfig = defconfig\n\ttargets = fs/btrfs/\n\tjobs = 1\n' \
	"$TEST_TMP" >ws/kernels/old.conf
printf '[kernel]\n\turl = %s/tgt\n\tref = base\n[build]\n\tconfig = defconfig\n\ttargets = fs/btrfs/\n\tprofile = none\n\tjobs = 1\n' \
	"$TEST_TMP" >ws/kernels/none.conf
expect_exit 0 kcarry -C ws import deeper --git up base..HEAD

expect_exit 0 kcarry -C ws build deeper old
stdout_has '^  build, deeper@v1 on old: builds.*\[profile make43-tools-build\]$'
out=$(ls -d "$KCARRY_CACHE"/build/old/out-*) || fail "no O= folder"
[ -f "$out/tools/objtool/objtool.o" ] || fail "the host tool was not built"
! grep -l '\\#' "$out"/tools/objtool/.*.cmd || fail "a .cmd file with '\\#'"
[ -f "$out/.kcarry-tools-build.mk" ] || fail "no makefile of the profile in O="
! grep -rq kcarry-pound "$KCARRY_CACHE/build/old/src" || fail "the profile went into the source folder"
[ -z "$(git -C tgt status --porcelain)" ] || fail "the tree changed"
# incremental: a second make of the host tool compiles nothing
before=$(stat -c %Y "$out/tools/objtool/objtool.o")
sleep 1
(cd "$KCARRY_CACHE/build/old/src" && MAKEFILES=$out/.kcarry-tools-build.mk make O="$out" CC=gcc tools/objtool >/dev/null 2>&1) ||
	fail "a second make of the tool fails"
[ "$(stat -c %Y "$out/tools/objtool/objtool.o")" = "$before" ] || fail "the tool was compiled again"

# without the profile: the error, with its file, not the log's ends
expect_exit 1 kcarry -C ws build deeper none
stdout_has "^  build, deeper@v1 on none: did not run: make modules_prepare failed:$"
stdout_has '^/.*/tools/objtool/\.fixdep\.o\.cmd:1: \*\*\* missing separator\.  Stop\.$'
! grep -q 'GEN     include/generated/step1.h' "$OUT" || fail "the log's head instead of its error lines"
exit 0
