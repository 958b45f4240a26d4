#!/bin/sh
# Exports --into the same package from several workspaces at once: each
# run, every series' block is in debian/patches/series and every patch
# it names exists (the --into folder is locked for the export).  Each
# workspace has a target repository of its own, as two checkouts would.
# KCARRY_EXPORT_RUNS rounds (default 15) of four exports at once.
. ./export-lib.sh
. ./lib.sh

export_setup
pkg=pkg
mkdir -p $pkg/debian/patches $pkg/debian/source
echo '3.0 (quilt)' >$pkg/debian/source/format
printf 'debian/own.patch\n' >$pkg/debian/patches/series
cp $pkg/debian/patches/series series.before
names="a b c d"
for n in $names; do
	kcarry init w$n >/dev/null
	# a target repository each: no repository lock in common
	git clone -q --mirror tgt tgt$n || fail "clone"
	sed "s|/tgt\$|/tgt$n|" ws/kernels/6.1.conf >w$n/kernels/6.1.conf
	expect_exit 0 kcarry -C w$n import s$n --git up base..HEAD~2
	expect_exit 0 kcarry -C w$n apply s$n 6.1
done

runs=${KCARRY_EXPORT_RUNS:-15}
r=1
while [ $r -le $runs ]; do
	cp series.before $pkg/debian/patches/series
	rm -rf $pkg/debian/patches/kcarry
	pids=
	for n in $names; do
		kcarry -C w$n export s$n 6.1 --format debian --into $pkg \
			>out.$n 2>&1 &
		pids="$pids $!"
	done
	for p in $pids; do
		wait $p || { cat out.*; fail "round $r: an export failed"; }
	done
	for n in $names; do
		[ "$(grep -c "^# kcarry export begin: s$n\$" $pkg/debian/patches/series)" = 1 ] ||
			{ cat $pkg/debian/patches/series; fail "round $r: block s$n lost"; }
	done
	grep -v '^#' $pkg/debian/patches/series | while read -r f; do
		[ "$f" = debian/own.patch ] || [ -f "$pkg/debian/patches/$f" ] ||
			fail "round $r: $f is missing"
	done || exit 1
	r=$((r + 1))
done
exit 0
