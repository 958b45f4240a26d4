#!/bin/sh
# A target whose base tree does not build never "builds": an object that
# fails in the base build and still fails after the series is not the
# series' fault (no patch is blamed), but the result is not known to
# build, so the cell says so and exits 1.  The same when the compiler
# fails without a word (a compile farm that cannot be reached, with
# distcc's fallback off): every object fails in both builds, and the
# verdict is not "builds".  A series that mends the broken object builds.
here=$(pwd)
. ./lib.sh
need gcc
need make
. "$here/build-lib.sh"
build_fixture

# tgt2 with an object that does not compile at base
git clone -q tgt2 broken || fail clone
printf 'int broken(void)\n{\n\treturn missing_symbol;\n}\n' >broken/fs/btrfs/broken.c
git -C broken add -A && git -C broken commit -qm "a broken object" && git -C broken tag -f base >/dev/null ||
	fail "broken base"
printf '[kernel]\n\turl = %s/broken\n\tref = base\n' "$TEST_TMP" >ws/kernels/broken.conf

# a series that leaves broken.c alone and builds everywhere else
git clone -q broken upb || fail clone2
sed -i 's/return n > 1/return n > 2/' upb/fs/btrfs/ctree.c
git -C upb commit -qam "btrfs: deeper trees" || fail c1
expect_exit 0 kcarry -C ws import deeper --git upb base..HEAD
expect_exit 1 kcarry -C ws build deeper broken
stdout_has "^  build, deeper@v1 on broken: does not build: 1 object fails in the base tree too, not the series' fault"
stdout_has '^    fails in the base tree too: fs/btrfs/broken.o$'
! grep -q ' <- 0001' "$OUT" || fail "the broken object is blamed on the series"
expect_exit 1 kcarry -C ws build --json -o b.json deeper broken
python3 - b.json "$KCARRY_FIXTURES/../../docs/kcarry-build.schema.json" <<'EOT' || fail "JSON of the broken base"
import json, sys
d = json.load(open(sys.argv[1]))
try:
    import jsonschema
    jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).validate(d)
except ImportError:
    pass
b = d["builds"][0]["build"]
assert b["status"] == "base-broken", b["status"]
assert b["broken_objects"] == ["fs/btrfs/broken.o"], b["broken_objects"]
assert b["errors"] == 0 and b["failed_objects"] == [], b
assert b["base_errors"] >= 1, b
EOT
# the matrix and the merged report say it too
expect_exit 1 kcarry -C ws check --build --format json -o c.json deeper broken
expect_exit 1 kcarry -C ws report merge c.json
stdout_has '^build +E *$'
stdout_has "does not build: 1 object fails in the base tree too"

# a series that mends it builds
git clone -q broken upm || fail clone3
printf 'int missing_symbol;\n' | cat - upm/fs/btrfs/broken.c >upm/b.c && mv upm/b.c upm/fs/btrfs/broken.c
git -C upm commit -qam "btrfs: define missing_symbol" || fail c2
expect_exit 0 kcarry -C ws import mend --git upm base..HEAD
expect_exit 0 kcarry -C ws build mend broken
stdout_has '^  build, mend@v1 on broken: builds'

# a compiler that fails without a word on every object (a farm that
# cannot be reached and may not fall back): base and result fail alike,
# and that is no "builds"
mkdir -p bin
printf '#!/bin/sh\nexit 1\n' >bin/nocc
chmod +x bin/nocc
printf '[kernel]\n\turl = %s/tgt2\n\tref = base\n[build]\n\tcc = %s/bin/nocc\n' \
	"$TEST_TMP" "$TEST_TMP" >ws/kernels/nocc.conf
git clone -q tgt2 up2 || fail clone4
sed -i 's/return n > 1/return n > 2/' up2/fs/btrfs/ctree.c
git -C up2 commit -qam "btrfs: deeper trees" || fail c3
expect_exit 0 kcarry -C ws import fine --git up2 base..HEAD
"$KCARRY" -C ws build fine nocc >"$OUT" 2>"$ERR"
rc=$?
[ "$rc" -ne 0 ] || { cat "$OUT" "$ERR"; fail "a build where nothing compiles exited 0"; }
! grep -q ': builds' "$OUT" || { cat "$OUT"; fail "a build where nothing compiles says it builds"; }
exit 0
