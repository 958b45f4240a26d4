#!/bin/sh
# kcarry report merge keeps each adapted hunk's "adaptation" object (rule,
# original, adapted, note): a shard read back and merged gives the JSON
# of one check run, with the proposal a person must read still in it.
# The series is t070's (adapt-lib.sh's drift_fixture): a one-line fix
# whose context drifted (rule 4).
here=$(pwd)
. ./lib.sh
. "$here/adapt-lib.sh"

drift_fixture

expect_exit 1 kcarry -C ws check --format json -o full.json
expect_exit 1 kcarry -C ws check --shard 1/1 --format json -o s1.json
# the merge fails on a proposal no one accepted, as check does
expect_exit 1 kcarry -C ws report merge --format json -o merged.json s1.json
expect_exit 0 kcarry -C ws report merge --accept-adapted -o /dev/null s1.json
python3 - full.json s1.json merged.json <<'PY' || fail "merge lost or changed the adaptation"
import json, sys
def hunks(d):
    return [h for c in d["cells"] for p in (c.get("patches") or [])
            for f in p["files"] for h in f["hunks"]]
def find_hunks(o, out):
    if isinstance(o, dict):
        if "adaptation" in o:
            out.append(o)
        for v in o.values():
            find_hunks(v, out)
    elif isinstance(o, list):
        for v in o:
            find_hunks(v, out)
    return out
full, shard, merged = (json.load(open(p)) for p in sys.argv[1:4])
hs = [find_hunks(d, []) for d in (full, shard, merged)]
assert len(hs[0]) == 1, hs[0]
a = hs[0][0]["adaptation"]
assert a and a["rule"] == "drifted-context", a
assert "+\tret = step_two(c, FLAG_X);\n" in a["adapted"], a
assert a["note"].startswith("context taken from the target"), a
for name, h in zip(("shard", "merged"), hs[1:]):
    assert len(h) == 1, (name, h)
    assert h[0]["adaptation"] == a, (name, h[0]["adaptation"], a)
    assert h[0] == hs[0][0], (name, h[0], hs[0][0])
def strip(o):
    if isinstance(o, dict):
        return {k: strip(v) for k, v in o.items()
                if k not in ("seconds", "base_cached")}
    if isinstance(o, list):
        return [strip(v) for v in o]
    return o
sf, sm = strip(full), strip(merged)
sf.pop("shard", None); sm.pop("shard", None)
assert sf == sm, "merged JSON differs from one run"
PY
python3 - "$KCARRY_FIXTURES/../../docs/kcarry-check.schema.json" merged.json <<'PY' || fail "merged report does not match the schema"
import json, sys
try:
    import jsonschema
except ImportError:
    sys.exit(0)
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))
PY
# the text report of the merge names the rule as one run does
expect_exit 1 kcarry -C ws check -o full.txt
expect_exit 1 kcarry -C ws report merge -o merged.txt s1.json
diff -u full.txt merged.txt || fail "merged text differs from one run"
exit 0
