/*
 * Tests for audit: a throw-away target repository (fs/btrfs cut down to
 * async-thread.[ch] and a few callers) and a series written upstream that
 * drops btrfs_init_work's ordered_free argument, converts some callers
 * and converts others in a file and a function the target lacks.
 */
#include "unit.h"

#include <stdio.h>

#include "audit.h"
#include "carry.h"
#include "series.h"
#include "tree.h"

/* ---- the trees ---- */

static const char old_h[] =
	"#ifndef BTRFS_ASYNC_THREAD_H\n"
	"#define BTRFS_ASYNC_THREAD_H\n"
	"\n"
	"struct btrfs_work;\n"
	"struct btrfs_workqueue;\n"
	"typedef void (*btrfs_func_t)(struct btrfs_work *arg);\n"
	"\n"
	"struct btrfs_work {\n"
	"\tbtrfs_func_t func;\n"
	"\tbtrfs_func_t ordered_func;\n"
	"\tbtrfs_func_t ordered_free;\n"
	"};\n"
	"\n"
	"void btrfs_init_work(struct btrfs_work *work, btrfs_func_t func,\n"
	"\t\t     btrfs_func_t ordered_func, btrfs_func_t ordered_free);\n"
	"void btrfs_queue_work(struct btrfs_workqueue *wq, struct btrfs_work "
	"*work);\n"
	"\n"
	"#endif\n";

static const char new_h[] =
	"#ifndef BTRFS_ASYNC_THREAD_H\n"
	"#define BTRFS_ASYNC_THREAD_H\n"
	"\n"
	"struct btrfs_work;\n"
	"struct btrfs_workqueue;\n"
	"typedef void (*btrfs_func_t)(struct btrfs_work *arg);\n"
	"\n"
	"struct btrfs_work {\n"
	"\tbtrfs_func_t func;\n"
	"\tbtrfs_func_t ordered_func;\n"
	"};\n"
	"\n"
	"void btrfs_init_work(struct btrfs_work *work, btrfs_func_t func,\n"
	"\t\t     btrfs_func_t ordered_func);\n"
	"void btrfs_queue_work(struct btrfs_workqueue *wq, struct btrfs_work "
	"*work);\n"
	"\n"
	"#endif\n";

static const char old_c[] =
	"#include \"async-thread.h\"\n"
	"\n"
	"void btrfs_init_work(struct btrfs_work *work, btrfs_func_t func,\n"
	"\t\t     btrfs_func_t ordered_func, btrfs_func_t ordered_free)\n"
	"{\n"
	"\twork->func = func;\n"
	"\twork->ordered_func = ordered_func;\n"
	"\twork->ordered_free = ordered_free;\n"
	"}\n"
	"\n"
	"void btrfs_queue_work(struct btrfs_workqueue *wq, struct btrfs_work "
	"*work)\n"
	"{\n"
	"\tqueue(wq, work);\n"
	"}\n";

static const char new_c[] =
	"#include \"async-thread.h\"\n"
	"\n"
	"void btrfs_init_work(struct btrfs_work *work, btrfs_func_t func,\n"
	"\t\t     btrfs_func_t ordered_func)\n"
	"{\n"
	"\twork->func = func;\n"
	"\twork->ordered_func = ordered_func;\n"
	"}\n"
	"\n"
	"void btrfs_queue_work(struct btrfs_workqueue *wq, struct btrfs_work "
	"*work)\n"
	"{\n"
	"\tqueue(wq, work);\n"
	"}\n";

/* converted by the series (one line) */
static const char inode_c[] =
	"#include \"async-thread.h\"\n"
	"\n"
	"static void fixup_worker(struct btrfs_work *work)\n"
	"{\n"
	"\tdo_fixup(work);\n"
	"}\n"
	"\n"
	"static int start_fixup(struct fixup *fixup)\n"
	"{\n"
	"\tbtrfs_init_work(&fixup->work, fixup_worker, NULL, NULL);\n" /* 10 */
	"\tbtrfs_queue_work(fixup->wq, &fixup->work);\n"
	"\treturn 0;\n"
	"}\n";

/* converted by the series on the second line of the call only */
static const char ordered_c[] =
	"#include \"async-thread.h\"\n"
	"\n"
	"static void flush_fn(struct btrfs_work *work)\n"
	"{\n"
	"}\n"
	"\n"
	"void flush_ordered(struct ordered *ordered)\n"
	"{\n"
	"\tbtrfs_init_work(&ordered->flush_work,\n" /* 9 */
	"\t\t\tflush_fn, NULL, NULL);\n"
	"\tbtrfs_queue_work(ordered->wq, &ordered->flush_work);\n"
	"}\n";

/* left alone by the series: a call over two lines */
static const char disk_io_c[] =
	"#include \"async-thread.h\"\n"
	"\n"
	"static void run_one_async_start(struct btrfs_work *work)\n"
	"{\n"
	"}\n"
	"\n"
	"static int submit(struct async_submit *async)\n"
	"{\n"
	"\t/* old style */\n"
	"\tbtrfs_init_work(&async->work, run_one_async_start, NULL,\n" /* 10 */
	"\t\t\tNULL);\n"
	"\tbtrfs_queue_work(async->wq, &async->work);\n"
	"\treturn 0;\n"
	"}\n";

