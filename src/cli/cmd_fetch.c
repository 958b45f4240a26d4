/*
 * cmd_fetch: the threads named in series/NAME.conf, and later revisions
 * found by the archive's search, imported as cmd_import imports a thread
 * (cmd_import.h).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_import.h"
#include "cmds.h"
#include "fs.h"
#include "lore.h"

/* kcarry fetch --help: usage, text, text after the options */
const char fetch_usage[] =
	"kcarry fetch [options] [NAME[@VERSION]...]\n"
	"   or: kcarry fetch --new [--import] [options] [NAME...]";
const char fetch_help[] =
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
	"  NAME@vN <MSGID> SUBJECT\n";
const char fetch_more[] =
	"Downloads are cached (<cache>/lore/) and revalidated; their limits\n"
	"(timeouts, size, retries) are set in kcarry.conf [http] or by\n"
	"KCARRY_HTTP_* (kcarry(1), NETWORK).\n"
	"\n"
	"exit status: 0 done (nothing new is not an error); 2 bad arguments,\n"
	"an unknown series; 3 network (the URL and HTTP status are named),\n"
	"I/O.\n";

struct fetch_cli {
	const char **args;
	const char **specs;
	size_t nr_specs;
	bool new_versions, do_import, offline;
	struct import_cli ic; /* force, dry_run */
};

const struct opt fetch_options[] = {
	{ OPT_FLAG, 0, "new", NULL, "look for later revisions",
	  offsetof(struct fetch_cli, new_versions) },
	{ OPT_FLAG, 0, "import", NULL, "with --new: import them (as vN)",
	  offsetof(struct fetch_cli, do_import) },
	OPT_STORE(struct fetch_cli, offline, ic.force, ic.dry_run,
		  "fetch and report, store nothing"),
	{ OPT_END },
};

static int parse_fetch_args(struct fetch_cli *c, int argc, char **argv,
			    const struct options *opts)
{
	if (cli_parse("fetch", fetch_options, c, argc, argv, &c->args,
		      &c->nr_specs, opts) < 0)
		return -1;
	c->specs = c->args;
	if (c->do_import && !c->new_versions) {
		usage_error("fetch", opts, "--import goes with --new");
		return -1;
	}
	return 0;
}

static bool same_span(struct span a, struct span b)
{
	return a.len == b.len && !memcmp(a.ptr, b.ptr, a.len);
}

/* The next line of s at *at that is no "...-by:" trailer (those a
 * stored version gathers from replies since). */
static bool next_text_line(struct span s, size_t *at, struct span *line)
{
	while (*at < s.len) {
		const char *p = s.ptr + *at, *nl;
		size_t n;

		nl = memchr(p, '\n', s.len - *at);
		n = nl ? (size_t)(nl - p) + 1 : s.len - *at;
		*at += n;
		*line = (struct span){ p, n };
		{
			const char *colon = memchr(p, ':', n), *sp;
			sp = memchr(p, ' ', n);
			if (colon && colon - p > 3 && (!sp || sp > colon) &&
			    !memcmp(colon - 3, "-by", 3))
				continue;
		}
		return true;
	}
	return false;
}

/* The same patch: subject, diff and message (trailers aside). */
static bool same_patch(const struct patch *a, const struct patch *b)
{
	struct span ma = { a->message.ptr, a->message.len };
	struct span mb = { b->message.ptr, b->message.len };
	size_t ia = 0, ib = 0;
	struct span la, lb;
	bool ga, gb;

	if (!same_span(a->diff, b->diff) ||
	    strcmp(a->subject ? a->subject : "", b->subject ? b->subject : ""))
		return false;
	for (;;) {
		ga = next_text_line(ma, &ia, &la);
		gb = next_text_line(mb, &ib, &lb);
		if (!ga || !gb)
			return ga == gb;
		if (!same_span(la, lb))
			return false;
	}
}

/* Whether c's messages or patches are those of a stored version of name:
 * then *which is that version (a new string). */
static int stored_already(char **which, const char *root, const char *name,
			  const struct import_candidate *c, struct err *err)
{
	char **vs = NULL;
	size_t nv = 0;
	int error;

	*which = NULL;
	if ((error = series_list_versions(root, name, &vs, &nv, err)) < 0)
		return error;
	for (size_t i = 0; i < nv && !*which && !error; i++) {
		struct series_version v;
		bool same = true;

		series_version_init(&v, NULL, NULL);
		if ((error = series_load_version(&v, root, name, vs[i], err)) <
		    0) {
			series_version_release(&v);
			break;
		}
		for (size_t j = 0; j < v.nr && !*which; j++)
			for (size_t k = 0; k < c->nr_msgids; k++)
				if (v.items[j].origin &&
				    !strcmp(v.items[j].origin, c->msgids[k]))
					*which = xstrdup(vs[i]);
		/* the same patches: subjects, messages and diffs (a revision
		 * that only rewords its messages is a new one) */
		same = v.nr == c->sv.nr && v.nr;
		for (size_t j = 0; j < v.nr && same; j++)
			same = same_patch(&v.items[j].patch,
					  &c->sv.items[j].patch);
		if (same && !*which)
			*which = xstrdup(vs[i]);
		series_version_release(&v);
	}
	series_free_list(vs, nv);
	return error;
}

