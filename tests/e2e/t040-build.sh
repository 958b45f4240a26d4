#!/bin/sh
# kcarry build on a Kbuild-shaped fixture project (tests/fixtures/build/
# proj: out-of-tree O=, CC, -k, "CC x.o" lines, header dependencies).
# A three-patch series: 0001 changes btrfs_init_work and converts
# disk-io.c (scrub.c stays unconverted; ordered.c uses the field 0001
# removes), 0002 adds an error in its second hunk of inode.c, whose
# first hunk moves a pre-existing warning, 0003 is harmless.  Each new
# error is pinned on the right patch or finding, the pre-existing warning
# on no one; --each names the first breaking patch; unchanged files keep
# their mtimes; the target repository and the workspace stay untouched.
here=$(pwd)
. ./lib.sh
need gcc
need make
. "$here/build-lib.sh"
build_fixture

# the arguments are checked before anything is carried or built: two
# series, no target, an unknown name all exit 2 with no build folder in
# the cache and no branch
printf '[kernel]\n\turl = %s/tgt2\n\tref = base\n' "$TEST_TMP" >ws/kernels/early.conf
expect_exit 0 kcarry -C ws import wq2 --git up base..HEAD~1
expect_exit 2 kcarry -C ws build wq wq2 early
expect_stderr <<'EOT'
error: name one series to build, not 2 (wq, wq2)
hint: one 'kcarry build' per series, or 'kcarry check --build' for a matrix
EOT
expect_exit 2 kcarry -C ws build wq wq2
stderr_has '^error: name one series to build, not 2 \(wq, wq2\)$'
expect_exit 2 kcarry -C ws build wq@v1 wq
stderr_has '^error: name one series to build, not 2 \(wq@v1, wq\)$'
expect_exit 2 kcarry -C ws build wq nosuch early
stderr_has "^error: 'nosuch' names neither a series nor a target$"
expect_exit 2 kcarry -C ws build early tgt2
stderr_has '^error: name the series to build$'
[ ! -e "$KCARRY_CACHE/build" ] || fail "a build folder before the arguments were checked"
[ -z "$(git -C tgt2 for-each-ref refs/heads/kcarry/)" ] || fail "carried before the arguments were checked"
rm -r ws/kernels/early.conf ws/patches/wq2 ws/series/wq2.conf

# build is a writer: it waits for the workspace lock, saying so
( flock 9; sleep 1 ) 9>ws/.kcarry/lock &
holder=$!
sleep 0.3
expect_exit 2 kcarry -C ws build wq tgt nosuch
stderr_has "^waiting for another kcarry writing this workspace$"
wait $holder

# --help says what -j is, what no build.config means, what new warnings
# and errors exit with, and where the profiles are documented (the man
# page, which has their table)
expect_exit 0 kcarry build --help
stdout_has "^  --jobs, -j N  *targets built at once"
stdout_has "^  *make's own -j is build\.jobs$"
tr '\n' ' ' <"$OUT" >help.txt
grep -q "(new warnings alone exit 0: W in check's build row); 1 new errors" help.txt ||
	fail "build --help: what new warnings and errors exit with"
grep -q "nothing configures the O= folder" help.txt ||
	fail "build --help: what no build.config does"
stdout_has 'COMPATIBILITY PROFILES in kcarry\(1\)'
grep -q '^\.SH "COMPATIBILITY PROFILES"$' "$KCARRY_FIXTURES/../../docs/kcarry.1" ||
	fail "the man page has no COMPATIBILITY PROFILES section"
grep -q 'linux\\-3\\-gcc6' "$KCARRY_FIXTURES/../../docs/kcarry.1" ||
	fail "the man page lacks the linux-3-gcc6 profile"

# nothing outside the cache may change: the target repo, its checkout,
# the workspace
snapshot() {
	(cd tgt && git status --porcelain && git for-each-ref --format='%(refname) %(objectname)' | grep -v refs/heads/kcarry/ &&
		find . -path ./.git -prune -o -type f -newer "$TEST_TMP/.mark" -print)
	(cd ws && find . -newer "$TEST_TMP/.mark" -print | grep -v '^\.$' | grep -v '^\./\.kcarry/lock$')
}
touch "$TEST_TMP/.mark"
sleep 1
snapshot >before

