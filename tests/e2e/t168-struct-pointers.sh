#!/bin/sh
# A struct that a pointer names at file scope or among a record's members
# is declared by that use (incomplete, as C has it): a header a patch
# adds in a new folder, "struct k_pool *k_pool_create(void);" and a
# member "struct k_attrs *attrs;", raises no risk, and gcc compiles it.
# A local pointer in a body to a struct the tree lacks is still a risk
# (a backport's struct folio), and a conflicting hunk whose context names
# such a struct is still told by it ("struct __k_wq: no such type").
. ./lib.sh

make_repo up \
include/linux/kbase.h '#ifndef _LINUX_KBASE_H
#define _LINUX_KBASE_H
struct kdev {
	int id;
	int flags;
};
int kdev_register(struct kdev *d);
void kdev_put(struct kdev *d);
#endif
' \
k/core.c '#include <linux/kbase.h>

int k_setup(struct kdev *d)
{
	int ret;

	ret = kdev_register(d);
	if (ret)
		return ret;
	d->flags = 1;
	kdev_put(d);
	return 0;
}

static int k_alloc_wq(struct kdev *d, int limit)
{
	int ret = 0;

	d->id = limit;
	ret = kdev_register(d);
	return ret;
}
'

# 0001: a new header in a new folder
mkdir -p up/include/knew
cat >up/include/knew/pool.h <<'EOT'
#ifndef _KNEW_POOL_H
#define _KNEW_POOL_H
#include <linux/kbase.h>
struct k_pool *k_pool_create(struct kdev *d, int size);
void k_pool_destroy(struct k_pool *pool);
struct k_holder {
	struct k_attrs *attrs;
	struct kdev *dev;
	int nr;
};
#endif
EOT
git -C up add -A && git -C up commit -qm "knew: a pool header" || fail c1
# 0002: a local pointer to a struct nothing declares
sed -i 's/^\tint ret;$/\tint ret;\n\tstruct k_folio *folio = NULL;/' up/k/core.c
sed -i 's/^\td->flags = 1;$/\td->flags = folio ? 2 : 1;/' up/k/core.c
git -C up commit -qam "k: a folio" || fail c2

# gcc takes the header alone
gcc -fsyntax-only -Iup/include -x c up/include/knew/pool.h ||
	fail "gcc refuses the new header"

kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/up\n\tref = base\n' "$TEST_TMP" >ws/kernels/t.conf
expect_exit 0 kcarry -C ws import hdr --git up base..HEAD~1
expect_exit 0 kcarry -C ws apply --no-refresh hdr t
grep RISK "$OUT" && fail "a struct a pointer names at file scope taken for a missing one"
expect_exit 0 kcarry -C ws import fol --git up HEAD~1..HEAD
printf '[kernel]\n\turl = %s/up\n\tref = HEAD~1\n' "$TEST_TMP" >ws/kernels/t1.conf
expect_exit 1 kcarry -C ws apply --no-refresh fol t1
stdout_has 'RISK: .*struct k_folio: no such type in this tree'

# a hunk whose context names struct __k_wq, which the target lacks
git init -q other
git -C other pull -q ../up base || fail pull
python3 - other/k/core.c <<'EOT' || fail edit
import sys
p = sys.argv[1]
s = open(p).read()
s = s.replace("static int k_alloc_wq(struct kdev *d, int limit)\n",
              "static struct __k_wq *\nk_alloc_wq(struct kdev *d, int limit)\n", 1)
open(p, "w").write(s)
EOT
git -C other commit -qam "wq returns the queue" || fail c3
sed -i 's/^k_alloc_wq(struct kdev \*d, int limit)$/k_alloc_wq(struct kdev *d, int limit, int flags)/' other/k/core.c
git -C other commit -qam "wq: flags" || fail c4
git -C other show HEAD | grep -q '^ static struct __k_wq \*$' ||
	fail "the hunk's context does not name struct __k_wq"
expect_exit 0 kcarry -C ws import wq --git other HEAD~1..HEAD
expect_exit 1 kcarry -C ws apply --no-refresh wq t
stdout_has 'conflict'
stdout_has 'struct __k_wq: no such type in this tree'
exit 0
