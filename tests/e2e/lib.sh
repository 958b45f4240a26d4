# lib.sh: helpers for kcarry end-to-end tests.  Each test sources this,
# works in a throw-away directory under $TMPDIR and drives the real binary.
#
#   expect_exit N kcarry ARGS...   run, keep stdout/stderr, check the status
#   expect_stdout <<EOF ... EOF    compare the last stdout exactly
#   expect_stderr <<EOF ... EOF    compare the last stderr exactly
#   make_repo DIR FILE...          git init DIR, commit FILEs, tag base
#   need_corpus / skip MSG         exit 77 (skipped)
set -u
KCARRY=${KCARRY:-$(cd ../.. && pwd)/build/kcarry}
[ -x "$KCARRY" ] || { echo "no kcarry binary at $KCARRY"; exit 1; }
TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/kcarry-e2e.XXXXXX")
OUT=$TEST_TMP/.stdout
ERR=$TEST_TMP/.stderr
trap 'rm -rf "$TEST_TMP"' EXIT
cd "$TEST_TMP" || exit 1
export KCARRY_CACHE="$TEST_TMP/.cache"
export GIT_AUTHOR_NAME="A U Thor" GIT_AUTHOR_EMAIL="author@example.org"
export GIT_COMMITTER_NAME="C O Mitter" GIT_COMMITTER_EMAIL="committer@example.org"
export GIT_AUTHOR_DATE="2013-11-07 10:00:00 +0800"
export GIT_COMMITTER_DATE="2013-11-07 10:00:00 +0800"
export GIT_CONFIG_NOSYSTEM=1 HOME="$TEST_TMP" LC_ALL=C.UTF-8 NO_COLOR=1
unset KCARRY_WORKSPACE
git config --global init.defaultBranch master
git config --global user.name "C O Mitter"
git config --global user.email committer@example.org
QUILT_PATCHES=patches
export QUILT_PATCHES

fail() {
	echo "FAIL: $*"
	exit 1
}

skip() {
	echo "$*"
	exit 77
}

need_corpus() {
	[ -n "${KCARRY_CORPUS:-}" ] && [ -d "$KCARRY_CORPUS" ] ||
		skip "no ../shared/corpus beside the checkout"
}

need() {
	command -v "$1" >/dev/null 2>&1 || skip "no $1 on this machine"
}

kcarry() {
	"$KCARRY" "$@"
}

# expect_exit N CMD ARGS...: stdout/stderr of CMD go to $OUT/$ERR.
expect_exit() {
	want=$1
	shift
	"$@" >"$OUT" 2>"$ERR"
	got=$?
	if [ "$got" -ne "$want" ]; then
		echo "--- stdout of: $*"
		cat "$OUT"
		echo "--- stderr of: $*"
		cat "$ERR"
		fail "'$*' exited $got, expected $want"
	fi
}

expect_stdout() {
	cat >"$TEST_TMP/.want"
	diff -u "$TEST_TMP/.want" "$OUT" || fail "stdout differs"
}

expect_stderr() {
	cat >"$TEST_TMP/.want"
	diff -u "$TEST_TMP/.want" "$ERR" || fail "stderr differs"
}

# stdout_has / stderr_has PATTERN: grep -E in the last output
stdout_has() {
	grep -Eq -- "$1" "$OUT" || { cat "$OUT"; fail "stdout lacks /$1/"; }
}

stderr_has() {
	grep -Eq -- "$1" "$ERR" || { cat "$ERR"; fail "stderr lacks /$1/"; }
}

