#!/bin/sh
# The adapted hunk beside its original in the HTML cell, from a real run
# (t070's drifted context: a one-line fix whose context the target
# rewrote): the cell of the adapted patch holds the rule, the original
# hunk and then the adapted one, as the JSON's "adaptation" has them, and
# its refreshed patch holds the adapted hunk.  The adaptation's note is
# not said twice when the hunk's reason says it.  Read with html.parser.
. ./lib.sh

UP_C='#include "core.h"

static int other(struct ctx *c)
{
	return c->n;
}

static int foo(struct ctx *c)
{
	int ret;

	lock(c);
	ret = step_one(c);
	if (ret)
		goto out;
	ret = step_two(c, 0);
	unlock(c);
out:
	return ret;
}

static int bar(struct ctx *c)
{
	return foo(c) + other(c);
}
'
TGT_C='#include "core.h"

static int other(struct ctx *c)
{
	return c->n * 2;
}

static int foo(struct ctx *c)
{
	int ret;

	mutex_lock(&c->lock);
	ret = step_one_locked(c);
	if (ret < 0)
		goto fail;
	ret = step_two(c, 0);
	mutex_unlock(&c->lock);
fail:
	return ret;
}

static int bar(struct ctx *c)
{
	return foo(c) + other(c);
}
'
make_repo up drivers/demo/core.c "$UP_C"
commit_file up drivers/demo/core.c "$(printf '%s' "$UP_C" |
	sed 's/step_two(c, 0)/step_two(c, FLAG_X)/')
" "demo: pass FLAG_X to step two"
make_repo tgt drivers/demo/core.c "$TGT_C"

kcarry init ws >/dev/null
cat >ws/kernels/old.conf <<EOT
[kernel]
	name = old
	url = $TEST_TMP/tgt
	ref = base
EOT
expect_exit 0 kcarry -C ws import demo --git up base..HEAD
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
