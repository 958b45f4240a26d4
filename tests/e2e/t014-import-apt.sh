#!/bin/sh
# import apt:PKG=VERSION: apt tells where the .debian.tar.xz is, libcurl
# fetches it over HTTP (a server this test starts on 127.0.0.1), libarchive
# reads debian/patches/series and the patches.  apt-get itself is a stand-in
# here (the real one needs Debian's archive); the real one runs in
# tests/realdata/run.  Also: no deb-src entries, unknown versions.
. ./lib.sh
need python3
need xz

mkdir -p src/debian/patches/bugfix src/debian/patches-rt bin srv
cat >src/debian/patches/bugfix/one.patch <<'EOT'
From: Ben Hutchings <ben@decadent.org.uk>
Date: Sun, 3 Mar 2024 12:00:00 +0000
Subject: one

---
--- a/Makefile
+++ b/Makefile
@@ -1 +1,2 @@
 VERSION = 6
+EXTRAVERSION = -one
EOT
cat >src/debian/patches/two.patch <<'EOT'
Description: two
Author: Salvatore Bonaccorso <carnil@debian.org>
--- a/README
+++ b/README
@@ -1 +1 @@
-hello
+hello debian
EOT
printf 'bugfix/one.patch\n# a comment\ntwo.patch\n' >src/debian/patches/series
cat >src/debian/patches-rt/0001-rt.patch <<'EOT'
From: Sebastian Andrzej Siewior <bigeasy@linutronix.de>
Subject: [PATCH] rt: one

---
--- a/README
+++ b/README
@@ -1 +1 @@
-hello debian
+hello rt
EOT
printf '0001-rt.patch\n' >src/debian/patches-rt/series
tar -C src -cJf srv/linux_6.1.1-1.debian.tar.xz debian
size=$(stat -c %s srv/linux_6.1.1-1.debian.tar.xz)
sha=$(sha256sum srv/linux_6.1.1-1.debian.tar.xz | cut -d' ' -f1)
cp srv/linux_6.1.1-1.debian.tar.xz srv/linux_6.1.2-1.debian.tar.xz

port_file=$TEST_TMP/port
python3 - "$TEST_TMP/srv" "$port_file" <<'EOT' &
import http.server, socketserver, sys, os, functools
os.chdir(sys.argv[1])
h = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
h.log_message = lambda *a: None
with socketserver.TCPServer(("127.0.0.1", 0), h) as s:
    open(sys.argv[2], "w").write(str(s.server_address[1]))
    s.timeout = 60
    for _ in range(20):
        s.handle_request()
EOT
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$TEST_TMP"' EXIT
i=0
while [ ! -s "$port_file" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
port=$(cat "$port_file")

# apt-get stand-in: answers --print-uris like apt does, or fails like apt
cat >bin/apt-get <<EOT
#!/bin/sh
case "\$FAKE_APT" in
nosrc) echo "E: You must put some 'deb-src' URIs in your sources.list" >&2; exit 100 ;;
esac
for a; do spec=\$a; done
case "\$spec" in
linux=6.1.1-1)
	echo "'http://127.0.0.1:$port/linux_6.1.1-1.dsc' linux_6.1.1-1.dsc 100 SHA256:00"
	echo "'http://127.0.0.1:$port/linux_6.1.1-1.debian.tar.xz' linux_6.1.1-1.debian.tar.xz $size SHA256:$sha" ;;
linux=6.1.2-1)
	echo "'http://127.0.0.1:$port/linux_6.1.2-1.debian.tar.xz' linux_6.1.2-1.debian.tar.xz $size SHA256:0000$sha" ;;
linux=6.1.3-1)
	echo "'http://127.0.0.1:$port/linux_6.1.1-1.debian.tar.xz' ../../linux_6.1.3-1.debian.tar.xz $size SHA256:$sha" ;;
linux=6.1.4-1)
	echo "'http://127.0.0.1:$port/linux_6.1.1-1.debian.tar.xz' .. $size SHA256:$sha" ;;
*) echo "E: Unable to find a source package for \$spec" >&2; exit 100 ;;
esac
EOT
chmod +x bin/apt-get
PATH=$TEST_TMP/bin:$PATH
export PATH

kcarry init ws >/dev/null
expect_exit 0 kcarry -C ws import deb@6.1.1-1 apt:linux=6.1.1-1
expect_stdout <<'EOT'
imported deb@6.1.1-1: 2 patches in patches/deb/6.1.1-1
EOT
expect_exit 0 kcarry -C ws show deb
stdout_has "^ +1  one$"
stdout_has "Ben Hutchings <ben@decadent.org.uk>"
stdout_has "^ +2  two$"
stdout_has "Salvatore Bonaccorso <carnil@debian.org>"
[ -f .cache/debian/linux_6.1.1-1.debian.tar.xz ] || fail "not cached"
expect_exit 0 kcarry -C ws import deb-rt@6.1.1-1 apt:linux=6.1.1-1/patches-rt
stdout_has "^imported deb-rt@6.1.1-1: 1 patch in"
# the version defaults to the package version
expect_exit 0 kcarry -C ws import deb2 apt:linux=6.1.1-1
stdout_has "^imported deb2@6.1.1-1: 2 patches"

# a download whose checksum is not apt's is refused and not kept
expect_exit 3 kcarry -C ws import deb@6.1.2-1 apt:linux=6.1.2-1
stderr_has "^error: 'http://127.0.0.1:[0-9]+/linux_6.1.2-1.debian.tar.xz' \(HTTP 200, [^)]*\): does not have the size and SHA-256 apt gives for it"
stderr_has "^hint: nothing was cached"
[ ! -e .cache/debian/linux_6.1.2-1.debian.tar.xz ] || fail "bad download kept"

# a file name apt prints is a path in the cache: only its last component
# counts ("../../x" would land beside the cache), and it must be a name
expect_exit 0 kcarry -C ws import deb3@6.1.3-1 apt:linux=6.1.3-1
[ -f .cache/debian/linux_6.1.3-1.debian.tar.xz ] || fail "not in the cache"
[ ! -e linux_6.1.3-1.debian.tar.xz ] || fail "written outside the cache"
expect_exit 3 kcarry -C ws import deb4@6.1.4-1 apt:linux=6.1.4-1
expect_stderr <<'EOT'
error: apt-get source --print-uris 'linux=6.1.4-1' names the file '..', which is not a plain file name
EOT

expect_exit 2 kcarry -C ws import deb@9 apt:linux=9.9-9
expect_stderr <<'EOT'
error: apt knows no source package 'linux=9.9-9'
hint: 'apt-cache showsrc linux | grep ^Version' lists the versions apt knows
EOT
FAKE_APT=nosrc expect_exit 3 kcarry -C ws import deb@9 apt:linux=9.9-9
expect_stderr <<'EOT'
error: apt has no source entries: cannot locate 'linux=9.9-9'
hint: enable deb-src entries (as root: scripts/enable-deb-src derives them from your deb entries), then 'apt-get update'
EOT
expect_exit 2 kcarry -C ws import deb@9 apt:linux
stderr_has "^error: 'apt:linux': expected apt:PACKAGE=VERSION"
expect_exit 2 kcarry -C ws import deb@9 'apt:linux=1;rm -rf x'
stderr_has "is not a Debian package and version"
