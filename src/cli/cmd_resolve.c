/*
 * cmd_resolve: hand a conflicting patch to a person in a scratch folder;
 * cmd_refresh.c takes the resolution back.
 */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "cmds.h"
#include "fs.h"
#include "job.h"
#include "name.h"
#include "report.h"
#include "resolve.h"

/* kcarry resolve --help: usage, text, text after the options */
const char resolve_usage[] =
	"kcarry resolve NAME[@VERSION] TARGET PATCH\n"
	"       kcarry resolve --suggest NAME[@VERSION] TARGET";
const char resolve_help[] =
	"Apply the patches before PATCH (a number or file name) to TARGET,\n"
	"then write the files PATCH touches, as it leaves them, to the\n"
	"scratch folder .kcarry/resolve/NAME/VERSION/TARGET/files/ of the\n"
	"workspace: diff3 markers where a hunk conflicts, rejected hunks in\n"
	"PATH.rej.  Nothing outside the workspace is touched.  Edit the files,\n"
	"then run 'kcarry refresh'.  When the patch uses names the target\n"
	"lacks, a line per prerequisite names the patch or commit that adds\n"
	"them, as apply's cause does ('prerequisite, not applied: 0001 of\n"
	"this series (\"SUBJECT\") adds foo()'); nothing of it is applied.\n"
	"\n"
	"A patch kcarry adapts (see apply) is shown as its proposal: each\n"
	"adapted hunk's lines in diff3 style, the target's lines after\n"
	"<<<<<<<, the original hunk's after |||||||, the adapted result after\n"
	"=======, and PATH.adapted with the original and adapted hunks and\n"
	"the note.  Keep the adapted result (remove the other lines and the\n"
	"markers) and run 'kcarry refresh': it records your acceptance, after\n"
	"which that proposal no longer makes the exit status 1.  Edit it\n"
	"otherwise and refresh records a resolution, as for a conflict.\n";

/* Patch by number (3, 0003) or file name (or its unique prefix). */
static long find_patch(const struct series_version *v, const char *arg)
{
	char *end;
	unsigned long n = strtoul(arg, &end, 10);
	long found = -1;

	if (*arg && !*end && n >= 1 && n <= v->nr)
		return (long)n - 1;
	for (size_t i = 0; i < v->nr; i++) {
		if (!strcmp(v->items[i].file, arg))
			return (long)i;
		if (starts_with(v->items[i].file, arg)) {
			if (found >= 0)
				return -2;
			found = (long)i;
		}
	}
	return found;
}

static char *rel(const char *root, const char *path)
{
	size_t n = strlen(root);
	if (!strncmp(path, root, n) && path[n] == '/')
		return xstrdup(path + n + 1);
	return xstrdup(path);
}

int resolve_cell_open(struct resolve_cell *c, const char *spec,
		      const char *target, unsigned flags, struct cli_ctx *cx,
		      struct err *err)
{
	char *name = NULL, *version = NULL;
	int error;

	memset(c, 0, sizeof(*c));
	c->lock = (struct lock)LOCK_INIT;
	c->co = (struct carry_opts){ .apply = APPLY_OPTS_INIT };
	c->target = target;
	c->cx = cx;
	series_version_init(&c->v, NULL, NULL);
	if ((error = series_parse_spec(spec, &name, &version, err)) < 0 ||
	    (error = cli_workspace(cx, &c->root, err)) < 0 ||
	    ((flags & RESOLVE_CELL_LOCK) &&
	     (error = workspace_lock(&c->lock, c->root, cx->opts, err)) < 0) ||
	    (error = series_load_version(&c->v, c->root, name, version,
					 err)) < 0)
		goto out;
	/* opening the target checks its name (hint: 'kcarry kernels');
	 * without it, the name alone is checked */
	if ((flags & RESOLVE_CELL_TARGET) &&
	    (error = resolve_cell_target(c, err)) < 0)
		goto out;
	if (!name_valid(NAME_TARGET, target)) {
		error = name_check(NAME_TARGET, target, err);
		goto out;
	}
	c->dir = resolve_dir(c->root, c->v.name, c->v.version, target);
out:
	free(name);
	free(version);
	return error;
}

