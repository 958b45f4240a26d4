/*
 * cmd_show: the patches of one series version: subjects, authors, files
 * and a diffstat.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "series.h"

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

int cmd_show(int argc, char **argv, const struct options *opts)
{
	struct series_version v;
	struct err err = ERR_INIT;
	struct file_stat *stats = NULL;
	size_t nstats = 0, alloc = 0;
	char *root = NULL, *name = NULL, *version = NULL;
	const char *spec = NULL;
	unsigned long tadd = 0, tdel = 0;
	bool stat = false;
	int rc = EXIT_DONE;

	series_version_init(&v, NULL, NULL);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--stat"))
			stat = true;
		else if (argv[i][0] == '-')
			return usage_error("show", opts, "unknown option '%s'",
					   argv[i]);
		else if (spec)
			return usage_error("show", opts, "too many arguments");
		else
			spec = argv[i];
	}
	if (!spec)
		return usage_error("show", opts, "no series named");
	if (series_parse_spec(spec, &name, &version, &err) < 0 ||
	    workspace_find(&root, opts, &err) < 0 ||
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
			if (!stat)
				printf("      %s%s (+%lu -%lu)\n", path,
				       pf->binary ? " [binary]" : "", add, del);
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
		printf(" %-60s | +%lu -%lu\n", stats[j].path, stats[j].add,
		       stats[j].del);
	printf(" %zu file%s changed, %lu insertion%s(+), %lu deletion%s(-)\n",
	       nstats, nstats == 1 ? "" : "s", tadd, tadd == 1 ? "" : "s",
	       tdel, tdel == 1 ? "" : "s");
out:
	free(stats);
	series_version_release(&v);
	free(name);
	free(version);
	free(root);
	err_release(&err);
	return rc;
}
