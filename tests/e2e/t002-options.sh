#!/bin/sh
# Every command parses its options by the table its --help is printed
# from: each option --help lists is accepted (never "unknown option"),
# an option --help does not list is refused with exit 2, --help fits 79
# columns and lists no option outside the table's block, the global
# options are taken after the command too.  Then one real case: check
# and apply take the fuzz limit in every spelling (-F1, -F 1, --fuzz=1,
# --fuzz 1) with the same verdict, and refuse -F4 as the help says; and
# the global options after the command do what they do before it.
. ./lib.sh

mkdir empty
cmds=$(kcarry help | awk '/^commands:/ { on = 1; next } on && /^ +[a-z]/ && $1 != "help" && $1 != "version" { print $1 }')
[ "$(echo "$cmds" | wc -w)" -ge 15 ] || fail "kcarry help lists too few commands: $cmds"

checked=0
for c in $cmds; do
	expect_exit 0 kcarry "$c" --help
	cp "$OUT" "$TEST_TMP/help.$c"
	awk -v c="$c" 'length($0) > 79 { print c ": line too long: " $0; bad = 1 }
		END { exit bad }' "$OUT" || fail "$c --help is wider than 79 columns"
	# the options block: "  --long, -x ARG   help" (continuation lines
	# are indented further and start with no dash)
	sed -n '/^options:$/,/^$/p' "$TEST_TMP/help.$c" | grep -E '^  -' >"$TEST_TMP/opts.$c" || true
	# the names end where two blanks part them from the help
	sed 's/^  //; s/  .*//' "$TEST_TMP/opts.$c" >"$TEST_TMP/names.$c"
	while read -r names; do
		# "--long, -x ARG", "--long[=ARG], -x", "-x ARG", "--long A B"
		long='' short='' args=''
		for w in $names; do
			case $w in
			--*) long=${w%,}; long=${long%%\[*} ;;
			-?,) short=${w%,} ;;
			-?) short=$w ;;
			*) args="$args ${w%%|*}" ;;
			esac
		done
		# a value for every ARG: "1", or the first choice (a|b)
		vals=$(echo "$args" | sed 's/[A-Z][A-Z0-9./_]*/1/g')
		for o in $long $short; do
			# shellcheck disable=SC2086
			(cd empty && "$KCARRY" "$c" "$o" $vals >"$OUT" 2>"$ERR")
			if grep -q "unknown option" "$ERR"; then
				cat "$ERR"
				fail "$c refuses $o, which its --help lists"
			fi
			checked=$((checked + 1))
		done
	done <"$TEST_TMP/names.$c"
	# no option written out by hand beside the table's block
	all=$(grep -c '^  -' "$TEST_TMP/help.$c")
	[ "$all" -eq "$(wc -l <"$TEST_TMP/opts.$c")" ] ||
		fail "$c --help lists options outside its options block"
	(cd empty && expect_exit 2 kcarry "$c" --no-such-option) || exit 1
	stderr_has "^error: unknown option '--no-such-option'"
	stderr_has "^usage: kcarry $c"
	# the global options are taken after the command too
	(cd empty && expect_exit 2 kcarry "$c" -v -q --color=never -C . \
		--no-such-option) || exit 1
	stderr_has "^error: unknown option '--no-such-option'"
done
[ "$checked" -ge 40 ] || fail "only $checked options found in the --help texts"

# fuzz in every spelling: line 1 of the patch's context differs in the
# target, so the hunk needs fuzz 1
make_repo up f.c "$(c_lines 20 a)
"
commit_file up f.c "$(c_lines 10 a)
	new_call();
$(c_lines 20 a | tail -n 10)
" "f: add a call"
git clone -q up tgt && git -C tgt checkout -q -b tb base
sed -i 's/a_line_8()/a_line_eight()/' tgt/f.c
git -C tgt commit -qam "target differs" && git -C tgt tag t1
kcarry init ws >/dev/null
printf '[kernel]\n\tname = t\n\turl = %s\n\tref = t1\n' "$TEST_TMP/tgt" >ws/kernels/t.conf
expect_exit 0 kcarry -C ws import s --git up base..HEAD

