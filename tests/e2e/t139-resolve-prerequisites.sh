#!/bin/sh
# Adaptation, rule 6, for the person resolving: 'kcarry resolve' shows
# the prerequisites the cause of the patch names (the patch or commit
# that adds each name the patch uses and the tree lacks), as apply's
# cause says them: 0001 of this series (its subject), a patch of another
# series (its file), an upstream commit (its title).  The fixture of
# t127, with the target's demo_stop() changed so that 0002 conflicts.
#  - resolve 2: the conflict, its files, and one line per prerequisite,
#    the names it adds; nothing of them is applied;
#  - two series adding the same name: "prerequisite not known", none
#    proposed for that name (t128);
#  - a patch whose hunks need nothing missing (0001) shows none;
#  - a patch that applies but uses what the tree lacks (t127's 0002, a
#    placement risk): nothing to resolve, and the prerequisites.
here=$(pwd)
. ./lib.sh
. "$here/prereq-lib.sh"
prereq_repos
git -C tgt checkout -q -b risk
sed -i '/^void demo_stop/,/^}/s/^\td->flags = 1;$/\td->flags = 3;/' tgt/drivers/demo/core.c
git -C tgt commit -qam "the target's own flags" || fail commit
git -C tgt tag -f base >/dev/null || fail tag

kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/tgt\n\tref = base\n\thistory = ../hist\n' "$TEST_TMP" >ws/kernels/old.conf
expect_exit 0 kcarry -C ws import feat --git up base..HEAD
expect_exit 0 kcarry -C ws import gen --git genup base..HEAD
quiet=$(git -C hist rev-parse --short=12 quiet)
expect_exit 1 kcarry -C ws apply --no-refresh feat old
stdout_has '^  0002 conflict  .*demo: reset on stop$'
stdout_has "prerequisites, not applied: 0001 of this series, gen@v1 0001, upstream commit $quiet;"

expect_exit 0 kcarry -C ws resolve feat old 2
expect_stdout <<EOT
0002-demo-reset-on-stop.patch (demo: reset on stop) conflicts on old.
prerequisite, not applied: 0001 of this series ("demo: add demo_reset()") adds demo_reset()
prerequisite, not applied: gen@v1 0001 (0001-demo-count-generations.patch) adds generation
prerequisite, not applied: upstream commit $quiet ("demo: add DEMO_F_QUIET") adds DEMO_F_QUIET
Edit these files (diff3 markers; rejected hunks in .rej):
  .kcarry/resolve/feat/v1/old/files/drivers/demo/core.c
then run: kcarry refresh feat@v1 old
EOT
f=ws/.kcarry/resolve/feat/v1/old/files/drivers/demo/demo.h
[ -e "$f" ] && fail "resolve wrote a prerequisite's file"
grep -q 'generation\|DEMO_F_QUIET' ws/.kcarry/resolve/feat/v1/old/files/drivers/demo/core.c.rej ||
	fail "the rejected hunk lost its lines"
grep -q '^#define DEMO_F_QUIET\|generation;' ws/.kcarry/resolve/feat/v1/old/files/drivers/demo/core.c &&
	fail "a prerequisite was applied"

# two candidates for one name: not known, none proposed for it
cp -r genup gen2up
git -C gen2up commit -q --amend -m "demo: track generations" || fail amend
expect_exit 0 kcarry -C ws import gen2 --git gen2up base..HEAD
expect_exit 0 kcarry -C ws resolve --force feat old 2
expect_stdout <<EOT
0002-demo-reset-on-stop.patch (demo: reset on stop) conflicts on old.
prerequisite, not applied: 0001 of this series ("demo: add demo_reset()") adds demo_reset()
prerequisite, not applied: upstream commit $quiet ("demo: add DEMO_F_QUIET") adds DEMO_F_QUIET
prerequisite not known: generation is added by both gen@v1 0001 and gen2@v1 0001
Edit these files (diff3 markers; rejected hunks in .rej):
  .kcarry/resolve/feat/v1/old/files/drivers/demo/core.c
then run: kcarry refresh feat@v1 old
EOT

# 0001 needs nothing the tree lacks
expect_exit 0 kcarry -C ws resolve --force feat old 1
expect_stdout <<EOT
0001-demo-add-demo_reset.patch (demo: add demo_reset()) conflicts on old.
Edit these files (diff3 markers; rejected hunks in .rej):
  .kcarry/resolve/feat/v1/old/files/drivers/demo/demo.h
then run: kcarry refresh feat@v1 old
EOT
expect_exit 0 kcarry -C ws resolve --abort feat old

# t127's target: 0002 applies, a placement risk; still the prerequisites
git -C tgt tag -f base base~1 >/dev/null || fail tag
rm -rf ws/patches/gen2 ws/series/gen2.conf
expect_exit 0 kcarry -C ws resolve feat old 2
expect_stdout <<EOT
0002-demo-reset-on-stop.patch applies to old after the patches before it (clean): nothing to resolve
prerequisite, not applied: 0001 of this series ("demo: add demo_reset()") adds demo_reset()
prerequisite, not applied: gen@v1 0001 (0001-demo-count-generations.patch) adds generation
prerequisite, not applied: upstream commit $quiet ("demo: add DEMO_F_QUIET") adds DEMO_F_QUIET
EOT
exit 0
