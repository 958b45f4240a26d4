#!/bin/sh
# kcarry diff: two versions of a series built as git branches, imported
# with --git, compared; git range-diff of the same branches is the peer:
# the same pairs, '=' and '!', dropped and new patches, order, and the same
# interdiffs.  The JSON validates against docs/kcarry-diff.schema.json.
top=$(cd ../.. && pwd)
. ./lib.sh

# edit REPO FILE SED SUBJECT [BODY]: change a file and commit
edit() {
	sed -i "$3" "$1/$2" || fail "sed $3"
	git -C "$1" commit -qam "$4" ${5:+-m "$5"} || fail "commit $4"
}

make_repo up fs/btrfs/a.c "$(c_lines 40 a)
" fs/btrfs/b.c "$(c_lines 40 b)
" fs/btrfs/c.c "$(c_lines 40 c)
" fs/btrfs/d.c "$(c_lines 40 d)
" fs/btrfs/e.c "$(c_lines 40 e)
"
git -C up checkout -qb v1
edit up fs/btrfs/a.c 's/a_line_10();/a_line_10(); exact_fix();/' "btrfs: exact fix"
edit up fs/btrfs/b.c 's/b_line_5();/b_helper();/' "btrfs: rename helper"
edit up fs/btrfs/a.c 's/a_line_30();/a_line_30(conflict);/' "btrfs: conflicting fix"
edit up fs/btrfs/c.c 's/c_line_20();/c_line_20(dropped);/' "btrfs: to be dropped"
edit up fs/btrfs/d.c 's/d_line_12();/d_line_12(log);/' "btrfs: tweak logging" "Some body."
edit up fs/btrfs/e.c 's/e_line_8();/e_line_8(1);/' "btrfs: rework e"
edit up fs/btrfs/c.c 's/c_line_30();/c_line_30(x);/' "btrfs: white space"
git -C up checkout -q base
git -C up checkout -qb v2
edit up fs/btrfs/a.c 's/a_line_10();/a_line_10(); exact_fix();/' "btrfs: exact fix"
edit up fs/btrfs/a.c 's/a_line_30();/a_line_30(conflict);/' "btrfs: conflicting fix"
edit up fs/btrfs/b.c 's/b_line_5();/b_helper();/; s/b_line_7();/b_helper(7);/' "btrfs: rename helper"
edit up fs/btrfs/c.c 's/c_line_37();/c_line_37(new);/' "btrfs: brand new"
edit up fs/btrfs/d.c 's/d_line_12();/d_line_12(log);/' "btrfs: tweak logging" "Another body."
edit up fs/btrfs/e.c 's/e_line_2[0-9]();/e_rework();/' "btrfs: rework e"
edit up fs/btrfs/c.c 's/c_line_30();/c_line_30( x );/' "btrfs: white space"

kcarry init ws >/dev/null
expect_exit 0 kcarry -C ws import wq@v1 --git up base..v1
expect_exit 0 kcarry -C ws import wq@v2 --git up base..v2

expect_exit 0 kcarry -C ws diff --stat wq v1 v2
expect_stdout <<'EOT'
wq: v1 (7 patches) -> v2 (7 patches)
1: = 1: btrfs: exact fix
3: = 2: btrfs: conflicting fix (moved)
2: ! 3: btrfs: rename helper (+4 -1)
4: - -: btrfs: to be dropped
-: + 4: btrfs: brand new
5: ! 5: btrfs: tweak logging (+1 -1)
6: ~ 6: btrfs: rework e (rewritten) (+26 -8)
7: ! 7: btrfs: white space (+1 -1)
2 unchanged, 3 changed, 1 rewritten, 1 new, 1 dropped, 1 moved
EOT
expect_stderr </dev/null

# the interdiff, as range-diff shows it
expect_exit 0 kcarry -C ws diff wq v1 v2
sed -n '/^5: ! 5:/,/^6:/p' "$OUT" >"$TEST_TMP/tweak"
cat >"$TEST_TMP/want" <<'EOT'
5: ! 5: btrfs: tweak logging
    @@ Metadata
      ## Commit message ##
         btrfs: tweak logging
     
    -    Some body.
    +    Another body.
     
      ## fs/btrfs/d.c ##
     @@
6: ~ 6: btrfs: rework e (rewritten)
EOT
diff -u "$TEST_TMP/want" "$TEST_TMP/tweak" || fail "interdiff of the message"
expect_exit 0 kcarry -v -C ws diff --stat wq v1 v2
stdout_has '^7: ! 7: btrfs: white space \(\+1 -1\) \[same patch-id\]$'
stdout_has '^2: ! 3: btrfs: rename helper \(\+4 -1\) \[same subject\]$'

