#!/bin/sh
# Already there in edited form: the stable tree carries the upstream fix
# with other lines around it (and its own comment, a call split over two
# lines), so neither the context nor a 3-way merge places it; every line
# the fix adds stands in the function the hunk names, the line it removes
# is gone: already applied (edited), with where each added line stands,
# nothing committed, exit 0; GNU patch rejects both hunks.  JSON valid
# against the schema.
here=$(pwd)
. ./lib.sh
. "$here/already-lib.sh"
already_setup "$STABLE_OPEN_FIXED" "$STABLE_CLOSE_FIXED"

expect_exit 0 kcarry -C ws apply fix stable
expect_stdout <<'EOT'
fix@v1 on stable (kcarry/fix/v1/stable)
  0001 already applied   [edited] btrfs: start demo in safe mode, free its buffer on close
         fs/btrfs/demo.c hunk 1: already-applied at line 10 (offset +4): its change stands in demo_open() in edited form, the added lines at 10, 12, 13
         fs/btrfs/demo.c hunk 2: already-applied at line 33 (offset +6): its change stands in demo_close() in edited form, the added lines at 33, 34, 35
  summary: 1 already applied
EOT
[ "$(git -C tgt rev-list --count base..kcarry/fix/v1/stable)" = 0 ] ||
	fail "a change already there was committed again"

# the peer: GNU patch finds neither hunk
if command -v patch >/dev/null 2>&1; then
	git -C up format-patch -q -1 --stdout >fix.patch
	(cd tgt && patch -p1 --dry-run -F2 <../fix.patch >../gnu.out 2>&1) &&
		fail "GNU patch applies the fix"
	[ "$(grep -c '^Hunk #.* FAILED' gnu.out)" = 2 ] || { cat gnu.out; fail "GNU patch"; }
fi

expect_exit 0 kcarry -C ws apply --json --no-refresh fix stable
cp "$OUT" apply.json
json_check apply.json '
p = d["results"][0]["patches"][0]
assert p["outcome"] == "already-applied" and p["edited"] is True, p
h = p["files"][0]["hunks"]
assert [x["rule"] for x in h] == ["already-applied"] * 2, h
assert h[0]["edited"] == {"lines": [10, 12, 13]}, h[0]
assert h[1]["edited"] == {"lines": [33, 34, 35]}, h[1]
assert not h[0]["risk"] and not h[1]["risk"]
'

# check's JSON has the same, and it survives 'kcarry report merge'
expect_exit 0 kcarry -C ws check -f json -o check.json
expect_exit 0 kcarry -C ws report merge -f json check.json
cp "$OUT" merged.json
for f in check.json merged.json; do
	python3 - "$f" "$KCARRY_FIXTURES/../../docs/kcarry-check.schema.json" <<'EOT' || fail "$f"
import json, sys
d = json.load(open(sys.argv[1]))
try:
    import jsonschema
    jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).validate(d)
except ImportError:
    pass
def hunks(o):
    if isinstance(o, dict):
        if "rule" in o and "fuzz" in o:
            yield o
        for v in o.values():
            yield from hunks(v)
    elif isinstance(o, list):
        for v in o:
            yield from hunks(v)
e = [h.get("edited") for h in hunks(d)]
assert e == [{"lines": [10, 12, 13]}, {"lines": [33, 34, 35]}], e
EOT
done