int resolve_cell_target(struct resolve_cell *c, struct err *err)
{
	struct target_progress tp = { progress_target, (void *)c->cx->opts };

	return job_open(&c->j, c->root, c->target, &tp, err);
}

void resolve_cell_close(struct resolve_cell *c)
{
	if (!c->cx) /* never opened: { 0 } */
		return;
	carry_result_release(&c->res);
	job_close(&c->j);
	series_version_release(&c->v);
	free(c->dir);
	lock_release(&c->lock);
	memset(c, 0, sizeof(*c));
}

/* " 3 or 4 of 4" */
static void print_places(const char *what, uint32_t mask, size_t of)
{
	bool first = true;

	printf("%s", what);
	for (size_t k = 0; k < 32; k++) {
		if (!(mask & ((uint32_t)1 << k)))
			continue;
		printf("%s%zu", first ? " " : " or ", k + 1);
		first = false;
	}
	printf(" of %zu", of);
}

static void print_site(const struct audit_site *s)
{
	report_printf(stdout, "  %s:%zu %s%s: ", s->path, s->line,
		      s->func ? s->func : "(file scope)", s->func ? "()" : "");
}

/* A call over several lines on one: blanks folded. */
static void print_folded(const char *s)
{
	bool blank = false;
	char last = 0;

	for (; *s; s++) {
		if (isspace((unsigned char)*s)) {
			blank = true;
			continue;
		}
		if (blank && last != '(' && *s != ')')
			putchar(' ');
		blank = false;
		putchar(*s);
		last = *s;
	}
}

/* A conversion rule the series' converted callers show, as a line. */
static void print_rule(const struct audit_rule *ru,
		       const struct series_version *v)
{
	printf("%s@%s converts %s", v->name, v->version, ru->symbol);
	if (ru->new_name)
		printf(" into %s", ru->new_name);
	if (ru->drops)
		print_places(", dropping argument", ru->drops, ru->arity);
	if (ru->adds) {
		printf(", adding '%s' as argument", ru->add_text);
		print_places("", ru->adds, ru->arity + 1);
	}
	printf(" (learned from %zu converted call%s)\n", ru->examples,
	       ru->examples == 1 ? "" : "s");
}

/* The rules of sg, the calls they rewrite, those left, and the count. */
static void print_suggestions(const struct audit_suggestions *sg,
			      const struct series_version *v)
{
	for (size_t i = 0; i < sg->nr_rules; i++)
		print_rule(&sg->rules[i], v);
	for (size_t i = 0; i < sg->nr_fixes; i++) {
		const struct audit_fix *fx = &sg->fixes[i];

		print_site(&fx->site);
		print_folded(fx->old_call);
		printf(" -> ");
		print_folded(fx->new_call);
		printf("\n");
	}
	for (size_t i = 0; i < sg->nr_left; i++) {
		const struct audit_fix *fx = &sg->left[i];

		print_site(&fx->site);
		report_printf(stdout, "left as it is: %s\n", fx->why);
	}
	printf("%zu unconverted call%s rewritten, %zu left as %s\n",
	       sg->nr_fixes, sg->nr_fixes == 1 ? "" : "s", sg->nr_left,
	       sg->nr_left == 1 ? "it is" : "they are");
}

/* suggest/suggest.patch and suggest/conversion.cocci of sg in rc's
 * scratch folder, and a line that says where. */
static int write_suggestions(const struct resolve_cell *rc,
			     const struct audit_suggestions *sg,
			     struct err *err)
{
	char *sdir = fs_join(rc->dir, "suggest"), *path = NULL, *r;
	int error;

	if ((error = fs_mkdirs(sdir, err)) < 0)
		goto out;
	path = fs_join(sdir, "suggest.patch");
	if ((error = fs_write_atomic(path, sg->patch.ptr, sg->patch.len,
				     err)) < 0)
		goto out;
	free(path);
	path = fs_join(sdir, "conversion.cocci");
	if ((error = fs_write_atomic(path, sg->cocci.ptr, sg->cocci.len,
				     err)) < 0)
		goto out;
	r = rel(rc->root, sdir);
	printf("wrote %s/suggest.patch (against the series carried on "
	       "%s) and %s/conversion.cocci; nothing was committed\n",
	       r, rc->j.target.name, r);
	free(r);
out:
	free(path);
	free(sdir);
	return error;
}

