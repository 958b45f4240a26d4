/*
 * test_report_ci: kcarry check's JSON, JUnit, Markdown and email reports
 * of a check_report built by hand: two series (btrfs-wq@v2 with three
 * patches, ext4-fix@6.1.170-3 stacked on it with one) on two targets, with
 * clean, offset with a placement risk, already applied, conflict, partial,
 * not tried, a cell that could not run, a changed watched symbol and an
 * unconverted caller.  The patches are tests/fixtures/report_ci/patches/;
 * JUnit is checked against tests/fixtures/report_ci/junit.xsd with xmllint
 * and JSON against docs/kcarry-check.schema.json with python3-jsonschema,
 * when those tools are installed.
 */
#include "unit.h"

#include <jansson.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mail.h"
#include "report_ci.h"

#define DATE 1700000000LL /* Tue, 14 Nov 2023 22:13:20 +0000 */

struct fixture {
	struct check_report r;
	char *dir; /* scratch directory for files the validators read */
};

/* ---- building the report ---------------------------------------------- */

static void add_item(struct series_version *v, const char *file)
{
	struct patch_parse_opts po = { file, 1, true };
	struct err err = ERR_INIT;
	struct series_item *it;
	char *rel = xstrfmt("report_ci/patches/%s", file);

	ALLOC_GROW(v->items, v->nr + 1, v->alloc);
	it = &v->items[v->nr++];
	memset(it, 0, sizeof(*it));
	it->file = xstrdup(file);
	it->strip = 1;
	buf_init(&it->text, 0);
	unit_read_fixture(&it->text, rel);
	patch_init(&it->patch);
	if (patch_parse(&it->patch, it->text.ptr, it->text.len, &po, &err) < 0)
		fail_msg("cannot parse %s: %s", file, err.msg.ptr);
	err_release(&err);
	free(rel);
}

static void oid_fill(struct tree_oid *oid, unsigned char byte)
{
	memset(oid->id, byte, sizeof(oid->id));
}

static void carry_init(struct carry_result *cr, const struct check_series *cs,
		       const char *target)
{
	memset(cr, 0, sizeof(*cr));
	cr->series = xstrdup(cs->name);
	cr->version = xstrdup(cs->v.version);
	cr->target = xstrdup(target);
	cr->branch = xstrfmt("refs/heads/kcarry/%s/%s/%s", cs->name,
			     cs->v.version, target);
	oid_fill(&cr->base, 0xba);
	oid_fill(&cr->head, 0xbe);
	cr->nr = cs->v.nr;
	cr->patches = xcalloc(cr->nr, sizeof(*cr->patches));
	for (size_t i = 0; i < cr->nr; i++)
		cr->patches[i].item = &cs->v.items[i];
}

/* Record patch i's outcome the way carry.c counts it. */
static struct carry_patch *set_patch(struct carry_result *cr, size_t i,
				     enum apply_outcome o, bool risk)
{
	struct carry_patch *cp = &cr->patches[i];

	cp->outcome = o;
	cp->risk = risk;
	cr->counts[o]++;
	if (o > cr->worst)
		cr->worst = o;
	if (risk) {
		cr->risk = true;
		cr->nr_risk++;
	}
	if (o == OUTCOME_CONFLICT || o == OUTCOME_PARTIAL)
		cr->nr_failed++;
	else if (o <= OUTCOME_3WAY) {
		cp->committed = true;
		oid_fill(&cp->commit, (unsigned char)(0x10 + i));
	}
	return cp;
}

static struct carry_file *add_file(struct carry_patch *cp, const char *path,
				   enum apply_outcome o, const char *rej)
{
	struct buf init = BUF_INIT;
	struct carry_file *cf;

	cp->files = xrealloc(cp->files, (cp->nr_files + 1) * sizeof(*cf));
	cf = &cp->files[cp->nr_files++];
	memset(cf, 0, sizeof(*cf));
	cf->path = xstrdup(path);
	cf->outcome = o;
	cf->rej = init;
	if (rej)
		buf_adds(&cf->rej, rej);
	return cf;
}

static void add_hunk(struct carry_file *cf, enum apply_rule rule,
		     unsigned long line, long offset, const char *func,
		     const char *found, const char *reason)
{
	struct apply_hunk_result *h;

	cf->hunks = xrealloc(cf->hunks, (cf->nr_hunks + 1) * sizeof(*h));
	h = &cf->hunks[cf->nr_hunks++];
	memset(h, 0, sizeof(*h));
	h->rule = rule;
	h->line = line;
	h->offset = offset;
	h->func = func ? xstrdup(func) : NULL;
	h->found_func = found ? xstrdup(found) : NULL;
	h->reason = reason ? xstrdup(reason) : NULL;
	if (func && found && strcmp(func, found)) {
		h->risk = true;
		cf->risk = true;
	}
}

static void audit_init(struct audit_result *a, size_t nr_patches)
{
	memset(a, 0, sizeof(*a));
	a->watched = xcalloc(2, sizeof(char *));
	a->watched[a->nr_watched++] = xstrdup("fs/btrfs/async-thread.c");
	a->watched[a->nr_watched++] = xstrdup("fs/btrfs/async-thread.h");
	a->nr_patches = nr_patches;
	a->patches = xcalloc(nr_patches + 1, sizeof(*a->patches));
	a->nr_files_scanned = 42;
}

static void audit_add_findings(struct audit_result *a)
{
	struct audit_change *c;
	struct audit_site *s;

	a->changes = xcalloc(1, sizeof(*c));
	c = &a->changes[a->nr_changes++];
	c->name = xstrdup("btrfs_init_work");
	c->kind = WATCH_FUNCTION;
	c->change = WATCH_CHANGED;
	c->old_sig = xstrdup("void (struct btrfs_work *, btrfs_func_t, "
			     "btrfs_func_t, btrfs_func_t)");
	c->new_sig = xstrdup("void (struct btrfs_work *, btrfs_func_t, "
			     "btrfs_func_t)");
	a->unconverted = xcalloc(1, sizeof(*s));
	s = &a->unconverted[a->nr_unconverted++];
	s->path = xstrdup("fs/btrfs/disk-io.c");
	s->line = 123;
	s->func = xstrdup("end_workqueue_fn");
	s->symbol = xstrdup("btrfs_init_work");
	s->kind = WATCH_REF_CALL;
	s->text = xstrdup("btrfs_init_work(&w->work, fn, NULL, NULL);");
}

