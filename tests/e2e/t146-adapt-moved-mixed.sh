#!/bin/sh
# Adaptation, rule 1 (moved code) hunk by hunk for a file that keeps some
# of its hunks: btrfs 6.2 moved the defrag functions from ioctl.c into
# defrag.c, so a 6.1 fix to ioctl.c carried to 6.12 has hunks that still
# apply to ioctl.c and hunks whose function now lives in defrag.c.  The
# hunks that conflict in a function the file no longer defines go, each,
# to the one other file under the folder that defines it, where their
# lines stand exactly; the others stay where they applied:
#  - mixed: irq.c keeps demo_irq_handler() (hunk 1 applies there) and
#    lost demo_enable_vblank() to vblank.c (hunk 2 moves there): adapted,
#    the branch has both changes, the refreshed patch one section per
#    file and applies to the target (git apply --check), a note for
#    hunk 2;
#  - sub: the same with the function in a subfolder (display/vblank.c)
#    and hunk 1 at an offset in irq.c;
#  - JSON: hunk 1 applied in irq.c, hunk 2's adaptation names vblank.c.
here=$(pwd)
. ./lib.sh
. "$here/adapt-lib.sh"

split_fixture

IRQ_NEW=$DISP
VBLF=$VBLF_OFF
make_repo mixed drivers/gpu/demo/demo.h "$DEMO_H" \
	drivers/gpu/demo/irq.c "$IRQ_NEW" \
	drivers/gpu/demo/vblank.c "$VBLF"
make_repo sub drivers/gpu/demo/demo.h "$DEMO_H" \
	drivers/gpu/demo/irq.c "#include \"demo.h\"

static int demo_irq_count;
$HANDLE
$FILL" \
	drivers/gpu/demo/display/vblank.c "$VBLF"
adapt_ws mixed mixed:mixed sub:sub

for t in mixed sub; do
	case $t in
	mixed) to=drivers/gpu/demo/vblank.c ;;
	sub) to=drivers/gpu/demo/display/vblank.c ;;
	esac
	expect_exit 1 kcarry -C ws apply mixed $t
	stdout_has '^  0001 adapted           demo: trace interrupts and count vblanks( \(1 hunk \+1\))?$'
	stdout_has "drivers/gpu/demo/irq.c hunk 2: adapted .*moved from drivers/gpu/demo/irq.c to $to: drivers/gpu/demo/irq.c has no demo_enable_vblank\(\), and $to alone of the files under drivers/gpu/demo defines it"
	grep -q 'irq.c hunk 1: adapted\|irq.c hunk 1: conflict' "$OUT" &&
		{ cat "$OUT"; fail "$t: hunk 1 not applied in irq.c"; }
	br=kcarry/mixed/v1/$t
	git -C $t show base:drivers/gpu/demo/irq.c | sed "$FIX" >want.c
	git -C $t show $br:drivers/gpu/demo/irq.c >got.c
	diff -u want.c got.c || fail "$t: hunk 1 not in irq.c"
	grep -q 'd->vblank_enabled++' got.c && fail "$t: hunk 2 in irq.c"
	git -C $t show $br:$to >got.c
	printf '%s' "$VBLF" | sed "$FIX" | diff -u - got.c ||
		fail "$t: hunk 2 not in $to"
	rp=ws/patches/mixed/v1/$t/0001-demo-trace-interrupts-and-count-vblanks.patch
	[ "$(grep -c '^+++ b/' "$rp")" = 2 ] &&
		grep -q '^+++ b/drivers/gpu/demo/irq.c$' "$rp" &&
		grep -q "^+++ b/$to\$" "$rp" ||
		{ cat "$rp"; fail "$t: refreshed patch lacks its two sections"; }
	grep -q "^\[ adapted: drivers/gpu/demo/irq.c hunk 2: moved from drivers/gpu/demo/irq.c to $to" "$rp" ||
		{ cat "$rp"; fail "$t: refreshed patch lacks hunk 2's note"; }
	git -C $t checkout -q base && git -C $t apply --check "$TEST_TMP/$rp" ||
		{ cat "$rp"; fail "$t: refreshed patch does not apply"; }
	expect_exit 0 kcarry -C ws apply --accept-adapted mixed $t
done

expect_exit 1 kcarry -C ws apply --json mixed sub
python3 - "$OUT" <<'PY' || fail "JSON"
import json, sys
d = json.load(open(sys.argv[1]))
p = d["results"][0]["patches"][0]
assert p["outcome"] == "adapted", p["outcome"]
assert p["committed"], p
f, = p["files"]
assert f["path"] == "drivers/gpu/demo/irq.c", f["path"]
h1, h2 = f["hunks"]
assert h1["rule"] == "offset" and not h1.get("adaptation"), h1
assert h2["rule"] == "adapted", h2
a = h2["adaptation"]
assert a["rule"] == "moved-code", a
assert a["adapted"].split("\n")[1] == "+++ b/drivers/gpu/demo/display/vblank.c", a
PY
exit 0