/* The conversion of the callers the series never converts, as the
 * series' own converted callers show it: into suggest/, no branch. */
static int resolve_suggest(const char *spec, const char *target,
			   struct cli_ctx *cx)
{
	const struct options *opts = cx->opts;
	struct err err = ERR_INIT;
	struct resolve_cell rc = { 0 };
	struct audit_result a;
	struct audit_opts ao;
	struct audit_suggestions sg;
	const struct series_version *v = &rc.v;
	int rc_exit = EXIT_DONE;

	memset(&a, 0, sizeof(a));
	memset(&ao, 0, sizeof(ao));
	memset(&sg, 0, sizeof(sg));
	/* --suggest writes no branch: no lock (not CMD_LOCK) */
	if (resolve_cell_open(&rc, spec, target, RESOLVE_CELL_TARGET, cx,
			      &err) < 0 ||
	    audit_opts_load(&ao, rc.root, v->name, &err) < 0)
		goto fail;
	rc.co.no_ref = true;
	if (job_carry(&rc.res, &rc.j, v, &rc.co, false, &err) < 0 ||
	    audit_run(&a, rc.j.repo, v, &rc.res, &ao, &err) < 0 ||
	    audit_suggest(&sg, rc.j.repo, v, &rc.res, &a, &ao, &err) < 0)
		goto fail;
	print_suggestions(&sg, v);
	if (sg.nr_fixes && write_suggestions(&rc, &sg, &err) < 0)
		goto fail;
	if (sg.nr_left)
		rc_exit = EXIT_NOT_DONE;
	goto out;
fail:
	rc_exit = err_report(&err, opts);
out:
	audit_suggestions_release(&sg);
	audit_result_release(&a);
	audit_opts_release(&ao);
	resolve_cell_close(&rc);
	err_release(&err);
	return rc_exit;
}

/* Whether text (lines, each ending in LF) holds line as one of them. */
static bool has_line_of(const struct buf *text, const struct buf *line)
{
	for (const char *p = text->ptr; p < text->ptr + text->len;) {
		const char *nl = memchr(p, '\n',
					(size_t)(text->ptr + text->len - p));
		size_t n = (size_t)(nl - p);

		if (n == line->len && !memcmp(p, line->ptr, n))
			return true;
		p += n + 1;
	}
	return false;
}

/* "demo_reset()", "struct foo", "generation" */
static void add_name(struct buf *out, const struct cause_name *n)
{
	if (n->use == USE_FUNCTION)
		buf_addf(out, "%s()", n->name);
	else if (n->use == USE_TYPE && n->tag)
		buf_addf(out, "%s %s", n->tag, n->name);
	else
		buf_adds(out, n->name);
}

/* "0001 of this series", "gen@v1 0001", "upstream commit 0123456789ab"
 * (as the cause's text names it); with what, its subject or file. */
static void add_source(struct buf *out, const struct cause_source *s,
		       const struct series_version *v, bool what)
{
	const char *subject = NULL;

	switch (s->kind) {
	case SOURCE_SERIES:
		buf_addf(out, "%04zu of this series", s->patch);
		if (s->patch >= 1 && s->patch <= v->nr)
			subject = v->items[s->patch - 1].patch.subject;
		if (what && subject && *subject)
			buf_addf(out, " (\"%s\")", subject);
		break;
	case SOURCE_OTHER:
		buf_addf(out, "%s@%s %04zu", s->series, s->version, s->patch);
		if (what && s->file)
			buf_addf(out, " (%s)", s->file);
		break;
	case SOURCE_UPSTREAM:
		buf_addf(out, "upstream commit %.12s", s->commit);
		if (what && s->subject && *s->subject)
			buf_addf(out, " (\"%s\")", s->subject);
		break;
	case SOURCE_NONE:
		break;
	}
}

