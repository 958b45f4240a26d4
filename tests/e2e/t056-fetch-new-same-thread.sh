#!/bin/sh
# fetch --new --import never stores a thread that is no later revision: a
# message that claims [PATCH v5 0/2] in reply to v1's cover letter (no
# patch in it) is found by the search, and its thread, served by a real
# public-inbox-httpd, holds v1 and v2 only.  It was stored as v5 (and a
# v2 ... v999 of such claims as 995 copies of v1).  Then a [PATCH v7]
# repost of v1's very patches, new message-ids, the same diffs: a stored
# version again, refused.
. ./inbox.sh
. ./lib.sh
need_inbox
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy
export no_proxy=127.0.0.1,localhost

v1=cover.1565680721.git.osandov@fb.com
cat >claim.mbox <<EOT
From mboxrd@z Thu Jan  1 00:00:00 1970
From: Omar Sandoval <osandov@osandov.com>
Subject: [PATCH v5 0/2] Btrfs: workqueue cleanups
Date: Wed, 14 Aug 2019 10:00:00 -0700
Message-Id: <claim-v5@example.org>
In-Reply-To: <$v1>
References: <$v1>

Not a posting: nothing of v5 is in this thread.

EOT
# v7: v1's two patches again, as replies to a v7 cover, new message-ids
awk -v v1="$v1" '
	/^From mboxrd@z/ { n++ }
	{ m[n] = m[n] $0 "\n" }
	END {
		printf "From mboxrd@z Thu Jan  1 00:00:00 1970\n"
		printf "From: Omar Sandoval <osandov@osandov.com>\n"
		printf "Subject: [PATCH v7 0/2] Btrfs: workqueue cleanups\n"
		printf "Date: Thu, 15 Aug 2019 10:00:00 -0700\n"
		printf "Message-Id: <v7-cover@example.org>\n\nThe same again.\n\n"
		k = 0
		for (i = 1; i <= n; i++) {
			if (m[i] !~ /\nSubject: \[PATCH [12]\/2\]/)
				continue
			k++
			t = m[i]
			sub(/\nSubject: \[PATCH /, "\nSubject: [PATCH v7 ", t)
			sub(/\nMessage-Id: <[^>]*>/, "\nMessage-Id: <v7-" k "@example.org>", t)
			sub(/\nIn-Reply-To: <[^>]*>/, "\nIn-Reply-To: <v7-cover@example.org>", t)
			sub(/\nReferences: [^\n]*(\n[ \t][^\n]*)*/, "\nReferences: <v7-cover@example.org>", t)
			sub(/\nDate: [^\n]*/, "\nDate: Thu, 15 Aug 2019 10:0" k ":00 -0700", t)
			printf "%s", t
		}
	}' "$KCARRY_CORPUS/btrfs-workqueue-cleanups.v1.mbox" >repost.mbox
[ "$(grep -c '^Subject: \[PATCH v7 [12]/2\]' repost.mbox)" = 2 ] ||
	fail "repost.mbox: $(grep '^Subject:' repost.mbox)"
INBOX_EXTRA="$TEST_TMP/claim.mbox $TEST_TMP/repost.mbox" start_inbox btrfs

kcarry init ws >/dev/null
printf '[kcarry]\n\tlore = %s/btrfs/\n' "$PI_URL" >ws/kcarry.conf
expect_exit 0 kcarry -C ws import wq@v1 "$v1"
expect_exit 0 kcarry -C ws fetch --new wq
expect_stdout <<'EOT'
wq@v2 <cover.1565717247.git.osandov@fb.com> [PATCH v2 0/2] Btrfs: workqueue cleanups
wq@v5 <claim-v5@example.org> [PATCH v5 0/2] Btrfs: workqueue cleanups
wq@v7 <v7-cover@example.org> [PATCH v7 0/2] Btrfs: workqueue cleanups
EOT
expect_exit 2 kcarry -C ws fetch --new --import wq
stdout_has "^imported wq@v2: 2 patches in patches/wq/v2$"
expect_stderr <<'EOT'
error: the thread of <claim-v5@example.org> holds no patch of that message and no version 'v5'
error: wq@v7: the thread of <v7-cover@example.org> holds wq@v1, stored already (the same messages or patches); not stored again
EOT
[ ! -e ws/patches/wq/v5 ] || fail "the v1 thread was stored as v5"
[ ! -e ws/patches/wq/v7 ] || fail "v1's patches were stored again as v7"
git config -f ws/series/wq.conf --get version.v5.msgid >/dev/null &&
	fail "v5 recorded in wq.conf"
ls ws/patches/wq | sort >got
printf 'series\nv1\nv2\n' | diff - got >/dev/null ||
	printf 'v1\nv2\n' | diff - got || fail "versions stored: $(cat got)"
exit 0
