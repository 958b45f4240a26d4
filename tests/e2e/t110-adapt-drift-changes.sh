#!/bin/sh
# Adaptation, rule 4 change by change: the hunk's changed lines no longer
# stand together in the target, so each change is anchored on its own
# (as Debian's maintainers ported their 6.1 patches to 6.12):
#  - after.c: an insertion whose context after it is gone (the target
#    dropped that line), the context before it standing once: the lines
#    go after that context;
#  - before.c: an insertion at the top of a function whose context before
#    it is gone, the line after it standing once: they go before it;
#  - two.c: one hunk adding a declaration and a #define at file scope,
#    where the target dropped a neighbour of each and added a line
#    between them: both placed, the new line kept between them;
#  - Kconfig: a select added between two selects of a sorted list that
#    now stand apart (the target added one between them): it goes where
#    the list stays sorted.
# Every one is "adapted" (exit 1 until accepted), its note says how each
# change was anchored, the result is the maintainers' port, and the
# refreshed patch applies with git apply --check.
here=$(pwd)
. ./lib.sh
. "$here/adapt-lib.sh"

AFTER_UP='static void setup(struct ctx *c)
{
	if (enabled(c))
		init(c);

	probe_old(c);
	start(c);
}
'
AFTER_TGT='static void setup(struct ctx *c)
{
	if (enabled(c))
		init(c);

	start(c);
	finish(c);
}
'
BEFORE_UP='static int
sect_fault(struct ctx *c)
{
	if (user(c))
		harden(c);

	report(c);

	return 0;
}
'
BEFORE_TGT='static int
sect_fault(struct ctx *c)
{
	report(c);
	return 0;
}
'
TWO_UP='int enabled = 0;
EXPORT(enabled);

static int map_gfx = 1;
static int superpage = 1;
static int identity;

#define MAP_GFX		2
#define MAP_AZALIA	4

const struct ops ops;
'
TWO_TGT='int enabled = 0;
EXPORT(enabled);

static int superpage = 1;
static int identity;
static int disable_gfx;

#define MAP_AZALIA	4

const struct ops ops;
'
KC_UP='config ARM
	bool
	default y
	select ARCH_SUPPORTS_ATOMIC_RMW
	select ARCH_SUPPORTS_HUGETLBFS if ARM_LPAE
	select ARCH_USE_BUILTIN_BSWAP
	select ARCH_USE_CMPXCHG_LOCKREF
	select ARCH_USE_MEMTEST
'
KC_TGT='config ARM
	bool
	default y
	select ARCH_SUPPORTS_CFI_CLANG
	select ARCH_SUPPORTS_HUGETLBFS if ARM_LPAE
	select ARCH_SUPPORTS_PER_VMA_LOCK
	select ARCH_USE_BUILTIN_BSWAP
	select ARCH_USE_CMPXCHG_LOCKREF
	select ARCH_USE_MEMTEST
'
make_repo up d/after.c "$AFTER_UP" d/before.c "$BEFORE_UP" d/two.c "$TWO_UP" \
	d/Kconfig "$KC_UP"
commit_file up d/after.c "$(printf '%s' "$AFTER_UP" | sed 's/^	probe_old(c);$/	secure(c);\
\
	probe_old(c);/')
" "after: secure first"
commit_file up d/before.c "$(printf '%s' "$BEFORE_UP" | sed 's/^	report(c);$/	irq_on(c);\
	report(c);/')
" "before: interrupts on"
commit_file up d/two.c "$(printf '%s' "$TWO_UP" | sed 's/^static int map_gfx = 1;$/&\
static int map_int = 1;/; s/^#define MAP_AZALIA	4$/&\
#define MAP_INT		8/')
" "two: integrated GPU option"
commit_file up d/Kconfig "$(printf '%s' "$KC_UP" | sed 's/^	select ARCH_SUPPORTS_HUGETLBFS if ARM_LPAE$/&\
	select ARCH_SUPPORTS_RT if POSIX_TIMERS/')
" "Kconfig: allow RT"
make_repo tgt d/after.c "$AFTER_TGT" d/before.c "$BEFORE_TGT" d/two.c "$TWO_TGT" \
	d/Kconfig "$KC_TGT"
adapt_ws ch

expect_exit 1 kcarry -C ws apply ch old
cp "$OUT" apply.txt
for p in 0001 0002 0003 0004; do
	grep -Eq "^  $p adapted " apply.txt || { cat apply.txt; fail "$p not adapted"; }
done
stdout_has 'd/after.c hunk 1: adapted .*each change anchored alone: at line 6 after the context before it \(the context after it is gone\)$'
stdout_has 'd/before.c hunk 1: adapted .*at line 4 before the context after it \(the context before it is gone\)$'
stdout_has 'd/two.c hunk 1: adapted .*at line 4 before the context after it .*; at line 9 between its context lines$'
stdout_has 'd/Kconfig hunk 1: adapted .*at line 7 in sorted order between its context lines, which stand apart$'
stdout_has 'adapted by rule drifted-context; not accepted yet'

expect_exit 0 kcarry -C ws apply --accept-adapted ch old
# the maintainers' port of each
want() { # FILE SED
	printf '%s' "$2" >"want"
	git -C tgt show "kcarry/ch/v1/old:$1" >got
	diff -u want got || fail "$1: not the expected port"
}
want d/after.c "$(printf '%s' "$AFTER_TGT" | sed '4s/$/\
\
	secure(c);/')
"
want d/before.c "$(printf '%s' "$BEFORE_TGT" | sed 's/^	report(c);$/	irq_on(c);\
	report(c);/')
"
want d/two.c "$(printf '%s' "$TWO_TGT" | sed 's/^static int superpage = 1;$/static int map_int = 1;\
&/; s/^#define MAP_AZALIA	4$/&\
#define MAP_INT		8/')
"
want d/Kconfig "$(printf '%s' "$KC_TGT" | sed 's/^	select ARCH_SUPPORTS_PER_VMA_LOCK$/&\
	select ARCH_SUPPORTS_RT if POSIX_TIMERS/')
"
# the refreshed patches apply to the target as they are
git clone -q tgt chk && git -C chk checkout -q base
for rp in ws/patches/ch/v1/old/*.patch; do
	git -C chk apply --check "$TEST_TMP/$rp" || fail "git apply --check refuses $rp"
done
exit 0
