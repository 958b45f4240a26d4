/*
 * cmd_import.h: what cmd_import.c shares with cmd_fetch.c, which imports
 * the threads it fetches as import does: the options both take
 * (--offline, --force, --dry-run), the download progress, the settings
 * they read and storing a version with its one line of outcome.
 */
#ifndef KCARRY_CMD_IMPORT_H
#define KCARRY_CMD_IMPORT_H

#include "cli.h"
#include "fetch.h"
#include "import.h"
#include "settings.h"

struct import_cli {
	char *name, *version;
	const char **args; /* NAME[@VERSION], then the sources */
	const char **sources;
	size_t nr_sources;
	bool force, dry_run, all_versions, offline;
	const char *git[2]; /* --git REPO A..B */
	unsigned strip;     /* -p N, when strip_set */
	bool strip_set;
	struct import_opts io;
};

/* --offline, --force and --dry-run of import and fetch */
#define OPT_STORE(type, offline, force, dry_run, dry_run_help)              \
	{ OPT_FLAG, 0, "offline", NULL,                                     \
	  "downloads come from the cache only",                             \
	  offsetof(type, offline) },                                        \
	{ OPT_FLAG, 0, "force", NULL,                                       \
	  "replace a stored version whose content differs",                 \
	  offsetof(type, force) },                                          \
	{ OPT_FLAG, 'n', "dry-run", NULL, dry_run_help,                     \
	  offsetof(type, dry_run) }

/* Downloads shown on a terminal (opts->progress), retries as notes. */
struct fetch_progress import_cli_progress(const struct options *opts);

/* The workspace's settings with the command's --offline and progress. */
int import_cli_settings(struct settings *set, const char *root, bool offline,
			const struct fetch_progress *progress,
			struct err *err);

/*
 * Store candidate c as name@version (cli: --force, --dry-run) and print
 * what became of it: imported, unchanged, repaired, updated, replaced,
 * or with --dry-run what would be imported.
 */
int import_cli_store(struct import_candidate *c, const char *root,
		     const char *name, const char *version,
		     const struct import_cli *cli, const struct options *opts,
		     struct err *err);

#endif
