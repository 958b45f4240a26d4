#!/bin/sh
# What an interrupted or concurrent kcarry leaves is repaired, never in
# the way: stale config locks and temporary folders are removed with a
# note, an import whose provenance was cut short is completed by importing
# again, writers wait for each other, and a stale ref lock in a target's
# repository is cleared.
. ./lib.sh

make_repo up fs/a.c "one
two
three
"
for i in 1 2 3 4; do
	commit_file up fs/a.c "$(git -C up show HEAD:fs/a.c)
line $i
" "fs: add line $i"
done
kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/up\n\tref = base\n' "$TEST_TMP" >ws/kernels/t.conf
expect_exit 0 kcarry -C ws import s@v1 --git up base..HEAD~2

# --- leftovers of a killed run ------------------------------------------
: >ws/series/s.conf.lock
mkdir -p ws/patches/s/.tmp-v2-999999999 ws/patches/s/v1/.tmp-t-999999999
echo half >ws/patches/s/.tmp-v2-999999999/0001-x.patch
expect_exit 0 kcarry -C ws import s@v2 --git up base..HEAD
stderr_has "^removed series/s.conf.lock, left by an interrupted kcarry$"
stderr_has "^removed patches/s/.tmp-v2-999999999, left by an interrupted kcarry$"
stderr_has "^removed patches/s/v1/.tmp-t-999999999, left by an interrupted kcarry$"
[ ! -e ws/series/s.conf.lock ] || fail "stale lock left"
# a live process's temporary folder is not touched
mkdir ws/patches/s/.tmp-v3-$$
expect_exit 0 kcarry -C ws import s@v2 --git up base..HEAD
[ -d ws/patches/s/.tmp-v3-$$ ] || fail "a live process's folder was removed"
rmdir ws/patches/s/.tmp-v3-$$

# --- provenance cut short (killed or disk full between folder and conf) -
git config -f ws/series/s.conf --unset version.v2.source
git config -f ws/series/s.conf --unset version.v2.patches
# list says so, in the SOURCE column and in a hint
expect_exit 0 kcarry -C ws list
stdout_has "^s +v1 +2  git $TEST_TMP/up base\.\.HEAD~2$"
stdout_has '^s +v2 +4  git \(incomplete: import again to repair\)$'
expect_stderr <<'EOT'
hint: s@v2: its provenance in series/s.conf is incomplete (an import was cut short); import it again from its source to repair it
EOT
expect_exit 0 kcarry -C ws import s@v2 --git up base..HEAD
expect_stdout <<'EOT'
s@v2 is unchanged: 4 patches in patches/s/v2; its provenance in series/s.conf was incomplete and is recorded again
EOT
[ "$(git config -f ws/series/s.conf version.v2.patches)" = 4 ] || fail "count not repaired"
git config -f ws/series/s.conf version.v2.source | grep -q "up base..HEAD$" || fail "source not repaired"
expect_exit 0 kcarry -C ws import s@v2 --git up base..HEAD
expect_stdout <<'EOT'
s@v2 is unchanged: 4 patches in patches/s/v2
EOT
expect_exit 0 kcarry -C ws list
stdout_has '^s +v2 +4  git .*up base\.\.HEAD$'
expect_stderr </dev/null
# killed between the folder's rename and the conf: no record at all
git config -f ws/series/s.conf --remove-section version.v2
expect_exit 0 kcarry -C ws list
stdout_has '^s +v2 +4  \(incomplete: import again to repair\)$'
stderr_has '^hint: s@v2: its provenance in series/s.conf is incomplete'
expect_exit 0 kcarry -C ws import s@v2 --git up base..HEAD
stdout_has 'was incomplete and is recorded again$'

# --- writers wait for each other ----------------------------------------
mkdir -p ws/.kcarry
( flock 9; sleep 2 ) 9>ws/.kcarry/lock &
holder=$!
sleep 0.3
expect_exit 0 kcarry -C ws apply s@v2 t
stderr_has "^waiting for another kcarry writing this workspace$"
wait $holder
# every writer waits so: rebase, export, check --refresh (build: t040)
for cmd in "rebase s v1 v2 t" "export --format git s@v2 t" \
	"check --refresh s@v2 t"; do
	( flock 9; sleep 1 ) 9>ws/.kcarry/lock &
	holder=$!
	sleep 0.3
	# shellcheck disable=SC2086
	expect_exit 0 kcarry -C ws $cmd
	stderr_has "^waiting for another kcarry writing this workspace$" ||
		fail "'$cmd' did not wait"
	wait $holder
done
# concurrent imports of different versions and concurrent applies
for round in 1 2 3; do
	pids=""
	for v in a b c d; do
		kcarry -C ws import "s@$round$v" --git up base..HEAD >/dev/null 2>"err.$v" &
		pids="$pids $!"
	done
	for v in a b c d; do
		kcarry -C ws apply s@v2 t >/dev/null 2>"aerr.$v" &
		pids="$pids $!"
	done
	for p in $pids; do
		wait "$p" || { cat err.* aerr.*; fail "a concurrent run failed (round $round)"; }
	done
done
for round in 1 2 3; do
	for v in a b c d; do
		[ "$(git config -f ws/series/s.conf "version.$round$v.patches")" = 4 ] ||
			fail "s@$round$v: provenance incomplete"
		[ "$(grep -c . "ws/patches/s/$round$v/series")" = 4 ] || fail "s@$round$v: folder"
	done
done
git -C up fsck --strict >/dev/null 2>&1 || fail "git fsck --strict"

# concurrent rebase, apply and check --refresh of v2 on t: all succeed
# and leave what one serial rebase does (branch and refreshed series)
expect_exit 0 kcarry -C ws rebase s v1 v2 t
serial=$(git -C up rev-parse "kcarry/s/v2/t^{tree}")
cp -r ws/patches/s/v2/t serial.t
for round in 1 2 3 4; do
	pids=""
	for v in a b; do
		kcarry -C ws rebase s v1 v2 t >/dev/null 2>"rerr.$v" &
		pids="$pids $!"
		kcarry -C ws apply s@v2 t >/dev/null 2>"aerr.$v" &
		pids="$pids $!"
	done
	kcarry -C ws check --refresh s@v2 t >/dev/null 2>cerr &
	pids="$pids $!"
	for p in $pids; do
		wait "$p"
		[ $? -le 1 ] || { cat rerr.* aerr.* cerr; fail "a concurrent run failed (round $round)"; }
	done
done
git -C up fsck --strict >/dev/null 2>&1 || fail "git fsck --strict after rebase rounds"
[ "$(git -C up rev-parse "kcarry/s/v2/t^{tree}")" = "$serial" ] ||
	fail "the branch differs from a serial run's"
diff -r serial.t ws/patches/s/v2/t || fail "the refreshed series differs from a serial run's"
[ -z "$(ls -A ws/patches/s/v2 | grep '^\.tmp')" ] || fail "temporary folders left"

# --- a ref lock a killed apply left in the target repository -------------
: >up/.git/refs/heads/kcarry/s/v2/t.lock
expect_exit 0 kcarry -C ws apply s@v2 t
stderr_has "^t: removed refs/heads/kcarry/s/v2/t.lock, left by an interrupted kcarry$"
[ ! -e up/.git/refs/heads/kcarry/s/v2/t.lock ] || fail "ref lock left"
exit 0
