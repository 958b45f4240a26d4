#!/bin/sh
# "adds F(), which the target already defines" (docs/apply-rules.md,
# "Placement risk") only where two definitions meet.  Not one, each a
# false alarm kcarry raised on Debian's 5.10 series:
#  - a forward declaration over several lines (RT's "sched: Add
#    migrate_disable()" declares __set_cpus_allowed_ptr() before its
#    first caller; on 5.10.223's own tree);
#  - a definition in an "#ifdef CONFIG_PREEMPT_RT ... #else" the hunk
#    opens before the target's (RT's zram slot locks), a function that
#    replaces the "#define" the hunk removes, and a per-CPU variable of
#    another name (RT's 5.10.223 series on 5.10.262).
# The compiler is the peer: every result kcarry passes compiles with and
# without CONFIG_PREEMPT_RT, and the one whose risk it keeps (a
# definition over several lines added where the file already has one) is
# what gcc calls a redefinition.
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
ZRAM='struct zram { int *table; };
#define DEFINE_PER_CPU(type, name) __typeof__(type) name

struct mapping_area { int vm; };
static DEFINE_PER_CPU(struct mapping_area, zs_map_area);

static int slot_trylock(struct zram *z, int i)
{
	return z->table[i];
}

#ifdef CONFIG_SMP
static inline int t_trylock(int *t)
{
	return !*t;
}
#else
#define t_trylock(t) 1
#endif

int use(struct zram *z)
{
	return slot_trylock(z, 0) + t_trylock(z->table) + zs_map_area.vm;
}
'
make_repo sched kernel/sched/core.c "$SCHED" drivers/zram.c "$ZRAM"
ws_targets sched

# compiles SERIES [FILE [GCC-OPTION]]: the result of SERIES on sched
# (kernel/sched/core.c by default), as gcc sees it
compiles() {
	git -C sched show "kcarry/$1/v1/sched:${2:-kernel/sched/core.c}" >"$1.c" ||
		fail "$1: no result commit"
	gcc -fsyntax-only -Wall ${3:-} "$1.c" 2>"$1.gcc"
}
# no_risk SERIES: applied, exit 0, no risk said
no_risk() {
	expect_exit 0 kcarry -C ws apply "$1@v1" sched
	if grep -qi 'risk\|already defines' "$OUT"; then cat "$OUT"; fail "$1: a risk"; fi
}

quilt_series declare <<'EOF'
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
quilt_series define <<'EOF'
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

quilt_series rt <<'EOF'
--- a/drivers/zram.c
+++ b/drivers/zram.c
@@ -1,13 +1,27 @@
 struct zram { int *table; };
 #define DEFINE_PER_CPU(type, name) __typeof__(type) name
 
+struct pa_lock { int l; };
+static DEFINE_PER_CPU(struct pa_lock, pa_lock) = {
+	.l = 1,
+};
+
 struct mapping_area { int vm; };
 static DEFINE_PER_CPU(struct mapping_area, zs_map_area);
 
+#ifdef CONFIG_PREEMPT_RT
+static int slot_trylock(struct zram *z, int i)
+{
+	return z->table[i] + 1;
+}
+
+#else
+
 static int slot_trylock(struct zram *z, int i)
 {
 	return z->table[i];
 }
+#endif
 
 #ifdef CONFIG_SMP
 static inline int t_trylock(int *t)
@@ -15,10 +29,10 @@ static inline int t_trylock(int *t)
 	return !*t;
 }
 #else
-#define t_trylock(t) 1
+static inline int t_trylock(int *t) { return 1; }
 #endif
 
 int use(struct zram *z)
 {
-	return slot_trylock(z, 0) + t_trylock(z->table) + zs_map_area.vm;
+	return slot_trylock(z, 0) + t_trylock(z->table) + zs_map_area.vm + pa_lock.l;
 }
EOF

# the declaration: applied exactly, no risk, exit 0; and it compiles
no_risk declare
stdout_has 'clean'
compiles declare || { cat declare.gcc; fail "declare: gcc rejects the result"; }
git -C sched worktree add -q "$TEST_TMP/gnu" base || fail worktree
patch -s -p1 -F0 -d "$TEST_TMP/gnu" <q-declare/declare.patch ||
	fail "GNU patch -F0 refuses the declaration"
cmp -s declare.c "$TEST_TMP/gnu/kernel/sched/core.c" ||
	fail "kcarry's result differs from GNU patch's"

# the definitions in other branches, of another name, or replacing a
# macro: no risk, and the result compiles in every configuration
no_risk rt
for cfg in "" -DCONFIG_PREEMPT_RT -DCONFIG_SMP "-DCONFIG_SMP -DCONFIG_PREEMPT_RT"; do
	compiles rt drivers/zram.c "$cfg" ||
		{ cat rt.gcc; fail "rt: gcc rejects the result with '$cfg'"; }
done

# a definition over the same lines: still a risk, exit 1, and gcc agrees
expect_exit 1 kcarry -C ws apply define@v1 sched
stdout_has 'adds set_cpus_allowed_ptr\(\), which the target already defines at line 10'
compiles define && fail "define: gcc takes two definitions"
grep -q 'redefinition' define.gcc || { cat define.gcc; fail "define: gcc says no redefinition"; }
exit 0
