#!/bin/sh
# Build targets the base tree lacks never "build" (issue 16, item 1).
# build.targets = lib/string.o lib/vsprintf.o on one line names two
# targets; when the O= folder already holds objects of an earlier build
# (as modules_prepare leaves them on a kernel tree), the base build that
# makes nothing must not pass for "done, 0 errors", must not be cached,
# and the series build must never fall back to a bare 'make' (the whole
# tree).
here=$(pwd)
. ./lib.sh
need gcc
need make
. "$here/build-lib.sh"
build_fixture

git clone -q tgt2 up2 || fail clone
sed -i 's/return n > 1/return n > 2/' up2/fs/btrfs/ctree.c
git -C up2 commit -qam "btrfs: deeper trees" || fail c1
expect_exit 0 kcarry -C ws import fine --git up2 base..HEAD
# a first build fills the O= folder of tgt2's configuration
expect_exit 0 kcarry -C ws build fine tgt2
stdout_has '^  build, fine@v1 on tgt2: builds'
out=$(ls -d "$KCARRY_CACHE"/build/tgt2/out-*) || fail "no O= folder"
[ -f "$out/fs/btrfs/ctree.o" ] || fail "the first build made no object"
rm -f "$out/lib/util.o"

# the same configuration (same O=), targets the tree does not have
printf '[kernel]\n\turl = %s/tgt2\n\tref = base\n[build]\n\tjobs = 1\n\ttargets = lib/string.o lib/vsprintf.o\n' \
	"$TEST_TMP" >ws/kernels/tgt2.conf
expect_exit 1 kcarry -C ws -v build fine tgt2
stdout_has '^  build, fine@v1 on tgt2: did not run: the base tree has none of the build targets: lib/string.o, lib/vsprintf.o \(see build.targets\)$'
! grep -q 'done, 0 errors' "$OUT" "$ERR" || { cat "$OUT" "$ERR"; fail "a base build of nothing said done"; }
[ ! -e "$out/lib/util.o" ] || fail "a bare make ran (lib/util.o was built)"
# nothing was cached as the base build's success: a second run says it again
expect_exit 1 kcarry -C ws build fine tgt2
stdout_has 'did not run: the base tree has none of the build targets'
exit 0
