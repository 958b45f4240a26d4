# bench/lib.sh: shared by bench/run, bench/apply-speed and bench/port-*.
# Sourced by bash scripts; defines paths, versions, timers and the data
# helpers (Debian source packages, cached trees, patch parsing).
#
# Environment (all optional):
#   KCARRY_CACHE      cache (default ${XDG_CACHE_HOME:-~/.cache}/kcarry)
#   KCARRY_BENCH_OUT  results folder (default $KCARRY_CACHE/bench/out)
#   KCARRY_BIN        the kcarry binary to measure (default build/kcarry,
#                     copied once per run so a rebuild cannot change it)
#   BENCH_V61, BENCH_V612   Debian versions (6.1.170-3, 6.12.100-1~deb12u1)

set -euo pipefail

BENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH_DIR=$BENCH_ROOT/bench

if [ -z "${KCARRY_CACHE:-}" ]; then
	KCARRY_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/kcarry
fi
export KCARRY_CACHE
# Everything the benchmarks keep between runs (extracted trees, a
# non-bare clone, the chain repositories) lives here.
BWORK=$KCARRY_CACHE/bench
OUT=${KCARRY_BENCH_OUT:-$BWORK/out}
export KCARRY_BENCH_OUT=$OUT

P61=linux
V61=${BENCH_V61:-6.1.170-3}
P612=linux-6.12
V612=${BENCH_V612:-6.12.100-1~deb12u1}
export BENCH_V61=$V61 BENCH_V612=$V612

# Never let a user's ~/.quiltrc or git identity change what is measured.
export QUILT_PC=.pc
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@kcarry.invalid
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@kcarry.invalid
export GIT_CONFIG_NOSYSTEM=1 LC_ALL=C

die() {
	echo "bench: error: $*" >&2
	exit 3
}

note() {
	printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2
}

now_ns() { date +%s%N; }

# secs START_NS END_NS -> seconds with 3 decimals
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'; }

# median of the arguments (numbers)
median() {
	printf '%s\n' "$@" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2];
			else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# ratio A B -> A/B with one decimal ("-" when B is 0)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "-" }'; }

# The kcarry binary under test, in $KCARRY_BIN: one copy per run (others
# may rebuild build/kcarry while a benchmark runs).  Child scripts inherit
# the copy through the environment.
kcarry_setup() {
	if [ -n "${KCARRY_BIN:-}" ]; then
		[ -x "$KCARRY_BIN" ] || die "KCARRY_BIN=$KCARRY_BIN is not executable"
		return 0
	fi
	local src=$BENCH_ROOT/build/kcarry
	[ -x "$src" ] || die "no $src (run 'make kcarry' first)"
	mkdir -p "$OUT"
	cp "$src" "$OUT/kcarry.bin.$$"
	mv -f "$OUT/kcarry.bin.$$" "$OUT/kcarry"
	KCARRY_BIN=$OUT/kcarry
	export KCARRY_BIN
}

# Debian packages the benchmarks drive (installed when missing, as root).
bench_deps() {
	local need="quilt patch git xz-utils time curl" missing="" p
	[ -x "$BENCH_DIR/watch-scan" ] && need="$need cscope"
	for p in $need; do
		dpkg-query -W -f '${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" != 0 ]; then
		die "missing Debian packages:$missing (apt-get install$missing)"
	fi
	note "installing:$missing"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends $missing >&2 ||
		{ apt-get update -qq >&2 &&
		  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends $missing >&2; } ||
		die "cannot install$missing"
}

# Make sure apt knows where PKG=VER's source files are (deb-src entries).
ensure_deb_src() {
	local pkg=$1 ver=$2
	if apt-get source --print-uris "$pkg=$ver" 2>/dev/null | grep -q "^'"; then
		return 0
	fi
	if [ "$(id -u)" = 0 ]; then
		note "no deb-src entry knows $pkg=$ver: running scripts/enable-deb-src"
		"$BENCH_ROOT/scripts/enable-deb-src" >&2 || die "enable-deb-src failed"
		apt-get update -qq >&2 || true
	fi
	apt-get source --print-uris "$pkg=$ver" 2>/dev/null | grep -q "^'" ||
		die "apt does not know the source package $pkg=$ver" \
			"(enable deb-src entries: scripts/enable-deb-src as root)"
}

# Upstream version of a Debian version: 6.12.100-1~deb12u1 -> 6.12.100
upstream_version() { echo "${1%-*}"; }

# Cached files kcarry downloaded for PKG VER (after a kcarry import/prepare).
debian_tarball() { echo "$KCARRY_CACHE/debian/${1}_${2}.debian.tar.xz"; }
orig_tarball() { echo "$KCARRY_CACHE/debian/${1}_$(upstream_version "$2").orig.tar.xz"; }

# The cached bare repository kcarry imports a tarball target into (as
# 'kcarry kernels --path' tells for a target apt:PKG=VER).
tree_repo() {
	local d
	kcarry_setup
	d=$(mktemp -d "${TMPDIR:-/tmp}/kcarry-ws.XXXXXX")
	mkdir -p "$d/series" "$d/kernels"
	printf '[kernel]\n\ttarball = apt:%s=%s\n' "$1" "$2" >"$d/kernels/t.conf"
	"$KCARRY_BIN" -C "$d" kernels --path t || die "kcarry kernels --path failed"
	rm -rf "$d"
}

