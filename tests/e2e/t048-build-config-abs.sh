#!/bin/sh
# build.config = file:/ABSOLUTE/PATH (a distro's config where it lives,
# /boot/config-*) is read at build time (issue 16, item 5); a missing
# one is refused with its path and why.
here=$(pwd)
. ./lib.sh
need gcc
need make
. "$here/build-lib.sh"
build_fixture

mkdir -p etc
printf 'CONFIG_BTRFS_FS=m\nCONFIG_EXTRA=y\n' >etc/config-distro
git clone -q tgt2 up2 || fail clone
sed -i 's/return n > 1/return n > 2/' up2/fs/btrfs/ctree.c
git -C up2 commit -qam "btrfs: deeper trees" || fail c1
expect_exit 0 kcarry -C ws import fine --git up2 base..HEAD
printf '[kernel]\n\turl = %s/tgt2\n\tref = base\n[build]\n\tconfig = file:%s/etc/config-distro\n\tjobs = 1\n' \
	"$TEST_TMP" "$TEST_TMP" >ws/kernels/abs.conf
expect_exit 0 kcarry -C ws build fine abs
stdout_has '^  build, fine@v1 on abs: builds'
grep -q '^CONFIG_EXTRA=y$' "$KCARRY_CACHE"/build/abs/out-*/.config || fail "the config was not copied into O="
# missing: refused, with the path named
printf '[kernel]\n\turl = %s/tgt2\n\tref = base\n[build]\n\tconfig = file:%s/etc/nosuch\n' \
	"$TEST_TMP" "$TEST_TMP" >ws/kernels/gone.conf
"$KCARRY" -C ws build fine gone >"$OUT" 2>"$ERR"
rc=$?
[ "$rc" -ne 0 ] || fail "a missing config built"
grep -q "build.config 'file:$TEST_TMP/etc/nosuch': .*$TEST_TMP/etc/nosuch.*No such file" "$OUT" "$ERR" ||
	{ cat "$OUT" "$ERR"; fail "the missing config is not named"; }
! grep -q 'no such file in the tree or the workspace' "$OUT" "$ERR" || fail "an absolute path looked up in the tree"
exit 0
