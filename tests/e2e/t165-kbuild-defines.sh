#!/bin/sh
# A macro that Kbuild defines on the compiler's command line (-DNAME in a
# makefile) is a name of the tree, not a missing one: KBUILD_BASENAME
# from scripts/Makefile.lib, a flag of the top Makefile or of an arch
# Makefile, and ccflags-y / subdir-ccflags-y of the file's folder or of a
# folder above it.  A patch that uses them raises no risk.  A -D of
# another folder's makefile is not the file's, and a name nothing
# defines is still a risk; gcc, given the flags Kbuild would give, agrees
# on both.
. ./lib.sh

make_repo up \
Makefile 'KBUILD_CPPFLAGS := -D__KERNEL__
KBUILD_CFLAGS += -DTOP_FLAG=1
' \
scripts/Makefile.lib 'basename_flags = -DKBUILD_BASENAME=$(call name-fix,$(basetarget))
modname_flags  = -DKBUILD_MODNAME=$(call name-fix,$(modname)) \
		 -D__KBUILD_MODNAME=kmod_$(call name-fix-token,$(modname))
' \
arch/x86/Makefile 'KBUILD_CFLAGS += -DARCH_FLAG_X
' \
drivers/Makefile 'subdir-ccflags-y += -DDRV_TREE=3
obj-y += k/ other/
' \
drivers/k/Makefile 'ccflags-y += -DK_DEBUG_LEVEL=2
obj-y += core.o
' \
drivers/other/Makefile 'ccflags-y := -DOTHER_ONLY=4
obj-y += other.o
' \
include/linux/klimits.h '#ifndef _LINUX_KLIMITS_H
#define _LINUX_KLIMITS_H
#define K_MIN 1
#define K_MAX 64
struct state {
	int a;
	int count;
};
int k_log(const char *who, int v);
#endif
' \
drivers/other/other.c '#include <linux/klimits.h>

int other(struct state *s)
{
	return s->a + OTHER_ONLY;
}
' \
drivers/k/core.c '#include <linux/klimits.h>

int step(struct state *s, int v)
{
	int ret = 0;

	if (v < K_MIN)
		return -1;
	if (v > K_MAX)
		v = K_MAX;
	s->a = v;
	ret += 1;
	ret += 2;
	ret += 3;
	s->count = ret;
	return ret;
}
'

# 0001: the macros Kbuild defines for drivers/k/core.c
sed -i 's/^\tret += 2;$/\tret += K_DEBUG_LEVEL + DRV_TREE + TOP_FLAG;\n\tk_log(KBUILD_BASENAME, ARCH_FLAG_X);/' up/drivers/k/core.c
git -C up commit -qam "k: log with the build's names" || fail c1
# 0002: another folder's flag, and a name defined nowhere
sed -i 's/^\tret += 3;$/\tret += OTHER_ONLY;\n\tret += K_NOWHERE;/' up/drivers/k/core.c
git -C up commit -qam "k: names that are not its own" || fail c2

# the peer: gcc with the flags Kbuild gives drivers/k/core.o
if command -v gcc >/dev/null; then
	kflags="-D__KERNEL__ -DTOP_FLAG=1 -DARCH_FLAG_X -DDRV_TREE=3
		-DK_DEBUG_LEVEL=2"
	# shellcheck disable=SC2086 # the flags are words
	git -C up show HEAD~1:drivers/k/core.c |
		gcc $kflags '-DKBUILD_BASENAME="core"' -Iup/include \
			-fsyntax-only -x c - 2>"$ERR" ||
		fail "gcc refuses 0001 with Kbuild's flags: $(cat "$ERR")"
	# shellcheck disable=SC2086
	git -C up show HEAD:drivers/k/core.c |
		gcc $kflags '-DKBUILD_BASENAME="core"' -Iup/include \
			-fsyntax-only -x c - 2>/dev/null &&
		fail "gcc compiles 0002: OTHER_ONLY and K_NOWHERE are defined"
fi

kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/up\n\tref = HEAD~2\n' "$TEST_TMP" >ws/kernels/t.conf
expect_exit 0 kcarry -C ws import good --git up HEAD~2..HEAD~1
expect_exit 0 kcarry -C ws apply --no-refresh good t
stdout_has '^  0001 clean '
grep RISK "$OUT" && fail "a macro Kbuild defines was taken for a missing one"

printf '[kernel]\n\turl = %s/up\n\tref = HEAD~1\n' "$TEST_TMP" >ws/kernels/t2.conf
expect_exit 0 kcarry -C ws import bad --git up HEAD~1..HEAD
expect_exit 1 kcarry -C ws apply --no-refresh bad t2
stdout_has 'RISK: .*OTHER_ONLY: no such macro or constant in this tree'
stdout_has 'RISK: .*K_NOWHERE: no such macro or constant in this tree'
exit 0
