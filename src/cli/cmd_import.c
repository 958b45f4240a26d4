/*
 * cmd_import: import a version of a series from mail (files, or a thread
 * fetched by message-id or URL), quilt, git or a Debian source package
 * into the workspace's store.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_import.h"
#include "cmds.h"
#include "fetch.h"
#include "fs.h"
#include "import.h"
#include "lore.h"
#include "settings.h"

/* kcarry import --help: usage, text, text after the options */
const char import_usage[] =
	"kcarry import [options] NAME[@VERSION] SOURCE...\n"
	"   or: kcarry import [options] NAME[@VERSION] MSGID|URL\n"
	"   or: kcarry import [options] NAME[@VERSION] --git REPO A..B\n"
	"   or: kcarry import [options] NAME[@VERSION] apt:SRCPKG=VERSION";
const char import_help[] =
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
	"named on stderr.\n";
const char import_more[] =
	"Importing the same content again changes nothing (exit 0).\n"
	"exit status: 0 stored (or already held); 2 bad arguments, a source\n"
	"that does not parse, other content under NAME@VERSION; 3 I/O,\n"
	"network (the URL and HTTP status are named), apt.\n";

static void human(char *out, size_t len, unsigned long long n)
{
	if (n >= 1ULL << 20)
		snprintf(out, len, "%.1f MiB", (double)n / (1 << 20));
	else if (n >= 1024)
		snprintf(out, len, "%llu KiB", n / 1024);
	else
		snprintf(out, len, "%llu bytes", n);
}

/* One line on a terminal, rewritten in place (opts->progress only). */
static void on_bytes(void *ctx, const char *what, unsigned long long now,
		     unsigned long long total, bool done)
{
	const struct options *opts = ctx;
	char a[32], b[32];

	if (!opts->progress)
		return;
	human(a, sizeof(a), now);
	if (total) {
		human(b, sizeof(b), total);
		fprintf(stderr, "\rdownloading %s: %s of %s (%llu%%)\033[K", what,
			a, b, now * 100 / total);
	} else
		fprintf(stderr, "\rdownloading %s: %s\033[K", what, a);
	if (done)
		fputc('\n', stderr);
}

static void on_retry(void *ctx, const char *url, const char *why,
		     long wait_ms, unsigned attempt, unsigned retries)
{
	const struct options *opts = ctx;

	note(opts, "'%s': %s; retrying in %.1f s (%u of %u)", url, why,
	     (double)wait_ms / 1000, attempt, retries);
}

struct fetch_progress import_cli_progress(const struct options *opts)
{
	return (struct fetch_progress){ on_bytes, on_retry, (void *)opts };
}

int import_cli_settings(struct settings *set, const char *root, bool offline,
			const struct fetch_progress *progress,
			struct err *err)
{
	int error = settings_load(set, root, err);

	if (offline)
		set->fetch.offline = true;
	set->fetch.progress = progress;
	return error;
}

const struct opt import_options[] = {
	{ OPT_PAIR, 0, "git", "REPO A..B", "import the commits A..B of REPO",
	  offsetof(struct import_cli, git) },
	{ OPT_FLAG, 0, "all-versions", NULL,
	  "import every version a source holds",
	  offsetof(struct import_cli, all_versions) },
	{ OPT_UINT, 'p', NULL, "N",
	  "strip N leading path components (quilt default 1)",
	  offsetof(struct import_cli, strip), 0, 64,
	  .also = { OPT_ALSO(struct import_cli, strip_set) } },
	OPT_STORE(struct import_cli, offline, force, dry_run,
		  "parse and report, write nothing"),
	{ OPT_END },
};

/* What the arguments that are not options name: c->args[0..nr) */
static int take_args(struct import_cli *c, size_t nr, struct err *err)
{
	const char *spec;

	c->io.git_repo = c->git[0];
	c->io.git_range = c->git[1];
	c->io.strip = (int)c->strip;
	c->io.strip_set = c->strip_set;
	if (!nr)
		return err_set(err, ERR_USAGE, "no series name given");
	spec = c->args[0];
	c->sources = c->args + 1;
	c->nr_sources = nr - 1;
	if (!c->nr_sources && !c->io.git_repo)
		return err_set(err, ERR_USAGE, "no source given");
	if (c->nr_sources && c->io.git_repo)
		return err_set(err, ERR_USAGE,
			       "give either SOURCE or --git REPO A..B");
	if (c->all_versions && strchr(spec, '@'))
		return err_set(err, ERR_USAGE,
			       "--all-versions takes no @VERSION");
	return series_parse_spec(spec, &c->name, &c->version, err);
}

