#!/bin/sh
# One odd patch is a verdict for that patch, never the end of the series:
# an identity git refuses, two sections for one file, a rename of a file
# that is not there, a new file under a file or a symlink.  Paths that
# patch(1) reads loosely (./x, x//y) are normalised at import; paths git's
# verify_path refuses (.git in any HFS or NTFS spelling, a .gitmodules
# symlink, a final '/', a NUL) are refused at import with file:line and
# exit 2.
. ./lib.sh

make_repo t a.c "one
two
three
" b.c "alpha
beta
gamma
delta
" f "x
"
ln -s a.c t/link && git -C t add link && git -C t commit -qm link && git -C t tag -f base >/dev/null
mkdir q
cat >q/01-identity.patch <<'EOT'
From: "Eve <Ops>" <eve@example.com>
Subject: identity with angle brackets

---
--- a/a.c
+++ b/a.c
@@ -1,3 +1,4 @@
 one
+1.5
 two
 three
EOT
cat >q/02-two-sections.patch <<'EOT'
From: A <a@example.com>
Subject: two sections for one file

---
--- a/b.c
+++ b/b.c
@@ -1,2 +1,3 @@
 alpha
+alpha.5
 beta
--- a/b.c
+++ b/b.c
@@ -3,2 +3,3 @@
 beta
+beta.5
 gamma
EOT
cat >q/03-rename-missing.patch <<'EOT'
From: A <a@example.com>
Subject: rename of a file the tree lacks

---
diff --git a/nosuch.c b/renamed.c
similarity index 100%
rename from nosuch.c
rename to renamed.c
EOT
cat >q/04-under-file.patch <<'EOT'
From: A <a@example.com>
Subject: new file under a file

---
--- /dev/null
+++ b/f/sub.c
@@ -0,0 +1 @@
+int sub_new;
EOT
cat >q/05-under-link.patch <<'EOT'
From: A <a@example.com>
Subject: new file under a symlink

---
--- /dev/null
+++ b/link/sub.c
@@ -0,0 +1 @@
+int sub_new;
EOT
cat >q/06-loose-paths.patch <<'EOT'
From: A <a@example.com>
Subject: loose paths

---
--- ./f
+++ ./f
@@ -1 +1,2 @@
 x
+y
--- a//a.c
+++ b//a.c
@@ -4,1 +4,2 @@
 three
+four
EOT
printf '%s\n' 01-identity.patch 02-two-sections.patch 03-rename-missing.patch \
	04-under-file.patch 05-under-link.patch "06-loose-paths.patch -p0" >q/series
# -p0 for 06 keeps "./f" and "a//a.c": a//a.c is stripped by hand below
sed -i 's|^06-loose-paths.patch -p0$|06-loose-paths.patch|' q/series
sed -i 's|^--- \./f$|--- a/./f|; s|^+++ \./f$|+++ b/./f|' q/06-loose-paths.patch

kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/t\n\tref = base\n' "$TEST_TMP" >ws/kernels/t.conf
expect_exit 0 kcarry -C ws import s q
expect_exit 1 kcarry -C ws apply s t
expect_stdout <<'EOT'
s@v1 on t (kcarry/s/v1/t)
  0001 clean             identity with angle brackets
  0002 clean             two sections for one file
  0003 conflict          rename of a file the tree lacks
         renamed.c: cannot rename 'nosuch.c': it is not in the tree
  0004 conflict          new file under a file
         f/sub.c: cannot create 'f/sub.c': 'f' is a file in the tree
  0005 conflict          new file under a symlink
         link/sub.c: cannot create 'link/sub.c': 'link' is a file in the tree
  0006 clean             loose paths
  summary: 3 clean, 3 conflict
EOT
git -C t fsck --strict >/dev/null 2>&1 || fail "git fsck --strict"
[ "$(git -C t log -1 --skip=2 --format='%an <%ae>' kcarry/s/v1/t)" = "Eve Ops <eve@example.com>" ] ||
	fail "identity: $(git -C t log -1 --skip=2 --format='%an <%ae>' kcarry/s/v1/t)"
# the two sections land one after the other, as GNU patch applies them
mkdir pp && cp t/b.c pp/ && (cd pp && patch -s -p1 <../q/02-two-sections.patch) ||
	fail "GNU patch"
[ "$(git -C t show kcarry/s/v1/t:b.c)" = "$(cat pp/b.c)" ] || fail "two sections differ from GNU patch"
[ "$(git -C t show kcarry/s/v1/t:f)" = "$(printf 'x\ny')" ] || fail "./f not applied to f"
git -C t show kcarry/s/v1/t:a.c | grep -qx four || fail "a//a.c not applied to a.c"
git -C t ls-tree -r --name-only kcarry/s/v1/t | grep -q '//\|^\./' && fail "a loose path in the tree"

