#!/bin/sh
# A target whose tree is a Debian source package's upstream tarball
# (tarball = apt:PACKAGE=VERSION): apt names the .orig.tar.xz with its
# size and SHA-256, libcurl fetches it from a server this test starts on
# 127.0.0.1, the tree is imported once and the series carried onto it as
# onto any other target.  A download that does not match what apt says is
# refused and nothing is cached; a package without an .orig tarball (a
# native package) is named.  apt-get is a stand-in answering
# --print-uris as apt does (the real one needs Debian's archive; see
# tests/realdata/run).
. ./lib.sh
need python3
need xz

# the upstream tree and a series written on it
make_repo up fs/btrfs/async-thread.c "$(c_lines 40 w)
"
commit_file up fs/btrfs/async-thread.c "$(c_lines 20 w)
	fixed_call();
$(c_lines 40 w | tail -n 20)
" "btrfs: a fix"
mkdir -p srv tb
git -C up archive --prefix=linux-6.1.1/ base | tar -C tb -xf -
tar -C tb -cJf srv/linux_6.1.1.orig.tar.xz linux-6.1.1
size=$(stat -c %s srv/linux_6.1.1.orig.tar.xz)
sha=$(sha256sum srv/linux_6.1.1.orig.tar.xz | cut -d' ' -f1)
# a file apt gives another SHA-256 for (a mirror out of step)
cp srv/linux_6.1.1.orig.tar.xz srv/linux_6.1.2.orig.tar.xz
badsha=$(printf '%s' "$sha" | tr '0-9a-f' '1-9a-f0')

port_file=$TEST_TMP/port
python3 - "$TEST_TMP/srv" "$port_file" "$TEST_TMP/hits" <<'EOT' &
import http.server, socketserver, sys, functools
class H(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a):
        open(sys.argv[3], "a").write(self.path + "\n")
h = functools.partial(H, directory=sys.argv[1])
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

mkdir bin
cat >bin/apt-get <<EOT
#!/bin/sh
for a; do spec=\$a; done
case "\$spec" in
linux=6.1.1-1)
	echo "'http://127.0.0.1:$port/linux_6.1.1-1.dsc' linux_6.1.1-1.dsc 100 SHA256:00"
	echo "'http://127.0.0.1:$port/linux_6.1.1.orig.tar.xz' linux_6.1.1.orig.tar.xz $size SHA256:$sha" ;;
linux=6.1.2-1)
	echo "'http://127.0.0.1:$port/linux_6.1.2.orig.tar.xz' linux_6.1.2.orig.tar.xz $size SHA256:$badsha" ;;
native=1.0)
	echo "'http://127.0.0.1:$port/native_1.0.tar.xz' native_1.0.tar.xz 10 SHA256:00" ;;
*) echo "E: Unable to find a source package for \$spec" >&2; exit 100 ;;
esac
EOT
chmod +x bin/apt-get
PATH=$TEST_TMP/bin:$PATH
export PATH

kcarry init ws >/dev/null
printf '[kernel]\n\ttarball = apt:linux=6.1.1-1\n' >ws/kernels/deb.conf
expect_exit 0 kcarry -C ws import fix --git up base..HEAD
expect_exit 0 kcarry -C ws kernels --prepare
expect_exit 0 kcarry -C ws apply fix deb
stdout_has "^  0001 clean +btrfs: a fix$"
repo=$(kcarry -C ws kernels --path deb) || fail "kernels --path"
# the carried tree is the upstream tree plus the fix, as git has it
[ "$(git --git-dir="$repo" rev-parse kcarry/fix/v1/deb^{tree})" = "$(git -C up rev-parse HEAD^{tree})" ] ||
	fail "the carried tree differs from upstream's"
# downloaded once, into the cache, under the name apt gives
expect_exit 0 kcarry -C ws check fix deb
[ "$(grep -c 'linux_6.1.1.orig.tar.xz' hits)" = 1 ] ||
	fail "the tarball was downloaded $(grep -c orig hits) times"
[ -f .cache/debian/linux_6.1.1.orig.tar.xz ] || fail "not in the cache"
[ ! -e ws/linux_6.1.1.orig.tar.xz ] || fail "written into the workspace"

# apt's checksum does not fit: refused, not kept, the target not prepared
printf '[kernel]\n\ttarball = apt:linux=6.1.2-1\n' >ws/kernels/bad.conf
expect_exit 3 kcarry -C ws apply fix bad
stderr_has "does not have the size and SHA-256 apt gives for it"
[ ! -e .cache/debian/linux_6.1.2.orig.tar.xz ] || fail "a bad download was kept"
git --git-dir="$repo" rev-parse -q --verify kcarry/fix/v1/bad >/dev/null &&
	fail "a branch for a target that was never prepared"

# a package with no .orig tarball, a version apt does not know, bad syntax
printf '[kernel]\n\ttarball = apt:native=1.0\n' >ws/kernels/bad.conf
expect_exit 2 kcarry -C ws apply fix bad
stderr_has "native=1.0 has no .orig tarball"
printf '[kernel]\n\ttarball = apt:linux=9.9-9\n' >ws/kernels/bad.conf
expect_exit 2 kcarry -C ws apply fix bad
stderr_has "^error: apt knows no source package 'linux=9.9-9'"
printf '[kernel]\n\ttarball = apt:linux\n' >ws/kernels/bad.conf
expect_exit 2 kcarry -C ws apply fix bad
stderr_has "expected apt:PACKAGE=VERSION"
exit 0
