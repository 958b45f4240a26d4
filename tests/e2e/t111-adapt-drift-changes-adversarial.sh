#!/bin/sh
# Adaptation, rule 4 change by change, where the obvious place is wrong
# or not known; each patch adds lines whose context the target changed
# (neither fuzz nor a 3-way merge places them):
#  - apart.c: both sides of the insertion stand once, with a new line
#    between them: before it or after it, no one can say: a conflict;
#  - twice.c: the context after the insertion is gone, the context
#    before it ("unlock; lock; step") stands twice in the function: a
#    conflict;
#  - Kconfig: the two selects around the insertion stand apart, and the
#    list between them is not sorted: a conflict;
#  - other.c: the context left stands once in the file, but in another
#    function than the one the hunk's header names (two functions of
#    similar body): a conflict, the other function untouched.
# None is adapted, and no file changes on the branch.
here=$(pwd)
. ./lib.sh
. "$here/adapt-lib.sh"

APART_UP='void setup(struct ctx *c)
{
	if (efi(c))
		efi_init(c);

	dmi_setup(c);

	probe(c);
}
'
APART_TGT='void setup(struct ctx *c)
{
	if (efi(c))
		efi_init(c);

	reserve_ibft(c);
	dmi_setup(c);

	probe(c);
}
'
TWICE_UP='void twice(struct ctx *c)
{
	lock(c);
	step(c);
	unlock(c);
	lock(c);
	step(c);
	old_flush(c);
	unlock(c);
	lock(c);
	step(c);
	unlock(c);
}
'
TWICE_TGT='void twice(struct ctx *c)
{
	lock(c);
	step(c);
	unlock(c);
	lock(c);
	step(c);
	unlock(c);
	lock(c);
	step(c);
	unlock(c);
}
'
KC_UP='config PPC
	bool
	default y
	select HAVE_PERF_REGS
	select HAVE_PERF_USER_STACK_DUMP
	select HAVE_RSEQ
	select HAVE_SETUP_PER_CPU_AREA
'
KC_TGT='config PPC
	bool
	default y
	select HAVE_PERF_REGS
	select HAVE_PERF_USER_STACK_DUMP
	select HAVE_ARCH_KASAN
	select HAVE_RSEQ
	select HAVE_SETUP_PER_CPU_AREA
'
OTHER_UP='static void first(struct ctx *c)
{
	prepare(c);
	legacy(c);
	commit(c);
}

static void second(struct ctx *c)
{
	prepare(c);
	legacy(c);
	run(c);
}
'
OTHER_TGT='static void first(struct ctx *c)
{
	begin(c);
	commit(c);
}

static void second(struct ctx *c)
{
	prepare(c);
	run(c);
}
'
make_repo up d/apart.c "$APART_UP" d/twice.c "$TWICE_UP" d/Kconfig "$KC_UP" \
	d/other.c "$OTHER_UP"
commit_file up d/apart.c "$(printf '%s' "$APART_UP" | sed 's/^	dmi_setup(c);$/	secure_boot(c);\
\
&/')
" "apart: secure boot"
commit_file up d/twice.c "$(printf '%s' "$TWICE_UP" | sed '7s/$/\
	count(c);/')
" "twice: count the second step"
commit_file up d/Kconfig "$(printf '%s' "$KC_UP" | sed 's/^	select HAVE_PERF_USER_STACK_DUMP$/&\
	select HAVE_POSIX_TIMERS if !KVM/')
" "Kconfig: posix timers"
commit_file up d/other.c "$(printf '%s' "$OTHER_UP" | sed '3s/$/\
	trace(c);/')
" "other: trace first"
make_repo tgt d/apart.c "$APART_TGT" d/twice.c "$TWICE_TGT" d/Kconfig "$KC_TGT" \
	d/other.c "$OTHER_TGT"
adapt_ws adv

expect_exit 1 kcarry -C ws apply --accept-adapted adv old
cp "$OUT" apply.txt
for p in 0001 0002 0003 0004; do
	grep -Eq "^  $p conflict " apply.txt || { cat apply.txt; fail "$p not a conflict"; }
done
grep -q 'adapted' apply.txt && { cat apply.txt; fail "something adapted"; }
if git -C tgt rev-parse -q --verify kcarry/adv/v1/old >/dev/null; then
	for f in apart.c twice.c Kconfig other.c; do
		git -C tgt show "kcarry/adv/v1/old:d/$f" | cmp -s - "tgt/d/$f" ||
			fail "d/$f changed on the branch"
	done
fi
exit 0
