/*
 * cmd_export: write the backport of a series on one target in the form a
 * packaging ecosystem consumes (debian, rpm, suse, quilt, mbox, git).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmds.h"
#include "export.h"
#include "fs.h"
#include "job.h"
#include "mail.h"
#include "report.h"

/* kcarry export --help: usage, text, text after the options */
const char export_usage[] =
	"kcarry export [options] NAME[@VERSION] TARGET --format FORMAT [-o DIR]";
const char export_help[] =
	"Write the backport of the series on TARGET (the commits of\n"
	"kcarry/NAME/VERSION/TARGET, carried as 'apply' carries it, recorded\n"
	"resolutions replayed) in the form an ecosystem's tools consume, with\n"
	"the same metadata per patch: author and date, the upstream commit\n"
	"('commit X upstream.', '[ Upstream commit X ]', '(cherry picked from\n"
	"commit X)', a stable FAILED report, an 'import --git' commit), the\n"
	"lore link of its Message-ID, Bug/Closes/Link trailers, the\n"
	"backporter (--signoff, else git's user), and what the backport\n"
	"adjusted (offset, fuzz, 3-way, resolved by hand).\n"
	"\n"
	"formats:\n"
	"  debian  debian/patches/SUBDIR/SLUG.patch with DEP-3 headers, and\n"
	"          their lines in debian/patches/series\n"
	"  rpm     the patch files, NAME-patches.inc (PatchN: lines) and\n"
	"          NAME-prep.inc (%patch -P N -p1 -F0 lines), or --into SPEC\n"
	"  suse    patches.suse/SLUG.patch with Patch-mainline, Git-commit,\n"
	"          References, and their lines in series.conf\n"
	"  quilt   the refreshed patches and their lines in 'series'\n"
	"  mbox    NNNN-SLUG.patch messages [PATCH 6.1.y n/m] for git\n"
	"          send-email, the upstream line first, a cover letter for\n"
	"          more than one patch\n"
	"  git     branch kcarry-export/NAME/VERSION/TARGET whose commits\n"
	"          carry '(cherry picked from commit X)' and the note\n"
	"\n"
	"Lines kcarry adds to a file it shares with you (series, series.conf,\n"
	"a spec) sit in a block '# kcarry export begin: NAME' .. 'end: NAME'\n"
	"that the next export replaces; nothing else in the file changes, and\n"
	"a file kcarry did not write is never overwritten.\n";
const char export_more[] =
	"exit status: 0 written; 1 the series did not carry completely or has\n"
	"placement risks (nothing written); 2 bad arguments, or a file in the\n"
	"way that kcarry did not write; 3 repository or I/O trouble.\n";

struct export_cli {
	char *name, *version;
	const char **args; /* NAME[@VERSION] TARGET */
	const char *target;
	bool format_set, allow_partial, allow_risk, accept_adapted, start_set;
	const char *signoff_ident; /* --signoff=NAME <EMAIL> */
	int upstream_line;         /* index in upstream_lines, or -1 */
	const char *mainline;
	struct opt_list to, cc, bugs;
	struct export_opts eo;
	struct carry_opts co;
};

static int take_format(const char *value, void *target, struct err *err)
{
	return export_format_parse(target, value, err);
}

/* in the order of enum export_upstream_style */
static const char *const upstream_lines[] = { "commit", "bracket", NULL };

