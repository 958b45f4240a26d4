#!/bin/sh
# Adaptation, rule 3 (renamed identifiers), adversarial: a block of calls
# that the target shifted by one line (a call added above them) aligns
# token by token with the hunk's lines one line off, as if each name had
# been renamed into the next one (first -> added, second -> first, ...).
# A name the hunk uses that the map also gives to another name is no
# rename but a shift: the hunk stays a conflict, and the line the patch
# changes is not rewritten into the wrong call.
#  - shift.c: the shifted block, the changed line gone: a conflict;
#  - real.c (the rule still works): every call renamed (a prefix added),
#    one consistent map: adapted.
here=$(pwd)
. ./lib.sh
. "$here/adapt-lib.sh"

SHIFT_UP='int run(struct ctx *ctx)
{
	first(ctx);
	second(ctx);
	third(ctx, 0);
	return 0;
}
'
SHIFT_TGT='int run(struct ctx *ctx)
{
	added(ctx);
	first(ctx);
	second(ctx, 0);
	return 0;
}
'
REAL_UP='int walk(struct ctx *ctx)
{
	first(ctx);
	second(ctx);
	third(ctx, 0);
	return 0;
}
'
REAL_TGT='int walk(struct ctx *ctx)
{
	x_first(ctx);
	x_second(ctx);
	x_third(ctx, 0);
	return 0;
}
'
make_repo up d/shift.c "$SHIFT_UP" d/real.c "$REAL_UP"
commit_file up d/shift.c "$(printf '%s' "$SHIFT_UP" | sed 's/third(ctx, 0)/third(ctx, 1)/')
" "shift: third with 1"
commit_file up d/real.c "$(printf '%s' "$REAL_UP" | sed 's/third(ctx, 0)/third(ctx, 1)/')
" "real: third with 1"
make_repo tgt d/shift.c "$SHIFT_TGT" d/real.c "$REAL_TGT"
adapt_ws sh

expect_exit 1 kcarry -C ws apply sh old
stdout_has '^  0001 conflict          shift: third with 1$'
stdout_has '^  0002 adapted           real: third with 1$'
stdout_has 'names renamed here, as the lines around it show: first -> x_first, second -> x_second, third -> x_third'
git -C tgt show kcarry/sh/v1/old:d/shift.c | cmp -s - tgt/d/shift.c ||
	fail "shift.c changed"
printf '%s' "$REAL_TGT" | sed 's/x_third(ctx, 0)/x_third(ctx, 1)/' >want.c
git -C tgt show kcarry/sh/v1/old:d/real.c >got.c
diff -u want.c got.c || fail "real.c: not the renamed port"
exit 0
