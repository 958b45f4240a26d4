#!/bin/sh
# An export is all or nothing: on a full disk (a small tmpfs in a private
# mount namespace; skipped where none can be made) an mbox export fails
# with exit 3 and leaves no message at all (git send-email out/*.patch
# would send half a series), a Debian export leaves neither patch files
# nor a changed series, an RPM export no orphan patch files; nothing
# temporary is left.  Temporaries of an export killed with -9 are removed
# by the next export into the same folder.
if [ -z "${KCARRY_IN_NS:-}" ] && command -v unshare >/dev/null &&
	unshare -rm true 2>/dev/null; then
	KCARRY_IN_NS=1 exec unshare -rm sh "$0" "$@"
fi
. ./export-lib.sh
. ./lib.sh
[ -n "${KCARRY_IN_NS:-}" ] || skip "no private mount namespace here"

export_setup
expect_exit 0 kcarry -C ws apply wq 6.1

mkdir -p small
mount -t tmpfs -o size=64k tmpfs small 2>/dev/null || skip "cannot mount a tmpfs here"
trap 'umount small 2>/dev/null; rm -rf "$TEST_TMP"' EXIT
mkdir -p small/deb/debian/patches small/deb/debian/source small/rpm
echo '3.0 (quilt)' >small/deb/debian/source/format
printf 'debian/own.patch\n' >small/deb/debian/patches/series
cp small/deb/debian/patches/series series.before

# room for two pages (a message each), the rest taken
dd if=/dev/zero of=small/room bs=4k count=2 2>/dev/null
dd if=/dev/zero of=small/fill bs=4k 2>/dev/null
rm small/room

# listing: what is in DIR, hidden files too
listing() {
	(cd "$1" && find . -mindepth 1 | sort)
}

expect_exit 3 kcarry -C ws export wq 6.1 --format mbox -o small/out
stderr_has "No space left on device"
[ -z "$(listing small/out 2>/dev/null)" ] ||
	{ listing small/out; fail "mbox: files left"; }

expect_exit 3 kcarry -C ws export wq 6.1 --format debian --into small/deb
stderr_has "No space left on device"
[ "$(listing small/deb)" = "./debian
./debian/patches
./debian/patches/series
./debian/source
./debian/source/format" ] || { listing small/deb; fail "debian: files left"; }
cmp -s series.before small/deb/debian/patches/series || fail "debian: series changed"

expect_exit 3 kcarry -C ws export wq 6.1 --format rpm -o small/rpm
stderr_has "No space left on device"
[ -z "$(listing small/rpm)" ] || { listing small/rpm; fail "rpm: files left"; }

# with room, the same exports are whole
rm small/fill
expect_exit 0 kcarry -C ws export wq 6.1 --format mbox -o small/out
[ "$(listing small/out | wc -l)" = 3 ] || { listing small/out; fail "mbox"; }

# a killed export's temporaries (a process that is gone) are removed by
# the next export there; a live process's are left alone
sh -c 'exit 0' &
dead=$!
wait $dead
: >small/out/.kcarry-export.$dead.0001-btrfs-exact-fix.patch
: >small/out/.kcarry-export.$dead.0001-btrfs-exact-fix.patch.tmp.$dead
: >small/out/0002-btrfs-offset-fix.patch.tmp.$dead
: >small/out/.kcarry-export.$$.0001-btrfs-exact-fix.patch
expect_exit 0 kcarry -C ws export wq 6.1 --format mbox -o small/out
[ "$(listing small/out)" = "./.kcarry-export.$$.0001-btrfs-exact-fix.patch
./0000-cover-letter.patch
./0001-btrfs-exact-fix.patch
./0002-btrfs-offset-fix.patch" ] || { listing small/out; fail "stale temporaries"; }

# kill -9 at random points of exports; the next export leaves the whole
# series and no temporary (KCARRY_FAULT_KILLS rounds, default 10)
rm -f small/out/.kcarry-export.*
kills=${KCARRY_FAULT_KILLS:-10}
r=1
while [ $r -le "$kills" ]; do
	kcarry -C ws export wq 6.1 --format mbox -o small/out >/dev/null 2>&1 &
	pid=$!
	sleep "0.0$(awk -v s="$r" 'BEGIN { srand(s); printf "%02d", int(rand() * 60) }')"
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	expect_exit 0 kcarry -C ws export wq 6.1 --format mbox -o small/out
	[ "$(listing small/out)" = "./0000-cover-letter.patch
./0001-btrfs-exact-fix.patch
./0002-btrfs-offset-fix.patch" ] || { listing small/out; fail "round $r: after a kill"; }
	r=$((r + 1))
done
umount small
exit 0
