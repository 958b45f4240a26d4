#!/bin/sh
# Adaptation, rule 4, where the obvious adaptation is wrong; each patch
# changes a line whose context the target rewrote (neither fuzz nor a
# 3-way merge places it):
#  - dup: the line it changes stands twice in the function: a conflict;
#  - ren: the function the header names is not in the target, one with
#    the same body under another name is: rule 4 stays inside the named
#    function, so only rule 2 (renamed-function) may take it, and says so;
#  - pair: two functions of similar body both hold the line, the header
#    names one: adapted into that one, the other untouched;
#  - add: an added line whose neighbours stand twice in the function:
#    not adapted (whatever else it becomes, never silently clean).
. ./lib.sh

DUP_UP='static int dup(struct ctx *c)
{
	int ret;

	begin(c);
	ret = step(c, 0);
	end(c);
	first_lock(c);
	ret = step(c, 0);
	first_unlock(c);
	return ret;
}
'
DUP_TGT='static int dup(struct ctx *c)
{
	int ret;

	mutex_lock(&c->a);
	ret = step(c, 0);
	mutex_unlock(&c->a);
	mutex_lock(&c->b);
	ret = step(c, 0);
	mutex_unlock(&c->b);
	return ret;
}
'
REN_UP='static int old_name(struct ctx *c)
{
	int ret;

	lock(c);
	ret = compute(c, 0);
	unlock(c);
	return ret;
}
'
REN_TGT='static int new_name(struct ctx *c)
{
	int ret;

	mutex_lock(&c->lock);
	ret = compute(c, 0);
	mutex_unlock(&c->lock);
	return ret;
}
'
PAIR_UP='static int pair_a(struct ctx *c)
{
	int ret;

	lock(c);
	ret = work(c, 0);
	unlock(c);
	return ret;
}

static int pair_b(struct ctx *c)
{
	int ret;

	lock(c);
	ret = work(c, 0);
	unlock(c);
	return ret;
}
'
PAIR_TGT='static int pair_a(struct ctx *c)
{
	int ret;

	mutex_lock(&c->lock);
	ret = work(c, 0);
	mutex_unlock(&c->lock);
	return ret;
}

static int pair_b(struct ctx *c)
{
	int ret;

	mutex_lock(&c->lock);
	ret = work(c, 0);
	mutex_unlock(&c->lock);
	return ret;
}
'
ADD_UP='static void adder(struct ctx *c)
{
	int n = 0;

	prepare(c);
	reset(c);
	flush(c);
	finish(c);
}
'
ADD_TGT='static void adder(struct ctx *c)
{
	int n = 0;

	prepare_locked(c);
	reset(c);
	flush(c);
	reset(c);
	flush(c);
	finish_locked(c);
}
'
make_repo up d/dup.c "$DUP_UP" d/ren.c "$REN_UP" d/pair.c "$PAIR_UP" d/add.c "$ADD_UP"
commit_file up d/dup.c "$(printf '%s' "$DUP_UP" | sed '9s/step(c, 0)/step(c, 1)/')
" "dup: second step with 1"
commit_file up d/ren.c "$(printf '%s' "$REN_UP" | sed 's/compute(c, 0)/compute(c, 1)/')
" "ren: compute with 1"
commit_file up d/pair.c "$(printf '%s' "$PAIR_UP" | sed '16s/work(c, 0)/work(c, 1)/')
" "pair: b works with 1"
commit_file up d/add.c "$(printf '%s' "$ADD_UP" | sed 's/^	reset(c);$/	reset(c);\
	n++;/')
" "add: count the reset"
make_repo tgt d/dup.c "$DUP_TGT" d/ren.c "$REN_TGT" d/pair.c "$PAIR_TGT" d/add.c "$ADD_TGT"

kcarry init ws >/dev/null
cat >ws/kernels/old.conf <<EOT
[kernel]
	name = old
	url = $TEST_TMP/tgt
	ref = base
EOT
expect_exit 0 kcarry -C ws import adv --git up base..HEAD
expect_exit 1 kcarry -C ws apply --accept-adapted --json adv old
cp "$OUT" a.json
python3 - a.json <<'EOT' || fail "outcomes"
import json, sys
d = json.load(open(sys.argv[1]))
got = {p["file"].split("-", 1)[1]: p for p in d["results"][0]["patches"]}
def outcome(stem):
    for k, p in got.items():
        if k.startswith(stem):
            return p
    raise SystemExit("no patch " + stem)
assert outcome("dup")["outcome"] == "conflict", outcome("dup")
ren = outcome("ren")
assert ren["outcome"] == "adapted", ren
assert ren["files"][0]["hunks"][0]["adaptation"]["rule"] == "renamed-function", ren
pair = outcome("pair")
assert pair["outcome"] == "adapted", pair
h = pair["files"][0]["hunks"][0]
assert h["found_function"] == "pair_b", h
add = outcome("add")
assert add["outcome"] not in ("clean", "adapted"), add
for p in got.values():
    for f in p["files"]:
        for h in f["hunks"]:
            if p is not pair and p is not ren:
                assert h["adaptation"] is None, h
EOT
printf '%s' "$PAIR_TGT" | sed '16s/work(c, 0)/work(c, 1)/' >want.c
git -C tgt show kcarry/adv/v1/old:d/pair.c >got.c
diff -u want.c got.c || fail "pair adapted into the wrong function"
git -C tgt show kcarry/adv/v1/old:d/dup.c | diff - "$TEST_TMP/tgt/d/dup.c" >/dev/null ||
	fail "dup.c changed"
exit 0