/* What every fetch of one run shares. */
struct fetch_env {
	const char *root; /* the workspace */
	const struct settings *st;
	const struct fetch_cli *fc;
	const struct options *opts;
};

/* Fetch the thread of msgid and store the version it holds as version. */
static int fetch_one(const struct fetch_env *env, const char *name,
		     const char *version, const char *msgid, struct err *err)
{
	const char *root = env->root;
	const struct settings *st = env->st;
	const struct fetch_cli *fc = env->fc;
	const struct options *opts = env->opts;
	struct import_set set = { 0 };
	struct lore_thread t = { 0 };
	struct import_opts io = { 0 };
	char *base = lore_server(root, name, st);
	long pick;
	int error;

	io.fetch = &st->fetch;
	if ((error = lore_import_thread(&set, &t, base, msgid, &io, err)) < 0)
		goto out;
	if (t.source == FETCH_OFFLINE)
		note(opts, "offline: the cached copy of %s", t.url);
	pick = lore_pick(&set, msgid, version);
	if (pick < 0) {
		error = err_set(err, ERR_NOTFOUND,
				"the thread of <%s> holds no patch of that "
				"message and no version '%s'",
				msgid, version);
		goto out;
	}
	/* --new: a revision found by the search is a new thread; the
	 * messages of a version stored already are no later revision */
	if (fc->new_versions) {
		char *which = NULL;

		if ((error = stored_already(&which, root, name,
					    &set.items[pick], err)) < 0)
			goto out;
		if (which) {
			error = err_set(err, ERR_EXISTS,
					"%s@%s: the thread of <%s> holds "
					"%s@%s, stored already (the same "
					"messages or patches); not stored "
					"again",
					name, version, msgid, name, which);
			free(which);
			goto out;
		}
	}
	error = import_cli_store(&set.items[pick], root, name, version,
				 &fc->ic, opts, err);
out:
	lore_thread_release(&t);
	import_set_release(&set);
	free(base);
	return error;
}

static bool stored(const char *root, const char *name, const char *version)
{
	char *p = xstrfmt("%s/patches/%s/%s/series", root, name, version);
	bool yes = fs_is_file(p);

	free(p);
	return yes;
}

/* [version "V"] msgid = ... of series/NAME.conf: fetch those not stored
 * (or only V, stored or not, for NAME@V). */
static int fetch_named(const struct fetch_env *env, const char *name,
		       const char *only, int *rc)
{
	const char *root = env->root;
	const struct options *opts = env->opts;
	char *path = xstrfmt("%s/series/%s.conf", root, name);
	struct series_records recs;
	struct err err = ERR_INIT;
	size_t done = 0, named = 0;
	int error;

	if ((error = series_provenance_load(&recs, root, name, &err)) < 0)
		goto fail;
	if (!recs.exists) {
		error = err_set(&err, ERR_NOTFOUND, "'%s' does not exist",
				path);
		goto fail;
	}
	for (size_t i = 0; i < recs.nr; i++) {
		const char *v = recs.items[i].version;
		const char *id = series_record_msgid(&recs.items[i]);

		named += id != NULL;
		if (only ? strcmp(v, only) != 0 : stored(root, name, v))
			continue;
		if (!id) {
			if (only) {
				error = err_set(&err, ERR_NOTFOUND,
						"%s@%s has no msgid in %s", name,
						only, path);
				goto fail;
			}
			continue;
		}
		done++;
		if (!lore_valid_msgid(id))
			error = err_set(&err, ERR_PARSE,
					"%s: version.%s.msgid: '%s' is not a "
					"message-id",
					path, v, id);
		else
			error = fetch_one(env, name, v, id,
					  &err);
		if (error < 0) {
			int r = err_report(&err, opts);
			if (r > *rc)
				*rc = r;
			err_release(&err);
			err_init(&err);
		}
	}
	if (only && !done) {
		error = err_set(&err, ERR_NOTFOUND, "%s has no version '%s'",
				path, only);
		goto fail;
	}
	if (!done && !named)
		note(opts, "%s: no version names a msgid (a line 'msgid = "
			   "ID' in a [version \"V\"] section of "
			   "series/%s.conf); 'kcarry fetch --new %s' looks for "
			   "later ones",
		     name, name, name);
	else if (!done)
		note(opts, "%s: every version with a msgid is imported", name);
	goto out;
fail:
	{
		int r = err_report(&err, opts);
		if (r > *rc)
			*rc = r;
	}
out:
	series_records_release(&recs);
	err_release(&err);
	free(path);
	return 0;
}

