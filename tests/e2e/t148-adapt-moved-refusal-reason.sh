#!/bin/sh
# Adaptation, rule 1 (moved code): when it declines to move a file patch
# whose file is missing, each hunk's reason says why, in the text output
# and in JSON (t119's cases):
#  - twice: "demo_enable_vblank() is defined in both A and B";
#  - nowhere: "... is defined in no file under drivers/gpu/demo";
#  - drifted: "drifted lines in B", the one file defining it;
#  - hunk 1, whose file was found: "not moved to ...: hunk 2 stays a
#    conflict" (a file patch moves whole or not at all);
#  - whole: every hunk stands exactly in two files: both named.
here=$(pwd)
. ./lib.sh
. "$here/adapt-lib.sh"

split_fixture
split_refusal_repos
adapt_ws split twice:twice nowhere:nowhere drifted:drifted whole:whole

H2='drivers/gpu/demo/irq.c hunk 2: conflict: the file does not exist; '
for t in twice nowhere drifted; do
	expect_exit 1 kcarry -C ws apply split $t
	stdout_has '^  0001 conflict          demo: trace interrupts and count vblanks$'
	case $t in
	twice) why='not moved: demo_enable_vblank() is defined in both drivers/gpu/demo/compat/vblank.c and drivers/gpu/demo/display/vblank.c' ;;
	nowhere) why='not moved: demo_enable_vblank() is defined in no file under drivers/gpu/demo' ;;
	drifted) why='not moved: drifted lines in drivers/gpu/demo/display/vblank.c, the one file defining demo_enable_vblank()' ;;
	esac
	grep -qF "$H2$why" "$OUT" || { cat "$OUT"; fail "$t: hunk 2 lacks its reason"; }
	stdout_has 'drivers/gpu/demo/irq.c hunk 1: conflict: the file does not exist; not moved to drivers/gpu/demo/display_irq.c, the one file defining demo_irq_handler\(\): hunk 2 stays a conflict'
	expect_exit 1 kcarry -C ws apply --json split $t
	python3 - "$OUT" "$why" <<'PY' || fail "$t: JSON"
import json, sys
d = json.load(open(sys.argv[1]))
f, = d["results"][0]["patches"][0]["files"]
h1, h2 = f["hunks"]
assert h2["rule"] == "conflict" and sys.argv[2] in h2["reason"], h2
assert "hunk 2 stays a conflict" in h1["reason"], h1
PY
done
expect_exit 1 kcarry -C ws apply split whole
stdout_has 'irq.c hunk 1: conflict: the file does not exist; not moved: every hunk stands exactly in both drivers/gpu/demo/a.c and drivers/gpu/demo/b.c'
grep -q 'adapted' "$OUT" && { cat "$OUT"; fail "whole: adapted"; }
exit 0
