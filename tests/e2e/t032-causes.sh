#!/bin/sh
# Causes: why a hunk fails and what it needs, on throw-away repositories
# shaped like a kernel (include/linux headers, fs/btrfs with its own
# header), so that a name missing from the tree can be told.
#  - a hunk naming a function the target has under another name lands in
#    it as a risk, and says which: btrfs_work_helper() is
#    normal_work_helper() here;
#  - a conflicting hunk names what the target lacks (a type, a member)
#    and the earlier patch of the series that added it and failed;
#  - a patch that applies but uses a member no struct has is a risk
#    (exit 1) where GNU patch applies it silently; the upstream commit
#    that introduced the member is named from kernel.history, and a
#    series of the workspace that adds it is named, with stacks-on;
#  - the same fix on a tree that has it with a comment of its own is
#    already applied (cause "present"), and a patch to a file the target
#    lacks has cause "file" (JSON, valid against the schema).
. ./lib.sh

# ---- the kernel's shared headers ----
TYPES_H='#ifndef _LINUX_TYPES_H
#define _LINUX_TYPES_H
typedef unsigned long long u64;
typedef unsigned int u32;
#endif
'
BLKDEV_H='#include <linux/types.h>
struct block_device {
	u32 bd_dev;
};
struct file;
void blkdev_put(struct block_device *bdev);
void fput(struct file *file);
'
WQ_H='#include <linux/types.h>
struct work_struct {
	void (*func)(struct work_struct *work);
};
struct workqueue_struct;
void queue_work(struct workqueue_struct *wq, struct work_struct *work);
#define container_of(ptr, type, member) ((type *)(ptr))
'

# ---- fs/btrfs ----
AT_H='#include <linux/workqueue.h>
struct btrfs_work;
struct btrfs_workqueue;
typedef void (*btrfs_func_t)(struct btrfs_work *arg);
struct btrfs_work {
	btrfs_func_t func;
	btrfs_func_t ordered_func;
	struct btrfs_workqueue *wq;
	struct work_struct normal_work;
	unsigned long flags;
};
struct btrfs_workqueue {
	struct workqueue_struct *normal_wq;
	int pending;
	int thresh;
};
void btrfs_init_work(struct btrfs_work *work, btrfs_func_t func,
		     btrfs_func_t ordered_func);
void btrfs_queue_work(struct btrfs_workqueue *wq, struct btrfs_work *work);
'
# at_c HELPER_HEAD FIRST_LINE ORDER_TEST: async-thread.c with its helper
at_c() {
	cat <<EOC
#include <linux/workqueue.h>
#include "async-thread.h"

static void thresh_exec_hook(struct btrfs_workqueue *wq)
{
	wq->pending--;
	if (wq->pending < wq->thresh)
		wq->thresh--;
}

static void run_ordered_work(struct btrfs_workqueue *wq)
{
	wq->thresh++;
}

$1
{
$2
	struct btrfs_workqueue *wq = work->wq;
	int need_order = 0;

	if (work->ordered_func)
		need_order = 1;
	thresh_exec_hook(wq);
	work->func(work);
	if ($3)
		run_ordered_work(wq);
}

void btrfs_init_work(struct btrfs_work *work, btrfs_func_t func,
		     btrfs_func_t ordered_func)
{
	work->func = func;
	work->ordered_func = ordered_func;
	work->flags = 0;
}

void btrfs_queue_work(struct btrfs_workqueue *wq, struct btrfs_work *work)
{
	work->wq = wq;
	queue_work(wq->normal_wq, &work->normal_work);
}
EOC
}
UP_HEAD='static void btrfs_work_helper(struct work_struct *normal_work)'
UP_FIRST='	struct btrfs_work *work = container_of(normal_work, struct btrfs_work,
					       normal_work);'
TGT_HEAD='static void normal_work_helper(struct btrfs_work *work)'
VOL_H='#include <linux/blkdev.h>
struct btrfs_device {
	struct block_device *bdev;
	int open_devices;
	u64 devid;
};
'
VOL_C='#include <linux/blkdev.h>
#include "volumes.h"

