#!/bin/sh
# Adaptation, rule 1 (moved code) farther than the folder above: Linux 6.1
# moved drivers/media/platform/s5p-mfc/ into a vendor folder,
# drivers/media/platform/samsung/s5p-mfc/, so a 6.1 fix carried back to
# 5.10 names a file whose folder and the folder above it are both
# missing.  Under the nearest folder above that the tree has, the files
# whose path ends with the file's folder and name are tried; the one that
# takes every hunk exactly gets the file patch:
#  - back: the fix to platform/vendor/mfc/mfc_ctrl.c onto the tree where
#    it is platform/mfc/mfc_ctrl.c: adapted, the note names the files it
#    was alone of, the result is the fix made there, and the refreshed
#    patch names that file and applies to the target (git apply --check);
#    the same hunk applies there with GNU patch -F0 (the peer);
#  - twice: that file stands twice (platform/mfc/ and platform/old/mfc/),
#    both taking the patch: which one is meant is not known, a conflict;
#  - otherdir: the only file of that name is in another folder
#    (platform/other/mfc_ctrl.c), though the hunk's lines stand there
#    exactly: it is not looked at, a conflict.
here=$(pwd)
. ./lib.sh
. "$here/adapt-lib.sh"
need patch

CTRL='#include "mfc.h"

int mfc_load_firmware(struct mfc_dev *dev)
{
	int err;

	err = request_firmware(&dev->fw, MFC_FW_NAME, dev->dev);
	if (err != 0) {
		mfc_err("Firmware is not present\n");
		return -EINVAL;
	}
	if (dev->fw->size > dev->fw_size) {
		mfc_err("MFC firmware is too big to be loaded\n");
		return -ENOMEM;
	}
	return 0;
}
'
# the fix: the firmware loader reports a missing file itself
FIX='/Firmware is not present/d
s/	if (err != 0) {/	if (err != 0)/
/return -EINVAL;/{n;/^	}$/d;}'
FIXED=$(printf '%s' "$CTRL" | sed "$FIX")
[ "$FIXED" != "$(printf '%s' "$CTRL")" ] || fail "the fixture's fix did nothing"
OLD=drivers/media/platform/mfc/mfc_ctrl.c
NEW=drivers/media/platform/vendor/mfc/mfc_ctrl.c

make_repo up $NEW "$CTRL" drivers/media/platform/vendor/mfc/mfc.h '/* mfc */
'
commit_file up $NEW "$FIXED
" "media: mfc: drop the redundant firmware message"
make_repo back $OLD "$CTRL" drivers/media/platform/mfc/mfc.h '/* mfc */
' drivers/media/platform/mfc/mfc_enc.c '/* enc */
'
make_repo twice $OLD "$CTRL" drivers/media/platform/old/mfc/mfc_ctrl.c "$CTRL"
make_repo otherdir drivers/media/platform/other/mfc_ctrl.c "$CTRL"
adapt_ws fix back:back twice:twice otherdir:otherdir

# the peer: the fix's hunk applies to the file as it stands in the
# older tree, without fuzz, once the path is the older one
git -C up format-patch -q -1 --stdout >orig.patch
sed "s,$NEW,$OLD,g" orig.patch >there.patch
(cd back && patch -p1 -F0 --dry-run <../there.patch >/dev/null) ||
	fail "the fix does not apply exactly to $OLD"

expect_exit 1 kcarry -C ws apply fix back
stdout_has '^  0001 adapted           media: mfc: drop the redundant firmware message$'
stdout_has "$NEW hunk 1: adapted .*moved from $NEW to $OLD: $NEW does not exist in this tree, and its lines stand exactly in $OLD alone of the files mfc/mfc_ctrl.c under drivers/media/platform$"
git -C back show kcarry/fix/v1/back:$OLD >got.c
printf '%s\n' "$FIXED" | diff -u - got.c || fail "back: the fix is not made in $OLD"
rp=ws/patches/fix/v1/back/0001-media-mfc-drop-the-redundant-firmware-message.patch
grep -q "^+++ b/$OLD\$" "$rp" ||
	{ cat "$rp"; fail "back: the refreshed patch does not name $OLD"; }
git -C back apply --check "$TEST_TMP/$rp" ||
	{ cat "$rp"; fail "back: the refreshed patch does not apply"; }
expect_exit 0 kcarry -C ws apply --accept-adapted fix back

expect_exit 1 kcarry -C ws apply fix twice
stdout_has '^  0001 conflict          media: mfc: drop the redundant firmware message$'
stdout_has "not moved: every hunk stands exactly in both drivers/media/platform/mfc/mfc_ctrl.c and drivers/media/platform/old/mfc/mfc_ctrl.c"
not_adapted twice kcarry/fix/v1/twice

expect_exit 1 kcarry -C ws apply fix otherdir
stdout_has '^  0001 conflict          media: mfc: drop the redundant firmware message$'
not_adapted otherdir kcarry/fix/v1/otherdir
exit 0
