#!/bin/sh
# Adaptation, rule 6 (a missing prerequisite): patch 0002 of a series
# applies but uses three names the target lacks, each brought by something
# else: demo_reset() by 0001 of the same series, which failed; the member
# generation by the series gen of the workspace; DEMO_F_QUIET by a commit
# of the target's kernel.history.  The cause proposes each prerequisite,
# naming the patch or commit, in its text and in JSON (prerequisites,
# schema-valid); nothing is applied: the branch holds neither the member
# nor the macro, and the exit status is 1.
here=$(pwd)
. ./lib.sh
. "$here/prereq-lib.sh"
prereq_repos

kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/tgt\n\tref = base\n\thistory = ../hist\n' "$TEST_TMP" >ws/kernels/old.conf
expect_exit 0 kcarry -C ws import feat --git up base..HEAD
expect_exit 0 kcarry -C ws import gen --git genup base..HEAD
quiet=$(git -C hist rev-parse --short=12 quiet)

expect_exit 1 kcarry -C ws apply --no-refresh feat old
expect_stdout <<EOT
feat@v1 on old (kcarry/feat/v1/old)
  0001 conflict          demo: add demo_reset()
         drivers/demo/demo.h hunk 1: conflict: context does not match near line 9
  0002 clean             [risk] demo: reset on stop
         drivers/demo/core.c hunk 1: exact at line 10 RISK: demo_reset(): no such function in this tree (added by 0001 of this series, which did not apply); generation: no such member in this tree (added by gen@v1 0001); DEMO_F_QUIET: no such macro or constant in this tree (introduced upstream by $quiet "demo: add DEMO_F_QUIET")
           cause: demo_reset(): no such function in this tree (added by 0001 of this series, which did not apply); generation: no such member in this tree (added by gen@v1 0001); DEMO_F_QUIET: no such macro or constant in this tree (introduced upstream by $quiet "demo: add DEMO_F_QUIET"); prerequisites, not applied: 0001 of this series, gen@v1 0001, upstream commit $quiet; series.stacks-on = gen would bring it
  summary: 1 clean, 1 conflict, 1 placement risk
EOT
# proposed, never applied
git -C tgt show kcarry/feat/v1/old:drivers/demo/demo.h >got.h
grep -q 'generation\|DEMO_F_QUIET\|demo_reset' got.h && fail "a prerequisite was applied"

expect_exit 1 kcarry -C ws apply --no-refresh --json feat old
cp "$OUT" a.json
python3 - a.json "$KCARRY_FIXTURES/../../docs/kcarry-apply.schema.json" "$(git -C hist rev-parse quiet)" <<'PY' || fail "apply JSON"
import json, sys
d = json.load(open(sys.argv[1]))
try:
    import jsonschema
    jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).validate(d)
except ImportError:
    pass
c = d["results"][0]["patches"][1]["files"][0]["hunks"][0]["cause"]
pre = c["prerequisites"]
assert [(p["source"]["kind"], p["names"]) for p in pre] == [
    ("series", ["demo_reset"]), ("other", ["generation"]),
    ("upstream", ["DEMO_F_QUIET"])], pre
assert pre[0]["source"]["patch"] == 1, pre
assert pre[1]["source"]["series"] == "gen" and pre[1]["source"]["version"] == "v1", pre
assert pre[2]["source"]["commit"] == sys.argv[3], pre
assert all(p["also"] is None for p in pre), pre
assert all(n["also"] is None for n in c["names"]), c["names"]
PY

# check: the same in its JSON (schema-valid), and report merge keeps it
expect_exit 1 kcarry -C ws check --no-refresh --format json -o c.json feat old
python3 - c.json "$KCARRY_FIXTURES/../../docs/kcarry-check.schema.json" <<'PY' || fail "check JSON"
import json, sys
d = json.load(open(sys.argv[1]))
try:
    import jsonschema
    jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).validate(d)
except ImportError:
    pass
c = d["cells"][0]["patches"][1]["files"][0]["hunks"][0]["cause"]
assert len(c["prerequisites"]) == 3, c
PY
expect_exit 1 kcarry -C ws report merge --format json -o m.json c.json
python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["cells"][0]["patches"][1]["files"][0]["hunks"][0]["cause"]
assert [p["names"] for p in c["prerequisites"]] == [["demo_reset"], ["generation"], ["DEMO_F_QUIET"]], c
' m.json || fail "report merge lost the prerequisites"
exit 0
