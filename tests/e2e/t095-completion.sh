#!/bin/sh
# Shell completion: bash's completion function and zsh's, driven as the
# shells drive them (COMP_WORDS/COMP_CWORD/COMP_LINE, words/CURRENT),
# offer kcarry's commands, a command's options and their choices, and the
# series, versions and targets of a throw-away workspace, all through
# 'kcarry __complete'.  KCARRY_BASH_COMPLETION and KCARRY_ZSH_COMPLETION
# name other scripts to drive (an installed package's, tests/pkg/).
comp_dir=$(cd ../.. && pwd)/contrib/completion
bash_comp=${KCARRY_BASH_COMPLETION:-$comp_dir/kcarry.bash}
zsh_comp=${KCARRY_ZSH_COMPLETION:-$comp_dir/_kcarry}
. ./lib.sh
need bash

# the scripts call 'kcarry' as the line names it: from PATH
mkdir bin && ln -s "$KCARRY" bin/kcarry
PATH=$TEST_TMP/bin:$PATH
export PATH

# a workspace: series rt (v1, v2, v10) and stable (6.1.1-1), targets
kcarry init -q ws >/dev/null || fail "init"
mkdir -p q
printf -- '--- a/f.c\n+++ b/f.c\n@@ -1 +1,2 @@\n x\n+y\n' >q/a.patch
echo a.patch >q/series
for v in rt@v1 rt@v2 rt@v10 stable@6.1.1-1; do
	kcarry -C ws import -q "$v" q >/dev/null 2>&1 || fail "import $v"
done
for t in 6.1 6.12 5.10; do
	printf '[target]\n\tpath = /nonexistent\n' >"ws/kernels/$t.conf"
done
cd ws
touch notes.txt

