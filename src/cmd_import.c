/*
 * cmd_import: import a version of a series from mail, quilt, git or a
 * Debian source package into the workspace's store.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "fetch.h"
#include "import.h"

struct import_cli {
	char *name, *version;
	char **sources;
	size_t nr_sources;
	bool force, dry_run, all_versions;
	struct import_opts io;
};

static void on_progress(void *ctx, unsigned long long now,
			unsigned long long total)
{
	if (total)
		fprintf(stderr, "\rdownloading: %llu of %llu KiB", now / 1024,
			total / 1024);
	else
		fprintf(stderr, "\rdownloading: %llu KiB", now / 1024);
	if (total && now == total)
		fputc('\n', stderr);
}

static int parse_args(struct import_cli *c, int argc, char **argv,
		      const struct options *opts, struct err *err)
{
	char *spec = NULL;

	c->sources = xcalloc((size_t)argc, sizeof(char *));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--force"))
			c->force = true;
		else if (!strcmp(a, "--dry-run") || !strcmp(a, "-n"))
			c->dry_run = true;
		else if (!strcmp(a, "--all-versions"))
			c->all_versions = true;
		else if (!strcmp(a, "--git")) {
			if (i + 2 >= argc)
				return err_set(err, ERR_USAGE,
					       "--git needs REPO and A..B");
			c->io.git_repo = argv[++i];
			c->io.git_range = argv[++i];
		} else if (!strncmp(a, "-p", 2)) {
			const char *n = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : "");
			char *end;
			long v = strtol(n, &end, 10);
			if (!*n || *end || v < 0 || v > 64)
				return err_set(err, ERR_USAGE,
					       "-p needs a number of path "
					       "components");
			c->io.strip = (int)v;
			c->io.strip_set = true;
		} else if (a[0] == '-' && a[1])
			return err_set(err, ERR_USAGE, "unknown option '%s'", a);
		else if (!spec)
			spec = argv[i];
		else
			c->sources[c->nr_sources++] = argv[i];
	}
	if (!spec)
		return err_set(err, ERR_USAGE, "no series name given");
	if (!c->nr_sources && !c->io.git_repo)
		return err_set(err, ERR_USAGE, "no source given");
	if (c->nr_sources && c->io.git_repo)
		return err_set(err, ERR_USAGE,
			       "give either SOURCE or --git REPO A..B");
	if (c->all_versions && (c->version || strchr(spec, '@')))
		return err_set(err, ERR_USAGE,
			       "--all-versions takes no @VERSION");
	return series_parse_spec(spec, &c->name, &c->version, err);
}

static void list_versions(struct buf *out, const struct import_set *set)
{
	for (size_t i = 0; i < set->nr; i++)
		buf_addf(out, "%s%s", i ? ", " : "",
			 set->items[i].version ? set->items[i].version : "v1");
}

static int store(struct import_candidate *c, const char *root,
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

int cmd_import(int argc, char **argv, const struct options *opts)
{
	struct import_cli cli = { 0 };
	struct import_set set = { 0 };
	struct err err = ERR_INIT;
	struct fetch_progress progress = { on_progress, NULL };
	struct buf found = BUF_INIT;
	char *root = NULL;
	struct lock wl = LOCK_INIT;
	int rc = EXIT_DONE, error;

	if ((error = parse_args(&cli, argc, argv, opts, &err)) < 0) {
		rc = usage_error("import", opts, "%s", err.msg.ptr);
		goto out;
	}
	if (opts->progress)
		cli.io.progress = &progress;
	if ((error = workspace_find(&root, opts, &err)) < 0 ||
	    (!cli.dry_run &&
	     (error = workspace_lock(&wl, root, opts, &err)) < 0))
		goto fail;
	if (cli.io.git_repo)
		error = import_git(&set, &cli.io, &err);
	else
		error = import_sources(&set, cli.sources, cli.nr_sources,
				       &cli.io, &err);
	if (error < 0)
		goto fail;
	for (size_t i = 0; i < set.nr_notes; i++)
		note(opts, "%s", set.notes[i]);
	list_versions(&found, &set);
	if (cli.all_versions) {
		for (size_t i = 0; i < set.nr; i++) {
			struct import_candidate *c = &set.items[i];
			if ((error = store(c, root, cli.name,
					   c->version ? c->version : "v1", &cli,
					   opts, &err)) < 0)
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
		if ((error = store(pick, root, cli.name, version, &cli, opts,
				   &err)) < 0)
			goto fail;
	}
	goto out;
fail:
	rc = err_report(&err, opts);
out:
	buf_release(&found);
	import_set_release(&set);
	free(cli.sources);
	free(cli.name);
	free(cli.version);
	free(root);
	lock_release(&wl);
	err_release(&err);
	return rc;
}
