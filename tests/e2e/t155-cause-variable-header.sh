#!/bin/sh
# A hunk header that names a variable, not a function.  GNU diff -p cuts
# the header at 40 characters, so Debian's intel-iommu patch carries
# "@@ ... @@ int intel_iommu_sm = IS_ENABLED(CONFIG_I": a variable with
# an initializer, cut inside the macro call.  When the hunk conflicts,
# the cause must not claim the file lacks a function "IS_ENABLED(...)()"
# (nor "intel_iommu_sm()"): nothing in the header is a function.  The
# same header must still place the hunk where it applies.
. ./lib.sh

SRC='#include <linux/init.h>

#define IS_GFX_DEVICE(pdev) ((pdev->class >> 16) == 3)

int intel_iommu_sm = IS_ENABLED(CONFIG_INTEL_IOMMU_SCALABLE_MODE_DEFAULT_ON);
int intel_iommu_enabled = 0;
EXPORT_SYMBOL_GPL(intel_iommu_enabled);

static int intel_iommu_superpage = 1;
static int iommu_identity_mapping;
static int iommu_skip_te_disable;
static int disable_igfx_iommu;

#define IDENTMAP_AZALIA		4

const struct iommu_ops intel_iommu_ops;
'
# the conflict: the target added its own line where the first insertion
# goes, and dropped a line of its context
CONFLICT=$(printf '%s' "$SRC" |
	sed -e '/^static int iommu_skip_te_disable;$/d' \
	    -e 's/^static int intel_iommu_superpage = 1;$/static int intel_iommu_pasid = 1;\n&/')
CONFLICT="$CONFLICT
"
# the offset: ten lines more above, the rest as it was
OFFSET="$(c_lines 10 x | sed 's/^\t//')
$SRC"

mkdir -p a b q
printf '%s' "$SRC" >a/iommu.c
printf '%s' "$SRC" | sed \
	-e 's/^static int intel_iommu_superpage = 1;$/static int dmar_map_intgpu = 1;\n&/' \
	-e 's/^#define IDENTMAP_AZALIA.*/&\n#define IDENTMAP_INTGPU\t\t8/' >b/iommu.c
(cd "$TEST_TMP" && diff -up a/iommu.c b/iommu.c) >q/intgpu.patch
[ $? -le 1 ] || fail "diff"
grep -q '^@@ .* @@ int intel_iommu_sm = IS_ENABLED(CONFIG_I$' q/intgpu.patch ||
	{ cat q/intgpu.patch; fail "diff -p wrote another header"; }
echo intgpu.patch >q/series

make_repo conflict drivers/iommu/intel/iommu.c "$CONFLICT"
make_repo offset drivers/iommu/intel/iommu.c "$OFFSET"
sed -i 's,^--- a/,--- a/drivers/iommu/intel/,; s,^+++ b/,+++ b/drivers/iommu/intel/,' \
	q/intgpu.patch

ws_targets conflict offset
expect_exit 0 kcarry -C ws import iommu@v1 q

# 1. conflict: no function is named in the cause
expect_exit 1 kcarry -C ws apply --no-adapt --no-3way iommu@v1 conflict
stdout_has 'iommu.c hunk 1: conflict'
if grep -Eq 'IS_ENABLED\(CONFIG_I\)|has no intel_iommu_sm|has no [A-Za-z_]+\(' "$OUT"; then
	cat "$OUT"
	fail "the cause names a function the header does not name"
fi
expect_exit 1 kcarry -C ws check --no-adapt --no-3way -f json iommu@v1 conflict
jq -e '[.. | objects | select(has("cause")) | .cause | objects |
	select(.kind == "function")] | length == 0' "$OUT" >/dev/null ||
	{ cat "$OUT"; fail "JSON: a cause of kind function"; }

# 2. offset: the hunk lands ten lines down, exactly as GNU patch puts it
expect_exit 0 kcarry -C ws apply iommu@v1 offset
stdout_has 'offset'
git -C offset worktree add -q "$TEST_TMP/gnu" base 2>/dev/null ||
	fail "worktree"
patch -s -p1 -d "$TEST_TMP/gnu" <q/intgpu.patch || fail "GNU patch"
git -C ws/kernels/cache/offset.git show kcarry/iommu/v1/offset:drivers/iommu/intel/iommu.c \
	>got.c 2>/dev/null ||
	git -C offset show kcarry/iommu/v1/offset:drivers/iommu/intel/iommu.c >got.c ||
	fail "no branch"
cmp -s got.c gnu/drivers/iommu/intel/iommu.c ||
	{ diff -u gnu/drivers/iommu/intel/iommu.c got.c; fail "not GNU patch's result"; }
