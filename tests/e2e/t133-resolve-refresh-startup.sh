#!/bin/sh
# resolve, resolve --suggest and refresh open a cell through one start-up
# (resolve_cell_open, issue 17 "near-copies"): what each says when the
# series, the version or the target is wrong stays what it said when each
# had its own copy, and all three find the same scratch folder.
#  - a bad target name: refresh and --suggest open the target first (the
#    hint of target_load), resolve and --abort check the name alone;
#  - an unknown target, series or version: the same error for all three;
#  - resolve writes the pending resolution where refresh and --abort look.
. ./lib.sh
four_patch_series
kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/tgt\n\tref = base\n' "$TEST_TMP" >ws/kernels/t.conf
expect_exit 0 kcarry -C ws import s --git up base..HEAD

for cmd in "refresh s ../x" "resolve --suggest s ../x"; do
	# shellcheck disable=SC2086
	expect_exit 2 kcarry -C ws $cmd
	expect_stderr <<'EOT'
error: '../x': '/' is not allowed in a target name
hint: 'kcarry kernels' lists the targets
EOT
done
for cmd in "resolve s ../x 1" "resolve --abort s ../x"; do
	# shellcheck disable=SC2086
	expect_exit 2 kcarry -C ws $cmd
	expect_stderr <<'EOT'
error: '../x': '/' is not allowed in a target name
hint: a target name takes letters, digits, '-', '_' and '.'
EOT
done
for cmd in "refresh s nosuch" "resolve s nosuch 1" "resolve --suggest s nosuch"; do
	# shellcheck disable=SC2086
	expect_exit 2 kcarry -C ws $cmd
	stderr_has "^error: no target 'nosuch' \(no .*/ws/kernels/nosuch.conf\)$"
	stderr_has "^hint: 'kcarry kernels' lists the targets$"
done
for cmd in "refresh nosuch t" "resolve nosuch t 1" "resolve --suggest nosuch t" \
	"resolve --abort nosuch t"; do
	# shellcheck disable=SC2086
	expect_exit 2 kcarry -C ws $cmd
	expect_stderr <<'EOT'
error: no series 'nosuch' in this workspace
hint: 'kcarry list' shows the series; 'kcarry import nosuch SOURCE' adds one
EOT
done
for cmd in "refresh s@v9 t" "resolve s@v9 t 1" "resolve --suggest s@v9 t"; do
	# shellcheck disable=SC2086
	expect_exit 2 kcarry -C ws $cmd
	stderr_has "^error: .*v9"
done

# one scratch folder: resolve writes it, --abort and refresh find it
expect_exit 0 kcarry -C ws resolve s t 3
[ -f ws/.kcarry/resolve/s/v1/t/state ] || fail "no pending resolution"
expect_exit 1 kcarry -C ws resolve s t 3
stderr_has '^error: a resolution of 0003-.* is pending in .kcarry/resolve/s/v1/t: '
expect_exit 0 kcarry -C ws resolve --abort s t
stdout_has '^discarded the resolution of 0003-.* on t$'
expect_exit 0 kcarry -C ws resolve s t 3
expect_exit 1 kcarry -C ws refresh s t
stderr_has 'conflict markers remain'
exit 0
