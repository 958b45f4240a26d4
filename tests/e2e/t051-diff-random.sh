#!/bin/sh
# kcarry diff against git range-diff on random pairs of versions (kept,
# changed, moved, dropped, rewritten, reworded and new patches; seeds
# fixed): the same pairs, '=' and '!', dropped and new patches, order and
# interdiffs, every time.
top=$(cd ../.. && pwd)
. ./lib.sh
kcarry init ws >/dev/null
seeds="${T051_SEEDS:-1 2 3 4 5 6 7 8}"
for seed in $seeds; do
	python3 "$top/tests/e2e/gen-versions.py" "$seed" "r$seed" || fail "generate $seed"
	expect_exit 0 kcarry -C ws import "s$seed@v1" --git "r$seed" base..v1
	expect_exit 0 kcarry -C ws import "s$seed@v2" --git "r$seed" base..v2
	git -C "r$seed" range-diff --no-color base..v1 base..v2 >"rd$seed" || fail "range-diff $seed"
	expect_exit 0 kcarry -C ws diff --json -o "d$seed.json" "s$seed" v1 v2
	python3 "$top/tests/e2e/rangediff-compare.py" --interdiffs "rd$seed" "d$seed.json" >"cmp$seed" ||
		{ cat "cmp$seed"; fail "seed $seed: kcarry diff pairs otherwise than git range-diff"; }
	echo "seed $seed: $(cat "cmp$seed")"
done