/* upstream only: a function the target's disk-io.c does not have */
static const char disk_io_extra[] =
	"\n"
	"static int submit_other(struct async_submit *async)\n"
	"{\n"
	"\tbtrfs_init_work(&async->work, run_one_async_start, NULL, NULL);\n"
	"\treturn 0;\n"
	"}\n";

/* a function passed as an argument: a use */
static const char callback_c[] =
	"#include \"async-thread.h\"\n"
	"\n"
	"static void setup(struct registry *reg)\n"
	"{\n"
	"\tregister_fn(reg, btrfs_init_work);\n" /* 5 */
	"}\n";

/* upstream only: a whole file */
static const char bio_c[] =
	"#include \"async-thread.h\"\n"
	"\n"
	"static void submit_bio_work(struct btrfs_work *work)\n"
	"{\n"
	"}\n"
	"\n"
	"void btrfs_submit_bio(struct async_submit *async)\n"
	"{\n"
	"\tint a = 0;\n"
	"\tint b = 1;\n"
	"\n"
	"\tbtrfs_init_work(&async->work, submit_bio_work, NULL, NULL);\n"
	"\tbtrfs_queue_work(async->wq, &async->work);\n"
	"}\n";

/* outside the default scope */
static const char user_c[] =
	"#include \"../btrfs/async-thread.h\"\n"
	"\n"
	"void user(struct btrfs_workqueue *wq, struct btrfs_work *w)\n"
	"{\n"
	"\tbtrfs_queue_work(wq, w);\n"
	"}\n";

struct fixture {
	char dir[64];
	struct tree_repo *repo;
	struct tree_oid base;
	struct series_version v;
	struct carry_result cr;
};

