#!/bin/sh
# A series stacked on one whose cell errors on a target that opens fine:
# the stacked cell says it was not carried because its base did not run,
# and the other target of the same run carries both, the stacked one on
# top of its base.  The base errors as it does for anyone whose target is
# a blobless partial clone (git clone --filter=blob:none): the commits and
# trees are there, so the target opens, but libgit2 cannot fetch the
# missing blob the patch needs.
. ./lib.sh
need python3

make_repo up lib/a.c "$(c_lines 20 a)
"
commit_file up lib/a.c "$(c_lines 20 a | sed 's/a_line_8();/a_line_8_base();/')
" "a: the base change"
git -C up tag b1
# the stacked patch changes the base's line: it applies only on its head
commit_file up lib/a.c "$(c_lines 20 a | sed 's/a_line_8();/a_line_8_top();/')
" "a: the stacked change"

# the full target: three lines more above, so both land at an offset
make_repo full lib/a.c "	extra_1();
	extra_2();
	extra_3();
$(c_lines 20 a)
"
git -C full config uploadpack.allowfilter true
git clone -q --bare --filter=blob:none "file://$TEST_TMP/full" blobless ||
	fail "git clone --filter=blob:none"
blob=$(git -C full rev-parse base:lib/a.c)
# (cat-file would fetch it from the promisor remote; rev-list does not)
[ "$(git -C blobless rev-list --objects --missing=print base | grep '^?')" = "?$blob" ] ||
	fail "the partial clone is not missing exactly the blob"

kcarry init ws >/dev/null
for t in blobless full; do
	printf '[kernel]\n\turl = %s/%s\n\tref = base\n' "$TEST_TMP" $t \
		>ws/kernels/$t.conf
done
printf '[series]\n\tstacks-on = base\n' >ws/series/top.conf
expect_exit 0 kcarry -C ws import base --git up base..b1
expect_exit 0 kcarry -C ws import top --git up b1..HEAD

# one target at a time, the failing one first: the next one goes on
expect_exit 1 kcarry -C ws -q check -j 1 top blobless full
expect_stdout <<EOT
base@v1
                                                         blobless full    
0001 a: the base change                                  ?        o       

top@v1 (on top of base)
                                                         blobless full    
0001 a: the stacked change                               ?        o       

legend: . clean  o offset  ~ fuzz  3 3-way  = already applied  p partial
        a adapted  X conflict  - not tried  ? did not run  ! placement risk
        w touches a watched file or a caller of its API

summary (worst first):
  base@v1 on blobless: did not run: 0001-a-the-base-change.patch: cannot read 'lib/a.c': object not found - no match for id ($blob); '$TEST_TMP/blobless' is a partial clone, whose missing objects kcarry cannot fetch: clone it in full
  top@v1 on blobless: did not run: not carried: 'base' it stacks on did not run
  base@v1 on full: 1 offset
  top@v1 on full: 1 offset
EOT
expect_stderr </dev/null
[ -z "$(git -C blobless for-each-ref refs/heads/kcarry)" ] ||
	fail "a branch on the target where nothing was carried"
[ "$(git -C full rev-parse kcarry/top/v1/full^)" = \
	"$(git -C full rev-parse kcarry/base/v1/full)" ] ||
	fail "top is not carried on the head of base"
git -C full show kcarry/top/v1/full:lib/a.c | grep -q '^	a_line_8_top();$' ||
	fail "top's change is not on its branch"

# the JSON says the same, in parallel too
expect_exit 1 kcarry -C ws -q check -j 2 --format json -o check.json top blobless full
expect_stderr </dev/null
python3 - check.json "$blob" "$TEST_TMP" <<'PY' || fail "the JSON report"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["targets"] == ["blobless", "full"], d["targets"]
assert [(s["name"], s["stacks_on"]) for s in d["series"]] == \
    [("base", None), ("top", "base")], d["series"]
c = {(x["series"], x["target"]): x for x in d["cells"]}
assert len(c) == 4, list(c)
b = c["base", "blobless"]
assert not b["ok"] and b["outcome"] is None, b
assert b["error"] == ("0001-a-the-base-change.patch: cannot read 'lib/a.c': "
                      "object not found - no match for id (%s); '%s/blobless' "
                      "is a partial clone, whose missing objects kcarry "
                      "cannot fetch: clone it in full"
                      % (sys.argv[2], sys.argv[3])), b["error"]
t = c["top", "blobless"]
assert not t["ok"] and t["outcome"] is None, t
assert t["error"] == "not carried: 'base' it stacks on did not run", t["error"]
assert t["patches"] == [] and t["branch"] is None and t["audit"] is None, t
for s in ("base", "top"):
    f = c[s, "full"]
    assert f["ok"] and f["error"] is None and f["outcome"] == "offset", f
    assert f["counts"]["offset"] == 1 and f["failed"] == 0, f
    assert f["branch"] == "refs/heads/kcarry/%s/v1/full" % s, f["branch"]
# stacked: carried from the head of the base's cell, not the target's base
assert c["top", "full"]["base"] == c["base", "full"]["head"], c["top", "full"]
assert c["base", "full"]["base"] != c["base", "full"]["head"]
PY
exit 0
