#!/bin/sh
# A pending resolution is never thrown away unasked: 'resolve' of another
# patch, or of the same one again, refuses while a scratch folder holds
# one, names its files and says how to keep or discard them (as git am
# keeps a pending session).  --abort discards it; --force discards it and
# starts the patch named.
. ./lib.sh
four_patch_series
kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/tgt\n\tref = base\n' "$TEST_TMP" >ws/kernels/old.conf
expect_exit 0 kcarry -C ws import wq --git up base..HEAD
expect_exit 0 kcarry -C ws resolve wq old 3
f=ws/.kcarry/resolve/wq/v1/old/files/fs/btrfs/async-thread.c
echo "/* the person's work */" >>"$f"

for p in 1 3; do
	expect_exit 1 kcarry -C ws resolve wq old $p
	expect_stdout </dev/null
	expect_stderr <<EOT
error: a resolution of 0003-btrfs-conflicting-fix.patch is pending in .kcarry/resolve/wq/v1/old: fs/btrfs/async-thread.c
hint: 'kcarry refresh wq@v1 old' records it; 'kcarry resolve --abort wq@v1 old' discards it; 'kcarry resolve --force wq@v1 old $p' discards it and starts $p
EOT
	grep -q "^/\* the person's work \*/$" "$f" || fail "resolve $p lost the edits"
done

# --force: discarded, the patch named prepared afresh
expect_exit 0 kcarry -C ws resolve --force wq old 3
stdout_has "^0003-btrfs-conflicting-fix.patch \(btrfs: conflicting fix\) conflicts on old\.$"
! grep -q "the person's work" "$f" || fail "--force kept the old files"

# --abort: the folder goes, and says so
echo "/* more work */" >>"$f"
expect_exit 0 kcarry -C ws resolve --abort wq old
expect_stdout <<'EOT'
discarded the resolution of 0003-btrfs-conflicting-fix.patch on old
EOT
[ ! -e ws/.kcarry/resolve/wq/v1/old ] || fail "--abort left the folder"
expect_exit 1 kcarry -C ws resolve --abort wq old
expect_stderr <<'EOT'
error: no resolution of wq@v1 on old is pending
EOT
expect_exit 0 kcarry -C ws resolve wq old 3
exit 0
