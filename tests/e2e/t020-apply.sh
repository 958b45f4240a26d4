#!/bin/sh
# kcarry apply: exact, offset, already applied and conflicting patches on a
# throw-away target; one commit per applied patch on the kcarry branch,
# the user's checkout untouched; the refreshed series passes real
# quilt push -a and yields the branch's tree.
. ./lib.sh
need quilt

four_patch_series
git -C tgt checkout -q -b work
echo "uncommitted" >>tgt/fs/btrfs/async-thread.c

kcarry init ws >/dev/null
cat >ws/kernels/old.conf <<EOT
[kernel]
	name = old
	url = $TEST_TMP/tgt
	ref = base
EOT
expect_exit 0 kcarry -C ws import wq --git up base..HEAD

expect_exit 1 kcarry -C ws apply wq old
expect_stdout <<'EOT'
wq@v1 on old (kcarry/wq/v1/old)
  0001 clean             btrfs: exact fix
  0002 offset            btrfs: offset fix (1 hunk +5)
  0003 conflict          btrfs: conflicting fix
         fs/btrfs/async-thread.c hunk 1: conflict (offset +5): removed lines not found near line 50; 3-way merge with the hunk conflicts at lines 55-61
  0004 already applied   btrfs: already upstream
         fs/btrfs/async-thread.c hunk 1: already-applied at line 65 (offset +5)
         touches lines of failed patch 0003
  summary: 1 clean, 1 offset, 1 already applied, 1 conflict
EOT

# the user's branch and working tree are untouched
[ "$(git -C tgt symbolic-ref --short HEAD)" = work ] || fail "HEAD moved"
grep -q uncommitted tgt/fs/btrfs/async-thread.c || fail "worktree touched"
[ "$(git -C tgt rev-list --count base..kcarry/wq/v1/old)" = 2 ] || fail "commit count"
[ "$(git -C tgt log -1 --format='%an|%s' kcarry/wq/v1/old)" = "A U Thor|btrfs: offset fix" ] ||
	fail "author/subject not kept"
[ "$(git -C tgt log -1 --format=%ad --date=raw kcarry/wq/v1/old)" = "1383789600 +0800" ] ||
	fail "author date not kept"

# every object kcarry wrote is sound (ids match contents, trees valid)
git -C tgt fsck --strict --no-progress >"$TEST_TMP/fsck" 2>&1 ||
	{ cat "$TEST_TMP/fsck"; fail "git fsck"; }

# refreshed series: what applied, exactly, with a note
cat ws/patches/wq/v1/old/series >"$TEST_TMP/s"
cat >"$TEST_TMP/want" <<'EOT'
0001-btrfs-exact-fix.patch
0002-btrfs-offset-fix.patch
# 0003-btrfs-conflicting-fix.patch: conflict in old
# 0004-btrfs-already-upstream.patch: already applied in old
EOT
diff -u "$TEST_TMP/want" "$TEST_TMP/s" || fail "refreshed series file"
grep -q "^kcarry: refreshed for old:" ws/patches/wq/v1/old/0002-btrfs-offset-fix.patch ||
	fail "no refresh note"
git clone -q tgt qt && git -C qt checkout -q base
cp -r ws/patches/wq/v1/old qt/patches
(cd qt && quilt push -aq --fuzz=0 >/dev/null) || fail "quilt push -a of the refreshed series"
git -C tgt archive kcarry/wq/v1/old | tar -x -C "$TEST_TMP" --one-top-level=branch
diff -r qt/fs branch/fs || fail "quilt's tree differs from the kcarry branch"

# JSON: per patch and per hunk
expect_exit 1 kcarry -C ws apply --json wq old
python3 - "$OUT" <<'EOT' || fail "json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "kcarry-apply/1"
r = d["results"][0]
assert r["target"] == "old" and r["outcome"] == "conflict"
assert [p["outcome"] for p in r["patches"]] == ["clean", "offset", "conflict", "already-applied"]
h = r["patches"][1]["files"][0]["hunks"][0]
assert h["rule"] == "offset" and h["offset"] == 5 and h["line"] == 44, h
assert r["patches"][2]["committed"] is False
EOT

# --stop leaves the rest untried
expect_exit 1 kcarry -C ws apply --stop --no-refresh wq old
stdout_has "^  0004 not tried"
# unknown target
expect_exit 2 kcarry -C ws apply wq nosuch
stderr_has "^error: no target 'nosuch'"
