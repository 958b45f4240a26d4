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
	  "kcarry init [DIR]",
	  "Create series/, kernels/ and patches/ in DIR (default: the current\n"
	  "directory).  An existing workspace is left as it is.\n",
	  init_options },
	{ "import", cmd_import, CMD_WORKSPACE, "import a version of a series",
	  "kcarry import [options] NAME[@VERSION] SOURCE...\n"
	  "   or: kcarry import [options] NAME[@VERSION] MSGID|URL\n"
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
	  "MSGID (a message-id, with or without <>) or URL (an archive's page\n"
	  "of a message, https://lore.kernel.org/all/MSGID/) names a mail\n"
	  "thread: it is downloaded as public-inbox serves it (MSGID/t.mbox.gz)\n"
	  "into the cache and imported as a local mbox.  A bare MSGID is looked\n"
	  "up at series.list-url, else kcarry.lore of kcarry.conf, else\n"
	  "https://lore.kernel.org/all/.  An existing file wins over a MSGID.\n"
	  "\n"
	  "VERSION defaults to the version in the subjects ([PATCH v3 ...] is v3)\n"
	  "or v1; when a source holds several versions the newest is taken and\n"
	  "named on stderr.\n",
	  import_options,
	  "Importing the same content again changes nothing (exit 0).\n"
	  "exit status: 0 stored (or already held); 2 bad arguments, a source\n"
	  "that does not parse, other content under NAME@VERSION; 3 I/O,\n"
	  "network (the URL and HTTP status are named), apt.\n" },
	{ "fetch", cmd_fetch, CMD_WORKSPACE, "fetch threads by message-id, find new revisions",
	  "kcarry fetch [options] [NAME[@VERSION]...]\n"
	  "   or: kcarry fetch --new [--import] [options] [NAME...]",
	  "Without --new: import every version that series/NAME.conf names\n"
	  "by a message-id ([version \"v4\"] msgid = ...) and that is not stored\n"
	  "yet; NAME@VERSION fetches that version again (new trailers from\n"
	  "replies; --force to replace it).  The thread comes from the series'\n"
	  "archive: series.list-url, else the one its newest version came from,\n"
	  "else kcarry.lore of kcarry.conf, else https://lore.kernel.org/all/.\n"
	  "Without NAME, every series.\n"
	  "\n"
	  "--new asks the archive's search for later revisions of the newest\n"
	  "stored version, as 'b4 am -c' does: the same subject without its\n"
	  "[PATCH vN] tag, from the same sender, with a higher vN (or the same\n"
	  "b4 change-id); without NAME, every series whose newest version\n"
	  "is a mail version (vN).  It prints one line per revision found:\n"
	  "\n"
	  "  NAME@vN <MSGID> SUBJECT\n",
	  fetch_options,
	  "Downloads are cached (<cache>/lore/) and revalidated; their limits\n"
	  "(timeouts, size, retries) are set in kcarry.conf [http] or by\n"
	  "KCARRY_HTTP_* (kcarry(1), NETWORK).\n"
	  "\n"
	  "exit status: 0 done (nothing new is not an error); 2 bad arguments,\n"
	  "an unknown series; 3 network (the URL and HTTP status are named),\n"
	  "I/O.\n" },
	{ "list", cmd_list, CMD_WORKSPACE, "list series, versions and patch counts",
	  "kcarry list",
	  "One line per series version: name, version, patches, source.  A\n"
	  "version whose provenance an interrupted import cut short says\n"
	  "'(incomplete: import again to repair)' as its source.\n",
	  list_options },
	{ "show", cmd_show, CMD_WORKSPACE, "show the patches of a series version",
	  "kcarry show [--stat] NAME[@VERSION]",
	  "Print the patches of a version (newest by default): number, subject,\n"
	  "author, files touched, then a diffstat of the whole version.\n",
	  show_options },
	{ "kernels", cmd_kernels, CMD_WORKSPACE, "list the target trees and their state",
	  "kcarry kernels [--prepare]\n"
	  "   or: kcarry kernels --path TARGET",
	  "One line per kernels/TARGET.conf: kind (local repository, remote\n"
	  "git URL, tarball), state (ready, or fetched on first use) and\n"
	  "source.\n",
	  kernels_options },
	{ "apply", cmd_apply, CMD_WORKSPACE | CMD_LOCK, "apply a series version to targets",
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
	  "definition the target already has.\n",
	  apply_options,
	  "exit status: 0 every patch applied (clean, offset, fuzz, 3-way) or\n"
	  "already applied; 1 conflicts, partial patches or placement risks;\n"
	  "2 bad arguments; 3 repository, network or I/O trouble.\n" },
	{ "resolve", cmd_resolve, CMD_WORKSPACE, "hand a conflicting patch to a person",
	  "kcarry resolve NAME[@VERSION] TARGET PATCH\n"
	  "       kcarry resolve --suggest NAME[@VERSION] TARGET",
	  "Apply the patches before PATCH (a number or file name) to TARGET,\n"
	  "then write the files PATCH touches, as it leaves them, to the\n"
	  "scratch folder .kcarry/resolve/NAME/VERSION/TARGET/files/ of the\n"
	  "workspace: diff3 markers where a hunk conflicts, rejected hunks in\n"
	  "PATH.rej.  Nothing outside the workspace is touched.  Edit the files,\n"
	  "then run 'kcarry refresh'.\n",
	  resolve_options },
	{ "refresh", cmd_refresh, CMD_WORKSPACE | CMD_LOCK, "record a resolution and carry the rest",
	  "kcarry refresh NAME[@VERSION] TARGET",
	  "Take the resolution back from the scratch folder (refused while\n"
	  "conflict markers remain), record it under\n"
	  "patches/NAME/.resolutions/FINGERPRINT.patch, apply the whole series\n"
	  "again with it, move kcarry/NAME/VERSION/TARGET and write the\n"
	  "refreshed series to patches/NAME/VERSION/TARGET/.  A recorded\n"
	  "resolution is replayed wherever the same patch meets the same file\n"
	  "contents again: later versions of the series, other targets.\n"
	  "Without a pending resolution, it re-applies and rewrites the\n"
	  "refreshed series.\n",
	  refresh_options, "exit status as for apply.\n" },
	{ "check", cmd_check, CMD_WORKSPACE | CMD_LOCK, "every series on every target: the matrix",
	  "kcarry check [options] [NAME[@VERSION]...] [TARGET...]",
	  "Carry every selected series (default: every series with a stored\n"
	  "version, newest version) onto every selected target (default: all)\n"
	  "and print the matrix: one row per patch, one column per target.\n"
	  "A series whose .conf says 'stacks-on = OTHER' is carried on top of\n"
	  "OTHER's result.  Targets are worked on in parallel.  For each target\n"
	  "the watched files of the series (watch.file; default\n"
	  "fs/btrfs/async-thread.c and .h) are audited: exported symbols the\n"
	  "series removes or changes, callers in the target it leaves\n"
	  "unconverted, callers it converts that the target does not have.\n",
	  check_options,
	  "matrix symbols: . clean  o offset  ~ fuzz  3 3-way  = already applied\n"
	  "p partial  X conflict  - not tried  ? did not run  ! placement risk\n"
	  "w touches a watched file or a caller of its API.\n"
	  "build row: B builds  W new warnings  E new errors  - nothing to build\n"
	  "? did not build.\n"
	  "\n"
	  "exit status: 0 every patch applied or already applied, no risk, no\n"
	  "unconverted caller, every build clean of new errors; 1 otherwise\n"
	  "(conflicts, risks, unconverted callers, a failed build, a target that\n"
	  "could not be prepared); 2 bad arguments; 3 repository, network or\n"
	  "I/O trouble.\n" },
	{ "build", cmd_build, CMD_WORKSPACE | CMD_LOCK, "build a carried series on targets",
	  "kcarry build [options] NAME[@VERSION] TARGET...",
	  "Carry the series onto each TARGET as 'apply' does (branch\n"
	  "kcarry/NAME/VERSION/TARGET), then build the result with the target's\n"
	  "own Kbuild and print the diagnostics the series brought:\n"
	  "\n"
	  "  path:line: error: message  <- 0003 (hunk 2)\n"
	  "  path:line: error: message  <- 0001 | unconverted caller of f changed by 0001\n"
	  "\n"
	  "A diagnostic on a line a patch changed is pinned on that patch and\n"
	  "hunk; one on a line no patch changed is tied to an unconverted caller\n"
	  "(watch audit), a declaration a patch changed, an identifier a patch\n"
	  "removed or renamed, or else called a pre-existing line broken by the\n"
	  "series.  The target's base is built once (cached) and what it already\n"
	  "reports is never blamed on the series.\n"
	  "\n"
	  "Sources are kept per target in <cache>/build/TARGET/src and brought\n"
	  "to each tree by rewriting only the files that differ, so make rebuilds\n"
	  "only what changed; objects go to an O= folder per configuration.  The\n"
	  "target repository and any checkout are only read.  kernels/TARGET.conf:\n"
	  "\n"
	  "  [build]\n"
	  "      config = defconfig            # make target, CONFIG_X=y|m|n,\n"
	  "      config = CONFIG_BTRFS_FS=m    # or file:PATH (tree or workspace)\n"
	  "      targets = fs/btrfs/           # default: objects of the .c files\n"
	  "                                    # the series changes + the watched\n"
	  "                                    # files' folders\n"
	  "      cc = ccache gcc               # gcc, clang, distcc gcc, icecc\n"
	  "      jobs = 2\n"
	  "      make-flags = W=1\n"
	  "      profile = none                # no compatibility profile\n"
	  "      command = make -j2 O=$KCARRY_BUILD   # what --full runs\n"
	  "\n"
	  "The config lines run in order, then make olddefconfig.  Without\n"
	  "build.config lines nothing configures the O= folder: make runs with\n"
	  "what it holds (nothing at first), and a kernel's make stops for\n"
	  "want of a .config.  Give 'config = defconfig' (x86_64_defconfig,\n"
	  "...) or 'config = file:PATH' with the distro's own config.\n"
	  "\n"
	  "Old trees get a compatibility profile chosen from the tree's and the\n"
	  "compiler's versions: see COMPATIBILITY PROFILES in kcarry(1).\n"
	  "\n"
	  "On a terminal a progress line shows the phase, the objects compiled\n"
	  "and the time.  Elsewhere (a CI log) -v prints a line as each phase\n"
	  "begins and ends: 'build 6.1: base: make fs/btrfs/ (55 objects)'.\n",
	  build_options,
	  "exit status: 0 every target builds without new errors (new warnings\n"
	  "alone exit 0: W in check's build row); 1 new errors, a patch that\n"
	  "did not apply, or a build that could not run; 2 bad arguments; 3\n"
	  "repository, compiler, make or I/O trouble.\n" },
	{ "report", cmd_report, CMD_WORKSPACE, "merge check reports (CI shards)",
	  "kcarry report merge [--format F] [-o FILE] CHECK.json...",
	  "Join the JSON reports (kcarry-check/1) of 'kcarry check --shard I/N'\n"
	  "runs into one report, as one run of every cell would have written it,\n"
	  "in any format: text (default), json, junit, markdown, email.  The\n"
	  "series are read from the workspace for subjects and authors.\n",
	  report_options,
	  "exit status as for check: 0 every cell clean, 1 otherwise; 2 bad\n"
	  "arguments or reports that do not fit together.\n" },
	{ "gc", cmd_gc, CMD_WORKSPACE, "free the build folders and the identifier cache",
	  "kcarry gc [--dry-run] [TARGET...]",
	  "Remove the build folders of the named targets under <cache>/build/:\n"
	  "the source folder, the O= folders, cached base-build diagnostics.\n"
	  "Without names, every build folder and the identifier cache\n"
	  "(<cache>/ident, what the trees' shared headers declare) go.  Cached\n"
	  "trees, downloads and the ccache stay.  The next build starts from\n"
	  "scratch; the next check scans the headers again.  A name that is\n"
	  "neither built nor a target of the workspace is an error.\n",
	  gc_options,
	  "exit status: 0 freed (or nothing to free); 2 an unknown target;\n"
	  "3 I/O trouble.\n" },
	{ "callers", cmd_callers, CMD_WORKSPACE, "map the callers of the watched API",
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
	  "stderr.\n",
	  callers_options,
	  "exit status: 0 done; 2 bad arguments, unknown target, or no watched\n"
	  "file in the tree; 3 repository or I/O trouble.\n" },
	{ "diff", cmd_diff, CMD_WORKSPACE, "compare two stored versions of a series",
	  "kcarry diff [options] NAME V1 V2\n"
	  "   or: kcarry diff [options] NAME@V1 NAME@V2",
	  "Pair the patches of two stored versions of a series without applying\n"
	  "either, exactly as git range-diff pairs two branches: the same text\n"
	  "of each patch (author, message, diff without line numbers), the same\n"
	  "exact matches, cost matrix and minimal assignment; a patch whose diff\n"
	  "changed by more than the creation factor is not paired.  Each pair\n"
	  "says what its patches share: the same patch-id (git patch-id\n"
	  "--stable), the same subject, or a similar diff.  One line per patch\n"
	  "in V2's order, each dropped patch after the ones before it in V1:\n"
	  "\n"
	  "  N1: = N2: subject   unchanged\n"
	  "  N1: ! N2: subject   changed, followed by the interdiff of the two\n"
	  "                      patches (commit message and diff, line numbers\n"
	  "                      left out) as range-diff shows it\n"
	  "   -: + N2: subject   new in V2\n"
	  "  N1: -  -: subject   dropped from V1\n"
	  "  N1: ~ N2: subject   rewritten: range-diff pairs neither, but they\n"
	  "                      are the only ones left with this subject\n"
	  "\n"
	  "'(moved)' marks a pair out of the order of the others, '(was: S)'\n"
	  "a changed subject; -v adds what a pair shares.  A summary line ends\n"
	  "the list.\n",
	  diff_options,
	  "exit status: 0 compared; 2 bad arguments or an unknown series or\n"
	  "version; 3 I/O trouble.\n" },
	{ "rebase", cmd_rebase, CMD_WORKSPACE, "build a version's backport from another's",
	  "kcarry rebase [options] NAME V1 V2 TARGET...",
	  "Build V2's backport on each TARGET from V1's.  V1 is carried again\n"
	  "(with the recorded resolutions) to get its backport patch by patch,\n"
	  "the two versions are paired as 'kcarry diff' pairs them, and V2 is\n"
	  "carried in order:\n"
	  "\n"
	  "  reused          an unchanged patch: V2's patch as apply applies\n"
	  "                  it, or, where V1's needed a person, V1's backported\n"
	  "                  change (3-way merged into the tree as it is now)\n"
	  "  updated         a changed patch: the same, with the V1->V2\n"
	  "                  interdiff applied on top of V1's backported change,\n"
	  "                  so that a person's resolution of V1 carries over\n"
	  "  new             a new (or rewritten) patch, applied as apply does\n"
	  "  dropped         a V1 patch V2 does not have\n"
	  "  needs a person  none of that applies: resolve it with 'kcarry\n"
	  "                  resolve NAME@V2 TARGET N' and 'kcarry refresh'\n"
	  "\n"
	  "What was carried from V1's backport is recorded as the resolution of\n"
	  "V2's patch (patches/NAME/.resolutions/), so that apply, check,\n"
	  "resolve and refresh of V2 give the same tree.  A resolution recorded\n"
	  "for V1 is never replayed onto a V2 patch whose change differs unless\n"
	  "rebase carried it so.  Then V2 is carried as apply carries it:\n"
	  "branch kcarry/NAME/V2/TARGET and patches/NAME/V2/TARGET/.\n",
	  rebase_options,
	  "exit status: 0 every patch carried or already applied; 1 some patch\n"
	  "needs a person, or a placement risk; 2 bad arguments or unknown\n"
	  "names; 3 repository, network or I/O trouble.\n" },
	{ "export", cmd_export, CMD_WORKSPACE | CMD_LOCK, "write a backport for packagers or a stable list",
	  "kcarry export [options] NAME[@VERSION] TARGET --format FORMAT [-o DIR]",
	  "Write the backport of the series on TARGET (the commits of\n"
	  "kcarry/NAME/VERSION/TARGET, carried as 'apply' carries it, recorded\n"
	  "resolutions replayed) in the form an ecosystem's tools consume, with\n"
	  "the same metadata per patch: author and date, the upstream commit\n"
	  "('commit X upstream.', '[ Upstream commit X ]', '(cherry picked from\n"
	  "commit X)', a stable FAILED report, an 'import --git' commit), the\n"
	  "lore link of its Message-ID, Bug/Closes/Link trailers, the\n"
	  "backporter (--signoff, else git's user), and what the backport\n"
	  "adjusted (offset, fuzz, 3-way, resolved by hand).\n"
	  "\n"
	  "formats:\n"
	  "  debian  debian/patches/SUBDIR/SLUG.patch with DEP-3 headers, and\n"
	  "          their lines in debian/patches/series\n"
	  "  rpm     the patch files, NAME-patches.inc (PatchN: lines) and\n"
	  "          NAME-prep.inc (%patch -P N -p1 -F0 lines), or --into SPEC\n"
	  "  suse    patches.suse/SLUG.patch with Patch-mainline, Git-commit,\n"
	  "          References, and their lines in series.conf\n"
	  "  quilt   the refreshed patches and their lines in 'series'\n"
	  "  mbox    NNNN-SLUG.patch messages [PATCH 6.1.y n/m] for git\n"
	  "          send-email, the upstream line first, a cover letter for\n"
	  "          more than one patch\n"
	  "  git     branch kcarry-export/NAME/VERSION/TARGET whose commits\n"
	  "          carry '(cherry picked from commit X)' and the note\n"
	  "\n"
	  "Lines kcarry adds to a file it shares with you (series, series.conf,\n"
	  "a spec) sit in a block '# kcarry export begin: NAME' .. 'end: NAME'\n"
	  "that the next export replaces; nothing else in the file changes, and\n"
	  "a file kcarry did not write is never overwritten.\n",
	  export_options,
	  "exit status: 0 written; 1 the series did not carry completely or has\n"
	  "placement risks (nothing written); 2 bad arguments, or a file in the\n"
	  "way that kcarry did not write; 3 repository or I/O trouble.\n" },
	{ "help", cmd_help, 0, "show help for a command", "kcarry help [COMMAND]",
	  "Without COMMAND, list the commands.\n" },
	{ "version", cmd_version, 0, "print the version", "kcarry version", "" },
	{ "__complete", cmd_complete, 0, "the shell completions' candidates",
	  "kcarry __complete -- WORD...",
	  "Print the candidates for the last WORD of a command line (the words\n"
	  "after 'kcarry'; an empty last WORD after a space), one a line:\n"
	  "commands, options, option values, and the series, versions and\n"
	  "targets of the workspace.  ':file' or ':dir' asks the shell for file\n"
	  "or folder names.  The completion scripts for bash and zsh call it;\n"
	  "'kcarry help' does not list it.\n" },
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

