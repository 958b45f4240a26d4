# inbox.sh: a real public-inbox v2 archive of ../shared/corpus, served by
# public-inbox-httpd on 127.0.0.1 for the fetch tests.  Sourced before
# lib.sh (which leaves this folder).
#
#   need_inbox          skip (exit 77) without the corpus or public-inbox
#   start_inbox NAME    build the inbox NAME from every corpus file (and
#                       the mboxrd files of $INBOX_EXTRA, when set), index
#                       it, serve it; sets $PI_URL (http://127.0.0.1:PORT)
#                       and stops the server when the test exits
#
# The inbox is built with public-inbox's own import code (InboxWritable,
# what public-inbox-mda calls per message), one process for all 110
# messages instead of one per message (41 s), and indexed at level full:
# b4's search for new revisions uses phrase queries (s:"..." f:"a@b"),
# which need the positions only "full" keeps (lore is indexed so).

need_inbox() {
	need_corpus
	for t in public-inbox-init public-inbox-index public-inbox-httpd perl; do
		need "$t"
	done
	perl -MPublicInbox::InboxWritable -e 1 2>/dev/null ||
		skip "no PublicInbox perl modules"
}

# free_port: a TCP port nobody listens on now
free_port() {
	perl -MIO::Socket::INET -e \
		'print IO::Socket::INET->new(Listen => 1,
			LocalAddr => "127.0.0.1:0")->sockport'
}

# wait_port PORT: until something accepts connections on it (10 s)
wait_port() {
	perl -MIO::Socket::INET -e '
		for (1 .. 100) {
			exit 0 if IO::Socket::INET->new(PeerAddr => "127.0.0.1:$ARGV[0]");
			select undef, undef, undef, 0.1;
		}
		exit 1' "$1"
}

start_inbox() {
	PI_CONFIG=$TEST_TMP/pi/config
	export PI_CONFIG
	mkdir -p "$TEST_TMP/pi"
	public-inbox-init -V2 -L full "$1" "$TEST_TMP/pi/$1" \
		"http://127.0.0.1/$1" linux-btrfs@vger.kernel.org ||
		fail "public-inbox-init"
	git config -f "$PI_CONFIG" publicinboxmda.spamcheck none
	# corpus files are mboxrd: split on the separator lines, drop the
	# trailing empty line, unquote ^>+From
	INBOX=$1 perl -e '
		use strict; use warnings;
		use PublicInbox::Config; use PublicInbox::InboxWritable;
		use PublicInbox::Eml;
		my $ibx = PublicInbox::Config->new->lookup_name($ENV{INBOX})
			or die "no inbox\n";
		my $im = PublicInbox::InboxWritable->new($ibx)->importer(0);
		my $n = 0;
		for my $f (@ARGV) {
			my $all = do { local $/; open my $fh, "<", $f or die; <$fh> };
			for my $m (split /^From mboxrd\@z Thu Jan  1 00:00:00 1970\n/m, $all) {
				next if $m eq "";
				$m =~ s/\n\n\z/\n/;
				$m =~ s/^>(>*From )/$1/mg;
				$im->add(PublicInbox::Eml->new(\$m)) or die "$f: not added\n";
				$n++;
			}
		}
		$im->done;
		print "$n\n";
	' "$KCARRY_CORPUS"/*.mbox ${INBOX_EXTRA:-} >"$TEST_TMP/pi/added" ||
		fail "adding the corpus to the inbox"
	public-inbox-index "$TEST_TMP/pi/$1" >/dev/null 2>&1 ||
		fail "public-inbox-index"
	for try in 1 2 3; do
		PI_PORT=$(free_port)
		public-inbox-httpd -W0 -l "http://127.0.0.1:$PI_PORT" \
			>"$TEST_TMP/pi/httpd.log" 2>&1 &
		PI_PID=$!
		trap 'kill $PI_PID 2>/dev/null; rm -rf "$TEST_TMP"' EXIT
		wait_port "$PI_PORT" && break
		kill $PI_PID 2>/dev/null
		PI_PID=
	done
	[ -n "$PI_PID" ] || { cat "$TEST_TMP/pi/httpd.log"; fail "public-inbox-httpd"; }
	PI_URL=http://127.0.0.1:$PI_PORT
}
