#!/bin/sh
# Partial means partial: the stable tree carries the first hunk of the fix
# in edited form and lacks the second.  The patch is partially applied:
# hunk 1 already there (edited, with where its lines stand), hunk 2 a
# conflict; the rejected hunks (check's JSON "rej") hold hunk 2 only; no
# edited mark on a patch that is not wholly there.
here=$(pwd)
. ./lib.sh
. "$here/already-lib.sh"
already_setup "$STABLE_OPEN_FIXED" "$STABLE_CLOSE_BEFORE"

expect_exit 1 kcarry -C ws apply fix stable
expect_stdout <<'EOT'
fix@v1 on stable (kcarry/fix/v1/stable)
  0001 partially applied btrfs: start demo in safe mode, free its buffer on close
         fs/btrfs/demo.c hunk 1: already-applied at line 10 (offset +4): its change stands in demo_open() in edited form, the added lines at 10, 12, 13
         fs/btrfs/demo.c hunk 2: conflict: context does not match near line 27
  summary: 1 partially applied
EOT
[ "$(git -C tgt rev-list --count base..kcarry/fix/v1/stable)" = 0 ] ||
	fail "a partial patch was committed"

expect_exit 1 kcarry -C ws apply --json --no-refresh fix stable
cp "$OUT" apply.json
json_check apply.json '
p = d["results"][0]["patches"][0]
assert p["outcome"] == "partial" and "edited" not in p, p
h = p["files"][0]["hunks"]
assert [x["rule"] for x in h] == ["already-applied", "conflict"], h
assert h[0]["edited"] == {"lines": [10, 12, 13]} and "edited" not in h[1], h
'
expect_exit 1 kcarry -C ws check --format json
python3 - "$OUT" <<'EOT' || fail "check JSON rej"
import json, sys
d = json.load(open(sys.argv[1]))
def files(o):
    if isinstance(o, dict):
        if "rej" in o and "hunks" in o:
            yield o
        for v in o.values():
            yield from files(v)
    elif isinstance(o, list):
        for v in o:
            yield from files(v)
f = list(files(d))
assert len(f) == 1, f
rej = f[0]["rej"]
assert rej.count("\n@@ ") == 1 and "kfree(d->buf);" in rej, rej
assert "DEMO_SAFE" not in rej, rej
EOT