/* One prerequisite p of cause c, as a line (without LF) into line. */
static void prereq_line(struct buf *line, const struct cause_prereq *p,
			const struct cause *c, const struct series_version *v)
{
	bool sure = p->also->kind == SOURCE_NONE;

	buf_reset(line);
	if (sure) {
		buf_adds(line, "prerequisite, not applied: ");
		add_source(line, p->source, v, true);
		buf_adds(line, " adds ");
	} else {
		buf_adds(line, "prerequisite not known: ");
	}
	for (size_t j = 0; j < p->nr_names; j++) {
		const struct cause_name *n = NULL;

		/* p's names point into c's */
		for (size_t k = 0; k < c->nr_names && !n; k++)
			if (c->names[k].name == p->names[j])
				n = &c->names[k];
		if (j)
			buf_adds(line, ", ");
		if (n)
			add_name(line, n);
		else
			buf_adds(line, p->names[j]);
	}
	if (!sure) {
		buf_addf(line, " %s added by both ",
			 p->nr_names > 1 ? "are" : "is");
		add_source(line, p->source, v, false);
		buf_adds(line, " and ");
		add_source(line, p->also, v, false);
	}
}

/*
 * Adaptation rule 6 for the person resolving: the prerequisites the
 * causes of patch cp name (cause_prereqs), one line each with the names
 * it adds, the sure ones first as in the cause; a name two candidates
 * add is "not known".  Each line once, though several hunks need the
 * same patch.
 */
static void print_prereqs(const struct carry_patch *cp,
			  const struct series_version *v)
{
	struct buf line = BUF_INIT, seen = BUF_INIT;

	for (size_t f = 0; f < cp->nr_files; f++)
		for (size_t h = 0; h < cp->files[f].nr_hunks; h++) {
			const struct cause *c = cp->files[f].hunks[h].cause;
			struct cause_prereq *p;
			size_t nr;

			if (!c)
				continue;
			cause_prereqs(&p, &nr, c);
			for (int pass = 0; pass < 2; pass++)
				for (size_t i = 0; i < nr; i++) {
					bool sure =
						p[i].also->kind == SOURCE_NONE;

					if (sure != (pass == 0))
						continue;
					prereq_line(&line, &p[i], c, v);
					if (has_line_of(&seen, &line))
						continue;
					buf_addf(&seen, "%s\n", line.ptr);
					/* names and subjects are the
					 * patches': escaped */
					report_printf(stdout, "%s", line.ptr);
					putchar('\n');
				}
			cause_prereqs_free(p, nr);
		}
	buf_release(&line);
	buf_release(&seen);
}

struct resolve_cli {
	bool suggest, abort, force;
};

const struct opt resolve_options[] = {
	{ OPT_FLAG, 0, "suggest", NULL,
	  "carry the whole series (no branch moved), learn how\n"
	  "it converts the callers of the API it changes (a\n"
	  "callee renamed, an argument dropped or added) and\n"
	  "write that conversion of the callers it never\n"
	  "converts to .kcarry/resolve/NAME/VERSION/TARGET/\n"
	  "suggest/: suggest.patch (against the carried result)\n"
	  "and conversion.cocci (for spatch).  Nothing is\n"
	  "committed.  Exit 1 when some unconverted call has no\n"
	  "suggestion.",
	  offsetof(struct resolve_cli, suggest) },
	{ OPT_FLAG, 0, "abort", NULL,
	  "NAME[@VERSION] TARGET: discard the pending\n"
	  "resolution (its scratch folder and your edits)",
	  offsetof(struct resolve_cli, abort) },
	{ OPT_FLAG, 0, "force", NULL,
	  "discard a pending resolution (and your edits) and\n"
	  "start the patch named",
	  offsetof(struct resolve_cli, force) },
	{ OPT_END },
};

/*
 * A pending resolution is the person's work: starting another patch (or
 * the same one) would replace its files, so only --force does.
 */
