#!/bin/sh
# kcarry rebase when the tree under a resolved patch changes: V2 changes
# the patch before it (same file), moves it, and adds a patch that
# conflicts.  The unchanged resolved patch meets other file contents, so
# V1's resolution is not replayed as it is: its change is merged into the
# new contents.  The tree equals V2 applied and resolved again by hand;
# the new conflicting patch is left to a person, with the command to run.
. ./lib.sh

edit() {
	sed -i "$2" "$1/fs/btrfs/$3" || fail "sed $2"
	git -C "$1" commit -qam "$4" || fail "commit $4"
}

make_repo up fs/btrfs/async-thread.c "$(c_lines 60 w)
" fs/btrfs/disk-io.c "$(c_lines 40 d)
"
git -C up checkout -qb v1
edit up 's/w_line_10();/w_line_10(one);/' async-thread.c "btrfs: first"
edit up 's/w_line_51();/w_line_51_changed();/' async-thread.c "btrfs: conflicting fix"
edit up 's/d_line_5();/d_line_5(third);/' disk-io.c "btrfs: third"
git -C up checkout -q base
git -C up checkout -qb v2
edit up 's/d_line_5();/d_line_5(third);/' disk-io.c "btrfs: third"
edit up 's/w_line_10();/w_line_10(one, two);/' async-thread.c "btrfs: first"
edit up 's/w_line_51();/w_line_51_changed();/' async-thread.c "btrfs: conflicting fix"
edit up 's/d_line_30();/d_line_30(new);/' disk-io.c "btrfs: new and conflicting"

# the target: line 51 and line 30 of disk-io.c are its own
make_repo tgt fs/btrfs/async-thread.c "$(c_lines 50 w)
	w_line_51_target();
$(c_lines 60 w | tail -n 9)
" fs/btrfs/disk-io.c "$(c_lines 29 d)
	d_line_30_target();
$(c_lines 40 d | tail -n 10)
"

target() {
	mkdir -p "$1/kernels"
	printf '[kernel]\n\turl = %s/tgt\n\tref = base\n' "$TEST_TMP" >"$1/kernels/$2.conf"
}

# resolve_by_hand WS VERSION TARGET PATCH EXIT: the person's resolution:
# the target's line 51 renamed; the rest of the file as the patches before
# it leave it (the scratch file minus markers); refresh exits EXIT
resolve_by_hand() {
	expect_exit 0 kcarry -C "$1" resolve "wq@$2" "$3" "$4"
	f=$1/.kcarry/resolve/wq/$2/$3/files/fs/btrfs/async-thread.c
	grep -q '^<<<<<<< ' "$f" || fail "no conflict in $f"
	awk '/^<<<<<<< /{skip=1; next} /^\|\|\|\|\|\|\| /{skip=2; next}
	     /^=======$/{skip=3; next} /^>>>>>>> /{skip=0; next}
	     skip == 1 { sub(/w_line_51_target/, "w_line_51_resolved"); print; next }
	     skip >= 2 { next } { print }' "$f" >"$f.new" && mv "$f.new" "$f"
	expect_exit "$5" kcarry -C "$1" refresh "wq@$2" "$3"
}

kcarry init ws >/dev/null
target ws tgt
expect_exit 0 kcarry -C ws import wq@v1 --git up base..v1
expect_exit 0 kcarry -C ws import wq@v2 --git up base..v2
expect_exit 1 kcarry -C ws apply wq@v1 tgt
resolve_by_hand ws v1 tgt 2 0
git -C tgt show kcarry/wq/v1/tgt:fs/btrfs/async-thread.c | grep -q w_line_51_resolved ||
	fail "V1 not resolved"

expect_exit 1 kcarry -C ws rebase wq v1 v2 tgt
expect_stdout <<'EOT'
wq v1 -> v2 on tgt (kcarry/wq/v2/tgt)
  0001 reused         clean            btrfs: third (v1 0003)
  0002 updated        clean            btrfs: first (v1 0001)
  0003 reused         clean            btrfs: conflicting fix (v1 0002)
         v1's backport (a person's resolution), recorded for this version
  0004 needs a person not carried      btrfs: new and conflicting
         v2's patch does not apply here (conflict)
         then: kcarry resolve wq@v2 tgt 4
  summary: 2 reused, 1 updated, 0 new, 0 dropped, 1 needs a person (2 of 4 patches changed since v1)
refreshed series: patches/wq/v2/tgt/
EOT
show() {
	git -C tgt show "kcarry/wq/v2/$1:fs/btrfs/async-thread.c"
}
show tgt | grep -q '^	w_line_10(one, two);$' || fail "V2's first patch missing"
show tgt | grep -q '^	w_line_51_resolved();$' || fail "the resolution is lost"
rebased=$(git -C tgt rev-parse kcarry/wq/v2/tgt^{tree})

# by hand: apply V2, resolve patch 3 the same way
kcarry init hand >/dev/null
target hand tgt2
expect_exit 0 kcarry -C hand import wq@v2 --git up base..v2
expect_exit 1 kcarry -C hand apply wq@v2 tgt2
stdout_has '^  0003 conflict'
resolve_by_hand hand v2 tgt2 3 1
# apply adapts patch 4 (issue 18: committed, flagged, exit 1), which
# rebase leaves to a person: the trees agree up to patch 3
git -C tgt log -1 --format=%B kcarry/wq/v2/tgt2 | grep -q '^\[ adapted: ' ||
	fail "patch 4 not adapted by apply"
[ "$(git -C tgt rev-parse kcarry/wq/v2/tgt2~1^{tree})" = "$rebased" ] ||
	fail "rebase's tree differs from V2 resolved by hand"

# the new patch goes to a person, then check keeps all
expect_exit 0 kcarry -C ws resolve wq@v2 tgt 4
f=ws/.kcarry/resolve/wq/v2/tgt/files/fs/btrfs/disk-io.c
git -C tgt show kcarry/wq/v2/tgt:fs/btrfs/disk-io.c | sed 's/d_line_30_target();/d_line_30_target(new);/' >"$f"
expect_exit 0 kcarry -C ws refresh wq@v2 tgt
stdout_has '^  0003 clean             \[resolved\] btrfs: conflicting fix'
# the person's file is kcarry's proposal for the adapted patch 4 (the
# name renamed as the target has it): an acceptance, not a resolution
stdout_has '^  0004 adapted           btrfs: new and conflicting'
stdout_has 'adapted by rule renamed-identifiers; accepted by a person'
expect_exit 0 kcarry -C ws check wq@v2 tgt
git -C tgt show kcarry/wq/v2/tgt:fs/btrfs/disk-io.c | grep -q 'd_line_30_target(new)' ||
	fail "check lost the new resolution"
show tgt | grep -q '^	w_line_51_resolved();$' || fail "check lost the carried resolution"
