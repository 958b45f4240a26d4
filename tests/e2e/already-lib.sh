# already-lib.sh: a btrfs-like file, an upstream fix to it in two hunks
# (one per function), and targets that carry that fix, or something like
# it, in edited form: other context around the same change.  Sourced by
# t080-t084 after lib.sh.

# demo_c OPEN_BODY CLOSE_BODY [OTHER_BODY]: fs/btrfs/demo.c with those
# bodies
demo_c() {
	cat <<EOC
#include "demo.h"

static int demo_open(struct demo *d)
{
$1
}

static int demo_other(struct demo *d)
{
${3:-$OTHER}
}

static void demo_close(struct demo *d)
{
$2
}
EOC
}

OTHER='	d->a = 1;
	d->b = 2;
	d->c = 3;
	d->d = 4;
	d->e = 5;
	d->f = 6;
	return 0;'
OPEN_BEFORE='	int ret;

	d->state = DEMO_NEW;
	d->count = 0;
	ret = demo_start(d);
	demo_log(d, "open");
	d->state = DEMO_OPEN;
	return 0;'
OPEN_AFTER='	int ret;

	d->state = DEMO_NEW;
	d->count = 0;
	ret = demo_start(d, DEMO_SAFE);
	if (ret < 0)
		return ret;
	demo_log(d, "open");
	d->state = DEMO_OPEN;
	return 0;'
CLOSE_BEFORE='	d->state = DEMO_CLOSING;
	d->users--;
	demo_flush(d);
	demo_log(d, "close");
	d->state = DEMO_CLOSED;'
CLOSE_AFTER='	d->state = DEMO_CLOSING;
	d->users--;
	demo_flush(d, DEMO_SYNC);
	kfree(d->buf);
	d->buf = NULL;
	demo_log(d, "close");
	d->state = DEMO_CLOSED;'

# The stable tree's own versions of the two functions, before and with
# the fix: other lines around the change.
STABLE_OPEN_BEFORE='	int ret;

	d->state = DEMO_INIT;
	d->users = 0;
	ret = demo_start(d);
	demo_trace(d);
	d->state = DEMO_READY;
	return 0;'
STABLE_OPEN_FIXED='	int ret;

	d->state = DEMO_INIT;
	d->users = 0;
	/* safe mode (upstream fix) */
	ret = demo_start(d,
			 DEMO_SAFE);
	if (ret < 0)
		return ret;
	demo_trace(d);
	d->state = DEMO_READY;
	return 0;'
STABLE_CLOSE_BEFORE='	d->state = DEMO_SHUTDOWN;
	demo_flush(d);
	demo_trace(d);
	d->flags = 0;'
STABLE_CLOSE_FIXED='	d->state = DEMO_SHUTDOWN;
	demo_flush(d, DEMO_SYNC);
	kfree(d->buf);
	d->buf = NULL;
	demo_trace(d);
	d->flags = 0;'

# already_setup OPEN_BODY CLOSE_BODY [OTHER_BODY]: 'up' (the upstream fix
# as one commit after tag base), 'tgt' (fs/btrfs/demo.c with those
# bodies), and workspace ws with series fix imported and target stable
already_setup() {
	make_repo up fs/btrfs/demo.c "$(demo_c "$OPEN_BEFORE" "$CLOSE_BEFORE")
"
	commit_file up fs/btrfs/demo.c "$(demo_c "$OPEN_AFTER" "$CLOSE_AFTER")
" "btrfs: start demo in safe mode, free its buffer on close"
	make_repo tgt fs/btrfs/demo.c "$(demo_c "$1" "$2" "${3:-$OTHER}")
"
	kcarry init ws >/dev/null
	printf '[kernel]\n\tname = stable\n\turl = %s/tgt\n\tref = base\n' \
		"$(pwd)" >ws/kernels/stable.conf
	expect_exit 0 kcarry -C ws import fix --git up base..HEAD
}

# json_check FILE PYTHON: validate FILE against the apply schema, then run
# PYTHON with d the parsed document
json_check() {
	python3 - "$1" "$KCARRY_FIXTURES/../../docs/kcarry-apply.schema.json" "$2" <<'EOT' || fail "apply JSON"
import json, sys
d = json.load(open(sys.argv[1]))
try:
    import jsonschema
    jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).validate(d)
except ImportError:
    pass
exec(sys.argv[3])
EOT
}
