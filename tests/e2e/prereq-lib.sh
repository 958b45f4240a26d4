# prereq-lib.sh: the fixture of the prerequisite tests (t127, t128),
# sourced after lib.sh.  prereq_tree DIR: a small driver, demo.h and
# core.c, with the shared header it includes, committed with tag base.
# Then: 'up', the series feat (0001 declares demo_reset() in a part of
# demo.h the target has otherwise, so it fails; 0002 calls it from
# demo_stop() and uses d->generation and DEMO_F_QUIET, which the tree
# lacks); 'genup', whose one commit adds the member generation (the series
# gen); 'hist', the target's upstream history, whose last commit adds
# DEMO_F_QUIET.
TYPES_H='#ifndef _LINUX_TYPES_H
#define _LINUX_TYPES_H
typedef unsigned int u32;
#endif
'
DEMO_H='#ifndef DEMO_H
#define DEMO_H
#include <linux/types.h>

struct demo {
	u32 count;
	u32 flags;
};

void demo_start(struct demo *d);
void demo_stop(struct demo *d);
#endif
'
CORE_C='#include "demo.h"

void demo_start(struct demo *d)
{
	d->count = 0;
	d->flags = 0;
}

void demo_stop(struct demo *d)
{
	d->count = 1;
	d->flags = 1;
}
'
prereq_tree() { # DIR
	make_repo "$1" include/linux/types.h "$TYPES_H" \
		drivers/demo/demo.h "$DEMO_H" drivers/demo/core.c "$CORE_C"
}
prereq_repos() {
	prereq_tree up
	# 0001: demo_reset() declared after the declarations upstream has
	sed -i 's/^void demo_stop(struct demo \*d);$/&\nvoid demo_reset(struct demo *d);/' up/drivers/demo/demo.h
	git -C up commit -qam "demo: add demo_reset()" || fail commit
	sed -i 's/^\td->flags = 1;$/&\n\tdemo_reset(d);\n\td->generation++;\n\td->flags |= DEMO_F_QUIET;/' up/drivers/demo/core.c
	git -C up commit -qam "demo: reset on stop" || fail commit
	prereq_tree genup
	sed -i 's/^\tu32 flags;$/&\n\tu32 generation;/' genup/drivers/demo/demo.h
	git -C genup commit -qam "demo: count generations" || fail commit
	prereq_tree hist
	sed -i 's/^struct demo {$/#define DEMO_F_QUIET 4\n\n&/' hist/drivers/demo/demo.h
	git -C hist commit -qam "demo: add DEMO_F_QUIET" || fail commit
	git -C hist tag quiet
	# the target: its declarations are its own (0001 finds no context)
	prereq_tree tgt
	sed -i 's/^void demo_start(struct demo \*d);$/int demo_begin(struct demo *d, u32 how);/; s/^void demo_stop(struct demo \*d);$/int demo_end(struct demo *d, u32 how);\nvoid demo_start(struct demo *d);\nvoid demo_stop(struct demo *d);/' tgt/drivers/demo/demo.h
	sed -i 's/^#endif$/\/* end *\/\n&/' tgt/drivers/demo/demo.h
	git -C tgt commit -qam "the target's own declarations" || fail commit
	git -C tgt tag -f base >/dev/null || fail tag
}
