/*
 * opt: one option table per command, read by the parser and by --help,
 * so that the two never drift apart.  Long options take "--name VALUE"
 * and "--name=VALUE", short ones "-x VALUE" and "-xVALUE"; "--" ends the
 * options.  Arguments that are not options are collected in order.  An
 * optional value is given only as "--name=VALUE"; an OPT_PAIR takes the
 * next two arguments ("--git REPO A..B", "--git=REPO A..B").  main reads
 * the global options by a table too, one argument at a time (opt_next).
 */
#ifndef KCARRY_OPT_H
#define KCARRY_OPT_H

#include <stddef.h>

#include "err.h"

enum opt_kind {
	OPT_END,    /* closes a table */
	OPT_FLAG,   /* bool *: set to true (or false with OPT_NEGATE) */
	OPT_STRING, /* const char **: the value */
	OPT_UINT,   /* unsigned *: a number in [min, max] */
	OPT_LIST,   /* struct opt_list *: every value, in order */
	OPT_CHOICE, /* int *: the index of the value in choices */
	/* parse(value, target, err): the command's own reading; it returns
	 * 1 for a value that makes the argument no option of the table
	 * (refused as unknown, as a misspelt name is) */
	OPT_FUNC,
	OPT_PAIR,   /* const char *[2]: two values, in order */
	/* int *: one more each time; the short name repeated in one
	 * argument counts as often, up to max times ("-vv") */
	OPT_COUNT,
};

struct opt_list {
	const char **items;
	size_t nr, alloc;
};

struct opt {
	enum opt_kind kind;
	char short_name;       /* 'F' for -F, or 0 */
	const char *long_name; /* "fuzz" for --fuzz, or NULL */
	const char *arg;       /* "N", "FILE": shown in --help; NULL: a flag */
	const char *help;      /* one line or more, for --help */
	size_t offset;         /* of the target in the command's struct */
	unsigned min, max;     /* OPT_UINT */
	const char *const *choices; /* OPT_CHOICE, NULL-terminated */
	int (*parse)(const char *value, void *target, struct err *err);
	bool negate;           /* OPT_FLAG: sets false */
	/* OPT_STRING, OPT_FUNC: the value may be left out ("--signoff" or
	 * "--signoff=WHO"); then the value taken is NULL */
	bool optional;
	/* once the option is taken, also set these bools of the same
	 * struct to true (OPT_ALSO offsets; 0 for none) */
	size_t also[2];
	/* the value only as the next argument: "-C DIR", never "-CDIR" or
	 * "--name=DIR" (those are no option of the table) */
	bool detached;
	/* what a missing value is called in the error ("-C needs a
	 * directory"); NULL: arg */
	const char *what;
};

#define OPT_ALSO(type, member) (offsetof(type, member) + 1)

void opt_list_release(struct opt_list *l);

/*
 * Parse argv[1..argc) against the table into the struct at base.  Other
 * arguments go to *args (a new array the caller frees; the strings are
 * argv's).  ERR_USAGE with the option named on a bad or unknown option.
 */
int opt_parse(const struct opt *table, void *base, int argc, char **argv,
	      const char ***args, size_t *nr_args, struct err *err);

/*
 * The option at argv[*i], with the values it takes after it (*i is left
 * on the last of them): 1 when taken; 0 when argv[*i] is no option of
 * the table (an argument, "--", an unknown name, a spelling or value the
 * option refuses), *i unmoved; ERR_USAGE on a missing or bad value.
 */
int opt_next(const struct opt *table, void *base, int argc, char **argv,
	     int *i, struct err *err);

/* The "options:" block of --help, from the table, appended to out. */
void opt_help(struct buf *out, const struct opt *table);

#endif