static int refuse_pending(const char *root, const char *dir,
			  const struct series_version *v, const char *target,
			  const char *patch, struct err *err)
{
	struct resolve_state st;
	struct buf files = BUF_INIT;
	char **paths;
	size_t n;
	char *r;
	int error = resolve_load(&st, dir, err);

	if (error == ERR_NOTFOUND)
		return 0;
	if (error < 0)
		return error;
	resolve_pending_files(&paths, &n, dir);
	for (size_t i = 0; i < n; i++)
		buf_addf(&files, "%s%s", i ? ", " : "", paths[i]);
	r = rel(root, dir);
	error = err_set(err, ERR_CONFLICT,
			"a resolution of %s is pending in %s: %s",
			st.patch_file, r, n ? files.ptr : "(no files)");
	err_hint(err,
		 "'kcarry refresh %s@%s %s' records it; 'kcarry resolve "
		 "--abort %s@%s %s' discards it; 'kcarry resolve --force "
		 "%s@%s %s %s' discards it and starts %s",
		 v->name, v->version, target, v->name, v->version, target,
		 v->name, v->version, target, patch, patch);
	free(r);
	fs_free_list(paths, n);
	buf_release(&files);
	resolve_state_release(&st);
	return error;
}

/* --abort: remove the pending resolution of NAME@VERSION on target. */
static int abort_pending(const char *dir, const struct series_version *v,
			 const char *target, struct err *err)
{
	struct resolve_state st;
	int error = resolve_load(&st, dir, err);

	if (error == ERR_NOTFOUND)
		return err_set(err, ERR_CONFLICT,
			       "no resolution of %s@%s on %s is pending",
			       v->name, v->version, target);
	if (error < 0 || (error = resolve_discard(dir, err)) < 0) {
		resolve_state_release(&st);
		return error;
	}
	printf("discarded the resolution of %s on %s\n", st.patch_file,
	       target);
	resolve_state_release(&st);
	return 0;
}

/* EXIT_DONE when the operands fit the options, else the usage error. */
static int check_operands(const struct resolve_cli *cli, size_t nr,
			  const struct options *opts)
{
	if (cli->suggest && nr != 2)
		return usage_error("resolve", opts,
				   "expected --suggest NAME[@VERSION] TARGET");
	if (cli->suggest)
		return EXIT_DONE;
	if (cli->abort && (nr != 2 || cli->force))
		return usage_error("resolve", opts,
				   "expected --abort NAME[@VERSION] TARGET");
	if (!cli->abort && nr != 3)
		return usage_error("resolve", opts,
				   "expected NAME[@VERSION] TARGET PATCH");
	return EXIT_DONE;
}

/* The 0-based index of the patch of v that arg names (find_patch). */
static int named_patch(long *k, const struct series_version *v,
		       const char *arg, struct err *err)
{
	*k = find_patch(v, arg);
	if (*k >= 0)
		return 0;
	err_set(err, ERR_NOTFOUND, "%s@%s has %s patch '%s'", v->name,
		v->version, *k == -2 ? "more than one" : "no", arg);
	err_hint(err, "name it by number (1-%zu) or file name", v->nr);
	return ERR_NOTFOUND;
}

/* Patch k of the cell, carried after the patches before it, written to
 * the scratch folder for a person (resolve_prepare); sum: its outcome. */
static int prepare_patch(struct resolve_summary *sum, struct resolve_cell *rc,
			 long k, struct err *err)
{
	const struct series_version *v = &rc->v;
	struct tree_oid before;
	int error;

	/* the patch itself is carried too, for the causes of its hunks
	 * (their prerequisites); the person meets the tree before it */
	rc->co.until = (size_t)k + 2;
	rc->co.no_ref = true;
	if ((error = job_carry(&rc->res, &rc->j, v, &rc->co, false, err)) < 0)
		return error;
	before = rc->res.base;
	for (long i = 0; i < k; i++)
		if (rc->res.patches[i].committed)
			before = rc->res.patches[i].commit;
	{
		/* where a build refused adaptations of its hunks */
		struct resolve_where cell = { rc->root, v->name, v->version,
					     rc->j.target.name, NULL, NULL };
		struct resolve_patch rp = {
			rc->dir, &v->items[k], (size_t)k + 1, &before,
			(size_t)k < rc->res.nr ? &rc->res.patches[k] : NULL
		};

		error = resolve_prepare(sum, &rp, rc->j.repo, &rc->co.apply,
					&cell, err);
	}
	return error < 0 ? error : 0;
}