expect_exit 1 kcarry -C ws build wq tgt
expect_stdout <<'EOT'
  build, wq@v1 on tgt: build: 3 errors (base: 0 errors, 1 warning, not blamed)
    fs/btrfs/inode.c:31: error: 'undefined_counter' undeclared (first use in this function)  <- 0002 (hunk 2)
    fs/btrfs/ordered.c:8: error: 'struct btrfs_work' has no member named 'ordered_free'; did you mean 'ordered_func'?  <- 0001 | 'ordered_free' removed or renamed by 0001
    fs/btrfs/scrub.c:11: error: too many arguments to function 'btrfs_init_work'  <- 0001 | unconverted caller of btrfs_init_work changed by 0001
EOT
snapshot >after
diff -u before after || fail "the target repository or the workspace changed"
git -C tgt rev-parse -q --verify refs/heads/kcarry/wq/v1/tgt >/dev/null ||
	fail "no result branch"
# the configuration was applied in order to the O= folder
out=$(ls -d "$KCARRY_CACHE"/build/tgt/out-*)
grep -qx CONFIG_BTRFS_FS=m "$out/.config" || fail "defconfig not run"
grep -qx CONFIG_EXTRA=y "$out/.config" || fail "CONFIG_EXTRA not set"
cp "$OUT" first.txt

# the same again: the base comes from the cache, no file is rewritten,
# the report is the same
src="$KCARRY_CACHE/build/tgt/src"
find "$src" -type f -printf '%P %T@\n' | sort >mtimes.1
find "$out" -name '*.o' -printf '%P %T@\n' | sort >objs.1
expect_exit 1 kcarry -C ws build wq tgt
diff -u first.txt "$OUT" || fail "a second build reports otherwise"
find "$src" -type f -printf '%P %T@\n' | sort >mtimes.2
diff -u mtimes.1 mtimes.2 || fail "a build with nothing changed rewrote files"

# v2: only 0003 differs; the sync rewrites ctree.c alone, with a newer
# mtime, and make rebuilds ctree.o alone
sed -i 's/return n >= 2/return n >= 3/' up/fs/btrfs/ctree.c
git -C up commit -q --amend -am "btrfs: tidy ctree_depth" || fail amend
expect_exit 0 kcarry -C ws import wq@v2 --git up base..HEAD
sleep 1
expect_exit 1 kcarry -C ws build wq@v2 tgt
find "$src" -type f -printf '%P %T@\n' | sort >mtimes.3
diff mtimes.2 mtimes.3 | grep '^>' | cut -d' ' -f2 >rewritten
[ "$(cat rewritten)" = "fs/btrfs/ctree.c" ] || { cat rewritten; fail "files other than ctree.c were rewritten"; }
old=$(grep '^fs/btrfs/ctree.c ' mtimes.2 | cut -d' ' -f2)
new=$(grep '^fs/btrfs/ctree.c ' mtimes.3 | cut -d' ' -f2)
python3 -c "import sys; sys.exit(0 if float('$new') > float('$old') else 1)" ||
	fail "ctree.c got an older mtime"
find "$out" -name '*.o' -printf '%P %T@\n' | sort >objs.3
diff objs.1 objs.3 | grep '^>' | cut -d' ' -f2 >rebuilt
[ "$(cat rebuilt)" = "fs/btrfs/ctree.o" ] || { cat rebuilt; fail "objects other than ctree.o were rebuilt"; }


# --each on tgt2 (no scrub.c, no ordered.c): 0001 builds, 0002 breaks,
# 0003 only inherits the break
expect_exit 1 kcarry -C ws build --each wq@v1 tgt2
expect_stdout <<'EOT'
  build, wq@v1 on tgt2: build: 1 error, first broken by 0002 (base: 0 errors, 1 warning, not blamed)
    fs/btrfs/inode.c:31: error: 'undefined_counter' undeclared (first use in this function)  <- 0002 (hunk 2)
    after 0002: 1 error, 0 new warnings  <- first breaking patch
    after 0003: 1 error, 0 new warnings (inherited)
EOT

# a series that builds: exit 0
git clone -q tgt2 up2 || fail clone2
sed -i 's/return n > 1/return n > 2/' up2/fs/btrfs/ctree.c
git -C up2 commit -qam "btrfs: deeper trees" || fail c4
expect_exit 0 kcarry -C ws import fine --git up2 base..HEAD
expect_exit 0 kcarry -C ws build fine tgt2
expect_stdout <<'EOT'
  build, fine@v1 on tgt2: builds (base: 0 errors, 1 warning, not blamed)