/*
 * The options global_option() takes, for the completions: keep the two
 * together.
 */
static const struct opt global_options[] = {
	{ OPT_STRING, 'C', NULL, "DIR", "run as if started in DIR" },
	{ OPT_FLAG, 'q', "quiet", NULL, "only errors" },
	{ OPT_FLAG, 'v', "verbose", NULL, "more detail (-vv: even more)" },
	{ OPT_CHOICE, 0, "color", "WHEN", "colour: always, never, auto",
	  .choices = color_modes, .optional = true },
	{ OPT_FLAG, 0, "no-color", NULL, "no colour" },
	{ OPT_FLAG, 0, "version", NULL, "print the version" },
	{ OPT_FLAG, 'h', "help", NULL, "list the commands" },
	{ OPT_END },
};

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

/*
 * One global option at argv[*i]: 1 when taken (*i moved past its value),
 * 0 when it is not a global option, -1 on a usage error (printed).
 */
static int global_option(struct options *opts, int argc, char **argv, int *i)
{
	const char *a = argv[*i];

	if (!strcmp(a, "-q") || !strcmp(a, "--quiet"))
		opts->verbosity = -1;
	else if (!strcmp(a, "-v") || !strcmp(a, "--verbose"))
		opts->verbosity++;
	else if (!strcmp(a, "-vv"))
		opts->verbosity += 2;
	else if (!strcmp(a, "--color") || !strcmp(a, "--color=always"))
		opts->color = COLOR_ALWAYS;
	else if (!strcmp(a, "--color=never") || !strcmp(a, "--no-color"))
		opts->color = COLOR_NEVER;
	else if (!strcmp(a, "--color=auto"))
		opts->color = COLOR_AUTO;
	else if (!strcmp(a, "-C")) {
		if (++*i >= argc) {
			fprintf(stderr, "error: -C needs a directory\n");
			return -1;
		}
		opts->workdir = argv[*i];
	} else
		return 0;
	return 1;
}

