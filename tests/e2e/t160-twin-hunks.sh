#!/bin/sh
# A reading of a hunk where another hunk of the same patch lands is that
# hunk's place, not a second reading (docs/apply-rules.md, "Placement
# risk"): RT's 5.10 tracing patch changes the same lines in
# __kprobe_trace_func() and __kretprobe_trace_func(); on a tree where the
# first hunk's stated line is nearer the second function, kcarry used to
# say "a nearer match is in __kretprobe_trace_func()" and exit 1 on a
# result that is right.  Checked: exit 0, no risk, each function changed
# once; GNU patch, which takes the nearer match, changes the second
# function for the first hunk (the reason kcarry looks in the named one).
# The same hunk alone still says the nearer match, exit 1.
. ./lib.sh

need patch

body() {
	printf '{\n\tint %s;\n\n\tif (disabled(tk))\n\t\treturn;\n\n' "$1"
	printf '\tsave_flags(buf.flags);\n\tbuf.pc = count();\n\tbuf.file = file;\n\n'
	printf '\tsize = data_size(tk);\n}\n'
}
{
	printf '#include <t.h>\n\nstatic void kprobe_func(struct tk *tk)\n'
	body a
	printf '\nstatic void kretprobe_func(struct tk *tk)\n'
	body b
} >probe.c
make_repo probe kernel/trace/probe.c "$(cat probe.c)
"
ws_targets probe

hunk() {
	printf '@@ -%s,8 +%s,7 @@ static void %s(struct tk *tk)\n' "$1" "$2" "$3"
	printf ' \tif (disabled(tk))\n \t\treturn;\n \n'
	printf -- '-\tsave_flags(buf.flags);\n-\tbuf.pc = count();\n+\tbuf.ctx = gen_ctx();\n'
	printf ' \tbuf.file = file;\n \n \tsize = data_size(tk);\n'
}
series() {
	mkdir -p "q-$1"
	{
		printf -- '--- a/kernel/trace/probe.c\n+++ b/kernel/trace/probe.c\n'
		hunk 20 20 kprobe_func
		[ "$1" = one ] || hunk 34 33 kretprobe_func
	} >"q-$1/$1.patch"
	echo "$1.patch" >"q-$1/series"
	expect_exit 0 kcarry -C ws import "$1@v1" "q-$1"
}
series twins
series one

expect_exit 0 kcarry -C ws apply twins@v1 probe
stdout_has 'offset'
if grep -qi 'risk\|nearer' "$OUT"; then cat "$OUT"; fail "twins: a risk"; fi
git -C probe show kcarry/twins/v1/probe:kernel/trace/probe.c >got.c ||
	fail "no result commit"
sed -e '/^\tsave_flags(buf.flags);$/d' \
	-e 's/^\tbuf.pc = count();$/\tbuf.ctx = gen_ctx();/' probe.c >want.c
diff -u want.c got.c || fail "twins: each function not changed once"

# GNU patch takes the nearer match for the first hunk: the second function
cp probe.c gnu.c
patch -s -f gnu.c <q-twins/twins.patch >/dev/null 2>&1
sed -n '/kretprobe_func/,$p' gnu.c | grep -q 'gen_ctx' ||
	fail "GNU patch did not take the nearer match (the premise is gone)"

# alone, the nearer match in the other function is still said
expect_exit 1 kcarry -C ws apply one@v1 probe
stdout_has 'a nearer match at line 21 is in kretprobe_func\(\)'
exit 0
