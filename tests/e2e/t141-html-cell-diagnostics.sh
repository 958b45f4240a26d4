#!/bin/sh
# check --build --format html: every build diagnostic of the JSON is on
# the page exactly once, in the cell of the patch it is pinned on (a
# compile error of 0002's second hunk in cell (tgt, 2), the removed
# field of 0001 in cell (tgt, 1)), the others (an unconverted caller's
# error, pinned on no patch) in the build row; a cell holding pinned
# errors says so on its closed summary, so that a person knows to open
# it; the hunks of the cell keep their rule.  The page is read with
# python's html.parser.
here=$(pwd)
. ./lib.sh
need gcc
need make
. "$here/build-lib.sh"
build_fixture

expect_exit 1 kcarry -C ws check --build --format json -o rep.json wq tgt
expect_exit 1 kcarry -C ws check --build --format html -o rep.html wq tgt
python3 - rep.html rep.json <<'PY' || fail "the page"
import json, sys
from html.parser import HTMLParser
page = open(sys.argv[1], encoding="utf-8").read()
doc = json.load(open(sys.argv[2]))

class P(HTMLParser):
    # where each <li class="diag"> stands: ("cell", target, patch) or
    # ("build", target); the text of each cell's <summary>
    def __init__(s):
        super().__init__()
        s.where, s.stack, s.diags, s.summary = None, [], [], {}
        s.li, s.sum, s.tables = None, None, 0
    def handle_starttag(s, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if tag == "table":
            s.tables += 1
        if s.tables > 1:   # a hunk table inside a cell
            pass
        elif tag == "td" and "cell" in cls:
            s.where = ("cell", a["data-target"], int(a["data-patch"]))
            s.summary[s.where] = ""
        elif tag == "tr" and "brow" in cls:
            s.where = ("build",)
        elif tag == "td" and s.where == ("build",):
            s.where = ("build", a["data-target"])
        if tag == "summary" and s.where and s.where[0] == "cell" and s.sum is None \
                and not s.summary[s.where]:
            s.sum = s.where
        if tag == "li" and "diag" in cls:
            s.li = ""
    def handle_endtag(s, tag):
        if tag == "summary":
            s.sum = None
        if tag == "li" and s.li is not None:
            s.diags.append((s.where, s.li))
            s.li = None
        if tag == "tr" and s.tables == 1:
            s.where = None
        if tag == "table":
            s.tables -= 1
    def handle_data(s, d):
        if s.li is not None:
            s.li += d
        if s.sum is not None:
            s.summary[s.sum] += d

p = P()
p.feed(page)
cell = doc["cells"][0]
ds = cell["build"]["diagnostics"]
assert len(ds) >= 3, ds
pinned = 0
for d in ds:
    want = ("cell", cell["target"], d["patch"]) if d["patch"] else ("build", cell["target"])
    head = "%s:%d: %s: %s" % (d["path"], d["line"], d["severity"], d["message"])
    got = [w for w, text in p.diags if text.startswith(head)]
    assert got == [want], (head, want, got)
    pinned += bool(d["patch"])
assert len(p.diags) == len(ds), (len(p.diags), len(ds))
assert pinned >= 2, pinned
# a closed cell says it holds pinned errors
for pt in cell["patches"]:
    n = sum(1 for d in ds if d["patch"] == pt["index"] and d["severity"] == "error")
    s = p.summary[("cell", cell["target"], pt["index"])]
    if n:
        assert "%d build error%s" % (n, "" if n == 1 else "s") in s, (pt["index"], s)
    else:
        assert "build error" not in s, (pt["index"], s)
PY
exit 0
