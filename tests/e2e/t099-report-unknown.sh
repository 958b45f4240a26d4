#!/bin/sh
# The HTML page and report diff read the kcarry-check/1 JSON defensively:
# an outcome this kcarry does not know (a newer one's "adapted", or any
# string) renders as itself in a neutral colour, a hunk's "adaptation"
# object shows the original and the adapted hunk side by side, missing or
# mistyped fields are no crash; a file that is not a kcarry-check/1
# report is refused with exit 2.
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
