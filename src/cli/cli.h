/*
 * cli: what main.c gives every subcommand: the parsed global options, the
 * workspace, and the few printing helpers the command layer shares
 * (error:/hint: lines, progress on stderr, colour).
 */
#ifndef KCARRY_CLI_H
#define KCARRY_CLI_H

#include "err.h"
#include "lock.h"
#include "opt.h"

enum color_mode { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER };

struct options {
	int verbosity;          /* -q: -1, default 0, -v: 1, -vv: 2 */
	enum color_mode color;
	bool color_out;         /* resolved for stdout */
	bool color_err;         /* resolved for stderr */
	bool progress;          /* stderr is a terminal and not -q */
	const char *workdir;    /* -C DIR, or NULL */
};

/*
 * What a command needs of main, as git's RUN_SETUP: CMD_WORKSPACE, the
 * workspace; CMD_LOCK, also its writer lock (workspace_lock).  main does
 * the work when the command first asks (cli_workspace), after the command
 * has read its arguments, so that a usage error neither looks for a
 * workspace nor waits for the lock; main releases both after the command.
 */
enum command_flags { CMD_WORKSPACE = 1 << 0, CMD_LOCK = 1 << 1 };

/* What main gives a command: the global options and its workspace. */
struct cli_ctx {
	const struct options *opts;
	unsigned flags;   /* the command's enum command_flags */
	char *root;       /* the workspace, once found */
	struct lock lock; /* held with CMD_LOCK, once found */
};

struct command {
	const char *name;
	int (*fn)(int argc, char **argv, struct cli_ctx *cx);
	unsigned flags; /* enum command_flags */
	const char *summary;
	const char *usage; /* "kcarry import [options] NAME[@VERSION] SOURCE..." */
	const char *help;  /* the text after usage for --help */
	const struct opt *options; /* the parser's table: --help's "options:" */
	const char *more;  /* the text after the options (exit status) */
};

/*
 * The options every command that carries a series takes, as apply has
 * them, for a struct whose member m is a struct carry_opts.
 */
#define OPT_CARRY(type, m)                                                  \
	{ OPT_UINT, 'F', "fuzz", "N",                                       \
	  "largest fuzz (0-3, default 2 as quilt)",                         \
	  offsetof(type, m.apply.fuzz), 0, 3 },                             \
	{ OPT_FLAG, 0, "no-3way", NULL, "no 3-way merges",                  \
	  offsetof(type, m.apply.no_3way) },                                \
	{ OPT_FLAG, 0, "no-adapt", NULL,                                    \
	  "propose no adaptation of a conflicting hunk",                    \
	  offsetof(type, m.apply.no_adapt) },                               \
	{ OPT_FLAG, 0, "strict", NULL, "a placement risk fails the patch",  \
	  offsetof(type, m.strict) }

/* -o FILE of the commands that print a report (a const char * member) */
#define OPT_OUTPUT(type, member)                                            \
	{ OPT_STRING, 'o', "output", "FILE", "write the report to FILE",   \
	  offsetof(type, member) }

/* -j N of the commands that work on targets in parallel (unsigned) */
#define OPT_JOBS_HELP(type, member, help)                                   \
	{ OPT_UINT, 'j', "jobs", "N", help, offsetof(type, member), 0, 256 }
#define OPT_JOBS(type, member)                                              \
	OPT_JOBS_HELP(type, member, "targets at once (default: CPUs)")


/* Print error:/hint: lines for err on stderr; return its exit code. */
int err_report(const struct err *err, const struct options *opts);
/* Print "usage: ..." for cmd plus message; returns EXIT_USAGE. */
int usage_error(const char *cmd, const struct options *opts,
		const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/*
 * Parse a command's arguments by its option table (opt.h) into base; the
 * other arguments go to *args (freed by the caller, also on failure).  On
 * a bad option the usage error is printed and -1 returned: the command
 * then exits with EXIT_USAGE.
 */
int cli_parse(const char *cmd, const struct opt *table, void *base,
	      int argc, char **argv, const char ***args, size_t *nr_args,
	      const struct options *opts);
/* True when argv[i] is -h or --help. */
bool is_help(const char *arg);
/* Print the --help text of a command on stdout; returns EXIT_DONE. */
int print_command_help(const char *name);
/* A progress or note line on stderr (not with -q). */
void note(const struct options *opts, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A line printed only with -v. */
void verbose(const struct options *opts, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * Carrying a series onto a target (progress.c): progress_patch, for
 * carry_opts.progress with a struct progress_ctx, redraws "TARGET: patch
 * I/N" on a terminal (what for "patch", when set); progress_target, for
 * struct target_progress with the const struct options, notes "TARGET:
 * WHAT".
 */
struct progress_ctx {
	const struct options *opts;
	const char *target;
	const char *what; /* NULL: "patch" */
};
void progress_patch(void *ctx, size_t i, size_t nr, const char *subject);
void progress_target(void *ctx, const char *target, const char *what);
/* ANSI colour wrappers; empty strings when colour is off. */
const char *color(const struct options *opts, bool on_stdout,
		  const char *code);

/*
 * Find the workspace (the folder holding series/ and kernels/) from -C,
 * $KCARRY_WORKSPACE or the current directory upwards.  *root gets a new
 * string.
 */
int workspace_find(char **root, const struct options *opts, struct err *err);
/*
 * The workspace of a command with CMD_WORKSPACE, found once (and its lock
 * taken once, with CMD_LOCK): *root is cx's, valid until the command
 * returns.
 */
int cli_workspace(struct cli_ctx *cx, const char **root, struct err *err);
/*
 * Take the workspace's writer lock (.kcarry/lock) for a command that
 * writes the workspace or its targets' branches: another kcarry writing
 * it makes this one wait, with a note; what interrupted runs left (stale
 * config locks, temporary folders) is then removed, with a note each.
 */
int workspace_lock(struct lock *l, const char *root,
		   const struct options *opts, struct err *err);


#endif
