#!/bin/sh
# kcarry rebase: V1 of a series carried onto a target, its conflict
# resolved by a person (scripted: resolve, edit, refresh); V2 changes that
# patch (elsewhere than the conflict) and another, adds one and drops
# one.  rebase reuses, updates, adds and drops; the person's resolution
# carries into V2, and the tree equals the one a person gets by applying
# V2 and resolving again by hand.  check and apply of V2 keep it; V1's
# resolution alone is never replayed onto the changed patch.
. ./lib.sh
need quilt

# edit REPO SED SUBJECT: change async-thread.c or disk-io.c and commit
edit() {
	sed -i "$2" "$1/fs/btrfs/$3" || fail "sed $2"
	git -C "$1" commit -qam "$4" || fail "commit $4"
}

make_repo up fs/btrfs/async-thread.c "$(c_lines 60 w)
" fs/btrfs/disk-io.c "$(c_lines 40 d)
"
git -C up checkout -qb v1
edit up 's/w_line_10();/w_line_10();\n\texact_fix();/' async-thread.c "btrfs: exact fix"
edit up 's/w_line_51();/w_line_51_changed();/; s/w_line_58();/w_line_58();\n\tconflict_helper();/' \
	async-thread.c "btrfs: conflicting fix"
edit up 's/d_line_20();/d_line_20();\n\tlog_it();/' disk-io.c "btrfs: log it"
edit up 's/d_line_30();/d_line_30(dropped);/' disk-io.c "btrfs: to be dropped"
git -C up checkout -q base
git -C up checkout -qb v2
edit up 's/w_line_10();/w_line_10();\n\texact_fix();/' async-thread.c "btrfs: exact fix"
edit up 's/w_line_51();/w_line_51_changed();/; s/w_line_58();/w_line_58();\n\tconflict_helper(2);/' \
	async-thread.c "btrfs: conflicting fix"
edit up 's/d_line_20();/d_line_20();\n\tlog_it(2);/' disk-io.c "btrfs: log it"
edit up 's/d_line_35();/d_line_35(new);/' disk-io.c "btrfs: brand new"

# the target: five more lines before line 21, line 51 its own
make_repo tgt fs/btrfs/async-thread.c "$(c_lines 20 w)
	target_only_1();
	target_only_2();
	target_only_3();
	target_only_4();
	target_only_5();
$(c_lines 50 w | tail -n 30)
	w_line_51_target();
$(c_lines 60 w | tail -n 9)
" fs/btrfs/disk-io.c "$(c_lines 40 d)
"

target() {
	mkdir -p "$1/kernels"
	cat >"$1/kernels/$2.conf" <<EOT
[kernel]
	url = $TEST_TMP/tgt
	ref = base
EOT
}

# resolve_by_hand WS VERSION TARGET HELPER: the person's edit of patch 2:
# the target's line 51, renamed as the patch wants, and the helper call
resolve_by_hand() {
	expect_exit 0 kcarry -C "$1" resolve "wq@$2" "$3" 2
	f=$1/.kcarry/resolve/wq/$2/$3/files/fs/btrfs/async-thread.c
	grep -q '^<<<<<<< ' "$f" || fail "no conflict to resolve in $f"
	git -C tgt show base:fs/btrfs/async-thread.c |
		sed "s/w_line_10();/w_line_10();\n\texact_fix();/
		     s/w_line_51_target()/w_line_51_resolved()/
		     s/w_line_58();/w_line_58();\n\t$4;/" >"$f"
	expect_exit 0 kcarry -C "$1" refresh "wq@$2" "$3"
}

kcarry init ws >/dev/null
target ws tgt
expect_exit 0 kcarry -C ws import wq@v1 --git up base..v1
expect_exit 0 kcarry -C ws import wq@v2 --git up base..v2
expect_exit 1 kcarry -C ws apply wq@v1 tgt
stdout_has '^  0002 conflict'
resolve_by_hand ws v1 tgt 'conflict_helper()'
stdout_has '^  0002 clean             \[resolved\] btrfs: conflicting fix'

