#!/bin/sh
# An added Kconfig line that selects, implies or depends on a symbol the
# target declares nowhere is a placement risk (docs/apply-rules.md,
# "Names"): Kconfig ignores a select of an undefined symbol and a
# condition on one is never true, so the build goes on without a word.
# 6.1's RT patch "arm: Disable FAST_GUP on PREEMPT_RT if HIGHPTE is also
# enabled" selects HAVE_FAST_GUP, which 6.12 calls HAVE_GUP_FAST.
# Checked:
#  - the old name in a select: a risk naming it, exit 1; GNU patch
#    applies it, exit 0;
#  - a symbol the same patch declares in another file, one a later patch
#    declares, the tree's own, and words of help text: exit 0, no risk;
#  - a symbol only an earlier patch that failed declares: the risk names
#    that patch, and the prerequisite;
#  - a makefile's obj-$(CONFIG_X) of an undeclared X: a risk; X_MODULE
#    of a declared X, and tools/ (perf's own CONFIG_ variables): none;
#  - a tree with no Kconfig file declaring the symbols the patched file
#    uses (a partial tree): nothing is said.
. ./lib.sh

need patch

TOP='mainmenu "t"

config PREEMPT_RT
	bool "RT"

config HIGHPTE
	bool "highpte"

config HAVE_GUP_FAST
	bool

source "arch/arm/Kconfig"
'
ARM='config ARM
	bool
	default y
	select HAVE_GUP_FAST if ARM_LPAE
	select HAVE_PERF_EVENTS
	help
	  The ARM series.

config ARM_LPAE
	bool "LPAE"

config HAVE_PERF_EVENTS
	bool
'
MK='obj-$(CONFIG_ARM) += arm.o
obj-$(CONFIG_HIGHPTE) += highpte.o
'
PERF='ifdef CONFIG_LIBUNWIND
  EXTLIBS += -lunwind
endif
'
make_repo t Kconfig "$TOP" arch/arm/Kconfig "$ARM" drivers/Makefile "$MK" \
	tools/perf/Makefile.config "$PERF"
ws_targets t


s=oldname
quilt_series $s 'Subject: arm: Disable FAST_GUP on PREEMPT_RT if HIGHPTE

--- a/arch/arm/Kconfig
+++ b/arch/arm/Kconfig
@@ -2,6 +2,6 @@ config ARM
 	bool
 	default y
-	select HAVE_GUP_FAST if ARM_LPAE
+	select HAVE_FAST_GUP if ARM_LPAE && !(PREEMPT_RT && HIGHPTE)
 	select HAVE_PERF_EVENTS
 	help
 	  The ARM series.
'
expect_exit 1 kcarry -C ws apply --no-refresh oldname@v1 t
stdout_has 'HAVE_FAST_GUP: no such Kconfig symbol in this tree'
if grep -q 'ARM_LPAE: no such\|PREEMPT_RT: no such\|HIGHPTE: no such' "$OUT"; then
	cat "$OUT"; fail "a declared symbol said missing"
fi
expect_exit 1 kcarry -C ws apply --json -o k.json --no-refresh oldname@v1 t
python3 - k.json "$KCARRY_FIXTURES/../../docs/kcarry-apply.schema.json" <<'EOT' || fail "apply JSON"
import json, sys
d = json.load(open(sys.argv[1]))
try:
    import jsonschema
    jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).validate(d)
except ImportError:
    pass
h = d["results"][0]["patches"][0]["files"][0]["hunks"][0]
assert h["risk"], h
c = h["cause"]
assert c["kind"] == "names", c
assert [(n["name"], n["use"]) for n in c["names"]] == [("HAVE_FAST_GUP", "kconfig")], c
EOT
# GNU patch takes it without a word
git -C t show base:arch/arm/Kconfig >gnu.Kconfig
patch -s gnu.Kconfig <q-oldname/0001.patch || fail "GNU patch failed"

# a makefile: the object of an undeclared symbol is never built
s=make
quilt_series $s 'Subject: drivers: build gup and rt

--- a/drivers/Makefile
+++ b/drivers/Makefile
@@ -1,2 +1,4 @@
 obj-$(CONFIG_ARM) += arm.o
 obj-$(CONFIG_HIGHPTE) += highpte.o