static int parse_args(struct import_cli *c, int argc, char **argv,
		      const struct options *opts, struct err *err)
{
	size_t nr;

	if (cli_parse("import", import_options, c, argc, argv, &c->args, &nr,
		      opts) < 0)
		return -1;
	if (take_args(c, nr, err) < 0) {
		usage_error("import", opts, "%s", err->msg.ptr);
		return -1;
	}
	return 0;
}

static void list_versions(struct buf *out, const struct import_set *set)
{
	for (size_t i = 0; i < set->nr; i++)
		buf_addf(out, "%s%s", i ? ", " : "",
			 set->items[i].version ? set->items[i].version : "v1");
}

int import_cli_store(struct import_candidate *c, const char *root,
		     const char *name, const char *version,
		     const struct import_cli *cli, const struct options *opts,
		     struct err *err)
{
	struct series_provenance prov;
	enum series_write_result res;
	int error;

	free(c->sv.name);
	free(c->sv.version);
	c->sv.name = xstrdup(name);
	c->sv.version = xstrdup(version);
	if (cli->dry_run) {
		printf("would import %s@%s: %zu patch%s\n", name, version,
		       c->sv.nr, c->sv.nr == 1 ? "" : "es");
		for (size_t i = 0; i < c->sv.nr; i++)
			printf("  %s\n", c->sv.items[i].file);
		return 0;
	}
	import_provenance(&prov, c);
	if ((error = series_write_version(&res, root, &c->sv, &prov, cli->force,
					  err)) < 0)
		return error;
	switch (res) {
	case SERIES_UNCHANGED:
		printf("%s@%s is unchanged: %zu patch%s in patches/%s/%s\n",
		       name, version, c->sv.nr, c->sv.nr == 1 ? "" : "es",
		       name, version);
		break;
	case SERIES_REPAIRED:
		printf("%s@%s is unchanged: %zu patch%s in patches/%s/%s; its "
		       "provenance in series/%s.conf was incomplete and is "
		       "recorded again\n",
		       name, version, c->sv.nr, c->sv.nr == 1 ? "" : "es",
		       name, version, name);
		break;
	case SERIES_UPDATED:
		printf("updated %s@%s: %zu patch%s in patches/%s/%s (the same "
		       "diffs from the same source; headers or messages "
		       "changed)\n",
		       name, version, c->sv.nr, c->sv.nr == 1 ? "" : "es",
		       name, version);
		break;
	case SERIES_REPLACED:
		printf("replaced %s@%s: %zu patch%s in patches/%s/%s\n", name,
		       version, c->sv.nr, c->sv.nr == 1 ? "" : "es", name,
		       version);
		break;
	case SERIES_WRITTEN:
		printf("imported %s@%s: %zu patch%s in patches/%s/%s\n", name,
		       version, c->sv.nr, c->sv.nr == 1 ? "" : "es", name,
		       version);
		break;
	}
	return 0;
}

/* The source that names a thread (a message-id or an archive URL), or -1. */
static long thread_source(const struct import_cli *cli)
{
	struct lore_ref ref;
	struct err e = ERR_INIT;
	int rc;

	for (size_t i = 0; i < cli->nr_sources; i++) {
		const char *s = cli->sources[i];
		if (starts_with(s, "apt:") || fs_is_file(s) || fs_is_dir(s))
			continue;
		/* a malformed URL is a thread too: its error is the one */
		rc = lore_parse_ref(&ref, s, &e);
		lore_ref_release(&ref);
		err_release(&e);
		if (rc != 0)
			return (long)i;
	}
	return -1;
}

