#!/bin/sh
# Two hunks applied to their own parent are clean, not already applied:
#  - one moves two lines into a nested block, one tab deeper, of a
#    function that has the same two lines at that depth in another branch
#    further down: the lines it adds are the lines it removes,
#    re-indented, and their copy says nothing about the change being in
#    (PKUCloud's 3.11 KVM record-and-replay commit fe648c48 "Move
#    tm_memory_commit into tm_unsync_commit": already applied with a
#    risk, or 3-way with the blob);
#  - one adds inside a loop a copy of a call the function makes, and
#    keeps, before the loop: the same code one block out is no sign of
#    the change (Debian 5.10's RT "crypto: Reduce preempt disabled
#    regions, more algos", glue_xts_req_128bit(): partially applied with
#    a risk without the blob).
# GNU patch and git apply place them where kcarry does; with the change
# in, the patch is still already applied.
. ./lib.sh

make_repo up k/rr.c 'int check_commit(struct vcpu *vcpu)
{
	u32 reason = vcpu->exit_reason;
	int ret;

	vcpu->need_commit = 0;
/*
	if (reason == EXIT_IO)
		print_record("vcpu=%d, EXIT_IO\n", vcpu->id);
*/
	if (reason != EXIT_EPT_VIOLATION) {
		vcpu->need_commit = 1;
		vcpu->rr_state = 1;
		ret = tm_commit(vcpu);

		if (ret == -1) {
			printk(KERN_ERR "vcpu=%d, tm_commit returns -1\n",
				vcpu->id);
		} else if (ret == 1) {
			return RR_COMMIT;
		} else {
			return RR_ROLLBACK;
		}
	} else {
		ret = tm_check(vcpu);
		if (ret == 1) {
			vcpu->need_commit = 1;
			vcpu->rr_state = 1;
			return RR_COMMIT;
		}
	}
	return RR_NONE;
}
'
cat >>up/k/rr.c <<'EOT'

int xts_walk(struct walk *walk, int bsize, int nbytes)
{
	int err;
	bool fpu_enabled = false;

	/* set minimum length to bsize, for tweak_fn */
	fpu_enabled = fpu_begin(bsize, walk->fpu_blocks_limit,
				walk, fpu_enabled,
				nbytes < bsize ? bsize : nbytes);

	tweak(walk->iv);

	while (nbytes) {
		nbytes = xts_one(walk);

		err = walk_done(walk, nbytes);
		nbytes = walk->nbytes;
	}
	fpu_end(fpu_enabled);
	return err;
}
EOT
git -C up commit -qam "rr: xts" || fail c0
python3 - up/k/rr.c <<'EOT' || fail edit
import sys
p = sys.argv[1]
s = open(p).read()
s = s.replace("\t\tvcpu->need_commit = 1;\n\t\tvcpu->rr_state = 1;\n"
              "\t\tret = tm_commit(vcpu);\n\n",
              "\t\tret = tm_commit(vcpu);\n", 1)
s = s.replace("\t\t} else if (ret == 1) {\n\t\t\treturn RR_COMMIT;",
              "\t\t} else if (ret == 1) {\n\t\t\tvcpu->need_commit = 1;\n"
              "\t\t\tvcpu->rr_state = 1;\n\t\t\treturn RR_COMMIT;", 1)
s = s.replace("\twhile (nbytes) {\n\t\tnbytes = xts_one(walk);\n\n",
              "\twhile (nbytes) {\n"
              "\t\tfpu_enabled = fpu_begin(bsize, walk->fpu_blocks_limit,\n"
              "\t\t\t\t\twalk, fpu_enabled,\n"
              "\t\t\t\t\tnbytes < bsize ? bsize : nbytes);\n"
              "\t\tnbytes = xts_one(walk);\n\n"
              "\t\tfpu_end(fpu_enabled);\n\t\tfpu_enabled = false;\n\n", 1)
open(p, "w").write(s)
EOT
git -C up commit -qam "rr: mark the commit only once it is made" || fail c1
git -C up diff HEAD~1 HEAD | grep -q '^+			vcpu->rr_state = 1;$' ||
	fail "the move is not in the commit"
git -C up diff HEAD~1 HEAD | grep -q '^+		fpu_enabled = fpu_begin(' ||
	fail "the loop's call is not in the commit"

# the peers: the commit applies exactly to its parent
git -C up format-patch -q -1 -o "$TEST_TMP/fp" HEAD || fail format-patch
git -C up show HEAD~1:k/rr.c >parent.c
git -C up show HEAD:k/rr.c >want.c
cp parent.c gnu.c
sed -n '/^---$/,$p' "$TEST_TMP"/fp/0001-*.patch >move.patch
patch -s -F0 --no-backup-if-mismatch gnu.c <move.patch ||
	fail "GNU patch -F0 does not apply the commit to its parent"
cmp -s gnu.c want.c || fail "GNU patch's result is not the commit's"
git -C up apply --check -R "$TEST_TMP"/fp/0001-*.patch ||
	fail "the commit does not reverse-apply to itself"

kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/up\n\tref = HEAD~1\n' "$TEST_TMP" >ws/kernels/t.conf
expect_exit 0 kcarry -C ws import mv --git up HEAD~1..HEAD
for flags in "" "--no-3way"; do
	# shellcheck disable=SC2086 # no flag or one
	expect_exit 0 kcarry -C ws apply --no-refresh $flags mv t
	stdout_has '^  0001 clean '
	git -C up show kcarry/mv/v1/t:k/rr.c >got.c
	cmp -s got.c want.c || fail "kcarry $flags: not the commit's result"
done

# with the change in, it is already applied (no risk)
printf '[kernel]\n\turl = %s/up\n\tref = HEAD\n' "$TEST_TMP" >ws/kernels/in.conf
expect_exit 0 kcarry -C ws apply --no-refresh mv in
stdout_has '^  0001 already applied '
exit 0
