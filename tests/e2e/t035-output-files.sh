#!/bin/sh
# -o FILE of every command that takes one (apply, check, report merge,
# build, diff): a regular file is replaced whole, through a temporary
# file renamed over it; a FIFO or a character device, or a symlink to
# one (as /dev/stdout is), is written straight into and stays what it
# was; a directory or a block device is refused, and nothing is left
# beside it.  The real /dev/null is never used: as root, a rename over
# it would replace it for the whole machine.
here=$(pwd)
. ./lib.sh
need timeout
. "$here/build-lib.sh"
build_fixture
expect_exit 0 kcarry -C ws import wq@v2 --git up base..HEAD

# STATUS COMMAND...: what each writes with -o, and its exit status
cmds="1 apply wq@v1 tgt
1 check wq@v1 tgt
1 report merge s1.json
1 build wq@v1 tgt
0 diff wq v1 v2"
kcarry -C ws check --shard 1/1 --format json -o s1.json wq@v1 tgt
[ $? = 1 ] || fail "check --shard 1/1"

no_temp() {
	[ -z "$(ls | grep '\.tmp')" ] || fail "$1: a temporary file left"
}
n=0
echo "$cmds" | while read -r rc cmd; do
	n=$((n + 1))
	# a regular file: the report, and no temporary file left
	expect_exit "$rc" kcarry -C ws $cmd -o "$TEST_TMP/want$n"
	[ -f want$n ] && [ -s want$n ] || fail "$cmd -o: no report"
	no_temp "$cmd -o"

	# a FIFO with a reader: it stays a FIFO and the reader gets the report
	rm -f fifo got && mkfifo fifo || fail mkfifo
	timeout 60 cat fifo >got &
	reader=$!
	expect_exit "$rc" timeout 60 "$KCARRY" -C ws $cmd -o "$TEST_TMP/fifo"
	[ -p fifo ] ||
		{ kill $reader 2>/dev/null; fail "$cmd -o fifo: replaced"; }
	wait $reader || fail "$cmd -o fifo: the reader got nothing"
	cmp -s got want$n || fail "$cmd -o fifo: the reader got another report"

	# a symlink to the FIFO (as /dev/stdout is to a pipe): written through
	ln -sf fifo link
	timeout 60 cat link >got &
	reader=$!
	expect_exit "$rc" timeout 60 "$KCARRY" -C ws $cmd -o "$TEST_TMP/link"
	[ -L link ] && [ -p fifo ] ||
		{ kill $reader 2>/dev/null; fail "$cmd -o link: replaced"; }
	wait $reader && cmp -s got want$n ||
		fail "$cmd -o link: not written through"

	# a folder is refused, and nothing is left beside it
	mkdir -p dir
	expect_exit 3 kcarry -C ws $cmd -o "$TEST_TMP/dir"
	expect_stderr <<EOT
error: cannot write '$TEST_TMP/dir': it is a folder
EOT
	[ -d dir ] && [ -z "$(ls dir)" ] || fail "$cmd -o dir: it changed"
	no_temp "$cmd -o dir"

	# as root: a character device 1:3 (a null device of our own) stays
	# one, and a block device (a major no driver has) is refused
	[ "$(id -u)" = 0 ] || continue
	rm -f null blk
	mknod null c 1 3 && mknod blk b 240 0 || fail mknod
	echo x >null 2>/dev/null || continue # a nodev mount
	expect_exit "$rc" kcarry -C ws $cmd -o "$TEST_TMP/null"
	[ -c null ] && [ "$(stat -c %t:%T null)" = 1:3 ] ||
		fail "$cmd -o null: the device was replaced"
	no_temp "$cmd -o null"
	expect_exit 3 kcarry -C ws $cmd -o "$TEST_TMP/blk"
	expect_stderr <<EOT
error: cannot write '$TEST_TMP/blk': it is a block device
EOT
	[ -b blk ] || fail "$cmd -o blk: the device was replaced"
done || exit 1
exit 0
