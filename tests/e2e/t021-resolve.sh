#!/bin/sh
# resolve / refresh: a conflicting patch goes to a scratch folder with
# diff3 markers and .rej; refresh refuses leftover markers, records the
# person's resolution, carries the rest, and replays the resolution on a
# re-apply and on another target with the same tree.
. ./lib.sh
need quilt
four_patch_series
kcarry init ws >/dev/null
for t in old twin; do
	cat >ws/kernels/$t.conf <<EOT
[kernel]
	url = $TEST_TMP/tgt
	ref = base
EOT
done
expect_exit 0 kcarry -C ws import wq --git up base..HEAD
expect_exit 1 kcarry -C ws apply wq old
stdout_has "^  0003 conflict"

expect_exit 0 kcarry -C ws resolve wq old 3
expect_stdout <<'EOT'
0003-btrfs-conflicting-fix.patch (btrfs: conflicting fix) conflicts on old.
Edit these files (diff3 markers; rejected hunks in .rej):
  .kcarry/resolve/wq/v1/old/files/fs/btrfs/async-thread.c
then run: kcarry refresh wq@v1 old
EOT
f=ws/.kcarry/resolve/wq/v1/old/files/fs/btrfs/async-thread.c
grep -q '^<<<<<<< ' "$f" || fail "no conflict markers"
grep -q '^||||||| ' "$f" || fail "not diff3 style"
[ -f "$f.rej" ] || fail "no .rej"
grep -q '^+	w_line_51_changed();' "$f.rej" || fail ".rej lacks the hunk"
# the files before the conflicting patch are there: 0001 and 0002 applied
grep -q 'offset_fix();' "$f" || fail "earlier patches missing"
# nothing outside the workspace changed
[ -z "$(git -C tgt status --porcelain | grep -v '^ M fs/btrfs/async-thread.c')" ] || fail "target touched"

expect_exit 1 kcarry -C ws refresh wq old
stderr_has "^error: .*files/fs/btrfs/async-thread.c:[0-9]+: conflict markers remain"

# the state file makes the folder a pending resolution, and only a whole
# one: a folder whose state was removed (kill -9 while refresh removed the
# folder, state first) or never renamed in (state.new) records nothing,
# even with a file missing, which would otherwise read as its deletion
s=ws/.kcarry/resolve/wq/v1/old
[ -f $s/state ] && [ ! -e $s/state.new ] || fail "resolve left no whole state"
cp -r $s "$TEST_TMP/scratch.keep"
mv $s/state $s/state.new
rm "$f"
expect_exit 1 kcarry -C ws refresh wq old
stdout_has "^  0003 conflict"
! grep -q "recorded the resolution" "$ERR" || fail "a half scratch folder was recorded"
[ -z "$(ls ws/patches/wq/.resolutions 2>/dev/null)" ] || fail "a resolution was written from a half folder"
rm -rf $s && cp -r "$TEST_TMP/scratch.keep" $s

# the person resolves: the target's line, renamed as the patch wants
git -C tgt show base:fs/btrfs/async-thread.c |
	sed 's/^	w_line_10();/	w_line_10();\n	exact_fix();/; s/w_line_51_target()/w_line_51_resolved()/' >"$f.tmp"
awk '{print} /w_line_40\(\);/{print "\toffset_fix();"}' "$f.tmp" >"$f"
rm -f "$f.tmp"
expect_exit 0 kcarry -C ws refresh wq old
expect_stdout <<'EOT'
wq@v1 on old (kcarry/wq/v1/old)
  0001 clean             btrfs: exact fix
  0002 offset            btrfs: offset fix (1 hunk +5)
  0003 clean             [resolved] btrfs: conflicting fix
  0004 already applied   btrfs: already upstream
         fs/btrfs/async-thread.c hunk 1: already-applied at line 65 (offset +5)
  summary: 2 clean, 1 offset, 1 already applied
refreshed series: patches/wq/v1/old/
EOT
stderr_has "^recorded the resolution of 0003-btrfs-conflicting-fix.patch"
[ ! -d ws/.kcarry/resolve/wq/v1/old ] || fail "scratch folder left behind"
[ "$(git -C tgt rev-list --count base..kcarry/wq/v1/old)" = 3 ] || fail "3 commits expected"
git -C tgt show kcarry/wq/v1/old:fs/btrfs/async-thread.c | grep -q w_line_51_resolved ||
	fail "resolution not on the branch"
[ "$(git -C tgt log -1 --format='%an|%s' kcarry/wq/v1/old)" = "A U Thor|btrfs: conflicting fix" ] ||
	fail "author/subject of the resolved patch"

# the refreshed series passes quilt push -a and gives the branch's tree
git clone -q tgt qt && git -C qt checkout -q base
cp -r ws/patches/wq/v1/old qt/patches
(cd qt && quilt push -aq --fuzz=0 >/dev/null) || fail "quilt push -a"
git -C tgt show kcarry/wq/v1/old:fs/btrfs/async-thread.c | cmp -s - qt/fs/btrfs/async-thread.c ||
	fail "quilt result differs from the branch"

# replayed: on a re-apply and on another target with the same tree
expect_exit 0 kcarry -C ws apply wq old twin
stdout_has "^  0003 clean             \[resolved\] btrfs: conflicting fix"
[ "$(grep -c '\[resolved\]' "$OUT")" = 2 ] || fail "not replayed on both targets"

# errors
expect_exit 2 kcarry -C ws resolve wq old 9
stderr_has "^error: wq@v1 has no patch '9'"
expect_exit 0 kcarry -C ws resolve wq old 1
stdout_has "applies to old after the patches before it \(clean\): nothing to resolve"
