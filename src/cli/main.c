/*
 * main: the command table, global options and exit codes.
 */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmds.h"
#include "fetch.h"
#include "fs.h"
#include "report.h"
#include "tree.h"

static void on_workspace_busy(void *ctx, const char *path, long holder)
{
	const struct options *opts = ctx;

	if (holder > 0)
		note(opts, "waiting for another kcarry (pid %ld) writing this "
			   "workspace",
		     holder);
	else
		note(opts, "waiting for another kcarry writing this workspace");
}

int workspace_lock(struct lock *l, const char *root,
		   const struct options *opts, struct err *err)
{
	struct lock_wait w = { on_workspace_busy, (void *)opts };
	char *dir = fs_join(root, ".kcarry"), *path = fs_join(dir, "lock");
	char **removed = NULL;
	size_t nr = 0;
	int error;

	if ((error = fs_mkdirs(dir, err)) == 0 &&
	    (error = lock_take(l, path, &w, err)) == 0 &&
	    (error = lock_clear_stale(&removed, &nr, root, err)) == 0)
		for (size_t i = 0; i < nr; i++)
			note(opts, "removed %s, left by an interrupted kcarry",
			     removed[i]);
	fs_free_list(removed, nr);
	free(path);
	free(dir);
	return error;
}

int cli_workspace(struct cli_ctx *cx, const char **root, struct err *err)
{
	int error;

	/* a command the table does not mark has no workspace to ask for */
	if (!(cx->flags & CMD_WORKSPACE))
		abort();
	if (!cx->root && (error = workspace_find(&cx->root, cx->opts, err)) < 0)
		return error;
	if ((cx->flags & CMD_LOCK) && cx->lock.fd < 0 &&
	    (error = workspace_lock(&cx->lock, cx->root, cx->opts, err)) < 0)
		return error;
	*root = cx->root;
	return 0;
}

static int cmd_help(int argc, char **argv, struct cli_ctx *cx);
static int cmd_version(int argc, char **argv, struct cli_ctx *cx);