static void btrfs_close_bdev(struct btrfs_device *device)
{
	blkdev_put(device->bdev);
}

static void btrfs_close_one_device(struct btrfs_device *device)
{
	btrfs_close_bdev(device);
	if (device->bdev) {
		device->open_devices--;
		device->bdev = NULL;
	}
}
'

kernel() { # DIR: the shared headers and volumes.[ch]
	mkdir -p "$1/include/linux" "$1/fs/btrfs"
	printf '%s' "$TYPES_H" >"$1/include/linux/types.h"
	printf '%s' "$BLKDEV_H" >"$1/include/linux/blkdev.h"
	printf '%s' "$WQ_H" >"$1/include/linux/workqueue.h"
	printf '%s' "$VOL_H" >"$1/fs/btrfs/volumes.h"
	printf '%s' "$VOL_C" >"$1/fs/btrfs/volumes.c"
	printf '%s' "$AT_H" >"$1/fs/btrfs/async-thread.h"
}

# upstream: the helper is btrfs_work_helper(); the order test reads flags
git init -q up
kernel up
at_c "$UP_HEAD" "$UP_FIRST" "need_order && !work->flags" >up/fs/btrfs/async-thread.c
git -C up add -A && git -C up commit -qm base && git -C up tag base
# 0001: lands in the target's normal_work_helper() (a rename)
sed -i 's/^\tthresh_exec_hook(wq);$/\tthresh_exec_hook(wq);\n\twork->flags = 1;/' up/fs/btrfs/async-thread.c
git -C up commit -qam "btrfs: mark the work before running it"
# 0002: changes the order test the target has in another form
sed -i 's/^\tif (need_order \&\& !work->flags)$/\tif (need_order \&\& work->flags)/' up/fs/btrfs/async-thread.c
git -C up commit -qam "btrfs: run ordered work of marked work only"

# the target: the helper is normal_work_helper(), its own order test
git init -q tgt
kernel tgt
at_c "$TGT_HEAD" "" "need_order" | sed '/^$/{N;/^\n\tstruct btrfs_workqueue \*wq = work->wq;$/s/^\n//}' >tgt/fs/btrfs/async-thread.c
git -C tgt add -A && git -C tgt commit -qm base && git -C tgt tag base

kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/tgt\n\tref = base\n' "$TEST_TMP" >ws/kernels/t.conf
expect_exit 0 kcarry -C ws import helper --git up base..HEAD
expect_exit 1 kcarry -C ws apply --no-refresh helper t
expect_stdout <<'EOT'
helper@v1 on t (kcarry/helper/v1/t)
  0001 fuzzy             [risk] btrfs: mark the work before running it
         fs/btrfs/async-thread.c hunk 1: fuzz at line 21 (offset -2) (fuzz 2) RISK: lands in normal_work_helper() at line 21, not in btrfs_work_helper() named by the hunk header (not found in the target); btrfs_work_helper() is normal_work_helper() here (83% of the hunk's lines are in it)
           cause: fs/btrfs/async-thread.c has no btrfs_work_helper(); it landed in normal_work_helper(), the same function by its body (83% of the hunk's lines are in it)
  0002 conflict          btrfs: run ordered work of marked work only
         fs/btrfs/async-thread.c hunk 1: conflict (offset -2): removed lines not found near line 25; 3-way merge with the hunk conflicts at lines 23-29
           cause: fs/btrfs/async-thread.c has no btrfs_work_helper(); btrfs_work_helper() is normal_work_helper() here (80% of the hunk's lines are in it)
  summary: 1 fuzzy, 1 conflict, 1 placement risk
EOT

# ---- names a conflicting hunk needs, from a failed earlier patch ----
git -C up checkout -q -b wq base
# 0001 adds struct __btrfs_workqueue and uses it where the target differs
sed -i 's/^\tint thresh;$/\tint thresh;\n\tstruct __btrfs_workqueue *normal;/' up/fs/btrfs/async-thread.h
sed -i 's/^struct btrfs_workqueue {$/struct __btrfs_workqueue {\n\tint limit_active;\n};\n\nstruct btrfs_workqueue {/' up/fs/btrfs/async-thread.h
sed -i 's/^\twq->pending--;$/\twq->pending--;\n\twq->normal->limit_active = wq->thresh;/' up/fs/btrfs/async-thread.c
git -C up commit -qam "btrfs: add struct __btrfs_workqueue"
# 0002 changes the line 0001 added
sed -i 's/^\twq->normal->limit_active = wq->thresh;$/\t((struct __btrfs_workqueue *)wq->normal)->limit_active = wq->thresh \/ 2;/' up/fs/btrfs/async-thread.c
git -C up commit -qam "btrfs: halve the active limit"
# the target's thresh_exec_hook() reads otherwise (adaptation, rule 4,
# would place 0001 beside wq->pending--: off, these are its causes)
sed -i 's/^\tif (wq->pending < wq->thresh)$/\tif (wq->pending <= wq->thresh)/' tgt/fs/btrfs/async-thread.c
git -C tgt commit -qam "target: its own threshold test"
git -C tgt tag wq-base
printf '[kernel]\n\turl = %s/tgt\n\tref = wq-base\n' "$TEST_TMP" >ws/kernels/t2.conf
expect_exit 0 kcarry -C ws import wq --git up base..wq
expect_exit 1 kcarry -C ws apply --no-refresh --no-adapt wq t2
expect_stdout <<'EOT'
wq@v1 on t2 (kcarry/wq/v1/t2)
  0001 conflict          btrfs: add struct __btrfs_workqueue
         fs/btrfs/async-thread.c hunk 1: conflict: context does not match near line 4; 3-way merge with the hunk conflicts at lines 4-9
  0002 conflict          btrfs: halve the active limit
         fs/btrfs/async-thread.c hunk 1: conflict: removed lines not found near line 4; 3-way merge with the hunk conflicts at lines 4-9
           cause: normal: no such member in this tree (added by 0001 of this series, which did not apply); limit_active: no such member in this tree (added by 0001 of this series, which did not apply); struct __btrfs_workqueue: no such type in this tree (added by 0001 of this series, which did not apply); it meets lines of patch 0001, which did not apply; prerequisite, not applied: 0001 of this series
         touches lines of failed patch 0001
  summary: 2 conflict
EOT
# the same in JSON, valid against the schema
expect_exit 1 kcarry -C ws apply --no-refresh --no-adapt --json -o wq.json wq t2
python3 - wq.json "$KCARRY_FIXTURES/../../docs/kcarry-apply.schema.json" <<'EOT' || fail "apply JSON"
import json, sys
d = json.load(open(sys.argv[1]))
try:
    import jsonschema
    jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).validate(d)
except ImportError:
    pass
h = d["results"][0]["patches"][1]["files"][0]["hunks"][0]
c = h["cause"]
assert c["kind"] == "names", c
assert [n["name"] for n in c["names"]] == ["normal", "limit_active", "__btrfs_workqueue"], c
assert c["names"][2]["tag"] == "struct" and c["names"][2]["use"] == "type", c
assert c["names"][0]["source"] == {"kind": "series", "patch": 1, "series": None,
                                   "version": None, "commit": None, "subject": None}, c
assert c["failed_patches"] == [1], c
EOT

# the documented example validates too
python3 - "$KCARRY_FIXTURES/../../docs/json-schema.md" "$KCARRY_FIXTURES/../../docs/kcarry-apply.schema.json" <<'EOT' || fail "docs/json-schema.md example"
import json, sys
md = open(sys.argv[1]).read()
a = md.index("```json\n") + 8
ex = json.loads(md[a:md.index("\n```\n", a)])
assert ex["schema"] == "kcarry-apply/1"
try:
    import jsonschema
    jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).validate(ex)
except ImportError:
    pass
EOT

# ---- a patch that applies but uses what the tree lacks ----
# the stable backport of upstream aec8e6bf8391 to a tree before the
# block device file: device->bdev_file exists in no struct here
git init -q hist
kernel hist
git -C hist add -A && git -C hist commit -qm "the tree as the target has it"
sed -i 's/^\tstruct block_device \*bdev;$/\tstruct block_device *bdev;\n\tstruct file *bdev_file;/' hist/fs/btrfs/volumes.h
git -C hist commit -qam "btrfs: port device access to file"
git -C hist tag port
sed -i 's/^\t\tdevice->bdev = NULL;$/\t\tdevice->bdev = NULL;\n\t\tdevice->bdev_file = NULL;/' hist/fs/btrfs/volumes.c
git -C hist commit -qam "btrfs: fix use-after-free of block device file in __btrfs_free_extra_devids()"
# the target: volumes.c five lines longer above (an offset)
git init -q old
kernel old
sed -i 's/^static void btrfs_close_bdev/static int btrfs_device_count;\n\nstatic void btrfs_note(void)\n{\n}\n\nstatic void btrfs_close_bdev/' old/fs/btrfs/volumes.c
git -C old add -A && git -C old commit -qm base && git -C old tag base
printf '[kernel]\n\turl = %s/old\n\tref = base\n' "$TEST_TMP" >ws/kernels/old.conf
expect_exit 0 kcarry -C ws import stable --git hist port..HEAD
expect_exit 1 kcarry -C ws apply --no-refresh stable old
expect_stdout <<'EOT'
stable@v1 on old (kcarry/stable/v1/old)
  0001 offset            [risk] btrfs: fix use-after-free of block device file in __btrfs_free_extra_devids() (1 hunk +6)
         fs/btrfs/volumes.c hunk 1: offset at line 18 (offset +6) RISK: bdev_file: no such member in this tree
  summary: 1 offset, 1 placement risk
EOT
# GNU patch applies it and says nothing
git clone -q old peer
git -C hist format-patch -q -1 --stdout >stable.patch
(cd peer && patch -p1 -s <../stable.patch) || fail "GNU patch refused what it applies silently"
grep -q 'device->bdev_file = NULL;' peer/fs/btrfs/volumes.c || fail "GNU patch did not apply it"

# with the target's upstream history: the commit that brought the member
printf '[kernel]\n\turl = %s/old\n\tref = base\n\thistory = ../hist\n' "$TEST_TMP" >ws/kernels/old.conf
port=$(git -C hist rev-parse --short=12 port)
expect_exit 1 kcarry -C ws apply --no-refresh stable old
expect_stdout <<EOT
stable@v1 on old (kcarry/stable/v1/old)
  0001 offset            [risk] btrfs: fix use-after-free of block device file in __btrfs_free_extra_devids() (1 hunk +6)
         fs/btrfs/volumes.c hunk 1: offset at line 18 (offset +6) RISK: bdev_file: no such member in this tree (introduced upstream by $port "btrfs: port device access to file")
           cause: bdev_file: no such member in this tree (introduced upstream by $port "btrfs: port device access to file"); prerequisite, not applied: upstream commit $port
  summary: 1 offset, 1 placement risk
EOT
# a series of the workspace that adds it is named first, and stacks-on
expect_exit 0 kcarry -C ws import port --git hist HEAD~2..port
expect_exit 1 kcarry -C ws apply --no-refresh stable old
expect_stdout <<'EOT'
stable@v1 on old (kcarry/stable/v1/old)
  0001 offset            [risk] btrfs: fix use-after-free of block device file in __btrfs_free_extra_devids() (1 hunk +6)
         fs/btrfs/volumes.c hunk 1: offset at line 18 (offset +6) RISK: bdev_file: no such member in this tree (added by port@v1 0001)
           cause: bdev_file: no such member in this tree (added by port@v1 0001); prerequisite, not applied: port@v1 0001; series.stacks-on = port would bring it
  summary: 1 offset, 1 placement risk
EOT
# stacked on it, the member is there: clean
printf '[series]\n\tstacks-on = port\n' >ws/series/stable.conf
expect_exit 0 kcarry -C ws check --no-refresh stable old
stdout_has "^  stable@v1 on old: 1 offset$"

# ---- the change already there in edited form; a file the target lacks ----
# new: has bdev_file, and the fix with its own comment, five lines lower
git init -q new
kernel new
sed -i 's/^\tstruct block_device \*bdev;$/\tstruct block_device *bdev;\n\tstruct file *bdev_file;/' new/fs/btrfs/volumes.h
sed -i 's/^static void btrfs_close_bdev/static int btrfs_device_count;\n\nstatic void btrfs_note(void)\n{\n}\n\nstatic void btrfs_close_bdev/' new/fs/btrfs/volumes.c
sed -i 's/^\t\tdevice->bdev = NULL;$/\t\tdevice->bdev = NULL;\n\t\tdevice->bdev_file = NULL; \/* the file goes with it *\//' new/fs/btrfs/volumes.c
git -C new add -A && git -C new commit -qm base && git -C new tag base
printf '[kernel]\n\turl = %s/new\n\tref = base\n' "$TEST_TMP" >ws/kernels/new.conf
rm ws/series/stable.conf
expect_exit 1 kcarry -C ws apply --no-refresh --json -o present.json stable new
# a patch to a file old does not have
git -C hist checkout -q -b ctree port
printf '#include "volumes.h"\n\nint btrfs_ctree_init(void)\n{\n\treturn 0;\n}\n' >hist/fs/btrfs/ctree.c
git -C hist add -A && git -C hist commit -qm "btrfs: ctree.c"
sed -i 's/return 0;/return 1;/' hist/fs/btrfs/ctree.c
git -C hist commit -qam "btrfs: ctree init returns 1"
expect_exit 0 kcarry -C ws import ctree --git hist HEAD~1..HEAD
expect_exit 1 kcarry -C ws apply --no-refresh --json -o file.json ctree old
python3 - present.json file.json "$KCARRY_FIXTURES/../../docs/kcarry-apply.schema.json" <<'EOT' || fail "present and file causes"
import json, sys
schema = json.load(open(sys.argv[3]))
for f in sys.argv[1:3]:
    d = json.load(open(f))
    try:
        import jsonschema
        jsonschema.Draft202012Validator(schema).validate(d)
    except ImportError:
        pass
h = json.load(open(sys.argv[1]))["results"][0]["patches"][0]["files"][0]["hunks"][0]
assert h["rule"] == "already-applied" and h["risk"], h
assert h["cause"]["kind"] == "present", h["cause"]
h = json.load(open(sys.argv[2]))["results"][0]["patches"][0]["files"][0]["hunks"][0]
assert h["rule"] == "conflict", h
assert h["cause"]["kind"] == "file", h["cause"]
EOT

# --- a hunk that fails only because an earlier patch failed: its cause
# is that patch (kind failed-patch), every name of it being defined
fp_file() { # X2: the value line 9 sets
	printf 'int x1;\nint x2;\nint x3;\nint x4;\n\nvoid f(void)\n{\n\tx1 = 1;\n\tx2 = %s;\n\tx3 = 3;\n\tx4 = 4;\n}\n' "$1"
}
make_repo fpup f.c "$(fp_file 2)"
commit_file fpup f.c "$(fp_file 20)" "set x2 to 20"
commit_file fpup f.c "$(fp_file 21)" "then to 21"
make_repo fptgt f.c "$(fp_file 5)"
printf '[kernel]\n\turl = %s/fptgt\n\tref = base\n' "$TEST_TMP" >ws/kernels/fp.conf
expect_exit 0 kcarry -C ws import fp --git fpup base..HEAD
expect_exit 1 kcarry -C ws apply --no-refresh --json -o fp.json fp fp
python3 - fp.json "$KCARRY_FIXTURES/../../docs/kcarry-apply.schema.json" <<'EOT' || fail "failed-patch cause"
import json, sys
d = json.load(open(sys.argv[1]))
try:
    import jsonschema
    jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).validate(d)