const struct opt export_options[] = {
	{ OPT_FUNC, 'f', "format", "F", "debian, rpm, suse, quilt, mbox or git",
	  offsetof(struct export_cli, eo.format), .parse = take_format,
	  .also = { OPT_ALSO(struct export_cli, format_set) } },
	{ OPT_STRING, 'o', "output", "DIR",
	  "where to write (default: the current directory)",
	  offsetof(struct export_cli, eo.out) },
	{ OPT_STRING, 0, "into", "PATH",
	  "an unpacked 3.0 (quilt) Debian source package, a\n"
	  "spec file (rpm), a kernel-source checkout (suse)",
	  offsetof(struct export_cli, eo.into) },
	{ OPT_STRING, 0, "subdir", "DIR",
	  "debian: under debian/patches (default kcarry/NAME)",
	  offsetof(struct export_cli, eo.subdir) },
	{ OPT_UINT, 0, "start", "N", "rpm: first PatchN number (default 1000)",
	  offsetof(struct export_cli, eo.start), 0, 999999,
	  .also = { OPT_ALSO(struct export_cli, start_set) } },
	{ OPT_FLAG, 0, "autopatch", NULL,
	  "rpm: %autopatch -m/-M instead of %patch lines",
	  offsetof(struct export_cli, eo.autopatch) },
	{ OPT_LIST, 0, "to", "ADDR", "mbox: a recipient (repeatable)",
	  offsetof(struct export_cli, to) },
	{ OPT_LIST, 0, "cc", "ADDR", "mbox: a recipient on Cc (repeatable)",
	  offsetof(struct export_cli, cc) },
	{ OPT_STRING, 0, "subject-prefix", "TAG",
	  "mbox: the subject's tag (default 'PATCH 6.1.y'\n"
	  "for a 6.1 target; 'PATCH AUTOSEL 6.1' ...)",
	  offsetof(struct export_cli, eo.text.subject_prefix) },
	{ OPT_STRING, 0, "in-reply-to", "MSGID",
	  "mbox: the first message answers MSGID (default:\n"
	  "the stable FAILED report the patch came from;\n"
	  "'' for none)",
	  offsetof(struct export_cli, eo.text.in_reply_to) },
	{ OPT_CHOICE, 0, "upstream-line", "commit|bracket",
	  "mbox: 'commit X upstream.' (default) or\n"
	  "'[ Upstream commit X ]'",
	  offsetof(struct export_cli, upstream_line), 0, 0, upstream_lines },
	{ OPT_STRING, 's', "signoff", "WHO",
	  "add the backporter's Signed-off-by (SUSE: Acked-by):\n"
	  "WHO (\"Name <email>\"), else git's user",
	  offsetof(struct export_cli, signoff_ident), .optional = true,
	  .also = { OPT_ALSO(struct export_cli, eo.text.signoff) } },
	{ OPT_LIST, 0, "bug", "BUG",
	  "a bug for every patch (repeatable): a URL,\n"
	  "debian#N, bsc#N, lp#N, CVE-...",
	  offsetof(struct export_cli, bugs) },
	{ OPT_STRING, 0, "mainline", "VER",
	  "the release holding the upstream commits, when the\n"
	  "target's tags do not tell (SUSE needs it)",
	  offsetof(struct export_cli, mainline) },
	{ OPT_STRING, 0, "branch", "NAME", "git: the branch to write",
	  offsetof(struct export_cli, eo.branch) },
	{ OPT_STRING, 0, "git-dir", "REPO",
	  "git: write into another repository (with --onto)",
	  offsetof(struct export_cli, eo.git_dir) },
	{ OPT_STRING, 0, "onto", "REV", "git: on the commit REV of --git-dir",
	  offsetof(struct export_cli, eo.onto) },
	{ OPT_FLAG, 0, "allow-partial", NULL,
	  "export what applied when patches conflict; the\n"
	  "package names what is missing",
	  offsetof(struct export_cli, allow_partial) },
	{ OPT_FLAG, 0, "allow-risk", NULL,
	  "export patches with placement risks",
	  offsetof(struct export_cli, allow_risk) },
	{ OPT_FLAG, 0, "accept-adapted", NULL,
	  "export adapted hunks (a person read them)",
	  offsetof(struct export_cli, accept_adapted) },
	OPT_CARRY(struct export_cli, co),
	{ OPT_END },
};

