#!/bin/sh
# A compression bomb in a tarball target (a few KB of xz that inflate to
# far more than a kernel tree) stops at tarball.max-size, counted from the
# entry headers before their bytes are read; a flood of entries stops at
# tarball.max-entries.  Both come from kcarry.conf or the environment, and
# the same tarball imports under the defaults.
. ./lib.sh
need xz

# 8 MiB of zeros in 4 files: 8 KB of xz
mkdir -p bomb/linux-9.9/z
for i in 1 2 3 4; do
	head -c 2097152 /dev/zero >bomb/linux-9.9/z/zero$i
done
echo 'VERSION = 9' >bomb/linux-9.9/Makefile
tar --sort=name -C bomb -cJf bomb.tar.xz linux-9.9
[ "$(stat -c %s bomb.tar.xz)" -lt 65536 ] || fail "the bomb is not small"
# 200 empty files
mkdir -p flood/linux-9.9
i=0
while [ $i -lt 200 ]; do
	: >flood/linux-9.9/f$i
	i=$((i + 1))
done
tar -C flood -cJf flood.tar.xz linux-9.9

kcarry init ws >/dev/null
printf '[kernel]\n\ttarball = ../bomb.tar.xz\n' >ws/kernels/bomb.conf
printf '[kernel]\n\ttarball = ../flood.tar.xz\n' >ws/kernels/flood.conf

KCARRY_TARBALL_MAX_SIZE=5M expect_exit 2 kcarry -C ws kernels --prepare
expect_stderr <<EOT
bomb: preparing the tree
error: $TEST_TMP/ws/../bomb.tar.xz: more than 5242880 bytes once uncompressed, at 'z/zero3' (tarball.max-size)
hint: raise tarball.max-size in kcarry.conf or KCARRY_TARBALL_MAX_SIZE if the tarball is trusted
flood: preparing the tree
EOT
stdout_has "^bomb +tarball +not yet "
stdout_has "^flood +tarball +ready "

# the same through kcarry.conf, and the entry count
rm -rf .cache/trees
printf '[tarball]\n\tmax-size = 5M\n\tmax-entries = 100\n' >ws/kcarry.conf
expect_exit 2 kcarry -C ws kernels --prepare
expect_stderr <<EOT
bomb: preparing the tree
error: $TEST_TMP/ws/../bomb.tar.xz: more than 5242880 bytes once uncompressed, at 'z/zero3' (tarball.max-size)
hint: raise tarball.max-size in kcarry.conf or KCARRY_TARBALL_MAX_SIZE if the tarball is trusted
flood: preparing the tree
error: $TEST_TMP/ws/../flood.tar.xz: more than 100 entries (tarball.max-entries)
hint: raise tarball.max-entries in kcarry.conf or KCARRY_TARBALL_MAX_ENTRIES if the tarball is trusted
EOT
# the environment overrides the file
KCARRY_TARBALL_MAX_SIZE=16M KCARRY_TARBALL_MAX_ENTRIES=1000 expect_exit 0 kcarry -C ws kernels --prepare
stdout_has "^bomb +tarball +ready "
stdout_has "^flood +tarball +ready "
printf '[tarball]\n\tmax-size = lots\n' >ws/kcarry.conf
rm -rf .cache/trees
expect_exit 2 kcarry -C ws kernels --prepare
stderr_has "^error: tarball.max-size: 'lots' is not a size \(512, 64k, 2M, 3G\)$"

# the defaults (3 GiB, 500,000 entries) take both
rm -f ws/kcarry.conf
rm -rf .cache/trees
expect_exit 0 kcarry -C ws kernels --prepare
stdout_has "^bomb +tarball +ready "
