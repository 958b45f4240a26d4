#!/bin/sh
# kcarry resolve --suggest when the series' API change itself conflicts
# (the target's btrfs_init_work() differs): nothing of the patch lands, so
# the carried result has no unconverted call in the audit's sense, and
# suggest used to say "0 unconverted calls rewritten, 0 left as they are"
# while the target has four calls to convert.  Now the calls whose
# converting hunk conflicted (disk-io.c, inode.c, scrub.c), and the one the
# series never converts (ordered-data.c, only in the target), are
# rewritten by the conversion the series' own calls show, in
# suggest.patch against the carried result; nothing is committed.
here=$(pwd)
. ./lib.sh
. "$here/conv-lib.sh"

mkdir -p up/fs/btrfs
for f in disk-io inode scrub; do
	conv_caller $f ${f%%-*}_start >up/fs/btrfs/$f.c
done
conv_upstream

make_repo tgt fs/btrfs/async-thread.h "$WH" \
	fs/btrfs/async-thread.c "$(printf '%s' "$WC" |
	sed 's/^\twork->helper = helper;$/\twork->helper = helper ? helper : default_helper;/')
" fs/btrfs/disk-io.c "$(conv_caller disk-io disk_start)
" fs/btrfs/inode.c "$(conv_caller inode inode_start)
" fs/btrfs/scrub.c "$(conv_caller scrub scrub_start)
" fs/btrfs/ordered-data.c "$(conv_caller ordered-data ordered_start)
"
grep -q default_helper tgt/fs/btrfs/async-thread.c || fail fixture

kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/tgt\n\tref = base\n' "$TEST_TMP" >ws/kernels/old.conf
expect_exit 0 kcarry -C ws import wq --git up base..HEAD
expect_exit 1 kcarry -C ws apply wq old
stdout_has '^  0001 conflict '

expect_exit 0 kcarry -C ws resolve --suggest wq old
expect_stdout <<'EOT'
wq@v1 converts btrfs_init_work, dropping argument 2 of 4 (learned from 3 converted calls)
  fs/btrfs/disk-io.c:11 disk_start(): btrfs_init_work(w, disk_start_helper, disk_start_fn, NULL) -> btrfs_init_work(w, disk_start_fn, NULL)
  fs/btrfs/inode.c:11 inode_start(): btrfs_init_work(w, inode_start_helper, inode_start_fn, NULL) -> btrfs_init_work(w, inode_start_fn, NULL)
  fs/btrfs/ordered-data.c:11 ordered_start(): btrfs_init_work(w, ordered_start_helper, ordered_start_fn, NULL) -> btrfs_init_work(w, ordered_start_fn, NULL)
  fs/btrfs/scrub.c:11 scrub_start(): btrfs_init_work(w, scrub_start_helper, scrub_start_fn, NULL) -> btrfs_init_work(w, scrub_start_fn, NULL)
4 unconverted calls rewritten, 0 left as they are
wrote .kcarry/resolve/wq/v1/old/suggest/suggest.patch (against the series carried on old) and .kcarry/resolve/wq/v1/old/suggest/conversion.cocci; nothing was committed
EOT
git -C tgt rev-parse -q --verify refs/heads/kcarry/wq/v1/old >/dev/null &&
	[ "$(git -C tgt rev-parse kcarry/wq/v1/old)" != "$(git -C tgt rev-parse base)" ] &&
	fail "suggest committed something"

# suggest.patch on the carried result (the target: nothing landed) gives
# the callers as the series converts them
git clone -q tgt chk && git -C chk checkout -q base
git -C chk apply "$TEST_TMP/ws/.kcarry/resolve/wq/v1/old/suggest/suggest.patch" ||
	fail "suggest.patch does not apply"
for f in disk-io inode scrub; do
	diff -u up/fs/btrfs/$f.c chk/fs/btrfs/$f.c || fail "$f.c differs from the series' conversion"
done
grep -qx '	btrfs_init_work(w, ordered_start_fn, NULL);' chk/fs/btrfs/ordered-data.c ||
	fail "ordered-data.c not converted"
exit 0