except ImportError:
    pass
p = d["results"][0]["patches"]
assert p[0]["outcome"] == "conflict" and p[1]["outcome"] == "conflict", [x["outcome"] for x in p]
c = p[1]["files"][0]["hunks"][0]["cause"]
assert c["kind"] == "failed-patch", c
assert c["failed_patches"] == [1], c
assert not c.get("names"), c
EOT

# --- no false risks: a name a later patch of the series declares (RT's
# generic code before the arch patch that defines its flag), and a word
# of a comment whose opener is above the hunk; a name that nothing
# declares in the same patch is still a risk
lt_c() { # EXTRA: lines after the first statement of f
	printf 'int x1;\n\n/**\n * f - the function\n * @a: the argument\n *\n * Does a thing.\n * Then another.\n * And a third.\n */\nint f(int a)\n{\n\tx1 = a;\n%s\treturn 0;\n}\n' "$1"
}
make_repo ltup k/core.c "$(lt_c '')
" k/flags.h "#define OLD_FLAG 1
"
sed -i 's/^ \* Does a thing.$/ * Does a thing.\n * @a specifies the argument./' ltup/k/core.c
git -C ltup commit -qam "doc: one line in a comment that opens above the hunk" || fail lt1
lt_c '	if (a == NEW_FLAG)
		x1 = NOWHERE_FLAG;