# bcomp LINE: what bash's _kcarry offers with the cursor at the end of
# LINE, one a line, sorted; COMP_WORDS split as bash splits them (at
# blanks, '=' and ':' words of their own)
bcomp() {
	bash -c '
		. "$0" || exit 1
		line=$1
		read -r -a COMP_WORDS <<<"$(printf "%s" "$line" |
			sed "s/\([=:]\)/ \1 /g")"
		case $line in
		*" ") COMP_WORDS+=("") ;;
		esac
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE=$line
		COMP_POINT=${#line}
		_kcarry
		[ ${#COMPREPLY[@]} -eq 0 ] || printf "%s\n" "${COMPREPLY[@]}"
	' "$bash_comp" "$1" >"$OUT" 2>"$ERR" ||
		fail "bash completion of '$1': $(cat "$ERR")"
	[ -s "$ERR" ] && fail "bash completion of '$1' printed: $(cat "$ERR")"
	sort "$OUT" >"$OUT.s" && mv "$OUT.s" "$OUT"
}

out=$(bash -c '. "$0"; complete -p kcarry' "$bash_comp") ||
	fail "complete -p"
[ "$out" = "complete -F _kcarry kcarry" ] || fail "complete -p: $out"

# commands: every one 'kcarry help' lists, never __complete
bcomp 'kcarry '
kcarry help | sed -n 's/^   \([a-z]*\) .*/\1/p' | sort >"$TEST_TMP/want"
[ -s "$TEST_TMP/want" ] || fail "kcarry help lists no command"
diff -u "$TEST_TMP/want" "$OUT" || fail "commands differ from kcarry help"
bcomp 'kcarry re'
expect_stdout <<'EOT'
rebase
refresh
report
resolve
EOT

# a command's options, from its table (apply's OPT_CARRY and its own)
bcomp 'kcarry apply --'
kcarry apply --help | sed -n 's/^  .*\(--[a-z0-9-]*\).*/\1/p' |
	sort -u >"$TEST_TMP/want"
echo --help >>"$TEST_TMP/want"
sort -u "$TEST_TMP/want" -o "$TEST_TMP/want"
diff -u "$TEST_TMP/want" "$OUT" || fail "apply's options differ from --help"
bcomp 'kcarry apply --no-'
expect_stdout <<'EOT'
--no-3way
--no-adapt
--no-refresh
EOT

# choices of an option, apart and after '=' (bash's word is after '=')
bcomp 'kcarry check --format '
expect_stdout <<'EOT'
email
html
json
junit
markdown
text
EOT
bcomp 'kcarry check --format=j'
expect_stdout <<'EOT'
json
junit
EOT
bcomp 'kcarry --color='
expect_stdout <<'EOT'
always
auto
never
EOT

# series, versions, targets of the workspace
bcomp 'kcarry apply '
expect_stdout <<'EOT'
rt
stable
EOT
bcomp 'kcarry apply rt@'
expect_stdout <<'EOT'
rt@v1
rt@v10
rt@v2
EOT
bcomp 'kcarry apply rt@v1 6.1'
expect_stdout <<'EOT'
6.1
6.12
EOT
bcomp 'kcarry check rt 5'
expect_stdout <<'EOT'
5.10
EOT
bcomp 'kcarry diff rt v'
expect_stdout <<'EOT'
v1
v10
v2
EOT
bcomp 'kcarry diff stable '
expect_stdout <<'EOT'
6.1.1-1
EOT
bcomp 'kcarry rebase rt v1 v2 '
expect_stdout <<'EOT'
5.10
6.1
6.12
EOT
bcomp 'kcarry kernels --path 6.1'
expect_stdout <<'EOT'
6.1
6.12
EOT
bcomp 'kcarry resolve rt@v1 6.1 '
expect_stdout <<'EOT'
0001-a.patch
EOT
bcomp 'kcarry resolve nosuch 6.1 '
expect_stdout </dev/null
bcomp 'kcarry report '
expect_stdout <<'EOT'
diff
merge
EOT
bcomp 'kcarry help ch'
expect_stdout <<'EOT'
check
EOT
# a file argument: the shell's own file names
bcomp 'kcarry report merge no'
expect_stdout <<'EOT'
notes.txt
EOT

# -C DIR among the words names the workspace, from anywhere
cd "$TEST_TMP"
bcomp 'kcarry apply '
expect_stdout </dev/null
bcomp 'kcarry -C ws apply s'
expect_stdout <<'EOT'
stable
EOT
bcomp 'kcarry apply -C ws rt '
expect_stdout <<'EOT'
5.10
6.1
6.12
EOT
# not a command: nothing
bcomp 'kcarry frob '
expect_stdout </dev/null

# zsh: the _kcarry function with words/CURRENT set, compadd and _files
# stubbed to print what they are given
command -v zsh >/dev/null 2>&1 || skip "no zsh on this machine (bash passed)"
# zcomp WORD...: what zsh's _kcarry offers for the last WORD
zcomp() {
	zsh -f -c '
		compadd() { [[ $1 == -- ]] && shift; print -rl -- "$@"; }
		_files() { print -r -- "<files $*>"; }
		. "$0" >/dev/null 2>&1
		words=("$@")
		CURRENT=$#
		_kcarry
	' "$zsh_comp" "$@" >"$OUT" 2>"$ERR" ||
		fail "zsh completion of '$*': $(cat "$ERR")"
	[ -s "$ERR" ] && fail "zsh completion of '$*' printed: $(cat "$ERR")"
	sort "$OUT" >"$OUT.s" && mv "$OUT.s" "$OUT"
}
head -1 "$zsh_comp" | grep -qx '#compdef kcarry' || fail "#compdef"
zcomp kcarry re
expect_stdout <<'EOT'
rebase
refresh
report
resolve
EOT
zcomp kcarry -C ws apply rt@v1
expect_stdout <<'EOT'
rt@v1
rt@v10
EOT
zcomp kcarry -C ws apply rt ''
expect_stdout <<'EOT'
5.10
6.1
6.12
EOT
zcomp kcarry check --format=ma
expect_stdout <<'EOT'
--format=markdown
EOT
zcomp kcarry init ''
expect_stdout <<'EOT'
<files -/>
EOT
