#!/bin/sh
# Adaptation, rule 4, adversarial: an insertion whose lines already stand
# elsewhere in the target's file.  Debian's "x86: Allow to enable RT"
# adds "select ARCH_SUPPORTS_RT" to config X86_64; 6.12 selects it from
# config X86 already.  Its neighbours still anchor a place, but adding
# the line there would make the change twice: it stays a conflict.
#  - Kconfig: the select stands in another entry already: a conflict;
#  - Makefile: the object it adds is built already: a conflict;
#  - c.c: in C a statement may well repeat in another function (Debian's
#    ARM irq fix adds the same two lines to two fault handlers): the call
#    standing elsewhere does not stop the adaptation;
#  - new.c (the rule still works): the same insertion where the line
#    stands nowhere: adapted.
here=$(pwd)
. ./lib.sh
. "$here/adapt-lib.sh"

KC_UP='config X86_64
	def_bool y
	select ARCH_HAS_GIGANTIC_PAGE
	select ARCH_SUPPORTS_INT128 if CC_HAS_INT128
	select ARCH_USE_CMPXCHG_LOCKREF
	select HAVE_ARCH_SOFT_DIRTY

config X86
	def_bool y
	select ARCH_SUPPORTS_LTO_CLANG
'
KC_TGT='config X86_64
	def_bool y
	select ARCH_HAS_GIGANTIC_PAGE
	select ARCH_SUPPORTS_INT128 if CC_HAS_INT128
	select ARCH_SUPPORTS_PER_VMA_LOCK
	select HAVE_ARCH_SOFT_DIRTY

config X86
	def_bool y
	select ARCH_SUPPORTS_LTO_CLANG
	select ARCH_SUPPORTS_RT
'
C_UP='static void setup(struct ctx *c)
{
	if (enabled(c))
		init(c);

	probe_old(c);
	start(c);
}
'
C_TGT='static void setup(struct ctx *c)
{
	if (enabled(c))
		init(c);

	start(c);
	secure_boot_setup(c);
}
'
MK_UP='obj-y += core.o
obj-y += probe.o
obj-$(CONFIG_OLD) += old.o
obj-y += tail.o
'
MK_TGT='obj-y += core.o
obj-y += probe.o
obj-y += tail.o
obj-y += secure_boot.o
'
make_repo up d/Kconfig "$KC_UP" d/c.c "$C_UP" d/new.c "$C_UP" d/Makefile "$MK_UP"
commit_file up d/Makefile "$(printf '%s' "$MK_UP" | sed 's/^obj-y += probe.o$/&\
obj-y += secure_boot.o/')
" "Makefile: build secure"
commit_file up d/Kconfig "$(printf '%s' "$KC_UP" | sed 's/^	select ARCH_SUPPORTS_INT128 if CC_HAS_INT128$/&\
	select ARCH_SUPPORTS_RT/')
" "Kconfig: allow RT"
FIX='s/^	probe_old(c);$/	secure_boot_setup(c);\
\
&/'
commit_file up d/c.c "$(printf '%s' "$C_UP" | sed "$FIX")
" "c: secure boot first"
commit_file up d/new.c "$(printf '%s' "$C_UP" | sed "$FIX")
" "new: secure boot first"
make_repo tgt d/Kconfig "$KC_TGT" d/c.c "$C_TGT" d/Makefile "$MK_TGT" \
	d/new.c "$(printf '%s' "$C_TGT" | sed '/secure_boot_setup/d')
"
adapt_ws rt

expect_exit 1 kcarry -C ws apply rt old
stdout_has '^  0001 conflict          Makefile: build secure$'
stdout_has '^  0002 conflict          Kconfig: allow RT$'
stdout_has '^  0003 adapted           c: secure boot first$'
stdout_has '^  0004 adapted           new: secure boot first$'
exit 0
