#!/bin/sh
# Adaptation, rule 1 (moved code) hunk by hunk, adversarial: a hunk goes
# to another file only when exactly one file under the folder defines its
# function and its lines stand exactly there; otherwise it stays a
# conflict, and so do the file patch's other hunks (it moves whole or not
# at all) and its patch (nothing is committed):
#  - twice: hunk 2's function is defined in two files (a copy left
#    behind): which one is meant is not known, hunk 2 is a conflict;
#  - nowhere: no file defines hunk 2's function: a conflict;
#  - drifted: the one file defining hunk 2's function does not hold its
#    lines exactly, and every line around its insertion changed there
#    (rule 4 anchors nothing: t157 has the drift it does anchor): a
#    conflict, no fuzzy guess;
#  - whole: two files take the whole file patch (the one-file rule is
#    ambiguous): it is not split either, a conflict;
#  - nodecl: every hunk has its file, but hunk 1 calls a function the
#    target declares nowhere: adapted with a placement risk, its names
#    looked for in the file it went to.
here=$(pwd)
. ./lib.sh
. "$here/adapt-lib.sh"

split_fixture
split_refusal_repos
# the hunks have their files, but the target declares demo_trace_irq()
# nowhere: placed, and a risk (names are looked for where a hunk went)
# (the rest of what display_irq.c uses declared, as a kernel's headers do)
make_repo nodecl drivers/gpu/demo/demo.h "typedef unsigned int u32;
typedef int irqreturn_t;
#define IRQ_NONE 0
#define IRQ_HANDLED 1
#define DEMO_IMR 0
#define DEMO_IER 4
#define DEMO_IIR 8
$(printf '%s' "$DEMO_H" | grep -v demo_trace_irq)
u32 demo_read_status(struct demo_dev *d);
void demo_ack_status(struct demo_dev *d, u32 status);
void demo_write(struct demo_dev *d, int reg, u32 val);
void demo_posting_read(struct demo_dev *d, int reg);
" \
	drivers/gpu/demo/display_irq.c "$DISP" \
	drivers/gpu/demo/display/vblank.c "$VBLF"
adapt_ws split twice:twice nowhere:nowhere drifted:drifted whole:whole \
	nodecl:nodecl

for t in twice nowhere drifted; do
	expect_exit 1 kcarry -C ws apply split $t
	stdout_has '^  0001 conflict          demo: trace interrupts and count vblanks$'
	stdout_has 'drivers/gpu/demo/irq.c hunk 2: conflict'
	# hunk 1 has its one file, but a file patch moves whole or not at all
	stdout_has 'drivers/gpu/demo/irq.c hunk 1: conflict'
	not_adapted $t kcarry/split/v1/$t
	expect_exit 1 kcarry -C ws apply --accept-adapted split $t
done
expect_exit 1 kcarry -C ws apply split nodecl
stdout_has '^  0001 adapted           \[risk\] demo: trace interrupts and count vblanks$'
stdout_has 'hunk 1: adapted .*RISK: moved from .*; demo_trace_irq\(\): no such function in this tree$'
grep -q 'hunk 2: adapted .*RISK' "$OUT" && { cat "$OUT"; fail "nodecl: hunk 2 a risk"; }
expect_exit 1 kcarry -C ws apply split whole
stdout_has '^  0001 conflict          demo: trace interrupts and count vblanks$'
grep -q 'adapted' "$OUT" && { cat "$OUT"; fail "whole: adapted"; }
exit 0
