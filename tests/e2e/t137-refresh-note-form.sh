#!/bin/sh
# The note an adapted hunk leaves in its patch's description (issue 18),
# in the form the maintainers of the target write: kcarry.conf
# refresh.note = stable (the default) or rhel.  The drifted-context fix
# of t070 in two files, its upstream commit with a body and a
# Signed-off-by.
#  - stable: one "[ adapted: PATH hunk N: NOTE ]" line per hunk after the
#    patch's own trailers (where the backporter's sign-off follows, as
#    stable's "[ ... ]" notes stand), in the branch's commit and the
#    refreshed patch; a description without trailers gets the lines as
#    a paragraph of their own;
#  - rhel: one "Conflicts:" paragraph after the description, a line per
#    hunk ("PATH: hunk N: NOTE"), the later ones indented;
#  - KCARRY_REFRESH_NOTE wins over the file; a value that is neither is
#    an error naming the key (exit 2), nothing carried.
here=$(pwd)
. ./lib.sh
. "$here/adapt-lib.sh"

note_fixture
adapt_ws demo

note1='drivers/demo/core.c hunk 1: context taken from the target: the lines it removes stand once in foo(), at line 16'
note2='drivers/demo/other.c hunk 1: context taken from the target: the lines it removes stand once in foo(), at line 16'
rp=ws/patches/demo/v1/old/0001-demo-pass-FLAG_X-to-step-two.patch

# the description of the refreshed patch: from the blank line after
# Subject: up to ---
description() {
	sed -n '/^Subject:/,/^---$/p' "$1" | sed '1d;$d'
}

# stable, the default
expect_exit 0 kcarry -C ws apply --accept-adapted demo old
cat >want <<EOT
demo: pass FLAG_X to step two

Step two must know the caller holds the lock.

Signed-off-by: A U Thor <author@example.org>
[ adapted: $note1 ]
[ adapted: $note2 ]

EOT
git -C tgt log -1 --format=%B kcarry/demo/v1/old >got
diff -u want got || fail "stable: the branch's commit"
sed '1d;$d' want >want.d
description "$rp" >got.d
diff -u want.d got.d || fail "stable: the refreshed patch"

# rhel
printf '[refresh]\n\tnote = rhel\n' >ws/kcarry.conf
expect_exit 0 kcarry -C ws apply --accept-adapted demo old
cat >want <<EOT
demo: pass FLAG_X to step two

Step two must know the caller holds the lock.

Signed-off-by: A U Thor <author@example.org>

Conflicts: ${note1% hunk 1:*}: hunk 1:${note1#*hunk 1:}
  ${note2% hunk 1:*}: hunk 1:${note2#*hunk 1:}

EOT
git -C tgt log -1 --format=%B kcarry/demo/v1/old >got
diff -u want got || fail "rhel: the branch's commit"
sed '1d;$d' want >want.d
description "$rp" >got.d
diff -u want.d got.d || fail "rhel: the refreshed patch"
grep -q '^\[ adapted' "$rp" && fail "rhel: a stable note as well"

# the environment wins over the file
KCARRY_REFRESH_NOTE=stable expect_exit 0 kcarry -C ws apply --accept-adapted demo old
grep -qx "\[ adapted: $note1 \]" "$rp" || fail "KCARRY_REFRESH_NOTE=stable"

# neither form: an error naming the key, the branch left as it was
head=$(git -C tgt rev-parse kcarry/demo/v1/old)
printf '[refresh]\n\tnote = suse\n' >ws/kcarry.conf
expect_exit 2 kcarry -C ws apply --accept-adapted demo old
expect_stderr <<'EOT'
error: refresh.note: 'suse' is not stable or rhel
hint: see kcarry(1), WORKSPACE
EOT
[ "$(git -C tgt rev-parse kcarry/demo/v1/old)" = "$head" ] ||
	fail "a bad refresh.note moved the branch"

# stable, a description without trailers: the notes are a paragraph
rm ws/kcarry.conf
git -C up commit -q --amend -m "demo: pass FLAG_X to step two

Step two must know the caller holds the lock." || fail amend
rm -r ws/patches/demo
expect_exit 0 kcarry -C ws import demo --git up base..HEAD
expect_exit 0 kcarry -C ws apply --accept-adapted demo old
cat >want <<EOT
demo: pass FLAG_X to step two

Step two must know the caller holds the lock.

[ adapted: $note1 ]
[ adapted: $note2 ]

EOT
git -C tgt log -1 --format=%B kcarry/demo/v1/old >got
diff -u want got || fail "stable, no trailers: the branch's commit"
exit 0
