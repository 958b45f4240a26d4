#!/bin/sh
# Never the other way round: the lines the fix adds to demo_open() stand
# in the stable tree, but in demo_other(); demo_open() still has the old
# call.  Hunk 1 stays a conflict (with --no-adapt; else a flagged proposal,
# never "already"), and the patch is partial (hunk 2 stands
# in demo_close() in edited form).
here=$(pwd)
. ./lib.sh
. "$here/already-lib.sh"
OTHER_WITH='	int ret;

	ret = demo_start(d, DEMO_SAFE);
	if (ret < 0)
		return ret;
	return 0;'
already_setup "$STABLE_OPEN_BEFORE" "$STABLE_CLOSE_FIXED" "$OTHER_WITH"

expect_exit 1 kcarry -C ws apply --no-adapt fix stable
expect_stdout <<'EOT'
fix@v1 on stable (kcarry/fix/v1/stable)
  0001 partially applied btrfs: start demo in safe mode, free its buffer on close
         fs/btrfs/demo.c hunk 1: conflict: context does not match near line 6
         fs/btrfs/demo.c hunk 2: already-applied at line 28 (offset +1): its change stands in demo_close() in edited form, the added lines at 28, 29, 30
  summary: 1 partially applied
EOT

# with adaptation, hunk 1 is a proposal a person must accept (exit 1),
# never "already applied"
expect_exit 1 kcarry -C ws apply fix stable
stdout_has 'hunk 1: adapted at line'
if grep -q 'hunk 1: already' "$OUT"; then fail "hunk 1 called already"; fi
