#!/bin/sh
# Modes as git apply reads them: "new mode 100777" makes an executable
# (git's canon_mode: 100755), applied and refreshed like git apply does;
# what git apply refuses (a file turned into a symlink in place) fails the import with
# the patch and line named, never a libgit2 message at apply time.
# (A "diff --git" file whose +++ b//etc/x strips to /etc/x is refused as
# git does: test_patch.)
. ./lib.sh

make_repo t f "a
b
c
" g "x
"
mkdir q
cat >q/01-mode-777.patch <<'EOT'
From: A <a@example.com>
Subject: f runs

---
diff --git a/f b/f
old mode 100644
new mode 100777
EOT
cat >q/02-new-file-775.patch <<'EOT'
From: A <a@example.com>
Subject: h runs too

---
diff --git a/h b/h
new file mode 100775
--- /dev/null
+++ b/h
@@ -0,0 +1 @@
+h
EOT
printf '%s\n' 01-mode-777.patch 02-new-file-775.patch >q/series

kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/t\n\tref = base\n' "$TEST_TMP" >ws/kernels/t.conf
expect_exit 0 kcarry -C ws import s q
expect_exit 0 kcarry -C ws apply s t
# git apply of the same patches gives the same tree
git clone -q t chk && git -C chk checkout -q base || fail "clone"
for p in q/01-mode-777.patch q/02-new-file-775.patch; do
	git -C chk apply --index "$TEST_TMP/$p" || fail "git apply $p"
done
[ "$(git -C chk write-tree)" = "$(git -C t rev-parse kcarry/s/v1/t^{tree})" ] ||
	fail "tree differs from git apply's"
[ "$(git -C t ls-tree kcarry/s/v1/t f | cut -c1-6)" = 100755 ] || fail "mode of f"

# what git apply refuses is refused at import
mkdir r
cat >r/01-type.patch <<'EOT'
From: A <a@example.com>
Subject: g becomes a link

---
diff --git a/g b/g
old mode 100644
new mode 120000
EOT
echo 01-type.patch >r/series
expect_exit 2 kcarry -C ws import s2 r
expect_stderr <<'EOT'
error: 01-type.patch:5: 'g' changes type from mode 100644 to 120000 in place
EOT
git -C chk apply --check "$TEST_TMP/r/01-type.patch" 2>/dev/null &&
	fail "git apply accepts the type change"
exit 0
