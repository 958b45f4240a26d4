#!/bin/sh
# A folder target compiles the folder's objects, built-in or modular, on
# every Kbuild generation (issue 20).  Three throw-away trees whose top
# Makefiles carry the lines that decide what "make fs/foo/" builds, as
# Linux 3.10, 5.10 and 6.1 have them (tests/fixtures/build/kbuild): 3.10's
# %/ rule passes KBUILD_MODULES, 5.10's single-build leaves it unset
# (built-in objects only), 6.1's sets it.  fs/foo is a module
# (CONFIG_FOO_FS=m).  On each tree a patch that breaks fs/foo/foo.c is
# caught and pinned on the patch; kcarry names what it added on 5.10
# (KBUILD_MODULES=1) and adds nothing on the others; a folder whose
# symbol is unset is reported as off, with the symbol and the Makefile
# that gates it.
here=$(pwd)
. ./lib.sh
need gcc
need make
FX=$KCARRY_FIXTURES/build/kbuild
[ -d "$FX" ] || FX=$(cd ../fixtures/build/kbuild && pwd)

kcarry init ws >/dev/null
for v in 3.10 5.10 6.1; do
	t=k$(echo $v | tr -d .)
	mkdir -p $t/scripts $t/fs/foo $t/fs/off $t/fs/bar
	cp "$FX/top-$v.mk" $t/Makefile
	cp "$FX/head.mk" $t/head.mk
	cp "$FX/Makefile.build" $t/scripts/Makefile.build
	printf 'obj-$(CONFIG_FOO_FS) += foo/\nobj-$(CONFIG_OFF_FS) += off/\nobj-y += bar/\n' >$t/fs/Makefile
	printf 'obj-$(CONFIG_FOO_FS) += foo.o\n' >$t/fs/foo/Makefile
	printf 'obj-$(CONFIG_OFF_FS) += off.o\n' >$t/fs/off/Makefile
	printf 'obj-y += bar.o\n' >$t/fs/bar/Makefile
	printf 'int foo(int x)\n{\n\treturn x + 1;\n}\n' >$t/fs/foo/foo.c
	printf 'int off(int x)\n{\n\treturn x + 2;\n}\n' >$t/fs/off/off.c
	printf 'int bar(int x)\n{\n\treturn x + 3;\n}\n' >$t/fs/bar/bar.c
	(cd $t && git init -q && git add -A && git commit -qm base && git tag base) || fail "tree $v"
	printf '[kernel]\n\turl = %s/%s\n\tref = base\n[build]\n\tconfig = defconfig\n\ttargets = fs/foo/\n\tjobs = 1\n' \
		"$TEST_TMP" $t >ws/kernels/$t.conf
	printf '[kernel]\n\turl = %s/%s\n\tref = base\n[build]\n\tconfig = defconfig\n\ttargets = fs/off/\n\tjobs = 1\n' \
		"$TEST_TMP" $t >ws/kernels/$t-off.conf
done
# one series for all three trees: it breaks fs/foo/foo.c
git clone -q k510 up || fail clone
sed -i 's/return x + 1;/return x + undefined_y;/' up/fs/foo/foo.c
git -C up commit -qam "foo: use undefined_y" || fail c1
expect_exit 0 kcarry -C ws import brk --git up base..HEAD

for v in 3.10 5.10 6.1; do
	t=k$(echo $v | tr -d .)
	expect_exit 1 kcarry -C ws build brk $t
	stdout_has "^  build, brk@v1 on $t: build: 1 error"
	stdout_has "^    fs/foo/foo.c:3: error: .*undefined_y.*<- 0001"
	if [ $v = 5.10 ]; then
		stdout_has '^    make: KBUILD_MODULES=1 \(folder targets: single-build leaves KBUILD_MODULES unset: built-in objects only'
	else
		! grep -q 'KBUILD_MODULES=1' "$OUT" || fail "$v: kcarry added KBUILD_MODULES"
	fi
	# the folder that is off: its symbol, its Makefile, its value
	expect_exit 1 kcarry -C ws build brk $t-off
	stdout_has "^  build, brk@v1 on $t-off: did not run: make built no object of fs/off/ in the base tree: fs/Makefile builds fs/off/ under CONFIG_OFF_FS, which .config leaves unset, so the folder is off \\(see build.config\\)$"
done
# the JSON names the rule and what kcarry added
expect_exit 1 kcarry -C ws build --json -o b.json brk k510
python3 - b.json "$KCARRY_FIXTURES/../../docs/kcarry-build.schema.json" <<'EOT' || fail "JSON of the folder rule"
import json, sys
d = json.load(open(sys.argv[1]))
try:
    import jsonschema
    jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).validate(d)
except ImportError:
    pass
b = d["builds"][0]["build"]
assert b["target_var"] == "KBUILD_MODULES=1", b
assert "built-in objects only" in b["kbuild_rule"], b
EOT
exit 0