static const struct command commands[] = {
	{ "init", cmd_init, 0, "create an empty workspace",
	  init_usage, init_help, init_options },
	{ "import", cmd_import, CMD_WORKSPACE, "import a version of a series",
	  import_usage, import_help, import_options, import_more },
	{ "fetch", cmd_fetch, CMD_WORKSPACE,
	  "fetch threads by message-id, find new revisions",
	  fetch_usage, fetch_help, fetch_options, fetch_more },
	{ "list", cmd_list, CMD_WORKSPACE,
	  "list series, versions and patch counts",
	  list_usage, list_help, list_options },
	{ "show", cmd_show, CMD_WORKSPACE,
	  "show the patches of a series version",
	  show_usage, show_help, show_options },
	{ "kernels", cmd_kernels, CMD_WORKSPACE,
	  "list the target trees and their state",
	  kernels_usage, kernels_help, kernels_options },
	{ "apply", cmd_apply, CMD_WORKSPACE | CMD_LOCK,
	  "apply a series version to targets",
	  apply_usage, apply_help, apply_options, apply_more },
	{ "resolve", cmd_resolve, CMD_WORKSPACE,
	  "hand a conflicting patch to a person",
	  resolve_usage, resolve_help, resolve_options },
	{ "refresh", cmd_refresh, CMD_WORKSPACE | CMD_LOCK,
	  "record a resolution and carry the rest",
	  refresh_usage, refresh_help, refresh_options, refresh_more },
	{ "check", cmd_check, CMD_WORKSPACE | CMD_LOCK,
	  "every series on every target: the matrix",
	  check_usage, check_help, check_options, check_more },
	{ "build", cmd_build, CMD_WORKSPACE | CMD_LOCK,
	  "build a carried series on targets",
	  build_usage, build_help, build_options, build_more },
	{ "report", cmd_report, CMD_WORKSPACE,
	  "merge check reports (CI shards)",
	  report_usage, report_help, report_options, report_more },
	{ "gc", cmd_gc, CMD_WORKSPACE,
	  "free the build folders and the identifier cache",
	  gc_usage, gc_help, gc_options, gc_more },
	{ "callers", cmd_callers, CMD_WORKSPACE,
	  "map the callers of the watched API",
	  callers_usage, callers_help, callers_options, callers_more },
	{ "diff", cmd_diff, CMD_WORKSPACE,
	  "compare two stored versions of a series",
	  diff_usage, diff_help, diff_options, diff_more },
	{ "rebase", cmd_rebase, CMD_WORKSPACE,
	  "build a version's backport from another's",
	  rebase_usage, rebase_help, rebase_options, rebase_more },
	{ "export", cmd_export, CMD_WORKSPACE | CMD_LOCK,
	  "write a backport for packagers or a stable list",
	  export_usage, export_help, export_options, export_more },
	{ "help", cmd_help, 0, "show help for a command", "kcarry help [COMMAND]",
	  "Without COMMAND, list the commands.\n" },
	{ "version", cmd_version, 0, "print the version", "kcarry version", "" },
	{ "__complete", cmd_complete, 0, "the shell completions' candidates",
	  complete_usage, complete_help, NULL },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

const struct command *command_table(size_t *nr)
{
	*nr = NR_COMMANDS;
	return commands;
}

const struct command *command_find(const char *name)
{
	return find_command(name);
}

static const char *const color_modes[] = { "always", "never", "auto", NULL };

/* What main reads before the command: the global options and two more. */
struct main_opts {
	bool version, help;
	struct options o;
};

static int take_quiet(const char *value, void *verbosity, struct err *err)
{
	*(int *)verbosity = -1;
	return 0;
}

/* --color (always) or --color=WHEN; another WHEN is no global option */
static int take_color(const char *value, void *mode, struct err *err)
{
	static const enum color_mode modes[] = { COLOR_ALWAYS, COLOR_NEVER,
						 COLOR_AUTO };

	for (size_t k = 0; k < sizeof(modes) / sizeof(modes[0]); k++)
		if (!value || !strcmp(value, color_modes[k])) {
			*(enum color_mode *)mode = modes[k];
			return 0;
		}
	return 1;
}

static int take_no_color(const char *value, void *mode, struct err *err)
{
	*(enum color_mode *)mode = COLOR_NEVER;
	return 0;
}

#define MAIN_OPT(member) offsetof(struct main_opts, member)

/*
 * The global options, read by main (opt_next) and offered by the
 * completions.  --version and --help come first: they are read before
 * the command only (after it, --help is the command's); the others are
 * read before and after it (AFTER_COMMAND).
 */
static const struct opt global_options[] = {
	{ OPT_FLAG, 0, "version", NULL, "print the version",
	  MAIN_OPT(version) },
	{ OPT_FLAG, 'h', "help", NULL, "list the commands", MAIN_OPT(help) },
	{ OPT_STRING, 'C', NULL, "DIR", "run as if started in DIR",
	  MAIN_OPT(o.workdir), .detached = true, .what = "a directory" },
	{ OPT_FUNC, 'q', "quiet", NULL, "only errors", MAIN_OPT(o.verbosity),
	  .parse = take_quiet },
	{ OPT_COUNT, 'v', "verbose", NULL, "more detail (-vv: even more)",
	  MAIN_OPT(o.verbosity), .max = 2 },
	{ OPT_FUNC, 0, "color", "WHEN", "colour: always, never, auto",
	  MAIN_OPT(o.color), .choices = color_modes, .parse = take_color,
	  .optional = true },
	{ OPT_FUNC, 0, "no-color", NULL, "no colour", MAIN_OPT(o.color),
	  .parse = take_no_color },
	{ OPT_END },
};

#define AFTER_COMMAND (global_options + 2)

const struct opt *global_option_table(void)
{
	return global_options;
}

static void print_main_usage(FILE *f)
{
	fprintf(f,
		"usage: kcarry [--version] [--help] [-C DIR] [-q|-v] "
		"[--color=WHEN] COMMAND [ARGS]\n\n"
		"Carry kernel patch series across kernel trees.\n\n"
		"commands:\n");
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (commands[i].name[0] != '_') /* __complete: for scripts */
			fprintf(f, "   %-10s %s\n", commands[i].name,
				commands[i].summary);
	fprintf(f,
		"\n'kcarry help COMMAND' or 'kcarry COMMAND --help' tells more.\n"
		"-C, -q, -v and --color may also follow COMMAND (before a "
		"'--').\n"
		"exit status: 0 done, 1 not done but consistent (conflicts),\n"
		"2 usage or bad input, 3 environment (I/O, repository, network).\n");
}

int print_command_help(const char *name)
{
	const struct command *c = find_command(name);

	if (!c)
		return EXIT_USAGE;
	printf("usage: %s\n\n%s", c->usage, c->help);
	if (!c->help[0])
		printf("%s.\n", c->summary);
	if (c->options && c->options[0].kind != OPT_END) {
		struct buf b = BUF_INIT;
		opt_help(&b, c->options);
		printf("\n%s", b.ptr);
		buf_release(&b);
	}
	if (c->more && c->more[0])
		printf("\n%s", c->more);
	return EXIT_DONE;
}

int cli_parse(const char *cmd, const struct opt *table, void *base,
	      int argc, char **argv, const char ***args, size_t *nr_args,
	      const struct options *opts)
{
	struct err err = ERR_INIT;

	if (opt_parse(table, base, argc, argv, args, nr_args, &err) < 0) {
		usage_error(cmd, opts, "%s", err.msg.ptr);
		err_release(&err);
		return -1;
	}
	return 0;
}

bool is_help(const char *arg)
{
	return !strcmp(arg, "-h") || !strcmp(arg, "--help");
}

int err_report(const struct err *err, const struct options *opts)
{
	const char *red = color(opts, false, "\033[1;31m");
	const char *yel = color(opts, false, "\033[33m");
	const char *off = color(opts, false, "\033[m");

	/* a message may name a file of a patch: no control character of
	 * it reaches the terminal */
	fprintf(stderr, "%serror:%s ", red, off);
	report_printf(stderr, "%s\n",
		      err->msg.len ? err->msg.ptr : "unknown error");
	if (err->hint.len) {
		fprintf(stderr, "%shint:%s ", yel, off);
		report_printf(stderr, "%s\n", err->hint.ptr);
	}
	return err_exit_code(err);
}

int usage_error(const char *cmd, const struct options *opts,
		const char *fmt, ...)
{
	const struct command *c = find_command(cmd);
	va_list ap;

	fputs("error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (c)
		fprintf(stderr, "usage: %s\n", c->usage);
	return EXIT_USAGE;
}

void note(const struct options *opts, const char *fmt, ...)
{
	va_list ap;

	if (opts->verbosity < 0)
		return;
	va_start(ap, fmt);
	report_vprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void verbose(const struct options *opts, const char *fmt, ...)
{
	va_list ap;

	if (opts->verbosity < 1)
		return;
	va_start(ap, fmt);
	report_vprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

const char *color(const struct options *opts, bool on_stdout,
		  const char *code)
{
	return (on_stdout ? opts->color_out : opts->color_err) ? code : "";
}

int workspace_find(char **root, const struct options *opts, struct err *err)
{
	const char *env = getenv("KCARRY_WORKSPACE");
	char *dir;

	if (opts->workdir)
		dir = fs_absolute(opts->workdir);
	else if (env && *env)
		dir = fs_absolute(env);
	else
		dir = fs_absolute(".");
	for (;;) {
		char *s = fs_join(dir, "series"), *k = fs_join(dir, "kernels");
		bool found = fs_is_dir(s) && fs_is_dir(k);
		char *slash;

		free(s);
		free(k);
		if (found) {
			*root = dir;
			return 0;
		}
		slash = strrchr(dir, '/');
		if (!slash || slash == dir)
			break;
		*slash = '\0';
	}
	free(dir);
	err_set(err, ERR_NOTFOUND,
		"not in a kcarry workspace (no series/ and kernels/ here or "
		"above)");
	err_hint(err, "run 'kcarry init' to create one, or use -C DIR");
	return ERR_NOTFOUND;
}

static int cmd_help(int argc, char **argv, struct cli_ctx *cx)
{
	const struct options *opts = cx->opts;

	if (argc < 2) {
		print_main_usage(stdout);
		return EXIT_DONE;
	}
	if (!find_command(argv[1]))
		return usage_error("help", opts, "'%s' is not a kcarry command",
				   argv[1]);
	return print_command_help(argv[1]);
}

static int cmd_version(int argc, char **argv, struct cli_ctx *cx)
{
	printf("kcarry %s\n", KCARRY_VERSION);
	return EXIT_DONE;
}

static bool want_color(enum color_mode m, int fd)
{
	const char *term = getenv("TERM");

	if (m == COLOR_ALWAYS)
		return true;
	if (m == COLOR_NEVER || getenv("NO_COLOR"))
		return false;
	return isatty(fd) && term && strcmp(term, "dumb");
}

int main(int argc, char **argv)
{
	struct main_opts mo = { 0 };
	struct options *opts = &mo.o;
	const struct command *cmd;
	struct err err = ERR_INIT;
	int i, rc;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];
		int g = opt_next(global_options, &mo, argc, argv, &i, &err);

		if (g < 0) {
			fprintf(stderr, "error: %s\n", err.msg.ptr);
			err_release(&err);
			return EXIT_USAGE;
		}
		if (!g) {
			fprintf(stderr, "error: unknown option '%s'\n", a);
			print_main_usage(stderr);
			return EXIT_USAGE;
		}
		if (mo.version)
			return cmd_version(0, NULL, NULL);
		if (mo.help) {
			print_main_usage(stdout);
			return EXIT_DONE;
		}
	}
	if (i >= argc) {
		print_main_usage(stderr);
		return EXIT_USAGE;
	}
	cmd = find_command(argv[i]);
	if (!cmd) {
		fprintf(stderr, "error: '%s' is not a kcarry command\n",
			argv[i]);
		fprintf(stderr, "hint: 'kcarry help' lists the commands\n");
		return EXIT_USAGE;
	}
	{
		/* global options may follow the command too ('check -v'),
		 * up to a "--" */
		int w = i + 1;
		for (int k = i + 1; k < argc; k++) {
			int g = 0;
			if (!strcmp(argv[k], "--")) {
				while (k < argc)
					argv[w++] = argv[k++];
				break;
			}
			g = opt_next(AFTER_COMMAND, &mo, argc, argv, &k, &err);
			if (g < 0) {
				fprintf(stderr, "error: %s\n", err.msg.ptr);
				err_release(&err);
				return EXIT_USAGE;
			}
			if (!g)
				argv[w++] = argv[k];
		}
		argc = w;
		argv[argc] = NULL;
	}
	opts->color_out = want_color(opts->color, 1);
	opts->color_err = want_color(opts->color, 2);
	opts->progress = opts->verbosity >= 0 && isatty(2);
	if (argc - i >= 2 && is_help(argv[i + 1]))
		return print_command_help(cmd->name);
	if (tree_global_init(&err) < 0)
		return err_report(&err, opts);
	/* libcurl's global state, before any thread (check) starts */
	if (fetch_global_init(&err) < 0) {
		tree_global_shutdown();
		return err_report(&err, opts);
	}
	{
		struct cli_ctx cx = { opts, cmd->flags, NULL, LOCK_INIT };

		rc = cmd->fn(argc - i, argv + i, &cx);
		lock_release(&cx.lock);
		free(cx.root);
	}
	fetch_global_shutdown();
	tree_global_shutdown();
	fflush(stdout);
	if (ferror(stdout)) {
		fprintf(stderr, "error: cannot write to standard output\n");
		return EXIT_ENV;
	}
	return rc;
}
