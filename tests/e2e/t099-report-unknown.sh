#!/bin/sh
# The HTML page and report diff read the kcarry-check/1 JSON defensively:
# an outcome this kcarry does not know (a newer one's "adapted", or any
# string) renders as itself in a neutral colour, a hunk's "adaptation"
# object shows the original and the adapted hunk side by side, missing or
# mistyped fields are no crash; a file that is not a kcarry-check/1
# report is refused with exit 2.
. ./lib.sh
H='#ifndef BTRFS_ASYNC_THREAD_H
#define BTRFS_ASYNC_THREAD_H
struct btrfs_work;
typedef void (*btrfs_func_t)(struct btrfs_work *arg);
struct btrfs_work {
	btrfs_func_t func;
	btrfs_func_t ordered_func;
	btrfs_func_t ordered_free;
};
void btrfs_init_work(struct btrfs_work *work, btrfs_func_t func,
		     btrfs_func_t ordered_func, btrfs_func_t ordered_free);
void btrfs_queue_work(struct btrfs_work *work);
#endif
'
C='#include "async-thread.h"

void btrfs_init_work(struct btrfs_work *work, btrfs_func_t func,
		     btrfs_func_t ordered_func, btrfs_func_t ordered_free)
{
	work->func = func;
	work->ordered_func = ordered_func;
	work->ordered_free = ordered_free;
}

void btrfs_queue_work(struct btrfs_work *work)
{
	work->func(work);
}
'
caller() { # FILE FUNC CALLBACK
	printf '#include "async-thread.h"\n\nstatic void %s(struct btrfs_work *w)\n{\n}\n\nvoid %s(struct btrfs_work *w)\n{\n\tint x = 1;\n\n\tbtrfs_init_work(w, %s, NULL, NULL);\n\tbtrfs_queue_work(w);\n}\n' "$3" "$2" "$3"
}
make_repo up fs/btrfs/async-thread.h "$H" fs/btrfs/async-thread.c "$C" \
	fs/btrfs/disk-io.c "$(caller disk-io end_workqueue end_io)
" fs/btrfs/inode.c "$(caller inode submit_compressed compress_fn)
" fs/btrfs/raid56.c "$(caller raid56 rmw_work rmw_fn)
"
# patch 1: the API change and the disk-io.c caller
sed -i 's/,\n\t\t     btrfs_func_t ordered_free//' up/fs/btrfs/async-thread.h
python3 - up <<'PY'
import sys, re
d = sys.argv[1] + "/fs/btrfs/"
for f in ("async-thread.h", "async-thread.c"):
    s = open(d + f).read()
    s = s.replace(",\n\t\t     btrfs_func_t ordered_func, btrfs_func_t ordered_free)",
                  ",\n\t\t     btrfs_func_t ordered_func)")
    s = s.replace("\twork->ordered_free = ordered_free;\n", "")
    s = s.replace("\tbtrfs_func_t ordered_free;\n", "")
    open(d + f, "w").write(s)
s = open(d + "disk-io.c").read().replace("end_io, NULL, NULL)", "end_io, NULL)")
open(d + "disk-io.c", "w").write(s)
PY
git -C up commit -qam "btrfs: drop ordered_free from btrfs_init_work" || fail commit
sed -i 's/compress_fn, NULL, NULL)/compress_fn, NULL)/' up/fs/btrfs/inode.c
git -C up commit -qam "btrfs: convert inode.c to the new btrfs_init_work" || fail commit
sed -i 's/rmw_fn, NULL, NULL)/rmw_fn, NULL)/' up/fs/btrfs/raid56.c
git -C up commit -qam "btrfs: convert raid56.c to the new btrfs_init_work" || fail commit

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
expect_exit 1 kcarry -C ws check --format json -o base.json
python3 - base.json new.json <<'PY' || fail "mutate"
import json, sys
d = json.load(open(sys.argv[1]))
old = [c for c in d["cells"] if c["target"] == "old"][0]
p = old["patches"][2]
p["outcome"] = "adapted"
h = p["files"][0]["hunks"][0]
h["rule"] = "adapted"
h["adaptation"] = {"rule": "rename", "original": "-\tfoo(a, b);\n+\tfoo(a);\n",
                   "adapted": "-\tbar(a, b);\n+\tbar(a);\n", "note": "<b>renamed</b> foo to bar"}
old["patches"][1]["outcome"] = "<i>weird</i>"
new = [c for c in d["cells"] if c["target"] == "new"][0]
new["patches"][0]["files"] = "not a list"
del new["patches"][1]["subject"]
new["audit"]["unconverted"] = [{"path": 3, "line": "x"}]
json.dump(d, open(sys.argv[2], "w"))
PY
expect_exit 0 kcarry -C ws report diff new.json new.json
expect_exit 1 kcarry -C ws report diff --format html -o d.html base.json new.json
python3 - d.html <<'PY' || fail "the page"
import sys
from html.parser import HTMLParser
page = open(sys.argv[1], encoding="utf-8").read()
class P(HTMLParser):
    def __init__(s):
        super().__init__(); s.cells = []; s.text = []
    def handle_starttag(s, tag, a):
        a = dict(a)
        if tag == "td" and "cell" in (a.get("class") or "").split():
            s.cells.append((a.get("data-target"), a.get("data-patch"), a["class"].split(), []))
    def handle_data(s, d):
        s.text.append(d)
        if s.cells: s.cells[-1][3].append(d)
p = P(); p.feed(page)
cell = {(t, i): (c, "".join(x)) for t, i, c, x in p.cells}
c, x = cell[("old", "3")]
assert "o-adapted" in c and x.startswith("adapted"), (c, x[:80])
assert "foo(a, b);" in x and "bar(a, b);" in x and "<b>renamed</b> foo to bar" in x, x
assert page.index("foo(a, b);") < page.index("bar(a, b);")
c, x = cell[("old", "2")]
assert "o-other" in c and x.startswith("<i>weird</i>"), (c, x[:80])
assert "<i>weird" not in page
PY
# the regression the unknown outcome makes is read as an outcome
expect_exit 1 kcarry -C ws report diff base.json new.json
stdout_has '^  wq@v1 on new: new unconverted caller \?:0 \(file scope\) \?$'
echo '[1, 2]' >list.json
expect_exit 2 kcarry -C ws report diff base.json list.json
stderr_has "list.json: not a kcarry-check/1 report"
echo '{' >broken.json
expect_exit 2 kcarry -C ws report diff broken.json base.json
stderr_has "^error: broken.json:"
exit 0
