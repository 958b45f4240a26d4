# adapt-lib.sh: fixtures of the adaptation tests, sourced after lib.sh.
#
#   adapt_ws SERIES [TARGET...]   workspace 'ws' whose target old is the
#                                 repository tgt at tag base (or one target
#                                 per repository named), and SERIES
#                                 imported from up's commits after base
#   drift_fixture                 rule 4's fixture: UP_C and TGT_C, the
#                                 repositories up (a one-line fix in foo():
#                                 step_two() gets FLAG_X) and tgt (foo()'s
#                                 locking and label rewritten around that
#                                 line), and ws with the series demo
#   FOO_UP, FOO_TGT               foo() as upstream has it (lock(),
#                                 step_one(), label out) and as the target
#                                 rewrote it (mutex_lock(),
#                                 step_one_locked(), label fail);
#                                 step_two(c, 0) is the line fixes change:
#                                 the core of UP_C and TGT_C, of t131's and
#                                 of adapt-build-lib.sh's files
#   split_fixture [FUNC]          rule 1's split file (t118, t119): HANDLE,
#                                 FILL, VBL (functions of irq.c), DEMO_H
#                                 (what the fix uses), FIX (the fix as a
#                                 sed script: a trace call in
#                                 demo_irq_handler(), a count in
#                                 demo_enable_vblank()), IRQ_OLD (irq.c:
#                                 demo.h included, then FUNC when given,
#                                 HANDLE, FILL, VBL), DISP and VBLF (irq.c
#                                 split in two: HANDLE and FILL, VBL;
#                                 VBLF_OFF: VBL after another function)
#                                 and the repository up
#                                 (drivers/gpu/demo/irq.c and demo.h at
#                                 base, the fix committed on top)
#   split_refusal_repos           after split_fixture: the targets where
#                                 the split must be refused (t119, t148):
#                                 twice (demo_enable_vblank() defined in
#                                 two files), nowhere (in none: renamed),
#                                 drifted (every line around its
#                                 insertion changed), whole
#                                 (irq.c as a.c and b.c)
#   not_adapted REPO BRANCH       the last kcarry output adapts nothing,
#                                 and BRANCH of REPO holds no change past
#                                 base (a conflict is not committed)

adapt_ws() {
	series=$1
	shift
	if [ $# -eq 0 ]; then
		set -- old:tgt
	fi
	ws_targets "$@"
	expect_exit 0 kcarry -C ws import "$series" --git up base..HEAD
}

FOO_UP='int foo(struct ctx *c)
{
	int ret;

	lock(c);
	ret = step_one(c);
	if (ret)
		goto out;
	ret = step_two(c, 0);
	unlock(c);
out:
	return ret;
}
'
FOO_TGT='int foo(struct ctx *c)
{
	int ret;

	mutex_lock(&c->lock);
	ret = step_one_locked(c);
	if (ret < 0)
		goto fail;
	ret = step_two(c, 0);
	mutex_unlock(&c->lock);
fail:
	return ret;
}
'
UP_C="#include \"core.h\"

static int other(struct ctx *c)
{
	return c->n;
}

static $FOO_UP
static int bar(struct ctx *c)
{
	return foo(c) + other(c);
}
"
TGT_C="#include \"core.h\"

static int other(struct ctx *c)
{
	return c->n * 2;
}

static $FOO_TGT
static int bar(struct ctx *c)
{
	return foo(c) + other(c);
}
"

drift_fixture() {
	make_repo up drivers/demo/core.c "$UP_C"
	commit_file up drivers/demo/core.c "$(printf '%s' "$UP_C" |
		sed 's/step_two(c, 0)/step_two(c, FLAG_X)/')
" "demo: pass FLAG_X to step two"
	make_repo tgt drivers/demo/core.c "$TGT_C"
	adapt_ws demo
}

split_fixture() {
	HANDLE='irqreturn_t demo_irq_handler(struct demo_dev *d, int irq)
{
	u32 status = demo_read_status(d);

	if (!status)
		return IRQ_NONE;
	demo_ack_status(d, status);
	return IRQ_HANDLED;
}
'
	FILL='static void demo_irq_reset(struct demo_dev *d)
{
	demo_write(d, DEMO_IMR, 0);
	demo_write(d, DEMO_IER, 0);
	demo_write(d, DEMO_IIR, 0);
	demo_posting_read(d, DEMO_IIR);
}
'
	VBL='int demo_enable_vblank(struct demo_dev *d, int pipe)
{
	int ret;

	spin_lock(&d->irq_lock);
	ret = demo_unmask_pipe(d, pipe);
	spin_unlock(&d->irq_lock);
	return ret;
}
'
	DEMO_H='struct demo_dev {
	int ack;
	int vblank_enabled;
};

