#!/bin/sh
# kcarry export --format mbox: a stable-style series for git send-email.
# The real git decides: git am of the messages onto the target gives
# exactly the kcarry branch's tree, git mailinfo of each gives the
# author, subject and body intended, git send-email --dry-run sends them
# as they are.  A single upstream commit from a
# real stable FAILED report (../shared/corpus) backported to a 6.1 tree
# is written as stable's rules ask: [PATCH 6.1.y] and the upstream
# commit line first (Documentation/process/stable-kernel-rules.rst).
. ./export-lib.sh
. ./lib.sh

export_setup
expect_exit 0 kcarry -C ws apply wq 6.1

expect_exit 0 kcarry -C ws export wq 6.1 --format mbox -o out --signoff \
	--to stable@vger.kernel.org --cc 'A U Thor <author@example.org>' \
	--cc linux-btrfs@vger.kernel.org
expect_stdout <<'EOT'
exported wq@v1 on 6.1 as mbox: 2 patches (out)
  out/0000-cover-letter.patch
  out/0001-btrfs-exact-fix.patch
  out/0002-btrfs-offset-fix.patch
EOT
expect_stderr </dev/null

# the header of a message as git format-patch --to --cc writes it
sed '/^$/q' out/0002-btrfs-offset-fix.patch >"$TEST_TMP/got"
cat >"$TEST_TMP/want" <<EOT
From $(git -C tgt rev-parse kcarry/wq/v1/6.1) Mon Sep 17 00:00:00 2001
From: A U Thor <author@example.org>
Date: Thu, 7 Nov 2013 10:00:00 +0800
Subject: [PATCH 6.1.y 2/2] btrfs: offset fix
To: stable@vger.kernel.org
Cc: A U Thor <author@example.org>,
 linux-btrfs@vger.kernel.org

EOT
diff -u "$TEST_TMP/want" "$TEST_TMP/got" || fail "message header"

# git mailinfo: author, subject, body with the upstream line first
git mailinfo "$TEST_TMP/msg" "$TEST_TMP/patch" <out/0002-btrfs-offset-fix.patch >"$TEST_TMP/info" ||
	fail "git mailinfo"
cat >"$TEST_TMP/want" <<'EOT'
Author: A U Thor
Email: author@example.org
Subject: btrfs: offset fix
Date: Thu, 7 Nov 2013 10:00:00 +0800

EOT
diff -u "$TEST_TMP/want" "$TEST_TMP/info" || fail "mailinfo header"
cat >"$TEST_TMP/want" <<EOT
commit $UP2 upstream.

The second fix.

Link: https://lore.kernel.org/r/20241106-offset-1-author@example.org
Signed-off-by: A U Thor <author@example.org>
[ C O Mitter: backported to 6.1.y: fs/btrfs/async-thread.c: hunk 1
  offset +5 lines ]
Signed-off-by: C O Mitter <committer@example.org>
EOT
diff -u "$TEST_TMP/want" "$TEST_TMP/msg" || fail "mailinfo body"
git mailinfo "$TEST_TMP/msg" "$TEST_TMP/patch" <out/0001-btrfs-exact-fix.patch >"$TEST_TMP/info"
grep -qx 'Subject: btrfs: exact fix' "$TEST_TMP/info" || fail "subject of 1/2"
[ "$(head -n 1 "$TEST_TMP/msg")" = "commit $UP1 upstream." ] || fail "upstream line of 1/2"

# the cover letter: from the backporter, what each patch needed
sed -n '/^Subject:/p;/^$/,$p' out/0000-cover-letter.patch >"$TEST_TMP/got"
cat >"$TEST_TMP/want" <<EOT
Subject: [PATCH 6.1.y 0/2] wq: backport to 6.1.y

This is a backport of wq@v1 to 6.1.y, carried onto 6.1 (Linux 6.1.170).

  1/2 btrfs: exact fix
      commit $UP1 upstream
      applied as it is
  2/2 btrfs: offset fix
      commit $UP2 upstream
      fs/btrfs/async-thread.c: hunk 1 offset +5 lines

