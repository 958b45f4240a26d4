#!/bin/sh
# Compiles through a real compile farm: build.cc = distcc gcc, with a real
# distccd listening on 127.0.0.1.  Every object of the fixture project is
# compiled by the daemon (its log names each one), the diagnostics come
# back through distcc and are pinned as without it, and a farm that
# cannot be reached still builds (distcc falls back to a local compile),
# with the same verdict.
here=$(pwd)
. ./lib.sh
need gcc
need make
command -v distcc >/dev/null && command -v distccd >/dev/null ||
	skip "no distcc (scripts/install-deps installs it)"
. "$here/build-lib.sh"
build_fixture

# a free port on the loopback: distccd refuses nothing but other hosts
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
distccd --daemon --no-detach --listen 127.0.0.1 --port "$port" --allow 127.0.0.1 \
	--jobs 2 --log-level=info --log-stderr 2>"$TEST_TMP/distccd.log" &
dpid=$!
trap 'kill $dpid 2>/dev/null; rm -rf "$TEST_TMP"' EXIT
i=0
until python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null; do
	i=$((i + 1))
	[ "$i" -le 50 ] || fail "distccd did not listen on 127.0.0.1:$port"
	sleep 0.1
done

farm() { # NAME HOSTS
	printf '[kernel]\n\turl = %s/tgt2\n\tref = base\n[build]\n\tcc = distcc gcc\n\tjobs = 4\n' \
		"$TEST_TMP" >"ws/kernels/$1.conf"
}
farm farm
# distcc reads its hosts from the environment, which kcarry passes on;
# --randomize and no localhost: every compile goes to the daemon
export DISTCC_HOSTS="127.0.0.1:$port/4" DISTCC_FALLBACK=0 DISTCC_DIR="$TEST_TMP/.distcc"
mkdir -p "$DISTCC_DIR"

# a series that builds
git clone -q tgt2 up2 || fail clone2
sed -i 's/return n > 1/return n > 2/' up2/fs/btrfs/ctree.c
git -C up2 commit -qam "btrfs: deeper trees" || fail c4
expect_exit 0 kcarry -C ws import fine --git up2 base..HEAD
expect_exit 0 kcarry -C ws build fine farm
stdout_has '^  build, fine@v1 on farm: builds \(base: 0 errors, 1 warning, not blamed\)$'
nsrc=$(cd tgt2 && git ls-files 'fs/btrfs/*.c' | wc -l)
for f in $(cd tgt2 && git ls-files 'fs/btrfs/*.c'); do
	grep -q "$(basename "$f" .c)\\.o\\|$(basename "$f")" distccd.log ||
		{ cat distccd.log; fail "distccd did not compile $f"; }
done
[ "$(grep -c 'COMPILE_OK' distccd.log)" -ge "$nsrc" ] ||
	{ cat distccd.log; fail "fewer than $nsrc compiles done by distccd"; }

# an error comes back through the farm and is pinned on its patch
expect_exit 1 kcarry -C ws build wq@v1 farm
stdout_has "^    fs/btrfs/inode.c:31: error: 'undefined_counter' undeclared \\(first use in this function\\)  <- 0002 \\(hunk 2\\)$"
cp "$OUT" farm.out
grep -q 'COMPILE_ERROR.*inode.c' distccd.log || { cat distccd.log; fail "distccd saw no failing compile"; }

# no farm at all: distcc compiles here, and the verdict is the same
kill $dpid
wait $dpid 2>/dev/null
export DISTCC_HOSTS="127.0.0.1:1" DISTCC_FALLBACK=1
rm -rf "$KCARRY_CACHE"/build/farm
expect_exit 1 kcarry -C ws build wq@v1 farm
diff -u farm.out "$OUT" || fail "the verdict differs without the farm"
exit 0
