#!/bin/sh
# Never the other way round: demo_open() has half of the lines the fix
# adds (the new call, not the check after it), or all of them in an
# order that changes the meaning (the check before the call).  Hunk 1
# stays a conflict each time; the patch is partial (hunk 2 stands in
# edited form).
here=$(pwd)
. ./lib.sh
. "$here/already-lib.sh"
HALF='	int ret;

	d->state = DEMO_INIT;
	d->users = 0;
	ret = demo_start(d, DEMO_SAFE);
	demo_trace(d);
	return 0;'
REORDERED='	int ret = 0;

	d->state = DEMO_INIT;
	if (ret < 0)
		return ret;
	ret = demo_start(d, DEMO_SAFE);
	demo_trace(d);
	return 0;'
mkdir half reordered
cd half
already_setup "$HALF" "$STABLE_CLOSE_FIXED"
expect_exit 1 kcarry -C ws apply fix stable
expect_stdout <<'EOT'
fix@v1 on stable (kcarry/fix/v1/stable)
  0001 partially applied btrfs: start demo in safe mode, free its buffer on close
         fs/btrfs/demo.c hunk 1: conflict: removed lines not found near line 6
         fs/btrfs/demo.c hunk 2: already-applied at line 28 (offset +1): its change stands in demo_close() in edited form, the added lines at 28, 29, 30
  summary: 1 partially applied
EOT
cd ../reordered
already_setup "$REORDERED" "$STABLE_CLOSE_FIXED"
expect_exit 1 kcarry -C ws apply fix stable
expect_stdout <<'EOT'
fix@v1 on stable (kcarry/fix/v1/stable)
  0001 partially applied btrfs: start demo in safe mode, free its buffer on close
         fs/btrfs/demo.c hunk 1: conflict: removed lines not found near line 6
         fs/btrfs/demo.c hunk 2: already-applied at line 29 (offset +2): its change stands in demo_close() in edited form, the added lines at 29, 30, 31
  summary: 1 partially applied
EOT
