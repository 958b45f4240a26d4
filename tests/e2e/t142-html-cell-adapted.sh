#!/bin/sh
# The adapted hunk beside its original in the HTML cell, from a real run
# (t070's drifted context: a one-line fix whose context the target
# rewrote): the cell of the adapted patch holds the rule, the original
# hunk and then the adapted one, as the JSON's "adaptation" has them, and
# its refreshed patch holds the adapted hunk.  The adaptation's note is
# not said twice when the hunk's reason says it.  Read with html.parser.
here=$(pwd)
. ./lib.sh
. "$here/adapt-lib.sh"

drift_fixture
expect_exit 1 kcarry -C ws check --format json -o rep.json
expect_exit 1 kcarry -C ws check --format html -o rep.html
python3 - rep.html rep.json <<'PY' || fail "the page"
import json, sys
from html.parser import HTMLParser
page = open(sys.argv[1], encoding="utf-8").read()
doc = json.load(open(sys.argv[2]))

class P(HTMLParser):
    # the <pre> texts inside each cell, in order, and each cell's text
    def __init__(s):
        super().__init__()
        s.cells, s.cur, s.pre, s.tds = {}, None, None, 0
    def handle_starttag(s, tag, attrs):
        a = dict(attrs)
        if tag == "td" and s.cur is not None:
            s.tds += 1
        elif tag == "td" and "cell" in (a.get("class") or "").split():
            s.cur = {"pre": [], "text": "", "cls": a["class"].split()}
            s.cells[(a["data-target"], int(a["data-patch"]))] = s.cur
        if tag == "pre" and s.cur is not None:
            s.pre = ""
    def handle_endtag(s, tag):
        if tag == "pre" and s.pre is not None:
            s.cur["pre"].append(s.pre)
            s.pre = None
        if tag == "td" and s.tds:
            s.tds -= 1
        elif tag == "td":
            s.cur = None
    def handle_data(s, d):
        if s.pre is not None:
            s.pre += d
        elif s.cur is not None:
            s.cur["text"] += d

p = P()
p.feed(page)
pt = doc["cells"][0]["patches"][0]
assert pt["outcome"] == "adapted", pt["outcome"]
h = pt["files"][0]["hunks"][0]
ad = h["adaptation"]
cell = p.cells[("old", 1)]
assert "o-adapted" in cell["cls"], cell["cls"]
assert cell["text"].startswith("adapted"), cell["text"][:80]
assert "adapted (drifted-context)" in cell["text"], cell["text"]
# the note once: the hunk's reason says it already
assert cell["text"].count(ad["note"]) == 1, cell["text"]
# the original, then the adapted hunk, then the refreshed patch
pres = cell["pre"]
assert pres[:2] == [ad["original"], ad["adapted"]], pres[:2]
assert "+\tret = step_two(c, FLAG_X);\n" in ad["adapted"]
assert "\n \t\tgoto fail;\n" in ad["adapted"] and "\n \t\tgoto out;\n" in ad["original"]
assert pres[2] == pt["refreshed_patch"], pres[2:]
assert " \tret = step_one_locked(c);\n" in pres[2], pres[2]
PY
exit 0
