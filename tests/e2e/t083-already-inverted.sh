#!/bin/sh
# Never the other way round: demo_open() has the new call and the old one
# is gone, but the condition after it is inverted ("ret >= 0").  Hunk 1
# stays a conflict; the patch is partial (hunk 2 stands in edited form).
here=$(pwd)
. ./lib.sh
. "$here/already-lib.sh"
INVERTED='	int ret;

	d->state = DEMO_INIT;
	d->users = 0;
	ret = demo_start(d, DEMO_SAFE);
	if (ret >= 0)
		return ret;
	demo_trace(d);
	return 0;'
already_setup "$INVERTED" "$STABLE_CLOSE_FIXED"

expect_exit 1 kcarry -C ws apply fix stable
expect_stdout <<'EOT'
fix@v1 on stable (kcarry/fix/v1/stable)
  0001 partially applied btrfs: start demo in safe mode, free its buffer on close
         fs/btrfs/demo.c hunk 1: conflict: removed lines not found near line 6
         fs/btrfs/demo.c hunk 2: already-applied at line 30 (offset +3): its change stands in demo_close() in edited form, the added lines at 30, 31, 32
  summary: 1 partially applied
EOT
