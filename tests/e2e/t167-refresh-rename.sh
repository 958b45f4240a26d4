#!/bin/sh
# The refreshed patch keeps a patch's renames as renames: a file moved
# whole (100%) and one moved with an edit stay "rename from / rename to"
# with their similarity, not the deletion and creation of every line
# (Debian 6.1's "net: mana: Move header files to a common location", 5
# headers, refreshed into 3,300 lines; imported again, the new header of
# a folder the tree lacks read as new code, and its prototypes as
# missing names).  git apply and GNU patch take the refreshed patch; the
# refreshed series, imported again, applies clean to the same tree.
. ./lib.sh

make_repo up \
drivers/k/Makefile 'obj-y += core.o
' \
drivers/k/core.c "$(c_lines 10 a)
#include \"k.h\"

$(c_lines 30 k)
" \
drivers/k/k.h "#ifndef K_H
#define K_H
$(c_lines 40 h | sed 's/^\t//; s/();$/(void);/; s/^/void /')
#endif
" \
drivers/k/kq.h "#ifndef KQ_H
#define KQ_H
$(c_lines 40 q | sed 's/^\t//; s/();$/(void);/; s/^/void /')
#endif
"
mkdir -p up/include/k
git -C up mv drivers/k/k.h include/k/k.h
git -C up mv drivers/k/kq.h include/k/kq.h
sed -i 's/^void q_line_20(void);$/void q_line_20(int flags);/' up/include/k/kq.h
sed -i 's/^#include "k.h"$/#include <k\/k.h>/' up/drivers/k/core.c
git -C up commit -qam "k: move the headers to include/k" || fail c1
git -C up show HEAD | grep -q '^rename from drivers/k/kq.h$' ||
	fail "git does not see the edited move as a rename"

# the target: the same tree, two lines more at the top of core.c (an
# offset, so that the patch is refreshed)
git init -q tgt
git -C tgt pull -q ../up base || fail pull
sed -i '1i /* the target */\n' tgt/drivers/k/core.c
git -C tgt commit -qam "target" || fail c2

kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/tgt\n\tref = HEAD\n' "$TEST_TMP" >ws/kernels/t.conf
expect_exit 0 kcarry -C ws import mv --git up base..HEAD
expect_exit 0 kcarry -C ws apply mv t
stdout_has '^  0001 offset '
ref=$(echo "$TEST_TMP"/ws/patches/mv/v1/t/0001-*.patch)
[ -f "$ref" ] || fail "no refreshed patch"
for f in k.h kq.h; do
	grep -q "^rename from drivers/k/$f\$" "$ref" &&
		grep -q "^rename to include/k/$f\$" "$ref" ||
		{ cat "$ref"; fail "the refreshed patch lost the rename of $f"; }
done
grep -q '^similarity index 100%$' "$ref" || fail "k.h's similarity"
grep -q '^similarity index 9[0-9]%$' "$ref" || fail "kq.h's similarity"
grep -q '^deleted file mode\|^new file mode' "$ref" &&
	fail "a rename refreshed as a deletion and a creation"
grep -q '^+void q_line_20(int flags);$' "$ref" || fail "kq.h's edit is lost"
[ "$(wc -l <"$ref")" -lt 60 ] || fail "the refreshed patch is $(wc -l <"$ref") lines"

# the peers apply it to the target and give kcarry's tree
right=$(git -C tgt rev-parse "kcarry/mv/v1/t^{tree}")
git clone -q tgt peer || fail clone
git -C peer apply --index "$ref" || fail "git apply refuses the refreshed patch"
[ "$(git -C peer write-tree)" = "$right" ] || fail "git apply gives another tree"
git clone -q tgt gnu || fail clone
(cd gnu && patch -p1 -s --no-backup-if-mismatch <"$ref") ||
	fail "GNU patch refuses the refreshed patch"
git -C gnu add -A && [ "$(git -C gnu write-tree)" = "$right" ] ||
	fail "GNU patch gives another tree"

# imported again, the refreshed series applies clean, no risk, same tree
expect_exit 0 kcarry -C ws import again ws/patches/mv/v1/t
expect_exit 0 kcarry -C ws apply --no-refresh --no-3way again t
stdout_has '^  0001 clean '
[ "$(git -C tgt rev-parse "kcarry/again/v1/t^{tree}")" = "$right" ] ||
	fail "the refreshed series gives another tree"
exit 0
