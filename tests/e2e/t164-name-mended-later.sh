#!/bin/sh
# A line that uses a name the target lacks is no risk when a later patch
# of the same series replaces that very line by one without the name
# (docs/apply-rules.md, "Names"): the series mends it itself, as a name a
# later patch declares is the series' own.  Debian's 6.1 RT series is
# this: its 0005 turns vrf.c's dstats->rx_packets into dstats->rx_pkts, a
# member 6.1 lacks (a stable merge resolved the wrong way), and its 0065
# ("net: fix mis-merge from stable in drivers/net/vrf.c") turns it back;
# kcarry flagged 0005 and exited 1 on a series that ships and builds.
# Checked:
#  - the two patches: exit 0, no risk; the peers are GNU patch (both
#    apply) and gcc, which compiles the result;
#  - the first patch alone: the risk names rx_pkts, exit 1 (gcc refuses
#    that tree);
#  - a later patch whose new line still uses the name, one that replaces
#    the same line in another file, and an earlier patch that removes
#    it: the risk stays;
#  - the same of a Kconfig "select" and a makefile's CONFIG_ word that a
#    later patch replaces: no risk; the first patch alone: a risk.
. ./lib.sh

need gcc
need patch

C='struct dstats {
	unsigned long rx_packets;
	unsigned long rx_bytes;
};

unsigned long vrf_rx(struct dstats *d)
{
	unsigned long n;

	n = d->rx_bytes;
	return n;
}
'
KCONFIG='config NET
	bool "net"

config VRF
	tristate "vrf"
	depends on NET
'
MAKEFILE='obj-$(CONFIG_NET) += core.o
obj-$(CONFIG_VRF) += vrf.o
'
make_repo t drivers/net/vrf.c "$C" drivers/net/other.c "$C" \
	drivers/net/Kconfig "$KCONFIG" drivers/net/Makefile "$MAKEFILE"
ws_targets t

# hunk FILE MINUS PLUS: a patch of FILE's "n = d->rx_bytes;" line that
# adds PLUS after it (MINUS, when not empty, removed first)
hunk() {
	if [ -n "$2" ]; then
		printf -- '--- a/%s\n+++ b/%s\n@@ -8,6 +8,6 @@ unsigned long vrf_rx(struct dstats *d)\n \tunsigned long n;\n \n \tn = d->rx_bytes;\n-%s\n+%s\n \treturn n;\n }\n' \
			"$1" "$1" "$2" "$3"
	else
		printf -- '--- a/%s\n+++ b/%s\n@@ -8,5 +8,6 @@ unsigned long vrf_rx(struct dstats *d)\n \tunsigned long n;\n \n \tn = d->rx_bytes;\n+%s\n \treturn n;\n }\n' \
			"$1" "$1" "$3"
	fi
}
MISMERGE="Subject: net: Remove the obsolete u64_stats_fetch_*_irq() users

$(hunk drivers/net/vrf.c '' '	n += d->rx_pkts;')
"
MEND="Subject: net: fix mis-merge from stable in drivers/net/vrf.c

$(hunk drivers/net/vrf.c '	n += d->rx_pkts;' '	n += d->rx_packets;')
"

# the series mends its own line: no risk
quilt_series mended "$MISMERGE" "$MEND"
expect_exit 0 kcarry -C ws apply --no-refresh mended@v1 t
if grep -q 'RISK\|rx_pkts' "$OUT"; then
	cat "$OUT"; fail "a name the series' later patch replaces said missing"
fi
# the peers: GNU patch applies both, gcc compiles the result
git -C t show base:drivers/net/vrf.c >vrf.c
patch -s vrf.c <q-mended/0001.patch || fail "GNU patch: 0001"
patch -s vrf.c <q-mended/0002.patch || fail "GNU patch: 0002"
git -C t show kcarry/mended/v1/t:drivers/net/vrf.c | cmp -s - vrf.c ||
	fail "kcarry's result is not GNU patch's"
gcc -fsyntax-only -x c vrf.c || fail "gcc refuses the mended result"

