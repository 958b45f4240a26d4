/*
 * progress: the progress of a command on stderr, for the callbacks the
 * core takes (carry_opts.progress, struct target_progress).
 */
#include <stdio.h>

#include "cli.h"

void progress_patch(void *vctx, size_t i, size_t nr, const char *subject)
{
	struct progress_ctx *ctx = vctx;

	if (!ctx->opts->progress)
		return;
	fprintf(stderr, "\r\033[K%s: %s %zu/%zu", ctx->target,
		ctx->what ? ctx->what : "patch", i + 1, nr);
	if (i + 1 == nr)
		fputc('\n', stderr);
}

void progress_target(void *vctx, const char *target, const char *what)
{
	const struct options *opts = vctx;

	note(opts, "%s: %s", target, what);
}
