#include "err.h"

#include <stdio.h>
#include <stdlib.h>

void err_init(struct err *err)
{
	err->code = 0;
	buf_init(&err->msg, 0);
	buf_init(&err->hint, 0);
}

void err_release(struct err *err)
{
	buf_release(&err->msg);
	buf_release(&err->hint);
	err->code = 0;
}

int err_set(struct err *err, int code, const char *fmt, ...)
{
	va_list ap;

	err->code = code;
	buf_reset(&err->msg);
	buf_reset(&err->hint);
	va_start(ap, fmt);
	buf_vaddf(&err->msg, fmt, ap);
	va_end(ap);
	return code;
}

int err_prefix(struct err *err, const char *fmt, ...)
{
	struct buf m = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&m, fmt, ap);
	va_end(ap);
	buf_adds(&m, ": ");
	buf_add(&m, err->msg.ptr, err->msg.len);
	buf_swap(&m, &err->msg);
	buf_release(&m);
	return err->code;
}

void err_hint(struct err *err, const char *fmt, ...)
{
	va_list ap;

	buf_reset(&err->hint);
	va_start(ap, fmt);
	buf_vaddf(&err->hint, fmt, ap);
	va_end(ap);
}

int err_exit_code(const struct err *err)
{
	switch (err->code) {
	case ERR_OK:
		return EXIT_DONE;
	case ERR_CONFLICT:
		return EXIT_NOT_DONE;
	case ERR_PARSE:
	case ERR_NOTFOUND:
	case ERR_USAGE:
	case ERR_EXISTS:
		return EXIT_USAGE;
	default:
		return EXIT_ENV;
	}
}

void bug_fl(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "BUG: %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}