# V1's resolution is not V2's: patch 2 changed, so it is not replayed
expect_exit 1 kcarry -C ws apply --no-refresh wq@v2 tgt
stdout_has '^  0002 conflict          btrfs: conflicting fix'

expect_exit 0 kcarry -C ws rebase wq v1 v2 tgt
expect_stdout <<'EOT'
wq v1 -> v2 on tgt (kcarry/wq/v2/tgt)
  0001 reused         clean            btrfs: exact fix
  0002 updated        clean            btrfs: conflicting fix
         v1's backport (a person's resolution) with the interdiff, recorded for this version
  0003 updated        clean            btrfs: log it
  ---- dropped                         btrfs: to be dropped (v1 0004)
  0004 new            clean            btrfs: brand new
  summary: 1 reused, 2 updated, 1 new, 1 dropped, 0 need a person (3 of 4 patches changed since v1)
refreshed series: patches/wq/v2/tgt/
EOT
show() {
	git -C tgt show "kcarry/wq/$1/$2:fs/btrfs/$3"
}
show v2 tgt async-thread.c | grep -q '^	w_line_51_resolved();$' || fail "the person's resolution is lost"
show v2 tgt async-thread.c | grep -q '^	conflict_helper(2);$' || fail "V2's change is missing"
! show v2 tgt async-thread.c | grep -q 'conflict_helper();' || fail "V1's change is left"
show v2 tgt disk-io.c | grep -q '^	log_it(2);$' || fail "patch 3 not updated"
show v2 tgt disk-io.c | grep -q 'd_line_35(new)' || fail "patch 4 not new"
! show v2 tgt disk-io.c | grep -q dropped || fail "the dropped patch is there"
[ "$(git -C tgt rev-list --count base..kcarry/wq/v2/tgt)" = 4 ] || fail "4 commits expected"
rebased=$(git -C tgt rev-parse kcarry/wq/v2/tgt^{tree})

# the peer: a person applies V2 and resolves again by hand
kcarry init hand >/dev/null
target hand tgt2
expect_exit 0 kcarry -C hand import wq@v2 --git up base..v2
expect_exit 1 kcarry -C hand apply wq@v2 tgt2
resolve_by_hand hand v2 tgt2 'conflict_helper(2)'
[ "$(git -C tgt rev-parse kcarry/wq/v2/tgt2^{tree})" = "$rebased" ] ||
	fail "rebase's tree differs from V2 resolved by hand"

# the refreshed series passes quilt push -a and gives the branch's tree
git clone -q tgt qt && git -C qt checkout -q base
cp -r ws/patches/wq/v2/tgt qt/patches
(cd qt && quilt push -aq --fuzz=0 >/dev/null) || fail "quilt push -a"
git -C tgt archive kcarry/wq/v2/tgt | tar -x -C "$TEST_TMP" --one-top-level=branch
diff -r qt/fs branch/fs || fail "quilt's tree differs from the rebased branch"

# check, apply and a second rebase keep what rebase established
expect_exit 0 kcarry -C ws check wq@v2 tgt
# the rebased cell is a cell like any other: every patch clean, the
# resolved one through its recorded resolution
sed -n '/^0001/,/^0004/p' "$OUT" | awk '{ print $1, $(NF - ($NF == "w")) }' >"$TEST_TMP/cells"
printf '0001 .\n0002 .\n0003 .\n0004 .\n' | diff -u - "$TEST_TMP/cells" || fail "check's cells of the rebased v2"
stdout_has '^  wq@v2 on tgt: 4 clean$'
[ "$(git -C tgt rev-parse kcarry/wq/v2/tgt^{tree})" = "$rebased" ] || fail "check changed the tree"
expect_exit 0 kcarry -C ws apply wq@v2 tgt
stdout_has '^  0002 clean             \[resolved\] btrfs: conflicting fix'
[ "$(git -C tgt rev-parse kcarry/wq/v2/tgt^{tree})" = "$rebased" ] || fail "apply changed the tree"
expect_exit 0 kcarry -C ws rebase wq v1 v2 tgt
stdout_has '^         a recorded resolution, replayed$'
[ "$(git -C tgt rev-parse kcarry/wq/v2/tgt^{tree})" = "$rebased" ] || fail "rebase again changed the tree"

