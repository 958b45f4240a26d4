#!/bin/sh
# kcarry check: a series that changes btrfs_init_work's signature on two
# targets.  The matrix, the unconverted caller that only the old target
# has (scrub.c), the converted caller the old target lacks (raid56.c), a
# stacked series, and the CI formats validated by independent tools
# (xmllint against a JUnit schema, python's json module).
here=$(pwd)
. ./lib.sh

. "$here/wq-lib.sh"
wq_upstream

# old: no raid56.c, but scrub.c that the series never converts
make_repo old fs/btrfs/async-thread.h "$H" fs/btrfs/async-thread.c "$C" \
	fs/btrfs/disk-io.c "$(caller disk-io end_workqueue end_io)
" fs/btrfs/inode.c "$(caller inode submit_compressed compress_fn)
" fs/btrfs/scrub.c "$(caller scrub scrub_start scrub_fn)
"
kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/up\n\tref = base\n' "$TEST_TMP" >ws/kernels/new.conf
printf '[kernel]\n\turl = %s/old\n\tref = base\n' "$TEST_TMP" >ws/kernels/old.conf
expect_exit 0 kcarry -C ws import wq --git up base..HEAD

expect_exit 1 kcarry -C ws check
cp "$OUT" "$TEST_TMP/matrix"
expect_stdout <<'EOT'
wq@v1
                                                         new old
0001 btrfs: drop ordered_free from btrfs_init_work       . w . w
0002 btrfs: convert inode.c to the new btrfs_init_work   . w . w
0003 btrfs: convert raid56.c to the new btrfs_init_work  . w X w

legend: . clean  o offset  ~ fuzz  3 3-way  = already applied  p partial
        a adapted  X conflict  - not tried  ? did not run  ! placement risk
        w touches a watched file or a caller of its API

  watch, wq on new:
    changed type struct btrfs_work: btrfs_func_t func; btrfs_func_t ordered_func; btrfs_func_t ordered_free; -> btrfs_func_t func; btrfs_func_t ordered_func;
    changed function btrfs_init_work: void (struct btrfs_work *, btrfs_func_t, btrfs_func_t, btrfs_func_t) -> void (struct btrfs_work *, btrfs_func_t, btrfs_func_t)
  watch, wq on old:
    changed type struct btrfs_work: btrfs_func_t func; btrfs_func_t ordered_func; btrfs_func_t ordered_free; -> btrfs_func_t func; btrfs_func_t ordered_func;
    changed function btrfs_init_work: void (struct btrfs_work *, btrfs_func_t, btrfs_func_t, btrfs_func_t) -> void (struct btrfs_work *, btrfs_func_t, btrfs_func_t)
    unconverted btrfs_init_work: 1 use in fs/btrfs/scrub.c (11)
    absent from old: fs/btrfs/raid56.c rmw_work() (btrfs_init_work)
summary (worst first):
  wq@v1 on old: 1 conflict, 2 clean, 1 unconverted caller, 1 converted caller absent from old
  wq@v1 on new: 3 clean
EOT
# the independent check: git grep finds the same single unconverted call
# in the old tree (scrub.c is the only caller the series does not touch)
git -C old grep -n -w btrfs_init_work -- fs/btrfs | grep -v 'async-thread\.[ch]' |
	grep -v -e disk-io.c -e inode.c >"$TEST_TMP/grep"
[ "$(cat "$TEST_TMP/grep")" = "fs/btrfs/scrub.c:11:	btrfs_init_work(w, scrub_fn, NULL, NULL);" ] ||
	fail "git grep disagrees: $(cat "$TEST_TMP/grep")"

# one target, the clean one: exit 0
expect_exit 0 kcarry -C ws check wq new
stdout_has "^  wq@v1 on new: 3 clean$"
# names that are neither
expect_exit 2 kcarry -C ws check nosuch
stderr_has "^error: 'nosuch' names neither a series nor a target"
expect_exit 2 kcarry -C ws check --format yaml
stderr_has "^error: --format: unknown value 'yaml'"

# CI formats, checked by independent tools
expect_exit 1 kcarry -C ws check --reports rep
for f in check.txt check.json check.xml check.md check.mbox; do
	[ -s rep/$f ] || fail "rep/$f missing"
done
diff -u "$TEST_TMP/matrix" rep/check.txt || fail "text report differs from stdout"
python3 - rep/check.json <<'PY' || fail "json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "kcarry-check/1", d["schema"]
cells = {c["target"]: c for c in d["cells"]}
old = cells["old"]
assert [p["outcome"] for p in old["patches"]] == ["clean", "clean", "conflict"]
u = old["audit"]["unconverted"]
assert [(x["path"], x["line"], x["function"], x["symbol"]) for x in u] == \
    [("fs/btrfs/scrub.c", 11, "scrub_start", "btrfs_init_work")], u
assert cells["new"]["audit"]["unconverted"] == []
PY
if command -v xmllint >/dev/null 2>&1; then
	xmllint --noout --schema "$KCARRY_FIXTURES/report_ci/junit.xsd" rep/check.xml 2>"$TEST_TMP/xl" ||
		{ cat "$TEST_TMP/xl"; fail "JUnit does not validate"; }
fi
grep -q '<testsuite name="wq@v1 on old"\|<testsuite name="old"' rep/check.xml || fail "no testsuite per target"
grep -q 'failure' rep/check.xml || fail "no failure in JUnit"
grep -q '^| ' rep/check.md || fail "no markdown table"
grep -q 'scrub.c:11' rep/check.md || fail "markdown lacks the unconverted caller"
[ "$(grep -c '^From kcarry ' rep/check.mbox)" = 1 ] || fail "one email per failing patch x target"
grep -q '^Subject: FAILED: patch "btrfs: convert raid56.c to the new btrfs_init_work" failed to apply to old tree' rep/check.mbox ||
	fail "email subject"
grep -q 'kcarry resolve wq@v1 old 0003\|kcarry resolve wq@v1 old 3' rep/check.mbox || fail "email lacks the commands"

# a series stacked on another is carried on top of it
commit_file up fs/btrfs/async-thread.c "$(git -C up show HEAD:fs/btrfs/async-thread.c)
/* rt */
" "rt: mark async-thread"
expect_exit 0 kcarry -C ws import rt --git up HEAD~1..HEAD
printf '[series]\n\tname = rt\n\tstacks-on = wq\n' >ws/series/rt.conf
expect_exit 0 kcarry -C ws check rt new
stdout_has "^rt@v1 \(on top of wq\)$"
stdout_has "^wq@v1$"
stdout_has "^  rt@v1 on new: 1 clean$"
[ "$(git -C up rev-parse kcarry/rt/v1/new~1)" = "$(git -C up rev-parse kcarry/wq/v1/new)" ] ||
	fail "rt is not on top of wq"
