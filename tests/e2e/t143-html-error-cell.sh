#!/bin/sh
# A target that cannot be prepared (its repository is gone) is a column
# of cells that did not run: on the page each is a cell of its patch and
# target like any other (data-target, data-patch), marked as failing for
# the "only conflicts" filter, and opens to the error; the other
# target's cells are as usual.  Read with python's html.parser.
. ./lib.sh

four_patch_series
kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/tgt\n\tref = base\n' "$TEST_TMP" >ws/kernels/old.conf
printf '[kernel]\n\turl = %s/gone\n\tref = base\n' "$TEST_TMP" >ws/kernels/gone.conf
expect_exit 0 kcarry -C ws import wq --git up base..HEAD
expect_exit 1 kcarry -C ws check --format json -o rep.json
expect_exit 1 kcarry -C ws check --format html -o rep.html
python3 - rep.html rep.json <<'PY' || fail "the page"
import json, sys
from html.parser import HTMLParser
doc = json.load(open(sys.argv[2]))

class P(HTMLParser):
    def __init__(s):
        super().__init__()
        s.cells, s.cur, s.tds = [], None, 0
    def handle_starttag(s, tag, attrs):
        a = dict(attrs)
        if tag == "td" and s.cur is not None:
            s.tds += 1
        elif tag == "td" and "cell" in (a.get("class") or "").split():
            s.cur = [a, ""]
            s.cells.append(s.cur)
    def handle_endtag(s, tag):
        if tag == "td" and s.tds:
            s.tds -= 1
        elif tag == "td":
            s.cur = None
    def handle_data(s, d):
        if s.cur is not None:
            s.cur[1] += d

p = P()
p.feed(open(sys.argv[1], encoding="utf-8").read())
gone = [c for c in doc["cells"] if c["target"] == "gone"][0]
assert not gone["ok"] and gone["error"], gone
cells = {(a["data-target"], a.get("data-patch")): (a, t) for a, t in p.cells}
assert len(cells) == len(p.cells) == 8, sorted(cells)
for i in range(1, 5):
    a, text = cells[("gone", str(i))]
    assert "o-error" in a["class"].split() and a["data-fail"] == "1", a
    assert gone["error"] in text, (gone["error"], text)
    a, text = cells[("old", str(i))]
    assert "o-error" not in a["class"].split(), a
PY
exit 0
