#!/bin/sh
# kcarry diff on real mailed series (../shared/corpus): the pairing the
# corpus README describes.  "add a shrinker for extent maps": v2 adds four
# patches in the middle (v1 09/11 becomes 13/15, 11/11 becomes 15/15); v3
# drops five (v2 01-03 and 11-12) and renumbers (the shrinker, rewritten,
# is 08/10).  "workqueue cleanups" v1 -> v2: the same two patches, changed.
. ./lib.sh
need_corpus
kcarry init ws >/dev/null
for v in 1 2 3; do
	expect_exit 0 kcarry -C ws import "shrink@v$v" \
		"$KCARRY_CORPUS/btrfs-add-a-shrinker-for-extent-maps.v$v.mbox"
done
for v in 1 2; do
	expect_exit 0 kcarry -C ws import "wq@v$v" "$KCARRY_CORPUS/btrfs-workqueue-cleanups.v$v.mbox"
done

# pairs as "old:new", "-:new" (new), "old:-" (dropped), "old~new" (rewritten)
pairs() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
out = []
for p in d["pairs"]:
    o = str(p["old"]["index"]) if p["old"] else "-"
    n = str(p["new"]["index"]) if p["new"] else "-"
    out.append(o + ("~" if p["status"] == "rewritten" else ":") + n)
print(" ".join(out))' "$1"
}

expect_exit 0 kcarry -C ws diff --json --stat -o v12.json shrink v1 v2
[ "$(pairs v12.json)" = "1:1 2:2 3:3 4:4 5:5 6:6 7:7 -:8 -:9 8:10 -:11 -:12 9:13 10:14 11:15" ] ||
	fail "shrink v1 -> v2: $(pairs v12.json)"
expect_exit 0 kcarry -C ws diff --json --stat -o v23.json shrink v2 v3
[ "$(pairs v23.json)" = "1:- 2:- 3:- 4:1 5:2 6:3 7:4 8:5 9:6 10:7 11:- 12:- 13~8 14:9 15:10" ] ||
	fail "shrink v2 -> v3: $(pairs v23.json)"
expect_exit 0 kcarry -C ws diff --stat shrink v2 v3
stdout_has '^13: ~  8: btrfs: add a shrinker for extent maps \(rewritten\) \(\+[0-9]+ -[0-9]+\)$'
stdout_has '^0 unchanged, 9 changed, 1 rewritten, 0 new, 5 dropped, 0 moved$'
# v1 -> v2: trailers gathered from the replies changed every message
expect_exit 0 kcarry -C ws diff --stat shrink v1 v2
stdout_has '^0 unchanged, 11 changed, 0 rewritten, 4 new, 0 dropped, 0 moved$'
expect_exit 0 kcarry -C ws diff --json --stat -o wq.json wq v1 v2
[ "$(pairs wq.json)" = "1:1 2:2" ] || fail "workqueue v1 -> v2: $(pairs wq.json)"
