#!/bin/sh
# Adaptation, rule 1 (moved code) hunk by hunk, where the context drifted
# in the file the code moved to: Linux 5.19 moved check_version() from
# kernel/module.c into kernel/module/version.c and rewrapped a pr_warn()
# below the lines Debian's module-disable-matching-missing-version-crc
# fix changes.  The one file defining the hunk's function takes it when
# rule 4 (drifted context) anchors it there: the lines it removes stand
# exactly and once in that function.  Both rules' notes are kept.
#  - gone: kernel/mod.c is missing, check_version() is in
#    kernel/mod/version.c with its context rewrapped: adapted, the result
#    is the fix made there, the refreshed patch names that file and
#    applies to the target (git apply --check), and its hunk applies to
#    that file with GNU patch -F0 while the original hunk does not;
#  - back: the fix written for kernel/mod/version.c onto the tree before
#    the move, where check_version() is in kernel/mod.c one folder up;
#  - twice: the lines the hunk removes stand twice in the function there:
#    where they go is not known, a conflict;
#  - edited: the lines it removes were edited there (another rule's
#    work, not rule 4's): a conflict;
#  - JSON: one adaptation, rule moved-code, naming the file it went to.
here=$(pwd)
. ./lib.sh
. "$here/adapt-lib.sh"
need patch

HEAD_C='#include "mod.h"

