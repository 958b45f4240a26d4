#!/bin/sh
# Threads by message-id from a real public-inbox server (public-inbox-httpd
# on 127.0.0.1, serving an inbox built from ../shared/corpus), with b4 as
# the peer: kcarry's imported patches equal 'b4 am -t''s (count, commit
# messages with the trailers collected from replies, authors, subjects,
# dates, diffs) for the shrinker series v1/v2/v3 and the workqueue series.
# Then 'fetch' of a version named in the .conf, 'fetch --new' (b4 am -c's
# search) from v1 of the shrinker series, --offline with and without the
# cache.
. ./inbox.sh
. ./lib.sh
need_inbox
need b4
need git
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy
export no_proxy=127.0.0.1,localhost

start_inbox btrfs
[ "$(cat "$TEST_TMP/pi/added")" = 110 ] || fail "inbox holds $(cat "$TEST_TMP/pi/added") messages"
git config --global b4.midmask "$PI_URL/btrfs/%s"
git config --global b4.linkmask "$PI_URL/btrfs/%s"
git config --global b4.searchmask "$PI_URL/btrfs/?x=m&t=1&q=%s"
# archived mail fails DKIM (the list rewrote it), and DNS is not ours
git config --global b4.attestation-policy off

kcarry init ws >/dev/null
printf '[kcarry]\n\tlore = %s/btrfs/\n' "$PI_URL" >ws/kcarry.conf

