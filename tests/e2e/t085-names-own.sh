#!/bin/sh
# The names check knows what a series defines itself and what macros
# make, so that a clean series raises no false risk (issue 16, 1):
#  - a goto label one hunk uses and another hunk of the patch defines
#    (Debian 6.1.176's act_pedit fix: out_free_keys);
#  - a name an earlier patch of the series declares in a shared header;
#  - an enum constant and a struct member the same patch adds;
#  - SCHED_FEAT(x, true) lines in a branch of an #ifdef, used through
#    sched_feat(x) (RT's PREEMPT_LAZY);
#  - trace_x made by TRACE_EVENT(x, ...) and DEFINE_EVENT(c, x, ...) the
#    patch adds, through the tree's trace_##name, and trace_x_enabled
#    through trace_##name##_enabled;
#  - a name a macro of the patch builds by ## pasting;
#  - a lower-case enum constant added where the hunk header names the
#    enum (6.12 RT's preempt_dynamic_laziest);
#  - a name handed to a macro that pastes it into a declared name
#    (preempt_dynamic_key_disable(preempt_promote), sk_dynamic_##f);
# and a name nothing defines is still a risk, pasted or not.
. ./lib.sh

make_repo up \
include/linux/tracepoint.h '#ifndef _LINUX_TRACEPOINT_H
#define _LINUX_TRACEPOINT_H
#define PARAMS(args...) args
#define DECLARE_TRACE(name, proto, args) \
	static inline void trace_##name(proto) { } \
	static inline int trace_##name##_enabled(void) { return 0; }
#define TRACE_EVENT(name, proto, args, tstruct, assign, print) \
	DECLARE_TRACE(name, PARAMS(proto), PARAMS(args))
#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)
#define DEFINE_EVENT(template, name, proto, args) \
	DECLARE_TRACE(name, PARAMS(proto), PARAMS(args))
#endif
' \
include/trace/events/k.h '#include <linux/tracepoint.h>

TRACE_EVENT(k_start,
	TP_PROTO(int a),
	TP_ARGS(a),
	TP_STRUCT__entry(__field(int, a)),
	TP_fast_assign(__entry->a = a;),
	TP_printk("%d", __entry->a)
);

DECLARE_EVENT_CLASS(k_class,
	TP_PROTO(int a),
	TP_ARGS(a),
	TP_STRUCT__entry(__field(int, a)),
	TP_fast_assign(__entry->a = a;),
	TP_printk("%d", __entry->a)
);
' \
include/linux/klimits.h '#ifndef _LINUX_KLIMITS_H
#define _LINUX_KLIMITS_H
#define K_MIN 1
#endif
' \
k/features.h '/* the features, one SCHED_FEAT(name, enabled) each */
SCHED_FEAT(GENTLE, true)

#ifdef CONFIG_RT
SCHED_FEAT(TTWU_QUEUE, false)
#else

/*
 * queue remote wakeups on the target CPU
 */
SCHED_FEAT(TTWU_QUEUE, true)
#endif
' \
k/sched.h '#define SCHED_FEAT(name, enabled) __SCHED_FEAT_##name ,
enum {
#include "features.h"
	__SCHED_FEAT_NR,
};
#undef SCHED_FEAT
#define sched_feat(x) (sysctl_sched_features & (1UL << __SCHED_FEAT_##x))
extern unsigned int sysctl_sched_features;

struct state {
	int a;
	int count;
};

enum kflags {
	KF_A,
	KF_B,
};

enum kmode {
	kmode_none,
	kmode_voluntary,
	kmode_full,
	kmode_lazy,
};

#define DEFINE_KEY(name) int name
#define key_off(f) (sk_##f = 0)
DEFINE_KEY(sk_lazy);
' \
k/core.c '#include <linux/klimits.h>
#include <trace/events/k.h>
#include "sched.h"

unsigned int sysctl_sched_features;

int step(struct state *s, int v)
{
	int ret = 0;

	if (v < K_MIN)
		return -1;
	trace_k_start(v);
	key_off(lazy);
	s->a = v;
	if (sched_feat(TTWU_QUEUE))
		ret = KF_A;
	ret += 1;
	ret += 2;
	ret += 3;
	ret += 4;
	ret += 5;
	ret += 6;
	ret += 7;
	ret += 8;
	s->count = ret;
	return ret;
}
'