int main(int argc, char **argv)
{
	struct options opts = { 0 };
	const struct command *cmd;
	struct err err = ERR_INIT;
	int i, rc;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];
		int g;

		if (!strcmp(a, "--version"))
			return cmd_version(0, NULL, NULL);
		if (is_help(a)) {
			print_main_usage(stdout);
			return EXIT_DONE;
		}
		if ((g = global_option(&opts, argc, argv, &i)) < 0)
			return EXIT_USAGE;
		if (!g) {
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
			if (argv[k][0] == '-' &&
			    (g = global_option(&opts, argc, argv, &k)) < 0)
				return EXIT_USAGE;
			if (!g)
				argv[w++] = argv[k];
		}
		argc = w;
		argv[argc] = NULL;
	}
	opts.color_out = want_color(opts.color, 1);
	opts.color_err = want_color(opts.color, 2);
	opts.progress = opts.verbosity >= 0 && isatty(2);
	if (argc - i >= 2 && is_help(argv[i + 1]))
		return print_command_help(cmd->name);
	if (tree_global_init(&err) < 0)
		return err_report(&err, &opts);
	/* libcurl's global state, before any thread (check) starts */
	if (fetch_global_init(&err) < 0) {
		tree_global_shutdown();
		return err_report(&err, &opts);
	}
	{
		struct cli_ctx cx = { &opts, cmd->flags, NULL, LOCK_INIT };

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
