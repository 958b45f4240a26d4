#!/bin/sh
# The API a series means to change, read from its own hunks of the
# watched files, on targets where the carried result cannot show it:
#  - drift: the API patch conflicts, so the result's API is unchanged;
#    every caller of btrfs_init_work is still classified (converted by a
#    hunk that landed, left by the conflicting one, only in the target),
#    and the list equals git grep's;
#  - ancient: the btrfs_workers era, without the API at all: kcarry says
#    so and names what async-thread.h defines there.
here=$(pwd)
. ./lib.sh

. "$here/wq-lib.sh"
wq_upstream

# drift: its btrfs_init_work() body differs (the API patch conflicts),
# it has scrub.c that the series never converts
C_DRIFT=$(printf '%s' "$C" | sed 's/^\twork->ordered_free = ordered_free;$/\twork->ordered_free = ordered_free ? ordered_free : NULL;/')
make_repo drift fs/btrfs/async-thread.h "$H" fs/btrfs/async-thread.c "$C_DRIFT
" fs/btrfs/disk-io.c "$(caller disk-io end_workqueue end_io)
" fs/btrfs/inode.c "$(caller inode submit_compressed compress_fn)
" fs/btrfs/scrub.c "$(caller scrub scrub_start scrub_fn)
"
# ancient: the btrfs_workers API
H_OLD='struct btrfs_work {
	void (*func)(struct btrfs_work *work);
};
struct btrfs_workers {
	int num_workers;
};
void btrfs_queue_worker(struct btrfs_workers *workers, struct btrfs_work *work);
void btrfs_init_workers(struct btrfs_workers *workers, char *name, int max);
'
C_OLD='#include "async-thread.h"

void btrfs_queue_worker(struct btrfs_workers *workers, struct btrfs_work *work)
{
	work->func(work);
}
'
make_repo ancient fs/btrfs/async-thread.h "$H_OLD" fs/btrfs/async-thread.c "$C_OLD" \
	fs/btrfs/disk-io.c '#include "async-thread.h"

static struct btrfs_workers workers;

void end_workqueue(struct btrfs_work *w)
{
	btrfs_queue_worker(&workers, w);
}
'
kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/drift\n\tref = base\n' "$TEST_TMP" >ws/kernels/drift.conf
printf '[kernel]\n\turl = %s/ancient\n\tref = base\n' "$TEST_TMP" >ws/kernels/ancient.conf
expect_exit 0 kcarry -C ws import wq --git up base..HEAD
expect_exit 1 kcarry -C ws check --no-refresh wq drift
sed -n '/^  watch,/,$p' "$OUT" >"$TEST_TMP/watch"
cat >"$TEST_TMP/want" <<'EOT'
  watch, wq on drift:
    series changes type struct btrfs_work in 0001, which drift has: btrfs_func_t func; btrfs_func_t ordered_func; btrfs_func_t ordered_free; -> btrfs_func_t func; btrfs_func_t ordered_func;
    series changes function btrfs_init_work in 0001, which drift has: void (struct btrfs_work *, btrfs_func_t, btrfs_func_t, btrfs_func_t) -> void (struct btrfs_work *, btrfs_func_t, btrfs_func_t)
    caller fs/btrfs/disk-io.c:11 end_workqueue() btrfs_init_work: 0001 (fs/btrfs/disk-io.c hunk 1) meant to convert it and did not apply
    caller fs/btrfs/scrub.c:11 scrub_start() btrfs_init_work: only in drift, the series never converts it
    1 caller converted by the series
summary (worst first):
  wq@v1 on drift: 2 conflict, 1 clean, 1 caller left by a conflict, 1 caller only in drift
EOT
diff -u "$TEST_TMP/want" "$TEST_TMP/watch" || fail "watch findings on drift"
# the CI formats carry the same classification: Markdown's totals count
# the callers a conflict left and the ones the series never converts,
# and a caller's source line is quoted without doubled punctuation
expect_exit 1 kcarry -C ws check --no-refresh --reports drift-rep wq drift
grep -q '1 caller left by a conflict; 1 caller the series never converts' drift-rep/check.md ||
	{ grep Totals drift-rep/check.md; fail "Markdown totals of drift"; }
