#!/bin/sh
# A hunk-level 3-way merge that lands where GNU patch would not is a
# risk, never a plain 3-way success.  Found by bench/port-accuracy on
# Debian's 5.10 -> 6.1 port of a patch to a table of devices: the patch
# adds '#endif' after the entry with .tun/.set and before entry B; in the
# target those fields moved into B itself and an entry C follows.  Fuzz 2
# keeps only '},' and '{' (kcarry does not fuzz down to punctuation), so
# kcarry merges at hunk level; the merge aligns the hunk's tail with B's
# and puts '#endif' before C, while GNU patch -F2 (as quilt) puts it
# before B, which is Debian's own answer.  Either may be right; a person
# must look: exit 1, the reason names GNU patch's line as GNU patch
# reports it (where the hunk's first line lands, 3).
. ./lib.sh

UP='static struct d t[] = {
	{
		.id = A,
		.x = 1,
		.tun = 1,
		.set = 1,
	},
	{
		.id = B,
		.x = 1,
	},
};
'
TGT='static struct d t[] = {
	{
		.id = A,
		.x = 1,
	},
	{
		.id = B,
		.x = 1,
		.tun = 1,
		.set = 1,
	},
	{
		.id = C,
		.x = 1,
	},
};
'
make_repo up drivers/t.c "$UP"
commit_file up drivers/t.c "$(printf '%s' "$UP" | sed '7a#endif')
" "t: end the block after the tunnel entry"
# the target: no history shared with upstream, so no preimage blob
make_repo tgt drivers/t.c "$TGT"
git -C up format-patch -q -o "$TEST_TMP/fp" base..HEAD || fail format-patch
fp=$(ls "$TEST_TMP"/fp/*.patch)

# the peer: GNU patch -F2 places it before B
cp -r tgt peer && (cd peer && patch -s -p1 -F2 <"$fp") ||
	fail "GNU patch -F2 refuses the patch"
[ "$(grep -n '#endif' peer/drivers/t.c | cut -d: -f1)" = 6 ] ||
	{ cat peer/drivers/t.c; fail "GNU patch put #endif elsewhere"; }

kcarry init ws >/dev/null
cat >ws/kernels/tgt.conf <<EOT
[kernel]
	url = $TEST_TMP/tgt
	ref = base
EOT
expect_exit 0 kcarry -C ws import t --git up base..HEAD
expect_exit 1 kcarry -C ws apply t tgt
stdout_has 'risk'
stdout_has 'GNU patch places it otherwise: at line 3 with fuzz 2'
expect_exit 1 kcarry -C ws apply --json t tgt
python3 - "$OUT" <<'EOT' || fail "JSON: not a risk"
import json, sys
d = json.load(open(sys.argv[1]))
hunks = [h for c in d["results"] for p in c["patches"] for f in p["files"]
         for h in f["hunks"]]
assert len(hunks) == 1, hunks
assert hunks[0]["risk"] is True, hunks[0]
EOT