/* Patch k needs no person: say so, and remove its scratch folder. */
static void print_nothing(const struct resolve_cell *rc,
			  const struct resolve_summary *sum, long k)
{
	const struct series_version *v = &rc->v;
	struct err e2 = ERR_INIT;

	printf("%s applies to %s after the patches before it (%s): "
	       "nothing to resolve\n",
	       v->items[k].file, rc->j.target.name,
	       apply_outcome_name(sum->outcome));
	print_prereqs(&rc->res.patches[k], v);
	resolve_discard(rc->dir, &e2);
	err_release(&e2);
}

/* What patch k needs of the person, the files to edit, and what next. */
static void print_pending(const struct resolve_cell *rc,
			  const struct resolve_summary *sum, long k)
{
	const struct series_version *v = &rc->v;
	const char *subject = v->items[k].patch.subject;

	if (sum->outcome == OUTCOME_ADAPTED)
		printf("%s (%s) is adapted on %s: %zu hunk%s rewritten by "
		       "kcarry.\n",
		       v->items[k].file, subject ? subject : "",
		       rc->j.target.name, sum->nr_adapted,
		       sum->nr_adapted == 1 ? "" : "s");
	else
		printf("%s (%s) conflicts on %s.\n", v->items[k].file,
		       subject ? subject : "", rc->j.target.name);
	print_prereqs(&rc->res.patches[k], v);
	if (sum->outcome == OUTCOME_ADAPTED)
		printf("Each is shown in diff3 style: the target's lines, the "
		       "original hunk's,\nthen the proposal after =======; "
		       "keep the proposal to accept it, or edit\n(the original "
		       "and adapted hunks are in PATH.adapted):\n");
	else
		printf("Edit these files (diff3 markers; rejected hunks in "
		       ".rej):\n");
	for (size_t i = 0; i < sum->nr_paths; i++) {
		char *r = rel(rc->root, sum->paths[i]);
		report_printf(stdout, "  %s\n", r);
		free(r);
	}
	printf("then run: kcarry refresh %s@%s %s\n", v->name, v->version,
	       rc->j.target.name);
}

int cmd_resolve(int argc, char **argv, struct cli_ctx *cx)
{
	const struct options *opts = cx->opts;
	struct err err = ERR_INIT;
	struct resolve_cell rc = { 0 };
	struct resolve_summary sum = { 0 };
	struct resolve_cli cli = { 0 };
	const struct series_version *v = &rc.v;
	const char **args = NULL;
	size_t nr = 0;
	long k;
	int rc_exit = EXIT_DONE;

	if (cli_parse("resolve", resolve_options, &cli, argc, argv, &args, &nr,
		      opts) < 0) {
		rc_exit = EXIT_USAGE;
		goto out;
	}
	if ((rc_exit = check_operands(&cli, nr, opts)) != EXIT_DONE)
		goto out;
	if (cli.suggest) {
		rc_exit = resolve_suggest(args[0], args[1], cx);
		goto out;
	}
	if (resolve_cell_open(&rc, args[0], args[1], RESOLVE_CELL_LOCK, cx,
			      &err) < 0)
		goto fail;
	if (cli.abort) {
		if (abort_pending(rc.dir, v, args[1], &err) < 0)
			goto fail;
		goto out;
	}
	if (!cli.force &&
	    refuse_pending(rc.root, rc.dir, v, args[1], args[2], &err) < 0)
		goto fail;
	if (named_patch(&k, v, args[2], &err) < 0 ||
	    resolve_cell_target(&rc, &err) < 0 ||
	    prepare_patch(&sum, &rc, k, &err) < 0)
		goto fail;
	if (sum.outcome <= OUTCOME_3WAY || sum.outcome == OUTCOME_ALREADY)
		print_nothing(&rc, &sum, k);
	else
		print_pending(&rc, &sum, k);
	goto out;
fail:
	rc_exit = err_report(&err, opts);
out:
	resolve_summary_release(&sum);
	resolve_cell_close(&rc);
	free(args);
	err_release(&err);
	return rc_exit;
}
