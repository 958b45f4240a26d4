#!/bin/sh
# kcarry check --shard I/N and kcarry report merge: three shards of a
# two-series, two-target check with builds, merged, equal one full run
# (JSON without the timings, text, Markdown); merging refuses reports
# that miss a cell or have one twice.
here=$(pwd)
. ./lib.sh
. "$here/build-lib.sh"
build_fixture
git clone -q tgt2 up2 || fail clone2
sed -i 's/return n > 1/return n > 2/' up2/fs/btrfs/ctree.c
git -C up2 commit -qam "btrfs: deeper trees" || fail c4
expect_exit 0 kcarry -C ws import fine --git up2 base..HEAD

expect_exit 1 kcarry -C ws check --build --format json -o full.json
expect_exit 1 kcarry -C ws check --build -o full.txt
for i in 1 2 3; do
	kcarry -C ws check --build --shard "$i/3" --format json -o "s$i.json"
	[ $? -le 1 ] || fail "shard $i"
done
# cells: fine/tgt 0, fine/tgt2 1, wq/tgt 2, wq/tgt2 3; shard 2 of 3
# holds fine on tgt2 alone, which builds
expect_exit 0 kcarry -C ws check --build --shard 2/3
stdout_has '^build +B *$'
expect_exit 1 kcarry -C ws report merge --format json -o merged.json s1.json s2.json s3.json
expect_exit 1 kcarry -C ws report merge -o merged.txt s3.json s1.json s2.json
diff -u full.txt merged.txt || fail "merged text differs from one run"
python3 - full.json merged.json <<'PY' || fail "merged JSON differs from one run"
import json, sys
def strip(o):
    if isinstance(o, dict):
        return {k: strip(v) for k, v in o.items()
                if k not in ("seconds", "base_cached")}
    if isinstance(o, list):
        return [strip(v) for v in o]
    return o
a, b = (strip(json.load(open(p))) for p in sys.argv[1:3])
if a != b:
    for k in a:
        if a[k] != b.get(k):
            print("differs:", k)
    sys.exit(1)
assert len(a["cells"]) == 4 and all(c["in_shard"] for c in a["cells"])
assert a["shard"] is None
PY
python3 - "$KCARRY_FIXTURES/../../docs/kcarry-check.schema.json" s1.json s2.json s3.json merged.json <<'PY' || fail "a report does not match the schema"
import json, sys
try:
    import jsonschema
except ImportError:
    sys.exit(0)
schema = json.load(open(sys.argv[1]))
for f in sys.argv[2:]:
    jsonschema.validate(json.load(open(f)), schema)
PY
for f in s1.json s2.json s3.json; do
	python3 -c "import json,sys; d=json.load(open('$f')); assert d['shard']['count'] == 3" ||
		fail "$f names no shard"
done
expect_exit 1 kcarry -C ws report merge --format markdown s1.json s2.json s3.json
cp "$OUT" merged.md
expect_exit 1 kcarry -C ws check --build --format markdown
diff -u "$OUT" merged.md || fail "merged Markdown differs"

expect_exit 2 kcarry -C ws report merge s1.json s2.json
expect_stderr <<'EOT'
error: no report has the cell wq on tgt
hint: give the reports of every shard
EOT
expect_exit 2 kcarry -C ws report merge s1.json s1.json s2.json s3.json
stderr_has '^error: s1.json: cell fine on tgt is in two reports$'
expect_exit 2 kcarry -C ws check --shard 4/3
stderr_has '^error: --shard: expected I/N with 1 <= I <= N$'

# docs/ci.md's GitLab report job, line by line under 'sh -e' as GitLab
# runs it, on these shards: it must print the matrix and then fail on the
# findings (exit 1), not die before printing
awk '/^report:$/ { on = 1 } on && /^  script:$/ { s = 1; next }
	s && /^    - / { sub(/^    - /, ""); print; next } s && !/^    #/ { exit }' \
	"$KCARRY_FIXTURES/../../docs/ci.md" >gitlab-report.sh
[ "$(wc -l <gitlab-report.sh)" -ge 3 ] || fail "docs/ci.md: no GitLab report script found"
mkdir gl && cp s1.json s2.json s3.json gl/
# the shard files as the check jobs name them
(cd gl && mv s1.json shard-1.json && mv s2.json shard-2.json && mv s3.json shard-3.json)
kdir=$(dirname "$KCARRY")
(cd gl && KCARRY_WORKSPACE="$TEST_TMP/ws" PATH="$kdir:$PATH" sh -e "$TEST_TMP/gitlab-report.sh") >gl.out 2>gl.err
rc=$?
[ "$rc" -ne 0 ] || fail "the GitLab report job passed on a matrix with findings"
[ "$(cat gl/out/status)" = 1 ] || { cat gl.err; fail "the GitLab report job did not keep merge's exit 1"; }
grep -q '^summary' gl.out || { cat gl.err; fail "the GitLab report job did not print the matrix"; }
[ -s gl/out/check.xml ] || fail "the GitLab report job wrote no JUnit file"
