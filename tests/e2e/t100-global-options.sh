#!/bin/sh
# The global options' edges that t002 leaves open, as main reads them:
# the spellings it refuses before the command (with the main usage) and
# leaves to the command after it (which refuses them with its own);
# --version and --help only before the command, the first of them
# deciding; -C takes the next argument whatever it looks like, the last
# -C wins; no command at all is a usage error.
. ./lib.sh

kcarry init ws >/dev/null
main_usage='usage: kcarry [--version] [--help] [-C DIR] [-q|-v] [--color=WHEN] COMMAND [ARGS]'

# before the command: refused, the main usage follows
for o in -vvv -qv --quiet=1 --verbose=1 --color= --color=sometimes \
	--no-color=x --C -Cws -- - --bogus --help=x --version=1; do
	expect_exit 2 kcarry "$o" -C ws list
	head -n 2 "$ERR" >"$TEST_TMP/got"
	printf "error: unknown option '%s'\n%s\n" "$o" "$main_usage" >"$TEST_TMP/want"
	diff -u "$TEST_TMP/want" "$TEST_TMP/got" || fail "kcarry $o list"
	[ ! -s "$OUT" ] || fail "kcarry $o list: stdout"
done

# after the command: no global option, the command's own error
for o in -vvv -qv --quiet=1 --verbose=1 --color= --color=sometimes \
	--no-color=x --C -Cws --version --bogus; do
	expect_exit 2 kcarry -C ws list "$o"
	expect_stderr <<EOT
error: unknown option '$o'
usage: kcarry list
EOT
done
# list takes no argument: '-' is one
expect_exit 2 kcarry -C ws list -
expect_stderr <<'EOT'
error: unknown argument '-'
usage: kcarry list
EOT
# --help and -h after the command are the command's
for o in --help -h; do
	expect_exit 0 kcarry -C ws list "$o"
	stdout_has '^usage: kcarry list$'
done

# --version and --help: the first one decides, later arguments unread
expect_exit 0 kcarry --version --bogus
stdout_has '^kcarry [0-9]'
expect_exit 0 kcarry -h --version
stdout_has "^usage: kcarry \\[--version\\]"
expect_exit 0 kcarry --help list
stdout_has '^commands:$'
expect_exit 0 kcarry -q -C ws --version
stdout_has '^kcarry [0-9]'
expect_exit 2 kcarry --bogus --version
stderr_has "^error: unknown option '--bogus'"
# nothing but options: the main usage, on stderr
expect_exit 2 kcarry -q
stderr_has "^usage: kcarry "
[ ! -s "$OUT" ] || fail "kcarry -q: stdout"
expect_exit 2 kcarry
stderr_has "^usage: kcarry "

# --color's value only after '=': the next word is the command
expect_exit 2 kcarry --color never list
expect_stderr <<'EOT'
error: 'never' is not a kcarry command
hint: 'kcarry help' lists the commands
EOT

# -C takes the next argument even when it looks like an option, and the
# last -C wins, before or after the command
cp -r ws ./-q
expect_exit 0 kcarry -C -q list
stderr_has "^no series yet"
expect_exit 0 kcarry list -C -q
stderr_has "^no series yet"
expect_exit 2 kcarry -C ws -C nowhere list
stderr_has '^error: not in a kcarry workspace'
expect_exit 0 kcarry -C nowhere list -C ws
stderr_has "^no series yet"
expect_exit 2 kcarry -C ws list -C
expect_stderr <<'EOT'
error: -C needs a directory
EOT

# the completions read the global options by the same table: a flag
# takes no value, so the command comes next; -C's value is a folder,
# --color's one of its choices
for o in -q --quiet -v -vv --verbose --no-color --color; do
	expect_exit 0 kcarry __complete -- "$o" li
	expect_stdout <<'EOT'
list
EOT
done
expect_exit 0 kcarry __complete -- -C ''
expect_stdout <<'EOT'
:dir
EOT
expect_exit 0 kcarry __complete -- --color=
expect_stdout <<'EOT'
--color=always
--color=never
--color=auto
EOT
exit 0