static void write_file(const char *repo, const char *rel, const char *text)
{
	struct err err = ERR_INIT;
	char *dir = fs_join(repo, rel);
	char *slash = strrchr(dir, '/');

	*slash = '\0';
	if (fs_mkdirs(dir, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	*slash = '/';
	if (fs_write_atomic(dir, text, strlen(text), &err) < 0)
		fail_msg("%s", err.msg.ptr);
	free(dir);
	err_release(&err);
}

static void run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void run(const char *fmt, ...)
{
	struct buf cmd = BUF_INIT;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	buf_vaddf(&cmd, fmt, ap);
	va_end(ap);
	rc = system(cmd.ptr);
	if (rc != 0)
		fail_msg("'%s' failed (%d)", cmd.ptr, rc);
	buf_release(&cmd);
}

#define GIT "git -c user.name=T -c user.email=t@example.org " \
	    "-c init.defaultBranch=master -c core.autocrlf=false "

static void git_init(const char *repo)
{
	run(GIT "init -q '%s'", repo);
}

static void commit_msg(const char *repo, const char *msg)
{
	run(GIT "-C '%s' add -A && " GIT "-C '%s' commit -q -m '%s'", repo,
	    repo, msg);
}

static void write_common(const char *repo)
{
	write_file(repo, "fs/btrfs/async-thread.h", old_h);
	write_file(repo, "fs/btrfs/async-thread.c", old_c);
	write_file(repo, "fs/btrfs/inode.c", inode_c);
	write_file(repo, "fs/btrfs/ordered-data.c", ordered_c);
	write_file(repo, "fs/btrfs/callback.c", callback_c);
	write_file(repo, "fs/other/user.c", user_c);
}

static char *replace(const char *s, const char *from, const char *to)
{
	const char *p = strstr(s, from);
	struct buf b = BUF_INIT;

	if (!p)
		fail_msg("'%s' not found", from);
	buf_add(&b, s, (size_t)(p - s));
	buf_adds(&b, to);
	buf_adds(&b, p + strlen(from));
	return buf_detach(&b, NULL);
}

/* The series as upstream wrote it: three commits, format-patch'ed. */
static void make_series(struct fixture *fx, const char *up)
{
	struct err err = ERR_INIT;
	char *disk_io = xstrfmt("%s%s", disk_io_c, disk_io_extra);
	char *s, *pdir = fs_join(fx->dir, "patches");
	char **names;
	size_t nr;

	git_init(up);
	write_common(up);
	write_file(up, "fs/btrfs/disk-io.c", disk_io);
	write_file(up, "fs/btrfs/bio.c", bio_c);
	commit_msg(up, "base");
	run(GIT "-C '%s' tag base", up);

	write_file(up, "fs/btrfs/async-thread.h", new_h);
	write_file(up, "fs/btrfs/async-thread.c", new_c);
	s = replace(inode_c, "fixup_worker, NULL, NULL", "fixup_worker, NULL");
	write_file(up, "fs/btrfs/inode.c", s);
	free(s);
	s = replace(ordered_c, "flush_fn, NULL, NULL", "flush_fn, NULL");
	write_file(up, "fs/btrfs/ordered-data.c", s);
	free(s);
	commit_msg(up, "btrfs: drop ordered_free");

	s = replace(bio_c, "submit_bio_work, NULL, NULL",
		    "submit_bio_work, NULL");
	write_file(up, "fs/btrfs/bio.c", s);
	free(s);
	commit_msg(up, "btrfs: convert bio.c");

	s = replace(disk_io, "run_one_async_start, NULL, NULL",
		    "run_one_async_start, NULL");
	write_file(up, "fs/btrfs/disk-io.c", s);
	free(s);
	commit_msg(up, "btrfs: convert submit_other");

	run(GIT "-C '%s' format-patch -q -o '%s' base..HEAD", up, pdir);
	if (fs_list_dir(pdir, &names, &nr, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	assert_int_equal(nr, 3);
	series_version_init(&fx->v, "wq", "v1");
	for (size_t i = 0; i < nr; i++) {
		char *path = fs_join(pdir, names[i]);
		struct buf text = BUF_INIT;
		struct patch p;
		struct patch_parse_opts po = { names[i], 1, true };

		patch_init(&p);
		if (fs_read_file(&text, path, 0, &err) < 0 ||
		    patch_parse(&p, text.ptr, text.len, &po, &err) < 0)
			fail_msg("%s", err.msg.ptr);
		series_version_add(&fx->v, &p, &text, names[i]);
		buf_release(&text);
		free(path);
	}
	fs_free_list(names, nr);
	free(pdir);
	free(disk_io);
	err_release(&err);
}

static int setup(void **state)
{
	struct fixture *fx = xcalloc(1, sizeof(*fx));
	struct err err = ERR_INIT;
	struct carry_opts co = { 0 };
	char *tgt, *up;

	if (tree_global_init(&err) < 0)
		return -1;
	strcpy(fx->dir, "/tmp/kcarry-audit-XXXXXX");
	if (!mkdtemp(fx->dir))
		return -1;
	tgt = fs_join(fx->dir, "t");
	up = fs_join(fx->dir, "u");

	git_init(tgt);
	write_common(tgt);
	write_file(tgt, "fs/btrfs/disk-io.c", disk_io_c);
	commit_msg(tgt, "base");
	run(GIT "-C '%s' tag base", tgt);
	make_series(fx, up);

	if (tree_open(&fx->repo, tgt, &err) < 0 ||
	    tree_resolve(&fx->base, fx->repo, "base", &err) < 0)
		fail_msg("%s", err.msg.ptr);
	co.apply.fuzz = APPLY_DEFAULT_FUZZ;
	co.no_ref = true;
	if (carry_series(&fx->cr, fx->repo, &fx->base, &fx->v, "t", &co,
			 &err) < 0)
		fail_msg("%s", err.msg.ptr);
	free(tgt);
	free(up);
	err_release(&err);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	struct err err = ERR_INIT;

	carry_result_release(&fx->cr);
	series_version_release(&fx->v);
	tree_close(fx->repo);
	fs_remove_tree(fx->dir, &err);
	err_release(&err);
	free(fx);
	tree_global_shutdown();
	return 0;
}

static void audit(struct audit_result *r, const struct fixture *fx,
		  const struct audit_opts *o)
{
	struct err err = ERR_INIT;

	if (audit_run(r, fx->repo, &fx->v, &fx->cr, o, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	err_release(&err);
}

static void assert_site(const struct audit_site *s, const char *path,
			size_t line, const char *func, const char *symbol,
			enum watch_ref_kind kind)
{
	assert_string_equal(s->path, path);
	assert_int_equal(s->line, line);
	if (func)
		assert_string_equal(s->func, func);
	else
		assert_null(s->func);
	assert_string_equal(s->symbol, symbol);
	assert_int_equal(s->kind, kind);
}

/* ---- tests ---- */

static void series_is_carried_as_expected(void **state)
{
	const struct fixture *fx = *state;

	/* the API change applies; the absent callers' patches cannot */
	assert_int_equal(fx->cr.nr, 3);
	assert_true(fx->cr.patches[0].committed);
	assert_false(fx->cr.patches[1].committed);
	assert_false(fx->cr.patches[2].committed);
}

static void changed_signature_is_reported(void **state)
{
	const struct fixture *fx = *state;
	struct audit_result r;
	bool init = false, work = false;

	audit(&r, fx, NULL);
	assert_int_equal(r.nr_watched, 2);
	assert_string_equal(r.watched[0], AUDIT_DEFAULT_WATCH_C);
	assert_string_equal(r.watched[1], AUDIT_DEFAULT_WATCH_H);
	for (size_t i = 0; i < r.nr_changes; i++) {
		const struct audit_change *c = &r.changes[i];
		if (!strcmp(c->name, "btrfs_init_work")) {
			init = true;
			assert_int_equal(c->change, WATCH_CHANGED);
			assert_int_equal(c->kind, WATCH_FUNCTION);
			assert_string_equal(c->old_sig,
					    "void (struct btrfs_work *, "
					    "btrfs_func_t, btrfs_func_t, "
					    "btrfs_func_t)");
			assert_string_equal(c->new_sig,
					    "void (struct btrfs_work *, "
					    "btrfs_func_t, btrfs_func_t)");
		} else if (!strcmp(c->name, "struct btrfs_work")) {
			work = true;
			assert_int_equal(c->change, WATCH_CHANGED);
		} else {
			fail_msg("unexpected change of '%s'", c->name);
		}
	}
	assert_true(init);
	assert_true(work);
	audit_result_release(&r);
}

static void unconverted_callers_are_the_calls_left_alone(void **state)
{
	const struct fixture *fx = *state;
	struct audit_result r;

	audit(&r, fx, NULL);
	/*
	 * inode.c and ordered-data.c (second line only) are converted;
	 * disk-io.c's two-line call is not; callback.c passes the function
	 * as an argument; uses of struct btrfs_work are no sites
	 */
	assert_int_equal(r.nr_unconverted, 2);
	assert_site(&r.unconverted[0], "fs/btrfs/callback.c", 5, "setup",
		    "btrfs_init_work", WATCH_REF_USE);
	assert_string_equal(r.unconverted[0].text,
			    "register_fn(reg, btrfs_init_work);");
	assert_site(&r.unconverted[1], "fs/btrfs/disk-io.c", 10, "submit",
		    "btrfs_init_work", WATCH_REF_CALL);
	assert_int_equal(r.unconverted[1].base_line, 10);
	assert_string_equal(r.unconverted[1].text,
			    "btrfs_init_work(&async->work, "
			    "run_one_async_start, NULL,");
	/* the default scope's .c and .h but the watched ones */
	assert_int_equal(r.nr_files_scanned, 4);
	audit_result_release(&r);
}

static void converted_callers_absent_from_target(void **state)
{
	const struct fixture *fx = *state;
	struct audit_result r;

	audit(&r, fx, NULL);
	assert_int_equal(r.nr_absent, 2);
	/* a file the target lacks; the function named by the section */
	assert_site(&r.absent[0], "fs/btrfs/bio.c", 12, "btrfs_submit_bio",
		    "btrfs_init_work", WATCH_REF_CALL);
	/* a function the target's disk-io.c lacks, header in the hunk */
	assert_site(&r.absent[1], "fs/btrfs/disk-io.c", 18, "submit_other",
		    "btrfs_init_work", WATCH_REF_CALL);
	assert_int_equal(r.absent[0].base_line, 0);
	audit_result_release(&r);
}

static void patches_touching_watched_files_and_callers(void **state)
{
	const struct fixture *fx = *state;
	struct audit_result r;
	const struct audit_patch *p;

	audit(&r, fx, NULL);
	assert_int_equal(r.nr_patches, 3);
	p = &r.patches[0];
	assert_true(p->touches_watched);
	assert_true(p->touches_caller);
	assert_int_equal(p->nr_hunks, 4);
	assert_true(p->hunks[0].watched);
	assert_string_equal(p->hunks[0].path, "fs/btrfs/async-thread.c");
	assert_true(p->hunks[1].watched);
	assert_string_equal(p->hunks[1].path, "fs/btrfs/async-thread.h");
	assert_false(p->hunks[2].watched);
	assert_string_equal(p->hunks[2].path, "fs/btrfs/inode.c");
	assert_string_equal(p->hunks[2].symbol, "btrfs_init_work");
	assert_string_equal(p->hunks[3].path, "fs/btrfs/ordered-data.c");
	assert_string_equal(p->hunks[3].symbol, "btrfs_init_work");
	for (size_t i = 1; i < 3; i++) {
		p = &r.patches[i];
		assert_false(p->touches_watched);
		assert_true(p->touches_caller);
		assert_int_equal(p->nr_hunks, 1);
	}
	audit_result_release(&r);
}

static void nothing_to_report_without_changes(void **state)
{
	const struct fixture *fx = *state;
	struct carry_result cr = fx->cr;
	struct audit_result r;
	struct err err = ERR_INIT;

	/* the series carried nowhere: head is the base */
	cr.head = cr.base;
	assert_int_equal(audit_run(&r, fx->repo, &fx->v, &cr, NULL, &err), 0);
	assert_int_equal(r.nr_changes, 0);
	assert_int_equal(r.nr_unconverted, 0);
	assert_int_equal(r.nr_absent, 0);
	/* the hunks still touch what they touch */
	assert_true(r.patches[0].touches_watched);
	audit_result_release(&r);
	err_release(&err);
}

static void reference_map_of_named_symbols(void **state)
{
	const struct fixture *fx = *state;
	const char *const syms[] = { "btrfs_init_work", "btrfs_queue_work" };
	struct audit_site *s;
	size_t nr;
	struct err err = ERR_INIT;

	assert_int_equal(audit_callers(&s, &nr, fx->repo, &fx->base, syms, 2,
				       NULL, &err), 0);
	/* declarations and definitions in async-thread.[ch] are left out */
	assert_int_equal(nr, 7);
	assert_site(&s[0], "fs/btrfs/callback.c", 5, "setup",
		    "btrfs_init_work", WATCH_REF_USE);
	assert_site(&s[1], "fs/btrfs/disk-io.c", 10, "submit",
		    "btrfs_init_work", WATCH_REF_CALL);
	assert_site(&s[2], "fs/btrfs/disk-io.c", 12, "submit",
		    "btrfs_queue_work", WATCH_REF_CALL);
	assert_site(&s[3], "fs/btrfs/inode.c", 10, "start_fixup",
		    "btrfs_init_work", WATCH_REF_CALL);
	assert_site(&s[4], "fs/btrfs/inode.c", 11, "start_fixup",
		    "btrfs_queue_work", WATCH_REF_CALL);
	assert_site(&s[5], "fs/btrfs/ordered-data.c", 9, "flush_ordered",
		    "btrfs_init_work", WATCH_REF_CALL);
	assert_site(&s[6], "fs/btrfs/ordered-data.c", 11, "flush_ordered",
		    "btrfs_queue_work", WATCH_REF_CALL);
	assert_string_equal(s[6].text,
			    "btrfs_queue_work(ordered->wq, "
			    "&ordered->flush_work);");
	audit_sites_free(s, nr);
	err_release(&err);
}

static void reference_map_of_exports_includes_types(void **state)
{
	const struct fixture *fx = *state;
	struct audit_site *s;
	size_t nr, types = 0;
	bool fixup_param = false;
	struct err err = ERR_INIT;

	assert_int_equal(audit_callers(&s, &nr, fx->repo, &fx->base, NULL, 0,
				       NULL, &err), 0);
	for (size_t i = 0; i < nr; i++) {
		if (!strcmp(s[i].symbol, "struct btrfs_work"))
			types++;
		if (!strcmp(s[i].path, "fs/btrfs/inode.c") && s[i].line == 3)
			fixup_param = s[i].kind == WATCH_REF_USE &&
				      !strcmp(s[i].func, "fixup_worker");
		if (i)
			assert_true(strcmp(s[i - 1].path, s[i].path) < 0 ||
				    (!strcmp(s[i - 1].path, s[i].path) &&
				     s[i - 1].line <= s[i].line));
	}
	assert_true(types > 0);
	assert_true(fixup_param);
	audit_sites_free(s, nr);
	err_release(&err);
}

static void scope_adds_folders(void **state)
{
	const struct fixture *fx = *state;
	const char *const syms[] = { "btrfs_queue_work" };
	char *scope[] = { "fs/other/" };
	struct audit_opts o = { NULL, 0, scope, 1 };
	struct audit_site *s;
	size_t nr;
	struct err err = ERR_INIT;

	assert_int_equal(audit_callers(&s, &nr, fx->repo, &fx->base, syms, 1,
				       &o, &err), 0);
	assert_int_equal(nr, 4);
	assert_site(&s[3], "fs/other/user.c", 5, "user", "btrfs_queue_work",
		    WATCH_REF_CALL);
	audit_sites_free(s, nr);
	err_release(&err);
}

static void missing_watched_files_are_an_error(void **state)
{
	const struct fixture *fx = *state;
	char *watch[] = { "fs/xfs/xfs_buf.h" };
	struct audit_opts o = { watch, 1, NULL, 0 };
	struct audit_site *s;
	size_t nr;
	struct err err = ERR_INIT;

	assert_int_equal(audit_callers(&s, &nr, fx->repo, &fx->base, NULL, 0,
				       &o, &err), ERR_NOTFOUND);
	assert_string_equal(err.msg.ptr, "'fs/xfs/xfs_buf.h': not in the tree");
	assert_null(s);
	assert_int_equal(nr, 0);
	err_release(&err);
}

static void opts_default_to_async_thread(void **state)
{
	const struct fixture *fx = *state;
	struct audit_opts o;
	struct err err = ERR_INIT;
	char *root = fs_join(fx->dir, "ws");

	write_file(root, "series/plain.conf", "[series]\n\tname = plain\n");
	assert_int_equal(audit_opts_load(&o, root, "plain", &err), 0);
	assert_int_equal(o.nr_watch, 2);
	assert_string_equal(o.watch[0], AUDIT_DEFAULT_WATCH_C);
	assert_string_equal(o.watch[1], AUDIT_DEFAULT_WATCH_H);
	assert_int_equal(o.nr_scope, 0);
	audit_opts_release(&o);
	/* no .conf at all: the defaults too */
	assert_int_equal(audit_opts_load(&o, root, "none", &err), 0);
	assert_int_equal(o.nr_watch, 2);
	audit_opts_release(&o);
	free(root);
	err_release(&err);
}

static void opts_read_watch_file_and_scope(void **state)
{
	const struct fixture *fx = *state;
	struct audit_opts o;
	struct err err = ERR_INIT;
	char *root = fs_join(fx->dir, "ws");

	write_file(root, "series/w.conf",
		   "[watch]\n"
		   "\tfile = fs/btrfs/ordered-data.h\n"
		   "\tfile = ./fs/btrfs/ordered-data.c\n"
		   "\tscope = fs/btrfs/\n"
		   "\tscope = include/trace/events\n");
	assert_int_equal(audit_opts_load(&o, root, "w", &err), 0);
	assert_int_equal(o.nr_watch, 2);
	assert_string_equal(o.watch[0], "fs/btrfs/ordered-data.h");
	assert_string_equal(o.watch[1], "fs/btrfs/ordered-data.c");
	assert_int_equal(o.nr_scope, 2);
	assert_string_equal(o.scope[0], "fs/btrfs");
	assert_string_equal(o.scope[1], "include/trace/events");
	audit_opts_add_watch(&o, "./fs/btrfs/disk-io.h");
	audit_opts_add_scope(&o, "./");
	assert_int_equal(o.nr_watch, 3);
	assert_string_equal(o.watch[2], "fs/btrfs/disk-io.h");
	assert_int_equal(o.nr_scope, 3);
	assert_string_equal(o.scope[2], "");
	audit_opts_release(&o);
	free(root);
	err_release(&err);
}

static void watch_option_changes_what_is_audited(void **state)
{
	const struct fixture *fx = *state;
	char *watch[] = { "fs/btrfs/inode.c" };
	struct audit_opts o = { watch, 1, NULL, 0 };
	struct audit_result r;

	/* inode.c exports nothing that changes: only its hunk is flagged */
	audit(&r, fx, &o);
	assert_int_equal(r.nr_watched, 1);
	assert_int_equal(r.nr_changes, 0);
	assert_int_equal(r.nr_unconverted, 0);
	assert_true(r.patches[0].touches_watched);
	assert_int_equal(r.patches[0].nr_hunks, 1);
	assert_string_equal(r.patches[0].hunks[0].path, "fs/btrfs/inode.c");
	audit_result_release(&r);
}

/* ---- the series' own API change ---- */

static const struct audit_intent *intent(const struct audit_result *r,
					 const char *name)
{
	for (size_t i = 0; i < r->nr_intents; i++)
		if (!strcmp(r->intents[i].name, name))
			return &r->intents[i];
	fail_msg("no intent for '%s'", name);
	return NULL;
}

static const struct audit_caller *caller(const struct audit_result *r,
					 const char *path, size_t line)
{
	for (size_t i = 0; i < r->nr_callers; i++)
		if (!strcmp(r->callers[i].site.path, path) &&
		    r->callers[i].site.line == line)
			return &r->callers[i];
	fail_msg("no caller at %s:%zu", path, line);
	return NULL;
}

static void intended_change_is_read_from_the_series(void **state)
{
	const struct fixture *fx = *state;
	struct audit_result r;
	const struct audit_intent *t;

	audit(&r, fx, NULL);
	t = intent(&r, "btrfs_init_work");
	assert_int_equal(t->change, WATCH_CHANGED);
	assert_int_equal(t->patch, 1);
	assert_string_equal(t->old_sig, "void (struct btrfs_work *, "
					"btrfs_func_t, btrfs_func_t, "
					"btrfs_func_t)");
	assert_string_equal(t->new_sig, "void (struct btrfs_work *, "
					"btrfs_func_t, btrfs_func_t)");
	assert_int_equal(t->target, AUDIT_TARGET_PRESENT);
	assert_false(r.api_absent);
	audit_result_release(&r);
}

static void callers_are_classified(void **state)
{
	const struct fixture *fx = *state;
	struct audit_result r;
	const struct audit_caller *c;

	audit(&r, fx, NULL);
	/* inode.c and ordered-data.c: converted by 0001, which landed */
	c = caller(&r, "fs/btrfs/inode.c", 10);
	assert_int_equal(c->class, AUDIT_CONVERTED);
	assert_int_equal(c->patch, 1);
	assert_string_equal(c->file, "fs/btrfs/inode.c");
	assert_int_equal(c->hunk, 1);
	assert_int_equal(caller(&r, "fs/btrfs/ordered-data.c", 9)->class,
			 AUDIT_CONVERTED);
	/* the series converts submit_other(), not the target's submit() */
	c = caller(&r, "fs/btrfs/disk-io.c", 10);
	assert_int_equal(c->class, AUDIT_TARGET_ONLY);
	assert_int_equal(c->patch, 0);
	assert_null(c->file);
	assert_int_equal(caller(&r, "fs/btrfs/callback.c", 5)->class,
			 AUDIT_TARGET_ONLY);
	assert_int_equal(r.nr_target_only, 2);
	assert_int_equal(r.nr_conflicted, 0);
	audit_result_release(&r);
}

/* The API patch did not land: the result shows no change, the series'
 * own hunks still do, and the callers it meant to convert are left. */
static void api_patch_that_does_not_land_is_still_audited(void **state)
{
	const struct fixture *fx = *state;
	struct carry_result cr = fx->cr;
	struct carry_patch *patches = xcalloc(cr.nr, sizeof(*patches));
	struct audit_result r;
	struct err err = ERR_INIT;

	memcpy(patches, cr.patches, cr.nr * sizeof(*patches));
	patches[0].committed = false;
	patches[0].outcome = OUTCOME_CONFLICT;
	cr.patches = patches;
	cr.head = cr.base;
	assert_int_equal(audit_run(&r, fx->repo, &fx->v, &cr, NULL, &err), 0);
	assert_int_equal(r.nr_changes, 0);
	assert_int_equal(intent(&r, "btrfs_init_work")->change, WATCH_CHANGED);
	assert_int_equal(caller(&r, "fs/btrfs/inode.c", 10)->class,
			 AUDIT_CONFLICTED);
	assert_int_equal(caller(&r, "fs/btrfs/ordered-data.c", 9)->class,
			 AUDIT_CONFLICTED);
	assert_int_equal(caller(&r, "fs/btrfs/disk-io.c", 10)->class,
			 AUDIT_TARGET_ONLY);
	assert_int_equal(r.nr_conflicted, 2);
	audit_result_release(&r);
	free(patches);
	err_release(&err);
}

/* A target of the btrfs_workers era: the series' API is not there. */
static void target_without_the_api_says_what_it_has(void **state)
{
	static const char workers_h[] =
		"struct btrfs_work {\n"
		"\tvoid (*func)(struct btrfs_work *work);\n"
		"};\n"
		"struct btrfs_workers {\n"
		"\tint num_workers;\n"
		"};\n"
		"void btrfs_queue_worker(struct btrfs_workers *workers,\n"
		"\t\t\tstruct btrfs_work *work);\n"
		"void btrfs_init_workers(struct btrfs_workers *workers, "
		"char *name, int max);\n";
	static const char workers_c[] =
		"#include \"async-thread.h\"\n"
		"void btrfs_queue_worker(struct btrfs_workers *workers,\n"
		"\t\t\tstruct btrfs_work *work)\n"
		"{\n"
		"}\n";
	const struct fixture *fx = *state;
	struct carry_result cr = fx->cr;
	struct audit_result r;
	struct err err = ERR_INIT;
	char *tgt = fs_join(fx->dir, "t");
	struct tree_oid old;

	run(GIT "-C '%s' checkout -q -b old-api base", tgt);
	write_file(tgt, "fs/btrfs/async-thread.h", workers_h);
	write_file(tgt, "fs/btrfs/async-thread.c", workers_c);
	commit_msg(tgt, "the btrfs_workers API");
	assert_int_equal(tree_resolve(&old, fx->repo, "old-api", &err), 0);
	cr.base = cr.head = old;
	assert_int_equal(audit_run(&r, fx->repo, &fx->v, &cr, NULL, &err), 0);
	assert_int_equal(intent(&r, "btrfs_init_work")->target,
			 AUDIT_TARGET_ABSENT);
	assert_true(r.api_absent);
	assert_int_equal(r.nr_target_api, 4);
	assert_string_equal(r.target_api[0].name, "struct btrfs_work");
	assert_string_equal(r.target_api[1].name, "struct btrfs_workers");
	assert_string_equal(r.target_api[2].name, "btrfs_queue_worker");
	assert_string_equal(r.target_api[3].name, "btrfs_init_workers");
	assert_int_equal(r.nr_callers, 0);
	audit_result_release(&r);
	free(tgt);
	err_release(&err);
}

/* A converting hunk already in the target (its patch already-applied, so
 * not committed) landed: its caller is converted, not left. */
static void already_applied_conversion_has_landed(void **state)
{
	const struct fixture *fx = *state;
	struct carry_result cr = fx->cr;
	struct carry_patch *patches = xcalloc(cr.nr, sizeof(*patches));
	struct carry_file *files;
	struct apply_hunk_result *hunks = NULL;
	struct audit_result r;
	struct err err = ERR_INIT;
	size_t nf;

	memcpy(patches, cr.patches, cr.nr * sizeof(*patches));
	nf = patches[0].nr_files;
	files = xcalloc(nf, sizeof(*files));
	memcpy(files, patches[0].files, nf * sizeof(*files));
	for (size_t i = 0; i < nf; i++) {
		if (strcmp(files[i].path, "fs/btrfs/inode.c"))
			continue;
		hunks = xcalloc(files[i].nr_hunks, sizeof(*hunks));
		memcpy(hunks, files[i].hunks,
		       files[i].nr_hunks * sizeof(*hunks));
		for (size_t k = 0; k < files[i].nr_hunks; k++)
			hunks[k].rule = RULE_ALREADY;
		files[i].hunks = hunks;
	}
	assert_non_null(hunks);
	patches[0].files = files;
	patches[0].committed = false;
	cr.patches = patches;
	assert_int_equal(audit_run(&r, fx->repo, &fx->v, &cr, NULL, &err), 0);
	assert_int_equal(caller(&r, "fs/btrfs/inode.c", 10)->class,
			 AUDIT_CONVERTED);
	/* its other hunks applied but were not committed: not there */
	assert_int_equal(caller(&r, "fs/btrfs/ordered-data.c", 9)->class,
			 AUDIT_CONFLICTED);
	assert_int_equal(r.nr_conflicted, 1);
	audit_result_release(&r);
	free(hunks);
	free(files);
	free(patches);
	err_release(&err);
}

/* A call the target already makes with the new number of arguments is
 * neither an unconverted site nor a caller of the old API; the old form
 * beside it is both. */
static void call_in_the_new_form_is_not_unconverted(void **state)
{
	static const char zoned_c[] =
		"#include \"async-thread.h\"\n"
		"\n"
		"void zone_new(struct btrfs_work *w)\n"
		"{\n"
		"\tbtrfs_init_work(w, zone_fn,\n"
		"\t\t\tNULL);\n"
		"}\n"
		"\n"
		"void zone_old(struct btrfs_work *w)\n"
		"{\n"
		"\tbtrfs_init_work(w, zone_fn, NULL, NULL);\n"
		"}\n"
		"\n"
		"void zone_both(struct btrfs_work *w)\n"
		"{\n"
		"\tbtrfs_init_work(w, zone_fn, NULL); "
		"btrfs_init_work(w, zone_fn, NULL, NULL);\n"
		"}\n";
	const struct fixture *fx = *state;
	struct carry_result cr = fx->cr;
	struct audit_result r;
	struct err err = ERR_INIT;
	char *tgt = fs_join(fx->dir, "t");
	char head[41];
	size_t old = 0;

	tree_oid_hex(head, &cr.head);
	run(GIT "-C '%s' checkout -q -b zoned-base base", tgt);
	write_file(tgt, "fs/btrfs/zoned.c", zoned_c);
	commit_msg(tgt, "zoned base");
	run(GIT "-C '%s' checkout -q -b zoned-head %s", tgt, head);
	write_file(tgt, "fs/btrfs/zoned.c", zoned_c);
	commit_msg(tgt, "zoned head");
	assert_int_equal(tree_resolve(&cr.base, fx->repo, "zoned-base", &err),
			 0);
	assert_int_equal(tree_resolve(&cr.head, fx->repo, "zoned-head", &err),
			 0);
	assert_int_equal(audit_run(&r, fx->repo, &fx->v, &cr, NULL, &err), 0);
	/* zone_old's call, and the second call of zone_both's line */
	for (size_t i = 0; i < r.nr_unconverted; i++)
		if (!strcmp(r.unconverted[i].path, "fs/btrfs/zoned.c"))
			assert_int_equal(r.unconverted[i].line,
					 old++ ? 16 : 11);
	assert_int_equal(old, 2);
	assert_int_equal(caller(&r, "fs/btrfs/zoned.c", 11)->class,
			 AUDIT_TARGET_ONLY);
	assert_int_equal(caller(&r, "fs/btrfs/zoned.c", 16)->class,
			 AUDIT_TARGET_ONLY);
	old = 0;
	for (size_t i = 0; i < r.nr_callers; i++)
		old += !strcmp(r.callers[i].site.path, "fs/btrfs/zoned.c");
	assert_int_equal(old, 2);
	for (size_t i = 0; i < r.nr_callers; i++)
		assert_false(!strcmp(r.callers[i].site.path,
				     "fs/btrfs/zoned.c") &&
			     r.callers[i].site.line == 5);
	audit_result_release(&r);
	free(tgt);
	err_release(&err);
}

/* resolve --suggest: the conversion learned from the series' converted
 * calls, applied to the calls it never converts. */
static void suggestion_learned_from_converted_calls(void **state)
{
	const struct fixture *fx = *state;
	struct audit_result r;
	struct audit_suggestions sg;
	struct err err = ERR_INIT;

	audit(&r, fx, NULL);
	assert_int_equal(
		audit_suggest(&sg, fx->repo, &fx->v, &fx->cr, &r, NULL, &err),
		0);
	assert_int_equal(sg.nr_rules, 1);
	assert_string_equal(sg.rules[0].symbol, "btrfs_init_work");
	assert_null(sg.rules[0].new_name);
	/* the series' calls pass NULL twice: 3 or 4 of 4 */
	assert_int_equal(sg.rules[0].drops, 0xc);
	assert_int_equal(sg.rules[0].adds, 0);
	assert_int_equal(sg.rules[0].arity, 4);
	assert_int_equal(sg.rules[0].examples, 4);
	/* the call over two lines, rewritten where it stands */
	assert_int_equal(sg.nr_fixes, 1);
	assert_string_equal(sg.fixes[0].site.path, "fs/btrfs/disk-io.c");
	assert_int_equal(sg.fixes[0].site.line, 10);
	assert_string_equal(sg.fixes[0].old_call,
			    "btrfs_init_work(&async->work, run_one_async_start,"
			    " NULL,\n\t\t\tNULL)");
	assert_string_equal(sg.fixes[0].new_call,
			    "btrfs_init_work(&async->work, run_one_async_start,"
			    " NULL)");
	/* a use as a value is no call to rewrite */
	assert_int_equal(sg.nr_left, 1);
	assert_string_equal(sg.left[0].site.path, "fs/btrfs/callback.c");
	assert_string_equal(sg.left[0].why, "not a call");
	assert_non_null(strstr(sg.patch.ptr, "--- a/fs/btrfs/disk-io.c\n"
					     "+++ b/fs/btrfs/disk-io.c\n"));
	assert_non_null(strstr(sg.patch.ptr, "-\tbtrfs_init_work(&async->work, "
					     "run_one_async_start, NULL,\n"
					     "-\t\t\tNULL);\n"
					     "+\tbtrfs_init_work(&async->work, "
					     "run_one_async_start, NULL);\n"));
	assert_string_equal(
		sg.cocci.ptr,
		"// btrfs_init_work: learned from 4 converted calls "
		"of the series\n"
		"@@\nexpression e1, e2, e3;\n@@\n"
		"- btrfs_init_work(e1, e2, e3, e3)\n"
		"+ btrfs_init_work(e1, e2, e3)\n\n");
	audit_suggestions_release(&sg);
	audit_result_release(&r);
	err_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(series_is_carried_as_expected),
		cmocka_unit_test(changed_signature_is_reported),
		cmocka_unit_test(unconverted_callers_are_the_calls_left_alone),
		cmocka_unit_test(converted_callers_absent_from_target),
		cmocka_unit_test(patches_touching_watched_files_and_callers),
		cmocka_unit_test(nothing_to_report_without_changes),
		cmocka_unit_test(reference_map_of_named_symbols),
		cmocka_unit_test(reference_map_of_exports_includes_types),
		cmocka_unit_test(scope_adds_folders),
		cmocka_unit_test(missing_watched_files_are_an_error),
		cmocka_unit_test(opts_default_to_async_thread),
		cmocka_unit_test(opts_read_watch_file_and_scope),
		cmocka_unit_test(watch_option_changes_what_is_audited),
		cmocka_unit_test(intended_change_is_read_from_the_series),
		cmocka_unit_test(callers_are_classified),
		cmocka_unit_test(api_patch_that_does_not_land_is_still_audited),
		cmocka_unit_test(target_without_the_api_says_what_it_has),
		cmocka_unit_test(suggestion_learned_from_converted_calls),
		cmocka_unit_test(already_applied_conversion_has_landed),
		cmocka_unit_test(call_in_the_new_form_is_not_unconverted),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