'
CHECK='int check_version(const struct load_info *info, const char *symname,
		  const s32 *crc)
{
	if (!crc)
		return 1;
	if (versions_match(info, symname, crc))
		return 1;
	if (versions_missing(info))
		goto bad_version;

	/* Broken toolchain. Warn once, then let it go.. */
	pr_warn_once("%s: no symbol version for %s\n", info->name, symname);
	return 1;

bad_version:
	pr_warn("%s: disagrees about version of symbol %s\n",
		info->name, symname);
	return 0;
}
'
OTHER='static int other_check(const struct load_info *info)
{
	return info->index.vers != 0;
}
'
# the fix, as a sed script: warn every time and refuse the module
FIX='/Broken toolchain/d
s/pr_warn_once("%s: no symbol version/pr_warn("%s: no symbol version/
/no symbol version/{n;s/return 1;/return 0;/;}'
# the newer tree rewrapped the pr_warn() after the label
WRAP='/disagrees about version/{N;s/symbol %s\\n",\n\t\t/symbol %s\\n", /;}'
CHECK_NEW=$(printf '%s' "$CHECK" | sed "$WRAP")
[ "$CHECK_NEW" != "$(printf '%s' "$CHECK")" ] || fail "the fixture's rewrap did nothing"

make_repo up kernel/mod.c "$HEAD_C$CHECK" kernel/mod.h '/* mod */
'
commit_file up kernel/mod.c "$(printf '%s' "$HEAD_C$CHECK" | sed "$FIX")
" "module: disable matching missing version CRCs"
make_repo gone kernel/mod.h '/* mod */
' kernel/mod/main.c "$HEAD_C$OTHER" kernel/mod/version.c "$HEAD_C$OTHER
$CHECK_NEW
"
# the removed lines twice in the function there
TWICE=$(printf '%s' "$CHECK_NEW" | sed '/^bad_version:/i\
	if (versions_stale(info)) {\
	/* Broken toolchain. Warn once, then let it go.. */\
	pr_warn_once("%s: no symbol version for %s\\n", info->name, symname);\
	return 1;\
	}\
')
make_repo twice kernel/mod.h '/* mod */
' kernel/mod/version.c "$HEAD_C$TWICE
"
# the removed lines edited there: not rule 4's
EDITED=$(printf '%s' "$CHECK_NEW" | sed 's/pr_warn_once(/pr_warn_ratelimited(/')
make_repo edited kernel/mod.h '/* mod */
' kernel/mod/version.c "$HEAD_C$EDITED
"
# back: the fix as written for kernel/mod/version.c, onto the tree
# before the move
make_repo up2 kernel/mod.h '/* mod */
' kernel/mod/version.c "$HEAD_C$CHECK_NEW
"
commit_file up2 kernel/mod/version.c "$(printf '%s\n' "$HEAD_C$CHECK_NEW" | sed "$FIX")
" "module: disable matching missing version CRCs, after the move"
make_repo old kernel/mod.h '/* mod */
' kernel/mod.c "$HEAD_C$CHECK"

adapt_ws fix gone:gone twice:twice edited:edited old:old
expect_exit 0 kcarry -C ws import back --git up2 base..HEAD

# the peer first: the original hunk does not apply to the file the code
# moved to, without fuzz
git -C up format-patch -q -1 --stdout >orig.patch
sed 's,kernel/mod\.c,kernel/mod/version.c,g' orig.patch >orig-there.patch
(cd gone && patch -p1 -F0 --dry-run <../orig-there.patch >/dev/null 2>&1) &&
	fail "the original hunk applies to kernel/mod/version.c without fuzz"

expect_exit 1 kcarry -C ws apply fix gone
stdout_has '^  0001 adapted           module: disable matching missing version CRCs$'
stdout_has 'kernel/mod\.c hunk 1: adapted .*moved from kernel/mod\.c to kernel/mod/version\.c: kernel/mod\.c does not exist in this tree, and kernel/mod/version\.c alone of the files under kernel defines check_version\(\); context taken from the target: the lines it removes stand once in check_version\(\), at line [0-9]+$'
git -C gone show kcarry/fix/v1/gone:kernel/mod/version.c >got.c
printf '%s\n' "$HEAD_C$OTHER
$CHECK_NEW" | sed "$FIX" | diff -u - got.c ||
	fail "gone: the fix is not made in kernel/mod/version.c"
git -C gone diff --quiet base kcarry/fix/v1/gone -- kernel/mod/main.c ||
	fail "gone: another file of the folder changed"
rp=ws/patches/fix/v1/gone/0001-module-disable-matching-missing-version-CRCs.patch
grep -q '^+++ b/kernel/mod/version.c$' "$rp" ||
	{ cat "$rp"; fail "gone: the refreshed patch does not name version.c"; }
grep -q '^\[ adapted: kernel/mod.c hunk 1: moved from kernel/mod.c to kernel/mod/version.c: .*; context taken from the target' "$rp" ||
	{ cat "$rp"; fail "gone: the refreshed patch lacks the note"; }
git -C gone apply --check "$TEST_TMP/$rp" ||
	{ cat "$rp"; fail "gone: the refreshed patch does not apply"; }

expect_exit 1 kcarry -C ws apply --json fix gone
python3 - "$OUT" >adapted.patch <<'PY' || fail "gone: JSON"
import json, sys
d = json.load(open(sys.argv[1]))
p = d["results"][0]["patches"][0]
assert p["outcome"] == "adapted", p["outcome"]
f, = p["files"]
assert f["path"] == "kernel/mod.c", f["path"]
h, = f["hunks"]
a = h["adaptation"]
assert a["rule"] == "moved-code", a["rule"]
assert a["adapted"].split("\n")[1] == "+++ b/kernel/mod/version.c", a
assert "context taken from the target" in a["note"], a["note"]
assert a["original"].startswith("@@ -"), a["original"]
sys.stdout.write(a["adapted"])
PY
# the peer again: the adapted hunk applies to that file with no fuzz
(cd gone && patch -p1 -F0 --dry-run <../adapted.patch >/dev/null) ||
	{ cat adapted.patch; fail "gone: GNU patch -F0 does not take the adapted hunk"; }
expect_exit 0 kcarry -C ws apply --accept-adapted fix gone

expect_exit 1 kcarry -C ws apply back old
stdout_has '^  0001 adapted           module: disable matching missing version CRCs, after the move$'
stdout_has 'kernel/mod/version\.c hunk 1: adapted .*moved from kernel/mod/version\.c to kernel/mod\.c: .* alone of the files under kernel defines check_version\(\); context taken from the target'
git -C old show kcarry/back/v1/old:kernel/mod.c >got.c
printf '%s\n' "$HEAD_C$CHECK" | sed '$d' | sed "$FIX" | diff -u - got.c ||
	fail "back: the fix is not made in kernel/mod.c"

for t in twice edited; do
	expect_exit 1 kcarry -C ws apply fix $t
	stdout_has '^  0001 conflict          module: disable matching missing version CRCs$'
	stdout_has 'not moved: drifted lines in kernel/mod/version\.c, the one file defining check_version\(\)'
	not_adapted $t kcarry/fix/v1/$t
	expect_exit 1 kcarry -C ws apply --accept-adapted fix $t
done
exit 0
