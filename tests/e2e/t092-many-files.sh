#!/bin/sh
# A patch that adds 20,000 files imports, applies and refreshes (the
# refresh looked every path up again in trees libgit2 did not cache, and
# deduplicated paths pairwise: 100,000 files were still refreshing after
# 600 s).  The timeout is a hang detector, far above the few seconds this
# takes; bench/import-scale measures speed.
. ./lib.sh
need timeout
need python3

make_repo t README "x
"
python3 - <<'EOT'
n = 20000
with open("many.patch", "w") as f:
    f.write("From: A U Thor <a@example.org>\nSubject: add many files\n\n---\n")
    for i in range(n):
        f.write("--- /dev/null\n+++ b/d%d/f%d.c\n@@ -0,0 +1 @@\n+int v%d;\n" % (i % 100, i, i))
EOT
kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/t\n\tref = base\n' "$TEST_TMP" >ws/kernels/t.conf
expect_exit 0 timeout 300 "$KCARRY" -C ws import s many.patch
expect_exit 0 timeout 300 "$KCARRY" -C ws apply s t
stdout_has "^  0001 clean +add many files$"
[ "$(git -C t ls-tree -r --name-only kcarry/s/v1/t | wc -l)" = 20001 ] || fail "files in the branch"
[ "$(grep -c '^+++ b/' ws/patches/s/v1/t/0001-add-many-files.patch)" = 20000 ] ||
	fail "files in the refreshed patch"
exit 0