# split a patch file or an mbox of patches into message / diff / header
# files as git am sees them (git mailinfo); the signature is not content
explode() { # DIR FILE...
	dir=$1
	shift
	mkdir -p "$dir/split"
	n=0
	cat "$@" >"$dir/all.mbox"
	git mailsplit -o"$dir/split" "$dir/all.mbox" >/dev/null ||
		fail "mailsplit $*"
	rm "$dir/all.mbox"
	for m in "$dir"/split/*; do
		n=$((n + 1))
		i=$(printf %04d $n)
		git mailinfo --encoding=UTF-8 "$dir/$i.msg" "$dir/$i.diff" \
			<"$m" >"$dir/$i.info" || fail "mailinfo $m"
		# the diffstat and the diff: the signature ("-- " and what
		# follows) is the tool's own
		sed -i -e '/^-- $/,$d' "$dir/$i.diff"
		# the trailer block as a set: b4's own order depends on the
		# message-id it starts from (v1's or v3's cover: two orders)
		awk '{ l[NR] = $0 } /^$/ { last = NR }
		     END { for (i = 1; i <= last; i++) print l[i]
			   for (i = last + 1; i <= NR; i++) print l[i] | "sort" }' \
			"$dir/$i.msg" >"$dir/$i.tmp" && mv "$dir/$i.tmp" "$dir/$i.msg"
	done
	rm -rf "$dir/split"
	echo "$n"
}

# compare_b4 NAME VERSION MSGID PATCHES: kcarry import by message-id and
# b4 am -vN of the same thread give the same patches
compare_b4() {
	name=$1 v=$2 id=$3 npatch=$4
	expect_exit 0 kcarry -C ws import "$name@v$v" "$id"
	echo "imported $name@v$v: $npatch patch$([ "$npatch" = 1 ] || echo es) in patches/$name/v$v" |
		expect_stdout
	rm -rf b4out && mkdir b4out
	# -t: trailers given to the cover letter go to every patch, as
	# kcarry adds them
	b4 am -t -v "$v" -o b4out "$id" >b4.log 2>&1 || { cat b4.log; fail "b4 am $id"; }
	nb=$(explode cmp/b4-$name-$v b4out/*.mbx)
	nk=$(explode cmp/kc-$name-$v $(sed 's|^|ws/patches/'"$name/v$v"'/|' \
		"ws/patches/$name/v$v/series" | cut -d' ' -f1))
	[ "$nb" = "$npatch" ] || fail "b4 gives $nb patches for $name v$v, not $npatch"
	[ "$nk" = "$nb" ] || fail "$name v$v: kcarry $nk patches, b4 $nb"
	diff -r "cmp/b4-$name-$v" "cmp/kc-$name-$v" ||
		fail "$name v$v: kcarry's patches differ from b4's"
	# trailers from replies did arrive (b4 lists them with '+')
	b4n=$(grep -c '^ *+ [A-Za-z-]*: ' b4.log)
	kn=$(cat cmp/kc-$name-$v/*.msg | grep -c "^[A-Za-z-]*-by: ")
	echo "$name v$v: $nk patches equal to b4's, $b4n trailers from replies, $kn trailers in all"
}

compare_b4 shrinker 1 cover.1712748143.git.fdmanana@suse.com 11
compare_b4 shrinker 2 cover.1712837044.git.fdmanana@suse.com 15
compare_b4 shrinker 3 cover.1713267925.git.fdmanana@suse.com 10
compare_b4 wq-cleanups 1 cover.1565680721.git.osandov@fb.com 2
compare_b4 wq-cleanups 2 cover.1565717247.git.osandov@fb.com 2
compare_b4 wq-fixes 1 cover.1568658527.git.osandov@fb.com 7
grep -q '^Reviewed-by: Josef Bacik <josef@toxicpanda.com>$' cmp/kc-shrinker-3/0008.msg ||
	fail "a Reviewed-by given in a reply is missing"

# provenance: the thread's URL, the message-ids, the cover and base
git config -f ws/series/shrinker.conf version.v3.source >got
echo "$PI_URL/btrfs/cover.1713267925.git.fdmanana@suse.com/" | diff - got ||
	fail "source of v3"
[ "$(git config -f ws/series/shrinker.conf --get-all version.v3.msgid)" = \
	cover.1713267925.git.fdmanana@suse.com ] || fail "msgid of v3 (the thread's root)"
[ "$(cut -f2 ws/patches/shrinker/v3/origins | grep -c '@suse.com$')" = 10 ] ||
	fail "message-ids of v3's patches in origins"
git config -f ws/series/shrinker.conf version.v3.cover >got
echo "btrfs: add a shrinker for extent maps" | diff - got || fail "cover of v3"

# the same thread as a local mbox gives the same version (a no-op)
expect_exit 0 kcarry -C ws import shrinker@v3 "$KCARRY_CORPUS/btrfs-add-a-shrinker-for-extent-maps.v3.mbox"
expect_stdout <<'EOT'
shrinker@v3 is unchanged: 10 patches in patches/shrinker/v3
EOT

# a URL names the server too; public-inbox merged the three versions
# into one thread, and the newest is taken as from a local mbox
expect_exit 0 kcarry -C ws import url "$PI_URL/btrfs/cover.1712748143.git.fdmanana@suse.com/T/#u"
expect_stdout <<'EOT'
imported url@v3: 10 patches in patches/url/v3
EOT
expect_stderr <<'EOT'
the source holds versions v1, v2, v3; importing the newest, v3 (--all-versions takes them all)
EOT
diff -r ws/patches/url/v3 ws/patches/shrinker/v3 >/dev/null ||
	fail "the URL import differs from the message-id import"
expect_exit 0 kcarry -C ws import url@v1 "<cover.1712748143.git.fdmanana@suse.com>"
stdout_has "^imported url@v1: 11 patches"

# an unknown message: the URL and the HTTP status, exit 3
expect_exit 3 kcarry -C ws import nope no-such-message@example.org
expect_stderr <<EOT
error: cannot fetch '$PI_URL/btrfs/no-such-message@example.org/t.mbox.gz': HTTP 404 Not Found
hint: is <no-such-message@example.org> archived at $PI_URL/btrfs/? series.list-url, or kcarry.lore in kcarry.conf, names the server
EOT
[ ! -d ws/patches/nope ] || fail "a failed fetch stored something"
# a URL without a message-id
expect_exit 2 kcarry -C ws import nope "$PI_URL/btrfs/"
expect_stderr <<EOT
error: '$PI_URL/btrfs/' names no message
hint: a thread's URL holds its message-id, as in https://lore.kernel.org/all/MESSAGE-ID/
EOT

# fetch: the versions series/NAME.conf names by message-id
kcarry init ws2 >/dev/null
cat >ws2/series/wq.conf <<EOT
[series]
	list-url = $PI_URL/btrfs
[version "v1"]
	msgid = <cover.1565680721.git.osandov@fb.com>
[version "v2"]
	msgid = cover.1565717247.git.osandov@fb.com
EOT
expect_exit 0 kcarry -C ws2 fetch wq
expect_stdout <<'EOT'
imported wq@v1: 2 patches in patches/wq/v1
imported wq@v2: 2 patches in patches/wq/v2
EOT
diff -r ws2/patches/wq/v2 ws/patches/wq-cleanups/v2 >/dev/null || fail "fetch differs from import"
expect_exit 0 kcarry -C ws2 fetch wq
expect_stdout </dev/null
expect_stderr <<'EOT'
wq: every version with a msgid is imported
EOT
expect_exit 0 kcarry -C ws2 fetch wq@v2
expect_stdout <<'EOT'
wq@v2 is unchanged: 2 patches in patches/wq/v2
EOT
expect_exit 2 kcarry -C ws2 fetch nosuch
expect_stderr <<EOT
error: no series 'nosuch' (no $TEST_TMP/ws2/series/nosuch.conf)
hint: 'kcarry list' shows the series
EOT

# fetch --new: b4 am -c's search, from v1 of the shrinker series
kcarry init ws3 >/dev/null
cp ws/kcarry.conf ws3/
expect_exit 0 kcarry -C ws3 import shrinker@v1 cover.1712748143.git.fdmanana@suse.com
expect_exit 0 kcarry -C ws3 fetch --new shrinker
expect_stdout <<'EOT'
shrinker@v2 <cover.1712837044.git.fdmanana@suse.com> [PATCH v2 00/15] btrfs: add a shrinker for extent maps
shrinker@v3 <cover.1713267925.git.fdmanana@suse.com> [PATCH v3 00/10] btrfs: add a shrinker for extent maps
EOT
expect_stderr <<'EOT'
hint: 'kcarry fetch --new --import shrinker' imports them
EOT
[ ! -d ws3/patches/shrinker/v2 ] || fail "--new without --import stored v2"
expect_exit 0 kcarry -C ws3 fetch --new --import shrinker
expect_stdout <<'EOT'
shrinker@v2 <cover.1712837044.git.fdmanana@suse.com> [PATCH v2 00/15] btrfs: add a shrinker for extent maps
shrinker@v3 <cover.1713267925.git.fdmanana@suse.com> [PATCH v3 00/10] btrfs: add a shrinker for extent maps
imported shrinker@v2: 15 patches in patches/shrinker/v2
imported shrinker@v3: 10 patches in patches/shrinker/v3
EOT
for v in v2 v3; do
	diff -r ws3/patches/shrinker/$v ws/patches/shrinker/$v >/dev/null ||
		fail "--new --import of $v differs from the import by message-id"
done
expect_exit 0 kcarry -C ws3 fetch --new shrinker
expect_stdout </dev/null
expect_stderr <<EOT
shrinker@v3 is the newest revision at $PI_URL/btrfs/
EOT
# the workqueue cleanups: v2 from v1; the 7-patch series has another title
expect_exit 0 kcarry -C ws3 import wq@v1 cover.1565680721.git.osandov@fb.com
expect_exit 0 kcarry -C ws3 fetch --new wq
expect_stdout <<'EOT'
wq@v2 <cover.1565717247.git.osandov@fb.com> [PATCH v2 0/2] Btrfs: workqueue cleanups
EOT
# a Debian-style version has no vN to look past
expect_exit 0 kcarry -C ws3 import deb@6.1.1-1 "$KCARRY_CORPUS/btrfs-workqueue-cleanups.v1.mbox"
expect_exit 2 kcarry -C ws3 fetch --new deb
expect_stderr <<'EOT'
error: deb@6.1.1-1 is not a mail version (vN): there is no later revision to look for
EOT
# every series: those from mail are looked up, the others left alone
expect_exit 0 kcarry -C ws3 fetch --new
expect_stdout <<'EOT'
wq@v2 <cover.1565717247.git.osandov@fb.com> [PATCH v2 0/2] Btrfs: workqueue cleanups
EOT
expect_stderr <<EOT
shrinker@v3 is the newest revision at $PI_URL/btrfs/
hint: 'kcarry fetch --new --import wq' imports it
EOT

# --offline: the cache serves what was fetched; nothing else
kill $PI_PID
wait $PI_PID 2>/dev/null
expect_exit 0 kcarry -C ws import --offline off cover.1713267925.git.fdmanana@suse.com
expect_stdout <<'EOT'
imported off@v3: 10 patches in patches/off/v3
EOT
stderr_has "^offline: the cached copy of $PI_URL/btrfs/cover.1713267925.git.fdmanana@suse.com/$"
KCARRY_OFFLINE=1 expect_exit 0 kcarry -C ws3 fetch --new shrinker
expect_exit 3 kcarry -C ws import --offline off2 cover.1568658527.git.osandov@fb.com@x
expect_stderr <<EOT
error: cannot fetch '$PI_URL/btrfs/cover.1568658527.git.osandov@fb.com@x/t.mbox.gz' offline: the cache has no copy
hint: run once without --offline (or KCARRY_OFFLINE) to fill the cache
EOT
# the server is gone: online, the error names the URL
expect_exit 3 kcarry -C ws import gone cover.1713267925.git.fdmanana@suse.com
stderr_has "^error: cannot fetch '$PI_URL/btrfs/cover.1713267925.git.fdmanana@suse.com/t.mbox.gz': .*(refused|connect)"
stderr_has "^hint: --offline uses what the cache holds$"
