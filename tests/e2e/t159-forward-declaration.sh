#!/bin/sh
# A forward declaration over several lines is not a second definition
# (docs/apply-rules.md, "Placement risk"): RT's 5.10 "sched: Add
# migrate_disable()" declares __set_cpus_allowed_ptr(), which 5.10
# defines further down, before its first caller; kcarry called that a
# placement risk on Debian's own series and tree, a false alarm.  The
# compiler is the peer: the result that kcarry passes compiles, and the
# one whose risk it keeps (a definition over several lines added where
# the file already has one) is what gcc calls a redefinition.
. ./lib.sh

need gcc
need patch

SCHED='struct task { int cpu; };

static int other(int a);

void migrate_enable(struct task *p)
{
	p->cpu = 0;
}

static int set_cpus_allowed_ptr(struct task *p,
				int flags)
{
	return p->cpu + flags;
}

int set_cpus_allowed(struct task *p)
{
	return set_cpus_allowed_ptr(p, 0) + other(1);
}

static int other(int a)
{
	return a;
}
'
make_repo sched kernel/sched/core.c "$SCHED"
ws_targets sched

series() {
	mkdir -p "q-$1"
	cat >"q-$1/$1.patch"
	echo "$1.patch" >"q-$1/series"
	expect_exit 0 kcarry -C ws import "$1@v1" "q-$1"
}
# compiles SERIES: the result of SERIES on sched, as gcc sees it
compiles() {
	git -C sched show "kcarry/$1/v1/sched:kernel/sched/core.c" >"$1.c" ||
		fail "$1: no result commit"
	gcc -fsyntax-only -Wall "$1.c" 2>"$1.gcc"
}

series declare <<'EOF'
--- a/kernel/sched/core.c
+++ b/kernel/sched/core.c
@@ -2,9 +2,13 @@
 
 static int other(int a);
 
+static int set_cpus_allowed_ptr(struct task *p,
+				int flags);
+
 void migrate_enable(struct task *p)
 {
 	p->cpu = 0;
+	set_cpus_allowed_ptr(p, 1);
 }
 
 static int set_cpus_allowed_ptr(struct task *p,
EOF
series define <<'EOF'
--- a/kernel/sched/core.c
+++ b/kernel/sched/core.c
@@ -2,6 +2,12 @@
 
 static int other(int a);
 
+static int set_cpus_allowed_ptr(struct task *p,
+				int flags)
+{
+	return flags;
+}
+
 void migrate_enable(struct task *p)
 {
 	p->cpu = 0;
EOF

# the declaration: applied exactly, no risk, exit 0; and it compiles
expect_exit 0 kcarry -C ws apply declare@v1 sched
stdout_has 'clean'
if grep -qi 'risk\|already defines' "$OUT"; then cat "$OUT"; fail "declare: a risk"; fi
compiles declare || { cat declare.gcc; fail "declare: gcc rejects the result"; }
git -C sched worktree add -q "$TEST_TMP/gnu" base || fail worktree
patch -s -p1 -F0 -d "$TEST_TMP/gnu" <q-declare/declare.patch ||
	fail "GNU patch -F0 refuses the declaration"
cmp -s declare.c "$TEST_TMP/gnu/kernel/sched/core.c" ||
	fail "kcarry's result differs from GNU patch's"

# a definition over the same lines: still a risk, exit 1, and gcc agrees
expect_exit 1 kcarry -C ws apply define@v1 sched
stdout_has 'adds set_cpus_allowed_ptr\(\), which the target already defines at line 10'
compiles define && fail "define: gcc takes two definitions"
grep -q 'redefinition' define.gcc || { cat define.gcc; fail "define: gcc says no redefinition"; }
exit 0
