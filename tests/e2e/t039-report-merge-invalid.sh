#!/bin/sh
# kcarry report merge reads reports it did not write: a report that does
# not fit the workspace or the schema is refused with a clear error (exit
# 2), never a crash nor a matrix made of made-up numbers: a workspace
# whose series has fewer patches than the report, a shard outside 1..N,
# negative counts, a cell of a series or target the report does not list.
. ./lib.sh
need python3
four_patch_series
kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/tgt\n\tref = base\n' "$TEST_TMP" >ws/kernels/old.conf
expect_exit 0 kcarry -C ws import wq --git up base..HEAD
expect_exit 1 kcarry -C ws check --format json -o full.json
expect_exit 1 kcarry -C ws check --shard 1/1 --format json -o one.json
expect_exit 1 kcarry -C ws report merge full.json

# edit FILE PYTHON: change the report d in place
edit() {
	python3 - "$1" "$2" <<'PY' || fail "edit $1"
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[2])
json.dump(d, open(sys.argv[1], "w"))
PY
}

cp full.json shard.json
edit shard.json 'd["shard"] = {"index": 5, "count": 2}'
expect_exit 2 kcarry -C ws report merge shard.json
expect_stderr <<'EOT'
error: shard.json: shard 5 of 2: expected 1 <= index <= count
EOT

cp full.json zero.json
edit zero.json 'd["shard"] = {"index": 0, "count": 0}'
expect_exit 2 kcarry -C ws report merge zero.json
expect_stderr <<'EOT'
error: zero.json: shard 0 of 0: expected 1 <= index <= count
EOT

cp full.json neg.json
edit neg.json 'd["cells"][0]["counts"]["clean"] = -3'
expect_exit 2 kcarry -C ws report merge neg.json
expect_stderr <<'EOT'
error: neg.json: cell wq on old: counts.clean is -3, not a count
EOT

cp full.json negf.json
edit negf.json 'd["cells"][0]["failed"] = -1'
expect_exit 2 kcarry -C ws report merge negf.json
expect_stderr <<'EOT'
error: negf.json: cell wq on old: failed is -1, not a count
EOT

cp full.json unknown.json
edit unknown.json 'd["cells"][0]["series"] = "nosuch"'
expect_exit 2 kcarry -C ws report merge unknown.json
expect_stderr <<'EOT'
error: unknown.json: a cell of series 'nosuch' on old, where the report lists wq@v1 on old
EOT

cp full.json tgt.json
edit tgt.json 'd["cells"][0]["target"] = "nosuch"'
expect_exit 2 kcarry -C ws report merge tgt.json
expect_stderr <<'EOT'
error: tgt.json: a cell of series 'wq' on nosuch, where the report lists wq@v1 on old
EOT

# the workspace's wq@v1 lost a patch since the check: an error, not a crash
rm ws/patches/wq/v1/0004-*.patch
sed -i '/^0004-/d' ws/patches/wq/v1/series
expect_exit 2 kcarry -C ws report merge full.json
expect_stderr <<'EOT'
error: the report has 4 patches for wq@v1, the workspace 3
hint: merge the reports in the workspace the check ran in
EOT
exit 0