# extract_debian PKG VER -> folder holding debian/patches and
# debian/patches-rt of that source package (extracted once)
extract_debian() {
	local pkg=$1 ver=$2 dir
	dir=$BWORK/debian-$pkg-$(printf '%s' "$ver" | tr '~:' '__')
	if [ ! -f "$dir/.done" ]; then
		local tb
		tb=$(debian_tarball "$pkg" "$ver")
		[ -f "$tb" ] || die "no $tb (kcarry import apt:$pkg=$ver downloads it)"
		rm -rf "$dir"
		mkdir -p "$dir"
		tar -C "$dir" -xf "$tb" debian/patches debian/patches-rt ||
			die "cannot extract $tb"
		touch "$dir/.done"
	fi
	echo "$dir"
}

# pristine_tree PKG VER -> the upstream tarball of PKG=VER extracted once
# into $BWORK/linux-UPSTREAM (never modified: runs work on hard-linked
# copies).
pristine_tree() {
	local pkg=$1 ver=$2 dir tb
	dir=$BWORK/linux-$(upstream_version "$ver")
	if [ ! -f "$dir/.bench-pristine" ]; then
		tb=$(orig_tarball "$pkg" "$ver")
		[ -f "$tb" ] || die "no $tb (kcarry kernels --prepare downloads it)"
		note "extracting $(basename "$tb")"
		rm -rf "$dir" "$BWORK/extract"
		mkdir -p "$BWORK/extract"
		tar -C "$BWORK/extract" -xf "$tb" || die "cannot extract $tb"
		mv "$BWORK/extract"/* "$dir"
		rmdir "$BWORK/extract"
		touch "$dir/.bench-pristine"
	fi
	echo "$dir"
}

# base_repo PKG VER -> a bare repository owned by the benchmarks holding
# only the commit kcarry imported the tarball of PKG=VER as (refs/heads/base),
# fetched once from kcarry's cached tree repository.  Scratch repositories
# borrow its objects, so what other users of the cache write into kcarry's
# repository (branches, merge results) cannot change a benchmark's result.
base_repo() {
	local pkg=$1 ver=$2 trees dir want
	trees=$(tree_repo "$pkg" "$ver")
	dir=$BWORK/base-$(basename "$trees")
	want=$(git --git-dir="$trees" rev-parse refs/heads/kcarry-base) ||
		die "no kcarry-base in $trees"
	if [ "$(git --git-dir="$dir" rev-parse -q --verify refs/heads/base 2>/dev/null)" != "$want" ]; then
		note "copying the $pkg=$ver tree out of kcarry's cache (once)"
		rm -rf "$dir"
		git init -q --bare "$dir"
		git --git-dir="$dir" fetch -q --no-tags "$trees" \
			refs/heads/kcarry-base:refs/heads/base || die "cannot fetch from $trees"
	fi
	echo "$dir"
}

# scratch_repo DIR UPSTREAM: an empty bare repository at DIR borrowing
# UPSTREAM's objects (writes stay in DIR).
scratch_repo() {
	git init -q --bare "$1"
	echo "$2/objects" >"$1/objects/info/alternates"
}

# The entries of a quilt series file (comments and blank lines dropped,
# options after the name dropped).
series_entries() {
	sed -e 's/#.*//' -e 's/^[[:space:]]*//' -e 's/[[:space:]].*//' "$1" |
		grep -v '^$' || true
}

# A fresh workspace whose targets 6.1 and 6.12 are Debian's pristine trees.
# make_workspace DIR
make_workspace() {
	local ws=$1 k
	kcarry_setup
	k=$KCARRY_BIN
	rm -rf "$ws"
	mkdir -p "$(dirname "$ws")"
	"$k" init "$ws" >/dev/null || die "kcarry init $ws failed"
	printf '[kernel]\n\tname = 6.1\n\ttarball = apt:%s=%s\n' "$P61" "$V61" \
		>"$ws/kernels/6.1.conf"
	printf '[kernel]\n\tname = 6.12\n\ttarball = apt:%s=%s\n' "$P612" "$V612" \
		>"$ws/kernels/6.12.conf"
}

