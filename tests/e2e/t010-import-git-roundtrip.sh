#!/bin/sh
# import --git stores each commit in format-patch form; git am of the
# stored patches on the base rebuilds the same tree, and the diffs are the
# bytes git format-patch writes.
. ./lib.sh

make_repo src fs/btrfs/async-thread.c "$(c_lines 40 a)
" fs/btrfs/gone.c "bye
" fs/btrfs/old-name.c "$(c_lines 12 r)
"
commit_file src fs/btrfs/async-thread.c "$(c_lines 20 a)
	new_call();
$(c_lines 40 a | tail -n 20)
" "btrfs: add a call"
git -C src commit -q --allow-empty -m "btrfs: nothing" || fail commit
printf 'no newline at end' >src/fs/btrfs/tail.c
git -C src rm -q fs/btrfs/gone.c
git -C src mv fs/btrfs/old-name.c fs/btrfs/new-name.c
git -C src add -A && GIT_AUTHOR_NAME="Andreas Färber" git -C src commit -q -m "btrfs: add, delete, rename

Longer message.

Signed-off-by: A U Thor <author@example.org>" || fail commit
printf '\001\002\000binary' >src/fs/btrfs/blob.bin
git -C src add -A && git -C src commit -q -m "btrfs: a binary file" || fail commit

kcarry init ws >/dev/null
expect_exit 0 kcarry -C ws import wq --git src base..HEAD
expect_stdout <<'EOT'
imported wq@v1: 3 patches in patches/wq/v1
EOT
expect_stderr <<'EOT'
left out 1 empty commit of base..HEAD
EOT
ls ws/patches/wq/v1 >"$TEST_TMP/files"
cat >"$TEST_TMP/want" <<'EOT'
0001-btrfs-add-a-call.patch
0002-btrfs-add-delete-rename.patch
0003-btrfs-a-binary-file.patch
origins
series
EOT
diff -u "$TEST_TMP/want" "$TEST_TMP/files" || fail "stored files"

# the diff bytes equal git format-patch's
git -C src format-patch -q -o "$TEST_TMP/fp" base..HEAD
for n in 1:1 3:2; do
	a=${n%:*} b=${n#*:}
	sed -n '/^diff --git/,/^-- $/p' "$TEST_TMP"/fp/000$a-*.patch | sed '$d' >"$TEST_TMP/a"
	sed -n '/^diff --git/,/^-- $/p' ws/patches/wq/v1/000$b-*.patch | sed '$d' >"$TEST_TMP/b"
	diff -u "$TEST_TMP/a" "$TEST_TMP/b" || fail "diff of patch $a differs"
done

# git am on the base rebuilds the same trees (binary patch aside)
git clone -q src am && git -C am checkout -q base || fail clone
git -C am am -q "$TEST_TMP"/ws/patches/wq/v1/0001-*.patch "$TEST_TMP"/ws/patches/wq/v1/0002-*.patch ||
	fail "git am"
[ "$(git -C am rev-parse HEAD^{tree})" = "$(git -C src rev-parse HEAD~1^{tree})" ] ||
	fail "git am of the stored patches gives another tree"
[ "$(git -C am log -1 --format=%an -- fs/btrfs/async-thread.c)" = "A U Thor" ] || fail author
git -C am log --format=%an | grep -q "Andreas Färber" || fail "utf-8 author lost"

expect_exit 0 kcarry -C ws show wq
stdout_has "^wq@v1: 3 patches"
stdout_has "fs/btrfs/blob.bin \[binary\]"
stdout_has "^ *2  btrfs: add, delete, rename"

expect_exit 2 kcarry -C ws import wq2 --git src HEAD..HEAD
stderr_has "^error: range 'HEAD..HEAD' has no commits"
expect_exit 2 kcarry -C ws import wq2 --git src nosuch..HEAD
stderr_has "^error: cannot resolve range 'nosuch..HEAD'"
[ ! -d ws/patches/wq2 ] || fail "half-written wq2"
