# adapt-lib.sh: fixtures of the adaptation tests, sourced after lib.sh.
#
#   adapt_ws SERIES [TARGET...]   workspace 'ws' whose target old is the
#                                 repository tgt at tag base (or one target
#                                 per repository named), and SERIES
#                                 imported from up's commits after base
#   drift_fixture                 rule 4's fixture: UP_C and TGT_C, the
#                                 repositories up (a one-line fix in foo():
#                                 step_two() gets FLAG_X) and tgt (foo()'s
#                                 locking and label rewritten around that
#                                 line), and ws with the series demo

adapt_ws() {
	series=$1
	shift
	kcarry init ws >/dev/null || fail "kcarry init"
	if [ $# -eq 0 ]; then
		set -- old:tgt
	fi
	for t in "$@"; do
		cat >"ws/kernels/${t%%:*}.conf" <<EOT
[kernel]
	name = ${t%%:*}
	url = $TEST_TMP/${t#*:}
	ref = base
EOT
	done
	expect_exit 0 kcarry -C ws import "$series" --git up base..HEAD
}

UP_C='#include "core.h"

static int other(struct ctx *c)
{
	return c->n;
}

static int foo(struct ctx *c)
{
	int ret;

	lock(c);
	ret = step_one(c);
	if (ret)
		goto out;
	ret = step_two(c, 0);
	unlock(c);
out:
	return ret;
}

static int bar(struct ctx *c)
{
	return foo(c) + other(c);
}
'
TGT_C='#include "core.h"

static int other(struct ctx *c)
{
	return c->n * 2;
}

static int foo(struct ctx *c)
{
	int ret;

	mutex_lock(&c->lock);
	ret = step_one_locked(c);
	if (ret < 0)
		goto fail;
	ret = step_two(c, 0);
	mutex_unlock(&c->lock);
fail:
	return ret;
}

static int bar(struct ctx *c)
{
	return foo(c) + other(c);
}
'

drift_fixture() {
	make_repo up drivers/demo/core.c "$UP_C"
	commit_file up drivers/demo/core.c "$(printf '%s' "$UP_C" |
		sed 's/step_two(c, 0)/step_two(c, FLAG_X)/')
" "demo: pass FLAG_X to step two"
	make_repo tgt drivers/demo/core.c "$TGT_C"
	adapt_ws demo
}