void demo_trace_irq(struct demo_dev *d, u32 status);
'
	FIX='s/	demo_ack_status(d, status);/	demo_ack_status(d, status);\
	demo_trace_irq(d, status);/
s/	ret = demo_unmask_pipe(d, pipe);/	ret = demo_unmask_pipe(d, pipe);\
	d->vblank_enabled++;/'
	IRQ_OLD="#include \"demo.h\"

${1:+$1
}$HANDLE
$FILL
$VBL"
	# irq.c split in two halves, as a newer tree has it; VBLF_OFF with a
	# function above, so that its hunk lands at an offset
	DISP="#include \"demo.h\"

$HANDLE
$FILL"
	VBLF="#include \"demo.h\"

$VBL"
	VBLF_OFF="#include \"demo.h\"

static int demo_vblank_pipe(int pipe)
{
	return pipe;
}

$VBL"
	make_repo up drivers/gpu/demo/irq.c "$IRQ_OLD" drivers/gpu/demo/demo.h "$DEMO_H"
	commit_file up drivers/gpu/demo/irq.c "$(printf '%s' "$IRQ_OLD" | sed "$FIX")
" "demo: trace interrupts and count vblanks"
}

split_refusal_repos() {
	# the same lines under another name: the context stands, the
	# function not
	OTHER=$(printf '%s' "$VBLF" | sed 's/demo_enable_vblank/demo_vblank_on/')
	# every line around hunk 2's insertion rewritten: rule 4 has
	# nothing to anchor on in the one file defining its function either
	DRIFT=$(printf '%s' "$VBLF" | sed 's/spin_lock(&d->irq_lock)/spin_lock_irq(\&d->irq_lock)/
s/spin_unlock(&d->irq_lock)/spin_unlock_irq(\&d->irq_lock)/
s/demo_unmask_pipe(d, pipe)/demo_unmask_pipe_locked(d, pipe)/')
	make_repo twice drivers/gpu/demo/demo.h "$DEMO_H" \
		drivers/gpu/demo/display_irq.c "$DISP" \
		drivers/gpu/demo/display/vblank.c "$VBLF" \
		drivers/gpu/demo/compat/vblank.c "$VBLF"
	make_repo nowhere drivers/gpu/demo/demo.h "$DEMO_H" \
		drivers/gpu/demo/display_irq.c "$DISP" \
		drivers/gpu/demo/display/vblank.c "$OTHER
"
	make_repo drifted drivers/gpu/demo/demo.h "$DEMO_H" \
		drivers/gpu/demo/display_irq.c "$DISP" \
		drivers/gpu/demo/display/vblank.c "$DRIFT
"
	make_repo whole drivers/gpu/demo/demo.h "$DEMO_H" \
		drivers/gpu/demo/a.c "$IRQ_OLD" drivers/gpu/demo/b.c "$IRQ_OLD"
}

# note_fixture: t070's drifted-context fix in two files, as the note
# tests (t137, t138) want it: up/ with both files of UP_C changed to
# pass FLAG_X, committed with a body and a Signed-off-by; tgt/ with
# both files of TGT_C.
note_fixture() {
	make_repo up drivers/demo/core.c "$UP_C" drivers/demo/other.c "$UP_C"
	printf '%s' "$UP_C" | sed 's/step_two(c, 0)/step_two(c, FLAG_X)/' \
		>up/drivers/demo/core.c
	cp up/drivers/demo/core.c up/drivers/demo/other.c
	git -C up commit -qam "demo: pass FLAG_X to step two

Step two must know the caller holds the lock.

Signed-off-by: A U Thor <author@example.org>" || fail commit
	make_repo tgt drivers/demo/core.c "$TGT_C" drivers/demo/other.c "$TGT_C"
}

not_adapted() {
	grep -q 'adapted' "$OUT" && { cat "$OUT"; fail "$1: adapted"; }
	if git -C "$1" rev-parse -q --verify "$2" >/dev/null &&
		! git -C "$1" diff --quiet base "$2"; then
		fail "$1: a conflicting patch was committed"
	fi
}