# the first patch alone: a risk, and gcc refuses the tree
quilt_series alone "$MISMERGE"
expect_exit 1 kcarry -C ws apply --no-refresh alone@v1 t
stdout_has 'hunk 1: .*RISK: .*rx_pkts: no such member in this tree'
git -C t show kcarry/alone/v1/t:drivers/net/vrf.c >alone.c
if gcc -fsyntax-only -x c alone.c 2>/dev/null; then
	fail "gcc compiles rx_pkts: the test proves nothing"
fi

# the later line still uses the name: a risk
quilt_series still "$MISMERGE" "Subject: net: still

$(hunk drivers/net/vrf.c '	n += d->rx_pkts;' '	n += d->rx_pkts + 0;')
"
expect_exit 1 kcarry -C ws apply --no-refresh still@v1 t
stdout_has '0001 .*\[risk\]'
stdout_has 'rx_pkts: no such member in this tree'

# the same line replaced in another file: a risk (other.c gets the line
# first, from the same patch, so the later one applies)
quilt_series elsewhere "Subject: net: both files

$(hunk drivers/net/vrf.c '' '	n += d->rx_pkts;')
$(hunk drivers/net/other.c '' '	n += d->rx_pkts;')
" "Subject: net: mend other.c only

$(hunk drivers/net/other.c '	n += d->rx_pkts;' '	n += d->rx_packets;')
"
expect_exit 1 kcarry -C ws apply --no-refresh elsewhere@v1 t
stdout_has 'drivers/net/vrf.c hunk 1: .*rx_pkts: no such member in this tree'
if grep -q 'drivers/net/other.c hunk 1: .*RISK' "$OUT"; then
	cat "$OUT"; fail "other.c's line, mended later, said missing"
fi

# an earlier patch that removes the line mends nothing
quilt_series earlier "Subject: net: add and drop

$(hunk drivers/net/other.c '' '	n += d->rx_pkts;')
" "Subject: net: drop it

$(hunk drivers/net/other.c '	n += d->rx_pkts;' '	n += d->rx_packets;')
" "Subject: net: add it to vrf.c

$(hunk drivers/net/vrf.c '' '	n += d->rx_pkts;')
"
expect_exit 1 kcarry -C ws apply --no-refresh earlier@v1 t
stdout_has '0003 .*\[risk\]'

# Kconfig and Kbuild: a symbol the tree lacks, put right by a later patch
KSEL='Subject: net: vrf selects the old symbol

--- a/drivers/net/Kconfig
+++ b/drivers/net/Kconfig
@@ -4,3 +4,4 @@ config VRF
 config VRF
 	tristate "vrf"
 	depends on NET
+	select NET_OLD
--- a/drivers/net/Makefile
+++ b/drivers/net/Makefile
@@ -1,2 +1,3 @@
 obj-$(CONFIG_NET) += core.o
 obj-$(CONFIG_VRF) += vrf.o
+obj-$(CONFIG_VRF_OLD) += vrf-old.o
'
quilt_series kmended "$KSEL" 'Subject: net: the symbols of this tree

--- a/drivers/net/Kconfig
+++ b/drivers/net/Kconfig
@@ -4,4 +4,4 @@ config VRF
 config VRF
 	tristate "vrf"
 	depends on NET
-	select NET_OLD
+	select NET
--- a/drivers/net/Makefile
+++ b/drivers/net/Makefile
@@ -1,3 +1,3 @@
 obj-$(CONFIG_NET) += core.o
 obj-$(CONFIG_VRF) += vrf.o
-obj-$(CONFIG_VRF_OLD) += vrf-old.o
+obj-$(CONFIG_VRF) += vrf-old.o
'
expect_exit 0 kcarry -C ws apply --no-refresh kmended@v1 t
if grep -q 'RISK\|NET_OLD\|VRF_OLD' "$OUT"; then
	cat "$OUT"; fail "a Kconfig symbol a later patch replaces said missing"
fi
quilt_series kalone "$KSEL"
expect_exit 1 kcarry -C ws apply --no-refresh kalone@v1 t
stdout_has 'Kconfig hunk 1: .*NET_OLD: no such Kconfig symbol in this tree'
stdout_has 'Makefile hunk 1: .*VRF_OLD: no such Kconfig symbol in this tree'
exit 0
