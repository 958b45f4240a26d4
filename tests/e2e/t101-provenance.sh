#!/bin/sh
# What series/NAME.conf's [version "V"] sections say, as every reader of
# them takes it: list (count, kind, source, else <msgid>), fetch (the
# msgid, the last when a section names several; the archive from
# series.list-url or the newest stored version's lore source), import
# (a version stored before: its provenance complete, its source the
# same), export (the cover title and the first msgid's link).  Sections
# written by hand: keys in any case, version names with dots, several
# msgid lines, a [version] without a name, a file git config cannot
# read.
. ./export-lib.sh
. ./lib.sh

kcarry init w >/dev/null
mkdir q
printf -- '--- a/f.c\n+++ b/f.c\n@@ -1 +1,2 @@\n x\n+y\n' >q/a.patch
echo a.patch >q/series
expect_exit 0 kcarry -C w import s@6.1.1-1 q
cat >>w/series/s.conf <<'EOT'
[version "v2"]
	msgid = first@example.org
	MSGID = <last@example.org>
[version "v3"]
	Kind = mbox
	SOURCE = https://lore.example.org/list/abc@example.org/
	msgid = abc@example.org
[version "V3"]
	msgid = not a msgid
[version]
	kind = nothing
EOT

# list: the stored version, then those only the .conf names, in its
# order; a msgid written within <> is shown once within them
expect_exit 0 kcarry -C w list
expect_stdout <<EOT
SERIES                   VERSION              PATCHES  SOURCE
s                        6.1.1-1                    1  quilt $TEST_TMP/q
s                        v2                         -  (not imported) <last@example.org>
s                        v3                         -  (not imported) mbox https://lore.example.org/list/abc@example.org/
s                        V3                         -  (not imported) <not a msgid>
EOT
expect_stderr </dev/null

# fetch: the last msgid line; the version name as written (V3 is not v3)
expect_exit 3 kcarry -C w fetch --offline s@v2
stderr_has "^error: cannot fetch 'https://lore.kernel.org/all/last@example.org/t.mbox.gz' offline"
expect_exit 2 kcarry -C w fetch --offline s@V3
expect_stderr <<EOT
error: $TEST_TMP/w/series/s.conf: version.V3.msgid: 'not a msgid' is not a message-id
EOT
expect_exit 2 kcarry -C w fetch --offline s@v9
expect_stderr <<EOT
error: $TEST_TMP/w/series/s.conf has no version 'v9'
EOT
git config -f w/series/s.conf version.v9.kind mbox
expect_exit 2 kcarry -C w fetch --offline s@v9
expect_stderr <<EOT
error: s@v9 has no msgid in $TEST_TMP/w/series/s.conf
EOT
# every version not stored, in the file's order; one failing does not
# stop the others
expect_exit 3 kcarry -C w fetch --offline s
expect_stderr <<EOT
error: cannot fetch 'https://lore.kernel.org/all/last@example.org/t.mbox.gz' offline: the cache has no copy
hint: run once without --offline (or KCARRY_OFFLINE) to fill the cache
error: cannot fetch 'https://lore.kernel.org/all/abc@example.org/t.mbox.gz' offline: the cache has no copy
hint: run once without --offline (or KCARRY_OFFLINE) to fill the cache
error: $TEST_TMP/w/series/s.conf: version.V3.msgid: 'not a msgid' is not a message-id
EOT

# the archive: the newest stored version's lore source, else
# series.list-url (a slash added), an empty list-url is none
git config -f w/series/s.conf version.6.1.1-1.source \
	https://lore.example.org/list/root@example.org/
expect_exit 3 kcarry -C w fetch --offline s@v2
stderr_has "^error: cannot fetch 'https://lore.example.org/list/last@example.org/t.mbox.gz' offline"
git config -f w/series/s.conf series.list-url https://other.example.org/l
expect_exit 3 kcarry -C w fetch --offline s@v2
stderr_has "^error: cannot fetch 'https://other.example.org/l/last@example.org/t.mbox.gz' offline"
git config -f w/series/s.conf series.list-url ""
expect_exit 3 kcarry -C w fetch --offline s@v2
stderr_has "^error: cannot fetch 'https://lore.example.org/list/last@example.org/t.mbox.gz' offline"

# a file git config cannot read is an error, named, for each reader
cp w/series/s.conf good.conf
printf '[version "v4"\n' >>w/series/s.conf
for cmd in list "fetch --offline s" "fetch --offline s@v2"; do
	# shellcheck disable=SC2086
	expect_exit 2 kcarry -C w $cmd
	stderr_has "^error: cannot read '$TEST_TMP/w/series/s.conf': .*missing ']'"
done
cp good.conf w/series/s.conf

# import again: keys in any case are the same record (unchanged); one
# missing is repaired; the source compared in any case of its key
rm -rf ws2 && kcarry init ws2 >/dev/null
expect_exit 0 kcarry -C ws2 import s@v1 q
sed -i 's/kind = quilt/KIND = quilt/; s/patches = 1/Patches = 1/' ws2/series/s.conf
expect_exit 0 kcarry -C ws2 import s@v1 q
expect_stdout <<'EOT'
s@v1 is unchanged: 1 patch in patches/s/v1
EOT
sed -i '/Patches = 1/d' ws2/series/s.conf
expect_exit 0 kcarry -C ws2 import s@v1 q
expect_stdout <<'EOT'
s@v1 is unchanged: 1 patch in patches/s/v1; its provenance in series/s.conf was incomplete and is recorded again
EOT
grep -q '^	patches = 1$' ws2/series/s.conf || fail "count not recorded again"
sed -i 's/source = /SOURCE = /' ws2/series/s.conf
sed -i '1i From: A <a@b.c>\nSubject: [PATCH] a header now\n' q/a.patch
expect_exit 0 kcarry -C ws2 import s@v1 q
expect_stdout <<'EOT'
updated s@v1: 1 patch in patches/s/v1 (the same diffs from the same source; headers or messages changed)
EOT

# export: the cover title and the link of the first msgid line, written
# by hand within <> (as list and fetch take it)
export_setup
expect_exit 0 kcarry -C ws apply wq 6.1
cat >>ws/series/wq.conf <<'EOT'
[version "v1"]
	cover = btrfs: two fixes
	msgid = <cover-first@example.org>
	msgid = cover-second@example.org
EOT
expect_exit 0 kcarry -C ws export wq 6.1 --format mbox -o out
grep -qx 'Subject: \[PATCH 6.1.y 0/2\] btrfs: two fixes' out/0000-cover-letter.patch ||
	{ cat out/0000-cover-letter.patch; fail "cover title"; }
tr '\n' ' ' <out/0000-cover-letter.patch |
	grep -q 'This is a backport of wq@v1 ("btrfs: two fixes"), *https://lore.kernel.org/r/cover-first@example.org,' ||
	{ cat out/0000-cover-letter.patch; fail "cover link"; }
exit 0