/* What the arguments that are not options name: c->args[0..nr) */
static int take_args(struct export_cli *c, size_t nr, struct err *err)
{
	const char *spec = nr ? c->args[0] : NULL;

	c->target = nr > 1 ? c->args[1] : NULL;
	if (nr > 2)
		return err_set(err, ERR_USAGE, "one target at a time ('%s')",
			       c->args[2]);
	if (c->upstream_line >= 0)
		c->eo.text.upstream_style =
			(enum export_upstream_style)c->upstream_line;
	if (!spec || !c->target)
		return err_set(err, ERR_USAGE,
			       "expected NAME[@VERSION] TARGET");
	if (!c->format_set)
		return err_set(err, ERR_USAGE,
			       "say which --format: debian, rpm, suse, quilt, "
			       "mbox or git");
	{
		enum export_format f = c->eo.format;
		const char *bad = NULL;

		if (c->eo.into && f != EXPORT_DEBIAN && f != EXPORT_RPM &&
		    f != EXPORT_SUSE)
			bad = "--into";
		else if (c->eo.subdir && f != EXPORT_DEBIAN)
			bad = "--subdir";
		else if ((c->start_set || c->eo.autopatch) && f != EXPORT_RPM)
			bad = c->eo.autopatch ? "--autopatch" : "--start";
		else if ((c->to.nr || c->cc.nr || c->eo.text.in_reply_to ||
			  c->eo.text.subject_prefix) &&
			 f != EXPORT_MBOX)
			bad = c->to.nr		       ? "--to"
			      : c->cc.nr	       ? "--cc"
			      : c->eo.text.in_reply_to ? "--in-reply-to"
						       : "--subject-prefix";
		else if ((c->eo.branch || c->eo.git_dir || c->eo.onto) &&
			 f != EXPORT_GIT)
			bad = c->eo.branch    ? "--branch"
			      : c->eo.git_dir ? "--git-dir"
					      : "--onto";
		else if (c->eo.out && f == EXPORT_GIT)
			bad = "-o";
		if (bad)
			return err_set(err, ERR_USAGE,
				       "%s does not go with --format %s", bad,
				       export_format_name(f));
		if (c->eo.onto && !c->eo.git_dir)
			return err_set(err, ERR_USAGE,
				       "--onto goes with --git-dir");
		if (c->eo.into && c->eo.out && f != EXPORT_RPM)
			return err_set(err, ERR_USAGE,
				       "-o and --into name the same place for "
				       "--format %s: give one",
				       export_format_name(f));
	}
	c->eo.text.to = c->to.items;
	c->eo.text.nr_to = c->to.nr;
	c->eo.text.cc = c->cc.items;
	c->eo.text.nr_cc = c->cc.nr;
	if (export_check_opts(&c->eo, err) < 0)
		return -1;
	return series_parse_spec(spec, &c->name, &c->version, err);
}

static int parse_args(struct export_cli *c, int argc, char **argv,
		      const struct options *opts, struct err *err)
{
	size_t nr;

	c->co.apply.fuzz = APPLY_DEFAULT_FUZZ;
	c->eo.start = 1000;
	c->upstream_line = -1;
	if (cli_parse("export", export_options, c, argc, argv, &c->args, &nr,
		      opts) < 0)
		return -1;
	if (take_args(c, nr, err) < 0) {
		usage_error("export", opts, "%s", err->msg.ptr);
		return -1;
	}
	return 0;
}

/*
 * The commit the series is carried from: the target's base, or the head
 * of the series it stacks on (carried completely there first), at the
 * version series_stacks_on_resolve says, as check carries it.
 */
static int stack_base(struct tree_oid *base, struct job *j,
		      const struct series_stack *st,
		      const struct carry_opts *co, unsigned depth,
		      struct err *err)
{
	struct series_version ov;
	struct series_stack next = { 0 };
	struct carry_result r;
	struct tree_oid from = j->base;
	int error;

	if (depth > 8)
		return err_set(err, ERR_PARSE,
			       "series stack on each other in a loop");
	series_version_init(&ov, NULL, NULL);
	memset(&r, 0, sizeof(r));
	if ((error = series_load_version(&ov, j->root, st->base, st->version,
					 err)) < 0) {
		err_prefix(err, "the series it stacks on");
		goto out;
	}
	if ((error = series_stacks_on_resolve(&next, j->root, ov.name,
					      ov.version, err)) < 0 ||
	    (next.base &&
	     (error = stack_base(&from, j, &next, co, depth + 1, err)) < 0))
		goto out;
	{
		struct carry_opts o = *co;
		o.no_ref = true;
		if ((error = job_carry_from(&r, j, &from, &ov, &o, false,
					    err)) < 0)
			goto out;
	}
	if (r.nr_failed) {
		error = err_set(err, ERR_CONFLICT,
				"'%s@%s' it stacks on did not carry completely "
				"onto %s",
				st->base, ov.version, j->target.name);
		goto out;
	}
	*base = r.head;
out:
	series_stack_release(&next);
	carry_result_release(&r);
	series_version_release(&ov);
	return error;
}

/*
 * Carry the series as apply does, or as check does when it stacks on
 * another; the branch must hold that result's tree (a branch from other
 * options or inputs would not be what is exported).
 */
