#!/bin/sh
# Every real linux-btrfs thread of ../shared/corpus imports with the
# patch count and version its README gives; replies that quote a patch
# give no patch; a stable FAILED report gives the upstream commit.
. ./lib.sh
need_corpus
C=$KCARRY_CORPUS
kcarry init ws >/dev/null

# file  expected-version  expected-patches
while read -r f v n; do
	name=$(echo "$f" | sed 's/\.v[0-9]*\.mbox$//' | cut -c1-40)
	expect_exit 0 kcarry -C ws import "$name" "$C/$f"
	echo "imported $name@$v: $n patch$( [ "$n" = 1 ] && echo "" || echo es) in patches/$name/$v" |
		expect_stdout
	# every stored patch parses again and names its files
	expect_exit 0 kcarry -C ws show "$name@$v"
	stdout_has "^$name@$v: $n patch"
done <<'EOT'
btrfs-workqueue-cleanups.v1.mbox v1 2
btrfs-workqueue-cleanups.v2.mbox v2 2
btrfs-workqueue-fixes-cleanups.v1.mbox v1 7
btrfs-fix-memory-ordering-between-normal-and-ordered-work-functions.v1.mbox v1 1
btrfs-add-a-shrinker-for-extent-maps.v1.mbox v1 11
btrfs-add-a-shrinker-for-extent-maps.v2.mbox v2 15
btrfs-add-a-shrinker-for-extent-maps.v3.mbox v3 10
failed-6.8-stable-btrfs-do-not-skip-re-registration-for-the-mounted-device.v1.mbox v1 1
failed-v6.6-stable-btrfs-fix-error-propagation-of-split-bios.v1.mbox v1 1
odd-base64-crlf-cjk-from-btrfs-remove-redundant-code.v1.mbox v1 1
odd-qp-webmail-btrfs-balance-raid1-raid10-mirror-selection.v1.mbox v1 1
odd-qp-git-send-email-btrfs-properly-enable-async-discard-when-switching-from-ro-rw.v1.mbox v1 1
odd-rfc2047-subject-btrfs-remove-duplicate-included-header-files.v1.mbox v1 1
odd-rfc2047-from-btrfs-tree-checker-fix-error-format-string.v1.mbox v1 1
odd-attachment-gmail-btrfs-allow-setting-per-extent-compression.v1.mbox v1 1
odd-attachment-thunderbird-btrfs-avoid-potential-out-of-bounds-in-btrfs-encode-fh.v1.mbox v1 1
EOT

# the FAILED report yields the embedded upstream commit, not the report
expect_exit 0 kcarry -C ws show failed-6.8-stable-btrfs-do-not-skip-re-r
stdout_has "^ +1  btrfs: do not skip re-registration for the mounted device$"
stdout_has "Anand Jain <anand.jain@oracle.com>"
grep -q "^From d565fffa68560ac540bf3d62cc79719da50d5e7a " \
	ws/patches/failed-6.8-stable-btrfs-do-not-skip-re-r/v1/0001-*.patch ||
	fail "upstream commit id lost"
grep -q "Sasha Levin" ws/patches/failed-6.8-stable-btrfs-do-not-skip-re-r/v1/0001-*.patch &&
	fail "the report's author leaked into the patch"

expect_exit 0 kcarry -C ws show odd-rfc2047-from-btrfs-tree-checker-fix-
stdout_has "Andreas Färber"
stdout_has "^ +1  btrfs: tree-checker: Fix error format string$"
expect_exit 0 kcarry -C ws show odd-base64-crlf-cjk-from-btrfs-remove-re
stdout_has "彭浩"

# replies are not patches
for f in odd-quoted-reply-btrfs-stripe-tree-correctly-truncate-stripe-extents-on-delete.v1.mbox \
	odd-localized-reply-prefix-inline-diff-btrfs-use-btrfs-path-auto-free.v1.mbox; do
	expect_exit 2 kcarry -C ws import reply "$C/$f"
	stderr_has "^error: .*no patch found in 1 message"
done
[ ! -d ws/patches/reply ] || fail "a reply was stored"

# several versions at once: the newest is taken and named
expect_exit 0 kcarry -C ws import shrinker "$C"/btrfs-add-a-shrinker-for-extent-maps.v*.mbox
expect_stdout <<'EOT'
imported shrinker@v3: 10 patches in patches/shrinker/v3
EOT
expect_stderr <<'EOT'
the source holds versions v1, v2, v3; importing the newest, v3 (--all-versions takes them all)
EOT
expect_exit 0 kcarry -C ws import --all-versions shrinker "$C"/btrfs-add-a-shrinker-for-extent-maps.v*.mbox
expect_stdout <<'EOT'
imported shrinker@v1: 11 patches in patches/shrinker/v1
imported shrinker@v2: 15 patches in patches/shrinker/v2
shrinker@v3 is unchanged: 10 patches in patches/shrinker/v3
EOT
expect_exit 0 kcarry -C ws import shrinker@v2 "$C"/btrfs-add-a-shrinker-for-extent-maps.v*.mbox
stdout_has "^shrinker@v2 is unchanged"
expect_exit 2 kcarry -C ws import shrinker@v9 "$C"/btrfs-add-a-shrinker-for-extent-maps.v*.mbox
stderr_has "^error: the source holds no version 'v9' \(it holds v1, v2, v3\)"

# provenance: the thread's root in the conf, each patch's id in origins
git config -f ws/series/shrinker.conf --get-all version.v3.msgid >"$TEST_TMP/ids"
[ "$(cat "$TEST_TMP/ids")" = "cover.1713267925.git.fdmanana@suse.com" ] || fail "cover msgid"
[ "$(cut -f2 ws/patches/shrinker/v3/origins | grep -c '@suse.com$')" -eq 10 ] ||
	fail "patch msgids in origins"

# trailers given in replies are collected onto the patch (b4 style)
grep -h "^Reviewed-by:" ws/patches/shrinker/v3/*.patch | sort -u >"$TEST_TMP/rb"
[ -s "$TEST_TMP/rb" ] || fail "no Reviewed-by collected from replies"
