#!/bin/sh
# Adaptation, rule 1 (moved code) hunk by hunk for a file that keeps some
# of its hunks, adversarial: a conflicting hunk moves only to the one file
# under the folder that defines (with a body) the function its header
# names, and only when the file patch then places whole:
#  - twice: two files define demo_enable_vblank() (a copy left behind):
#    which one is meant is not known, hunk 2 stays a conflict and its
#    reason names both files;
#  - decl: no file defines it; one declares and calls it and has its
#    lines in a function of another name: a conflict, nothing placed in
#    the look-alike (irq.c's cause says it has no demo_enable_vblank(),
#    rule 1 adds nothing);
#  - declsplit: the same for a missing irq.c split in several (hunk 1's
#    function in display_irq.c): a declaration is no definition there
#    either, a conflict, "defined in no file under drivers/gpu/demo";
#  - declared: one file defines it, another declares and calls it: the
#    hunk goes to the one that defines it;
#  - blocked: hunk 1 conflicts in irq.c, whose demo_irq_handler() was
#    rewritten: hunk 2 is not moved either (a file patch moves whole or
#    not at all), its reason says so.
# Nothing conflicting is committed.
here=$(pwd)
. ./lib.sh
. "$here/adapt-lib.sh"

split_fixture

IRQ_NEW=$DISP
# declares and calls demo_enable_vblank(), and holds hunk 2's lines in a
# function of another name
DECL="#include \"demo.h\"

int demo_enable_vblank(struct demo_dev *d, int pipe);

$(printf '%s' "$VBL" | sed 's/demo_enable_vblank/demo_vblank_on/')
int demo_vblank_all(struct demo_dev *d)
{
	return demo_enable_vblank(d, 0) + demo_enable_vblank(d, 1);
}
"
REWRITTEN='irqreturn_t demo_irq_handler(struct demo_dev *d, int irq)
{
	return demo_irq_thread(d, irq);
}
'
make_repo twice drivers/gpu/demo/demo.h "$DEMO_H" \
	drivers/gpu/demo/irq.c "$IRQ_NEW" \
	drivers/gpu/demo/a/vblank.c "$VBLF" \
	drivers/gpu/demo/b/vblank.c "$VBLF"
make_repo decl drivers/gpu/demo/demo.h "$DEMO_H" \
	drivers/gpu/demo/irq.c "$IRQ_NEW" \
	drivers/gpu/demo/vblank_compat.c "$DECL"
make_repo declsplit drivers/gpu/demo/demo.h "$DEMO_H" \
	drivers/gpu/demo/display_irq.c "$IRQ_NEW" \
	drivers/gpu/demo/vblank_compat.c "$DECL"
make_repo declared drivers/gpu/demo/demo.h "$DEMO_H" \
	drivers/gpu/demo/irq.c "$IRQ_NEW" \
	drivers/gpu/demo/vblank.c "$VBLF" \
	drivers/gpu/demo/vblank_compat.c "$DECL"
make_repo blocked drivers/gpu/demo/demo.h "$DEMO_H" \
	drivers/gpu/demo/irq.c "#include \"demo.h\"

$REWRITTEN
$FILL" \
	drivers/gpu/demo/vblank.c "$VBLF"
adapt_ws mixed twice:twice decl:decl declsplit:declsplit declared:declared \
	blocked:blocked

for t in twice decl declsplit blocked; do
	expect_exit 1 kcarry -C ws apply mixed $t
	stdout_has '^  0001 conflict          demo: trace interrupts and count vblanks$'
	stdout_has 'drivers/gpu/demo/irq.c hunk 2: conflict'
	grep -q 'adapted' "$OUT" && { cat "$OUT"; fail "$t: adapted"; }
	case $t in
	twice) stdout_has 'hunk 2: conflict: .*not moved: demo_enable_vblank\(\) is defined in both drivers/gpu/demo/a/vblank.c and drivers/gpu/demo/b/vblank.c' ;;
	# irq.c exists: its cause says it has no demo_enable_vblank(), and
	# rule 1 adds nothing when no file defines it
	decl) grep -q 'not moved' "$OUT" && { cat "$OUT"; fail "decl: a reason"; } ;;
	declsplit) stdout_has 'hunk 2: conflict: .*not moved: demo_enable_vblank\(\) is defined in no file under drivers/gpu/demo' ;;
	blocked) stdout_has 'hunk 2: conflict: .*not moved to drivers/gpu/demo/vblank.c, the one file defining demo_enable_vblank\(\): hunk 1 stays a conflict' ;;
	esac
	git -C $t rev-parse -q --verify kcarry/mixed/v1/$t >/dev/null &&
		! git -C $t diff --quiet base kcarry/mixed/v1/$t &&
		fail "$t: a conflicting patch was committed"
	expect_exit 1 kcarry -C ws apply --accept-adapted mixed $t
done

expect_exit 1 kcarry -C ws apply --json mixed twice
python3 - "$OUT" <<'PY' || fail "JSON"
import json, sys
d = json.load(open(sys.argv[1]))
p = d["results"][0]["patches"][0]
assert p["outcome"] == "conflict", p["outcome"]
f, = p["files"]
h1, h2 = f["hunks"]
assert h2["rule"] == "conflict", h2
assert ("not moved: demo_enable_vblank() is defined in both "
        "drivers/gpu/demo/a/vblank.c and drivers/gpu/demo/b/vblank.c"
        in h2["reason"]), h2["reason"]
PY

expect_exit 1 kcarry -C ws apply mixed declared
stdout_has '^  0001 adapted           demo: trace interrupts and count vblanks$'
stdout_has 'irq.c hunk 2: adapted .*moved from drivers/gpu/demo/irq.c to drivers/gpu/demo/vblank.c: '
git -C declared show kcarry/mixed/v1/declared:drivers/gpu/demo/vblank_compat.c |
	diff -u declared/drivers/gpu/demo/vblank_compat.c - ||
	fail "declared: the declaring file changed"
exit 0
