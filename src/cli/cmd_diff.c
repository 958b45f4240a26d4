/*
 * cmd_diff: two stored versions of a series side by side, as git
 * range-diff shows two branches: unchanged, changed (with the interdiff),
 * new, dropped and moved patches.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "fs.h"
#include "vdiff.h"

/* kcarry diff --help: usage, text, text after the options */
const char diff_usage[] =
	"kcarry diff [options] NAME V1 V2\n"
	"   or: kcarry diff [options] NAME@V1 NAME@V2";
const char diff_help[] =
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
	"the list.\n";
const char diff_more[] =
	"exit status: 0 compared; 2 bad arguments or an unknown series or\n"
	"version; 3 I/O trouble.\n";

struct diff_cli {
	const char *name, *v1, *v2;
	char *name_buf; /* NAME of NAME@V1 NAME@V2 */
	const char **args; /* the arguments that are not options */
	bool json, stat;
	const char *output;
	unsigned creation_factor;
};

const struct opt diff_options[] = {
	{ OPT_FLAG, 0, "stat", NULL,
	  "no interdiffs: '(+A -R)' lines per changed pair",
	  offsetof(struct diff_cli, stat) },
	{ OPT_FLAG, 0, "json", NULL,
	  "the kcarry-diff/1 document (docs/diff-json-schema.md)",
	  offsetof(struct diff_cli, json) },
	{ OPT_UINT, 0, "creation-factor", "N",
	  "percent of a patch's size a change may cost before\n"
	  "it counts as new (default 60, as git)",
	  offsetof(struct diff_cli, creation_factor), 1, 1000 },
	OPT_OUTPUT(struct diff_cli, output),
	{ OPT_END },
};

/* NAME V1 V2, or NAME@V1 NAME@V2 */
static int take_versions(struct diff_cli *c, const char **pos, size_t npos,
			 struct err *err)
{
	if (npos > 3)
		return err_set(err, ERR_USAGE, "too many arguments");
	if (npos == 2 && strchr(pos[0], '@') && strchr(pos[1], '@')) {
		/* NAME@V1 NAME@V2 */
		const char *a1 = strchr(pos[0], '@'), *a2 = strchr(pos[1], '@');
		size_t n = (size_t)(a1 - pos[0]);
		if (n != (size_t)(a2 - pos[1]) || strncmp(pos[0], pos[1], n) ||
		    !n || !a1[1] || !a2[1])
			return err_set(err, ERR_USAGE,
				       "'%s' and '%s' are not two versions of "
				       "one series",
				       pos[0], pos[1]);
		c->name_buf = xstrndup(pos[0], n);
		c->name = c->name_buf;
		c->v1 = a1 + 1;
		c->v2 = a2 + 1;
		return 0;
	}
	if (npos != 3)
		return err_set(err, ERR_USAGE, "expected NAME V1 V2");
	c->name = pos[0];
	c->v1 = pos[1];
	c->v2 = pos[2];
	if (strchr(c->name, '@'))
		return err_set(err, ERR_USAGE,
			       "name the versions apart: NAME V1 V2");
	return 0;
}

static int parse_args(struct diff_cli *c, int argc, char **argv,
		      const struct options *opts, struct err *err)
{
	size_t npos;

	if (cli_parse("diff", diff_options, c, argc, argv, &c->args, &npos,
		      opts) < 0)
		return -1;
	if (take_versions(c, c->args, npos, err) < 0) {
		usage_error("diff", opts, "%s", err->msg.ptr);
		return -1;
	}
	return 0;
}

static int width(size_t n)
{
	int w = 1;

	while (n >= 10) {
		n /= 10;
		w++;
	}
	return w;
}

static const char *subject_of(const struct series_item *it)
{
	return it->patch.subject && *it->patch.subject ? it->patch.subject
						       : it->file;
}

static int print_text(FILE *out, const struct vdiff *d,
		      const struct diff_cli *c, const struct options *opts,
		      struct err *err)
{
	int w = width(d->a->nr > d->b->nr ? d->a->nr : d->b->nr);
	const char *off = color(opts, true, "\033[m");
	struct buf idiff = BUF_INIT;
	int error = 0;

