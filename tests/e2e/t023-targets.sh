#!/bin/sh
# Targets: a remote URL is cloned once into the cache and reused; a
# tarball is imported once as a single commit whose tree equals the
# tarball's files; kcarry kernels tells which trees are ready.
. ./lib.sh
need xz

make_repo up fs/btrfs/a.c "one
two
three
" Makefile "VERSION = 6
"
commit_file up fs/btrfs/a.c "one
two
2.5
three
" "btrfs: add 2.5"

mkdir -p tb/linux-6.1.1/fs/btrfs tb/linux-6.1.1/scripts
printf 'one\ntwo\nthree\n' >tb/linux-6.1.1/fs/btrfs/a.c
printf 'VERSION = 6\n' >tb/linux-6.1.1/Makefile
printf '#!/bin/sh\necho hi\n' >tb/linux-6.1.1/scripts/run.sh
chmod +x tb/linux-6.1.1/scripts/run.sh
ln -s ../Makefile tb/linux-6.1.1/scripts/link
tar -C tb -cJf linux-6.1.1.tar.xz linux-6.1.1

kcarry init ws >/dev/null
printf '[kernel]\n\turl = file://%s/up\n\tref = base\n' "$TEST_TMP" >ws/kernels/remote.conf
printf '[kernel]\n\ttarball = ../linux-6.1.1.tar.xz\n' >ws/kernels/tar.conf
printf '[kernel]\n\turl = %s/up\n\tref = base\n' "$TEST_TMP" >ws/kernels/local.conf
# cache folders: a readable stem and a hash of the normalised source
key() { printf '%s-%s' "$1" "$(printf '%s' "$2" | git hash-object --stdin | cut -c1-16)"; }
remote_key=$(key up "file://$TEST_TMP/up")
tar_key=$(key linux-6.1.1.tar.xz "$TEST_TMP/linux-6.1.1.tar.xz")
expect_exit 0 kcarry -C ws kernels
expect_stdout <<EOT
TARGET       KIND     STATE     SOURCE
local        local    ready     $TEST_TMP/up base
remote       remote   not yet   file://$TEST_TMP/up base
             not cloned yet ($TEST_TMP/.cache/trees/$remote_key.git)
tar          tarball  not yet   $TEST_TMP/ws/../linux-6.1.1.tar.xz
             tarball not imported yet ($TEST_TMP/.cache/trees/$tar_key.git)
EOT
expect_exit 0 kcarry -C ws import s --git up base..HEAD

expect_exit 0 kcarry -C ws apply s remote
stderr_has "^remote: cloning \(once; later runs reuse it\)$"
stdout_has "^  0001 clean"
expect_exit 0 kcarry -C ws apply s remote
[ -s "$ERR" ] && { cat "$ERR"; fail "second run cloned again"; }
git -C "$TEST_TMP/.cache/trees/$remote_key.git" rev-parse -q --verify kcarry/s/v1/remote >/dev/null ||
	fail "branch not in the cached clone"
git -C up rev-parse -q --verify kcarry/s/v1/remote >/dev/null &&
	fail "the remote repository was written to"

expect_exit 0 kcarry -C ws apply s tar
stderr_has "^tar: importing the tarball"
stdout_has "^  0001 clean"
repo=$TEST_TMP/.cache/trees/$tar_key.git
[ "$(git -C "$repo" rev-list --count kcarry-base)" = 1 ] || fail "not one commit"
git -C "$repo" ls-tree -r kcarry-base >"$TEST_TMP/ls"
grep -q '^100755 blob .*	scripts/run.sh$' "$TEST_TMP/ls" || fail "executable bit lost"
grep -q '^120000 blob .*	scripts/link$' "$TEST_TMP/ls" || fail "symlink lost"
[ "$(git -C "$repo" cat-file -p kcarry-base:scripts/link)" = "../Makefile" ] || fail "link target"
[ "$(git -C "$repo" show kcarry/s/v1/tar:fs/btrfs/a.c)" = "$(printf 'one\ntwo\n2.5\nthree')" ] ||
	fail "patch not applied on the tarball tree"
expect_exit 0 kcarry -C ws apply s tar
[ -s "$ERR" ] && { cat "$ERR"; fail "second run imported again"; }
expect_exit 0 kcarry -C ws kernels
stdout_has "^tar +tarball +ready"
stdout_has "^remote +remote +ready"

printf '[kernel]\n\ttarball = nosuch.tar.xz\n' >ws/kernels/bad.conf
expect_exit 2 kcarry -C ws apply s bad
stderr_has "^error: .*bad.conf: tarball '.*nosuch.tar.xz' does not exist"
printf '[kernel]\n\tname = x\n' >ws/kernels/bad.conf
expect_exit 2 kcarry -C ws apply s bad
stderr_has "^error: .*bad.conf: neither kernel.url nor kernel.tarball is set"
