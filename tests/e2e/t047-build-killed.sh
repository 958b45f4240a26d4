#!/bin/sh
# A make killed by a signal (the OOM killer, a CI timeout) names the
# signal (issue 16, item 4): "make was killed by signal 9 (Killed)", and
# the build never passes for one that ran.
here=$(pwd)
. ./lib.sh
need gcc
need make
. "$here/build-lib.sh"
build_fixture

# a make that kills itself when it is asked for fs/btrfs/ (the targets'
# build), and is GNU make for everything else (version, configuration)
real=$(command -v make)
mkdir bin
cat >bin/make <<EOT
#!/bin/sh
for a in "\$@"; do
	[ "\$a" = fs/btrfs/ ] && kill -KILL \$\$
done
exec "$real" "\$@"
EOT
chmod +x bin/make
git clone -q tgt2 up2 || fail clone
sed -i 's/return n > 1/return n > 2/' up2/fs/btrfs/ctree.c
git -C up2 commit -qam "btrfs: deeper trees" || fail c1
expect_exit 0 kcarry -C ws import fine --git up2 base..HEAD
PATH=$TEST_TMP/bin:$PATH "$KCARRY" -C ws build fine tgt2 >"$OUT" 2>"$ERR"
rc=$?
[ "$rc" -eq 1 ] || { cat "$OUT" "$ERR"; fail "a killed make: exit $rc, not 1"; }
stdout_has '^  build, fine@v1 on tgt2: did not run: make \(base\): make was killed by signal 9 \(Killed\)'
exit 0
