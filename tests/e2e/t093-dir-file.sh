#!/bin/sh
# A patch that turns a file into a folder (removes 'thing', adds
# 'thing/y.c') applies, as git am applies it; so does the reverse, a
# folder emptied into a file of its name.  The carried tree equals the
# tree git am makes of the same patch on the same commit.  A patch that
# adds under a file it leaves in place is still a conflict.
. ./lib.sh

make_repo up thing lib/x.c
git -C up rm -q thing
mkdir up/thing
printf 'int y;\n' >up/thing/y.c
git -C up add -A && git -C up commit -qm "thing: a file becomes a folder" || fail commit
git -C up tag f2d
git -C up rm -q -r thing
printf 'a file again\n' >up/thing
git -C up add -A && git -C up commit -qm "thing: the folder becomes a file" || fail commit
git -C up tag d2f

kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/up\n\tref = base\n' "$TEST_TMP" >ws/kernels/T.conf
expect_exit 0 kcarry -C ws import s --git up base..d2f
expect_exit 0 kcarry -C ws apply s T
expect_stdout <<'EOT'
s@v1 on T (kcarry/s/v1/T)
  0001 clean             thing: a file becomes a folder
  0002 clean             thing: the folder becomes a file
  summary: 2 clean
EOT

# the peer: git am of the same patches on the same commit
git clone -q up peer || fail clone
git -C peer checkout -q -b am base
git -C up format-patch -q -o "$TEST_TMP/fp" base..d2f || fail format-patch
git -C peer am -q "$TEST_TMP"/fp/0001-*.patch || fail "git am 0001"
[ "$(git -C peer rev-parse HEAD^{tree})" = \
	"$(git -C up rev-parse kcarry/s/v1/T~1^{tree})" ] ||
	fail "file to folder: another tree than git am's"
git -C peer am -q "$TEST_TMP"/fp/0002-*.patch || fail "git am 0002"
[ "$(git -C peer rev-parse HEAD^{tree})" = \
	"$(git -C up rev-parse kcarry/s/v1/T^{tree})" ] ||
	fail "folder to file: another tree than git am's"

# adding under a file that stays is a conflict, for git am too
cat >"$TEST_TMP/under.patch" <<'EOT'
From: A U Thor <author@example.org>
Subject: [PATCH] thing: add under the file

---
 thing/z.c | 1 +
 1 file changed, 1 insertion(+)

diff --git a/thing/z.c b/thing/z.c
new file mode 100644
--- /dev/null
+++ b/thing/z.c
@@ -0,0 +1 @@
+int z;
EOT
expect_exit 0 kcarry -C ws import under "$TEST_TMP/under.patch"
expect_exit 1 kcarry -C ws apply under T
stdout_has "^  0001 conflict +thing: add under the file$"
stdout_has "cannot create 'thing/z.c': 'thing' is a file in the tree"
git -C peer checkout -q base 2>/dev/null
! git -C peer am -q "$TEST_TMP/under.patch" >/dev/null 2>&1 || fail "git am took it"
git -C peer am --abort
exit 0
