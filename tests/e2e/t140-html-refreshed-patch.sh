#!/bin/sh
# The refreshed patch in the report: kcarry-check/1 carries each committed
# patch's refreshed text ("refreshed_patch", byte for byte the file that
# --refresh writes under patches/NAME/VERSION/TARGET/), report merge keeps
# it, and the HTML cell shows it escaped, in a closed <details>.  A report
# without the field (an older kcarry's, or --no-patch-text) still loads
# and merges, and the cell falls back to the commit.  The JSON is checked
# against the schema, the page with python's html.parser.
. ./lib.sh

four_patch_series
# a fifth patch whose text is hostile markup: it must come out as text
mkdir -p up/fs/btrfs
printf '/* </pre></details><script>alert(1)</script> & "q" */\nint evil;\n' \
	>up/fs/btrfs/evil.c
git -C up add -A && git -C up commit -qm 'btrfs: add evil.c' || fail commit
# a second target on which everything applies
git clone -q --bare up same.git ||
	fail "same.git"

kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/tgt\n\tref = base\n' "$TEST_TMP" >ws/kernels/old.conf
printf '[kernel]\n\turl = %s/same.git\n\tref = base\n' "$TEST_TMP" >ws/kernels/same.conf
expect_exit 0 kcarry -C ws import wq --git up base..HEAD

expect_exit 1 kcarry -C ws check --refresh --format json -o rep.json
expect_exit 1 kcarry -C ws check --format html -o rep.html
expect_exit 1 kcarry -C ws check --no-patch-text --format json -o bare.json
SCHEMA=$KCARRY_FIXTURES/../../docs/kcarry-check.schema.json
python3 - rep.json bare.json ws/patches/wq/v1 "$SCHEMA" <<'PY' || fail "the JSON"
import json, os, sys
doc = json.load(open(sys.argv[1]))
bare = json.load(open(sys.argv[2]))
try:
    import jsonschema
    v = jsonschema.Draft202012Validator(json.load(open(sys.argv[4])))
    v.validate(doc)
    v.validate(bare)
except ImportError:
    pass
n = 0
for c in doc["cells"]:
    d = os.path.join(sys.argv[3], c["target"])
    for p in c["patches"]:
        path = os.path.join(d, p["file"])
        if p["committed"]:
            want = open(path, encoding="utf-8").read()
            assert p.get("refreshed_patch") == want, (c["target"], p["index"], p.get("refreshed_patch"))
            n += 1
        else:
            assert "refreshed_patch" not in p, (c["target"], p["index"])
            assert not os.path.exists(path), path
assert n == 8, n   # old: 1 2 5 (3 conflicts, 4 already there); same: 1-5
old = [c for c in doc["cells"] if c["target"] == "old"][0]
assert "offset +5 lines" in old["patches"][1]["refreshed_patch"]
# --no-patch-text: the same report without the texts
for c in doc["cells"]:
    for p in c["patches"]:
        p.pop("refreshed_patch", None)
doc["seconds"] = bare["seconds"] = 0
assert doc == bare, "--no-patch-text changed more than the texts"
PY

# the page: the text of each committed patch in its cell, closed, escaped
cat >page.py <<'PY'
import json, sys
from html.parser import HTMLParser
page = open(sys.argv[1], encoding="utf-8").read()
doc = json.load(open(sys.argv[2]))
class P(HTMLParser):
    # per cell: the texts of its <details class="refreshed"><pre>, whether
    # each is open, and the cell's other text
    def __init__(s):
        super().__init__()
        s.cells, s.cur, s.pre, s.in_pre, s.scripts = {}, None, None, False, 0
        s.inner = 0   # the <td>s of the hunk tables inside a cell
    def handle_starttag(s, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if tag == "script":
            s.scripts += 1
        if tag == "td" and s.cur is not None:
            s.inner += 1
        elif tag == "td" and "cell" in cls:
            s.cur = {"patch": [], "open": [], "text": ""}
            s.cells[(a["data-target"], int(a["data-patch"]))] = s.cur
        if s.cur is not None and tag == "details" and "refreshed" in cls:
            s.cur["open"].append("open" in a)
            s.pre = ""
        if tag == "pre" and s.pre is not None:
            s.in_pre = True
    def handle_endtag(s, tag):
        if tag == "pre":
            s.in_pre = False
        if tag == "details" and s.pre is not None:
            s.cur["patch"].append(s.pre)
            s.pre = None
        if tag == "td" and s.inner:
            s.inner -= 1
        elif tag == "td":
            s.cur = None
    def handle_data(s, d):
        if s.in_pre and s.pre is not None:
            s.pre += d
        elif s.cur is not None:
            s.cur["text"] += d
p = P(); p.feed(page)
assert p.scripts == 1, p.scripts
assert "<script>alert(1)" not in page, "markup got through"
with_text = int(sys.argv[3])
seen = 0
for c in doc["cells"]:
    for pt in c["patches"]:
        cell = p.cells[(c["target"], pt["index"])]
        assert not any(cell["open"]), "a refreshed patch is open"
        if with_text and pt["committed"]:
            assert cell["patch"] == [pt["refreshed_patch"]], (c["target"], pt["index"], cell["patch"])
            seen += 1
        else:
            assert cell["patch"] == [], (c["target"], pt["index"])
        if pt["committed"] and not with_text:
            assert pt["commit"] in cell["text"], cell["text"]
assert seen == (8 if with_text else 0), seen
evil = [x for x in doc["cells"] if x["target"] == "old"][0]["patches"][4]
if with_text:
    assert "<script>alert(1)</script> & \"q\"" in evil["refreshed_patch"]
PY
python3 page.py rep.html rep.json 1 || fail "the page"

# report merge of two shards keeps the texts: the same JSON, the same page
expect_exit 1 kcarry -C ws check --shard 1/2 --format json -o s1.json
expect_exit 0 kcarry -C ws check --shard 2/2 --format json -o s2.json
expect_exit 1 kcarry -C ws report merge --format json -o merged.json s1.json s2.json
expect_exit 1 kcarry -C ws report merge --format html -o merged.html s1.json s2.json
python3 - rep.json merged.json <<'PY' || fail "merge lost the texts"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
a["seconds"] = b["seconds"] = 0
assert a == b
PY
cmp -s rep.html merged.html || fail "report merge --format html differs from check's"

# an older report without the field: it loads, merges and renders
python3 - s1.json s2.json <<'PY' || fail strip
import json, sys
for f in sys.argv[1:]:
    d = json.load(open(f))
    for c in d["cells"]:
        for p in c["patches"]:
            p.pop("refreshed_patch", None)
    json.dump(d, open(f, "w"), indent=2)
PY
expect_exit 1 kcarry -C ws report merge --format json -o old.json s1.json s2.json
expect_exit 1 kcarry -C ws report merge --format html -o old.html s1.json s2.json
grep -q refreshed_patch old.json && fail "a text out of nothing"
python3 page.py old.html old.json 0 || fail "the page of an older report"
exit 0