# prepare_data WS: a workspace with Debian's series imported (names below)
# and both trees ready in kcarry's cache (downloaded and imported once).
#   bench-deb61@V61 bench-deb61-rt@V61 bench-deb612@V612 bench-deb612-rt@V612
# (bench-* names keep the branches apart from other users of the cache.)
prepare_data() {
	local ws=$1 which=${2:-all} k t trees
	kcarry_setup
	k=$KCARRY_BIN
	ensure_deb_src "$P61" "$V61"
	[ "$which" = 6.1 ] || ensure_deb_src "$P612" "$V612"
	make_workspace "$ws"
	"$k" -C "$ws" import "bench-deb61@$V61" "apt:$P61=$V61" >/dev/null &&
		"$k" -C "$ws" import "bench-deb61-rt@$V61" "apt:$P61=$V61/patches-rt" >/dev/null ||
		die "kcarry import apt:$P61=$V61 failed"
	trees=$(tree_repo "$P61" "$V61")
	if [ "$which" = 6.1 ]; then
		rm "$ws/kernels/6.12.conf"
	else
		"$k" -C "$ws" import "bench-deb612@$V612" "apt:$P612=$V612" >/dev/null &&
			"$k" -C "$ws" import "bench-deb612-rt@$V612" "apt:$P612=$V612/patches-rt" >/dev/null ||
			die "kcarry import apt:$P612=$V612 failed"
		trees="$trees $(tree_repo "$P612" "$V612")"
	fi
	"$k" -C "$ws" kernels --prepare >/dev/null || die "kcarry kernels --prepare failed"
	for t in $trees; do
		git --git-dir="$t" rev-parse -q --verify refs/heads/kcarry-base >/dev/null ||
			die "no kcarry-base in $t"
	done
}

# Paths a patch touches (GNU patch -p1 view): one per line, unique.
# Reads unified diffs (quilt or git style, renames included) and skips
# hunk bodies by counting their lines.
patch_paths() {
	awk '
	function strip(p) {
		sub(/\t.*/, "", p); sub(/[ ]+$/, "", p)
		if (p == "/dev/null") return ""
		sub(/^[^\/]*\//, "", p)
		return p
	}
	function add(p) { if (p != "" && !(p in seen)) { seen[p] = 1; print p } }
	inhunk {
		c = substr($0, 1, 1)
		if (c == "\\") next
		if (c == "-") o--
		else if (c == "+") n--
		else { o--; n-- }
		if (o <= 0 && n <= 0) inhunk = 0
		next
	}
	/^--- / { minus = substr($0, 5); next_is_plus = NR + 1; next }
	/^\+\+\+ / && NR == next_is_plus { add(strip(minus)); add(strip(substr($0, 5))); next }
	/^@@ -[0-9]/ {
		h = $0
		sub(/^@@ -/, "", h)
		split(h, parts, " ")
		o = parts[1]; n = parts[2]; sub(/^\+/, "", n)
		o = (index(o, ",") ? substr(o, index(o, ",") + 1) : 1) + 0
		n = (index(n, ",") ? substr(n, index(n, ",") + 1) : 1) + 0
		inhunk = (o > 0 || n > 0)
		next
	}
	/^diff --git a\// { split($0, w, " "); add(substr(w[3], 3)); add(substr(w[4], 3)); next }
	/^rename (from|to) / || /^copy to / { p = $0; sub(/^[a-z]+ [a-z]+ /, "", p); add(p); next }
	' "$1"
}

# Normal forms of a patch's diff for classing pairs of patches.
#   patch_norm full FILE   file names, hunk bodies (context, -, +)
#   patch_norm change FILE file names and the -/+ lines only
# Index lines, hunk line numbers and function headings, and the
# message, are left out.
patch_norm() {
	awk -v mode="$1" '
	function strip(p) {
		sub(/\t.*/, "", p); sub(/[ ]+$/, "", p)
		if (p == "/dev/null") return ""
		sub(/^[^\/]*\//, "", p)
		return p
	}
	inhunk {
		c = substr($0, 1, 1)
		if (c == "\\") { print; next }
		if (c == "-") o--
		else if (c == "+") n--
		else { o--; n--; if (mode == "change") { if (o <= 0 && n <= 0) inhunk = 0; next } }
		print
		if (o <= 0 && n <= 0) inhunk = 0
		next
	}
	/^--- / { minus = substr($0, 5); next_is_plus = NR + 1; next }
	/^\+\+\+ / && NR == next_is_plus {
		p = strip(substr($0, 5)); if (p == "") p = strip(minus)
		print "F " p; next
	}
	/^@@ -[0-9]/ {
		h = $0
		sub(/^@@ -/, "", h)
		split(h, parts, " ")
		o = parts[1]; n = parts[2]; sub(/^\+/, "", n)
		o = (index(o, ",") ? substr(o, index(o, ",") + 1) : 1) + 0
		n = (index(n, ",") ? substr(n, index(n, ",") + 1) : 1) + 0
		inhunk = (o > 0 || n > 0)
		if (mode == "full") print "@@"
		next
	}
	/^rename (from|to) / || /^(new|deleted) file mode / { print; next }
	' "$2"
}

# pair_class A B -> the class of a pair of versions of one patch:
#   identical  the two files are the same, byte for byte
#   same-diff  the same diff (file names, context, -/+ lines); only the
#              message, index lines or hunk line numbers differ
#   context    the same -/+ lines; the context around them differs
#   changed    the maintainers changed what the patch does
pair_class() {
	if cmp -s "$1" "$2"; then
		echo identical
	elif cmp -s <(patch_norm full "$1") <(patch_norm full "$2"); then
		echo same-diff
	elif cmp -s <(patch_norm change "$1") <(patch_norm change "$2"); then
		echo context
	else
		echo changed
	fi
}
