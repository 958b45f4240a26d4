/*
 * cmd_rebase: build V2's backport from V1's on each target, and say per
 * patch whether it was reused, updated, new, dropped, or needs a person.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "rebase.h"
#include "report.h"

/* kcarry rebase --help: usage, text, text after the options */
const char rebase_usage[] =
	"kcarry rebase [options] NAME V1 V2 TARGET...";
const char rebase_help[] =
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
	"branch kcarry/NAME/V2/TARGET and patches/NAME/V2/TARGET/.\n";
const char rebase_more[] =
	"exit status: 0 every patch carried or already applied; 1 some patch\n"
	"needs a person, or a placement risk; 2 bad arguments or unknown\n"
	"names; 3 repository, network or I/O trouble.\n";

struct rebase_cli {
	const char **args; /* NAME V1 V2, then the targets */
	const char *name, *v1, *v2;
	const char **targets;
	size_t nr_targets;
	struct rebase_opts ro;
};

const struct opt rebase_options[] = {
	{ OPT_FLAG, 0, "dry-run", NULL,
	  "say what would happen; record and write nothing",
	  offsetof(struct rebase_cli, ro.dry_run) },
	{ OPT_FLAG, 0, "no-refresh", NULL,
	  "do not write patches/NAME/V2/TARGET/",
	  offsetof(struct rebase_cli, ro.refresh), .negate = true },
	OPT_CARRY(struct rebase_cli, ro.carry),
	{ OPT_END },
};

/*
 * NAME@V1 (as apply and diff take it) where rebase wants NAME V1: the
 * command line as rebase reads it, from what was given.
 */
static int versions_apart(const char **pos, size_t npos,
			  const struct options *opts)
{
	struct buf b = BUF_INIT;
	const char *at = NULL;
	size_t name_len = 0, words = 0;
	int rc;

	for (size_t i = 0; i < npos && i < 3 && !at; i++)
		if (strchr(pos[i], '@'))
			at = pos[i];
	if (!at)
		return 0;
	for (size_t i = 0; i < npos; i++) {
		const char *a = strchr(pos[i], '@');
		if (i == 0) {
			name_len = a ? (size_t)(a - pos[0]) : strlen(pos[0]);
			buf_add(&b, pos[0], name_len);
			if (!a)
				continue;
		} else if (a && i < 3 && (size_t)(a - pos[i]) == name_len &&
			   !strncmp(pos[i], pos[0], name_len)) {
			/* NAME@V2 of the same series */
		} else
			a = NULL;
		buf_addf(&b, " %s", a ? a + 1 : pos[i]);
		words++;
	}
	if (words < 3)
		buf_adds(&b, words < 2 ? " V2 TARGET..." : " TARGET...");
	rc = usage_error("rebase", opts,
			 "'%s': rebase takes the series and its versions "
			 "apart: kcarry rebase %s",
			 at, b.ptr);
	buf_release(&b);
	return rc;
}

static int parse_args(struct rebase_cli *c, int argc, char **argv,
		      const struct options *opts)
{
	const char **pos, *bad = NULL;
	size_t npos;

	c->ro.carry.apply.fuzz = APPLY_DEFAULT_FUZZ;
	c->ro.refresh = true;
	if (cli_parse("rebase", rebase_options, c, argc, argv, &c->args, &npos,
		      opts) < 0)
		return -1;
	pos = c->args;
	if (versions_apart(pos, npos, opts))
		return -1;
	if (npos < 3)
		bad = "expected NAME V1 V2 TARGET...";
	else if (npos < 4)
		bad = "no target named";
	if (bad) {
		usage_error("rebase", opts, "%s", bad);
		return -1;
	}
	c->name = pos[0];
	c->v1 = pos[1];
	c->v2 = pos[2];
	c->targets = pos + 3;
	c->nr_targets = npos - 3;
	return 0;
}

static const char *subject_of(const struct series_item *it)
{
	return it->patch.subject && *it->patch.subject ? it->patch.subject
						       : it->file;
}

