#!/bin/sh
# series.stacks-on has one rule for check, build and export: NAME@V goes
# on the base's version V when the base has one, else on the base's
# newest version, and both commands say so.  After 'import base@v2',
# 'check top@v1' and 'export top@v1' carry top on base@v1 alike, so the
# export holds the check's branch (it refused before: check went on
# base@v1, export on base@v2).  A branch that no longer holds the result
# sends a stacked series to 'check', never to 'apply' (which ignores
# stacks-on); apply and rebase say that they do.
. ./lib.sh

make_repo up lib/a.c "$(c_lines 20 a)
"
commit_file up lib/a.c "$(c_lines 20 a | sed 's/a_line_8();/a_line_8_base();/')
" "a: the base change"
git -C up tag b1
commit_file up lib/a.c "$(c_lines 20 a | sed 's/a_line_8();/a_line_8_top();/')
" "a: the stacked change"
git -C up tag t1
# base v2: the same change and one more, far from top's line
git -C up checkout -q -b v2 base
commit_file up lib/a.c "$(c_lines 20 a | sed 's/a_line_8();/a_line_8_base();/;
	s/a_line_16();/a_line_16_v2();/')
" "a: the base change, v2"
git -C up tag b2

make_repo tgt lib/a.c "$(c_lines 20 a)
"
kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/tgt\n\tref = base\n' "$TEST_TMP" >ws/kernels/T.conf
printf '[series]\n\tstacks-on = base\n' >ws/series/top.conf
expect_exit 0 kcarry -C ws import base@v1 --git up base..b1
expect_exit 0 kcarry -C ws import top@v1 --git up b1..t1
expect_exit 0 kcarry -C ws import base@v2 --git up base..b2

# check: top@v1 on base@v1 (the same-named version), not on the newest
expect_exit 0 kcarry -C ws -q check top@v1 T
expect_stderr </dev/null
[ "$(git -C tgt rev-parse kcarry/top/v1/T^)" = \
	"$(git -C tgt rev-parse kcarry/base/v1/T)" ] ||
	fail "check: top@v1 is not on base@v1"

# export: the same carry, so the branch check wrote is what it exports
expect_exit 0 kcarry -C ws -q export top@v1 T --format git
expect_stdout <<EOT
exported top@v1 on T as git: 1 patch ($TEST_TMP/tgt)
  kcarry-export/top/v1/T
EOT
expect_stderr </dev/null
[ "$(git -C tgt rev-parse kcarry-export/top/v1/T^{tree})" = \
	"$(git -C tgt rev-parse kcarry/top/v1/T^{tree})" ] ||
	fail "export: another tree than check's"
git -C tgt show kcarry-export/top/v1/T:lib/a.c | grep -q '^	a_line_16();$' ||
	fail "export: top went on base@v2"

# the default check (every series, newest) carries base@v2 as selected
# and base@v1 under top@v1
expect_exit 0 kcarry -C ws -q check T
expect_stdout <<EOT
base@v2
                                                         T  
0001 a: the base change, v2                              .  

base@v1
                                                         T  
0001 a: the base change                                  .  

top@v1 (on top of base)
                                                         T  
0001 a: the stacked change                               .  

legend: . clean  o offset  ~ fuzz  3 3-way  = already applied  p partial
        a adapted  X conflict  - not tried  ? did not run  ! placement risk
        w touches a watched file or a caller of its API

summary (worst first):
  base@v2 on T: 1 clean
  base@v1 on T: 1 clean
  top@v1 on T: 1 clean
EOT
[ "$(git -C tgt rev-parse kcarry/top/v1/T^)" = \
	"$(git -C tgt rev-parse kcarry/base/v1/T)" ] ||
	fail "default check: top@v1 is not on base@v1"

# a version the base lacks: its newest, and the commands say so
expect_exit 0 kcarry -C ws import top@v3 --git up b1..t1
expect_exit 0 kcarry -C ws check top@v3 T
stderr_has "^note: 'base' has no version v3: top@v3 is carried on base@v2, its newest$"
expect_exit 0 kcarry -C ws export top@v3 T --format git
stderr_has "^note: 'base' has no version v3: top@v3 is carried on base@v2, its newest$"

# a branch that no longer holds the carry: the hint names check, not apply
git -C tgt branch -f kcarry/top/v1/T base
expect_exit 1 kcarry -C ws -q export top@v1 T --format git
expect_stderr <<'EOT'
error: kcarry/top/v1/T does not hold top@v1 as it carries onto T now
hint: run 'kcarry check top@v1 T' with the --fuzz, --no-3way and --strict you give export, then export again
EOT
expect_exit 0 kcarry -C ws -q check top@v1 T
expect_exit 0 kcarry -C ws -q export top@v1 T --format git

# apply does not follow stacks-on, and says so
expect_exit 1 kcarry -C ws apply top@v1 T --no-refresh
stderr_has "^note: apply carries top@v1 onto T's base: series.stacks-on = base is followed by check, build and export only$"
# neither does rebase
expect_exit 1 kcarry -C ws rebase --dry-run top v1 v3 T
stderr_has "^note: rebase carries top onto each target's base: series.stacks-on = base is followed by check, build and export only$"
exit 0
