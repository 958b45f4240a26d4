#!/bin/sh
# Exports keep the adapted note in the form refresh.note asks for
# (issue 18), in its place beside the backporter's own lines.  The
# fixture of t137 (two adapted hunks, a description with a sign-off).
#  - rhel: every format (quilt, debian, rpm, suse, mbox, git) carries the
#    "Conflicts:" paragraph after the description, a paragraph of its
#    own before the backporter's sign-off, and no "[ adapted" line (the
#    backporter's own lines: t154);
#  - stable: the "[ adapted: ... ]" lines stand after the patch's
#    trailers, just before the backporter's note and Signed-off-by, in
#    one block; without trailers they open that block.
here=$(pwd)
. ./lib.sh
. "$here/adapt-lib.sh"

note_fixture
up=$(git -C up rev-parse HEAD)
adapt_ws demo

n1='drivers/demo/core.c: hunk 1: context taken from the target: the lines it removes stand once in foo(), at line 16'
n2='drivers/demo/other.c: hunk 1: context taken from the target: the lines it removes stand once in foo(), at line 16'
who='B P <bp@example.org>'

# the description of an exported patch: after the headers, up to ---
description() {
	awk 'on && /^---$/ { exit } on { print } /^$/ { on = 1 }' "$1"
}

export_all() {
	for f in quilt debian rpm mbox; do
		rm -rf "$f"
		expect_exit 0 kcarry -C ws export demo old --format $f -o $f \
			--accept-adapted --signoff="$who"
	done
	rm -rf suse
	expect_exit 0 kcarry -C ws export demo old --format suse -o suse \
		--accept-adapted --mainline v6.12 --signoff="$who"
	expect_exit 0 kcarry -C ws export demo old --format git \
		--accept-adapted --signoff="$who"
}

# rhel
printf '[refresh]\n\tnote = rhel\n' >ws/kcarry.conf
export_all
cat >want <<EOT
commit $up upstream.

Step two must know the caller holds the lock.

Signed-off-by: A U Thor <author@example.org>

Conflicts: $n1
  $n2

Signed-off-by: $who
EOT
description mbox/0001-demo-pass-FLAG_X-to-step-two.patch >got
diff -u want got || fail "rhel: mbox"
sed "1,2d; /^Signed-off-by: B P/i (cherry picked from commit $up)" want >want.git
git -C tgt log -1 --format=%b kcarry-export/demo/v1/old | sed '$d' >got
diff -u want.git got || fail "rhel: git"
for p in quilt/0001-demo-pass-FLAG_X-to-step-two.patch \
	rpm/demo-0001-demo-pass-FLAG_X-to-step-two.patch \
	suse/patches.suse/demo-pass-flag-x-to-step-two.patch \
	debian/debian/patches/kcarry/demo/demo-pass-flag-x-to-step-two.patch; do
	[ -f "$p" ] || { find . -name '*.patch'; fail "no $p"; }
	# DEP-3: the description's lines after one space
	case $p in debian/*) strip='s/^ //' ;; *) strip= ;; esac
	sed "$strip" "$p" | grep -A1 -x "Conflicts: $n1" | grep -qx "  $n2" ||
		{ cat "$p"; fail "rhel: $p lost the Conflicts paragraph"; }
	grep -q '\[ adapted' "$p" && fail "rhel: $p has a stable note"
done
# a paragraph of its own: a blank line (DEP-3: " .") on each side
awk '/^ Conflicts: / { print prev; print; getline; getline; print } { prev = $0 }' debian/debian/patches/kcarry/demo/demo-pass-flag-x-to-step-two.patch >got
printf ' .\n Conflicts: %s\n .\n' "$n1" >want
diff -u want got || fail "rhel: debian paragraph"

# stable, the default
rm ws/kcarry.conf
export_all
cat >want <<EOT
commit $up upstream.

Step two must know the caller holds the lock.

Signed-off-by: A U Thor <author@example.org>
[ adapted: ${n1%%: *} ${n1#*: } ]
[ adapted: ${n2%%: *} ${n2#*: } ]
[ B P: backported to old: drivers/demo/core.c: hunk 1 adapted;
  drivers/demo/other.c: hunk 1 adapted ]
Signed-off-by: $who
EOT
description mbox/0001-demo-pass-FLAG_X-to-step-two.patch >got
diff -u want got || fail "stable: mbox"
grep -q '^Conflicts:' mbox/0001-demo-pass-FLAG_X-to-step-two.patch && fail "stable: a Conflicts line"

# stable, a description without trailers: the notes open the block the
# backporter's note and sign-off close
git -C up commit -q --amend -m "demo: pass FLAG_X to step two

Step two must know the caller holds the lock." || fail amend
up=$(git -C up rev-parse HEAD)
rm -r ws/patches/demo
expect_exit 0 kcarry -C ws import demo --git up base..HEAD
expect_exit 0 kcarry -C ws apply --accept-adapted demo old
export_all
cat >want <<EOT
commit $up upstream.

Step two must know the caller holds the lock.

[ adapted: ${n1%%: *} ${n1#*: } ]
[ adapted: ${n2%%: *} ${n2#*: } ]
[ B P: backported to old: drivers/demo/core.c: hunk 1 adapted;
  drivers/demo/other.c: hunk 1 adapted ]
Signed-off-by: $who
EOT
description mbox/0001-demo-pass-FLAG_X-to-step-two.patch >got
diff -u want got || fail "stable, no trailers: mbox"
exit 0