static int carry(struct carry_result *res, struct job *j,
		 const struct series_version *v, const struct series_stack *st,
		 const struct export_cli *cli, const struct options *opts,
		 struct err *err)
{
	struct carry_opts co = cli->co;
	struct tree_oid base = j->base, head, tree;
	struct progress_ctx pc = { opts, j->target.name, "carrying patch" };
	int error;

	co.progress = progress_patch;
	co.ctx = &pc;

	if (st->base &&
	    (error = stack_base(&base, j, st, &co, 0, err)) < 0)
		return error;
	co.no_ref = true;
	if ((error = job_carry_from(res, j, &base, v, &co, false, err)) < 0)
		return error;
	error = tree_get_ref(&head, j->repo, res->branch, err);
	if (error == ERR_NOTFOUND) {
		err_release(err);
		err_init(err);
		note(opts, "%s: created %s", j->target.name,
		     res->branch + strlen("refs/heads/"));
		return tree_set_ref(j->repo, res->branch, &res->head,
				    "kcarry export", err);
	}
	if (error < 0)
		return error;
	/* the trees, not the ids: a patch without a date is committed at
	 * the time it is carried, so its commit id changes every time */
	if ((error = tree_commit_tree(&head, j->repo, &head, err)) < 0 ||
	    (error = tree_commit_tree(&tree, j->repo, &res->head, err)) < 0)
		return error;
	if (memcmp(head.id, tree.id, sizeof(head.id))) {
		error = err_set(err, ERR_CONFLICT,
				"%s does not hold %s@%s as it carries onto %s "
				"now",
				res->branch + strlen("refs/heads/"), v->name,
				v->version, j->target.name);
		/* apply ignores stacks-on: only check carries a stacked
		 * series as export does */
		err_hint(err,
			 "run 'kcarry %s %s@%s %s' with the --fuzz, "
			 "--no-3way and --strict you give export, then "
			 "export again",
			 st->base ? "check" : "apply", v->name, v->version,
			 j->target.name);
	}
	return error;
}

/* The backporter: --signoff=IDENT, $GIT_COMMITTER_*, git's user.*. */
static int backporter(char **name, char **email, const struct export_cli *cli,
		      struct tree_repo *repo, struct err *err)
{
	const char *en = getenv("GIT_COMMITTER_NAME");
	const char *ee = getenv("GIT_COMMITTER_EMAIL");
	char *cn = NULL, *ce = NULL;
	int error;

	*name = *email = NULL;
	if (cli->signoff_ident) {
		mail_parse_address(cli->signoff_ident, name, email);
		if (!*email)
			return err_set(err, ERR_USAGE,
				       "--signoff='%s' has no address; write "
				       "'Name <email>'",
				       cli->signoff_ident);
		return 0;
	}
	if ((error = tree_user(&cn, &ce, repo, err)) < 0)
		return error;
	*name = en && *en ? xstrdup(en) : cn ? xstrdup(cn) : NULL;
	*email = ee && *ee ? xstrdup(ee) : ce ? xstrdup(ce) : NULL;
	free(cn);
	free(ce);
	if (cli->eo.text.signoff && !*email)
		return err_set(err, ERR_USAGE,
			       "--signoff: who signs? set git's user.name "
			       "and user.email, or give --signoff='Name "
			       "<email>'");
	return 0;
}

static long long export_time(void)
{
	const char *e = getenv("SOURCE_DATE_EPOCH");
	char *end;
	long long t;

	if (e && *e) {
		t = strtoll(e, &end, 10);
		if (!*end && t >= 0)
			return t;
	}
	return (long long)time(NULL);
}

static void print_result(const struct export_series *s,
			 const struct export_written *w,
			 const struct export_cli *cli)
{
	size_t left = s->nr - s->nr_included;

	printf("exported %s@%s on %s as %s: %zu patch%s", s->name, s->version,
	       s->target, export_format_name(cli->eo.format), s->nr_included,
	       s->nr_included == 1 ? "" : "es");
	if (left)
		printf(", %zu left out", left);
	printf(" (%s)\n", w->where ? w->where : ".");
	for (size_t i = 0; i < w->nr; i++)
		printf("  %s\n", w->lines[i]);
	if (left) {
		printf("left out:\n");
		for (size_t i = 0; i < s->nr; i++)
			if (!s->patches[i].included)
				report_printf(stdout, "  %s: %s\n",
					      s->patches[i].file,
					      s->patches[i].why);
	}
}