	fprintf(out, "%s: %s (%zu patches) -> %s (%zu patches)\n", d->b->name,
		d->a->version, d->a->nr, d->b->version, d->b->nr);
	for (size_t k = 0; k < d->nr_pairs && !error; k++) {
		const struct vdiff_pair *p = &d->pairs[k];
		const struct series_item *ia = p->a >= 0 ? &d->a->items[p->a]
							 : NULL;
		const struct series_item *ib = p->b >= 0 ? &d->b->items[p->b]
							 : NULL;
		const char *col = p->status == VDIFF_NEW       ? "\033[32m"
				  : p->status == VDIFF_DROPPED ? "\033[31m"
				  : p->status == VDIFF_SAME    ? ""
							       : "\033[33m";
		bool idiff_wanted = p->status == VDIFF_CHANGED ||
				    p->status == VDIFF_REWRITTEN;
		size_t add = 0, del = 0;

		buf_reset(&idiff);
		if (idiff_wanted &&
		    (error = vdiff_interdiff(&idiff, &add, &del, d, p, 4,
					     err)) < 0)
			break;
		fprintf(out, "%s", color(opts, true, col));
		if (ia)
			fprintf(out, "%*ld: ", w, p->a + 1);
		else
			fprintf(out, "%*s: ", w, "-");
		fprintf(out, "%c ", vdiff_status_char(p->status));
		if (ib)
			fprintf(out, "%*ld: ", w, p->b + 1);
		else
			fprintf(out, "%*s: ", w, "-");
		fprintf(out, "%s", subject_of(ib ? ib : ia));
		if (ia && ib && strcmp(subject_of(ia), subject_of(ib)))
			fprintf(out, " (was: %s)", subject_of(ia));
		if (p->status == VDIFF_REWRITTEN)
			fprintf(out, " (rewritten)");
		if (p->moved)
			fprintf(out, " (moved)");
		if (idiff_wanted && c->stat)
			fprintf(out, " (+%zu -%zu)", add, del);
		if (ia && ib && opts->verbosity > 0)
			fprintf(out, " [%s]",
				p->by == VDIFF_BY_PATCH_ID  ? "same patch-id"
				: p->by == VDIFF_BY_SUBJECT ? "same subject"
							    : "similar diff");
		fprintf(out, "%s\n", off);
		if (idiff_wanted && !c->stat)
			fputs(idiff.ptr, out);
	}
	if (!error)
		fprintf(out,
			"%zu unchanged, %zu changed, %zu rewritten, %zu new, "
			"%zu dropped, %zu moved\n",
			d->nr_same, d->nr_changed, d->nr_rewritten, d->nr_new,
			d->nr_dropped, d->nr_moved);
	buf_release(&idiff);
	return error;
}

int cmd_diff(int argc, char **argv, struct cli_ctx *cx)
{
	const struct options *opts = cx->opts;
	struct diff_cli cli = { 0 };
	struct err err = ERR_INIT;
	struct series_version a, b;
	struct vdiff d = { 0 };
	struct vdiff_opts vo = { 0 };
	const char *root = NULL;
	struct fs_atomic out = { stdout, NULL, NULL };
	int rc = EXIT_DONE;

	series_version_init(&a, NULL, NULL);
	series_version_init(&b, NULL, NULL);
	if (parse_args(&cli, argc, argv, opts, &err) < 0) {
		rc = EXIT_USAGE;
		goto out;
	}
	vo.creation_factor = cli.creation_factor;
	if (cli_workspace(cx, &root, &err) < 0 ||
	    series_load_version(&a, root, cli.name, cli.v1, &err) < 0 ||
	    series_load_version(&b, root, cli.name, cli.v2, &err) < 0 ||
	    vdiff_compute(&d, &a, &b, &vo, &err) < 0)
		goto fail;
	if (d.similarity_skipped)
		note(opts, "%zu old and %zu new patches have no exact match: "
			   "more than %lu pairs to compare by their diffs, "
			   "so they are paired by patch-id or subject only "
			   "(git range-diff compares every pair)",
		     d.nr_left_a, d.nr_left_b, VDIFF_MAX_SIMILARITY_PAIRS);
	if (cli.output && fs_atomic_open(&out, cli.output, &err) < 0)
		goto fail;
	if (cli.json) {
		char *s = NULL;
		if (vdiff_json(&s, &d, cli.stat, &err) < 0)
			goto fail;
		fprintf(out.f, "%s\n", s);
		free(s);
	} else if (print_text(out.f, &d, &cli, opts, &err) < 0)
		goto fail;
	if (cli.output && fs_atomic_commit(&out, &err) < 0)
		goto fail;
	goto out;
fail:
	if (out.f != stdout)
		fs_atomic_abort(&out);
	rc = err_report(&err, opts);
out:
	vdiff_release(&d);
	series_version_release(&a);
	series_version_release(&b);
	free(cli.name_buf);
	free(cli.args);
	err_release(&err);
	return rc;
}