+obj-$(CONFIG_HAVE_FAST_GUP) += gup.o
+obj-$(CONFIG_PREEMPT_RT_MODULE) += rt.o
--- a/tools/perf/Makefile.config
+++ b/tools/perf/Makefile.config
@@ -1,3 +1,6 @@
 ifdef CONFIG_LIBUNWIND
   EXTLIBS += -lunwind
 endif
+ifdef CONFIG_LIBDW
+  EXTLIBS += -ldw
+endif
'
expect_exit 1 kcarry -C ws apply --no-refresh make@v1 t
stdout_has 'drivers/Makefile hunk 1: .*HAVE_FAST_GUP: no such Kconfig symbol in this tree'
if grep -q 'PREEMPT_RT_MODULE: no such\|LIBDW' "$OUT"; then
	cat "$OUT"; fail "a module of a declared symbol, or tools/, said missing"
fi

s=known
quilt_series $s 'Subject: arm: add an errata option

--- a/arch/arm/Kconfig
+++ b/arch/arm/Kconfig
@@ -11,3 +11,12 @@ config ARM_LPAE
 
 config HAVE_PERF_EVENTS
 	bool
+
+config ARM_ERRATA_1
+	bool "Errata 1"
+	depends on ARM && ARM_OLD_CPU && !PREEMPT_RT
+	select LATER_SYMBOL
+	help
+	  If unsure, select NOT_A_SYMBOL, or
+	  depends on NOTHING_AT_ALL and say Y.
+	default y if HIGHPTE
--- a/Kconfig
+++ b/Kconfig
@@ -9,4 +9,7 @@ config HIGHPTE
 config HAVE_GUP_FAST
 	bool
 
+config ARM_OLD_CPU
+	bool
+
 source "arch/arm/Kconfig"
' 'Subject: add the later symbol

--- a/Kconfig
+++ b/Kconfig
@@ -1,5 +1,8 @@
 mainmenu "t"
 
+config LATER_SYMBOL
+	bool
+
 config PREEMPT_RT
 	bool "RT"
 
'
expect_exit 0 kcarry -C ws apply --no-refresh known@v1 t
if grep -qi 'risk\|no such' "$OUT"; then cat "$OUT"; fail "known: a risk"; fi

s=failed
quilt_series $s 'Subject: add lazy preemption

--- a/Kconfig
+++ b/Kconfig
@@ -3,3 +3,6 @@
 config PREEMPT_RT_FULL
 	bool "RT full"
 
+config HAVE_PREEMPT_LAZY
+	bool
+
' 'Subject: arm: lazy preemption

--- a/arch/arm/Kconfig
+++ b/arch/arm/Kconfig
@@ -3,6 +3,7 @@ config ARM
 	default y
 	select HAVE_GUP_FAST if ARM_LPAE
 	select HAVE_PERF_EVENTS
+	select HAVE_PREEMPT_LAZY
 	help
 	  The ARM series.
 
'
expect_exit 1 kcarry -C ws apply --no-refresh failed@v1 t
stdout_has 'HAVE_PREEMPT_LAZY: no such Kconfig symbol in this tree \(added by 0001 of this series, which did not apply\)'

# a partial tree: the file's own symbols are declared nowhere
make_repo part arch/arm/Kconfig 'config ARM
	bool
	select HAVE_GUP_FAST if ARM_LPAE
	select HAVE_PERF_EVENTS
	select OTHER_ONE
	help
	  The ARM series.
'
cat >"ws/kernels/part.conf" <<EOT
[kernel]
	name = part
	url = $TEST_TMP/part
	ref = base
EOT
s=partial
quilt_series $s 'Subject: arm: Disable FAST_GUP on PREEMPT_RT if HIGHPTE

--- a/arch/arm/Kconfig
+++ b/arch/arm/Kconfig
@@ -1,5 +1,5 @@
 config ARM
 	bool
-	select HAVE_GUP_FAST if ARM_LPAE
+	select HAVE_FAST_GUP if ARM_LPAE && !(PREEMPT_RT && HIGHPTE)
 	select HAVE_PERF_EVENTS
 	select OTHER_ONE
'
expect_exit 0 kcarry -C ws apply --no-refresh partial@v1 part
if grep -qi 'risk\|no such' "$OUT"; then cat "$OUT"; fail "partial: a risk"; fi
exit 0
