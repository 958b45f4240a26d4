#!/bin/sh
# Adaptation, rule 4 (drifted context): a one-line fix whose context the
# target rewrote around it (locking helpers renamed, a label renamed), so
# that neither fuzz 2 nor a 3-way merge places it, while the line it
# changes stands exactly and once in the function its header names.
#  - the patch is "adapted", never clean: exit 1, until --accept-adapted;
#  - text -v and JSON show the rule, the original and the adapted hunk
#    (JSON valid against the schema); check's matrix has letter 'a' and
#    its JUnit a failure of type "adapted";
#  - the branch holds the change in foo() and nowhere else; the refreshed
#    patch carries the adapted hunk and a "[ adapted: ... ]" line in its
#    description, and applies with git apply --check to the target.
here=$(pwd)
. ./lib.sh
. "$here/adapt-lib.sh"

drift_fixture

# never clean: exit 1 until accepted
expect_exit 1 kcarry -C ws apply demo old
expect_stdout <<'EOT'
demo@v1 on old (kcarry/demo/v1/old)
  0001 adapted           demo: pass FLAG_X to step two
         drivers/demo/core.c hunk 1: adapted at line 13: context taken from the target: the lines it removes stand once in foo(), at line 16
           adapted by rule drifted-context; not accepted yet
  summary: 1 adapted
EOT

# the original hunk beside the adapted one
expect_exit 1 kcarry -C ws apply -v demo old
stdout_has '^           original hunk:$'
stdout_has '^           adapted hunk:$'
stdout_has '^              +goto out;$'
stdout_has '^              +goto fail;$'

expect_exit 0 kcarry -C ws apply --accept-adapted demo old

# the branch: the change in foo(), the target's own lines kept
printf '%s' "$TGT_C" | sed 's/step_two(c, 0)/step_two(c, FLAG_X)/' >"$TEST_TMP/want.c"
git -C tgt show kcarry/demo/v1/old:drivers/demo/core.c >"$TEST_TMP/got.c"
diff -u "$TEST_TMP/want.c" "$TEST_TMP/got.c" || fail "adapted result"
git -C tgt log -1 --format=%B kcarry/demo/v1/old |
	grep -qx '\[ adapted: drivers/demo/core.c hunk 1: context taken from the target: the lines it removes stand once in foo(), at line 16 \]' ||
	fail "no adapted note in the branch's commit"

# the refreshed patch: the adapted hunk, the note in its description,
# and git apply agrees it applies to the target
rp=ws/patches/demo/v1/old/0001-demo-pass-FLAG_X-to-step-two.patch
[ -f "$rp" ] || fail "no refreshed patch"
sed -n '/^Subject:/,/^---$/p' "$rp" | grep -q '^\[ adapted: drivers/demo/core.c hunk 1: ' ||
	fail "no note in the refreshed description"
grep -q '^ 	ret = step_one_locked(c);$' "$rp" || fail "context not the target's"
git clone -q tgt chk && git -C chk checkout -q base
git -C chk apply --check "$TEST_TMP/$rp" || fail "git apply --check refuses the adapted patch"
git -C chk apply "$TEST_TMP/$rp" && diff -u "$TEST_TMP/want.c" chk/drivers/demo/core.c ||
	fail "git apply of the refreshed patch differs"

# an export refuses a proposal no one accepted, and keeps the note in
# the description once a person did
expect_exit 1 kcarry -C ws export demo old --format quilt -o qd
stderr_has "^error: demo@v1 on old has adapted hunks no one accepted: 0001-"
stderr_has "then export with --accept-adapted"
[ ! -e qd ] || fail "a refused export wrote qd"
expect_exit 0 kcarry -C ws export demo old --format quilt -o qd --accept-adapted
grep -rq '^\[ adapted: drivers/demo/core.c hunk 1: ' qd ||
	{ find qd -type f | head; fail "the export lost the note"; }

# JSON: the adaptation object, valid against the schema
expect_exit 1 kcarry -C ws apply --json demo old
cp "$OUT" a.json
python3 - a.json "$KCARRY_FIXTURES/../../docs/kcarry-apply.schema.json" <<'EOT' || fail "apply JSON"
import json, sys
d = json.load(open(sys.argv[1]))
try:
    import jsonschema
    jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).validate(d)
except ImportError:
    pass
r = d["results"][0]
assert r["outcome"] == "adapted", r["outcome"]
assert r["counts"]["adapted"] == 1, r["counts"]
p = r["patches"][0]
assert p["outcome"] == "adapted" and p["committed"], p
h = p["files"][0]["hunks"][0]
assert h["rule"] == "adapted", h
a = h["adaptation"]
assert a["rule"] == "drifted-context", a
assert "\n \t\tgoto out;\n" in a["original"], a["original"]
assert "\n \t\tgoto fail;\n" in a["adapted"], a["adapted"]
assert "+\tret = step_two(c, FLAG_X);\n" in a["adapted"]
assert a["note"].startswith("context taken from the target"), a["note"]
EOT

# check: letter 'a', exit 1 unless accepted; JUnit says adapted
expect_exit 1 kcarry -C ws check
stdout_has '^ *0001 .*a'
stdout_has ' a adapted'
expect_exit 0 kcarry -C ws check --accept-adapted
expect_exit 1 kcarry -C ws check --format junit
stdout_has 'type="adapted"'
expect_exit 1 kcarry -C ws check --format json
cp "$OUT" c.json
python3 - c.json "$KCARRY_FIXTURES/../../docs/kcarry-check.schema.json" <<'EOT' || fail "check JSON"
import json, sys
d = json.load(open(sys.argv[1]))
try:
    import jsonschema
    jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).validate(d)
except ImportError:
    pass
assert '"drifted-context"' in open(sys.argv[1]).read()
EOT
exit 0