static const char rej_foo[] =
	"--- fs/btrfs/foo.c\n"
	"+++ fs/btrfs/foo.c\n"
	"@@ -10,3 +10,3 @@ static int foo(void)\n"
	" \tint a;\n"
	"-\tint b;\n"
	"+\tint c;\n"
	" \treturn 0;\n";

static const char rej_bar[] =
	"--- fs/btrfs/bar.c\n"
	"+++ fs/btrfs/bar.c\n"
	"@@ -40,3 +40,3 @@ static void bar_more(struct bar *b)\n"
	" {\n"
	"-\tbtrfs_init_work(&b->more, more_fn, NULL, NULL);\n"
	"+\tbtrfs_init_work(&b->more, more_fn, NULL);\n"
	" }\n";

/* The reason of the conflict in 0001 on linux-6.6.y: XML must escape it. */
#define NASTY_REASON "context \"x\" & <y> differ\x01 here"

static void build_report(struct check_report *r)
{
	struct check_series *btrfs, *ext4;
	struct check_cell *c;
	struct carry_patch *cp;
	struct carry_file *cf;

	memset(r, 0, sizeof(*r));
	r->root = xstrdup("/srv/kcarry");
	r->seconds = 12.5;
	r->nr_targets = 2;
	r->targets = xcalloc(2, sizeof(char *));
	r->targets[0] = xstrdup("linux-6.1.y");
	r->targets[1] = xstrdup("linux-6.6.y");
	r->nr_series = 2;
	r->series = xcalloc(2, sizeof(*r->series));
	btrfs = &r->series[0];
	ext4 = &r->series[1];
	btrfs->name = xstrdup("btrfs-wq");
	btrfs->v.name = xstrdup("btrfs-wq");
	btrfs->v.version = xstrdup("v2");
	btrfs->v.cover = (struct buf)BUF_INIT;
	btrfs->stacks_on = -1;
	add_item(&btrfs->v, "0001-btrfs-use-linux-foo.h-bar-baz.patch");
	add_item(&btrfs->v, "0002-btrfs-convert-bar-to-the-new-work-API.patch");
	add_item(&btrfs->v, "0003-btrfs-drop-the-ordered-helper.patch");
	ext4->name = xstrdup("ext4-fix");
	ext4->v.name = xstrdup("ext4-fix");
	ext4->v.version = xstrdup("6.1.170-3");
	ext4->v.cover = (struct buf)BUF_INIT;
	ext4->stacks_on = 0;
	add_item(&ext4->v, "0001-ext4-fix-the-thing.patch");
	r->cells = xcalloc(4, sizeof(*r->cells));

	/* btrfs-wq on linux-6.1.y: clean, offset into another function,
	 * already applied; the audit finds an unconverted caller */
	c = check_cell(r, 0, 0);
	c->ok = true;
	carry_init(&c->carry, btrfs, "linux-6.1.y");
	cp = set_patch(&c->carry, 0, OUTCOME_CLEAN, false);
	cf = add_file(cp, "fs/btrfs/foo.c", OUTCOME_CLEAN, NULL);
	add_hunk(cf, RULE_EXACT, 10, 0, "foo", "foo", NULL);
	cp = set_patch(&c->carry, 1, OUTCOME_OFFSET, true);
	cf = add_file(cp, "fs/btrfs/bar.c", OUTCOME_OFFSET, NULL);
	add_hunk(cf, RULE_EXACT, 20, 0, "bar_init", "bar_init", NULL);
	add_hunk(cf, RULE_OFFSET, 70, 30, "bar_more", "bar_other",
		 "lands in bar_other(), the header names bar_more()");
	cp = set_patch(&c->carry, 2, OUTCOME_ALREADY, false);
	cf = add_file(cp, "fs/btrfs/async-thread.c", OUTCOME_ALREADY, NULL);
	add_hunk(cf, RULE_ALREADY, 30, 0, NULL, NULL, NULL);
	c->carry.head = c->carry.patches[1].commit;
	audit_init(&c->audit, 3);
	audit_add_findings(&c->audit);
	c->audit.patches[1].touches_caller = true;
	c->audit.patches[2].touches_watched = true;

	/* btrfs-wq on linux-6.6.y: conflict, partial, not tried */
	c = check_cell(r, 0, 1);
	c->ok = true;
	carry_init(&c->carry, btrfs, "linux-6.6.y");
	c->carry.head = c->carry.base;
	cp = set_patch(&c->carry, 0, OUTCOME_CONFLICT, false);
	cf = add_file(cp, "fs/btrfs/foo.c", OUTCOME_CONFLICT, rej_foo);
	add_hunk(cf, RULE_CONFLICT, 12, 2, "foo", NULL, NASTY_REASON);
	cp = set_patch(&c->carry, 1, OUTCOME_PARTIAL, false);
	cf = add_file(cp, "fs/btrfs/bar.c", OUTCOME_PARTIAL, rej_bar);
	add_hunk(cf, RULE_ALREADY, 20, 0, "bar_init", "bar_init", NULL);
	add_hunk(cf, RULE_CONFLICT, 44, 4, "bar_more", NULL,
		 "removed line 1 'btrfs_init_work(&b->more, ...' not found");
	cp->depends = xcalloc(1, sizeof(size_t));
	cp->depends[cp->nr_depends++] = 1;
	cp = &c->carry.patches[2];
	cp->skipped = true;
	cp->outcome = OUTCOME_CONFLICT;
	audit_init(&c->audit, 3);

	/* ext4-fix on linux-6.1.y: a conflict (its author needs quotes) */
	c = check_cell(r, 1, 0);
	c->ok = true;
	carry_init(&c->carry, ext4, "linux-6.1.y");
	c->carry.head = c->carry.base;
	cp = set_patch(&c->carry, 0, OUTCOME_CONFLICT, false);
	cf = add_file(cp, "fs/ext4/inode.c", OUTCOME_CONFLICT, NULL);
	cf->error = xstrdup("fs/ext4/inode.c does not exist in the target");
	audit_init(&c->audit, 1);

	/* ext4-fix on linux-6.6.y: could not run */
	c = check_cell(r, 1, 1);
	c->ok = false;
	c->error = xstrdup("cannot resolve 'linux-6.6.y': reference not found");
	c->error_code = ERR_NOTFOUND;
}

