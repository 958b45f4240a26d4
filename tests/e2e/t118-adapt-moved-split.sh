#!/bin/sh
# Adaptation, rule 1 (moved code) hunk by hunk: a file split in several.
# Linux moved the display interrupt code of i915_irq.c into display/*.c
# files, so a fix written for the old i915_irq.c whose hunks touch two
# functions meets, in a newer tree, each function in another file.  When
# no one file takes every hunk, each hunk goes to the one file under the
# folder that defines its function, where its lines stand exactly:
#  - gone: irq.c is missing; hunk 1's function is in display_irq.c, hunk
#    2's in display/vblank.c (a subfolder): adapted, each hunk in its
#    file, the refreshed patch has one section per file and applies to
#    the target (git apply --check), a note per hunk;
#  - kept: irq.c still exists but lost both functions: the same, irq.c
#    untouched;
#  - swapped: both functions went to one file of a subfolder, in the
#    other order: both hunks there;
#  - back: a fix to display/vblank.c onto the tree before the split:
#    both hunks go to irq.c, one folder up;
#  - JSON: each hunk's adaptation names the file it went to.
here=$(pwd)
. ./lib.sh
. "$here/adapt-lib.sh"

ACK='static int irq_ack(struct demo_dev *d)
{
	return d->ack;
}
'
split_fixture "$ACK"
git -C up show HEAD -- drivers/gpu/demo/irq.c | grep -c '^@@' | grep -qx 2 ||
	fail "the fixture's patch does not have two hunks"

VBLF=$VBLF_OFF
make_repo gone drivers/gpu/demo/demo.h "$DEMO_H" \
	drivers/gpu/demo/display_irq.c "$DISP" \
	drivers/gpu/demo/display/vblank.c "$VBLF" \
	drivers/gpu/demo/main.c "$ACK"
make_repo kept drivers/gpu/demo/demo.h "$DEMO_H" \
	drivers/gpu/demo/irq.c "#include \"demo.h\"

$ACK" drivers/gpu/demo/display_irq.c "$DISP" \
	drivers/gpu/demo/display/vblank.c "$VBLF"
# both functions in one new file, in the other order, beside another
# file of that folder
make_repo swapped drivers/gpu/demo/demo.h "$DEMO_H" \
	drivers/gpu/demo/display/irq.c "#include \"demo.h\"

$VBL
$HANDLE
$FILL" drivers/gpu/demo/display/vblank.c "$FILL"
# back: a fix to the split-out display/vblank.c onto the tree before the
# split, where its functions are still in irq.c one folder up
make_repo up2 drivers/gpu/demo/demo.h "$DEMO_H" \
	drivers/gpu/demo/display/vblank.c "#include \"../demo.h\"

$HANDLE
$FILL
$VBL"
commit_file up2 drivers/gpu/demo/display/vblank.c "$(printf '#include "../demo.h"\n\n%s\n%s\n%s' "$HANDLE" "$FILL" "$VBL" | sed "$FIX")
" "demo: trace interrupts and count vblanks, split"
make_repo back drivers/gpu/demo/demo.h "$DEMO_H" \
	drivers/gpu/demo/irq.c "$IRQ_OLD"
adapt_ws split gone:gone kept:kept swapped:swapped back:back
expect_exit 0 kcarry -C ws import back --git up2 base..HEAD

for t in gone kept; do
	expect_exit 1 kcarry -C ws apply split $t
	stdout_has '^  0001 adapted           demo: trace interrupts and count vblanks$'
	stdout_has 'drivers/gpu/demo/irq.c hunk 1: adapted .*moved from drivers/gpu/demo/irq.c to drivers/gpu/demo/display_irq.c: .*demo_irq_handler\(\)'
	stdout_has 'drivers/gpu/demo/irq.c hunk 2: adapted .*moved from drivers/gpu/demo/irq.c to drivers/gpu/demo/display/vblank.c: .*demo_enable_vblank\(\)'
	br=kcarry/split/v1/$t
	git -C $t show $br:drivers/gpu/demo/display_irq.c >got.c
	printf '%s' "$DISP" | sed "$FIX" | diff -u - got.c ||
		fail "$t: hunk 1 not in display_irq.c"
	git -C $t show $br:drivers/gpu/demo/display/vblank.c >got.c
	printf '%s' "$VBLF" | sed "$FIX" | diff -u - got.c ||
		fail "$t: hunk 2 not in display/vblank.c"
	git -C $t diff --quiet base $br -- drivers/gpu/demo/irq.c ||
		fail "$t: irq.c changed"
	rp=ws/patches/split/v1/$t/0001-demo-trace-interrupts-and-count-vblanks.patch
	[ "$(grep -c '^+++ b/' "$rp")" = 2 ] &&
		grep -q '^+++ b/drivers/gpu/demo/display_irq.c$' "$rp" &&
		grep -q '^+++ b/drivers/gpu/demo/display/vblank.c$' "$rp" ||
		{ cat "$rp"; fail "$t: refreshed patch lacks its two sections"; }
	grep -q '^\[ adapted: drivers/gpu/demo/irq.c hunk 2: moved from drivers/gpu/demo/irq.c to drivers/gpu/demo/display/vblank.c' "$rp" ||
		{ cat "$rp"; fail "$t: refreshed patch lacks hunk 2's note"; }
	git -C $t checkout -q base && git -C $t apply --check "$TEST_TMP/$rp" ||
		{ cat "$rp"; fail "$t: refreshed patch does not apply"; }
	expect_exit 0 kcarry -C ws apply --accept-adapted split $t
done

expect_exit 1 kcarry -C ws apply split swapped
stdout_has '^  0001 adapted           demo: trace interrupts and count vblanks$'
stdout_has 'hunk 2: adapted .*moved from drivers/gpu/demo/irq.c to drivers/gpu/demo/display/irq.c: '
git -C swapped show kcarry/split/v1/swapped:drivers/gpu/demo/display/irq.c >got.c
printf '#include "demo.h"\n\n%s\n%s\n%s' "$VBL" "$HANDLE" "$FILL" | sed "$FIX" |
	diff -u - got.c || fail "swapped: not both hunks in display/irq.c"

expect_exit 1 kcarry -C ws apply back back
stdout_has '^  0001 adapted           demo: trace interrupts and count vblanks, split$'
stdout_has 'hunk 2: adapted .*moved from drivers/gpu/demo/display/vblank.c to drivers/gpu/demo/irq.c: .* alone of the files under drivers/gpu/demo defines demo_enable_vblank\(\)'
git -C back show kcarry/back/v1/back:drivers/gpu/demo/irq.c >got.c
printf '%s' "$IRQ_OLD" | sed "$FIX" | diff -u - got.c ||
	fail "back: not both hunks in irq.c"

expect_exit 1 kcarry -C ws apply --json split gone
python3 - "$OUT" <<'PY' || fail "JSON"
import json, sys
d = json.load(open(sys.argv[1]))
p = d["results"][0]["patches"][0]
assert p["outcome"] == "adapted", p["outcome"]
assert p["committed"], p
f, = p["files"]
assert f["path"] == "drivers/gpu/demo/irq.c", f["path"]
to = [h["adaptation"]["adapted"].split("\n")[1] for h in f["hunks"]]
assert to == ["+++ b/drivers/gpu/demo/display_irq.c",
              "+++ b/drivers/gpu/demo/display/vblank.c"], to
assert all(h["adaptation"]["rule"] == "moved-code" for h in f["hunks"])
PY
exit 0