# refused at import: what git's verify_path refuses
refuse() {
	rm -rf r && mkdir r
	printf -- '--- /dev/null\n+++ %s\n@@ -0,0 +1 @@\n+x\n' "$1" >r/bad.patch
	echo bad.patch >r/series
	expect_exit 2 kcarry -C ws import bad r
	stderr_has "^error: .*bad.patch:2: path '.*' $2$"
	[ ! -d ws/patches/bad ] || fail "a refused patch was stored"
}
refuse 'b/.git /x' 'is inside .git'
refuse 'b/.git./x' 'is inside .git'
refuse 'b/sub/GIT~1/x' 'is inside .git'
refuse 'b/.GIT/config' 'is inside .git'
refuse "b/.g$(printf '\342\200\214')it/x" 'is inside .git'
refuse "b/$(printf '\357\273\277').git/x" 'is inside .git'
refuse 'b/a\.git\x' 'is inside .git'
refuse 'b/dir/' "ends with '/'"
refuse 'b/a/../../x' 'escapes the tree'
rm -rf r && mkdir r
printf -- '--- /dev/null\n+++ "b/x\\000y"\n@@ -0,0 +1 @@\n+x\n' >r/bad.patch
echo bad.patch >r/series
expect_exit 2 kcarry -C ws import bad r
stderr_has "^error: .*bad.patch:2: badly quoted file name$"
# what git accepts is accepted: .gitignore, a.git, git~2
for ok in 'b/.gitignore' 'b/a.git/x' 'b/git~2/x' 'b/.github/x'; do
	rm -rf r && mkdir r
	printf -- '--- /dev/null\n+++ %s\n@@ -0,0 +1 @@\n+x\n' "$ok" >r/ok.patch
	echo ok.patch >r/series
	expect_exit 0 kcarry -C ws import --dry-run ok r
done

# git's NTFS rules (core.protectNTFS is on by default, on Linux too): a
# '\' separates names as '/' does, .git may be followed by dots and
# spaces then a stream (':'), git~1 is its short name; a symlink is not
# .gitmodules in any HFS or NTFS spelling or short name.  git apply with
# core.protectHFS (kcarry keeps the HFS rules git fsck keeps) is the
# peer: it refuses the same paths.  A symlink named .gitattributes,
# .gitignore or .mailmap (or a short name of one), which git fsck flags,
# is refused too.
# new_file MODE PATH: r/p.patch adds PATH (its name "..."-quoted, so that
# '\' and a final space are the name's)
new_file() {
	rm -rf r && mkdir r
	q=$(printf '%s' "$2" | sed 's/\\/\\\\/g')
	a="\"a/$q\"" b="\"b/$q\""
	{
		printf 'diff --git %s %s\nnew file mode %s\n' "$a" "$b" "$1"
		printf -- '--- /dev/null\n+++ %s\n@@ -0,0 +1 @@\n' "$b"
		# a symlink to a.c; a file that git fsck may read as a
		# .gitmodules (x\.gitmodules, gitmod~1): a comment
		if [ "$1" = 120000 ]; then
			printf '+a.c\n\\ No newline at end of file\n'
		else
			printf '+# x\n'
		fi
	} >r/p.patch
	echo p.patch >r/series
}
# refuse_new MODE PATH WHY [fsck]: refused at import (and by git apply,
# unless the last argument says only git fsck flags it)
refuse_new() {
	new_file "$1" "$2"
	expect_exit 2 kcarry -C ws import bad r
	stderr_has "^error: .*p.patch:[0-9]+: path '.*' $3$"
	[ ! -d ws/patches/bad ] || fail "a refused patch was stored"
	[ $# -gt 3 ] ||
		! git -c core.protectHFS=true -C t apply --check ../r/p.patch \
			2>/dev/null ||
		fail "git apply takes $2, kcarry refused it"
}
for p in 'a\.git\x' 'a\.git' 'x\.GIT:' '.git::$INDEX_ALLOCATION' '.git:x' \
	'.git . :y' 'gIt~1/x' 'x\git~1. ' 'x/git~1 /y'; do
	refuse_new 100644 "$p" 'is inside .git'
done
for p in '.gitmodules' '.GITMODULES. ' '.gitmodules:$DATA' 'gitmod~1' \
	'GITMOD~4' 'gi7eba~1' 'gi7e~123' 'x\.gitmodules' 'x\gitmod~1' \
	"$(printf '.g\342\200\214itmodules')"; do
	refuse_new 120000 "$p" 'is a .gitmodules symlink'
done
for p in '.gitattributes gitatt~1 gi7d29~3' '.gitignore gitign~2 gi250a~1' \
	'.mailmap mailma~1 maba30~1'; do
	for n in $p; do
		refuse_new 120000 "$n" "is a ${p%% *} symlink" fsck
	done
done
# their neighbours are taken as git takes them, and carried into a tree
# git fsck --strict finds nothing in
n=0
rm -rf ok && mkdir ok
for c in '100644 a\b' '120000 l\b' '100644 gitmod~1' '100644 x\.gitmodules' \
	'100644 a\.gitx' '100644 git~10' '120000 gitmod~5' '120000 gi7eba~12' \
	'120000 .gitmodulesx' '100644 .gitattributes'; do
	n=$((n + 1))
	new_file "${c%% *}" "${c#* }"
	git -C t apply --check ../r/p.patch || fail "git apply refuses ${c#* }"
	{ printf 'From: A U Thor <author@example.org>\nSubject: add %s\n\n---\n' \
		"${c#* }"; cat r/p.patch; } >ok/$n.patch
	echo $n.patch >>ok/series
done
expect_exit 0 kcarry -C ws import neighbours ok
expect_exit 0 kcarry -C ws apply neighbours t
stdout_has "summary: $n clean$"
[ "$(git -C t ls-tree -r --name-only kcarry/neighbours/v1/t | wc -l)" = $((n + 4)) ] ||
	fail "not every neighbour is in the tree"
git -C t ls-tree kcarry/neighbours/v1/t | grep -q '^120000 blob [0-9a-f]*	"l\\\\b"$' ||
	fail "the symlink l\\b is not in the tree"
git -C t fsck --strict --no-dangling >fsck.out 2>&1 ||
	{ cat fsck.out; fail "git fsck --strict"; }
grep -v '^notice:' fsck.out && fail "git fsck --strict warns"
exit 0
