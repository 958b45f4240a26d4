#!/bin/sh
# A hunk that adds "#ifdef M" where its result stands inside the target's
# own "#ifndef M" (or the "#else" of its "#ifdef M") guards code that is
# never built: the target has the change in another form
# (docs/apply-rules.md, "Placement risk").  5.10's RT "Add local irq
# locks" onto 6.1 is this: 6.1 wraps local_lock_internal.h's non-RT locks
# in "#ifndef CONFIG_PREEMPT_RT", the RT patch's context fuzzes onto it,
# and kcarry said "3-way", exit 0.  Checked, with the patch made against
# the older form of the header:
#  - with the older form's blob in the target repository (a clean 3-way
#    merge) and as a quilt patch without an index line (fuzz): a risk
#    naming both lines, exit 1; GNU patch applies it, exit 0, and the
#    preprocessor is the peer: the added line is in neither
#    configuration's output;
#  - the same patch on the older form, an "#ifdef M" added inside the
#    target's "#else" of "#ifndef M" (M holds there), and one of another
#    macro: exit 0, no risk;
#  - an "#ifndef M" added inside that "#else": a risk.
. ./lib.sh

need gcc
need patch

OLD='#ifndef _LOCK_H
#define _LOCK_H

#include <lockdep.h>

typedef struct {
	int dep;
} lock_t;

static inline void lock_acquire(lock_t *l)
{
	l->dep++;
}

#endif
'
NEW='#ifndef _LOCK_H
#define _LOCK_H

#include <lockdep.h>

#ifndef CONFIG_PREEMPT_RT

typedef struct {
	int dep;
} lock_t;

static inline void lock_acquire(lock_t *l)
{
	l->dep++;
}

#else /* CONFIG_PREEMPT_RT */

typedef struct {
	int spin;
} lock_t;

static inline void lock_acquire(lock_t *l)
{
	l->spin++;
}

#endif /* CONFIG_PREEMPT_RT */

#endif
'
H=include/linux/lock.h
make_repo old "$H" "$OLD"
# the target: the older form, then the RT locks in another form
make_repo tgt "$H" "$OLD"
commit_file tgt "$H" "$NEW" "locks: RT in another form"
git -C tgt tag -f base >/dev/null 2>&1 || fail "tag"

# the patch, made with git against the older form (its index line names
# the older blob, which the target repository holds)
git clone -q old up || fail "clone"
cat >up/$H <<'EOT'
#ifndef _LOCK_H
#define _LOCK_H

#include <lockdep.h>

typedef struct {
#ifdef CONFIG_PREEMPT_RT
	int rt_owner;
#else
	int dep;
#endif
} lock_t;

static inline void lock_acquire(lock_t *l)
{
	l->dep++;
}

#endif
EOT
git -C up commit -qam "rt: add local irq locks" || fail "commit"
mkdir -p q-git q-quilt
git -C up format-patch -q -1 --stdout >q-git/rt.patch || fail "format-patch"
echo rt.patch >q-git/series
git -C up diff HEAD~1 -- "$H" | sed -e '/^index /d' -e '/^diff --git/d' \
	>q-quilt/rt.patch
echo rt.patch >q-quilt/series
grep -q '^index ' q-quilt/rt.patch && fail "quilt patch has an index line"

ws_targets tgt old
expect_exit 0 kcarry -C ws import git@v1 q-git
expect_exit 0 kcarry -C ws import quilt@v1 q-quilt

for s in git quilt; do
	expect_exit 1 kcarry -C ws apply --no-refresh "$s@v1" tgt
	stdout_has 'adds "#ifdef CONFIG_PREEMPT_RT" at line [0-9]+, inside the target.s "#ifndef CONFIG_PREEMPT_RT" of line 6: what it guards is never built'
	stdout_has 'placement risk'
done
# the merge path was taken for the git patch
expect_exit 1 kcarry -C ws apply --no-refresh git@v1 tgt
stdout_has '3-way'

# GNU patch applies it, exit 0; the added field is built in neither
# configuration
git -C tgt show base:"$H" >gnu.h
patch -s gnu.h <q-quilt/rt.patch >gnu.log 2>&1 || { cat gnu.log; fail "GNU patch failed"; }
grep -q rt_owner gnu.h || fail "GNU patch did not add the field"
for d in -DCONFIG_PREEMPT_RT -UCONFIG_PREEMPT_RT; do
	sed '/^#include/d' gnu.h | gcc -E -P "$d" -x c - >pp.out 2>pp.err ||
		{ cat pp.err; fail "gcc -E"; }
	grep -q 'int dep;\|int spin;' pp.out || fail "gcc -E: no struct"
	grep -q rt_owner pp.out && fail "rt_owner is built with $d: the risk is false"
done

# on the form it was made for: no risk
for s in git quilt; do
	expect_exit 0 kcarry -C ws apply --no-refresh "$s@v1" old
	if grep -qi 'risk\|never built' "$OUT"; then cat "$OUT"; fail "$s on old: a risk"; fi
done

# one patch per hunk on the target's own form
quilt_series inrt <<'EOT'
--- a/include/linux/lock.h
+++ b/include/linux/lock.h
@@ -23,6 +23,9 @@
 static inline void lock_acquire(lock_t *l)
 {
 	l->spin++;
+#ifdef CONFIG_PREEMPT_RT
+	rt_note(l);
+#endif
 }
 
 #endif /* CONFIG_PREEMPT_RT */
EOT
quilt_series other <<'EOT'
--- a/include/linux/lock.h
+++ b/include/linux/lock.h
@@ -12,6 +12,9 @@
 static inline void lock_acquire(lock_t *l)
 {
 	l->dep++;
+#if defined(CONFIG_DEBUG_LOCKS)
+	debug_note(l);
+#endif
 }
 
 #else /* CONFIG_PREEMPT_RT */
EOT
quilt_series notrt <<'EOT'
--- a/include/linux/lock.h
+++ b/include/linux/lock.h
@@ -23,6 +23,9 @@
 static inline void lock_acquire(lock_t *l)
 {
 	l->spin++;
+#if !defined(CONFIG_PREEMPT_RT)
+	dep_note(l);
+#endif
 }
 
 #endif /* CONFIG_PREEMPT_RT */
EOT
for s in inrt other; do
	expect_exit 0 kcarry -C ws apply --no-refresh "$s@v1" tgt
	if grep -qi 'risk\|never built' "$OUT"; then cat "$OUT"; fail "$s: a risk"; fi
	stdout_has 'clean'
done
expect_exit 1 kcarry -C ws apply --no-refresh notrt@v1 tgt
stdout_has 'adds "#if !defined\(CONFIG_PREEMPT_RT\)" at line 26, inside the "#else" \(line 17\) of the target.s "#ifndef CONFIG_PREEMPT_RT" of line 6'
exit 0
