#!/bin/sh
# A Debian-style patch keeps its own DEP-3 fields through import, storage
# and export (Origin, Bug-Debian, Forwarded were dropped at import):
# re-exported for Debian, the fields are the ones it came with.  The same
# diffs imported again from the same source with another message update
# the stored version without --force.
. ./export-lib.sh
. ./lib.sh

make_repo t drivers/x.c "one
two
"
mkdir -p q
cat >q/fix.patch <<'EOT'
Description: x: add a third line
 Needed by the installer.
Author: Ben Hutchings <ben@decadent.org.uk>
Origin: vendor
Bug-Debian: https://bugs.debian.org/1085001
Forwarded: not-needed
Last-Update: 2024-03-04
--- a/drivers/x.c
+++ b/drivers/x.c
@@ -1,2 +1,3 @@
 one
 two
+three
EOT
echo fix.patch >q/series
kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/t\n\tref = base\n' "$TEST_TMP" >ws/kernels/t.conf
expect_exit 0 kcarry -C ws import deb q
grep -qx 'Origin: vendor' ws/patches/deb/v1/0001-*.patch || fail "Origin not stored"
grep -qx 'Bug-Debian: https://bugs.debian.org/1085001' ws/patches/deb/v1/0001-*.patch ||
	fail "Bug-Debian not stored"
expect_exit 0 kcarry -C ws import deb q
expect_stdout <<'EOT'
deb@v1 is unchanged: 1 patch in patches/deb/v1
EOT
expect_exit 0 kcarry -C ws apply deb t
expect_exit 0 kcarry -C ws export deb t --format debian -o out
p=$(find out -name '*.patch')
[ -n "$p" ] || fail "nothing exported"
sed '/^$/q' "$p" >head
grep -qx 'Origin: vendor' head || { cat head; fail "Origin lost"; }
grep -qx 'Bug-Debian: https://bugs.debian.org/1085001' head || { cat head; fail "Bug-Debian lost"; }
grep -qx 'Forwarded: not-needed' head || { cat head; fail "Forwarded lost"; }
grep -qx 'Author: Ben Hutchings <ben@decadent.org.uk>' head || { cat head; fail "Author"; }
dep3_check "$p"

# another message around the same diff, from the same source: updated
sed -i 's/^ Needed by the installer.$/ Needed by the installer and the live image./' q/fix.patch
expect_exit 0 kcarry -C ws import deb q
expect_stdout <<'EOT'
updated deb@v1: 1 patch in patches/deb/v1 (the same diffs from the same source; headers or messages changed)
EOT
grep -q 'live image' ws/patches/deb/v1/0001-*.patch || fail "not updated"
# another diff still needs --force
sed -i 's/^+three$/+drei/' q/fix.patch
expect_exit 2 kcarry -C ws import deb q
stderr_has "^error: deb@v1 is already stored with other content$"
exit 0