EOT

# a series that stacks on another is built on top of it; the other is
# carried, not built, and not in the report
sed -i 's/return n > 2/return n > 3/' up2/fs/btrfs/ctree.c
git -C up2 commit -qam "btrfs: deeper still" || fail c5
expect_exit 0 kcarry -C ws import ontop --git up2 HEAD~1..HEAD
git config -f ws/series/ontop.conf series.stacks-on fine
expect_exit 0 kcarry -C ws build ontop tgt2
expect_stdout <<'EOT'
  build, ontop@v1 on tgt2: builds (base: 0 errors, 1 warning, not blamed)
EOT
[ "$(git -C tgt2 rev-parse kcarry/ontop/v1/tgt2~1)" = "$(git -C tgt2 rev-parse kcarry/fine/v1/tgt2)" ] ||
	fail "ontop is not built on top of fine"
expect_exit 0 kcarry -C ws build --json ontop tgt2
python3 - "$OUT" <<'PY' || fail "stacked JSON"
import json, sys
doc = json.load(open(sys.argv[1]))
assert [s["name"] for s in doc["series"]] == ["ontop"], doc["series"]
assert [(b["series"], b["target"]) for b in doc["builds"]] == [("ontop", "tgt2")]
PY

# JSON (kcarry-build/1), validated against the documented schema
expect_exit 1 kcarry -C ws build --json wq tgt
python3 - "$OUT" "$KCARRY_FIXTURES/../../docs/kcarry-build.schema.json" <<'PY' || fail "JSON"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["schema"] == "kcarry-build/1"
b = doc["builds"][0]["build"]
assert b["status"] == "errors" and b["errors"] == 3 and b["warnings"] == 0
causes = [(d["path"], d["cause"], d["patch"], d["hunk"], d["symbol"]) for d in b["diagnostics"]]
assert causes == [("fs/btrfs/inode.c", "patch", 2, 2, None),
                  ("fs/btrfs/ordered.c", "removed", 1, None, "ordered_free"),
                  ("fs/btrfs/scrub.c", "caller", 1, None, "btrfs_init_work")], causes
try:
    import jsonschema
except ImportError:
    sys.exit(0)
jsonschema.validate(doc, json.load(open(sys.argv[2])))
PY

# check --build: the build row and line in the matrix and the summary
expect_exit 1 kcarry -C ws check --build wq tgt tgt2
stdout_has '^build +E +E *$'
# the name check (lexer) and the build agree on undefined_counter
stdout_has '^  wq@v2 on tgt: 3 clean, 1 placement risk, 1 unconverted caller, build: 3 errors$'
stdout_has '^build: 2 of 2 built cells failed, 4 new errors, 0 new warnings \(2 in the base builds, not blamed\)$'

# every report format carries the build: JSON against the check schema,
# JUnit against a JUnit schema with the compiler output in the failure,
# Markdown, and the FAILED mail to the author of the patch it is pinned on
expect_exit 1 kcarry -C ws check --build --reports rep wq@v1 tgt
python3 - rep/check.json "$KCARRY_FIXTURES/../../docs/kcarry-check.schema.json" <<'PY' || fail "check JSON"
import json, sys
doc = json.load(open(sys.argv[1]))
b = doc["cells"][0]["build"]
assert doc["built"] is True and b["status"] == "errors" and b["errors"] == 3, b
assert [d["blame"] for d in b["diagnostics"]] == [
    "<- 0002 (hunk 2)",
    "<- 0001 | 'ordered_free' removed or renamed by 0001",
    "<- 0001 | unconverted caller of btrfs_init_work changed by 0001"]
try:
    import jsonschema
except ImportError:
    sys.exit(0)
jsonschema.validate(doc, json.load(open(sys.argv[2])))
PY
if command -v xmllint >/dev/null 2>&1; then
	xmllint --noout --schema "$KCARRY_FIXTURES/report_ci/junit.xsd" rep/check.xml 2>"$TEST_TMP/xl" ||
		{ cat "$TEST_TMP/xl"; fail "JUnit does not validate"; }