' | sed 's/^ \* Does a thing.$/ * Does a thing.\n * @a specifies the argument./' >ltup/k/core.c
git -C ltup commit -qam "core: use NEW_FLAG" || fail lt2
printf '#define OLD_FLAG 1\n#define NEW_FLAG 2\n' >ltup/k/flags.h
git -C ltup commit -qam "flags: define NEW_FLAG" || fail lt3
printf '[kernel]\n\turl = %s/ltup\n\tref = base\n' "$TEST_TMP" >ws/kernels/lt.conf
expect_exit 0 kcarry -C ws import later --git ltup base..HEAD
expect_exit 1 kcarry -C ws apply --no-refresh later lt
stdout_has '^  0001 clean             doc: one line in a comment that opens above the hunk$'
stdout_has 'RISK: NOWHERE_FLAG: no such macro or constant in this tree$'
! grep -q 'NEW_FLAG:' "$OUT" || { cat "$OUT"; fail "a name a later patch declares is a risk"; }
! grep -q 'specifies:' "$OUT" || { cat "$OUT"; fail "a comment's word is a risk"; }

# a name declared by an earlier patch that fails and again by a later one
# is the later one's: no risk on the patch between them
make_repo twup k/a.c "int a;
" k/flags.h "#define ONE 1
"
printf '#define ONE 1\n#define TWICE 2\n' >twup/k/flags.h
git -C twup commit -qam "flags: TWICE (conflicts on the target)" || fail tw1
printf 'int a;\nint b = TWICE;\n' >twup/k/a.c
git -C twup commit -qam "a: use TWICE" || fail tw2
printf '#define TWICE 2\n' >twup/k/twice.h
git -C twup add -A && git -C twup commit -qm "twice.h: TWICE again" || fail tw3
make_repo twtgt k/a.c "int a;
" k/flags.h "#define ONE 11
"
printf '[kernel]\n\turl = %s/twtgt\n\tref = base\n' "$TEST_TMP" >ws/kernels/tw.conf
expect_exit 0 kcarry -C ws import twice --git twup base..HEAD
expect_exit 1 kcarry -C ws apply --no-refresh twice tw
stdout_has '^  0001 conflict '
stdout_has '^  0002 clean             a: use TWICE$'
! grep -q 'TWICE: no such' "$OUT" || { cat "$OUT"; fail "a name the last patch declares is a risk"; }