# --dry-run records and writes nothing
target ws twin
ls ws/patches/wq/.resolutions >"$TEST_TMP/before"
expect_exit 0 kcarry -C ws rebase --dry-run wq v1 v2 twin
stdout_has '^wq v1 -> v2 on twin \(dry run: nothing recorded or written\)$'
ls ws/patches/wq/.resolutions | diff -u "$TEST_TMP/before" - || fail "dry run recorded"
! git -C tgt rev-parse -q --verify kcarry/wq/v2/twin >/dev/null || fail "dry run made a branch"
[ ! -d ws/patches/wq/v2/twin ] || fail "dry run wrote a series"

# V3 changes the very line the person resolved: a person again
git -C up checkout -q base
git -C up checkout -qb v3
edit up 's/w_line_10();/w_line_10();\n\texact_fix();/' async-thread.c "btrfs: exact fix"
edit up 's/w_line_51();/w_line_51_changed_again();/; s/w_line_58();/w_line_58();\n\tconflict_helper();/' \
	async-thread.c "btrfs: conflicting fix"
expect_exit 0 kcarry -C ws import wq@v3 --git up base..v3
expect_exit 1 kcarry -C ws rebase wq v1 v3 tgt
expect_stdout <<'EOT'
wq v1 -> v3 on tgt (kcarry/wq/v3/tgt)
  0001 reused         clean            btrfs: exact fix
  0002 needs a person not carried      btrfs: conflicting fix
         fs/btrfs/async-thread.c: the v1->v3 interdiff conflicts on v1's backport
         then: kcarry resolve wq@v3 tgt 2
  ---- dropped                         btrfs: log it (v1 0003)
  ---- dropped                         btrfs: to be dropped (v1 0004)
  summary: 1 reused, 0 updated, 0 new, 2 dropped, 1 needs a person (1 of 2 patches changed since v1)
refreshed series: patches/wq/v3/tgt/
EOT
resolve_by_hand ws v3 tgt 'conflict_helper()'
show v3 tgt async-thread.c | grep -q '^	w_line_51_resolved();$' || fail "v3 resolution"

# errors
expect_exit 2 kcarry -C ws rebase wq v1 v2
expect_stderr <<'EOT'
error: no target named
usage: kcarry rebase [options] NAME V1 V2 TARGET...
EOT
# NAME@V1, as apply takes it: the syntax rebase expects, from what was given
expect_exit 2 kcarry -C ws rebase wq@v1 v2 tgt
expect_stderr <<'EOT'
error: 'wq@v1': rebase takes the series and its versions apart: kcarry rebase wq v1 v2 tgt
usage: kcarry rebase [options] NAME V1 V2 TARGET...
EOT
expect_exit 2 kcarry -C ws rebase wq@v1 wq@v2 tgt
expect_stderr <<'EOT'
error: 'wq@v1': rebase takes the series and its versions apart: kcarry rebase wq v1 v2 tgt
usage: kcarry rebase [options] NAME V1 V2 TARGET...
EOT
expect_exit 2 kcarry -C ws rebase wq@v1 v2
stderr_has "^error: 'wq@v1': rebase takes the series and its versions apart: kcarry rebase wq v1 v2 TARGET\.\.\.$"
expect_exit 2 kcarry -C ws rebase wq v1 wq@v2 tgt
stderr_has "^error: 'wq@v2': rebase takes the series and its versions apart: kcarry rebase wq v1 v2 tgt$"
expect_exit 2 kcarry -C ws rebase wq v2 v2 tgt
stderr_has "^error: V1 and V2 are the same version 'v2'$"
expect_exit 2 kcarry -C ws rebase wq v1 v9 tgt
stderr_has "^error: series 'wq' has no version 'v9'$"
expect_exit 2 kcarry -C ws rebase wq v1 v2 nosuch
stderr_has "^error: no target 'nosuch'"
