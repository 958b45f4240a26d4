#!/bin/sh
# kcarry check --format html: one self-contained page (no network, no
# external script, style or font) rendered from the kcarry-check/1 JSON:
# one cell per patch and target, coloured by outcome, a conflict's cause
# in its cell, the unconverted callers grouped per symbol and file, the
# filters.  Patch subjects and file names are hostile: a <script> in
# either must come out as text.  report merge --format html of two
# shards gives the same page.  The page is parsed by python's html.parser
# (an independent reader), not grepped.
here=$(pwd)
. ./lib.sh
. "$here/wq-lib.sh"
evil='fs/btrfs/<script>alert(1)</script>.c'
E='int a;
int b;
int c;
'
wq_upstream "$evil" "$E"

# old: no raid56.c, but scrub.c that the series never converts
make_repo old "$evil" "$(echo "$E" | sed s/b/B/)
" fs/btrfs/async-thread.h "$H" fs/btrfs/async-thread.c "$C" \
	fs/btrfs/disk-io.c "$(caller disk-io end_workqueue end_io)
" fs/btrfs/inode.c "$(caller inode submit_compressed compress_fn)
" fs/btrfs/scrub.c "$(caller scrub scrub_start scrub_fn)
"
kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/up\n\tref = base\n' "$TEST_TMP" >ws/kernels/new.conf
printf '[kernel]\n\turl = %s/old\n\tref = base\n' "$TEST_TMP" >ws/kernels/old.conf
# a hostile patch: its subject and the file it changes carry markup, and
# the file differs on old (a conflict there)
printf 'int a;\nint b2;\nint c;\n' >"up/$evil"
git -C up commit -qam '<script>alert("subject")</script> & fix' || fail commit
expect_exit 0 kcarry -C ws import wq --git up base..HEAD

expect_exit 1 kcarry -C ws check --format json -o rep.json
expect_exit 1 kcarry -C ws check --format html -o rep.html
[ -s rep.html ] || fail "no rep.html"
python3 - rep.html rep.json <<'PY' || fail "the page"
import json, sys
from html.parser import HTMLParser
page = open(sys.argv[1], encoding="utf-8").read()
doc = json.load(open(sys.argv[2]))

class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.cells, self.scripts, self.ext, self.stack = [], 0, [], []
        self.text = []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script":
            self.scripts += 1
            if "src" in a: self.ext.append(a["src"])
        for k in ("src", "href"):
            if k in a: self.ext.append(a[k])
        if tag == "link": self.ext.append(str(a))
        cls = (a.get("class") or "").split()
        if tag == "td" and "cell" in cls:
            self.cells.append((a.get("data-target"), a.get("data-patch"), cls, []))
        if tag == "td": self.stack.append(tag)
    def handle_endtag(self, tag):
        pass
    def handle_data(self, d):
        self.text.append(d)
        if self.cells: self.cells[-1][3].append(d)
p = P()
p.feed(page)
assert p.scripts == 1, "scripts: %d" % p.scripts
assert not p.ext, p.ext
assert "url(" not in page and "@import" not in page and "http" not in page.replace("http-equiv", "")
# one cell per patch and target, the JSON's outcomes
want = {}
for c in doc["cells"]:
    for pt in c["patches"]:
        want[(c["target"], str(pt["index"]))] = pt["outcome"]
got = {(t, i): cls for t, i, cls, _ in p.cells}
assert set(got) == set(want), (sorted(got), sorted(want))
cls = {"clean": "o-clean", "conflict": "o-conflict"}
for k, o in want.items():
    assert cls[o] in got[k], (k, o, got[k])
# the hostile subject and file name are text, not markup
text = "".join(p.text)
assert '<script>alert("subject")</script> & fix' in text, "subject lost"
assert "fs/btrfs/<script>alert(1)</script>.c" in text, "file name lost"
assert "<script>alert" not in page, "markup got through"
# a conflict's cell shows its cause (the reason of its hunk)
old3 = [c for c in p.cells if c[0] == "old" and c[1] == "3"][0]
h = [x for x in doc["cells"] if x["target"] == "old"][0]["patches"][2]["files"][0]["hunks"][0]
assert h["reason"] and h["reason"] in "".join(old3[3]), (h["reason"], old3[3])
# the audit grouped per symbol and file
assert "btrfs_init_work: 1 use in fs/btrfs/scrub.c (11)" in text, [l for l in text.split("\n") if "btrfs_init_work" in l][:5]
assert 'id="f-conflict"' in page and 'id="f-risk"' in page and 'id="f-target"' in page
PY

# report merge of two shards writes the same page
expect_exit 0 kcarry -C ws check --shard 1/2 --format json -o s1.json
expect_exit 1 kcarry -C ws check --shard 2/2 --format json -o s2.json
expect_exit 1 kcarry -C ws report merge --format html -o merged.html s1.json s2.json
diff -u rep.html merged.html >/dev/null || {
	diff -u rep.html merged.html | head -20
	fail "report merge --format html differs from check's"
}
# --reports writes check.html too
expect_exit 1 kcarry -C ws check --reports rep
[ -s rep/check.html ] || fail "--reports wrote no check.html"
exit 0
