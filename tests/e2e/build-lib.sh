# build-lib.sh: the fixture of the build tests (t04x), sourced after
# lib.sh.  build_fixture makes:
#   tgt   the Kbuild-shaped project (tests/fixtures/build/proj) as a git
#         repository, tag base
#   tgt2  the same without scrub.c and ordered.c
#   up    tgt plus three commits: 0001 drops ordered_free from
#         btrfs_init_work and converts disk-io.c (scrub.c stays
#         unconverted, ordered.c uses the removed field), 0002 adds an
#         error in the second hunk of inode.c (its first hunk moves the
#         pre-existing warning down), 0003 tidies ctree.c
#   ws    a workspace with targets tgt (config defconfig,
#         CONFIG_EXTRA=y) and tgt2, and the series wq (up's commits)
build_fixture() {
need gcc
need make
FX=$KCARRY_FIXTURES/build/proj
[ -d "$FX" ] || FX=$(cd ../fixtures/build/proj && pwd)

cp -r "$FX" tgt
(cd tgt && git init -q && git add -A && git commit -qm base && git tag base) ||
	fail "target repo"
git clone -q tgt up || fail clone
# 0001: drop ordered_free; convert disk-io.c only
python3 - up/fs/btrfs <<'PY'
import sys
d = sys.argv[1] + "/"
for f in ("async-thread.h", "async-thread.c"):
    s = open(d + f).read()
    s = s.replace(",\n\t\t     btrfs_func_t ordered_func, btrfs_func_t ordered_free)",
                  ",\n\t\t     btrfs_func_t ordered_func)")
    s = s.replace("\twork->ordered_free = ordered_free;\n", "")
    s = s.replace("\tbtrfs_func_t ordered_free;\n", "")
    open(d + f, "w").write(s)
s = open(d + "disk-io.c").read().replace("end_io, NULL, NULL)", "end_io, NULL)")
open(d + "disk-io.c", "w").write(s)
PY
git -C up commit -qam "btrfs: drop ordered_free from btrfs_init_work" || fail c1
# 0002: hunk 1 moves the old warning down, hunk 2 breaks inode_mul
python3 - up/fs/btrfs/inode.c <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
s = s.replace('#include "async-thread.h"\n', '#include "async-thread.h"\n\n/* inode helpers */\n', 1)
s = s.replace("\tint m = 1;\n", "\tint m = 1;\n\n\tm += undefined_counter;\n", 1)
open(p, "w").write(s)
PY
git -C up commit -qam "btrfs: count inodes" || fail c2
sed -i 's/return n > 1/return n >= 2/' up/fs/btrfs/ctree.c
git -C up commit -qam "btrfs: tidy ctree_depth" || fail c3

# tgt2: the same tree without scrub.c and ordered.c (0001 builds there)
cp -r "$FX" tgt2
rm tgt2/fs/btrfs/scrub.c tgt2/fs/btrfs/ordered.c
(cd tgt2 && git init -q && git add -A && git commit -qm base && git tag base) ||
	fail "target repo 2"

kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/tgt\n\tref = base\n[build]\n\tconfig = defconfig\n\tconfig = CONFIG_EXTRA=y\n\tjobs = 2\n' "$TEST_TMP" >ws/kernels/tgt.conf
printf '[kernel]\n\turl = %s/tgt2\n\tref = base\n[build]\n\tjobs = 1\n' "$TEST_TMP" >ws/kernels/tgt2.conf
expect_exit 0 kcarry -C ws import wq --git up base..HEAD

}