# make_repo DIR [FILE CONTENT]...: a git repository with one commit, tag base
make_repo() {
	dir=$1
	shift
	git init -q "$dir" || fail "git init"
	while [ $# -ge 2 ]; do
		mkdir -p "$dir/$(dirname "$1")"
		printf '%s' "$2" >"$dir/$1"
		shift 2
	done
	git -C "$dir" add -A && git -C "$dir" commit -qm base &&
		git -C "$dir" tag base || fail "make_repo"
}

# ws_targets NAME[:REPO]...: a workspace 'ws' with a target NAME each, the
# repository $TEST_TMP/REPO (REPO defaults to NAME) at tag base
ws_targets() {
	kcarry init ws >/dev/null || fail "kcarry init"
	for t in "$@"; do
		cat >"ws/kernels/${t%%:*}.conf" <<EOT
[kernel]
	name = ${t%%:*}
	url = $TEST_TMP/${t#*:}
	ref = base
EOT
	done
}

# quilt_series NAME [PATCH]...: a quilt folder q-NAME, imported into
# 'ws' as NAME@v1: one patch a PATCH text (0001.patch, 0002.patch, ...),
# or, with none, one patch NAME.patch read from stdin
quilt_series() {
	qs=$1
	shift
	mkdir -p "q-$qs"
	if [ $# = 0 ]; then
		cat >"q-$qs/$qs.patch"
		echo "$qs.patch" >"q-$qs/series"
	else
		: >"q-$qs/series"
		qn=0
		for qbody in "$@"; do
			qn=$((qn + 1))
			qf=$(printf '%04d.patch' "$qn")
			printf '%s' "$qbody" >"q-$qs/$qf"
			echo "$qf" >>"q-$qs/series"
		done
	fi
	expect_exit 0 kcarry -C ws import "$qs@v1" "q-$qs"
}

# commit_file REPO FILE CONTENT SUBJECT: change a file and commit it
commit_file() {
	mkdir -p "$1/$(dirname "$2")"
	printf '%s' "$3" >"$1/$2"
	git -C "$1" add -A && git -C "$1" commit -qm "$4" || fail "commit"
}

# c_lines N PREFIX: N numbered lines of C-ish code
c_lines() {
	i=1
	while [ "$i" -le "$1" ]; do
		echo "	$2_line_$i();"
		i=$((i + 1))
	done
}

# four_patch_series: repositories 'up' (a series of four commits on
# fs/btrfs/async-thread.c after tag base: an exact fix, one that lands
# at an offset, one that conflicts, one already in the target) and 'tgt'
# (the target: five extra lines, line 51 differs, the last fix present).
four_patch_series() {
# upstream: where the series was written
make_repo up fs/btrfs/async-thread.c "$(c_lines 60 w)
"
commit_file up fs/btrfs/async-thread.c "$(c_lines 10 w)
	exact_fix();
$(c_lines 60 w | tail -n 50)
" "btrfs: exact fix"
commit_file up fs/btrfs/async-thread.c "$(c_lines 10 w)
	exact_fix();
$(c_lines 40 w | tail -n 30)
	offset_fix();
$(c_lines 60 w | tail -n 20)
" "btrfs: offset fix"
commit_file up fs/btrfs/async-thread.c "$(c_lines 10 w)
	exact_fix();
$(c_lines 40 w | tail -n 30)
	offset_fix();
$(c_lines 50 w | tail -n 10)
	w_line_51_changed();
$(c_lines 60 w | tail -n 9)
" "btrfs: conflicting fix"
commit_file up fs/btrfs/async-thread.c "$(c_lines 10 w)
	exact_fix();
$(c_lines 40 w | tail -n 30)
	offset_fix();
$(c_lines 50 w | tail -n 10)
	w_line_51_changed();
$(c_lines 60 w | tail -n 9)
	already_there();
" "btrfs: already upstream"

# the target: 5 extra lines in the middle, line 51 differs, and the
# last fix is already there
make_repo tgt fs/btrfs/async-thread.c "$(c_lines 20 w)
	target_only_1();
	target_only_2();
	target_only_3();
	target_only_4();
	target_only_5();
$(c_lines 50 w | tail -n 30)
	w_line_51_target();
$(c_lines 60 w | tail -n 9)
	already_there();
"
}
