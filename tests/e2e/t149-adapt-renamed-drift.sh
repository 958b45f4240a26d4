#!/bin/sh
# Adaptation, rule 3 across drifted context (Debian's RT patch "arm:
# Disable FAST_GUP on PREEMPT_RT if HIGHPTE is also enabled", carried from
# 6.1 to 6.12): the target renamed HAVE_FAST_GUP to HAVE_GUP_FAST and
# added a select right after it, so neither the removed line nor the
# trailing context stands.  The context on each side stands once, with
# the one line the hunk removes between them, which differs from it only
# by that name: the added line takes the rename.
#  - arch/good/Kconfig: adapted, the result equals what Debian wrote for
#    6.12; git apply --check takes the refreshed patch;
#  - arch/other/Kconfig (adversarial): the line between the sides is
#    another select (HAVE_FOO_BAR, no part of the old name): a conflict;
#  - arch/wide/Kconfig (adversarial): two lines stand between the sides,
#    the hunk removes one: a conflict;
#  - fpu.c (Debian's mips-ieee754-relaxed.patch, 6.1 to 6.12): the target
#    added EMULATED to the enum the hunk rewrites; the added line holding
#    "STRICT, LEGACY" takes it too, the others stay.
here=$(pwd)
. ./lib.sh
. "$here/adapt-lib.sh"

HEAD='config ARM
	bool
	default y
	select HAVE_DYNAMIC_FTRACE_WITH_REGS if HAVE_DYNAMIC_FTRACE
	select HAVE_EFFICIENT_UNALIGNED_ACCESS if MMU
	select HAVE_EXIT_THREAD
'
UP="${HEAD}	select HAVE_FAST_GUP if ARM_LPAE
	select HAVE_FTRACE_MCOUNT_RECORD if !XIP_KERNEL
	select HAVE_FUNCTION_GRAPH_TRACER
	select HAVE_FUNCTION_TRACER if !XIP_KERNEL
"
GOOD="${HEAD}	select HAVE_GUP_FAST if ARM_LPAE
	select HAVE_FTRACE_MCOUNT_RECORD if !XIP_KERNEL
	select HAVE_FUNCTION_ERROR_INJECTION
	select HAVE_FUNCTION_GRAPH_TRACER
	select HAVE_FUNCTION_TRACER if !XIP_KERNEL
"
OTHER=$(printf '%s' "$GOOD" | sed 's/HAVE_GUP_FAST/HAVE_FOO_BAR/')
OTHER="$OTHER
"
WIDE=$(printf '%s' "$GOOD" | sed 's/^\tselect HAVE_GUP_FAST if ARM_LPAE$/&\n\tselect HAVE_KPROBES/')
WIDE="$WIDE
"
FIX='s/select HAVE_FAST_GUP if ARM_LPAE$/select HAVE_FAST_GUP if ARM_LPAE \&\& !(PREEMPT_RT \&\& HIGHPTE)/'
FPU='static void cpu_set_fpu_2008(struct cpuinfo_mips *c)
{
}

/*
 * IEEE 754 conformance mode to use.
 */
static enum { STRICT, LEGACY, STD2008, RELAXED } ieee754 = STRICT;

/*
 * Set the IEEE 754 NaN encodings
 */
'
FPU_TGT=$(printf '%s' "$FPU" | sed 's/{ STRICT, LEGACY,/{ STRICT, EMULATED, LEGACY,/')
FPU_TGT="$FPU_TGT
"
FPU_FIX='s/^static enum { STRICT, LEGACY, STD2008, RELAXED } ieee754 = STRICT;$/enum ieee754_mode { STRICT, LEGACY, STD2008, RELAXED };\
#ifdef CONFIG_CPU_LOONGSON64\
static enum ieee754_mode ieee754 = RELAXED;\
#else\
static enum ieee754_mode ieee754 = STRICT;\
#endif/'
make_repo up arch/good/Kconfig "$UP" arch/other/Kconfig "$UP" \
	arch/wide/Kconfig "$UP" fpu.c "$FPU"
for a in good other wide; do
	commit_file up arch/$a/Kconfig "$(printf '%s' "$UP" | sed "$FIX")
" "$a: disable FAST_GUP on PREEMPT_RT"
done
commit_file up fpu.c "$(printf '%s' "$FPU" | sed "$FPU_FIX")
" "mips: relaxed ieee754 mode for Loongson"
make_repo tgt arch/good/Kconfig "$GOOD" arch/other/Kconfig "$OTHER" \
	arch/wide/Kconfig "$WIDE" fpu.c "$FPU_TGT"

adapt_ws gup
expect_exit 1 kcarry -C ws apply gup old
stdout_has '^  0001 adapted           good: disable FAST_GUP on PREEMPT_RT$'
stdout_has 'names renamed here, as the lines it removes show between its context lines: HAVE_FAST_GUP -> HAVE_GUP_FAST'
stdout_has 'adapted by rule renamed-identifiers; not accepted yet'
stdout_has '^  0002 conflict          other: disable FAST_GUP on PREEMPT_RT$'
stdout_has '^  0003 conflict          wide: disable FAST_GUP on PREEMPT_RT$'
stdout_has '^  0004 adapted           mips: relaxed ieee754 mode for Loongson$'
stdout_has 'its added lines take the same change: STRICT, LEGACY -> STRICT, EMULATED, LEGACY'

printf '%s' "$GOOD" | sed 's/select HAVE_GUP_FAST if ARM_LPAE$/select HAVE_GUP_FAST if ARM_LPAE \&\& !(PREEMPT_RT \&\& HIGHPTE)/' >want
git -C tgt show kcarry/gup/v1/old:arch/good/Kconfig >got
diff -u want got || fail "the adapted result"
for a in other wide; do
	git -C tgt show kcarry/gup/v1/old:arch/$a/Kconfig | diff - tgt/arch/$a/Kconfig >/dev/null ||
		fail "arch/$a/Kconfig changed"
done
printf '%s' "$FPU" | sed "$FPU_FIX" | sed 's/{ STRICT, LEGACY,/{ STRICT, EMULATED, LEGACY,/' >want
grep -q '^enum ieee754_mode { STRICT, EMULATED, LEGACY, STD2008, RELAXED };$' want ||
	fail "the expected fpu.c is wrong"
git -C tgt show kcarry/gup/v1/old:fpu.c >got
diff -u want got || fail "the edited result"
git clone -q tgt chk && git -C chk checkout -q base
for n in 0001 0004; do
	rp=$(ls ws/patches/gup/v1/old/$n-*.patch)
	git -C chk apply --check "$TEST_TMP/$rp" || fail "git apply --check refuses $rp"
done
exit 0
