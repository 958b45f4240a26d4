#!/bin/sh
# Adaptation, rule 2 (renamed function): the target has the function the
# hunk's header names under another name (found by body, as the cause
# "function" says), and the context around the change drifted, so the
# hunk conflicts.
#  - one.c: the changed line stands once in the file, in scan_root(), the
#    counterpart of scan_inode(): adapted into it, and the function's own
#    name in the added line renamed (scan_inode -> scan_root), in the
#    section too; git apply --check accepts the refreshed patch;
#  - two.c (adversarial): two functions of similar body both hold the
#    changed line: a conflict, neither touched.
. ./lib.sh

ONE_UP='static int scan_inode(struct ctx *c)
{
	int ret;

	ret = prepare(c);
	if (ret)
		return ret;
	ret = walk(c, 0);
	done(c);
	return ret;
}
'
ONE_TGT='static int scan_root(struct ctx *c)
{
	int ret;

	ret = prepare(c);
	if (ret)
		goto fail;
	ret = walk(c, 0);
	finish(c);
	return ret;
}
'
TWO_TGT="$ONE_TGT
$(printf '%s' "$ONE_TGT" | sed 's/scan_root/scan_root_locked/')
"
make_repo up d/one.c "$ONE_UP" d/two.c "$ONE_UP"
commit_file up d/one.c "$(printf '%s' "$ONE_UP" |
	sed 's/	ret = walk(c, 0);/	ret = walk_retry(c, scan_inode);/')
" "one: walk with retries"
commit_file up d/two.c "$(printf '%s' "$ONE_UP" |
	sed 's/	ret = walk(c, 0);/	ret = walk_retry(c, scan_inode);/')
" "two: walk with retries"
make_repo tgt d/one.c "$ONE_TGT" d/two.c "$TWO_TGT"

kcarry init ws >/dev/null
cat >ws/kernels/old.conf <<EOT
[kernel]
	name = old
	url = $TEST_TMP/tgt
	ref = base
EOT
expect_exit 0 kcarry -C ws import rn --git up base..HEAD
expect_exit 1 kcarry -C ws apply rn old
stdout_has '^  0001 adapted           one: walk with retries$'
stdout_has 'hunk 1: adapted at line 5: scan_inode\(\) is scan_root\(\) here \([0-9]+% of the hunk.s lines\)'
stdout_has 'adapted by rule renamed-function; not accepted yet'
stdout_has '^  0002 conflict          two: walk with retries$'

printf '%s' "$ONE_TGT" | sed 's/	ret = walk(c, 0);/	ret = walk_retry(c, scan_root);/' >want.c
git -C tgt show kcarry/rn/v1/old:d/one.c >got.c
diff -u want.c got.c || fail "renamed-function result"
git -C tgt show kcarry/rn/v1/old:d/two.c | diff - tgt/d/two.c >/dev/null ||
	fail "two.c changed"

rp=ws/patches/rn/v1/old/0001-one-walk-with-retries.patch
grep -q '^@@ .* @@ static int scan_root(struct ctx \*c)$' "$rp" ||
	{ cat "$rp"; fail "section not renamed"; }
grep -q '^\[ adapted: d/one.c hunk 1: scan_inode() is scan_root() here' "$rp" ||
	fail "no note in the refreshed patch"
git clone -q tgt chk && git -C chk checkout -q base
git -C chk apply --check "$TEST_TMP/$rp" || fail "git apply --check refuses it"

expect_exit 1 kcarry -C ws apply --json rn old
cp "$OUT" a.json
python3 - a.json "$KCARRY_FIXTURES/../../docs/kcarry-apply.schema.json" <<'EOT' || fail "apply JSON"
import json, sys
d = json.load(open(sys.argv[1]))
try:
    import jsonschema
    jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).validate(d)
except ImportError:
    pass
p = d["results"][0]["patches"]
a = p[0]["files"][0]["hunks"][0]["adaptation"]
assert a["rule"] == "renamed-function", a
assert "+\tret = walk_retry(c, scan_inode);" in a["original"]
assert "+\tret = walk_retry(c, scan_root);" in a["adapted"]
h = p[1]["files"][0]["hunks"][0]
assert h["rule"] == "conflict" and h["adaptation"] is None, h
EOT
exit 0
