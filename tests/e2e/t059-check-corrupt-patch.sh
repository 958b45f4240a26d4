#!/bin/sh
# One stored patch that does not parse spoils its own series only: check
# marks that series' cells as errors, with the parse error, carries the
# other series (and what does not stack on the broken one) as always,
# and exits 1, the status of a cell that could not run.  A series stacked
# on the broken one is not carried.
. ./lib.sh
need python3
four_patch_series
kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/tgt\n\tref = base\n' "$TEST_TMP" >ws/kernels/old.conf
expect_exit 0 kcarry -C ws import wq --git up base..HEAD
# good: the first patch alone, which applies cleanly
expect_exit 0 kcarry -C ws import good@v1 "$(ls ws/patches/wq/v1/0001-*.patch)"
expect_exit 0 kcarry -C ws import top@v1 "$(ls ws/patches/wq/v1/0001-*.patch)"
printf '[series]\n\tstacks-on = wq\n' >ws/series/top.conf

expect_exit 0 kcarry -C ws -q check good old
expect_exit 1 kcarry -C ws -q check wq old

# the second patch of wq: a hunk that claims more lines than it has
p=$(ls ws/patches/wq/v1/0002-*.patch)
python3 - "$p" <<'PY' || fail "corrupt"
import re, sys
t = open(sys.argv[1]).read()
t = re.sub(r"@@ -(\d+),(\d+) \+(\d+),(\d+) @@",
           lambda m: "@@ -%s,%d +%s,%d @@" % (m[1], int(m[2]) + 40, m[3], int(m[4]) + 40),
           t, count=1)
open(sys.argv[1], "w").write(t)
PY

expect_exit 1 kcarry -C ws -q check --format json -o c.json good wq top old
expect_stderr </dev/null
python3 - c.json <<'PY' || fail "the JSON report"
import json, sys
d = json.load(open(sys.argv[1]))
c = {x["series"]: x for x in d["cells"]}
assert sorted(c) == ["good", "top", "wq"], list(c)
assert c["good"]["ok"] and c["good"]["error"] is None, c["good"]
w = c["wq"]
assert not w["ok"] and w["outcome"] is None, w
assert "0002-" in w["error"] and "hunk" in w["error"], w["error"]
assert not c["top"]["ok"], c["top"]
assert c["top"]["error"] == "not carried: 'wq' it stacks on did not run", c["top"]
PY
expect_exit 1 kcarry -C ws -q check good wq old
stdout_has "^  wq@v1 on old: did not run: .*0002-.*hunk"
stdout_has "^  good@v1 on old: 1 clean$"
# every series, by default, too
expect_exit 1 kcarry -C ws -q check
stdout_has "^  good@v1 on old: 1 clean$"
exit 0
