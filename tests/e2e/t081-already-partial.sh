#!/bin/sh
# Partial means partial: the stable tree carries the first hunk of the fix
# in edited form and lacks the second.  The patch is partially applied:
# hunk 1 already there (edited, with where its lines stand), hunk 2 a
# conflict; the rejected hunks (check's JSON "rej") hold hunk 2 only; no
# edited mark on a patch that is not wholly there.  A hunk standing
# edited is judged so whether or not another hunk of its file conflicts
# (a conflict starts a second pass with hunk-level merges).
here=$(pwd)
. ./lib.sh
. "$here/already-lib.sh"
already_setup "$STABLE_OPEN_FIXED" "$STABLE_CLOSE_BEFORE"

expect_exit 1 kcarry -C ws apply --no-adapt fix stable
expect_stdout <<'EOT'
fix@v1 on stable (kcarry/fix/v1/stable)
  0001 partially applied btrfs: start demo in safe mode, free its buffer on close
         fs/btrfs/demo.c hunk 1: already-applied at line 10 (offset +4): its change stands in demo_open() in edited form, the added lines at 10, 12, 13
         fs/btrfs/demo.c hunk 2: conflict: context does not match near line 27
  summary: 1 partially applied
EOT
[ "$(git -C tgt rev-list --count base..kcarry/fix/v1/stable)" = 0 ] ||
	fail "a partial patch was committed"

expect_exit 1 kcarry -C ws apply --no-adapt --json --no-refresh fix stable
cp "$OUT" apply.json
json_check apply.json '
p = d["results"][0]["patches"][0]
assert p["outcome"] == "partial" and "edited" not in p, p
h = p["files"][0]["hunks"]
assert [x["rule"] for x in h] == ["already-applied", "conflict"], h
assert h[0]["edited"] == {"lines": [10, 12, 13]} and "edited" not in h[1], h
'
expect_exit 1 kcarry -C ws check --no-adapt --format json
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

# The same verdict whether or not another hunk of the file conflicts.  A
# conflict starts a second pass with hunk-level merges (the preimage blob
# is not in the target's repository); that merge must not add again the
# lines that stand at the top of demo_reset(), where the stable backport
# put them (its context is found twice, so no fuzz places it).
mkdir second && cd second
reset_c() { # TOP_LINES B E F CLOSE_STATE CLOSE_LINE
	cat <<EOC
#include "demo.h"

static void demo_reset(struct demo *d)
{
$1	d->a = 0;
	d->b = $2;
	d->c = 0;
	d->d = 0;
	d->e = $3;
	d->f = $4;
	d->g = 0;
}

static int demo_helper(struct demo *d)
{
	d->c = 0;
	d->d = 0;
	return d->a + d->b;
}

static void demo_close(struct demo *d)
{
	d->state = $5;
$6	d->state = DEMO_CLOSED;
}
EOC
}
FLUSH='	demo_flush(d, DEMO_SYNC);
	demo_wait(d);
'
LOG='	demo_log(d, "close");
'
make_repo up demo.c "$(reset_c "" 0 0 0 DEMO_CLOSING "$LOG")
"
python3 - up/demo.c <<'EOT'
import sys
s = open(sys.argv[1]).read()
s = s.replace("\td->c = 0;\n", "\td->c = 0;\n\tdemo_flush(d, DEMO_SYNC);\n\tdemo_wait(d);\n", 1)
open(sys.argv[1], "w").write(s)
EOT
git -C up commit -qam "demo: flush on reset" || fail commit
sed -i 's/^\tdemo_log(d, "close");$/&\n\tdemo_put(d);/' up/demo.c
git -C up commit -qam "demo: put on close" || fail commit
# the target: the flush at the top, other values around it; demo_close
# with or without the line the second hunk's context needs
make_repo tgt demo.c "$(reset_c "$FLUSH" 2 2 1 DEMO_SHUTDOWN "	demo_trace(d);
")
"
make_repo tgt2 demo.c "$(reset_c "$FLUSH" 2 2 1 DEMO_CLOSING "$LOG")
"
kcarry init ws >/dev/null
for t in tgt tgt2; do
	printf '[kernel]\n\tname = %s\n\turl = %s/%s\n\tref = base\n' "$t" "$(pwd)" "$t" \
		>ws/kernels/$t.conf
done
# one patch of both hunks (squashed), so that hunk 2 conflicts on tgt
git -C up reset -q --soft base && git -C up commit -qm "demo: flush on reset, put on close"
expect_exit 0 kcarry -C ws import flush --git up base..HEAD
expect_exit 1 kcarry -C ws apply --no-adapt --no-refresh flush tgt
expect_stdout <<'EOT'
flush@v1 on tgt (kcarry/flush/v1/tgt)
  0001 partially applied demo: flush on reset, put on close
         demo.c hunk 1: already-applied at line 5: its change stands in demo_reset() in edited form, the added lines at 5, 6
         demo.c hunk 2: conflict: context does not match near line 22
  summary: 1 partially applied
EOT
# (hunk 2 applies there: a patch half already there, half applied, is
# partial too, and not committed)
expect_exit 1 kcarry -C ws apply --no-adapt --no-refresh flush tgt2
expect_stdout <<'EOT'
flush@v1 on tgt2 (kcarry/flush/v1/tgt2)
  0001 partially applied demo: flush on reset, put on close (1 hunk +2)
         demo.c hunk 1: already-applied at line 5: its change stands in demo_reset() in edited form, the added lines at 5, 6
  summary: 1 partially applied
EOT