# the peer: git range-diff of the same branches
git -C up range-diff --no-color base..v1 base..v2 >"$TEST_TMP/rd" || fail "git range-diff"
expect_exit 0 kcarry -C ws diff --json -o "$TEST_TMP/d.json" wq v1 v2
python3 "$top/tests/e2e/rangediff-compare.py" --interdiffs "$TEST_TMP/rd" "$TEST_TMP/d.json" ||
	fail "kcarry diff pairs otherwise than git range-diff"
# the rewritten patch is range-diff's dropped and new one
grep -q '^6:  [0-9a-f]* < -:' "$TEST_TMP/rd" || fail "range-diff pairs the rewritten patch"

# JSON: the schema, and what it says
if python3 -c 'import jsonschema' 2>/dev/null; then
	python3 - "$top/docs/kcarry-diff.schema.json" "$TEST_TMP/d.json" <<'EOT' || fail "schema"
import json, sys, jsonschema
s = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(s)
jsonschema.Draft202012Validator(s).validate(json.load(open(sys.argv[2])))
EOT
	# and the example of docs/diff-json-schema.md
	python3 - "$top/docs/kcarry-diff.schema.json" "$top/docs/diff-json-schema.md" <<'EOT' || fail "doc example"
import json, re, sys, jsonschema
s = json.load(open(sys.argv[1]))
ex = re.search(r"```json\n(.*?)```", open(sys.argv[2]).read(), re.S).group(1)
jsonschema.Draft202012Validator(s).validate(json.loads(ex))
EOT
fi
python3 - "$TEST_TMP/d.json" <<'EOT' || fail "json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["series"] == "wq" and d["old"] == {"version": "v1", "patches": 7}
assert d["counts"] == {"unchanged": 2, "changed": 3, "new": 1, "dropped": 1,
                       "rewritten": 1, "moved": 1}, d["counts"]
st = [(p["old"] and p["old"]["index"], p["status"], p["new"] and p["new"]["index"])
      for p in d["pairs"]]
assert st == [(1, "unchanged", 1), (3, "unchanged", 2), (2, "changed", 3),
              (4, "dropped", None), (None, "new", 4), (5, "changed", 5),
              (6, "rewritten", 6), (7, "changed", 7)], st
p = d["pairs"][5]
assert p["message_changed"] and not p["diff_changed"] and p["common"] == "patch-id"
assert p["interdiff"].startswith("@@ Metadata\n"), p["interdiff"]
assert d["pairs"][7]["common"] == "patch-id" and d["pairs"][7]["diff_changed"]
assert d["pairs"][1]["moved"] and d["pairs"][1]["interdiff"] is None
EOT
expect_exit 0 kcarry -C ws diff --json --stat wq v1 v2
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert all(p["interdiff"] is None for p in d["pairs"])' "$OUT" ||
	fail "--json --stat keeps interdiffs"

# a version against itself: all unchanged
expect_exit 0 kcarry -C ws diff wq v2 v2
stdout_has '^7 unchanged, 0 changed, 0 rewritten, 0 new, 0 dropped, 0 moved$'

# errors
expect_exit 2 kcarry -C ws diff wq v1
expect_stderr <<'EOT'
error: expected NAME V1 V2
usage: kcarry diff [options] NAME V1 V2
   or: kcarry diff [options] NAME@V1 NAME@V2
EOT
expect_exit 2 kcarry -C ws diff wq@v1 other@v2
stderr_has "^error: 'wq@v1' and 'other@v2' are not two versions of one series$"
expect_exit 0 kcarry -C ws diff --stat wq@v1 wq@v2
stdout_has '^2 unchanged, 3 changed, 1 rewritten, 1 new, 1 dropped, 1 moved$'
expect_exit 2 kcarry -C ws diff wq v1 v9
expect_stderr <<'EOT'
error: series 'wq' has no version 'v9'
hint: 'kcarry show wq' lists the stored versions
EOT
expect_exit 2 kcarry -C ws diff --creation-factor 0 wq v1 v2
stderr_has "^error: --creation-factor takes a number from 1 to 1000, not '0'$"
expect_exit 0 kcarry -C ws diff --help
stdout_has '^usage: kcarry diff \[options\] NAME V1 V2$'