fi
grep -q '<testcase classname="wq.v1.tgt" name="build" time="0">' rep/check.xml || fail "no build testcase"
grep -q '<failure message="build: 3 errors" type="build">' rep/check.xml || fail "no build failure"
grep -q "scrub.c:11:[0-9]*: error: too many arguments" rep/check.xml || fail "no compiler output in JUnit"
grep -q '^| build | \*\*build: 3 errors\*\* |$' rep/check.md || { cat rep/check.md; fail "no build row in Markdown"; }
grep -q '^Subject: FAILED: patch "btrfs: drop ordered_free from btrfs_init_work" failed to build on tgt tree$' rep/check.mbox ||
	{ cat rep/check.mbox; fail "no FAILED build mail"; }
grep -q '^To: A U Thor <author@example.org>$' rep/check.mbox || fail "the mail is not to the author"
grep -q "^  fs/btrfs/scrub.c:11: error: too many arguments to function 'btrfs_init_work'  <- 0001 | unconverted caller" rep/check.mbox ||
	fail "the mail lacks the pinned diagnostics"

# a compiler wrapper (as distcc or icecc are) through build.cc: every
# compile goes through it
mkdir -p bin
printf '#!/bin/sh\necho "$*" >>"%s/wrapper.log"\nexec "$@"\n' "$TEST_TMP" >bin/fakedistcc
chmod +x bin/fakedistcc
printf '[kernel]\n\turl = %s/tgt2\n\tref = base\n[build]\n\tcc = %s/bin/fakedistcc gcc\n\tjobs = 4\n' \
	"$TEST_TMP" "$TEST_TMP" >ws/kernels/farm.conf
expect_exit 0 kcarry -C ws build fine farm
grep -q -- '-c .*fs/btrfs/ctree.c' wrapper.log || fail "the wrapper did not compile ctree.c"
[ "$(grep -c -- ' -c ' wrapper.log)" -ge 5 ] || fail "not every compile went through the wrapper"

# clang's words, the same attribution; and --full runs build.command
if command -v clang >/dev/null; then
	printf '[kernel]\n\turl = %s/tgt2\n\tref = base\n[build]\n\tcc = clang\n' "$TEST_TMP" >ws/kernels/llvm.conf
	expect_exit 1 kcarry -C ws build wq@v1 llvm
	stdout_has "^    fs/btrfs/inode.c:31: error: use of undeclared identifier 'undefined_counter'  <- 0002 \\(hunk 2\\)$"
	[ "$(grep -c ': error: ' "$OUT")" = 1 ] || fail "clang: other errors"
fi
printf '[kernel]\n\turl = %s/tgt2\n\tref = base\n[build]\n\tcommand = make all\n' "$TEST_TMP" >ws/kernels/whole.conf
expect_exit 1 kcarry -C ws build --full wq@v1 whole
stdout_has "^    fs/btrfs/inode.c:31: error: 'undefined_counter' undeclared \\(first use in this function\\)  <- 0002 \\(hunk 2\\)$"
[ -f "$KCARRY_CACHE"/build/whole/out-*/lib/util.o ] || fail "--full did not build lib/"

# build.targets overrides the default targets; file: takes a config
# from the workspace when the tree has none at that path
mkdir -p ws/configs
printf 'CONFIG_FROM_FILE=y\n' >ws/configs/fixture.config
printf '[kernel]\n\turl = %s/tgt2\n\tref = base\n[build]\n\tconfig = file:configs/fixture.config\n\tconfig = CONFIG_EXTRA=n\n\ttargets = lib/\n' \
	"$TEST_TMP" >ws/kernels/libonly.conf
expect_exit 0 kcarry -C ws build fine libonly
lo=$(ls -d "$KCARRY_CACHE"/build/libonly/out-*)
[ -f "$lo/lib/util.o" ] || fail "build.targets: lib/util.o not built"
[ ! -d "$lo/fs" ] || fail "build.targets: fs/ built anyway"
grep -qx CONFIG_FROM_FILE=y "$lo/.config" || fail "file: config not used"
grep -qx '# CONFIG_EXTRA is not set' "$lo/.config" || fail "CONFIG_EXTRA=n not written"
rm -r ws/kernels/libonly.conf ws/configs

