# export-lib.sh: what the t06x export tests share (sourced after lib.sh).
#
#   export_setup        repositories 'up' (upstream: four btrfs fixes with
#                       trailers, tagged v6.12-rc3) and 'tgt' (a 6.1.170
#                       tree holding upstream's history and tags, as
#                       linux-stable does), workspace 'ws' with target 6.1,
#                       series 'wq' (the first two fixes: they carry
#                       completely, one at an offset) and 'wq4' (all four:
#                       one conflicts, one is already in 6.1)
#   same_tree DIR REF   DIR holds exactly the files of tgt's REF
#   dep3_check FILE     every field of FILE's DEP-3 header is one DEP-3
#                       defines

export SOURCE_DATE_EPOCH=1730858940 # 2024-11-06

export_setup() {
	make_repo up fs/btrfs/async-thread.c "$(c_lines 60 w)
"
	commit_file up fs/btrfs/async-thread.c "$(c_lines 10 w)
	exact_fix();
$(c_lines 60 w | tail -n 50)
" "btrfs: exact fix

The worker must be fixed exactly here.

Closes: https://bugs.debian.org/1085000
Reviewed-by: Re Viewer <reviewer@example.org>
Signed-off-by: A U Thor <author@example.org>"
	commit_file up fs/btrfs/async-thread.c "$(c_lines 10 w)
	exact_fix();
$(c_lines 40 w | tail -n 30)
	offset_fix();
$(c_lines 60 w | tail -n 20)
" "btrfs: offset fix

The second fix.

Link: https://lore.kernel.org/r/20241106-offset-1-author@example.org
Signed-off-by: A U Thor <author@example.org>"
	commit_file up fs/btrfs/async-thread.c "$(c_lines 10 w)
	exact_fix();
$(c_lines 40 w | tail -n 30)
	offset_fix();
$(c_lines 50 w | tail -n 10)
	w_line_51_changed();
$(c_lines 60 w | tail -n 9)
" "btrfs: conflicting fix"
	commit_file up fs/btrfs/async-thread.c "$(c_lines 10 w)
	exact_fix();
$(c_lines 40 w | tail -n 30)
	offset_fix();
$(c_lines 50 w | tail -n 10)
	w_line_51_changed();
$(c_lines 60 w | tail -n 9)
	already_there();
" "btrfs: already upstream"
	git -C up tag v6.12-rc3

	make_repo tgt Makefile "VERSION = 6
PATCHLEVEL = 1
SUBLEVEL = 170
EXTRAVERSION =
NAME = Curry Ramen
" fs/btrfs/async-thread.c "$(c_lines 20 w)
	target_only_1();
	target_only_2();
	target_only_3();
	target_only_4();
	target_only_5();
$(c_lines 50 w | tail -n 30)
	w_line_51_target();
$(c_lines 60 w | tail -n 9)
	already_there();
"
	git -C tgt tag v6.1.170
	git -C tgt fetch -q ../up 'refs/heads/master:refs/remotes/up/master' \
		'refs/tags/v6.12-rc3:refs/tags/v6.12-rc3' || fail "fetch up"
	UP1=$(git -C up rev-parse HEAD~3)
	UP2=$(git -C up rev-parse HEAD~2)

	kcarry init ws >/dev/null
	cat >ws/kernels/6.1.conf <<EOT
[kernel]
	name = 6.1
	url = $TEST_TMP/tgt
	ref = v6.1.170
EOT
	kcarry -C ws import wq --git up base..HEAD~2 >/dev/null 2>&1 ||
		fail "import wq"
	kcarry -C ws import wq4 --git up base..HEAD >/dev/null 2>&1 ||
		fail "import wq4"
}

# same_tree DIR REF [EXTRA...]: the files of DIR (without debian/, .pc/,
# .git and the EXTRA paths) are exactly those of tgt's REF
same_tree() {
	dir=$1
	ref=$2
	shift 2
	rm -rf "$TEST_TMP/.want-tree"
	mkdir "$TEST_TMP/.want-tree"
	git -C "$TEST_TMP/tgt" archive "$ref" | tar -x -C "$TEST_TMP/.want-tree"
	set -- -x debian -x .pc -x .git "$@"
	diff -r "$@" "$TEST_TMP/.want-tree" "$dir" ||
		fail "$dir differs from $ref"
}

# dep3_check FILE: the header of a Debian patch (up to its first blank
# line) holds only fields that DEP-3 defines:
# https://dep-team.pages.debian.net/deps/dep3/ ("Standard fields":
# Description or Subject, Origin, Bug-<Vendor> or Bug, Forwarded, Author
# or From, Reviewed-by or Acked-by, Last-Update, Applied-Upstream)
dep3_check() {
	sed '/^$/q' "$1" | grep -v '^ ' | sed '/^$/d' | while IFS= read -r l; do
		key=${l%%:*}
		case $key in
		Description | Subject | Origin | Bug | Bug-?* | Forwarded | \
			Author | From | Reviewed-by | Acked-by | Last-Update | \
			Applied-Upstream) ;;
		*) echo "not a DEP-3 field in $1: $l"; exit 1 ;;
		esac
	done || fail "DEP-3 fields of $1"
}