/* what the person allowed to go out: export_check_complete's flags */
static unsigned export_allowed(const struct export_cli *cli)
{
	return (cli->allow_partial ? EXPORT_ALLOW_PARTIAL : 0) |
	       (cli->allow_risk ? EXPORT_ALLOW_RISK : 0) |
	       (cli->accept_adapted ? EXPORT_ACCEPT_ADAPTED : 0);
}

int cmd_export(int argc, char **argv, struct cli_ctx *cx)
{
	const struct options *opts = cx->opts;
	struct export_cli cli = { 0 };
	struct err err = ERR_INIT;
	struct series_version v;
	struct carry_result res;
	struct export_series s;
	struct export_written w;
	struct series_records pv = { 0 };
	const struct series_record *rec = NULL;
	struct job j;
	const char *root = NULL;
	char *bname = NULL, *bemail = NULL;
	struct series_stack st = { 0 };
	bool opened = false;
	int rc = EXIT_DONE;

	series_version_init(&v, NULL, NULL);
	memset(&res, 0, sizeof(res));
	memset(&s, 0, sizeof(s));
	memset(&w, 0, sizeof(w));
	memset(&j, 0, sizeof(j));
	if (parse_args(&cli, argc, argv, opts, &err) < 0) {
		rc = EXIT_USAGE;
		goto out;
	}
	/* a writer in every format: the carry may create the branch */
	if (cli_workspace(cx, &root, &err) < 0 ||
	    series_load_version(&v, root, cli.name, cli.version, &err) < 0 ||
	    series_stacks_on_resolve(&st, root, v.name, v.version, &err) < 0)
		goto fail;
	if (st.newest)
		note(opts,
		     "note: '%s' has no version %s: %s@%s is carried on %s@%s, "
		     "its newest",
		     st.base, v.version, v.name, v.version, st.base,
		     st.version);
	if (series_provenance_load(&pv, root, v.name, &err) < 0)
		goto fail;
	rec = series_records_find(&pv, v.version);
	{
		struct target_progress tp = { progress_target, (void *)opts };
		opened = true;
		if (job_open(&j, root, cli.target, &tp, &err) < 0)
			goto fail;
	}
	if (carry(&res, &j, &v, &st, &cli, opts, &err) < 0 ||
	    backporter(&bname, &bemail, &cli, j.repo, &err) < 0)
		goto fail;
	{
		struct export_model_opts mo = { 0 };

		if (rec) {
			mo.kind = rec->kind;
			mo.cover_msgids = rec->msgids;
			mo.nr_cover_msgids = rec->nr_msgids;
			mo.cover_title = rec->cover;
		}
		mo.backporter_name = bname;
		mo.backporter_email = bemail;
		mo.now = export_time();
		mo.bugs = cli.bugs.items;
		mo.nr_bugs = cli.bugs.nr;
		mo.mainline = cli.mainline;
		if (export_model(&s, j.repo, &res, &mo, &err) < 0)
			goto fail;
	}
	if (export_check_complete(&s, export_allowed(&cli), &err) < 0)
		goto fail;
	if (!s.nr_included) {
		err_set(&err, ERR_CONFLICT,
			"%s@%s leaves nothing to export "
			"on %s",
			s.name, s.version, s.target);
		goto fail;
	}
	if (export_write(&w, &s, j.repo, &cli.eo, &err) < 0)
		goto fail;
	print_result(&s, &w, &cli);
	for (size_t i = 0; i < w.nr_notes; i++)
		note(opts, "note: %s", w.notes[i]);
	if (cli.eo.format == EXPORT_MBOX) {
		size_t n = 0;
		for (size_t i = 0; i < s.nr; i++)
			n += s.patches[i].included && !s.patches[i].upstream[0];
		if (n)
			note(opts,
			     "note: %zu of %zu patches name no upstream "
			     "commit; stable takes a backport with its "
			     "'commit X upstream.' line",
			     n, s.nr_included);
	}
	goto out;
fail:
	rc = err_report(&err, opts);
out:
	export_written_release(&w);
	export_series_release(&s);
	carry_result_release(&res);
	if (opened)
		job_close(&j);
	series_records_release(&pv);
	series_stack_release(&st);
	series_version_release(&v);
	free(cli.args);
	opt_list_release(&cli.to);
	opt_list_release(&cli.cc);
	opt_list_release(&cli.bugs);
	free(cli.name);
	free(cli.version);
	free(bname);
	free(bemail);
	err_release(&err);
	return rc;
}
