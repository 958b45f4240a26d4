#!/bin/sh
# Adaptation, rule 3 (renamed identifiers), adversarial: a name "renamed"
# only in the line the hunk removes is no rename the lines around it
# show.  Found on the corpus's shrinker v2 onto Debian's 6.1: the hunk
# changes the line initialising fs_info->evictable_extent_maps, 6.1 has
# the line initialising dirty_metadata_bytes at that spot, the context
# is the same, and rule 3 mapped one name to the other: accepting the
# proposal would have rewritten another counter's initialisation.
#  - removed.c: the map is shown only by the removed line, and the names
#    have no part in common: a conflict, the file untouched (t112's
#    third -> x_third, shown only there too, keeps its adaptation: one
#    name is part of the other);
#  - shown.c: the same change where a context line shows the rename too:
#    adapted (the rule still works where the context shows it).
. ./lib.sh

UP='int init(struct fs *fs)
{
	int ret;

	fs->ready = 0;
	ret = counter_init(&fs->evictable, 0);
	if (ret)
		return ret;
	fs->ready = 1;
	return 0;
}
'
UP2='int init(struct fs *fs)
{
	int ret;

	reset(&fs->evictable);
	ret = counter_init(&fs->evictable, 0);
	if (ret)
		return ret;
	fs->ready = 1;
	return 0;
}
'
make_repo up d/removed.c "$UP" d/shown.c "$UP2"
commit_file up d/removed.c "$(printf '%s' "$UP" | sed 's/counter_init(&fs->evictable, 0)/counter_init(\&fs->evictable, 0, GFP_KERNEL)/')
" "removed: init with GFP_KERNEL"
commit_file up d/shown.c "$(printf '%s' "$UP2" | sed 's/counter_init(&fs->evictable, 0)/counter_init(\&fs->evictable, 0, GFP_KERNEL)/')
" "shown: init with GFP_KERNEL"
make_repo tgt d/removed.c "$(printf '%s' "$UP" | sed 's/evictable/dirty/')
" d/shown.c "$(printf '%s' "$UP2" | sed 's/evictable/dirty/g')
"
kcarry init ws >/dev/null
cat >ws/kernels/old.conf <<EOT
[kernel]
	name = old
	url = $TEST_TMP/tgt
	ref = base
EOT
expect_exit 0 kcarry -C ws import rm --git up base..HEAD
expect_exit 1 kcarry -C ws apply rm old
stdout_has '^  0001 conflict          removed: init with GFP_KERNEL$'
stdout_has '^  0002 adapted           shown: init with GFP_KERNEL$'
stdout_has 'names renamed here, as the lines around it show: evictable -> dirty'
git -C tgt show kcarry/rm/v1/old:d/removed.c | diff - tgt/d/removed.c >/dev/null ||
	fail "removed.c changed"
git -C tgt show kcarry/rm/v1/old:d/shown.c | grep -q 'counter_init(&fs->dirty, 0, GFP_KERNEL);' ||
	fail "shown.c not adapted"
exit 0