/* ---- running the reports and the validators --------------------------- */

typedef int (*report_fn)(FILE *out, const struct check_report *r,
			 struct err *err);

/* Write a report into dir/name and return its text. */
static char *run_report(const struct fixture *fx, report_fn fn,
			const char *name, char **path_out)
{
	char *path = fs_join(fx->dir, name);
	struct err err = ERR_INIT;
	struct buf text = BUF_INIT;
	FILE *f = fopen(path, "w");
	int rc;

	assert_non_null(f);
	rc = fn(f, &fx->r, &err);
	if (rc < 0)
		fail_msg("report failed: %s", err.msg.ptr);
	assert_int_equal(fclose(f), 0);
	if (fs_read_file(&text, path, 0, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	err_release(&err);
	if (path_out)
		*path_out = path;
	else
		free(path);
	return buf_detach(&text, NULL);
}

static int email_report(FILE *out, const struct check_report *r,
			struct err *err)
{
	struct report_email_opts opts = { NULL, NULL, DATE };

	return report_check_email(out, r, &opts, err);
}

static bool have_tool(const char *check)
{
	return system(check) == 0;
}

/* Exit status of a shell command (stdout and stderr kept for the log). */
static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...)
{
	struct buf cmd = BUF_INIT;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	buf_vaddf(&cmd, fmt, ap);
	va_end(ap);
	rc = system(cmd.ptr);
	buf_release(&cmd);
	return rc == -1 ? -1 : WEXITSTATUS(rc);
}

/* First line of a command's stdout. */
static char *capture(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static char *capture(const char *fmt, ...)
{
	struct buf cmd = BUF_INIT, out = BUF_INIT;
	char line[4096];
	va_list ap;
	FILE *p;

	va_start(ap, fmt);
	buf_vaddf(&cmd, fmt, ap);
	va_end(ap);
	p = popen(cmd.ptr, "r");
	assert_non_null(p);
	if (fgets(line, sizeof(line), p))
		buf_adds(&out, line);
	pclose(p);
	buf_rtrim(&out);
	buf_release(&cmd);
	return buf_detach(&out, NULL);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

#define assert_contains(hay, needle)                                        \
	do {                                                                \
		if (!strstr((hay), (needle)))                               \
			fail_msg("missing: %s", (needle));                  \
	} while (0)

static char *schema_path(void)
{
	return fs_join(unit_fixtures(), "../../docs/kcarry-check.schema.json");
}

/* What the last validator said, for a test that fails. */
static void show_log(const struct fixture *fx)
{
	char *log = fs_join(fx->dir, "validate.log");
	struct buf text = BUF_INIT;
	struct err err = ERR_INIT;

	if (fs_read_file(&text, log, 0, &err) == 0)
		print_error("%s", text.ptr);
	buf_release(&text);
	err_release(&err);
	free(log);
}

#define assert_valid(fx, rc)                                                \
	do {                                                                \
		int rc_ = (rc);                                             \
		if (rc_ != 0)                                               \
			show_log(fx);                                       \
		assert_int_equal(rc_, 0);                                   \
	} while (0)

#define assert_invalid(fx, rc)                                              \
	do {                                                                \
		int rc_ = (rc);                                             \
		if (rc_ <= 0)                                               \
			show_log(fx);                                       \
		assert_true(rc_ > 0);                                       \
	} while (0)

/* 0 valid, 1 invalid, -1 when python3 with jsonschema is not there. */
static int validate_json(const struct fixture *fx, const char *path)
{
	char *schema = schema_path();
	int rc;

	if (!have_tool("python3 -c 'import jsonschema' >/dev/null 2>&1")) {
		free(schema);
		return -1;
	}
	rc = run("python3 -c '"
		 "import json, sys, jsonschema\n"
		 "s = json.load(open(sys.argv[1]))\n"
		 "jsonschema.Draft202012Validator.check_schema(s)\n"
		 "v = jsonschema.Draft202012Validator(s)\n"
		 "errs = list(v.iter_errors(json.load(open(sys.argv[2]))))\n"
		 "[print(\"schema:\", list(e.absolute_path), e.message) "
		 "for e in errs]\n"
		 "sys.exit(1 if errs else 0)' '%s' '%s' >'%s/validate.log' 2>&1",
		 schema, path, fx->dir);
	free(schema);
	return rc;
}

/* 0 valid, non-zero invalid, -1 when xmllint is not there. */
static int validate_junit(const struct fixture *fx, const char *path)
{
	char *xsd = fs_join(unit_fixtures(), "report_ci/junit.xsd");
	int rc;

	if (!have_tool("xmllint --version >/dev/null 2>&1")) {
		free(xsd);
		return -1;
	}
	rc = run("xmllint --noout --schema '%s' '%s' >'%s/validate.log' 2>&1",
		 xsd, path, fx->dir);
	free(xsd);
	return rc;
}

/* ---- JSON --------------------------------------------------------------- */

/* The value at a dotted path: "cells.0.patches.1.outcome". */
static json_t *get(json_t *o, const char *path)
{
	const char *k = path;

	while (o && *k) {
		size_t n = strcspn(k, ".");
		char *key = xstrndup(k, n);

		if (json_is_array(o))
			o = json_array_get(o, strtoul(key, NULL, 10));
		else
			o = json_object_get(o, key);
		free(key);
		k += n + (k[n] == '.');
	}
	if (!o)
		fail_msg("no %s in the JSON", path);
	return o;
}

static const char *gets_(json_t *doc, const char *path)
{
	json_t *v = get(doc, path);

	if (!json_is_string(v))
		fail_msg("%s is not a string", path);
	return json_string_value(v);
}

static void json_has_every_field(void **state)
{
	struct fixture *fx = *state;
	char *text = run_report(fx, report_check_json, "check.json", NULL);
	json_error_t jerr;
	json_t *doc = json_loads(text, 0, &jerr);

	if (!doc)
		fail_msg("not JSON: %s at line %d", jerr.text, jerr.line);
	assert_string_equal(gets_(doc, "schema"), "kcarry-check/1");
	assert_true(json_real_value(get(doc, "seconds")) == 12.5);
	assert_string_equal(gets_(doc, "series.1.name"), "ext4-fix");
	assert_string_equal(gets_(doc, "series.1.version"), "6.1.170-3");
	assert_string_equal(gets_(doc, "series.1.stacks_on"), "btrfs-wq");
	assert_true(json_is_null(get(doc, "series.0.stacks_on")));
	assert_string_equal(gets_(doc, "targets.1"), "linux-6.6.y");
	assert_int_equal(json_array_size(get(doc, "cells")), 4);

	/* cells go series by series, targets within */
	assert_string_equal(gets_(doc, "cells.1.series"), "btrfs-wq");
	assert_string_equal(gets_(doc, "cells.1.target"), "linux-6.6.y");
	assert_string_equal(gets_(doc, "cells.1.outcome"), "conflict");
	assert_string_equal(gets_(doc, "cells.0.outcome"), "already-applied");
	assert_int_equal(json_integer_value(get(doc, "cells.0.counts.offset")),
			 1);
	assert_int_equal(json_integer_value(get(doc, "cells.1.failed")), 2);
	assert_int_equal(
		json_integer_value(get(doc, "cells.0.placement_risks")), 1);
	assert_string_equal(gets_(doc, "cells.0.branch"),
			    "refs/heads/kcarry/btrfs-wq/v2/linux-6.1.y");
	assert_string_equal(gets_(doc, "cells.0.base"),
			    "babababababababababababababababababababa");

	/* patches, files, hunks */
	assert_string_equal(gets_(doc, "cells.0.patches.0.subject"),
			    "btrfs: use <linux/foo.h> & \"bar\" | baz");
	assert_string_equal(gets_(doc, "cells.0.patches.0.file"),
			    "0001-btrfs-use-linux-foo.h-bar-baz.patch");
	assert_string_equal(gets_(doc, "cells.0.patches.0.commit"),
			    "1010101010101010101010101010101010101010");
	assert_true(json_is_true(get(doc, "cells.0.patches.1.risk")));
	assert_string_equal(gets_(doc, "cells.0.patches.1.outcome"), "offset");
	assert_string_equal(
		gets_(doc, "cells.0.patches.1.files.0.hunks.1.found_function"),
		"bar_other");
	assert_int_equal(json_integer_value(get(
				 doc, "cells.0.patches.1.files.0.hunks.1.offset")),
			 30);
	assert_string_equal(gets_(doc, "cells.0.patches.2.outcome"),
			    "already-applied");
	assert_true(json_is_true(get(doc, "cells.0.patches.2.watched.file")));
	assert_true(json_is_true(get(doc, "cells.0.patches.1.watched.caller")));
	assert_true(json_is_false(get(doc, "cells.0.patches.0.watched.file")));
	assert_string_equal(gets_(doc, "cells.1.patches.0.files.0.hunks.0.rule"),
			    "conflict");
	assert_string_equal(
		gets_(doc, "cells.1.patches.0.files.0.hunks.0.reason"),
		NASTY_REASON);
	assert_string_equal(gets_(doc, "cells.1.patches.0.files.0.rej"),
			    rej_foo);
	assert_true(json_is_null(get(doc, "cells.1.patches.0.commit")));
	assert_string_equal(gets_(doc, "cells.1.patches.1.outcome"), "partial");
	assert_int_equal(json_integer_value(
				 get(doc, "cells.1.patches.1.depends_on.0")),
			 1);
	assert_string_equal(gets_(doc, "cells.1.patches.2.outcome"),
			    "not-tried");
	assert_string_equal(gets_(doc, "cells.2.patches.0.files.0.error"),
			    "fs/ext4/inode.c does not exist in the target");

	/* the watch audit */
	assert_string_equal(gets_(doc, "cells.0.audit.watched.1"),
			    "fs/btrfs/async-thread.h");
	assert_string_equal(gets_(doc, "cells.0.audit.changes.0.name"),
			    "btrfs_init_work");
	assert_string_equal(gets_(doc, "cells.0.audit.changes.0.kind"),
			    "function");
	assert_string_equal(gets_(doc, "cells.0.audit.changes.0.change"),
			    "changed");
	assert_string_equal(gets_(doc, "cells.0.audit.unconverted.0.path"),
			    "fs/btrfs/disk-io.c");
	assert_int_equal(json_integer_value(
				 get(doc, "cells.0.audit.unconverted.0.line")),
			 123);
	assert_string_equal(gets_(doc, "cells.0.audit.unconverted.0.function"),
			    "end_workqueue_fn");
	assert_string_equal(gets_(doc, "cells.0.audit.unconverted.0.kind"),
			    "call");
	assert_int_equal(json_array_size(get(doc, "cells.1.audit.absent")), 0);

	/* the cell that could not run */
	assert_true(json_is_false(get(doc, "cells.3.ok")));
	assert_string_equal(gets_(doc, "cells.3.error"),
			    "cannot resolve 'linux-6.6.y': reference not found");
	assert_true(json_is_null(get(doc, "cells.3.outcome")));
	assert_true(json_is_null(get(doc, "cells.3.audit")));
	assert_true(json_is_null(get(doc, "cells.0.error")));

	json_decref(doc);
	free(text);
}

static void json_validates_against_documented_schema(void **state)
{
	struct fixture *fx = *state;
	char *path, *text = run_report(fx, report_check_json, "valid.json",
				       &path);
	int rc = validate_json(fx, path);

	if (rc < 0) {
		free(path);
		free(text);
		skip();
	}
	assert_valid(fx, rc);
	free(path);
	free(text);
}

/* The schema is strict enough to notice a report that drifts from it. */
static void json_schema_rejects_unknown_outcome_and_field(void **state)
{
	struct fixture *fx = *state;
	char *path;
	char *text = run_report(fx, report_check_json, "bad.json", &path);
	json_t *doc = json_loads(text, 0, NULL), *cell;
	struct err err = ERR_INIT;
	char *bad;

	assert_non_null(doc);
	cell = json_array_get(json_object_get(doc, "cells"), 0);
	json_object_set_new(cell, "outcome", json_string("mostly-fine"));
	bad = json_dumps(doc, 0);
	assert_int_equal(fs_write_atomic(path, bad, strlen(bad), &err), 0);
	free(bad);
	if (validate_json(fx, path) < 0) {
		json_decref(doc);
		free(path);
		free(text);
		skip();
	}
	assert_invalid(fx, validate_json(fx, path));

	json_object_set_new(cell, "outcome", json_string("clean"));
	json_object_set_new(cell, "colour", json_string("green"));
	bad = json_dumps(doc, 0);
	assert_int_equal(fs_write_atomic(path, bad, strlen(bad), &err), 0);
	free(bad);
	assert_invalid(fx, validate_json(fx, path));

	json_decref(doc);
	err_release(&err);
	free(path);
	free(text);
}

/* The example in docs/check-json-schema.md is a valid report too. */
static void json_documented_example_validates(void **state)
{
	struct fixture *fx = *state;
	char *doc = fs_join(unit_fixtures(), "../../docs/check-json-schema.md");
	char *path = fs_join(fx->dir, "example.json");
	struct buf md = BUF_INIT;
	struct err err = ERR_INIT;
	const char *start, *end;
	json_t *example;
	int rc;

	if (fs_read_file(&md, doc, 0, &err) < 0)
		fail_msg("%s", err.msg.ptr);
	start = strstr(md.ptr, "```json\n");
	assert_non_null(start);
	start += strlen("```json\n");
	end = strstr(start, "\n```\n");
	assert_non_null(end);
	example = json_loadb(start, (size_t)(end - start), 0, NULL);
	assert_non_null(example);
	assert_string_equal(json_string_value(json_object_get(example,
							      "schema")),
			    REPORT_CHECK_SCHEMA);
	json_decref(example);
	assert_int_equal(fs_write_atomic(path, start, (size_t)(end - start),
					 &err),
			 0);
	rc = validate_json(fx, path);
	buf_release(&md);
	err_release(&err);
	free(doc);
	free(path);
	if (rc < 0)
		skip();
	assert_valid(fx, rc);
}

/* ---- JUnit -------------------------------------------------------------- */

static void junit_validates_against_jenkins_xsd(void **state)
{
	struct fixture *fx = *state;
	char *path, *text = run_report(fx, report_check_junit, "junit.xml",
				       &path);
	int rc = validate_junit(fx, path);

	if (rc < 0) {
		free(path);
		free(text);
		skip();
	}
	assert_valid(fx, rc);
	free(path);
	free(text);
}

/* The XSD is strict: a testcase without a name, or an attribute it does
 * not know, fails. */
static void junit_xsd_rejects_what_jenkins_would_not_read(void **state)
{
	struct fixture *fx = *state;
	char *path = fs_join(fx->dir, "bad.xml");
	struct err err = ERR_INIT;
	static const char no_name[] =
		"<testsuites><testsuite name=\"x\" tests=\"1\">"
		"<testcase classname=\"a\"/></testsuite></testsuites>\n";
	static const char unknown[] =
		"<testsuites><testsuite name=\"x\" tests=\"1\" colour=\"red\">"
		"<testcase name=\"a\"/></testsuite></testsuites>\n";

	assert_int_equal(fs_write_atomic(path, no_name, strlen(no_name), &err),
			 0);
	if (validate_junit(fx, path) < 0) {
		free(path);
		skip();
	}
	assert_invalid(fx, validate_junit(fx, path));
	assert_int_equal(fs_write_atomic(path, unknown, strlen(unknown), &err),
			 0);
	assert_invalid(fx, validate_junit(fx, path));
	err_release(&err);
	free(path);
}

static void junit_maps_outcomes_to_failure_skipped_error(void **state)
{
	struct fixture *fx = *state;
	char *path;
	char *text = run_report(fx, report_check_junit, "map.xml", &path);
	char *v;

	assert_contains(text, "<testsuites name=\"kcarry check\" tests=\"14\" "
			      "failures=\"5\" errors=\"1\" time=\"12.500\">");
	/* several series: suites say which */
	assert_contains(text, "<testsuite name=\"btrfs-wq@v2 on linux-6.1.y\" "
			      "tests=\"5\" failures=\"2\" errors=\"0\" "
			      "skipped=\"1\">");
	assert_contains(text, "<testsuite name=\"btrfs-wq@v2 on linux-6.6.y\" "
			      "tests=\"5\" failures=\"2\" errors=\"0\" "
			      "skipped=\"1\">");
	assert_contains(text, "<testsuite name=\"ext4-fix@6.1.170-3 on "
			      "linux-6.6.y\" tests=\"1\" failures=\"0\" "
			      "errors=\"1\" skipped=\"0\">");
	/* dots inside a part would split Jenkins' package/class */
	assert_contains(text, "classname=\"ext4-fix.6_1_170-3.linux-6_1_y\"");
	assert_contains(text, "<testcase classname=\"btrfs-wq.v2.linux-6_1_y\" "
			      "name=\"0003 btrfs: drop the ordered helper\" "
			      "time=\"0\">\n      <skipped message=\"already "
			      "applied\"/>");
	assert_contains(text, "name=\"0003 btrfs: drop the ordered helper\" "
			      "time=\"0\">\n      <skipped message=\"not "
			      "tried\"/>");
	assert_contains(text, "<failure message=\"1 hunk lands outside the "
			      "function its header names\" "
			      "type=\"placement-risk\">");
	assert_contains(text, "<failure message=\"partially applied: 1 hunk "
			      "does not apply\" type=\"conflict\">");
	assert_contains(text, "  fs/btrfs/bar.c hunk 2: conflict near line 44 "
			      "(offset +4): removed line 1 ");
	assert_contains(text, "fs/btrfs/bar.c.rej:\n--- fs/btrfs/bar.c\n");
	assert_contains(text, "-\tbtrfs_init_work(&amp;b-&gt;more, more_fn, "
			      "NULL, NULL);\n");
	assert_contains(text, "touches lines of failed patches: 0001\n");
	assert_contains(text, "watch: changes a line that uses a watched "
			      "symbol\n");
	assert_contains(text, "<failure message=\"1 site still uses a changed "
			      "or removed symbol\" type=\"unconverted-callers\">"
			      "changed symbols:\n  function btrfs_init_work "
			      "changed: ");
	assert_contains(text, "  fs/btrfs/disk-io.c:123 end_workqueue_fn(): "
			      "call of btrfs_init_work: btrfs_init_work("
			      "&amp;w-&gt;work, fn, NULL, NULL);\n");
	/* passing watch testcases where there is nothing to report */
	assert_contains(text, "<testcase classname=\"btrfs-wq.v2.linux-6_6_y\" "
			      "name=\"watch: unconverted callers\" "
			      "time=\"0\"/>");
	assert_contains(text, "<error message=\"cannot resolve "
			      "'linux-6.6.y': reference not found\" "
			      "type=\"check\">");
	assert_contains(text, "<property name=\"head\" "
			      "value=\"1111111111111111111111111111111111111111\"/>");

	/* and what an XML parser makes of it */
	if (!have_tool("xmllint --version >/dev/null 2>&1")) {
		free(path);
		free(text);
		skip();
	}
	v = capture("xmllint --xpath 'count(//testcase[failure])' '%s'", path);
	assert_string_equal(v, "5");
	free(v);
	v = capture("xmllint --xpath 'count(//testcase[skipped])' '%s'", path);
	assert_string_equal(v, "2");
	free(v);
	v = capture("xmllint --xpath 'count(//testcase[error])' '%s'", path);
	assert_string_equal(v, "1");
	free(v);
	v = capture("xmllint --xpath 'count(//testcase[starts-with(@name, "
		    "\"watch: \")])' '%s'",
		    path);
	assert_string_equal(v, "6");
	free(v);
	free(path);
	free(text);
}

static void junit_escapes_markup_and_control_characters(void **state)
{
	struct fixture *fx = *state;
	char *path;
	char *text = run_report(fx, report_check_junit, "esc.xml", &path);
	char *v;

	assert_contains(text, "name=\"0001 btrfs: use &lt;linux/foo.h&gt; "
			      "&amp; &quot;bar&quot; | baz\"");
	/* the control character is gone, replaced by U+FFFD */
	assert_null(strchr(text, '\x01'));
	assert_contains(text, "fs/btrfs/foo.c hunk 1: conflict near line 12 "
			      "(offset +2): context &quot;x&quot; &amp; "
			      "&lt;y&gt; differ\xef\xbf\xbd here\n");
	if (!have_tool("xmllint --version >/dev/null 2>&1")) {
		free(path);
		free(text);
		skip();
	}
	v = capture("xmllint --xpath 'string(//testsuite[2]/testcase[1]/@name)' "
		    "'%s'",
		    path);
	assert_string_equal(v, "0001 btrfs: use <linux/foo.h> & \"bar\" | baz");
	free(v);
	free(path);
	free(text);
}

static void junit_single_series_suites_are_named_by_target(void **state)
{
	struct fixture *fx = *state;
	struct check_report one = fx->r;
	struct err err = ERR_INIT;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	one.nr_series = 1; /* the cells of series 0 come first */
	assert_int_equal(report_check_junit(f, &one, &err), 0);
	fclose(f);
	assert_contains(buf, "<testsuite name=\"linux-6.1.y\" tests=\"5\"");
	assert_contains(buf, "<testsuite name=\"linux-6.6.y\" tests=\"5\"");
	assert_null(strstr(buf, "<testsuite name=\"btrfs-wq@"));
	free(buf);
}

/* ---- Markdown ------------------------------------------------------------ */

/* Unescaped '|' in a table row: the columns a renderer sees, plus one. */
static size_t pipes(const char *line, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		if (line[i] == '|' && (!i || line[i - 1] != '\\'))
			n++;
	return n;
}

static void markdown_table_has_a_column_per_target(void **state)
{
	struct fixture *fx = *state;
	char *text = run_report(fx, report_check_markdown, "check.md", NULL);
	size_t rows = 0;

	assert_contains(text, "## kcarry check: 2 series on 2 targets\n");
	assert_contains(text, "### btrfs-wq@v2\n\n| Patch | linux-6.1.y | "
			      "linux-6.6.y |\n| --- | --- | --- |\n");
	assert_contains(text, "### ext4-fix@6.1.170-3 (on top of btrfs-wq)\n");
	assert_contains(text, "| 0002 btrfs: convert bar to the new work API | "
			      "**offset, risk** | **partially applied** |\n");
	assert_contains(text, "| 0003 btrfs: drop the ordered helper | already "
			      "applied | not tried |\n");
	assert_contains(text, "| 0001 ext4: fix the thing | **conflict** | "
			      "error |\n");
	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);

		if (len && l[0] == '|') {
			assert_int_equal(pipes(l, len), 2 + 2);
			rows++;
		}
		l += len + (nl != NULL);
	}
	assert_int_equal(rows, 2 * 2 + 3 + 1);
	free(text);
}

static void markdown_escapes_cells_and_details(void **state)
{
	struct fixture *fx = *state;
	char *text = run_report(fx, report_check_markdown, "esc.md", NULL);

	assert_contains(text, "| 0001 btrfs: use \\<linux/foo.h\\> \\& \"bar\" "
			      "\\| baz | clean | **conflict** |\n");
	assert_contains(text, "<details><summary>0001 btrfs: use "
			      "&lt;linux/foo.h&gt; &amp; &quot;bar&quot; | "
			      "baz: conflict</summary>\n");
	free(text);
}

static void markdown_lists_failures_and_watch_findings(void **state)
{
	struct fixture *fx = *state;
	char *text = run_report(fx, report_check_markdown, "find.md", NULL);

	assert_contains(text, "### Failures and findings\n\n"
			      "#### linux-6.1.y: btrfs-wq@v2\n\n");
	assert_contains(text, "<details><summary>0002 btrfs: convert bar to "
			      "the new work API: offset, placement "
			      "risk</summary>\n\n- fs/btrfs/bar.c hunk 2: offset "
			      "at line 70 (offset +30) RISK (in bar\\_other(), "
			      "header names bar\\_more()): lands in "
			      "bar\\_other(), the header names bar\\_more()\n");
	assert_contains(text, "`fs/btrfs/foo.c`.rej:\n\n```diff\n--- "
			      "fs/btrfs/foo.c\n");
	assert_contains(text, "- touches lines of failed patch 0001\n");
	assert_contains(text, "Watch findings (`fs/btrfs/async-thread.c`, "
			      "`fs/btrfs/async-thread.h`):\n\n"
			      "- `btrfs_init_work` (function) changed: ");
	assert_contains(text, "Unconverted callers:\n\n"
			      "- `fs/btrfs/disk-io.c:123` `end_workqueue_fn()`: "
			      "call of `btrfs_init_work`: "
			      "`btrfs_init_work(&w->work, fn, NULL, NULL);`\n");
	assert_contains(text, "#### linux-6.6.y: ext4-fix@6.1.170-3\n\n"
			      "Could not run: cannot resolve 'linux-6.6.y': "
			      "reference not found\n");
	/* cells without findings get no section */
	assert_null(strstr(text, "#### linux-6.6.y: btrfs-wq@v2\n\nWatch"));
	assert_contains(text, "**Totals:** 1 clean, 1 offset, 1 already "
			      "applied, 1 partially applied, 2 conflict, 1 not "
			      "tried; 1 placement risk; 1 unconverted caller; 0 "
			      "absent callers; 1 cell could not run.\n");
	free(text);
}

/* ---- email -------------------------------------------------------------- */

/* The message of the mbox whose Message-ID holds id, up to the next one. */
static char *message_with(const char *mbox, const char *id)
{
	const char *at = strstr(mbox, id), *start, *end;

	if (!at)
		fail_msg("no message %s", id);
	for (start = at; start > mbox && strncmp(start, "\nFrom kcarry ", 13);
	     start--)
		;
	end = strstr(at, "\nFrom kcarry ");
	return xstrndup(start, end ? (size_t)(end - start) : strlen(start));
}

static void email_one_message_per_failing_patch_and_target(void **state)
{
	struct fixture *fx = *state;
	char *text = run_report(fx, email_report, "failed.mbox", NULL);

	assert_true(
		starts_with(text, "From kcarry Thu Jan  1 00:00:00 1970\n"));
	/* 0001 and 0002 of btrfs-wq on 6.6, 0001 of ext4-fix on 6.1 */
	assert_int_equal(count(text, "From kcarry Thu Jan  1 00:00:00 1970\n"),
			 3);
	assert_contains(text, "Message-ID: "
			      "<kcarry.btrfs-wq.v2.linux-6.6.y.0001@localhost>\n");
	assert_contains(text, "Message-ID: "
			      "<kcarry.btrfs-wq.v2.linux-6.6.y.0002@localhost>\n");
	assert_contains(text, "Message-ID: <kcarry.ext4-fix.6.1.170-3."
			      "linux-6.1.y.0001@localhost>\n");
	assert_int_equal(count(text, "\nDate: Tue, 14 Nov 2023 22:13:20 "
				     "+0000\n"),
			 3);
	assert_int_equal(count(text, "\nFrom: kcarry <kcarry@localhost>\n"), 3);
	free(text);
}

static void email_says_what_failed_and_how_to_reproduce(void **state)
{
	struct fixture *fx = *state;
	char *text = run_report(fx, email_report, "say.mbox", NULL);
	char *m = message_with(text, "linux-6.6.y.0002@");

	assert_contains(m, "\nSubject: FAILED: patch \"btrfs: convert bar to "
			   "the new work API\" failed to apply to linux-6.6.y "
			   "tree\n");
	assert_contains(m, "\n\nThe patch below does not apply to the "
			   "linux-6.6.y tree.\nIf someone wants it applied "
			   "there, please resolve it and send a backport.\n\n"
			   "To reproduce the conflict and resubmit, you may "
			   "use the following commands:\n\n"
			   "  kcarry apply btrfs-wq@v2 linux-6.6.y\n"
			   "  kcarry resolve btrfs-wq@v2 linux-6.6.y 0002\n"
			   "  # edit, then\n"
			   "  kcarry refresh btrfs-wq@v2 linux-6.6.y\n\n"
			   "Possible dependencies:\n"
			   "  0001 btrfs: use <linux/foo.h> & \"bar\" | baz\n\n"
			   "Conflicting hunks:\n\n"
			   "  fs/btrfs/bar.c hunk 2: conflict near line 44 "
			   "(offset +4): removed line 1 ");
	/* the hunk that was already there is no conflict */
	assert_null(strstr(m, "bar.c hunk 1"));
	assert_contains(m, "\nfs/btrfs/bar.c.rej:\n");
	assert_contains(m, rej_bar);
	assert_contains(m, "\n------------------ original patch "
			   "------------------\n>From "
			   "2222222222222222222222222222222222222222 Mon Sep 17 "
			   "00:00:00 2001\n");
	assert_contains(m, "+\tbtrfs_init_work(&b->more, more_fn, NULL);\n }\n");
	free(m);
	m = message_with(text, "linux-6.6.y.0001@");
	assert_contains(m, "Possible dependencies:\n  none known\n");
	assert_contains(m, "  fs/btrfs/foo.c hunk 1: conflict near line 12 ");
	free(m);
	m = message_with(text, "linux-6.1.y.0001@");
	assert_contains(m, "\n  fs/ext4/inode.c: fs/ext4/inode.c does not exist "
			   "in the target\n");
	assert_contains(m, "  kcarry resolve ext4-fix@6.1.170-3 linux-6.1.y "
			   "0001\n");
	free(m);
	free(text);
}

static void email_quotes_from_lines_mboxrd(void **state)
{
	struct fixture *fx = *state;
	char *text = run_report(fx, email_report, "rd.mbox", NULL);
	char *m = message_with(text, "linux-6.6.y.0001@");
	struct mail_list l = { NULL };
	struct err err = ERR_INIT;

	assert_contains(m, "\n>From the department of redundancy: mboxrd "
			   "quotes this line.\n>>From here too, one level "
			   "deeper.\n");
	assert_null(strstr(m, "\nFrom the department"));
	free(m);

	/* and kcarry's own mbox reader gets the messages back */
	if (mail_read_mbox(&l, text, strlen(text), "rd.mbox", &err) < 0)
		fail_msg("%s", err.msg.ptr);
	assert_int_equal(l.nr, 3);
	assert_string_equal(l.items[0].subject,
			    "FAILED: patch \"btrfs: use <linux/foo.h> & \"bar\" "
			    "| baz\" failed to apply to linux-6.6.y tree");
	assert_non_null(strstr(l.items[0].body.ptr,
			       "\nFrom the department of redundancy"));
	assert_non_null(strstr(l.items[0].body.ptr, "\n>From here too"));
	mail_list_release(&l);
	err_release(&err);
	free(text);
}

static void email_encodes_non_ascii_and_quotes_author(void **state)
{
	struct fixture *fx = *state;
	char *text = run_report(fx, email_report, "2047.mbox", NULL);
	char *m = message_with(text, "linux-6.6.y.0002@");
	struct mail_list l = { NULL };
	struct err err = ERR_INIT;

	assert_contains(m, "\nTo: =?UTF-8?q?J=C3=B6rg_M=C3=BCller?= "
			   "<joerg@example.org>\n");
	free(m);
	m = message_with(text, "linux-6.1.y.0001@");
	assert_contains(m, "\nTo: \"Doe, J.\" <jdoe@example.org>\n");
	free(m);

	if (mail_read_mbox(&l, text, strlen(text), "2047.mbox", &err) < 0)
		fail_msg("%s", err.msg.ptr);
	assert_int_equal(l.nr, 3);
	assert_string_equal(mail_header(&l.items[1], "To"),
			    "J\xc3\xb6rg M\xc3\xbcller <joerg@example.org>");
	mail_list_release(&l);
	err_release(&err);
	free(text);
}

static void email_uses_from_and_to_options(void **state)
{
	struct fixture *fx = *state;
	struct report_email_opts opts = { "Stable Bot <bot@example.org>",
					  "stable@vger.kernel.org", DATE };
	struct err err = ERR_INIT;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(report_check_email(f, &fx->r, &opts, &err), 0);
	fclose(f);
	assert_int_equal(count(buf, "\nFrom: Stable Bot <bot@example.org>\n"),
			 3);
	assert_int_equal(count(buf, "\nTo: stable@vger.kernel.org\n"), 3);
	free(buf);
}

/* ---- all formats ------------------------------------------------------ */

static void write_failure_is_an_io_error(void **state)
{
	struct fixture *fx = *state;
	report_fn fns[] = { report_check_json, report_check_junit,
			    report_check_markdown, email_report };

	if (access("/dev/full", W_OK) != 0)
		skip();
	for (size_t i = 0; i < sizeof(fns) / sizeof(*fns); i++) {
		struct err err = ERR_INIT;
		FILE *f = fopen("/dev/full", "w");

		assert_non_null(f);
		assert_int_equal(fns[i](f, &fx->r, &err), ERR_IO);
		assert_true(starts_with(err.msg.ptr, "cannot write the "));
		fclose(f);
		err_release(&err);
	}
}

static void empty_report_is_valid_everywhere(void **state)
{
	struct fixture *fx = *state;
	struct fixture empty = { { NULL }, fx->dir };
	char *path, *text;
	int rc;

	text = run_report(&empty, report_check_json, "empty.json", &path);
	assert_contains(text, "\"cells\": []");
	if ((rc = validate_json(fx, path)) >= 0)
		assert_valid(fx, rc);
	free(path);
	free(text);
	text = run_report(&empty, report_check_junit, "empty.xml", &path);
	assert_contains(text, "<testsuites name=\"kcarry check\" tests=\"0\" "
			      "failures=\"0\" errors=\"0\" time=\"0.000\">\n"
			      "</testsuites>\n");
	if ((rc = validate_junit(fx, path)) >= 0)
		assert_valid(fx, rc);
	free(path);
	free(text);
	text = run_report(&empty, report_check_markdown, "empty.md", NULL);
	assert_contains(text, "**Totals:** no patches;");
	free(text);
	text = run_report(&empty, email_report, "empty.mbox", NULL);
	assert_string_equal(text, "");
	free(text);
}

static int setup(void **state)
{
	struct fixture *fx = xcalloc(1, sizeof(*fx));
	char tmpl[] = "/tmp/kcarry-report-ci-XXXXXX";

	if (!mkdtemp(tmpl))
		return -1;
	fx->dir = xstrdup(tmpl);
	build_report(&fx->r);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	struct err err = ERR_INIT;

	if (!getenv("KCARRY_KEEP"))
		fs_remove_tree(fx->dir, &err);
	err_release(&err);
	check_report_release(&fx->r); /* what check.c frees, it owns */
	free(fx->dir);
	free(fx);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(json_has_every_field),
		cmocka_unit_test(json_validates_against_documented_schema),
		cmocka_unit_test(json_schema_rejects_unknown_outcome_and_field),
		cmocka_unit_test(json_documented_example_validates),
		cmocka_unit_test(junit_validates_against_jenkins_xsd),
		cmocka_unit_test(junit_xsd_rejects_what_jenkins_would_not_read),
		cmocka_unit_test(junit_maps_outcomes_to_failure_skipped_error),
		cmocka_unit_test(junit_escapes_markup_and_control_characters),
		cmocka_unit_test(junit_single_series_suites_are_named_by_target),
		cmocka_unit_test(markdown_table_has_a_column_per_target),
		cmocka_unit_test(markdown_escapes_cells_and_details),
		cmocka_unit_test(markdown_lists_failures_and_watch_findings),
		cmocka_unit_test(email_one_message_per_failing_patch_and_target),
		cmocka_unit_test(email_says_what_failed_and_how_to_reproduce),
		cmocka_unit_test(email_quotes_from_lines_mboxrd),
		cmocka_unit_test(email_encodes_non_ascii_and_quotes_author),
		cmocka_unit_test(email_uses_from_and_to_options),
		cmocka_unit_test(write_failure_is_an_io_error),
		cmocka_unit_test(empty_report_is_valid_everywhere),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
