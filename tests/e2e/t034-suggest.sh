#!/bin/sh
# kcarry resolve --suggest: the series drops btrfs_init_work's last
# argument and converts its callers; the target has callers the series
# never converts (scrub.c, a call over two lines in ordered-data.c, and
# one whose third and fourth arguments differ: the series' calls all pass
# NULL twice, so which one goes cannot be told, and it is left).
# kcarry learns the conversion from the series' own converted calls,
# writes it for those callers into the scratch folder (a patch against the
# carried result, and a Coccinelle semantic patch), and commits nothing.
# Cross-check: spatch with that semantic patch gives the same files.
here=$(pwd)
. ./lib.sh

. "$here/wq-lib.sh"
wq_upstream

# old: scrub.c and ordered-data.c that the series never converts
make_repo old fs/btrfs/async-thread.h "$H" fs/btrfs/async-thread.c "$C" \
	fs/btrfs/disk-io.c "$(caller disk-io end_workqueue end_io)
" fs/btrfs/inode.c "$(caller inode submit_compressed compress_fn)
" fs/btrfs/scrub.c "$(caller scrub scrub_start scrub_fn)
" fs/btrfs/ordered-data.c '#include "async-thread.h"

static void flush_fn(struct btrfs_work *w)
{
}

void flush_ordered(struct btrfs_work *w)
{
	btrfs_init_work(w,
			flush_fn, NULL, NULL);
}

void flush_maybe(struct btrfs_work *w, void *ctx)
{
	btrfs_init_work(w, flush_fn, ctx ? flush_fn : NULL, NULL);
}
'
kcarry init ws >/dev/null
printf '[kernel]\n\turl = %s/old\n\tref = base\n' "$TEST_TMP" >ws/kernels/old.conf
expect_exit 0 kcarry -C ws import wq --git up base..HEAD
before=$(git -C old for-each-ref --format='%(refname) %(objectname)')
expect_exit 1 kcarry -C ws resolve --suggest wq old
expect_stdout <<'EOF'
wq@v1 converts btrfs_init_work, dropping argument 3 or 4 of 4 (learned from 3 converted calls)
  fs/btrfs/ordered-data.c:9 flush_ordered(): btrfs_init_work(w, flush_fn, NULL, NULL) -> btrfs_init_work(w, flush_fn, NULL)
  fs/btrfs/scrub.c:11 scrub_start(): btrfs_init_work(w, scrub_fn, NULL, NULL) -> btrfs_init_work(w, scrub_fn, NULL)
  fs/btrfs/ordered-data.c:15 flush_maybe(): left as it is: the series' calls do not tell which argument goes
2 unconverted calls rewritten, 1 left as it is
wrote .kcarry/resolve/wq/v1/old/suggest/suggest.patch (against the series carried on old) and .kcarry/resolve/wq/v1/old/suggest/conversion.cocci; nothing was committed
EOF
# nothing committed: the target's refs are as they were, no branch made
after=$(git -C old for-each-ref --format='%(refname) %(objectname)')
[ "$before" = "$after" ] || fail "resolve --suggest moved a ref"
S=$TEST_TMP/ws/.kcarry/resolve/wq/v1/old/suggest
cat >want.cocci <<'EOF'
// btrfs_init_work: learned from 3 converted calls of the series
@@
expression e1, e2, e3;
@@
- btrfs_init_work(e1, e2, e3, e3)
+ btrfs_init_work(e1, e2, e3)

EOF
diff -u want.cocci "$S/conversion.cocci" || fail "conversion.cocci differs"

# the patch applies to the series carried on old, and only the calls the
# series never converts change
expect_exit 1 kcarry -C ws apply --no-refresh wq old
git clone -q old res && git -C res checkout -q kcarry/wq/v1/old ||
	fail "no carried branch"
git -C res apply --check "$S/suggest.patch" || fail "suggest.patch does not apply"
cp -r res byhand
git -C res apply "$S/suggest.patch" || fail "suggest.patch"
[ "$(grep -l 'NULL, NULL)' res/fs/btrfs/*.c)" = res/fs/btrfs/ordered-data.c ] ||
	fail "a call the series never converts is still unconverted"
grep -q 'flush_fn, ctx ? flush_fn : NULL, NULL)' res/fs/btrfs/ordered-data.c ||
	fail "the ambiguous call was rewritten"

# cross-check with Coccinelle: the semantic patch gives the same files
command -v spatch >/dev/null 2>&1 || skip "no spatch: the rest is checked"
for f in byhand/fs/btrfs/*.c; do
	spatch --very-quiet --sp-file "$S/conversion.cocci" --in-place "$f" \
		>/dev/null 2>&1 || fail "spatch on $f"
done
grep -q 'scrub_fn, NULL)' byhand/fs/btrfs/scrub.c || fail "spatch did nothing"
for f in res/fs/btrfs/*.c; do
	b=byhand/fs/btrfs/${f##*/}
	tr -d ' \t\n' <"$f" >a.flat
	tr -d ' \t\n' <"$b" >b.flat
	cmp -s a.flat b.flat || { diff -u "$b" "$f"; fail "spatch and kcarry differ on ${f##*/}"; }
done