grep -q 'end\\_workqueue().*0001 (fs/btrfs/disk-io.c hunk 1) meant to convert it' drift-rep/check.md ||
	fail "Markdown lacks the conflicted caller"
grep -q 'scrub_start' drift-rep/check.xml || fail "JUnit lacks the caller only in drift"
if grep -n ';;' drift-rep/check.md drift-rep/check.xml drift-rep/check.txt; then
	fail "doubled ';' in a report"
fi
# every caller, classified, in JSON valid against the schema; the sites
# are the ones git grep finds outside the watched files
expect_exit 1 kcarry -C ws check --no-refresh --format json -o drift.json wq drift
python3 - drift.json "$KCARRY_FIXTURES/../../docs/kcarry-check.schema.json" >callers <<'PY' || fail "check JSON"
import json, sys
d = json.load(open(sys.argv[1]))
try:
    import jsonschema
    jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).validate(d)
except ImportError:
    pass
a = d["cells"][0]["audit"]
assert a["changes"] == [], a["changes"]
assert not a["api_absent"]
i = {x["name"]: x for x in a["intended"]}
assert i["btrfs_init_work"]["change"] == "changed" and i["btrfs_init_work"]["target"] == "present", i
c = {x["path"]: x for x in a["callers"]}
assert c["fs/btrfs/disk-io.c"]["class"] == "conflicted" and c["fs/btrfs/disk-io.c"]["patch"] == 1, c
assert c["fs/btrfs/inode.c"]["class"] == "converted" and c["fs/btrfs/inode.c"]["patch"] == 2, c
assert c["fs/btrfs/scrub.c"]["class"] == "target-only" and c["fs/btrfs/scrub.c"]["patch"] is None, c
for x in a["callers"]:
    print("%s:%d" % (x["path"], x["line"]))
PY
git -C drift grep -n -w btrfs_init_work -- fs/btrfs | grep -v 'async-thread\.[ch]:' | cut -d: -f1,2 >grep
diff -u grep callers || fail "callers differ from git grep"

expect_exit 1 kcarry -C ws check --no-refresh wq ancient
sed -n '/^  watch,/,$p' "$OUT" >"$TEST_TMP/watch"
cat >"$TEST_TMP/want" <<'EOT'
  watch, wq on ancient:
    series changes type struct btrfs_work in 0001, which ancient has in another form: btrfs_func_t func; btrfs_func_t ordered_func; btrfs_func_t ordered_free; -> btrfs_func_t func; btrfs_func_t ordered_func;
    series changes function btrfs_init_work in 0001, which ancient does not have: void (struct btrfs_work *, btrfs_func_t, btrfs_func_t, btrfs_func_t) -> void (struct btrfs_work *, btrfs_func_t, btrfs_func_t)
    ancient does not have the API the series changes; its fs/btrfs/async-thread.h defines instead: struct btrfs_work, struct btrfs_workers, btrfs_queue_worker(), btrfs_init_workers()
summary (worst first):
  wq@v1 on ancient: 3 conflict, API absent
EOT
diff -u "$TEST_TMP/want" "$TEST_TMP/watch" || fail "watch findings on ancient"
# the CI formats carry it
expect_exit 1 kcarry -C ws check --no-refresh --reports rep wq ancient
grep -q 'type="api-absent"' rep/check.xml || fail "JUnit lacks the absent API"
if command -v xmllint >/dev/null 2>&1; then
	xmllint --noout --schema "$KCARRY_FIXTURES/report_ci/junit.xsd" rep/check.xml 2>/dev/null ||
		fail "JUnit does not validate"
fi
grep -q 'ancient does not have the API the series changes' rep/check.md ||
	fail "Markdown lacks the absent API"
python3 - rep/check.json <<'PY' || fail "JSON of ancient"
import json, sys
a = json.load(open(sys.argv[1]))["cells"][0]["audit"]
assert a["api_absent"], a
assert [x["name"] for x in a["target_api"]] == ["struct btrfs_work", "struct btrfs_workers", "btrfs_queue_worker", "btrfs_init_workers"], a["target_api"]
PY