-- 
$(kcarry version)

EOT
diff -u "$TEST_TMP/want" "$TEST_TMP/got" || fail "cover letter"
grep -q '^From: C O Mitter <committer@example.org>$' out/0000-cover-letter.patch || fail "cover From"
grep -q '^Date: Wed, 6 Nov 2024 02:09:00 +0000$' out/0000-cover-letter.patch || fail "cover Date"

# git am onto the target: exactly the branch's tree
git clone -q tgt am && git -C am checkout -q v6.1.170 || fail "clone"
git -C am am -q "$TEST_TMP"/out/0001-*.patch "$TEST_TMP"/out/0002-*.patch ||
	fail "git am"
[ "$(git -C am rev-parse HEAD^{tree})" = "$(git -C tgt rev-parse kcarry/wq/v1/6.1^{tree})" ] ||
	fail "git am's tree is not the branch's"
[ "$(git -C am log -1 --format=%an%n%s HEAD~1)" = "A U Thor
btrfs: exact fix" ] || fail "git am: author, subject"

# git send-email takes the messages as they are: three, in order, each to
# the recipients its headers name (--dry-run: nothing is sent)
if git send-email --help >/dev/null 2>&1 && command -v perl >/dev/null; then
	git send-email --dry-run --confirm=never --suppress-cc=self \
		--from='C O Mitter <committer@example.org>' \
		--smtp-server=/bin/false out/*.patch >"$TEST_TMP/se" 2>&1 ||
		{ cat "$TEST_TMP/se"; fail "git send-email --dry-run"; }
	grep '^Subject:' "$TEST_TMP/se" >"$TEST_TMP/sent"
	cat >"$TEST_TMP/want" <<'EOT'
Subject: [PATCH 6.1.y 0/2] wq: backport to 6.1.y
Subject: [PATCH 6.1.y 1/2] btrfs: exact fix
Subject: [PATCH 6.1.y 2/2] btrfs: offset fix
EOT
	diff -u "$TEST_TMP/want" "$TEST_TMP/sent" || fail "send-email's messages"
	# each message to stable, copied to the list and the author
	[ "$(grep -c '^Sendmail: .* stable@vger.kernel.org .*author@example.org.* linux-btrfs@vger.kernel.org' "$TEST_TMP/se")" = 3 ] ||
		{ cat "$TEST_TMP/se"; fail "send-email's recipients"; }
	[ "$(grep -c '^Result: OK' "$TEST_TMP/se")" = 3 ] || fail "send-email's results"
fi

# a smaller version replaces kcarry's files; a user's file is refused
expect_exit 0 kcarry -C ws import wq@v2 --git up base..HEAD~3
expect_exit 0 kcarry -C ws export wq@v2 6.1 --format mbox -o out
expect_stdout <<'EOT'
exported wq@v2 on 6.1 as mbox: 1 patch (out)
  out/0001-btrfs-exact-fix.patch
  out/0000-cover-letter.patch (removed)
  out/0002-btrfs-offset-fix.patch (removed)
EOT
grep -q '^Subject: \[PATCH 6.1.y\] btrfs: exact fix$' out/0001-btrfs-exact-fix.patch ||
	fail "single patch subject"
echo 'my notes' >out/0002-btrfs-offset-fix.patch
expect_exit 2 kcarry -C ws export wq@v1 6.1 --format mbox -o out
expect_stderr <<'EOT'
error: 'out/0002-btrfs-offset-fix.patch' exists and kcarry did not write it
hint: move it away, or export somewhere else
EOT
[ "$(cat out/0002-btrfs-offset-fix.patch)" = 'my notes' ] || fail "user file overwritten"
grep -q 'Subject: \[PATCH 6.1.y\]' out/0001-btrfs-exact-fix.patch || fail "wrote before refusing"

# a line break in a header value would start a header of its own (Bcc:)
rm -rf inj
for opt in --to --cc --in-reply-to --subject-prefix; do
	expect_exit 2 kcarry -C ws export wq 6.1 --format mbox -o inj $opt "$(printf 'a@example.org\nBcc: eve@example.org')"
	stderr_has "^error: $opt holds a line break: a mail header value is one line of text\$"
	expect_exit 2 kcarry -C ws export wq 6.1 --format mbox -o inj $opt "$(printf 'a@example.org\rBcc: eve@example.org')"
	stderr_has "^error: $opt holds a carriage return"
done
[ ! -e inj ] || fail "wrote with a forged header"

# --- a real stable FAILED report, backported to a 6.1 tree -------------
need_corpus
failed=$KCARRY_CORPUS/failed-v6.6-stable-btrfs-fix-error-propagation-of-split-bios.v1.mbox
upstream=$(sed -n 's/^>From \([0-9a-f]\{40\}\) Mon Sep 17 00:00:00 2001$/\1/p' "$failed")
[ ${#upstream} = 40 ] || fail "no upstream commit in the report"
expect_exit 0 kcarry -C ws import split-bios "$failed"

# a 6.1 tree where the fix applies: each file the preimage of its hunks
# inside the functions their headers name, three lines lower than
# upstream had them
python3 - ws/patches/split-bios/v1/0001-*.patch t61 <<'EOT' || fail "6.1 tree"
import os, re, sys
text = open(sys.argv[1]).read().split("\n")
files, cur = {}, None
for line in text:
    m = re.match(r"^diff --git a/(\S+) b/", line)
    if m:
        cur = files.setdefault(m.group(1), [])
        continue
    m = re.match(r"^@@ -(\d+)(?:,\d+)? \+\S+ @@ ?(.*)$", line)
    if m and cur is not None:
        cur.append([int(m.group(1)), [], m.group(2)])
        continue
    if cur and cur[-1] and line[:1] in (" ", "-") and not line.startswith("--- "):
        cur[-1][1].append(line[1:])
for path, hunks in files.items():
    out = ["/* 6.1 only %d */" % i for i in range(3)]
    for start, lines, func in hunks:
        while len(out) < start - 1 + 3:
            out.append("/* filler %d */" % len(out))
        # the function the hunk header names, just above it
        if func and len(out) > 3:
            out[-1] = func
        out.extend(lines)
    out += ["/* end %d */" % i for i in range(5)]
    full = os.path.join(sys.argv[2], path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    open(full, "w").write("\n".join(out) + "\n")
EOT
printf 'VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 112\nEXTRAVERSION =\n' >t61/Makefile
git init -q t61 && git -C t61 add -A && git -C t61 commit -qm "Linux 6.1.112" || fail "t61"
cat >ws/kernels/stable61.conf <<EOT
[kernel]
	url = $TEST_TMP/t61
	ref = master
EOT
expect_exit 0 kcarry -C ws export split-bios stable61 --format mbox -o stable
expect_stdout <<'EOT'
exported split-bios@v1 on stable61 as mbox: 1 patch (stable)
  stable/0001-btrfs-fix-error-propagation-of-split-bios.patch
EOT
msg=stable/0001-btrfs-fix-error-propagation-of-split-bios.patch
# stable's subject tag, and the line that names the upstream commit, as
# in the real "[PATCH 6.1.y]" submissions the report asks for
grep -qx 'Subject: \[PATCH 6.1.y\] btrfs: fix error propagation of split bios' $msg ||
	fail "stable subject"
git mailinfo "$TEST_TMP/msg" "$TEST_TMP/patch" <$msg >"$TEST_TMP/info"
grep -qx 'Author: Naohiro Aota' "$TEST_TMP/info" || fail "author"
[ "$(sed -n 1p "$TEST_TMP/msg")" = "commit $upstream upstream." ] &&
	[ -z "$(sed -n 2p "$TEST_TMP/msg")" ] ||
	fail "first body line: $(head -n 1 "$TEST_TMP/msg")"
tail -n 3 "$TEST_TMP/msg" >"$TEST_TMP/got"
cat >"$TEST_TMP/want" <<'EOT'
[ C O Mitter: backported to 6.1.y: fs/btrfs/bio.c: hunk 1 offset +3
  lines, hunk 2 offset +3 lines; fs/btrfs/bio.h: hunk 1 offset +3
  lines ]
EOT
diff -u "$TEST_TMP/want" "$TEST_TMP/got" || fail "backporter's note"
# the backport answers the report: threaded under its Message-ID, as
# git send-email --in-reply-to would (the first Message-ID of the mbox)
report_id=$(sed -n 's/^Message-I[Dd]: *<\(.*\)>$/\1/p' "$failed" | head -n 1)
[ -n "$report_id" ] || fail "no Message-ID in the report"
grep -qx "In-Reply-To: <$report_id>" $msg || fail "not threaded under the FAILED report"
grep -qx "References: <$report_id>" $msg || fail "no References to the FAILED report"
expect_exit 0 kcarry -C ws export split-bios stable61 --format mbox -o unthreaded --in-reply-to ''
! grep -q '^In-Reply-To:' unthreaded/0001-*.patch || fail "--in-reply-to '' still threads"
expect_exit 0 kcarry -C ws export split-bios stable61 --format mbox -o other --in-reply-to '<x@example.org>'
grep -qx 'In-Reply-To: <x@example.org>' other/0001-*.patch || fail "--in-reply-to MSGID"
expect_exit 2 kcarry -C ws export split-bios stable61 --format quilt -o q --in-reply-to x@example.org
stderr_has "in-reply-to"
# git send-email keeps the thread the file names
if git send-email --help >/dev/null 2>&1 && command -v perl >/dev/null; then
	git send-email --dry-run --confirm=never --suppress-cc=all --to stable@vger.kernel.org \
		--from='C O Mitter <committer@example.org>' \
		--smtp-server=/bin/false $msg >"$TEST_TMP/se" 2>&1 ||
		{ cat "$TEST_TMP/se"; fail "git send-email --dry-run of the threaded backport"; }
	grep -q "In-Reply-To: <$report_id>" "$TEST_TMP/se" || { cat "$TEST_TMP/se"; fail "send-email lost the thread"; }
fi
# the AUTOSEL form: its subject tag and its bracketed upstream line
expect_exit 0 kcarry -C ws export split-bios stable61 --format mbox -o autosel --upstream-line bracket \
	--subject-prefix 'PATCH AUTOSEL 6.1'
grep -qx 'Subject: \[PATCH AUTOSEL 6.1\] btrfs: fix error propagation of split bios' \
	autosel/0001-btrfs-fix-error-propagation-of-split-bios.patch || fail "AUTOSEL subject"
git mailinfo "$TEST_TMP/msg" "$TEST_TMP/patch" <autosel/0001-btrfs-fix-error-propagation-of-split-bios.patch >"$TEST_TMP/info"
[ "$(head -n 1 "$TEST_TMP/msg")" = "[ Upstream commit $upstream ]" ] || fail "bracket line"
grep -qx 'Subject: btrfs: fix error propagation of split bios' "$TEST_TMP/info" ||
	fail "git mailinfo does not strip the AUTOSEL tag"
expect_exit 2 kcarry -C ws export split-bios stable61 --format quilt -o q2 --subject-prefix X
stderr_has "subject-prefix"
# and git am takes it onto the 6.1 tree
git -C t61 am -q "$TEST_TMP/$msg" || fail "git am of the stable backport"
[ "$(git -C t61 rev-parse HEAD^{tree})" = "$(git -C t61 rev-parse kcarry/split-bios/v1/stable61^{tree})" ] ||
	fail "stable backport's tree"
exit 0
