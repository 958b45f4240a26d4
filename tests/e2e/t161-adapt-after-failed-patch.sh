#!/bin/sh
# No adaptation of a hunk that meets lines an earlier patch of the series
# changed and failed to apply (docs/apply-rules.md, "Adaptation"): the
# function it names is missing because that patch did not apply, not
# because the code moved.  Debian's 5.10.223 RT series on 5.10.262: 0176
# adds an RT ww_mutex_lock() to rtmutex.c and fails; 0314 switches its
# export to EXPORT_SYMBOL, and rule 1 moved that change into mainline's
# ww_mutex_lock() in mutex.c, a wrong proposal.  Here patch 1 adds
# lock_rt() to locking/rt.c and conflicts; patch 2 changes lock_rt()'s
# export, while locking/plain.c defines the other lock_rt():
#  - patch 2 stays a conflict whose cause names patch 1, plain.c is left
#    as it was, nothing is committed for it;
#  - with patch 1 left out of the series (no failed patch), the same
#    patch 2 is adapted into plain.c as before: rule 1 still works, and
#    GNU patch -F0 takes the adapted hunk there;
#  - drift (rule 4) the same way: a patch whose context holds the line a
#    failed patch adds stays a conflict in apply, and 'kcarry resolve'
#    shows it to a person as that conflict, not as a proposal (resolve
#    ran its own adaptation and proposed it).
here=$(pwd)
. ./lib.sh
. "$here/adapt-lib.sh"
need patch

RT='#include "rt.h"

int rt_init(void)
{
	return setup_rt(0);
}
'
PLAIN='#include "plain.h"

int __sched
lock_rt(struct lock *l, struct ctx *c)
{
	int ret;

	ret = __lock(l, c);

	return ret;
}
EXPORT_SYMBOL_GPL(lock_rt);

void unlock_plain(struct lock *l)
{
	__unlock(l);
}
'
make_repo tree kernel/locking/rt.c "$RT" kernel/locking/plain.c "$PLAIN"
ws_targets tree

mkdir -p q-both q-alone
cat >q-both/0001-add-lock_rt.patch <<'EOF'
Subject: [PATCH 1/2] locking: add lock_rt() on RT

--- a/kernel/locking/rt.c
+++ b/kernel/locking/rt.c
@@ -2,5 +2,16 @@
 
 int rt_init(void)
 {
-	return setup_rt(1);
+	return setup_rt(2);
 }
+
+int __sched
+lock_rt(struct lock *l, struct ctx *c)
+{
+	int ret;
+
+	ret = rt_lock(l, c);
+
+	return ret;
+}
+EXPORT_SYMBOL_GPL(lock_rt);
EOF
cat >q-both/0002-export-lock_rt.patch <<'EOF'
Subject: [PATCH 2/2] locking: export lock_rt() to all

--- a/kernel/locking/rt.c
+++ b/kernel/locking/rt.c
@@ -10,5 +10,5 @@ lock_rt(struct lock *l, struct ctx *c)
 	ret = rt_lock(l, c);
 
 	return ret;
 }
-EXPORT_SYMBOL_GPL(lock_rt);
+EXPORT_SYMBOL(lock_rt);
EOF
printf '0001-add-lock_rt.patch\n0002-export-lock_rt.patch\n' >q-both/series
cp q-both/0002-export-lock_rt.patch q-alone/
echo 0002-export-lock_rt.patch >q-alone/series
expect_exit 0 kcarry -C ws import both@v1 q-both
expect_exit 0 kcarry -C ws import alone@v1 q-alone

# after the failed patch 1: a conflict naming it, plain.c untouched
expect_exit 1 kcarry -C ws apply both@v1 tree
stdout_has '0001 +conflict'
stdout_has '0002 +conflict'
stdout_has 'meets lines of patch 0001, which did not apply'
not_adapted tree kcarry/both/v1/tree
expect_exit 1 kcarry -C ws apply --json both@v1 tree
python3 - "$OUT" <<'PY' || fail "JSON: patch 2 not a failed-patch conflict"
import json, sys
p = json.load(open(sys.argv[1]))["results"][0]["patches"][1]
h = p["files"][0]["hunks"][0]
assert p["outcome"] == "conflict", p["outcome"]
assert h["adaptation"] is None, h["adaptation"]
assert h["cause"]["failed_patches"] == [1], h["cause"]
PY

# alone: rule 1 moves it into plain.c, and GNU patch -F0 takes the
# adapted hunk there
expect_exit 1 kcarry -C ws apply alone@v1 tree
stdout_has 'adapted'
expect_exit 1 kcarry -C ws apply --json alone@v1 tree
python3 - "$OUT" >adapted.patch <<'PY' || fail "JSON: patch not adapted"
import json, sys
h = json.load(open(sys.argv[1]))["results"][0]["patches"][0]["files"][0]["hunks"][0]
a = h["adaptation"]
assert a["rule"] == "moved-code", a
assert "moved from kernel/locking/rt.c to kernel/locking/plain.c" in a["note"], a
sys.stdout.write(a["adapted"])
PY
git -C tree worktree add -q "$TEST_TMP/gnu" base || fail worktree
patch -s -p1 -F0 -d "$TEST_TMP/gnu" <adapted.patch >/dev/null ||
	fail "GNU patch -F0 refuses the adapted hunk"
grep -q '^EXPORT_SYMBOL(lock_rt);' "$TEST_TMP/gnu/kernel/locking/plain.c" ||
	fail "the adapted hunk does not change plain.c's export"

# rule 4 after a failed patch: apply and resolve agree on a conflict
make_repo drift f.c "$FOO_UP"
cat >>ws/kernels/drift.conf <<EOT
[kernel]
	name = drift
	url = $TEST_TMP/drift
	ref = base
EOT
mkdir -p q-drift
cat >q-drift/0001-trace.patch <<'EOF'
Subject: [PATCH 1/2] trace step two

--- a/f.c
+++ b/f.c
@@ -6,5 +6,6 @@ int foo(struct ctx *c)
 	ret = step_one_x(c);
 	if (err)
 		goto fail;
+	trace(c);
 	ret = step_two(c, 1);
 	unlock_x(c);
EOF
cat >q-drift/0002-flag.patch <<'EOF'
Subject: [PATCH 2/2] pass the flag

--- a/f.c
+++ b/f.c
@@ -5,8 +5,8 @@ int foo(struct ctx *c)
 	lock(c);
 	ret = step_one(c);
-	if (ret)
+	if (ret < 0)
 		goto out;
 	trace(c);
-	ret = step_two(c, 0);
+	ret = step_two(c, FLAG);
 	unlock(c);
 out:
EOF
printf '0001-trace.patch\n0002-flag.patch\n' >q-drift/series
expect_exit 0 kcarry -C ws import drift@v1 q-drift
expect_exit 1 kcarry -C ws apply drift@v1 drift
stdout_has '0002 +conflict'
stdout_has 'meets lines of patch 0001, which did not apply'
not_adapted drift kcarry/drift/v1/drift
expect_exit 0 kcarry -C ws resolve drift@v1 drift 2
stdout_has 'conflicts on drift'
grep -q 'adapted' "$OUT" && { cat "$OUT"; fail "resolve proposes an adaptation"; }
[ ! -e ws/.kcarry/resolve/drift/v1/drift/files/f.c.adapted ] ||
	fail "resolve wrote f.c.adapted"
grep -q '^<<<<<<<' ws/.kcarry/resolve/drift/v1/drift/files/f.c ||
	fail "resolve shows no conflict markers"
exit 0
