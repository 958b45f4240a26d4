#!/bin/sh
# The hunk-level 3-way merge flags a landing outside the function the
# hunk header names, as exact, offset and fuzz placements do.  The patch
# changes a line of scan_inode(); the target (no history, so no preimage
# blob) renamed it scan_root() and drifted the context line beside the
# change, so neither offset nor fuzz 2 places the hunk (GNU patch rejects
# it) and the hunk is merged at hunk level inside scan_root().  That may
# be right (a rename) or wrong (another function with the same code): a
# risk naming both functions, exit 1, never a plain 3-way success.  The
# same drift inside scan_inode() itself stays a plain 3-way merge.
. ./lib.sh

# scan_c NAME DRIFTED: the file, its function called NAME, with the line
# before the walk_tree() call set to DRIFTED and that call's flag WALK
scan_c() {
	cat <<EOT
#include "fs.h"

static int helper(int x)
{
	return x + 1;
}

int $1(struct sb *sb)
{
	int err = 0;

	lock_sb(sb);
	err = read_super(sb);
	if (err)
		goto out;
	$2
	err = walk_tree(sb, ${3:-0});
	if (err)
		goto out;
	mark_clean(sb);
out:
	unlock_sb(sb);
	return err;
}

int other(void)
{
	return helper(2);
}
EOT
}

make_repo r fs/scan.c "$(scan_c scan_inode 'count_inodes(sb);')
"
git -C r checkout -q -b up
commit_file r fs/scan.c "$(scan_c scan_inode 'count_inodes(sb);' WALK_ALL)
" "fs: walk all"

# flat targets (no history, so no preimage blob to merge with)
flat() {
	mkdir "$1" && printf '%s\n' "$2" >"$1/scan.c.in" &&
		mkdir "$1/fs" && mv "$1/scan.c.in" "$1/fs/scan.c" &&
		git -C "$1" init -q && git -C "$1" add -A &&
		git -C "$1" commit -qm flat && git -C "$1" tag base ||
		fail "flat $1"
	printf '[kernel]\n\turl = %s/%s\n\tref = base\n' "$TEST_TMP" "$1" \
		>ws/kernels/"$1".conf
}
kcarry init ws >/dev/null
flat renamed "$(scan_c scan_root 'count_roots(sb);')"
flat same "$(scan_c scan_inode 'count_roots(sb);')"
expect_exit 0 kcarry -C ws import fix --git r base..up
grep -q '^@@ .* @@ int scan_inode(struct sb \*sb)$' ws/patches/fix/v1/0001-*.patch ||
	fail "the hunk header does not name scan_inode()"

# the peer: GNU patch (fuzz 2) cannot place the hunk in either target
if command -v patch >/dev/null 2>&1; then
	for t in renamed same; do
		(cd "$t" && patch -p1 -F2 --dry-run -s \
			<"$TEST_TMP"/ws/patches/fix/v1/0001-*.patch) \
			>/dev/null 2>&1 && fail "GNU patch places the hunk in $t"
	done
fi

# renamed: merged inside scan_root(), a risk that names both functions
expect_exit 1 kcarry -C ws apply --no-adapt fix renamed
stdout_has '^  0001 3-way +\[risk\] fs: walk all$'
stdout_has '^  summary: 1 3-way, 1 placement risk$'
stdout_has 'fs/scan.c hunk 1: 3-way-hunk at line 14 RISK: .*lands in scan_root\(\) at line 14, not in scan_inode\(\) named by the hunk header \(not found in the target\)'
git -C renamed show kcarry/fix/v1/renamed:fs/scan.c | grep -q 'walk_tree(sb, WALK_ALL);' ||
	fail "the hunk is not in the result"
# with adaptation the verdict is no quieter
expect_exit 1 kcarry -C ws apply fix renamed
stdout_has 'fs/scan.c hunk 1: .* RISK: .*lands in scan_root\(\) .*not in scan_inode\(\)'
# the JSON report: the hunk is a risk
expect_exit 1 kcarry -C ws apply --no-adapt --json fix renamed
python3 - "$OUT" <<'EOF' || fail "JSON report does not carry the risk"
import json, sys
res = json.load(open(sys.argv[1]))["results"][0]
assert res["risk"] is True, res
hunks = [h for p in res["patches"] for f in p["files"] for h in f["hunks"]]
assert len(hunks) == 1, hunks
h = hunks[0]
assert h["rule"] == "3-way-hunk" and h["risk"] is True, h
assert "scan_root()" in h["reason"] and "scan_inode()" in h["reason"], h
EOF

# same: the drift inside scan_inode() itself merges without a risk
expect_exit 0 kcarry -C ws apply --no-adapt fix same
stdout_has '^  0001 3-way +fs: walk all$'
stdout_has 'fs/scan.c hunk 1: 3-way-hunk at line 14: '
grep -q RISK "$OUT" && fail "a risk inside the named function"
git -C same show kcarry/fix/v1/same:fs/scan.c >got.c
scan_c scan_inode 'count_roots(sb);' WALK_ALL >want.c
cmp -s got.c want.c || fail "the merge inside scan_inode() differs"
exit 0