static void print_result(const struct rebase_result *r,
			 const struct series_version *v1,
			 const struct series_version *v2,
			 const struct rebase_cli *c, const struct options *opts)
{
	const char *off = color(opts, true, "\033[m");

	printf("%s %s -> %s on %s", r->series, r->v1, r->v2, r->target);
	if (r->carried)
		printf(" (%s)", r->carry.branch + strlen("refs/heads/"));
	else
		printf(" (dry run: nothing recorded or written)");
	putchar('\n');
	for (size_t n = 0; n < r->nr; n++) {
		const struct rebase_patch *p = &r->patches[n];
		const struct series_item *it =
			p->v2 >= 0 ? &v2->items[p->v2] : &v1->items[p->v1];
		const char *col = p->status == REBASE_PERSON    ? "\033[1;31m"
				  : p->status == REBASE_DROPPED ? "\033[2m"
								: "";

		printf("%s", color(opts, true, col));
		if (p->v2 >= 0)
			printf("  %04ld %-14s %-16s %s", p->v2 + 1,
			       rebase_status_name(p->status),
			       p->committed ? apply_outcome_name(p->outcome)
			       : p->outcome == OUTCOME_ALREADY
				       ? "already applied"
				       : "not carried",
			       subject_of(it));
		else
			printf("  ---- %-14s %-16s %s", "dropped", "",
			       subject_of(it));
		if (p->v1 >= 0 && p->v2 < 0)
			printf(" (%s %04ld)", r->v1, p->v1 + 1);
		else if (p->v1 >= 0 && p->v1 != p->v2)
			printf(" (%s %04ld)", r->v1, p->v1 + 1);
		printf("%s\n", off);
		if (p->pairing == VDIFF_REWRITTEN)
			printf("         rewritten since %s: carried as a new "
			       "patch\n",
			       r->v1);
		switch (p->how) {
		case REBASE_HOW_REPLAYED:
			printf("         a recorded resolution, replayed\n");
			break;
		case REBASE_HOW_BACKPORT:
		case REBASE_HOW_INTERDIFF:
			printf("         %s's backport%s%s%s\n", r->v1,
			       p->v1_resolved ? " (a person's resolution)" : "",
			       p->how == REBASE_HOW_INTERDIFF
				       ? " with the interdiff"
				       : "",
			       p->recorded ? ", recorded for this version"
					   : "");
			break;
		case REBASE_HOW_APPLIED:
			if (p->v1_dropped)
				printf("         %s's resolution did not carry "
				       "over; the patch applied by itself\n",
				       r->v1);
			break;
		case REBASE_HOW_NONE:
			break;
		}
		if (p->why) {
			report_printf(stdout, "         %s\n", p->why);
			printf("         then: kcarry resolve %s@%s %s %ld\n",
			       r->series, r->v2, r->target, p->v2 + 1);
		}
	}
	printf("  summary: %zu reused, %zu updated, %zu new, %zu dropped, "
	       "%zu %s (%zu of %zu patches changed since %s)\n",
	       r->counts[REBASE_REUSED], r->counts[REBASE_UPDATED],
	       r->counts[REBASE_NEW], r->counts[REBASE_DROPPED],
	       r->counts[REBASE_PERSON],
	       r->counts[REBASE_PERSON] == 1 ? "needs a person"
					     : "need a person",
	       r->nr_changed, v2->nr, r->v1);
	if (r->carried && c->ro.refresh)
		printf("refreshed series: patches/%s/%s/%s/\n", r->series,
		       r->v2, r->target);
}

int cmd_rebase(int argc, char **argv, struct cli_ctx *cx)
{
	const struct options *opts = cx->opts;
	struct rebase_cli cli = { 0 };
	struct err err = ERR_INIT;
	struct series_version v1, v2;
	struct vdiff d = { 0 };
	const char *root = NULL;
	char *stacks_on = NULL;
	struct lock wl = LOCK_INIT;
	int rc = EXIT_DONE;

	series_version_init(&v1, NULL, NULL);
	series_version_init(&v2, NULL, NULL);
	if (parse_args(&cli, argc, argv, opts) < 0) {
		rc = EXIT_USAGE;
		goto out;
	}
	/* a dry run writes nothing: it reads, as list and diff do */
	if (cli_workspace(cx, &root, &err) < 0 ||
	    /* a dry run writes nothing: no lock (not CMD_LOCK) */
	    (!cli.ro.dry_run && workspace_lock(&wl, root, opts, &err) < 0) ||
	    series_load_version(&v1, root, cli.name, cli.v1, &err) < 0 ||
	    series_load_version(&v2, root, cli.name, cli.v2, &err) < 0)
		goto fail;
	if (!strcmp(v1.version, v2.version)) {
		rc = usage_error("rebase", opts,
				 "V1 and V2 are the same version '%s'",
				 v1.version);
		goto out;
	}
	if (vdiff_compute(&d, &v1, &v2, NULL, &err) < 0 ||
	    series_stacks_on(&stacks_on, root, v2.name, &err) < 0)
		goto fail;
	/* DESIGN: rebase, like apply, carries on the target's base */
	if (stacks_on)
		note(opts,
		     "note: rebase carries %s onto each target's base: "
		     "series.stacks-on = %s is followed by check, build and "
		     "export only",
		     v2.name, stacks_on);
	for (size_t t = 0; t < cli.nr_targets; t++) {
		struct job j;
		struct target_progress tp = { progress_target, (void *)opts };
		struct progress_ctx pc = { opts, cli.targets[t] };
		struct rebase_opts ro = cli.ro;
		struct rebase_result r;
		int error;

		if (job_open(&j, root, cli.targets[t], &tp, &err) < 0) {
			job_close(&j);
			goto fail;
		}
		ro.carry.progress = progress_patch;
		/* an adaptation needs a person: rebase does not make one */
		ro.carry.apply.no_adapt = true;
		ro.carry.ctx = &pc;
		error = rebase_target(&r, &j, &v1, &v2, &d, &ro, &err);
		job_close(&j);
		if (error < 0) {
			rebase_result_release(&r);
			goto fail;
		}
		print_result(&r, &v1, &v2, &cli, opts);
		if (r.counts[REBASE_PERSON] || (r.carried && r.carry.risk))
			rc = EXIT_NOT_DONE;
		rebase_result_release(&r);
	}
	goto out;
fail:
	rc = err_report(&err, opts);
out:
	vdiff_release(&d);
	free(stacks_on);
	series_version_release(&v1);
	series_version_release(&v2);
	free(cli.args);
	lock_release(&wl);
	err_release(&err);
	return rc;
}
