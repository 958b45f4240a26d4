# lib.sh: helpers of the package tests (tests/pkg/deb, tests/pkg/rpm).
# Each builds kcarry's package from 'git archive' output of the checkout
# (its working tree's tracked files, as a clean clone holds them) in a
# throw-away folder, unpacks it into a throw-away root and runs what it
# installed from there.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
version=$(cat "$top/VERSION")
work=$(mktemp -d "${TMPDIR:-/tmp}/kcarry-pkg.XXXXXX")
if [ -z "${KCARRY_PKG_KEEP:-}" ]; then
	trap 'rm -rf "$work"' EXIT
else
	echo "keeping $work"
fi

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# need_pkgs PKG...: install the Debian packages missing, as
# scripts/install-deps does (apt-get as root, or through sudo)
need_pkgs() {
	missing=""
	for p in "$@"; do
		dpkg-query -W -f '${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	echo "installing Debian packages:$missing" >&2
	sudo=""
	if [ "$(id -u)" != 0 ]; then
		command -v sudo >/dev/null 2>&1 ||
			fail "missing packages:$missing (run as root or install sudo)"
		sudo=sudo
	fi
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -qq >&2
	# shellcheck disable=SC2086
	$sudo apt-get install -y -qq --no-install-recommends $missing >&2
}

# unpack_source DIR: the checkout's tracked files (uncommitted edits
# included, as 'git stash create' records them; never build/ or other
# ignored output) as 'git archive' writes them, into DIR
unpack_source() {
	rev=$(git -C "$top" stash create)
	rev=${rev:-HEAD}
	mkdir -p "$1"
	git -C "$top" archive --format=tar "$rev" | tar -x -C "$1"
}

# check_no_apt: scripts/install-deps, as a package build runs it
# (KCARRY_NO_APT set) with packages missing, names them and installs
# nothing: dpkg-query says nothing is installed, apt-get records a call
check_no_apt() {
	mkdir -p "$work/fake"
	printf '#!/bin/sh\nexit 1\n' >"$work/fake/dpkg-query"
	printf '#!/bin/sh\necho "$@" >>"%s"\nexit 1\n' "$work/apt.calls" \
		>"$work/fake/apt-get"
	cp "$work/fake/apt-get" "$work/fake/sudo"
	chmod +x "$work/fake"/*
	PATH=$work/fake:$PATH KCARRY_NO_APT=1 "$top/scripts/install-deps" \
		2>"$work/deps.err" || fail "install-deps: $(cat "$work/deps.err")"
	[ ! -e "$work/apt.calls" ] ||
		fail "install-deps ran apt-get with KCARRY_NO_APT: $(cat "$work/apt.calls")"
	grep -q 'not installing: build-essential' "$work/deps.err" ||
		fail "install-deps did not name what it misses: $(cat "$work/deps.err")"
	echo "ok   install-deps with KCARRY_NO_APT installs nothing"
}

# check_installed ROOT: the binary, man page and completions unpacked
# under ROOT run: --version, man -l, t095 driving the completions
check_installed() {
	root=$1
	bin=$root/usr/bin/kcarry
	[ -x "$bin" ] || fail "no usr/bin/kcarry in the package"
	got=$("$bin" --version) || fail "kcarry --version failed"
	echo "$got"
	[ "$got" = "kcarry $version" ] ||
		fail "kcarry --version says '$got', VERSION says $version"
	man=$(ls "$root"/usr/share/man/man1/kcarry.1* 2>/dev/null | head -1)
	[ -n "$man" ] || fail "no kcarry.1 in the package"
	MANWIDTH=80 man -l "$man" 2>"$work/man.err" >"$work/man.txt" ||
		fail "man -l $man: $(cat "$work/man.err")"
	head -5 "$work/man.txt"
	grep -q 'kcarry' "$work/man.txt" || fail "man -l printed no kcarry"
	# groff's layout warnings (a table wider than 80 columns) are the
	# page's matter, not the package's: shown, not fatal
	[ ! -s "$work/man.err" ] || sed 's/^/man -l: /' "$work/man.err"
	(cd "$top/tests/e2e" &&
		KCARRY=$bin KCARRY_BASH_COMPLETION=$2 KCARRY_ZSH_COMPLETION=$3 \
			sh ./t095-completion.sh) ||
		fail "the installed completions (t095)"
	echo "ok   installed completions (t095)"
}
