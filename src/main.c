/*
 * main: the command table, global options and exit codes.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmds.h"
#include "fs.h"
#include "tree.h"

static int cmd_help(int argc, char **argv, const struct options *opts);
static int cmd_version(int argc, char **argv, const struct options *opts);

static const struct command commands[] = {
	{ "init", cmd_init, "create an empty workspace",
	  "kcarry init [DIR]",
	  "Create series/, kernels/ and patches/ in DIR (default: the current\n"
	  "directory).  An existing workspace is left as it is.\n" },
	{ "import", cmd_import, "import a version of a series",
	  "kcarry import [options] NAME[@VERSION] SOURCE...\n"
	  "   or: kcarry import [options] NAME[@VERSION] --git REPO A..B\n"
	  "   or: kcarry import [options] NAME[@VERSION] apt:SRCPKG=VERSION",
	  "Store a series version under patches/NAME/VERSION/ (one patch per file\n"
	  "in git format-patch form plus a quilt 'series' file and the cover\n"
	  "letter) and record where it came from in series/NAME.conf.\n"
	  "\n"
	  "SOURCE is an mbox (mboxo or mboxrd), a Maildir, a single message or\n"
	  "format-patch file, a directory of patch files, or a quilt directory\n"
	  "(a folder holding a 'series' file).  apt:SRCPKG=VERSION takes\n"
	  "debian/patches/series from a Debian source package (apt:linux=6.1.170-3,\n"
	  "apt:linux-6.12=6.12.100-1~deb12u1); add '/patches-rt' after the\n"
	  "version for debian/patches-rt.\n"
	  "\n"
	  "VERSION defaults to the version in the subjects ([PATCH v3 ...] is v3)\n"
	  "or v1; when a source holds several versions the newest is taken and\n"
	  "named on stderr.\n"
	  "\n"
	  "options:\n"
	  "  --git REPO RANGE   import the commits of RANGE (A..B) of REPO\n"
	  "  --all-versions     import every version a source holds\n"
	  "  -p N               strip N leading path components (quilt default 1)\n"
	  "  --force            replace an existing version whose content differs\n"
	  "  --dry-run          parse and report, write nothing\n"
	  "\n"
	  "Importing the same content again changes nothing (exit 0).\n" },
	{ "list", cmd_list, "list series, versions and patch counts",
	  "kcarry list",
	  "One line per series version: name, version, patches, source.\n" },
	{ "show", cmd_show, "show the patches of a series version",
	  "kcarry show [--stat] NAME[@VERSION]",
	  "Print the patches of a version (newest by default): number, subject,\n"
	  "author, files touched, then a diffstat of the whole version.\n" },
	{ "kernels", cmd_kernels, "list the target trees and their state",
	  "kcarry kernels [--prepare]",
	  "One line per kernels/TARGET.conf: kind (local repository, remote\n"
	  "git URL, tarball), state (ready, or fetched on first use) and source.\n"
	  "\n"
	  "options:\n"
	  "  --prepare   clone, download or import every tree now\n" },
	{ "apply", cmd_apply, "apply a series version to targets",
	  "kcarry apply [options] NAME[@VERSION] TARGET...",
	  "Apply every patch of the version (newest by default) to each\n"
	  "target's tree in memory, never touching a working tree.  Each\n"
	  "applied patch becomes one commit (author, date and message kept)\n"
	  "on branch kcarry/NAME/VERSION/TARGET of the target's repository, and\n"
	  "the refreshed series (patches that apply exactly, with a note of\n"
	  "what was adjusted) is written to patches/NAME/VERSION/TARGET/.\n"
	  "\n"
	  "Per hunk, in order: exact, offset (nearest first), fuzz (outer\n"
	  "context dropped), 3-way with the preimage blob of the index line,\n"
	  "3-way at hunk level, else conflict.  A hunk whose result is already\n"
	  "there is 'already applied'; a patch made only of such hunks is\n"
	  "skipped, a mix is 'partial'.  A placement risk is a hunk that may\n"
	  "sit in the wrong place although it applied: placed by offset or fuzz\n"
	  "outside the function its header names, a nearer or equally good\n"
	  "match elsewhere, its result already present elsewhere, or a\n"
	  "definition the target already has.\n"
	  "\n"
	  "options:\n"
	  "  --fuzz N, -F N  largest fuzz (0-3, default 2 as quilt)\n"
	  "  --no-3way       no 3-way merges\n"
	  "  --strict        a placement risk fails the patch\n"
	  "  --stop          stop at the first failing patch\n"
	  "  --json          print the per-patch, per-hunk result as JSON\n"
	  "                  (docs/json-schema.md)\n"
	  "  -o, --output F  write the report to F\n"
	  "  --no-refresh    do not write patches/NAME/VERSION/TARGET/\n"
	  "\n"
	  "exit status: 0 every patch applied (clean, offset, fuzz, 3-way) or\n"
	  "already applied; 1 conflicts, partial patches or placement risks;\n"
	  "2 bad arguments; 3 repository, network or I/O trouble.\n" },
	{ "resolve", cmd_resolve, "hand a conflicting patch to a person",
	  "kcarry resolve NAME[@VERSION] TARGET PATCH\n"
	  "       kcarry resolve --suggest NAME[@VERSION] TARGET",
	  "Apply the patches before PATCH (a number or file name) to TARGET,\n"
	  "then write the files PATCH touches, as it leaves them, to the\n"
	  "scratch folder .kcarry/resolve/NAME/VERSION/TARGET/files/ of the\n"
	  "workspace: diff3 markers where a hunk conflicts, rejected hunks in\n"
	  "PATH.rej.  Nothing outside the workspace is touched.  Edit the files,\n"
	  "then run 'kcarry refresh'.\n"
	  "\n"
	  "  --suggest   carry the whole series (no branch moved), learn how it\n"
	  "              converts the callers of the API it changes (a callee\n"
	  "              renamed, an argument dropped or added) and write that\n"
	  "              conversion of the callers it never converts to\n"
	  "              .kcarry/resolve/NAME/VERSION/TARGET/suggest/: suggest.patch\n"
	  "              (against the carried result) and conversion.cocci (for\n"
	  "              spatch).  Nothing is committed.  Exit 1 when some\n"
	  "              unconverted call has no suggestion.\n" },
	{ "refresh", cmd_refresh, "record a resolution and carry the rest",
	  "kcarry refresh NAME[@VERSION] TARGET",
	  "Take the resolution back from the scratch folder (refused while\n"
	  "conflict markers remain), record it under\n"
	  "patches/NAME/.resolutions/FINGERPRINT.patch, apply the whole series\n"
	  "again with it, move kcarry/NAME/VERSION/TARGET and write the\n"
	  "refreshed series to patches/NAME/VERSION/TARGET/.  A recorded\n"
	  "resolution is replayed wherever the same patch meets the same file\n"
	  "contents again: later versions of the series, other targets.\n"
	  "Without a pending resolution, it re-applies and rewrites the\n"
	  "refreshed series.\n"
	  "\n"
	  "exit status as for apply.\n" },
	{ "check", cmd_check, "every series on every target: the matrix",
	  "kcarry check [options] [NAME[@VERSION]...] [TARGET...]",
	  "Carry every selected series (default: every series with a stored\n"
	  "version, newest version) onto every selected target (default: all)\n"
	  "and print the matrix: one row per patch, one column per target.\n"
	  "A series whose .conf says 'stacks-on = OTHER' is carried on top of\n"
	  "OTHER's result.  Targets are worked on in parallel.  For each target\n"
	  "the watched files of the series (watch.file; default\n"
	  "fs/btrfs/async-thread.c and .h) are audited: exported symbols the\n"
	  "series removes or changes, callers in the target it leaves\n"
	  "unconverted, callers it converts that the target does not have.\n"
	  "\n"
	  "options:\n"
	  "  --format F, -f F  text (default), json, junit, markdown, email\n"
	  "  -o, --output FILE write the report to FILE\n"
	  "  --reports DIR     also write every format to DIR/check.{txt,json,\n"
	  "                    xml,md,mbox}\n"
	  "  --jobs N, -j N    targets at once (default: CPUs)\n"
	  "  --fuzz N, --no-3way, --strict   as for apply\n"
	  "  --refresh         also write the refreshed series of every cell\n"
	  "                    (patches/NAME/VERSION/TARGET/; apply always does)\n"
	  "\n"
	  "matrix symbols: . clean  o offset  ~ fuzz  3 3-way  = already applied\n"
	  "p partial  X conflict  - not tried  ? did not run  ! placement risk\n"
	  "w touches a watched file or a caller of its API.\n"
	  "\n"
	  "exit status: 0 every patch applied or already applied, no risk, no\n"
	  "unconverted caller; 1 otherwise (conflicts, risks, unconverted\n"
	  "callers, a target that could not be prepared); 2 bad arguments;\n"
	  "3 repository, network or I/O trouble.\n" },
	{ "callers", cmd_callers, "map the callers of the watched API",
	  "kcarry callers [options] TARGET [SYMBOL...]",
	  "Print every reference in TARGET's tree to the symbols that the\n"
	  "watched files export (functions, macros, types; default\n"
	  "fs/btrfs/async-thread.c and .h), or to the SYMBOLs named, within the\n"
	  "scope: the watched files' folders plus --scope folders.  One line per\n"
	  "reference, by path then line:\n"
	  "\n"
	  "  path:line: function: call|use symbol\n"
	  "\n"
	  "function is '-' at file scope; a function passed as a callback or a\n"
	  "type named is a 'use'.  Declarations are left out.  A count goes to\n"
	  "stderr.\n"
	  "\n"
	  "options:\n"
	  "  --watch FILE   a watched file (repeatable; replaces the defaults)\n"
	  "  --scope DIR    another folder to search (repeatable)\n"
	  "  --json         print the references as JSON\n"
	  "\n"
	  "exit status: 0 done; 2 bad arguments, unknown target, or no watched\n"
	  "file in the tree; 3 repository or I/O trouble.\n" },
	{ "help", cmd_help, "show help for a command", "kcarry help [COMMAND]",
	  "Without COMMAND, list the commands.\n" },
	{ "version", cmd_version, "print the version", "kcarry version", "" },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static void print_main_usage(FILE *f)
{
	fprintf(f,
		"usage: kcarry [--version] [--help] [-C DIR] [-q|-v] "
		"[--color=WHEN] COMMAND [ARGS]\n\n"
		"Carry kernel patch series across kernel trees.\n\n"
		"commands:\n");
	for (size_t i = 0; i < NR_COMMANDS; i++)
		fprintf(f, "   %-10s %s\n", commands[i].name,
			commands[i].summary);
	fprintf(f,
		"\n'kcarry help COMMAND' or 'kcarry COMMAND --help' tells more.\n"
		"exit status: 0 done, 1 not done but consistent (conflicts),\n"
		"2 usage or bad input, 3 environment (I/O, repository, network).\n");
}

int print_command_help(const char *name)
{
	const struct command *c = find_command(name);

	if (!c)
		return EXIT_USAGE;
	printf("usage: %s\n\n%s%s", c->usage, c->summary[0] ? "" : "",
	       c->help);
	if (!c->help[0])
		printf("%s.\n", c->summary);
	return EXIT_DONE;
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

	fprintf(stderr, "%serror:%s %s\n", red, off,
		err->msg.len ? err->msg.ptr : "unknown error");
	if (err->hint.len)
		fprintf(stderr, "%shint:%s %s\n", yel, off, err->hint.ptr);
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
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void verbose(const struct options *opts, const char *fmt, ...)
{
	va_list ap;

	if (opts->verbosity < 1)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
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

static int cmd_help(int argc, char **argv, const struct options *opts)
{
	if (argc < 2) {
		print_main_usage(stdout);
		return EXIT_DONE;
	}
	if (!find_command(argv[1]))
		return usage_error("help", opts, "'%s' is not a kcarry command",
				   argv[1]);
	return print_command_help(argv[1]);
}

static int cmd_version(int argc, char **argv, const struct options *opts)
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
	struct options opts = { 0 };
	const struct command *cmd;
	struct err err = ERR_INIT;
	int i, rc;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--version"))
			return cmd_version(0, NULL, &opts);
		if (is_help(a)) {
			print_main_usage(stdout);
			return EXIT_DONE;
		}
		if (!strcmp(a, "-q") || !strcmp(a, "--quiet"))
			opts.verbosity = -1;
		else if (!strcmp(a, "-v") || !strcmp(a, "--verbose"))
			opts.verbosity++;
		else if (!strcmp(a, "-vv"))
			opts.verbosity += 2;
		else if (!strcmp(a, "--color") || !strcmp(a, "--color=always"))
			opts.color = COLOR_ALWAYS;
		else if (!strcmp(a, "--color=never") || !strcmp(a, "--no-color"))
			opts.color = COLOR_NEVER;
		else if (!strcmp(a, "--color=auto"))
			opts.color = COLOR_AUTO;
		else if (!strcmp(a, "-C")) {
			if (++i >= argc) {
				fprintf(stderr, "error: -C needs a directory\n");
				return EXIT_USAGE;
			}
			opts.workdir = argv[i];
		} else {
			fprintf(stderr, "error: unknown option '%s'\n", a);
			print_main_usage(stderr);
			return EXIT_USAGE;
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
	opts.color_out = want_color(opts.color, 1);
	opts.color_err = want_color(opts.color, 2);
	opts.progress = opts.verbosity >= 0 && isatty(2);
	if (argc - i >= 2 && is_help(argv[i + 1]))
		return print_command_help(cmd->name);
	if (tree_global_init(&err) < 0)
		return err_report(&err, &opts);
	rc = cmd->fn(argc - i, argv + i, &opts);
	tree_global_shutdown();
	fflush(stdout);
	if (ferror(stdout)) {
		fprintf(stderr, "error: cannot write to standard output\n");
		return EXIT_ENV;
	}
	return rc;
}
