#!/bin/sh
# Adaptation, rule 3 (renamed identifiers): the target converted folio to
# page in the function the patch changes, so no line of the hunk stands
# there; aligned token by token, its lines differ only by that name.
#  - good.c: one consistent substitution (folio -> page): adapted, the
#    added line written with page; git apply --check accepts the
#    refreshed patch;
#  - mixed.c (adversarial): folio is page in one line and pg in another:
#    an inconsistent map, a conflict;
#  - guess.c (adversarial): the map holds in the context, but the added
#    line calls folio_size(), a name the alignment never showed: no
#    page_size() is guessed, a conflict.
. ./lib.sh

UP='int f(struct folio *folio)
{
	lock(folio);
	x = get(folio, 1);
	y = compute(folio, x);
	unlock(folio);
	return y;
}
'
TGT=$(printf '%s' "$UP" | sed 's/folio/page/g')
TGT="$TGT
"
MIXED=$(printf '%s' "$TGT" | sed 's/get(page, 1)/get(pg, 1)/')
MIXED="$MIXED
"
make_repo up d/good.c "$UP" d/mixed.c "$UP" d/guess.c "$UP"
commit_file up d/good.c "$(printf '%s' "$UP" | sed 's/y = compute(folio, x);/y = compute_fast(folio, x);/')
" "good: compute fast"
commit_file up d/mixed.c "$(printf '%s' "$UP" | sed 's/y = compute(folio, x);/y = compute_fast(folio, x);/')
" "mixed: compute fast"
commit_file up d/guess.c "$(printf '%s' "$UP" | sed 's/y = compute(folio, x);/y = compute(folio, folio_size(folio));/')
" "guess: compute on the size"
make_repo tgt d/good.c "$TGT" d/mixed.c "$MIXED" d/guess.c "$TGT"

kcarry init ws >/dev/null
cat >ws/kernels/old.conf <<EOT
[kernel]
	name = old
	url = $TEST_TMP/tgt
	ref = base
EOT
expect_exit 0 kcarry -C ws import fp --git up base..HEAD
expect_exit 1 kcarry -C ws apply fp old
stdout_has '^  0001 adapted           good: compute fast$'
stdout_has 'hunk 1: adapted at line 2: names renamed here, as the lines around it show: folio -> page'
stdout_has 'adapted by rule renamed-identifiers; not accepted yet'
stdout_has '^  0002 conflict          mixed: compute fast$'
stdout_has '^  0003 conflict          guess: compute on the size$'

printf '%s' "$TGT" | sed 's/y = compute(page, x);/y = compute_fast(page, x);/' >want.c
git -C tgt show kcarry/fp/v1/old:d/good.c >got.c
diff -u want.c got.c || fail "renamed-identifiers result"
for f in mixed guess; do
	git -C tgt show kcarry/fp/v1/old:d/$f.c | diff - tgt/d/$f.c >/dev/null ||
		fail "$f.c changed"
done
rp=ws/patches/fp/v1/old/0001-good-compute-fast.patch
grep -q '^\[ adapted: d/good.c hunk 1: names renamed here' "$rp" ||
	fail "no note in the refreshed patch"
git clone -q tgt chk && git -C chk checkout -q base
git -C chk apply --check "$TEST_TMP/$rp" || fail "git apply --check refuses it"
exit 0
