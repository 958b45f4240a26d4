#!/bin/sh
# Four placement verdicts of the apply engine, driven through the binary
# and checked against GNU patch on the same input (docs/apply-rules.md):
#  1. the postimage matches twice with fuzz (a kept "typedef struct {"
#     stands twice), the preimage nowhere (6.1 renamed the guard the
#     patch removes): already applied, no conflict; GNU patch -R
#     --dry-run agrees;
#  2. a new Kconfig entry whose leading context and section the target
#     lacks, placed by the "config SECURITY" after it: fuzzy, no risk,
#     and the same file GNU patch -F2 writes;
#  3. a patch renaming a function in one hunk and changing it in the
#     next, already applied: no risk for the later hunk found in the new
#     name; GNU patch -R --dry-run agrees;
#  4. already applied where the code moved (the loop of del_sync() now
#     in __del_sync()): already applied, not a conflict.
. ./lib.sh

need patch

# the file $3 of series $1's result on target $2
result_file() {
	git -C "$TEST_TMP/$2" show "kcarry/$1/v1/$2:$3" 2>/dev/null ||
		git -C ws/kernels/cache/"$2".git show "kcarry/$1/v1/$2:$3"
}
no_risk() {
	if grep -qi 'risk' "$OUT"; then cat "$OUT"; fail "$1: a risk"; fi
}
gnu_copy() {
	git -C "$1" worktree add -q "$TEST_TMP/gnu-$1" base 2>/dev/null ||
		fail "worktree $1"
}
# already_as_gnu SERIES TARGET: kcarry says SERIES is already applied on
# TARGET, without a risk, and GNU patch -R finds it applied there
already_as_gnu() {
	expect_exit 0 kcarry -C ws apply "$1@v1" "$2"
	stdout_has 'already applied'
	no_risk "$2"
	gnu_copy "$2"
	patch -s -p1 -R --dry-run -d "$TEST_TMP/gnu-$2" <"q-$1/$1.patch" ||
		fail "$2: GNU patch -R does not find the change applied"
}

TYPES='/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ALPHA_SPINLOCK_TYPES_H
#define _ALPHA_SPINLOCK_TYPES_H

#ifndef __LINUX_SPINLOCK_TYPES_RAW_H
# error "please do not include this file directly"
#endif

typedef struct {
	volatile unsigned int lock;
} arch_spinlock_t;

#define __ARCH_SPIN_LOCK_UNLOCKED	{ 0 }

typedef struct {
	volatile unsigned int lock;
} arch_rwlock_t;

#define __ARCH_RW_LOCK_UNLOCKED		{ 0 }

#endif
'
KCONFIG='menu "Security options"

source "security/keys/Kconfig"

config SECURITY_DMESG_RESTRICT
	bool "Restrict unprivileged access to the kernel syslog"
	default n
	help
	  If you are unsure how to answer this question, answer N.

config SECURITY
	bool "Enable different security models"
	depends on SYSFS
	help
	  This allows you to choose different security modules.

endmenu
'
HIGHMEM='#include <linux/highmem.h>
#include <asm/fixmap.h>

unsigned long highstart_pfn, highend_pfn;

void __init kmap_init(void)
{
	unsigned long vaddr;

	vaddr = PKMAP_BASE;
	fixrange_init(vaddr, vaddr + PAGE_SIZE*LAST_PKMAP, swapper_pg_dir);
	pkmap_page_table = pte;
}
'
TIMER='static int __del_sync(struct timer *t, bool shutdown)
{
	/*
	 * no hardirq
	 */
	WARN_ON(in_hardirq() && !safe);

	if (IS_ENABLED(RT) && !safe)
		assert_preemptible();

	do {
		ret = __try_del(t, shutdown);

		if (ret < 0)
			relax();
	} while (ret < 0);
	return ret;
}

int del_sync(struct timer *t)
{
	return __del_sync(t, false);
}
'
make_repo tie arch/alpha/include/asm/spinlock_types.h "$TYPES"
make_repo entry security/Kconfig "$KCONFIG"
make_repo rename arch/csky/mm/highmem.c "$HIGHMEM"
make_repo moved kernel/time/timer.c "$TIMER"
ws_targets tie entry rename moved

quilt_series guard <<'EOF'
--- a/arch/alpha/include/asm/spinlock_types.h
+++ b/arch/alpha/include/asm/spinlock_types.h
@@ -2,10 +2,6 @@
 #ifndef _ALPHA_SPINLOCK_TYPES_H
 #define _ALPHA_SPINLOCK_TYPES_H
 
-#ifndef __LINUX_SPINLOCK_TYPES_H
-# error "please do not include this file directly"
-#endif
-
 typedef struct {
 	volatile unsigned int lock;
 } arch_spinlock_t;
EOF
quilt_series perf <<'EOF'
--- a/security/Kconfig
+++ b/security/Kconfig
@@ -51,6 +51,11 @@ config PROC_MEM_NO_FORCE
 
 endchoice
 
+config SECURITY_PERF_EVENTS_RESTRICT
+	bool "Restrict unprivileged use of performance events"
+	depends on PERF_EVENTS
+	help
+
 config SECURITY
 	bool "Enable different security models"
 	depends on SYSFS
EOF
quilt_series kmap <<'EOF'
--- a/arch/csky/mm/highmem.c
+++ b/arch/csky/mm/highmem.c
@@ -3,7 +3,7 @@
 
 unsigned long highstart_pfn, highend_pfn;
 
-static void __init kmap_pages_init(void)
+void __init kmap_init(void)
 {
 	unsigned long vaddr;
 
@@ -11,12 +11,3 @@ static void __init kmap_pages_init(void)
 	fixrange_init(vaddr, vaddr + PAGE_SIZE*LAST_PKMAP, swapper_pg_dir);
 	pkmap_page_table = pte;
 }
-
-void __init kmap_init(void)
-{
-	unsigned long vaddr;
-
-	kmap_pages_init();
-
-	vaddr = __fix_to_virt(FIX_KMAP_BEGIN);
-}
EOF
quilt_series expiry <<'EOF'
--- a/kernel/time/timer.c
+++ b/kernel/time/timer.c
@@ -3,6 +3,9 @@ int del_sync(struct timer *t)
 	 */
 	WARN_ON(in_irq() && !safe);
 
+	if (IS_ENABLED(RT) && !safe)
+		assert_preemptible();
+
 	do {
 		ret = try_del(t);
 
EOF

# 1. the tie of two postimage places
already_as_gnu guard tie

# 2. the new entry, placed by the next definition
expect_exit 0 kcarry -C ws apply perf@v1 entry
stdout_has 'fuzz'
no_risk "entry"
gnu_copy entry
patch -s -p1 -F2 -d "$TEST_TMP/gnu-entry" <q-perf/perf.patch >/dev/null ||
	fail "GNU patch -F2"
result_file perf entry security/Kconfig >got.kconfig || fail "no result"
cmp -s got.kconfig gnu-entry/security/Kconfig ||
	{ diff -u gnu-entry/security/Kconfig got.kconfig; fail "not GNU's file"; }

# 3. the later hunk of a patch that renames its function
already_as_gnu kmap rename

# 4. already applied where the code moved: no conflict, no risk
expect_exit 0 kcarry -C ws apply expiry@v1 moved
stdout_has 'already applied'
no_risk "moved"
