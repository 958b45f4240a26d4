#!/bin/sh
# Adaptation, rule 1 (moved code) across folders: Linux 6.5 moved
# arch/arm/boot/dts/*.dts* into vendor subfolders (marvell/, ...), so a
# patch to arch/arm/boot/dts/kirkwood-ts419.dtsi meets no such file in a
# newer tree, and a patch to the new path none in an older one.  The file
# of the same name under the folder above takes it when every hunk stands
# there exactly:
#  - fwd: written for the old path, carried to a tree with the file in
#    marvell/: adapted, written there, the refreshed patch changes it;
#  - bwd: written for marvell/, carried to a tree with the file one folder
#    up: adapted the same way;
#  - twice (adversarial): the file of that name stands in two subfolders,
#    both holding the lines: which one is meant is not known: a conflict;
#  - drifted (adversarial): the one file of that name does not hold the
#    hunk's lines exactly: a conflict, no fuzzy guess.
here=$(pwd)
. ./lib.sh
. "$here/adapt-lib.sh"

DTSI='/ {
	model = "QNAP TS419";

	pinctrl: pin-controller@10000 {
		pinctrl-0 = <&pmx_ram_size &pmx_board_id>;
		pinctrl-names = "default";

		pmx_ram_size: pmx-ram-size {
			marvell,pins = "mpp36";
			marvell,function = "gpio";
		};
	};
};
'
NEW=$(printf '%s' "$DTSI" | sed 's/"mpp36"/"mpp36", "mpp37"/')
NEW="$NEW
"
OTHER='/ { model = "other"; };
'
make_repo up arch/arm/boot/dts/kirkwood-ts419.dtsi "$DTSI" \
	arch/arm/boot/dts/marvell/kirkwood-ts419.dtsi "$DTSI"
commit_file up arch/arm/boot/dts/kirkwood-ts419.dtsi "$NEW" "ts419: old path"
commit_file up arch/arm/boot/dts/marvell/kirkwood-ts419.dtsi "$NEW" "ts419: new path"
make_repo fwd arch/arm/boot/dts/marvell/kirkwood-ts419.dtsi "$DTSI" \
	arch/arm/boot/dts/marvell/kirkwood-other.dtsi "$OTHER"
make_repo bwd arch/arm/boot/dts/kirkwood-ts419.dtsi "$DTSI" \
	arch/arm/boot/dts/kirkwood-other.dtsi "$OTHER"
make_repo twice arch/arm/boot/dts/marvell/kirkwood-ts419.dtsi "$DTSI" \
	arch/arm/boot/dts/qnap/kirkwood-ts419.dtsi "$DTSI"
make_repo drifted arch/arm/boot/dts/marvell/kirkwood-ts419.dtsi \
	"$(printf '%s' "$DTSI" | sed 's/"gpio"/"gpo"/')
"
adapt_ws dts fwd:fwd bwd:bwd twice:twice drifted:drifted

expect_exit 1 kcarry -C ws apply dts fwd
stdout_has '^  0001 adapted           ts419: old path$'
stdout_has 'moved from arch/arm/boot/dts/kirkwood-ts419.dtsi to arch/arm/boot/dts/marvell/kirkwood-ts419.dtsi: .* alone of the files of its name nearby'
# the second patch then finds its change there already
stdout_has '^  0002 already applied   ts419: new path$'
expect_exit 0 kcarry -C ws apply --accept-adapted dts fwd
git -C fwd show kcarry/dts/v1/fwd:arch/arm/boot/dts/marvell/kirkwood-ts419.dtsi >got
printf '%s' "$NEW" | diff -u - got || fail "fwd: not moved into marvell/"
git -C fwd show kcarry/dts/v1/fwd:arch/arm/boot/dts/kirkwood-ts419.dtsi >/dev/null 2>&1 &&
	fail "fwd: the old path created"
rp=ws/patches/dts/v1/fwd/0001-ts419-old-path.patch
grep -q '^+++ b/arch/arm/boot/dts/marvell/kirkwood-ts419.dtsi$' "$rp" ||
	{ cat "$rp"; fail "the refreshed patch does not change marvell/"; }

# the patch to marvell/ alone (the first would leave its change there)
expect_exit 0 kcarry -C ws import newpath --git up HEAD~1..HEAD
expect_exit 1 kcarry -C ws apply newpath bwd
stdout_has '^  0001 adapted           ts419: new path$'
stdout_has 'moved from arch/arm/boot/dts/marvell/kirkwood-ts419.dtsi to arch/arm/boot/dts/kirkwood-ts419.dtsi'

expect_exit 1 kcarry -C ws apply dts twice
stdout_has '^  0001 conflict          ts419: old path$'
stdout_has '^  0002 clean             ts419: new path$'
expect_exit 1 kcarry -C ws apply dts drifted
stdout_has '^  0001 conflict          ts419: old path$'
grep -q 'adapted' "$OUT" && { cat "$OUT"; fail "drifted: adapted"; }
exit 0