# a tree that says it is Linux 3.10 gets the compatibility profile with
# today's gcc (CC with -fno-pie, the compiler-gccN.h shim in O=);
# build.profile = none turns it off
cp -r tgt2 old310 && {
	printf 'VERSION = 3\nPATCHLEVEL = 10\nHOSTCFLAGS = -O2\n' | cat - tgt2/Makefile >old310/Makefile
	printf '#define __gcc_header(x) #x\n#define _gcc_header(x) __gcc_header(linux/compiler-gcc##x.h)\n#include _gcc_header(__GNUC__)\n' >old310/include/linux/compiler-gcc.h
	printf '/* gcc 5 */\n' >old310/include/linux/compiler-gcc5.h
	git -C old310 add -A && git -C old310 commit -qm "3.10" && git -C old310 tag -f base >/dev/null
} || fail old310
gccmajor=$(gcc -dumpversion | cut -d. -f1)
for p in auto none; do
	printf '[kernel]\n\turl = %s/old310\n\tref = base\n[build]\n\tprofile = %s\n' "$TEST_TMP" "$p" >"ws/kernels/old-$p.conf"
	expect_exit 0 kcarry -C ws build --json fine "old-$p"
	cp "$OUT" "old-$p.json"
done
if [ "$gccmajor" -ge 6 ]; then
	python3 - old-auto.json old-none.json <<'PY' || fail "profile"
import json, sys
a = json.load(open(sys.argv[1]))["builds"][0]["build"]
n = json.load(open(sys.argv[2]))["builds"][0]["build"]
assert (a["profile"], a["cc"]) == ("linux-3-gcc6", "gcc -fno-pie"), a
assert (n["profile"], n["cc"]) == (None, "gcc"), n
PY
	grep -q '^#include <linux/compiler-gcc5.h>$' "$KCARRY_CACHE"/build/old-auto/out-*/include/linux/compiler-gcc"$gccmajor".h ||
		fail "no compiler-gcc$gccmajor.h shim in O="
	[ ! -e "$(ls -d "$KCARRY_CACHE"/build/old-none/out-*)/include/linux/compiler-gcc$gccmajor.h" ] ||
		fail "a shim with build.profile = none"
	[ ! -e old310/include/linux/compiler-gcc"$gccmajor".h ] || fail "the shim went into the tree"
fi
rm ws/kernels/old-auto.conf ws/kernels/old-none.conf

# a tree make cannot build at all (no Makefile) never "builds"
cp -r tgt2 nomake && rm nomake/Makefile && git -C nomake commit -qam "no Makefile" &&
	git -C nomake tag -f base >/dev/null || fail nomake
printf '[kernel]\n\turl = %s/nomake\n\tref = base\n' "$TEST_TMP" >ws/kernels/nomake.conf
expect_exit 1 kcarry -C ws build fine nomake
stdout_has '^  build, fine@v1 on nomake: did not run: make built no object of fs/btrfs/ in the base tree \(is it configured\? see build.config and build.targets\)$'
expect_exit 1 kcarry -C ws check --build fine nomake
stdout_has '^build +\? *$'
rm ws/kernels/nomake.conf

# build.targets naming folders the tree does not have: said by name
printf '[kernel]\n\turl = %s/tgt2\n\tref = base\n[build]\n\ttargets = drivers/nowhere/\n\ttargets = fs/nofs/\n' \
	"$TEST_TMP" >ws/kernels/notargets.conf
expect_exit 1 kcarry -C ws build fine notargets
stdout_has '^  build, fine@v1 on notargets: did not run: the base tree has none of the build targets: drivers/nowhere/, fs/nofs/ \(see build.targets\)$'
rm ws/kernels/notargets.conf
# make failing for no object's sake (here an option it does not know,
# through build.make-flags) is no build either
printf '[kernel]\n\turl = %s/tgt2\n\tref = base\n[build]\n\tmake-flags = --no-such-option\n' "$TEST_TMP" >ws/kernels/badmake.conf
expect_exit 1 kcarry -C ws build fine badmake
stdout_has '^  build, fine@v1 on badmake: did not run: make \(base\) failed:$'
stdout_has "unrecognized option '--no-such-option'"
rm ws/kernels/badmake.conf

# bad settings are refused with the file named
printf '[kernel]\n\turl = %s/tgt2\n\tref = base\n[build]\n\tprofile = maybe\n' "$TEST_TMP" >ws/kernels/bad.conf
expect_exit 2 kcarry -C ws build wq bad
stdout_has "^build, wq@v2 on bad: not carried: .*/kernels/bad.conf: build.profile: 'maybe' \\(auto or none\\)$"
rm ws/kernels/bad.conf

