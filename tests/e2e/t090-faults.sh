#!/bin/sh
# kill -9 at random points of import, apply, check, resolve and refresh,
# in a loop
# (KCARRY_FAULT_KILLS rounds, default 40; CI runs 200).  After each kill:
# git fsck --strict passes on the target repository, the workspace reads
# ('kcarry list'), the same command run again succeeds (no lock left in
# the way), every stored version has its provenance, and nothing outside
# the workspace, the cache and the target's kcarry branches changed.
. ./lib.sh
need timeout

kills=${KCARRY_FAULT_KILLS:-40}
make_repo up fs/a.c "$(c_lines 400 a)
" fs/b.c "$(c_lines 400 b)
"
i=1
while [ $i -le 30 ]; do
	f=fs/a.c
	[ $((i % 2)) = 0 ] && f=fs/b.c
	git -C up show HEAD:$f | sed "s/^	${f#fs/}_line_$((i * 10))();/	changed_$i();/; s/^	\([ab]\)_line_$((i * 10))();/	changed_$i();/" >x.tmp
	commit_file up $f "$(cat x.tmp)
" "fs: change $i"
	i=$((i + 1))
done
git -C up tag v30
git clone -q up tgt
git -C tgt tag -f base base >/dev/null 2>&1
kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/tgt\n\tref = base\n' "$TEST_TMP" >ws/kernels/t.conf
expect_exit 0 kcarry -C ws import s@v1 --git up base..v30
expect_exit 0 kcarry -C ws import s@v2 --git up base..v30~5
# a second target where patch 1 of c conflicts: resolve and refresh
git clone -q up t2 && git -C t2 checkout -q base &&
	sed -i 's/^	a_line_10();$/	a_line_10_in_t2();/' t2/fs/a.c &&
	git -C t2 commit -qam "t2's own line 10" && git -C t2 tag t2-base || fail "t2"
printf '[kernel]\n\turl = %s/t2\n\tref = t2-base\n' "$TEST_TMP" >ws/kernels/t2.conf
expect_exit 0 kcarry -C ws import c --git up base..v30~25
scratch=ws/.kcarry/resolve/c/v1/t2/files/fs/a.c
resolve_c() { # what the person writes: patch 1's change on t2's line
	git -C t2 show t2-base:fs/a.c | sed 's/^	a_line_10_in_t2();$/	changed_1();/' >"$scratch"
}
expect_exit 1 kcarry -C ws apply c t2
expect_exit 0 kcarry -C ws resolve c t2 1
resolve_c
expect_exit 0 kcarry -C ws refresh c t2
head_before=$(git -C tgt rev-parse HEAD)
t2_before=$(git -C t2 rev-parse HEAD)
outside() {
	# what must never change: everything but the workspace, the cache and
	# the target's git directory (whose kcarry branches may move)
	find "$TEST_TMP" -path "$TEST_TMP/ws" -prune -o -path "$TEST_TMP/.cache" -prune \
		-o -path "$TEST_TMP/tgt/.git" -prune -o -path "$TEST_TMP/t2/.git" -prune \
		-o -name '.stdout' -prune \
		-o -name '.stderr' -prune -o -name 'state.*' -prune -o -name '*.out' -prune \
		-o -type f -print0 | sort -z | xargs -0 sha1sum
}
outside >state.before

r=1 hit=0
while [ $r -le "$kills" ]; do
	case $((r % 7)) in
	0) cmd="import --force s@v3 --git up base..v30~$((r % 7))" ;;
	1) cmd="apply s@v1 t" ;;
	2) cmd="check --refresh s@v2 t" ;;
	3) cmd="import s@r$r --git up base..v30" ;;
	4) cmd="apply s@v2 t" ;;
	5) cmd="resolve c t2 1" ;;
	6) cmd="refresh c t2" ;;
	esac
	# shellcheck disable=SC2086
	"$KCARRY" -q -C ws $cmd >/dev/null 2>&1 &
	pid=$!
	# a random moment while it runs (each command takes 50-80 ms)
	sleep "0.$(printf '%03d' $(( $(od -An -N2 -tu2 /dev/urandom) % 80 )))"
	kill -9 $pid 2>/dev/null && hit=$((hit + 1))
	wait $pid 2>/dev/null
	for repo in tgt t2; do
		git -C $repo fsck --strict --no-dangling >fsck.out 2>&1 ||
			{ cat fsck.out; fail "round $r ($cmd): git fsck --strict of $repo"; }
	done
	timeout 60 "$KCARRY" -C ws list >list.out 2>&1 ||
		{ cat list.out; fail "round $r ($cmd): list after the kill"; }
	# shellcheck disable=SC2086
	timeout 60 "$KCARRY" -q -C ws $cmd >again.out 2>&1
	rc=$?
	[ $rc -le 1 ] || { cat again.out; fail "round $r ($cmd): the same command again exited $rc"; }
	# the person resolves again after a resolve round; a refresh then
	# records it and moves the branch: c's branch has all 5 patches
	case $cmd in
	resolve*) resolve_c ;;
	refresh*)
		[ $rc = 0 ] || { cat again.out; fail "round $r: refresh after the kill exited $rc"; }
		[ "$(git -C t2 rev-list --count t2-base..kcarry/c/v1/t2)" = 5 ] ||
			fail "round $r: c's branch lacks patches after refresh"
		git -C t2 show kcarry/c/v1/t2:fs/a.c | grep -q '^	changed_1();$' ||
			fail "round $r: the resolution is not in c's branch"
		;;
	esac
	for conf in ws/series/*.conf; do
		[ -e "$conf.lock" ] && fail "round $r: $conf.lock left"
	done
	# every stored version has its provenance
	for v in $(ls ws/patches/s); do
		[ -f "ws/patches/s/$v/series" ] || continue
		[ -n "$(git config -f ws/series/s.conf "version.$v.patches")" ] ||
			fail "round $r ($cmd): s@$v has no provenance after a rerun"
	done
	r=$((r + 1))
done
# a refreshed series exists for every branch kcarry moved
for b in $(git -C tgt for-each-ref --format='%(refname:short)' refs/heads/kcarry/s/); do
	v=$(echo "$b" | cut -d/ -f3)
	[ -f "ws/patches/s/$v/t/series" ] || fail "branch $b has no refreshed series"
done
[ "$(git -C tgt rev-parse HEAD)" = "$head_before" ] || fail "the target's HEAD moved"
[ "$(git -C t2 rev-parse HEAD)" = "$t2_before" ] || fail "t2's HEAD moved"
[ -z "$(git -C t2 status --porcelain)" ] || fail "t2's working tree changed"
[ -f ws/patches/c/v1/t2/series ] || fail "c has no refreshed series"
[ -z "$(git -C tgt status --porcelain)" ] || fail "the target's working tree changed"
outside >state.after
cmp -s state.before state.after || { diff state.before state.after; fail "files outside the workspace changed"; }
ls -d ws/patches/s/.tmp-* ws/patches/s/*/.tmp-* 2>/dev/null && fail "temporary folders left after reruns"
echo "$kills kills ($hit while the command ran) survived"
exit 0
