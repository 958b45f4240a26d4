/*
 * cmd_list: the series of the workspace, their versions and patch counts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "conf.h"
#include "fetch.h"
#include "fs.h"
#include "series.h"

/* kcarry list --help: usage, text, text after the options */
const char list_usage[] =
	"kcarry list";
const char list_help[] =
	"One line per series version: name, version, patches, source.  A\n"
	"version whose provenance an interrupted import cut short says\n"
	"'(incomplete: import again to repair)' as its source.\n";

/*
 * One line of the table.  A stored version whose provenance lacks its
 * count, kind or source was cut short (killed or a full disk between the
 * folder and the .conf): *incomplete is set, and importing it again
 * repairs it.
 */
static void print_version(const char *root, const char *name,
			  const char *version, const struct conf *c, bool stored,
			  bool *incomplete)
{
	struct buf key = BUF_INIT;
	char *patches, *kind, *source;

	buf_addf(&key, "version.%s.patches", version);
	patches = c ? conf_get_or(c, key.ptr, NULL) : NULL;
	*incomplete = stored && !patches;
	if (!patches && stored) {
		/* provenance not recorded (a copied store): count the patches */
		struct series_version v;
		struct err err = ERR_INIT;
		if (series_load_version(&v, root, name, version, &err) == 0)
			patches = xstrfmt("%zu", v.nr);
		series_version_release(&v);
		err_release(&err);
	}
	if (!patches)
		patches = xstrdup("-");
	buf_reset(&key);
	buf_addf(&key, "version.%s.kind", version);
	kind = c ? conf_get_or(c, key.ptr, NULL) : NULL;
	buf_reset(&key);
	buf_addf(&key, "version.%s.source", version);
	source = c ? conf_get_or(c, key.ptr, NULL) : NULL;
	if (!source && c) {
		buf_reset(&key);
		buf_addf(&key, "version.%s.msgid", version);
		source = conf_get_or(c, key.ptr, NULL);
		if (source) {
			char *s = xstrfmt("<%s>", source);
			free(source);
			source = s;
		}
	}
	if (source) {
		/* a URL's user:password@, as an older kcarry stored it */
		char *s = fetch_url_public(source);
		free(source);
		source = s;
	}
	*incomplete = *incomplete || (stored && (!kind || !source));
	printf("%-24s %-20s %7s  %s%s%s%s\n", name, version,
	       stored ? patches : "-", stored ? "" : "(not imported) ",
	       kind ? kind : "", kind ? " " : "",
	       *incomplete ? "(incomplete: import again to repair)"
	       : source    ? source
			   : "");
	free(patches);
	free(kind);
	free(source);
	buf_release(&key);
}

const struct opt list_options[] = {
	{ OPT_END },
};

int cmd_list(int argc, char **argv, struct cli_ctx *cx)
{
	const struct options *opts = cx->opts;
	struct err err = ERR_INIT;
	const char *root = NULL;
	char **names = NULL;
	const char **args = NULL;
	size_t nr = 0, nr_args = 0, nr_incomplete = 0;
	struct buf incomplete = BUF_INIT; /* "s@v2, t@v1" */
	const char *conf_of = NULL;       /* the series of the only one */
	int rc = EXIT_DONE;

	if (cli_parse("list", list_options, NULL, argc, argv, &args, &nr_args,
		      opts) < 0) {
		rc = EXIT_USAGE;
		goto out;
	}
	if (nr_args) {
		rc = usage_error("list", opts, "unknown argument '%s'",
				 args[0]);
		goto out;
	}
	if (cli_workspace(cx, &root, &err) < 0 ||
	    series_list_names(root, &names, &nr, &err) < 0) {
		rc = err_report(&err, opts);
		goto out;
	}
	if (!nr) {
		note(opts, "no series yet: 'kcarry import NAME SOURCE' adds one");
		goto out;
	}
	printf("%-24s %-20s %7s  %s\n", "SERIES", "VERSION", "PATCHES",
	       "SOURCE");
	for (size_t i = 0; i < nr; i++) {
		char *cpath = xstrfmt("%s/series/%s.conf", root, names[i]);
		struct conf *c = NULL;
		char **stored = NULL, **confv = NULL;
		size_t ns = 0, nc = 0;
		struct err e2 = ERR_INIT;

		if (fs_is_file(cpath) && conf_open(&c, cpath, false, &err) < 0) {
			rc = err_report(&err, opts);
			free(cpath);
			break;
		}
		series_list_versions(root, names[i], &stored, &ns, &e2);
		if (c)
			conf_subsections(c, "version", &confv, &nc, &e2);
		for (size_t j = 0; j < ns; j++) {
			bool cut;
			print_version(root, names[i], stored[j], c, true, &cut);
			if (cut) {
				buf_addf(&incomplete, "%s%s@%s",
					 nr_incomplete++ ? ", " : "", names[i],
					 stored[j]);
				conf_of = names[i];
			}
		}
		for (size_t j = 0; j < nc; j++) {
			bool seen = false, cut;
			for (size_t k = 0; k < ns && !seen; k++)
				seen = !strcmp(stored[k], confv[j]);
			if (!seen)
				print_version(root, names[i], confv[j], c, false,
					      &cut);
		}
		if (!ns && !nc)
			printf("%-24s %-20s %7s\n", names[i], "-", "-");
		series_free_list(stored, ns);
		conf_free_list(confv, nc);
		conf_free(c);
		err_release(&e2);
		free(cpath);
	}
	if (nr_incomplete == 1)
		note(opts, "hint: %s: its provenance in series/%s.conf is "
			   "incomplete (an import was cut short); import it "
			   "again from its source to repair it",
		     incomplete.ptr, conf_of);
	else if (nr_incomplete)
		note(opts, "hint: %s: their provenance in series/ is "
			   "incomplete (imports were cut short); import each "
			   "again from its source to repair it",
		     incomplete.ptr);
out:
	buf_release(&incomplete);
	series_free_list(names, nr);
	free(args);
	err_release(&err);
	return rc;
}
