#!/bin/sh
# kcarry export --format git: a branch whose commits say where they come
# from.  The real git decides: git log shows the trailers (the patch's
# own, "(cherry picked from commit X)", the backporter's note and
# sign-off) and the tree equals the kcarry branch, in the target's
# repository and, with --git-dir, in another one.
. ./export-lib.sh
. ./lib.sh

export_setup
expect_exit 0 kcarry -C ws apply wq 6.1

expect_exit 0 kcarry -C ws export wq 6.1 --format git --signoff
expect_stdout <<EOT
exported wq@v1 on 6.1 as git: 2 patches ($TEST_TMP/tgt)
  kcarry-export/wq/v1/6.1
EOT
expect_stderr </dev/null
b=kcarry-export/wq/v1/6.1
[ "$(git -C tgt rev-parse $b^{tree})" = "$(git -C tgt rev-parse kcarry/wq/v1/6.1^{tree})" ] ||
	fail "tree differs from the kcarry branch"
[ "$(git -C tgt rev-parse $b~2)" = "$(git -C tgt rev-parse v6.1.170)" ] ||
	fail "not two commits on v6.1.170"
git -C tgt log -1 --format='%an <%ae> %ad%n%cn <%ce> %cd%n%(trailers)' $b >"$TEST_TMP/got"
cat >"$TEST_TMP/want" <<EOT
A U Thor <author@example.org> Thu Nov 7 10:00:00 2013 +0800
C O Mitter <committer@example.org> Wed Nov 6 02:09:00 2024 +0000
Link: https://lore.kernel.org/r/20241106-offset-1-author@example.org
Signed-off-by: A U Thor <author@example.org>
(cherry picked from commit $UP2)
[ C O Mitter: backported to 6.1.y: fs/btrfs/async-thread.c: hunk 1
  offset +5 lines ]
Signed-off-by: C O Mitter <committer@example.org>

EOT
diff -u "$TEST_TMP/want" "$TEST_TMP/got" || fail "git log of the offset fix"
git -C tgt log -1 --format='%(trailers:key=Signed-off-by,valueonly)' $b~1 >"$TEST_TMP/got"
printf 'A U Thor <author@example.org>\nC O Mitter <committer@example.org>\n\n' >"$TEST_TMP/want"
diff -u "$TEST_TMP/want" "$TEST_TMP/got" || fail "sign-offs of the exact fix"
git -C tgt log -1 --format=%B $b~1 | grep -qx "(cherry picked from commit $UP1)" ||
	fail "cherry-pick line of the exact fix"

# again: the branch is kcarry's, it moves
expect_exit 0 kcarry -C ws export wq 6.1 --format git --signoff
# a branch of the user's is not moved
git -C tgt branch mine v6.1.170
expect_exit 2 kcarry -C ws export wq 6.1 --format git --branch mine
expect_stderr <<'EOT'
error: branch 'mine' exists; kcarry export moves only its own (kcarry-export/...)
hint: delete it first, or name another --branch
EOT
[ "$(git -C tgt rev-parse mine)" = "$(git -C tgt rev-parse v6.1.170)" ] || fail "moved mine"
expect_exit 0 kcarry -C ws export wq 6.1 --format git --branch for-stable
[ "$(git -C tgt rev-parse for-stable^{tree})" = "$(git -C tgt rev-parse kcarry/wq/v1/6.1^{tree})" ] ||
	fail "--branch tree"

# --git-dir: into another repository, on its own commit with that tree
git init -q --bare other.git
git -C tgt push -q "$TEST_TMP/other.git" v6.1.170 || fail "push"
expect_exit 0 kcarry -C ws export wq 6.1 --format git --git-dir other.git --onto v6.1.170 --signoff
expect_stdout <<'EOT'
exported wq@v1 on 6.1 as git: 2 patches (other.git)
  kcarry-export/wq/v1/6.1
EOT
[ "$(git -C other.git rev-parse $b^{tree})" = "$(git -C tgt rev-parse kcarry/wq/v1/6.1^{tree})" ] ||
	fail "--git-dir tree"
git -C other.git fsck --strict --no-progress >"$TEST_TMP/fsck" 2>&1 ||
	{ cat "$TEST_TMP/fsck"; fail "git fsck of the other repository"; }
# a commit whose file differs is no base for it: refused
git clone -q other.git ow && git -C ow checkout -q v6.1.170
sed -i 's/w_line_9();/w_line_9_other();/' ow/fs/btrfs/async-thread.c
git -C ow commit -qam "other change" && git -C ow push -q origin HEAD:refs/heads/changed
expect_exit 1 kcarry -C ws export wq 6.1 --format git --git-dir other.git --onto changed --branch x
expect_stderr <<'EOT'
error: 0001-btrfs-exact-fix.patch: 'fs/btrfs/async-thread.c' differs between the target's tree and changed
hint: --onto must name a commit with the target's tree for the files the series touches
EOT
git -C other.git rev-parse -q --verify refs/heads/x >/dev/null && fail "branch written"

# the kcarry branch holds something else (other options, an edit): what
# would be exported is not what the branch holds, so nothing is
git -C tgt update-ref refs/heads/kcarry/wq/v1/6.1 v6.1.170
expect_exit 1 kcarry -C ws export wq 6.1 --format git --branch y
expect_stderr <<'EOT'
error: kcarry/wq/v1/6.1 does not hold wq@v1 as it carries onto 6.1 now
hint: run 'kcarry apply wq@v1 6.1' with the --fuzz, --no-3way and --strict you give export, then export again
EOT
git -C tgt rev-parse -q --verify refs/heads/y >/dev/null && fail "branch y written"
expect_exit 0 kcarry -C ws apply wq 6.1

# --allow-partial: the branch ends in a commit that names what is missing
expect_exit 0 kcarry -C ws export wq4 6.1 --format git --allow-partial
git -C tgt log -1 --format=%B kcarry-export/wq4/v1/6.1 >"$TEST_TMP/got"
cat >"$TEST_TMP/want" <<'EOT'
kcarry: wq4@v1 on 6.1 is not complete

Not in this backport:
  0003-btrfs-conflicting-fix.patch: conflict in 6.1
  0004-btrfs-already-upstream.patch: already applied in 6.1

EOT
diff -u "$TEST_TMP/want" "$TEST_TMP/got" || fail "missing patches"
[ "$(git -C tgt rev-parse kcarry-export/wq4/v1/6.1^{tree})" = "$(git -C tgt rev-parse kcarry/wq4/v1/6.1^{tree})" ] ||
	fail "partial tree"

# --branch takes a valid local branch name only (git check-ref-format
# --branch; "@" there names the current branch), never HEAD, an option
# or another kind of ref
for b in HEAD -x refs/remotes/origin/x refs/tags/v1 'a..b' 'a b' 'x.lock' '@'; do
	expect_exit 2 kcarry -C ws export wq 6.1 --format git --branch "$b"
	stderr_has "^error: --branch '$b' is no valid local branch name\$"
	git check-ref-format --branch "$b" >/dev/null 2>&1 && case $b in refs/* | @) ;; *)
		fail "git takes '$b'" ;; esac
done
git -C tgt rev-parse -q --verify refs/remotes/origin/x >/dev/null && fail "wrote a remote ref"
expect_exit 0 kcarry -C ws export wq 6.1 --format git --branch refs/heads/full-name
git -C tgt rev-parse -q --verify refs/heads/full-name >/dev/null || fail "refs/heads/ name"
exit 0
