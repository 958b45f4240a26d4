#!/bin/sh
# With refresh.note = rhel the backporter's own lines take RHEL's form
# too (issue 18): no stable "[ NAME: backported to X: ... ]" bracket;
# what the backport adjusted joins the "Conflicts:" paragraph (a hunk
# that was adapted is there already, in full), and the backporter's
# Signed-off-by (SUSE: Acked-by) follows the upstream text after a blank
# line, as in a RHEL/CentOS Stream backport commit.  In every format
# that carries the note: mbox, git, rpm, suse, debian; quilt carries
# none.  stable, the default, keeps its bracket.
here=$(pwd)
. ./lib.sh
. "$here/adapt-lib.sh"

who='B P <bp@example.org>'

# the description of a format-patch style file: after the headers, up
# to ---
description() {
	awk 'on && /^---$/ { exit } on { print } /^$/ { on = 1 }' "$1"
}

# DEP-3: the Description's body, one space off, " ." a blank line
dep3_description() {
	awk '/^Description:/ { on = 1; next } /^[A-Z][A-Za-z-]*:/ { on = 0 }
		on { sub(/^ /, ""); if ($0 == ".") $0 = ""; print }' "$1"
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

# check_all SLUG: every format against ./want (the mbox description)
check_all() {
	slug=$1
	Slug=$2
	description mbox/0001-$Slug.patch >got
	diff -u want got || fail "$3: mbox"
	# git and rpm: no "commit X upstream." line, the cherry-pick line
	# opens the backporter's lines
	sed "1,2d; /^Signed-off-by: $who\$/i (cherry picked from commit $up)" \
		want >want.git
	git -C tgt log -1 --format=%b kcarry-export/demo/v1/old | sed '$d' >got
	diff -u want.git got || fail "$3: git"
	description rpm/demo-0001-$Slug.patch >got
	diff -u want.git got || fail "$3: rpm"
	# suse: no upstream line in the body (Git-commit: says it), Acked-by
	sed "1,2d; s/^Signed-off-by: $who\$/Acked-by: $who/" want >want.suse
	description suse/patches.suse/$slug.patch >got
	diff -u want.suse got || fail "$3: suse"
	sed '1,2d' want >want.deb
	dep3_description debian/debian/patches/kcarry/demo/$slug.patch >got
	diff -u want.deb got || fail "$3: debian"
	grep -q '^\[ B P' quilt/0001-$Slug.patch && fail "$3: quilt has a note"
	for p in mbox/0001-$Slug.patch rpm/demo-0001-$Slug.patch \
		suse/patches.suse/$slug.patch \
		debian/debian/patches/kcarry/demo/$slug.patch; do
		grep -q 'backported to' "$p" && fail "$3: $p: a stable note"
	done
	return 0
}

# --- adapted hunks: the Conflicts paragraph says it all --------------
note_fixture
up=$(git -C up rev-parse HEAD)
adapt_ws demo
n1='drivers/demo/core.c: hunk 1: context taken from the target: the lines it removes stand once in foo(), at line 16'
n2='drivers/demo/other.c: hunk 1: context taken from the target: the lines it removes stand once in foo(), at line 16'
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
check_all demo-pass-flag-x-to-step-two demo-pass-FLAG_X-to-step-two adapted

# --- a hunk at an offset: a Conflicts paragraph of the backporter's ---
rm -rf up tgt ws
make_repo up lib/off.c "$(c_lines 30 o)
"
commit_file up lib/off.c "$(c_lines 20 o)
	off_fix();
$(c_lines 30 o | tail -n 10)
" "lib: call off_fix

off_fix() must run before line 21.

Signed-off-by: A U Thor <author@example.org>"
up=$(git -C up rev-parse HEAD)
make_repo tgt lib/off.c "	t1();
	t2();
	t3();
$(c_lines 30 o)
"
adapt_ws demo
printf '[refresh]\n\tnote = RHEL\n' >ws/kcarry.conf
export_all
cat >want <<EOT
commit $up upstream.

off_fix() must run before line 21.

Signed-off-by: A U Thor <author@example.org>

Conflicts: lib/off.c: hunk 1 offset +3 lines

Signed-off-by: $who
EOT
check_all lib-call-off-fix lib-call-off_fix offset

# KCARRY_REFRESH_NOTE wins over kcarry.conf
rm ws/kcarry.conf
export KCARRY_REFRESH_NOTE=rhel
export_all
check_all lib-call-off-fix lib-call-off_fix "offset, env"
unset KCARRY_REFRESH_NOTE

# stable, the default: the bracket, in the trailers' block
export_all
cat >want <<EOT
commit $up upstream.

off_fix() must run before line 21.

Signed-off-by: A U Thor <author@example.org>
[ B P: backported to old: lib/off.c: hunk 1 offset +3 lines ]
Signed-off-by: $who
EOT
description mbox/0001-lib-call-off_fix.patch >got
diff -u want got || fail "stable: mbox"
exit 0