# ccache without CCACHE_DIR: the cache's own ccache folder, which gc keeps
if command -v ccache >/dev/null; then
	printf '[kernel]\n\turl = %s/tgt2\n\tref = base\n[build]\n\tcc = ccache gcc\n' "$TEST_TMP" >ws/kernels/cached.conf
	(unset CCACHE_DIR; "$KCARRY" -C ws build fine cached >/dev/null) || fail "build through ccache"
	[ -d "$KCARRY_CACHE/ccache" ] || fail "no ccache folder in the cache"
	[ ! -e "$KCARRY_CACHE/build/ccache" ] || fail "ccache among the build folders"
fi

# -v with stderr not a terminal: one line per phase, stdout as without
printf '[kernel]\n\turl = %s/tgt2\n\tref = base\n' "$TEST_TMP" >ws/kernels/logged.conf
expect_exit 1 kcarry -C ws build wq@v1 logged
cp "$OUT" quiet.out
[ ! -s "$ERR" ] || { cat "$ERR"; fail "build printed on stderr without -v"; }
rm -r "$KCARRY_CACHE/build/logged"
expect_exit 1 kcarry -v -C ws build wq@v1 logged
# (the report's own -v line, the times, aside)
grep -v '^    times: ' "$OUT" | diff -u quiet.out - || fail "-v changed stdout"
sed 's/ in [0-9]* s/ in N s/' "$ERR" >phases
cat >want <<'EOT'
build logged: sync: 8 files written in N s
build logged: base: make fs/btrfs/ (4 objects)
build logged: base: done in N s, 0 errors, 1 warning
build logged: sync: 5 files written in N s
build logged: series: make fs/btrfs/ (4 objects)
build logged: series: done in N s, 1 error, 1 warning
EOT
diff -u want phases || fail "-v phase lines"
expect_exit 1 kcarry -v -C ws build wq@v1 logged
stderr_has '^build logged: base: from the cache, 0 errors, 1 warning$'
rm ws/kernels/logged.conf

# gc: a name that matches nothing is an error that says what gc can
# free; --dry-run lists what it would free and frees nothing
expect_exit 2 kcarry -C ws gc nosuch
stderr_has "^error: no target 'nosuch' has a build folder in '$KCARRY_CACHE/build'$"
stderr_has '^hint: gc can free the build folders of [a-z0-9, -]*tgt2[a-z0-9, -]*; without names also the identifier cache$'
[ -d "$KCARRY_CACHE/build/tgt" ] || fail "gc with an unknown name freed something"
# a target of the workspace that has no build folder has nothing to free
printf '[kernel]\n\turl = %s/tgt2\n\tref = base\n' "$TEST_TMP" >ws/kernels/unbuilt.conf
expect_exit 0 kcarry -C ws gc unbuilt
expect_stdout <<'EOT'
nothing to free
EOT
rm ws/kernels/unbuilt.conf
[ -d "$KCARRY_CACHE/ident" ] || fail "no identifier cache to free"
expect_exit 0 kcarry -C ws gc --dry-run
stdout_has "^would free +[0-9]+\.[0-9] MB  $KCARRY_CACHE/build/tgt$"
stdout_has "^would free +[0-9]+\.[0-9] MB  $KCARRY_CACHE/ident$"
stdout_has "^would free +[0-9]+\.[0-9] MB in all$"
[ -d "$KCARRY_CACHE/build/tgt" ] && [ -d "$KCARRY_CACHE/ident" ] ||
	fail "gc --dry-run freed"
expect_exit 0 kcarry -C ws gc --dry-run tgt2
stdout_has "^would free +[0-9]+\.[0-9] MB  $KCARRY_CACHE/build/tgt2$"
grep -q ident "$OUT" && fail "gc TARGET would free the identifier cache"
expect_exit 0 kcarry -C ws gc tgt2
stdout_has "^freed +[0-9]+\.[0-9] MB  $KCARRY_CACHE/build/tgt2$"
[ ! -d "$KCARRY_CACHE/build/tgt2" ] || fail "gc tgt2 left its folder"
[ -d "$KCARRY_CACHE/build/tgt" ] || fail "gc tgt2 freed tgt"

# gc frees the build folders and the identifier cache
expect_exit 0 kcarry -C ws gc
[ ! -d "$KCARRY_CACHE/build/tgt" ] || fail "gc left the build folder"
[ ! -d "$KCARRY_CACHE/ident" ] || fail "gc left the identifier cache"
if command -v ccache >/dev/null; then
	[ -d "$KCARRY_CACHE/ccache" ] || fail "gc removed the compiler cache"
fi
