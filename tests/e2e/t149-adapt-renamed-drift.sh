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
#    the hunk removes one: a conflict.
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
make_repo up arch/good/Kconfig "$UP" arch/other/Kconfig "$UP" \
	arch/wide/Kconfig "$UP"
for a in good other wide; do
	commit_file up arch/$a/Kconfig "$(printf '%s' "$UP" | sed "$FIX")
" "$a: disable FAST_GUP on PREEMPT_RT"
done
make_repo tgt arch/good/Kconfig "$GOOD" arch/other/Kconfig "$OTHER" \
	arch/wide/Kconfig "$WIDE"

adapt_ws gup
expect_exit 1 kcarry -C ws apply gup old
stdout_has '^  0001 adapted           good: disable FAST_GUP on PREEMPT_RT$'
stdout_has 'names renamed here, as the lines it removes show between its context lines: HAVE_FAST_GUP -> HAVE_GUP_FAST'
stdout_has 'adapted by rule renamed-identifiers; not accepted yet'
stdout_has '^  0002 conflict          other: disable FAST_GUP on PREEMPT_RT$'
stdout_has '^  0003 conflict          wide: disable FAST_GUP on PREEMPT_RT$'

printf '%s' "$GOOD" | sed 's/select HAVE_GUP_FAST if ARM_LPAE$/select HAVE_GUP_FAST if ARM_LPAE \&\& !(PREEMPT_RT \&\& HIGHPTE)/' >want
git -C tgt show kcarry/gup/v1/old:arch/good/Kconfig >got
diff -u want got || fail "the adapted result"
for a in other wide; do
	git -C tgt show kcarry/gup/v1/old:arch/$a/Kconfig | diff - tgt/arch/$a/Kconfig >/dev/null ||
		fail "arch/$a/Kconfig changed"
done
rp=$(ls ws/patches/gup/v1/old/0001-*.patch)
git clone -q tgt chk && git -C chk checkout -q base
git -C chk apply --check "$TEST_TMP/$rp" || fail "git apply --check refuses it"
exit 0
