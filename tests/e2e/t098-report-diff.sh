#!/bin/sh
# kcarry report diff BASE.json NEW.json and check --baseline: the same
# series checked on a target before and after the target moved on (as a
# stable release does).  Between the two: inode.c changed the line patch
# 2 converts (clean -> conflict, and an unconverted caller: regressions), the target took patch 4
# (newly upstreamed), raid56.c appeared so patch 3 applies (conflict ->
# clean: a fix), zoned.c brought a new unconverted caller (a regression).  git
# apply --check on both trees is the independent judge of each patch.
# check --baseline exits 1 only on regressions; markdown, email and html
# lead with them; a baseline that does not read stops the check.
here=$(pwd)
. ./lib.sh
. "$here/wq-lib.sh"
wq_upstream
commit_file up fs/btrfs/ctree.c '/* ctree */
int ctree;
' "btrfs: add ctree.c"

# tgt, tag v1: no raid56.c (patch 3 conflicts), scrub.c never converted
make_repo tgt fs/btrfs/async-thread.h "$H" fs/btrfs/async-thread.c "$C" \
	fs/btrfs/disk-io.c "$(caller disk-io end_workqueue end_io)
" fs/btrfs/inode.c "$(caller inode submit_compressed compress_fn)
" fs/btrfs/scrub.c "$(caller scrub scrub_start scrub_fn)
"
git -C tgt tag v1
kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/tgt\n\tref = v1\n' "$TEST_TMP" >ws/kernels/tgt.conf
expect_exit 0 kcarry -C ws import wq --git up base..HEAD
git -C up format-patch -q -o "$TEST_TMP/fp" base..HEAD || fail format-patch

