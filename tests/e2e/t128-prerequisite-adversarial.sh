#!/bin/sh
# Adaptation, rule 6, where the obvious prerequisite is wrong: the member
# generation that patch 0002 uses is added by two series of the workspace,
# gen and gen2 (two candidate backports).  Naming the first one found as
# the prerequisite, or suggesting series.stacks-on = gen, would be a guess:
# the cause says both candidates and that which one is meant is not known,
# proposes none for that name (JSON: also set), and suggests no
# stacks-on.  Two versions of one series (gen v1 and v2) are one
# candidate, not two.  The other prerequisites are proposed as before.
here=$(pwd)
. ./lib.sh
. "$here/prereq-lib.sh"
prereq_repos
cp -r genup genup2
git -C genup2 commit -q --amend -m "demo: count generations (v2)" || fail amend
cp -r genup gen2up
git -C gen2up commit -q --amend -m "demo: track generations" || fail amend

kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/tgt\n\tref = base\n\thistory = ../hist\n' "$TEST_TMP" >ws/kernels/old.conf
expect_exit 0 kcarry -C ws import feat --git up base..HEAD
expect_exit 0 kcarry -C ws import gen --git genup base..HEAD
expect_exit 0 kcarry -C ws import gen@v2 --git genup2 base..HEAD
[ -d ws/patches/gen/v2 ] || fail "no second version of gen"

# one series, two versions: one candidate
expect_exit 1 kcarry -C ws apply --no-refresh feat old
stdout_has '\(added by gen@v1 0001\); .*prerequisites, not applied: 0001 of this series, gen@v1 0001, upstream commit [0-9a-f]{12}; series.stacks-on = gen would bring it$'

# a second series adds it too: two candidates
expect_exit 0 kcarry -C ws import gen2 --git gen2up base..HEAD
quiet=$(git -C hist rev-parse --short=12 quiet)
expect_exit 1 kcarry -C ws apply --no-refresh feat old
expect_stdout <<EOT
feat@v1 on old (kcarry/feat/v1/old)
  0001 conflict          demo: add demo_reset()
         drivers/demo/demo.h hunk 1: conflict: context does not match near line 9
  0002 clean             [risk] demo: reset on stop
         drivers/demo/core.c hunk 1: exact at line 10 RISK: demo_reset(): no such function in this tree (added by 0001 of this series, which did not apply); generation: no such member in this tree (added by gen@v1 0001 and by gen2@v1 0001: which one is meant is not known); DEMO_F_QUIET: no such macro or constant in this tree (introduced upstream by $quiet "demo: add DEMO_F_QUIET")
           cause: demo_reset(): no such function in this tree (added by 0001 of this series, which did not apply); generation: no such member in this tree (added by gen@v1 0001 and by gen2@v1 0001: which one is meant is not known); DEMO_F_QUIET: no such macro or constant in this tree (introduced upstream by $quiet "demo: add DEMO_F_QUIET"); prerequisites, not applied: 0001 of this series, upstream commit $quiet; prerequisite not known: generation is added by both gen@v1 0001 and gen2@v1 0001
  summary: 1 clean, 1 conflict, 1 placement risk
EOT

expect_exit 1 kcarry -C ws apply --no-refresh --json feat old
cp "$OUT" a.json
python3 - a.json "$KCARRY_FIXTURES/../../docs/kcarry-apply.schema.json" <<'PY' || fail "apply JSON"
import json, sys
d = json.load(open(sys.argv[1]))
try:
    import jsonschema
    jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).validate(d)
except ImportError:
    pass
c = d["results"][0]["patches"][1]["files"][0]["hunks"][0]["cause"]
assert c["stacks_on"] is None, c
amb = [p for p in c["prerequisites"] if p["also"] is not None]
assert len(amb) == 1 and amb[0]["names"] == ["generation"], c["prerequisites"]
assert {amb[0]["source"]["series"], amb[0]["also"]["series"]} == {"gen", "gen2"}, amb
n = [n for n in c["names"] if n["name"] == "generation"][0]
assert n["also"]["series"] == "gen2", n
PY
exit 0
