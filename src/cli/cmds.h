/*
 * cmds: the subcommands main.c dispatches to, one cmd_*.c file each.
 */
#ifndef KCARRY_CMDS_H
#define KCARRY_CMDS_H

#include <stdio.h>

#include "cli.h"
#include "job.h"

int cmd_init(int argc, char **argv, struct cli_ctx *cx);
int cmd_import(int argc, char **argv, struct cli_ctx *cx);
int cmd_fetch(int argc, char **argv, struct cli_ctx *cx);
int cmd_list(int argc, char **argv, struct cli_ctx *cx);
int cmd_show(int argc, char **argv, struct cli_ctx *cx);
int cmd_kernels(int argc, char **argv, struct cli_ctx *cx);
int cmd_apply(int argc, char **argv, struct cli_ctx *cx);
int cmd_resolve(int argc, char **argv, struct cli_ctx *cx);
int cmd_refresh(int argc, char **argv, struct cli_ctx *cx);
int cmd_check(int argc, char **argv, struct cli_ctx *cx);
int cmd_callers(int argc, char **argv, struct cli_ctx *cx);
int cmd_diff(int argc, char **argv, struct cli_ctx *cx);
int cmd_rebase(int argc, char **argv, struct cli_ctx *cx);
int cmd_export(int argc, char **argv, struct cli_ctx *cx);
int cmd_build(int argc, char **argv, struct cli_ctx *cx);
int cmd_report(int argc, char **argv, struct cli_ctx *cx);
int cmd_gc(int argc, char **argv, struct cli_ctx *cx);
int cmd_complete(int argc, char **argv, struct cli_ctx *cx);
/* main.c's command table, one command of it (NULL: none), the global
 * options as a table (opt.h), for cmd_complete.c */
const struct command *command_table(size_t *nr);
const struct command *command_find(const char *name);
const struct opt *global_option_table(void);

/*
 * The --help text of each command, in its cmd_*.c file: usage, the text
 * before the options and (some) the text after them.
 */
extern const char init_usage[], init_help[];
extern const char import_usage[], import_help[], import_more[];
extern const char fetch_usage[], fetch_help[], fetch_more[];
extern const char list_usage[], list_help[];
extern const char show_usage[], show_help[];
extern const char kernels_usage[], kernels_help[];
extern const char apply_usage[], apply_help[], apply_more[];
extern const char resolve_usage[], resolve_help[];
extern const char refresh_usage[], refresh_help[], refresh_more[];
extern const char check_usage[], check_help[], check_more[];
extern const char build_usage[], build_help[], build_more[];
extern const char gc_usage[], gc_help[], gc_more[];
extern const char report_usage[], report_help[], report_more[];
extern const char callers_usage[], callers_help[], callers_more[];
extern const char diff_usage[], diff_help[], diff_more[];
extern const char rebase_usage[], rebase_help[], rebase_more[];
extern const char export_usage[], export_help[], export_more[];
extern const char complete_usage[], complete_help[];

/*
 * The option tables (opt.h) of the commands, read by their parsers and
 * by --help.
 */
extern const struct opt import_options[], fetch_options[], show_options[],
	kernels_options[], apply_options[], resolve_options[],
	refresh_options[], check_options[], callers_options[], diff_options[],
	rebase_options[], export_options[], build_options[], report_options[],
	gc_options[], list_options[], init_options[];

/* cmd_check.c, shared with cmd_report.c: formats 0 text, 1 json,
 * 2 junit, 3 markdown, 4 email, 5 html (their names NULL-terminated) */
struct check_report;
typedef struct json_t json_t;
extern const char *const check_format_names[];
struct check_writer {
	int format;
	bool color;
	const json_t *diff; /* report_diff against a baseline, or NULL */
	const struct options *opts;
};
int check_write_format(const struct check_writer *w, FILE *out,
		       const struct check_report *r, struct err *err);

/*
 * cmd_resolve.c, shared with cmd_refresh.c: the start-up of resolve,
 * resolve --suggest and refresh on one cell.  resolve_cell_open finds
 * the workspace (and takes its lock with RESOLVE_CELL_LOCK), loads spec
 * (NAME[@VERSION]), checks the target's name and sets dir, the cell's
 * scratch folder; with RESOLVE_CELL_TARGET it also opens the target
 * (resolve_cell_target does it later).  co and res are the command's to
 * carry with.  resolve_cell_close releases what was set, also after a
 * failure, and does nothing to a cell never opened ({ 0 }).
 */
enum resolve_cell_flags { RESOLVE_CELL_LOCK = 1, RESOLVE_CELL_TARGET = 2 };
struct resolve_cell {
	const char *root;
	const char *target;
	char *dir;
	struct series_version v;
	struct job j;
	struct lock lock;
	struct cli_ctx *cx;
	struct carry_opts co;     /* the default options of apply */
	struct carry_result res;  /* what the command carries */
};
int resolve_cell_open(struct resolve_cell *c, const char *spec,
		      const char *target, unsigned flags, struct cli_ctx *cx,
		      struct err *err);
int resolve_cell_target(struct resolve_cell *c, struct err *err);
void resolve_cell_close(struct resolve_cell *c);
int check_write_to(const char *path, const struct check_writer *w,
		   const struct check_report *r, struct err *err);
int check_write_all(const char *dir, const struct check_writer *w,
		    const struct check_report *r, struct err *err);

/*
 * --format, -o and --reports of check and report merge, for a struct
 * with an int format and const char * output and reports
 */
#define OPT_CHECK_FORMATS(type, format, output, reports)                    \
	{ OPT_CHOICE, 'f', "format", "F",                                   \
	  "text (default), json, junit, markdown, email, html",             \
	  offsetof(type, format), 0, 0, check_format_names },               \
	OPT_OUTPUT(type, output),                                           \
	{ OPT_STRING, 0, "reports", "DIR",                                  \
	  "also write every format to\n"                                     \
	  "DIR/check.{txt,json,xml,md,mbox,html}",                          \
	  offsetof(type, reports) }

/*
 * --accept-adapted[=built] of check and report merge (cmd_check.c), for
 * an enum check_accept member: alone ACCEPT_ALL, =built ACCEPT_BUILT
 */
int parse_accept_adapted(const char *value, void *target, struct err *err);
#define OPT_ACCEPT_ADAPTED(type, member, help)                              \
	{ OPT_FUNC, 0, "accept-adapted", "built", help,                     \
	  offsetof(type, member), .parse = parse_accept_adapted,            \
	  .optional = true }

/*
 * A build's progress on stderr (cmd_build.c, shared with check --build):
 * on a terminal the progress line, "TARGET: <what>PHASE: done/total
 * objects, N s" (true: a line is left to clear); else with -v one line
 * when a phase begins or ends, as a CI log wants them.
 */
struct build_tick;
bool build_tick_show(const struct options *opts, const char *what,
		     const struct build_tick *t);

/* "I/N" of --shard (cmd_check.c) */
int check_parse_shard(unsigned *shard, unsigned *nr, const char *s,
		      struct err *err);

#endif
