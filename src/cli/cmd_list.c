/*
 * cmd_list: the series of the workspace, their versions and patch counts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "fetch.h"
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
			  const char *version, const struct series_record *rec,
			  bool stored, bool *incomplete)
{
	const char *kind = rec ? rec->kind : NULL;
	char *patches = rec && rec->patches ? xstrdup(rec->patches) : NULL;
	char *source = NULL;

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
	if (rec && rec->source)
		/* a URL's user:password@, as an older kcarry stored it */
		source = fetch_url_public(rec->source);
	else if (series_record_msgid(rec)) {
		char *s = xstrfmt("<%s>", series_record_msgid(rec));
		source = fetch_url_public(s);
		free(s);
	}
	*incomplete = *incomplete || (stored && (!kind || !source));
	printf("%-24s %-20s %7s  %s%s%s%s\n", name, version,
	       stored ? patches : "-", stored ? "" : "(not imported) ",
	       kind ? kind : "", kind ? " " : "",
	       *incomplete ? "(incomplete: import again to repair)"
	       : source    ? source
			   : "");
	free(patches);
	free(source);
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
		struct series_records recs;
		char **stored = NULL;
		size_t ns = 0;
		struct err e2 = ERR_INIT;

		if (series_provenance_load(&recs, root, names[i], &err) < 0) {
			rc = err_report(&err, opts);
			series_records_release(&recs);
			break;
		}
		series_list_versions(root, names[i], &stored, &ns, &e2);
		for (size_t j = 0; j < ns; j++) {
			bool cut;
			print_version(root, names[i], stored[j],
				      series_records_find(&recs, stored[j]),
				      true, &cut);
			if (cut) {
				buf_addf(&incomplete, "%s%s@%s",
					 nr_incomplete++ ? ", " : "", names[i],
					 stored[j]);
				conf_of = names[i];
			}
		}
		for (size_t j = 0; j < recs.nr; j++) {
			bool seen = false, cut;
			for (size_t k = 0; k < ns && !seen; k++)
				seen = !strcmp(stored[k], recs.items[j].version);
			if (!seen)
				print_version(root, names[i],
					      recs.items[j].version,
					      &recs.items[j], false, &cut);
		}
		if (!ns && !recs.nr)
			printf("%-24s %-20s %7s\n", names[i], "-", "-");
		series_free_list(stored, ns);
		series_records_release(&recs);
		err_release(&e2);
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