# 0001: a goto in one hunk, its label in another
sed -i 's/^\t\treturn -1;$/\t\tgoto out_bad;/' up/k/core.c
sed -i 's/^\treturn ret;$/\treturn ret;\n\nout_bad:\n\ts->count = 0;\n\treturn -1;/' up/k/core.c
git -C up commit -qam "k: one way out" || fail c1
# 0002, 0003: a limit in a shared header, used by the next patch
sed -i 's/^#define K_MIN 1$/#define K_MIN 1\n#define K_MAX 64/' up/include/linux/klimits.h
git -C up commit -qam "klimits: K_MAX" || fail c2
sed -i 's/^\ts->a = v;$/\ts->a = v > K_MAX ? K_MAX : v;/' up/k/core.c
git -C up commit -qam "k: cap at K_MAX" || fail c3
# 0004: an enum constant and a member, added and used in the same patch
sed -i 's/^\tKF_B,$/\tKF_B,\n\tKF_C,/; s/^\tint count;$/\tint count;\n\tint mode;/' up/k/sched.h
sed -i 's/^\ts->count = ret;$/\ts->count = ret;\n\ts->mode = KF_C;/' up/k/core.c
git -C up commit -qam "k: a mode" || fail c4
# 0005: a feature in a branch of an #ifdef, tested with sched_feat()
sed -i 's/^SCHED_FEAT(TTWU_QUEUE, false)$/SCHED_FEAT(TTWU_QUEUE, false)\n# ifdef CONFIG_LAZY\nSCHED_FEAT(LAZY, true)\n# endif/' up/k/features.h
sed -i 's/^\t\tret = KF_A;$/\t\tret = KF_A;\n\tif (sched_feat(LAZY))\n\t\tret = KF_B;/' up/k/core.c
git -C up commit -qam "k: lazy" || fail c5
# 0006: two events, and their tracepoints called
cat >>up/include/trace/events/k.h <<'EOT'

TRACE_EVENT(k_done,
	TP_PROTO(int a),
	TP_ARGS(a),
	TP_STRUCT__entry(__field(int, a)),
	TP_fast_assign(__entry->a = a;),
	TP_printk("%d", __entry->a)
);

DEFINE_EVENT(k_class, k_again,
	TP_PROTO(int a),
	TP_ARGS(a)
);
EOT
sed -i 's/^\ttrace_k_start(v);$/\ttrace_k_start(v);\n\ttrace_k_again(v);/; s/^\tret += 8;$/\tret += 8;\n\tif (trace_k_done_enabled())\n\t\ttrace_k_done(ret);/' up/k/core.c
git -C up commit -qam "k: trace the end" || fail c6
# 0007: a getter a macro of the patch builds by pasting
cat >>up/k/sched.h <<'EOT'

#define K_GETTER(f) \
	static inline int k_get_##f(struct state *s) { return s->f; }
K_GETTER(mode)
EOT
sed -i 's/^\tret += 5;$/\tret += k_get_mode(s);/' up/k/core.c
git -C up commit -qam "k: a getter" || fail c7
# 0008: a lower-case enum constant, in a hunk whose header names the enum
sed -i 's/^\tkmode_lazy,$/\tkmode_lazy,\n\tkmode_laziest,/' up/k/sched.h
sed -i 's/^\tret += 7;$/\tret += kmode_laziest;/' up/k/core.c
git -C up commit -qam "k: laziest" || fail c8
git -C up show HEAD -- k/sched.h | grep -q '^@@ .* @@ enum kmode {$' ||
	fail "the enum hunk's header does not name the enum"
# 0009: a key, and a macro that pastes its argument into the key's name
sed -i 's/^DEFINE_KEY(sk_lazy);$/DEFINE_KEY(sk_lazy);\nDEFINE_KEY(sk_promote);/' up/k/sched.h
sed -i 's/^\tkey_off(lazy);$/\tkey_off(lazy);\n\tkey_off(promote);/' up/k/core.c
git -C up commit -qam "k: promote" || fail c9

kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/up\n\tref = base\n' "$TEST_TMP" >ws/kernels/t.conf
expect_exit 0 kcarry -C ws import own --git up base..HEAD
kcarry -C ws apply --no-refresh own t >"$OUT" 2>"$ERR"
grep RISK "$OUT" && fail "a clean series of names it defines itself raised a risk"
expect_exit 0 kcarry -C ws apply --no-refresh own t
[ "$(grep -c '^  000[1-9] clean ' "$OUT")" = 9 ] || { cat "$OUT"; fail "not 9 clean patches"; }

# what nothing defines is still a risk: a plain name, a tracepoint of
# no event, a getter of a macro that pastes onto a name nowhere declared
sed -i 's/^\tret += 6;$/\tret += K_NOWHERE;\n\ttrace_k_nowhere(ret);\n\tret += trace_k_nowhere_enabled();\n\tret += k_get_nowhere(s);\n\tkey_off(nokey);/' up/k/core.c
git -C up commit -qam "k: use what is nowhere" || fail c10
expect_exit 0 kcarry -C ws import bad --git up HEAD~1..HEAD
printf '[kernel]\n\turl = %s/up\n\tref = HEAD~1\n' "$TEST_TMP" >ws/kernels/t2.conf
expect_exit 1 kcarry -C ws apply --no-refresh bad t2
stdout_has 'RISK: .*K_NOWHERE: no such macro or constant in this tree'
stdout_has 'RISK: .*trace_k_nowhere\(\): no such function in this tree'
stdout_has 'RISK: .*trace_k_nowhere_enabled\(\): no such function in this tree'
stdout_has 'RISK: .*k_get_nowhere\(\): no such function in this tree'
stdout_has 'RISK: .*nokey: defined nowhere in this tree'
exit 0
