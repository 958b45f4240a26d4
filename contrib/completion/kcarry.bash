# bash completion for kcarry(1).
#
# Every candidate comes from 'kcarry __complete -- WORD...' (commands,
# options and their values from kcarry's own tables, series, versions and
# targets from the workspace): this script only splits the line, asks,
# and hands the answer to bash.  Installed as
# /usr/share/bash-completion/completions/kcarry; or source it.

_kcarry()
{
	local line=${COMP_LINE:0:COMP_POINT} bin c kind=
	local -a words out=()

	# the words as kcarry sees them: COMP_WORDS splits '--format=json'
	# at '=', which kcarry takes as one word
	read -r -a words <<<"$line"
	case $line in
	*[[:space:]]) words+=("") ;;
	esac
	[ ${#words[@]} -ge 2 ] || return 0
	bin=${words[0]}
	type -P -- "$bin" >/dev/null 2>&1 || bin=kcarry
	while IFS= read -r c; do
		case $c in
		:file) kind=file ;;
		:dir) kind=dir ;;
		*) out+=("$c") ;;
		esac
	done < <("$bin" __complete -- "${words[@]:1}" 2>/dev/null)

	# readline replaces only the text after the last '=' or ':' of the
	# word (when COMP_WORDBREAKS holds them): kcarry's candidates lose
	# what stands before it
	local full=${words[${#words[@]}-1]} tail lead breaks=
	case $COMP_WORDBREAKS in *=*) breaks="=" ;; esac
	case $COMP_WORDBREAKS in *:*) breaks="$breaks:" ;; esac
	tail=$full
	[ -n "$breaks" ] && tail=${full##*["$breaks"]}
	lead=${full%"$tail"}
	COMPREPLY=()
	for c in "${out[@]}"; do
		COMPREPLY+=("${c#"$lead"}")
	done
	case $kind in
	file)
		compopt -o filenames 2>/dev/null
		while IFS= read -r c; do COMPREPLY+=("$c"); done \
			< <(compgen -f -- "$tail")
		;;
	dir)
		compopt -o filenames 2>/dev/null
		while IFS= read -r c; do COMPREPLY+=("$c"); done \
			< <(compgen -d -- "$tail")
		;;
	esac
	return 0
}

complete -F _kcarry kcarry