/* A thread named on the command line, fetched and read as an mbox. */
static int import_thread(struct import_set *set, const char *root,
			 const struct import_cli *cli, const char *source,
			 const struct settings *st, const struct options *opts,
			 struct err *err)
{
	struct lore_ref ref;
	struct lore_thread t = { 0 };
	char *base = NULL;
	int error;

	if (cli->nr_sources > 1)
		return err_set(err, ERR_USAGE,
			       "'%s' names a thread, which is imported on its "
			       "own",
			       source);
	if ((error = lore_parse_ref(&ref, source, err)) < 0)
		return error;
	base = ref.base ? xstrdup(ref.base) : lore_server(root, cli->name, st);
	error = lore_import_thread(set, &t, base, ref.msgid, &cli->io, err);
	if (!error && t.source == FETCH_OFFLINE)
		note(opts, "offline: the cached copy of %s", t.url);
	lore_thread_release(&t);
	lore_ref_release(&ref);
	free(base);
	return error;
}

int cmd_import(int argc, char **argv, struct cli_ctx *cx)
{
	const struct options *opts = cx->opts;
	struct import_cli cli = { 0 };
	struct import_set set = { 0 };
	struct err err = ERR_INIT;
	struct fetch_progress progress = import_cli_progress(opts);
	struct settings st = { 0 };
	struct buf found = BUF_INIT;
	const char *root = NULL;
	struct lock wl = LOCK_INIT;
	long thread;
	int rc = EXIT_DONE, error;

	if (parse_args(&cli, argc, argv, opts, &err) < 0) {
		rc = EXIT_USAGE;
		goto out;
	}
	if ((error = cli_workspace(cx, &root, &err)) < 0 ||
	    /* a dry run writes nothing: no lock (not CMD_LOCK) */
	    (!cli.dry_run &&
	     (error = workspace_lock(&wl, root, opts, &err)) < 0) ||
	    (error = import_cli_settings(&st, root, cli.offline, &progress, &err)) < 0)
		goto fail;
	cli.io.fetch = &st.fetch;
	if (cli.io.git_repo)
		error = import_git(&set, &cli.io, &err);
	else if ((thread = thread_source(&cli)) >= 0)
		error = import_thread(&set, root, &cli, cli.sources[thread],
				      &st, opts, &err);
	else
		error = import_sources(&set, (char *const *)cli.sources,
				       cli.nr_sources, &cli.io, &err);
	if (error < 0)
		goto fail;
	for (size_t i = 0; i < set.nr_notes; i++)
		note(opts, "%s", set.notes[i]);
	list_versions(&found, &set);
	if (cli.all_versions) {
		for (size_t i = 0; i < set.nr; i++) {
			struct import_candidate *c = &set.items[i];
			if ((error = import_cli_store(c, root, cli.name,
						      c->version ? c->version
								 : "v1",
						      &cli, opts, &err)) < 0)
				goto fail;
		}
		goto out;
	}
	{
		struct import_candidate *pick = NULL;
		const char *version = cli.version;

		if (version) {
			for (size_t i = 0; i < set.nr; i++)
				if (set.items[i].version &&
				    !strcmp(set.items[i].version, version))
					pick = &set.items[i];
			if (!pick && set.nr == 1)
				pick = &set.items[0];
			if (!pick) {
				error = err_set(&err, ERR_NOTFOUND,
						"the source holds no version "
						"'%s' (it holds %s)",
						version, found.ptr);
				err_hint(&err, "name one of those, or use "
					       "--all-versions");
				goto fail;
			}
		} else {
			pick = &set.items[set.nr - 1];
			version = pick->version ? pick->version : "v1";
			if (set.nr > 1)
				note(opts, "the source holds versions %s; "
					   "importing the newest, %s "
					   "(--all-versions takes them all)",
				     found.ptr, version);
		}
		if ((error = import_cli_store(pick, root, cli.name, version,
					      &cli, opts, &err)) < 0)
			goto fail;
	}
	goto out;
fail:
	rc = err_report(&err, opts);
out:
	buf_release(&found);
	import_set_release(&set);
	free(cli.args);
	free(cli.name);
	free(cli.version);
	lock_release(&wl);
	settings_release(&st);
	err_release(&err);
	return rc;
}
