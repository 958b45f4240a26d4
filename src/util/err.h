/*
 * err: the error value every fallible function fills.  A function that can
 * fail returns 0 or a negative ERR_* code and describes the failure here; it
 * never prints.  The command layer turns an err into error:/hint: lines and
 * an exit code.
 */
#ifndef KCARRY_ERR_H
#define KCARRY_ERR_H

#include "buf.h"

enum err_code {
	ERR_OK = 0,
	ERR_PARSE = -1,    /* bad input: a file we cannot make sense of */
	ERR_NOTFOUND = -2, /* a named object does not exist */
	ERR_CONFLICT = -3, /* work not done but consistent (conflicts) */
	ERR_IO = -4,       /* file system, repository, network */
	ERR_USAGE = -5,    /* bad arguments */
	ERR_EXISTS = -6,   /* refusing to overwrite different content */
};

/* Exit codes, as documented in kcarry(1). */
enum exit_code {
	EXIT_DONE = 0,
	EXIT_NOT_DONE = 1,
	EXIT_USAGE = 2,
	EXIT_ENV = 3,
};

struct err {
	int code;
	struct buf msg;
	struct buf hint;
};

#define ERR_INIT { 0, BUF_INIT, BUF_INIT }

void err_init(struct err *err);
void err_release(struct err *err);
/* Set code and message; returns code so callers can 'return err_set(...)'. */
int err_set(struct err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Put our words before a message already set: "context: <old message>". */
int err_prefix(struct err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void err_hint(struct err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int err_exit_code(const struct err *err);

/* A broken invariant: a bug in kcarry, not in the input. */
#define BUG(...) bug_fl(__FILE__, __LINE__, __VA_ARGS__)
_Noreturn void bug_fl(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