expect_exit 1 kcarry -C ws check -F0 --no-3way s t
stdout_has 'X'
for spelling in "-F1" "-F 1" "--fuzz=1" "--fuzz 1"; do
	# shellcheck disable=SC2086
	expect_exit 0 kcarry -C ws check $spelling --no-3way --format=json s t
	grep -q '"fuzz"' "$OUT" || { cat "$OUT"; fail "check $spelling: not applied with fuzz"; }
	# shellcheck disable=SC2086
	expect_exit 0 kcarry -C ws apply $spelling --no-3way --no-refresh s t
	stdout_has 'fuzz'
done
expect_exit 2 kcarry -C ws check -F4 s t
stderr_has "^error: --fuzz takes a number from 0 to 3, not '4'"
expect_exit 2 kcarry -C ws apply --fuzz=x s t
stderr_has "^error: --fuzz takes a number from 0 to 3, not 'x'"
# a flag given a value is refused, not silently dropped
expect_exit 2 kcarry -C ws apply --strict=yes s t
stderr_has "^error: unknown option '--strict=yes'"
# "--" ends the options: a target named like an option is a name
expect_exit 2 kcarry -C ws apply s -- --strict
stderr_has "^error: '--strict': a target name cannot start with '-'"

# the global options after the command: 'check' says '(-v shows all)',
# so 'check -v' must be taken as '-v check' is
expect_exit 0 kcarry -C ws -v check s t
cp "$OUT" before
expect_exit 0 kcarry check s t -C ws -v
cmp -s before "$OUT" || { diff before "$OUT"; fail "check -v differs from -v check"; }
expect_exit 0 kcarry kernels -C ws
[ "$(wc -l <"$OUT")" -eq 2 ] || { cat "$OUT"; fail "kernels: not one line per target"; }
expect_exit 0 kcarry kernels -C ws -v
stdout_has "^ +[0-9a-f]{12} \\($TEST_TMP/tgt\\)$"
expect_exit 0 kcarry check s t -C ws --color=always
stdout_has "$(printf '\033')\\["
expect_exit 0 kcarry --color=always check -C ws s t --color=never
! grep -q "$(printf '\033')" "$OUT" || fail "--color=never after the command is not the last word"
kcarry init quiet >/dev/null
expect_exit 0 kcarry -C quiet list
stderr_has "^no series yet"
expect_exit 0 kcarry list -C quiet -q
[ ! -s "$ERR" ] || { cat "$ERR"; fail "list -q: notes on stderr"; }
# after "--" they are arguments again
expect_exit 2 kcarry -C ws apply s -- -v
stderr_has "^error: '-v': a target name cannot start with '-'"

# the global options' edges, as main reads them: -q sets quiet, a later
# -v counts up from it (so notes come back); -vv is two -v; --color
# alone is always, --no-color never; -C takes its DIR as the next
# argument only, before or after the command
expect_exit 0 kcarry -q -v -C quiet list
stderr_has "^no series yet"
expect_exit 0 kcarry -C quiet list -q --verbose --quiet
[ ! -s "$ERR" ] || { cat "$ERR"; fail "--quiet last: notes on stderr"; }
expect_exit 0 kcarry -vv kernels -C ws
cp "$OUT" vv
expect_exit 0 kcarry -v -v kernels -C ws
cmp -s vv "$OUT" || { diff vv "$OUT"; fail "-vv differs from -v -v"; }
expect_exit 0 kcarry --color check -C ws s t
stdout_has "$(printf '\033')\\["
expect_exit 0 kcarry --color check -C ws s t --no-color
! grep -q "$(printf '\033')" "$OUT" || fail "--no-color after --color is not the last word"
for at in before after; do
	if [ $at = before ]; then set -- -C; else set -- list -C; fi
	expect_exit 2 kcarry "$@"
	expect_stderr <<'EOT'
error: -C needs a directory
EOT
done
expect_exit 2 kcarry -Cws list
stderr_has "^error: unknown option '-Cws'"
stderr_has "^usage: kcarry \\[--version\\]"
expect_exit 2 kcarry --color=sometimes list
stderr_has "^error: unknown option '--color=sometimes'"
expect_exit 2 kcarry -C ws list --color=sometimes
stderr_has "^error: unknown option '--color=sometimes'"
stderr_has "^usage: kcarry list"
exit 0
