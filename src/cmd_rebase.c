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

struct rebase_cli {
	const char **args; /* NAME V1 V2, then the targets */
	const char *name, *v1, *v2;
	const char **targets;
	size_t nr_targets;
	struct rebase_opts ro;
};

struct progress_ctx {
	const struct options *opts;
	const char *target;
};

static void on_patch(void *vctx, size_t i, size_t nr, const char *subject)
{
	struct progress_ctx *ctx = vctx;

	if (!ctx->opts->progress)
		return;
	fprintf(stderr, "\r\033[K%s: patch %zu/%zu", ctx->target, i + 1, nr);
	if (i + 1 == nr)
		fputc('\n', stderr);
}

static void on_target(void *vctx, const char *target, const char *what)
{
	note(vctx, "%s: %s", target, what);
}

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
	if (npos < 3)
		bad = "expected NAME V1 V2 TARGET...";
	else if (npos < 4)
		bad = "no target named";
	else if (strchr(pos[0], '@'))
		bad = "name the versions apart: NAME V1 V2 TARGET...";
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

int cmd_rebase(int argc, char **argv, const struct options *opts)
{
	struct rebase_cli cli = { 0 };
	struct err err = ERR_INIT;
	struct series_version v1, v2;
	struct vdiff d = { 0 };
	char *root = NULL;
	struct lock wl = LOCK_INIT;
	int rc = EXIT_DONE;

	series_version_init(&v1, NULL, NULL);
	series_version_init(&v2, NULL, NULL);
	if (parse_args(&cli, argc, argv, opts) < 0) {
		rc = EXIT_USAGE;
		goto out;
	}
	/* a dry run writes nothing: it reads, as list and diff do */
	if (workspace_find(&root, opts, &err) < 0 ||
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
	if (vdiff_compute(&d, &v1, &v2, NULL, &err) < 0)
		goto fail;
	for (size_t t = 0; t < cli.nr_targets; t++) {
		struct job j;
		struct target_progress tp = { on_target, (void *)opts };
		struct progress_ctx pc = { opts, cli.targets[t] };
		struct rebase_opts ro = cli.ro;
		struct rebase_result r;
		int error;

		if (job_open(&j, root, cli.targets[t], &tp, &err) < 0) {
			job_close(&j);
			goto fail;
		}
		ro.carry.progress = on_patch;
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
	series_version_release(&v1);
	series_version_release(&v2);
	free(cli.args);
	free(root);
	lock_release(&wl);
	err_release(&err);
	return rc;
}
