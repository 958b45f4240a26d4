#!/bin/sh
# The build's source folder is the only place a sync writes (issue 16,
# item 2): (a) a symlink one series adds (fs/foo/evil -> a folder
# elsewhere) is replaced, never followed, when the next series puts
# fs/foo/evil/note.h there; (b) a target commit whose tree holds a '..'
# entry (or .git, which git refuses as well) is refused with the path
# named, and nothing is written outside the cache's source folder.
here=$(pwd)
. ./lib.sh
need gcc
need make
. "$here/build-lib.sh"
build_fixture

# (a) a symlink out, then a file under it
mkdir elsewhere
git clone -q tgt2 upa || fail clone
mkdir -p upa/fs/foo
ln -s "$TEST_TMP/elsewhere" upa/fs/foo/evil
sed -i 's/return n > 1/return n > 2/' upa/fs/btrfs/ctree.c
git -C upa add -A && git -C upa commit -qm "foo: a link" || fail c1
expect_exit 0 kcarry -C ws import link --git upa base..HEAD
git clone -q tgt2 upb || fail clone2
mkdir -p upb/fs/foo/evil
echo '/* note */' >upb/fs/foo/evil/note.h
sed -i 's/return n > 1/return n > 3/' upb/fs/btrfs/ctree.c
git -C upb add -A && git -C upb commit -qm "foo: a note" || fail c2
expect_exit 0 kcarry -C ws import note --git upb base..HEAD
expect_exit 0 kcarry -C ws build link tgt2
expect_exit 0 kcarry -C ws build note tgt2
[ -z "$(ls elsewhere)" ] || fail "the sync wrote through a symlink: $(ls elsewhere)"
src=$KCARRY_CACHE/build/tgt2/src
[ -d "$src/fs/foo/evil" ] && [ ! -L "$src/fs/foo/evil" ] || fail "fs/foo/evil is not a folder"
[ -f "$src/fs/foo/evil/note.h" ] || fail "note.h not written"
# and back: the file goes, the link comes again, nothing is removed
# through it
echo keep >elsewhere/note.h
expect_exit 0 kcarry -C ws build link tgt2
[ -L "$src/fs/foo/evil" ] || fail "the link did not come back"
expect_exit 0 kcarry -C ws build note tgt2
[ "$(cat elsewhere/note.h)" = keep ] || fail "the sync wrote or removed through a symlink"

# (b) trees git refuses: '..' (two deep: out of build/TARGET/) and .git
mk_bad() { # NAME ENTRY
	git clone -q tgt2 "$1" || fail "clone $1"
	blob=$(echo pwned | git -C "$1" hash-object -w --stdin)
	inner=$(printf '100644 blob %s\tpwned\n' "$blob" | git -C "$1" mktree)
	if [ "$2" = .. ]; then
		inner=$(printf '040000 tree %s\t..\n' "$inner" | git -C "$1" mktree)
	fi
	top=$( (git -C "$1" ls-tree HEAD; printf '040000 tree %s\t%s\n' "$inner" "$2") | git -C "$1" mktree) ||
		fail "mktree $1"
	c=$(git -C "$1" commit-tree -p HEAD -m "bad tree" "$top") || fail "commit-tree $1"
	git -C "$1" tag -f base "$c" >/dev/null
	printf '[kernel]\n\turl = %s/%s\n\tref = base\n' "$TEST_TMP" "$1" >ws/kernels/"$1".conf
}
git clone -q tgt2 upc || fail clone3
sed -i 's/return n > 1/return n > 4/' upc/fs/btrfs/ctree.c
git -C upc commit -qam "btrfs: deeper" || fail c3
expect_exit 0 kcarry -C ws import deeper --git upc base..HEAD
for bad in dotdot:.. dotgit:.git; do
	name=${bad%%:*} entry=${bad#*:}
	mk_bad "$name" "$entry"
	"$KCARRY" -C ws build deeper "$name" >"$OUT" 2>"$ERR"
	rc=$?
	[ "$rc" -ne 0 ] || { cat "$OUT" "$ERR"; fail "$name: a tree with '$entry' built"; }
	grep -q "'$entry/" "$OUT" "$ERR" || { cat "$OUT" "$ERR"; fail "$name: the path is not named"; }
	found=$(find "$KCARRY_CACHE" "$TEST_TMP" -name pwned 2>/dev/null | grep -v '/objects/' || true)
	[ -z "$found" ] || fail "$name: written outside the source folder: $found"
done
exit 0