/* Later revisions of the newest stored version, listed or imported. */
static int fetch_newer(const struct fetch_env *env, const char *name,
		       bool every, struct err *err)
{
	const char *root = env->root;
	const struct settings *st = env->st;
	const struct fetch_cli *fc = env->fc;
	const struct options *opts = env->opts;
	struct series_version v;
	struct lore_series_id id = { 0 };
	struct lore_revisions revs = { 0 };
	char *base = lore_server(root, name, st);
	int error;

	series_version_init(&v, NULL, NULL);
	if ((error = series_load_version(&v, root, name, NULL, err)) < 0 ||
	    (error = lore_series_id_from_version(&id, &v, err)) < 0) {
		/* every series: those not from mail have nothing to look for */
		if (every && (error == ERR_NOTFOUND || error == ERR_USAGE)) {
			verbose(opts, "%s: %s", name, err->msg.ptr);
			err_release(err);
			err_init(err);
			error = 0;
		}
		goto out;
	}
	if ((error = lore_find_newer(&revs, base, &id, &st->fetch, err)) < 0)
		goto out;
	if (!revs.nr) {
		note(opts, "%s@%s is the newest revision at %s", name,
		     v.version, base);
		goto out;
	}
	for (size_t i = 0; i < revs.nr; i++)
		printf("%s@v%u <%s> %s\n", name, revs.items[i].version,
		       revs.items[i].msgid, revs.items[i].subject);
	if (!fc->do_import) {
		note(opts, "hint: 'kcarry fetch --new --import %s' imports %s",
		     name,
		     revs.nr == 1 ? "it" : "them");
		goto out;
	}
	/* one revision that cannot be stored does not stop the others:
	 * each error is reported, the last one is returned */
	for (size_t i = 0; i < revs.nr; i++) {
		char *version = xstrfmt("v%u", revs.items[i].version);
		struct err e = ERR_INIT;
		int rc = fetch_one(env, name, version, revs.items[i].msgid,
				   &e);

		free(version);
		if (rc >= 0) {
			err_release(&e);
			continue;
		}
		if (error < 0)
			err_report(err, opts);
		err_release(err);
		*err = e;
		error = rc;
	}
out:
	lore_revisions_release(&revs);
	lore_series_id_release(&id);
	series_version_release(&v);
	free(base);
	return error;
}

int cmd_fetch(int argc, char **argv, struct cli_ctx *cx)
{
	const struct options *opts = cx->opts;
	struct fetch_cli fc = { 0 };
	struct err err = ERR_INIT;
	struct fetch_progress progress = import_cli_progress(opts);
	struct settings st = { 0 };
	const char *root = NULL;
	char **names = NULL;
	struct lock wl = LOCK_INIT;
	struct fetch_env env;
	size_t nr = 0;
	int rc = EXIT_DONE;

	if (parse_fetch_args(&fc, argc, argv, opts) < 0) {
		rc = EXIT_USAGE;
		goto out;
	}
	if (cli_workspace(cx, &root, &err) < 0 ||
	    /* only what imports writes: no lock (not CMD_LOCK) */
	    (!fc.ic.dry_run && !(fc.new_versions && !fc.do_import) &&
	     workspace_lock(&wl, root, opts, &err) < 0) ||
	    import_cli_settings(&st, root, fc.offline, &progress, &err) < 0)
		goto fail;
	if (!fc.nr_specs) {
		if (series_list_names(root, &names, &nr, &err) < 0)
			goto fail;
		fc.specs = (const char **)names;
		fc.nr_specs = nr;
		if (!nr)
			note(opts, "no series yet: 'kcarry import NAME MSGID' "
				   "adds one");
	}
	env = (struct fetch_env){ root, &st, &fc, opts };
	for (size_t i = 0; i < fc.nr_specs; i++) {
		char *name = NULL, *version = NULL;
		char *conf;

		if (series_parse_spec(fc.specs[i], &name, &version, &err) < 0) {
			rc = usage_error("fetch", opts, "%s", err.msg.ptr);
			goto out;
		}
		conf = xstrfmt("%s/series/%s.conf", root, name);
		if (fc.new_versions) {
			if (version) {
				err_set(&err, ERR_USAGE,
					"--new looks past the newest version: "
					"give NAME, not NAME@VERSION");
			} else if (fetch_newer(&env, name,
					       fc.nr_specs == nr && nr,
					       &err) == 0) {
				free(conf);
				free(name);
				continue;
			}
		} else if (!fs_is_file(conf)) {
			if (fc.nr_specs == nr && nr) {
				/* every series: nothing to fetch for one
				 * without series/NAME.conf */
				free(conf);
				free(name);
				free(version);
				continue;
			}
			err_set(&err, ERR_NOTFOUND, "no series '%s' (no %s)",
				name, conf);
			err_hint(&err, "'kcarry list' shows the series");
		} else {
			fetch_named(&env, name, version, &rc);
			free(conf);
			free(name);
			free(version);
			continue;
		}
		{
			int r = err_report(&err, opts);
			if (r > rc)
				rc = r;
			err_release(&err);
			err_init(&err);
		}
		free(conf);
		free(name);
		free(version);
	}
	goto out;
fail:
	rc = err_report(&err, opts);
out:
	series_free_list(names, nr);
	free(fc.args);
	settings_release(&st);
	lock_release(&wl);
	err_release(&err);
	return rc;
}
