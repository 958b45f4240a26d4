/*
 * cmd_show: the patches of one series version: subjects, authors, files
 * and a diffstat.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "report.h"
#include "series.h"

/* kcarry show --help: usage, text, text after the options */
const char show_usage[] =
	"kcarry show [--stat] NAME[@VERSION]";
const char show_help[] =
	"Print the patches of a version (newest by default): number, subject,\n"
	"author, files touched, then a diffstat of the whole version.\n";

struct file_stat {
	const char *path;
	unsigned long add, del;
};

static void count_file(const struct patch_file *f, unsigned long *add,
		       unsigned long *del)
{
	for (size_t h = 0; h < f->nr_hunks; h++)
		for (size_t l = 0; l < f->hunks[h].nr_lines; l++) {
			char k = f->hunks[h].lines[l].kind;
			*add += k == '+';
			*del += k == '-';
		}
}

struct show_cli {
	bool stat;
};

const struct opt show_options[] = {
	{ OPT_FLAG, 0, "stat", NULL,
	  "leave out the files of each patch: the subjects,\n"
	  "authors and the diffstat",
	  offsetof(struct show_cli, stat) },
	{ OPT_END },
};

int cmd_show(int argc, char **argv, struct cli_ctx *cx)
{
	const struct options *opts = cx->opts;
	struct series_version v;
	struct err err = ERR_INIT;
	struct file_stat *stats = NULL;
	size_t nstats = 0, alloc = 0;
	const char *root = NULL;
	char *name = NULL, *version = NULL;
	struct show_cli cli = { 0 };
	const char **args = NULL;
	size_t nr_args = 0;
	unsigned long tadd = 0, tdel = 0;
	int rc = EXIT_DONE;

	series_version_init(&v, NULL, NULL);
	if (cli_parse("show", show_options, &cli, argc, argv, &args, &nr_args,
		      opts) < 0) {
		rc = EXIT_USAGE;
		goto out;
	}
	if (!nr_args || nr_args > 1) {
		rc = usage_error("show", opts, "%s",
				 nr_args ? "too many arguments"
					 : "no series named");
		goto out;
	}
	if (series_parse_spec(args[0], &name, &version, &err) < 0 ||
	    cli_workspace(cx, &root, &err) < 0 ||
	    series_load_version(&v, root, name, version, &err) < 0) {
		rc = err_report(&err, opts);
		goto out;
	}
	printf("%s@%s: %zu patch%s\n", v.name, v.version, v.nr,
	       v.nr == 1 ? "" : "es");
	for (size_t i = 0; i < v.nr; i++) {
		const struct patch *p = &v.items[i].patch;
		unsigned long add = 0, del = 0;

		printf("%4zu  %s\n", i + 1,
		       p->subject ? p->subject : v.items[i].file);
		if (p->author_name || p->author_email)
			printf("      %s%s%s%s%s\n",
			       p->author_name ? p->author_name : "",
			       p->author_name && p->author_email ? " " : "",
			       p->author_email ? "<" : "",
			       p->author_email ? p->author_email : "",
			       p->author_email ? ">" : "");
		for (size_t f = 0; f < p->nr_files; f++) {
			const struct patch_file *pf = &p->files[f];
			const char *path = patch_file_path(pf);
			size_t j;

			add = del = 0;
			count_file(pf, &add, &del);
			if (!cli.stat)
				report_printf(stdout,
					      "      %s%s (+%lu -%lu)\n", path,
					      pf->binary ? " [binary]" : "",
					      add, del);
			for (j = 0; j < nstats; j++)
				if (!strcmp(stats[j].path, path))
					break;
			if (j == nstats) {
				ALLOC_GROW(stats, nstats + 1, alloc);
				stats[nstats].path = path;
				stats[nstats].add = stats[nstats].del = 0;
				nstats++;
			}
			stats[j].add += add;
			stats[j].del += del;
			tadd += add;
			tdel += del;
		}
	}
	printf("\n");
	for (size_t j = 0; j < nstats; j++)
		report_printf(stdout, " %-60s | +%lu -%lu\n", stats[j].path,
			      stats[j].add, stats[j].del);
	printf(" %zu file%s changed, %lu insertion%s(+), %lu deletion%s(-)\n",
	       nstats, nstats == 1 ? "" : "s", tadd, tadd == 1 ? "" : "s",
	       tdel, tdel == 1 ? "" : "s");
out:
	free(args);
	free(stats);
	series_version_release(&v);
	free(name);
	free(version);
	err_release(&err);
	return rc;
}
