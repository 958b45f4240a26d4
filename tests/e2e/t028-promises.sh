#!/bin/sh
# Promises of the man page that no other test exercised: a placement risk
# makes apply and check exit 1 and --strict fails the patch instead; a
# target that cannot be prepared is a cell that did not run (exit 1), and
# a series stacked on it does not run either; deletions and renames carry
# as git am applies them; an http tarball target is downloaded once.
. ./lib.sh
need python3
need xz

# --- a placement risk, and --strict ----------------------------------------
make_repo up lib/demo.c "int demo_alpha(struct d *d)
{
	int ret;
	ret = alpha_step_one(d);
	if (ret)
		goto out;
	ret = alpha_step_two(d);
out:
	return ret;
}

int demo_eta(struct d *d)
{
	int ret;
	ret = eta_step_one(d);
	if (ret)
		goto out;
	ret = eta_step_two(d);
out:
	return ret;
}
"
commit_file up lib/demo.c "$(git -C up show HEAD:lib/demo.c | sed 's/^	ret = eta_step_two(d);$/	if (!d->ready)\n		goto out;\n	ret = eta_step_two(d);/')
" "demo: eta: check before step two"
# the target renamed demo_eta and added four lines above it
make_repo tgt lib/demo.c "$(git -C up show base:lib/demo.c | sed 's/^int demo_eta(/static int helper(void)\n{\n\treturn 0;\n}\nint demo_theta(/')
"
kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/tgt\n\tref = base\n' "$TEST_TMP" >ws/kernels/t.conf
expect_exit 0 kcarry -C ws import demo --git up base..HEAD
expect_exit 1 kcarry -C ws apply demo t
stdout_has "^  0001 offset +\[risk\] demo: eta: check before step two"
stdout_has "RISK: lands in demo_theta\(\) at line [0-9]+, not in demo_eta\(\)"
git -C tgt rev-parse -q --verify kcarry/demo/v1/t >/dev/null || fail "no branch"
[ "$(git -C tgt rev-list --count base..kcarry/demo/v1/t)" = 1 ] || fail "a risky patch is committed"
expect_exit 1 kcarry -C ws apply --strict demo t
stdout_has "^  0001 conflict +\[risk\] demo: eta"
[ "$(git -C tgt rev-list --count base..kcarry/demo/v1/t)" = 0 ] || fail "--strict committed it"
expect_exit 1 kcarry -C ws check demo t
stdout_has "^0001 demo: eta: check before step two +o!"
expect_exit 1 kcarry -C ws check --strict demo t
stdout_has "^0001 demo: eta: check before step two +X!"

# --- a target that cannot be prepared, and a series stacked on one -------
printf '[kernel]\n\turl = %s/nosuch\n\tref = base\n' "$TEST_TMP" >ws/kernels/gone.conf
expect_exit 3 kcarry -C ws apply demo gone
stderr_has "^error: cannot open repository '.*/nosuch'"
printf '[series]\n\tstacks-on = demo\n' >ws/series/top.conf
expect_exit 0 kcarry -C ws import top --git up base..HEAD
expect_exit 1 kcarry -C ws check demo top gone
stdout_has "demo@v1 on gone: did not run: cannot open repository"
stdout_has "top@v1 on gone: did not run: cannot open repository"
rm ws/kernels/gone.conf ws/series/top.conf
rm -rf ws/patches/top

# --- deletion and rename through carry, as git am applies them ------------
make_repo dr a.c "a
" b.c "b1
b2
b3
" c.c "c
"
git -C dr rm -q a.c
git -C dr mv b.c renamed.c
printf 'b1\nb2 changed\nb3\n' >dr/renamed.c
git -C dr add -A && git -C dr commit -qm "delete a, rename b with a change"
printf '[kernel]\n\turl = %s/dr\n\tref = base\n' "$TEST_TMP" >ws/kernels/dr.conf
expect_exit 0 kcarry -C ws import dr --git dr base..HEAD
expect_exit 0 kcarry -C ws apply dr dr
stdout_has "^  0001 clean +delete a, rename b with a change$"
git -C dr format-patch -q --stdout base..master >dr.mbox &&
	git clone -q dr am && git -C am checkout -q base &&
	git -C am am -q "$TEST_TMP/dr.mbox" || fail "git am"
[ "$(git -C dr rev-parse kcarry/dr/v1/dr^{tree})" = "$(git -C am rev-parse HEAD^{tree})" ] ||
	fail "the carried tree differs from git am's"

# --- a tarball over http: downloaded once ---------------------------------
mkdir -p srv tb/linux-1.0/lib
git -C tgt show base:lib/demo.c >tb/linux-1.0/lib/demo.c
tar -C tb -cJf srv/linux-1.0.tar.xz linux-1.0
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
    for _ in range(10):
        s.handle_request()
EOT
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$TEST_TMP"' EXIT
i=0
while [ ! -s "$port_file" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
port=$(cat "$port_file")
printf '[kernel]\n\ttarball = http://127.0.0.1:%s/linux-1.0.tar.xz\n' "$port" >ws/kernels/web.conf
expect_exit 1 kcarry -C ws apply demo web
stdout_has "^  0001 offset +\[risk\]"
expect_exit 1 kcarry -C ws apply demo web
[ "$(grep -c linux-1.0.tar.xz hits)" = 1 ] || fail "the tarball was downloaded $(grep -c . hits) times"
exit 0