# peer: which patch applies on a tree (git apply, each on its own)
peer() { # TREE-REF
	rm -rf "$TEST_TMP/peer" && git -C tgt worktree add -q --detach "$TEST_TMP/peer" "$1" || fail worktree
	for p in "$TEST_TMP"/fp/*.patch; do
		if git -C "$TEST_TMP/peer" apply --check "$p" 2>/dev/null; then echo applies
		elif git -C "$TEST_TMP/peer" apply --check -R "$p" 2>/dev/null; then echo upstream
		else echo fails; fi
	done | tr '\n' ' '
	git -C tgt worktree remove --force "$TEST_TMP/peer"
}
[ "$(peer v1)" = "applies applies fails applies " ] || fail "peer on v1: $(peer v1)"

expect_exit 1 kcarry -C ws check --format json -o base.json

# v2: the target moves on (inode.c's call takes a fifth argument: a
# change of the call alone would be adapted by the series' conversion)
sed -i 's/compress_fn, NULL, NULL);/compress_fn, NULL, NULL, 0);/' tgt/fs/btrfs/inode.c
printf '/* ctree */\nint ctree;\n' >tgt/fs/btrfs/ctree.c
printf '%s\n' "$(caller raid56 rmw_work rmw_fn)" >tgt/fs/btrfs/raid56.c
printf '%s\n' "$(caller zoned zone_start zone_fn)" >tgt/fs/btrfs/zoned.c
git -C tgt add -A && git -C tgt commit -qm "stable: v2" && git -C tgt tag v2 || fail v2
[ "$(peer v2)" = "applies fails applies upstream " ] || fail "peer on v2: $(peer v2)"
printf '[kernel]\n\turl = %s/tgt\n\tref = v2\n' "$TEST_TMP" >ws/kernels/tgt.conf
expect_exit 1 kcarry -C ws check --format json -o new.json

expect_exit 1 kcarry -C ws report diff base.json new.json
expect_stdout <<'EOT'
regressions: 3
  wq@v1 on tgt: 0002 btrfs: convert inode.c to the new btrfs_init_work: clean -> conflict
  wq@v1 on tgt: new unconverted caller fs/btrfs/inode.c:11 submit_compressed() btrfs_init_work
  wq@v1 on tgt: new unconverted caller fs/btrfs/zoned.c:11 zone_start() btrfs_init_work
fixes: 1
  wq@v1 on tgt: 0003 btrfs: convert raid56.c to the new btrfs_init_work: conflict -> clean
newly upstreamed: 1
  wq@v1 on tgt: 0004 btrfs: add ctree.c: clean -> already-applied
EOT
# the reverse: what regressed is fixed, and the other way round
expect_exit 1 kcarry -C ws report diff new.json base.json
stdout_has '^  wq@v1 on tgt: 0002 btrfs: convert inode.c to the new btrfs_init_work: conflict -> clean$'
stdout_has '^  wq@v1 on tgt: 0003 btrfs: convert raid56.c to the new btrfs_init_work: clean -> conflict$'
# a report against itself: nothing changed, exit 0 although it conflicts
expect_exit 0 kcarry -C ws report diff new.json new.json
expect_stdout <<'EOT'
regressions: 0
fixes: 0
newly upstreamed: 0
EOT
expect_exit 0 kcarry -C ws report diff --format json new.json new.json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema"]=="kcarry-report-diff/1" and d["regressions"]==[]' "$OUT" ||
	fail "json diff"

# check --baseline: exit 1 only on regressions
expect_exit 1 kcarry -C ws check --baseline base.json
stdout_has '^regressions: 3$'
expect_exit 0 kcarry -C ws check --baseline new.json
stdout_has '^regressions: 0$'
stdout_has 'conflict'
# markdown and html lead with the regressions
expect_exit 1 kcarry -C ws check --baseline base.json --format markdown
head -1 "$OUT" | grep -q '^### Against the baseline: regressions (3)$' || { head -3 "$OUT"; fail "markdown does not lead with regressions"; }
# the mbox opens with one message of the differences, then the failures
expect_exit 1 kcarry -C ws check --baseline base.json --format email
head -3 "$OUT" | grep -q '^Subject: kcarry: 3 regressions against the baseline$' || { head -5 "$OUT"; fail "email does not lead with regressions"; }
[ "$(grep -c '^From kcarry ' "$OUT")" = 2 ] || fail "email: the diff and one failure"
if command -v git >/dev/null; then
	mkdir mails && git mailsplit -omails "$OUT" >/dev/null || fail "git mailsplit"
	grep -q '^  wq@v1 on tgt: new unconverted caller fs/btrfs/zoned.c:11' mails/0001 || fail "mailsplit: first message"
fi
expect_exit 1 kcarry -C ws check --baseline base.json --format html -o d.html
python3 - d.html <<'PY' || fail "html does not lead with regressions"
import sys
page = open(sys.argv[1]).read()
r = page.index('id="regressions"')
assert r < page.index('class="series"'), "regressions after the matrix"
assert "new unconverted caller fs/btrfs/zoned.c:11" in page[r:page.index('id="fixes"')]
PY
expect_exit 1 kcarry -C ws report diff --format html -o d2.html base.json new.json
grep -q 'id="regressions"' d2.html || fail "report diff --format html"
# v3: the API change itself conflicts, so the result has no changed
# btrfs_init_work and no unconverted caller: scrub.c is not fixed by that
git -C tgt checkout -q v1 2>/dev/null || fail checkout
sed -i 's/\(work->ordered_free = ordered_free;\)/\1 \/* v3 *\//' tgt/fs/btrfs/async-thread.c
git -C tgt commit -qam "stable: v3" && git -C tgt tag v3 || fail v3
printf '[kernel]\n\turl = %s/tgt\n\tref = v3\n' "$TEST_TMP" >ws/kernels/tgt.conf
expect_exit 1 kcarry -C ws check --format json -o v3.json
expect_exit 1 kcarry -C ws report diff base.json v3.json
expect_stdout <<'EOT'
regressions: 1
  wq@v1 on tgt: 0001 btrfs: drop ordered_free from btrfs_init_work: clean -> conflict
fixes: 0
newly upstreamed: 0
EOT

# a baseline that does not read: the check does not run
echo '{"schema":"other"}' >bad.json
expect_exit 2 kcarry -C ws check --baseline bad.json
stderr_has "bad.json: not a kcarry-check/1 report"
expect_exit 2 kcarry -C ws report diff base.json
exit 0
