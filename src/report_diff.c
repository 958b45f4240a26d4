#include "report_diff.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "report.h"

/* A patch outcome as the diff sees it. */
/* ST_ADAPTED waits for a person (or a build): worse than applying,
 * better than failing */
enum state { ST_UNKNOWN, ST_APPLIES, ST_UPSTREAM, ST_ADAPTED, ST_FAILS };

struct diff_ctx {
	json_t *regressions, *fixes, *upstreamed;
	const json_t *bcell, *ncell; /* bcell NULL: the base lacks the cell */
};

struct item {
	const json_t *patch; /* NULL: about the whole cell */
	const char *what, *from, *to;
};

static const char *jstr(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static bool jtrue(const json_t *o, const char *key)
{
	return json_is_true(json_object_get(o, key));
}

static enum state state_of(const char *outcome)
{
	static const char *const applies[] = { "clean", "offset", "fuzzy",
					       "3-way", NULL };

	if (!outcome)
		return ST_UNKNOWN;
	for (size_t i = 0; applies[i]; i++)
		if (!strcmp(outcome, applies[i]))
			return ST_APPLIES;
	if (!strcmp(outcome, "already-applied"))
		return ST_UPSTREAM;
	if (!strcmp(outcome, "adapted"))
		return ST_ADAPTED;
	if (!strcmp(outcome, "conflict") || !strcmp(outcome, "partial"))
		return ST_FAILS;
	return ST_UNKNOWN; /* not-tried, an outcome this kcarry does not know */
}

static void add(json_t *list, const struct diff_ctx *dc, const struct item *it)
{
	json_t *o = json_object(), *idx = NULL;

	if (it->patch)
		idx = json_object_get(it->patch, "index");
	json_object_set_new(o, "series", report_json_str(jstr(dc->ncell, "series")));
	json_object_set_new(o, "version", report_json_str(jstr(dc->ncell, "version")));
	json_object_set_new(o, "target", report_json_str(jstr(dc->ncell, "target")));
	json_object_set_new(o, "patch", json_is_integer(idx) ? json_copy(idx)
							    : json_null());
	json_object_set_new(o, "subject",
			    report_json_str(it->patch ? jstr(it->patch, "subject")
						      : NULL));
	json_object_set_new(o, "what", report_json_str(it->what));
	json_object_set_new(o, "from", report_json_str(it->from));
	json_object_set_new(o, "to", report_json_str(it->to));
	json_array_append_new(list, o);
}

/* The key a patch pairs by: its subject, else its file. */
static const char *patch_key(const json_t *p)
{
	const char *s = jstr(p, "subject");

	return s ? s : jstr(p, "file");
}

static const json_t *find_patch(const json_t *cell, const char *key)
{
	const json_t *patches = json_object_get(cell, "patches"), *p;
	size_t i;

	if (!key)
		return NULL;
	json_array_foreach(patches, i, p) {
		const char *k = patch_key(p);
		if (k && !strcmp(k, key))
			return p;
	}
	return NULL;
}

static void compare_outcome(const struct diff_ctx *dc, const json_t *bp,
			    const json_t *np)
{
	const char *bo = bp ? jstr(bp, "outcome") : NULL;
	const char *no = jstr(np, "outcome");
	enum state b = state_of(bo), n = state_of(no);
	struct item it = { np, "outcome", bo ? bo : "unknown", no };

	if ((n == ST_FAILS && b != ST_FAILS) ||
	    (n == ST_ADAPTED && b != ST_ADAPTED && b != ST_FAILS))
		add(dc->regressions, dc, &it);
	else if (n == ST_UPSTREAM && b != ST_UPSTREAM)
		add(dc->upstreamed, dc, &it);
	else if ((b == ST_FAILS && (n == ST_APPLIES || n == ST_ADAPTED)) ||
		 (b == ST_ADAPTED && n == ST_APPLIES))
		add(dc->fixes, dc, &it);
}

static void compare_risk(const struct diff_ctx *dc, const json_t *bp,
			 const json_t *np)
{
	bool br = bp && jtrue(bp, "risk"), nr = jtrue(np, "risk");
	const char *bo = bp ? jstr(bp, "outcome") : NULL;
	struct item it = { np, "new-risk", bo ? bo : "unknown",
			   jstr(np, "outcome") };

	if (state_of(it.to) == ST_FAILS)
		return; /* the outcome says it */
	if (nr && !br)
		add(dc->regressions, dc, &it);
	else if (br && !nr && bp) {
		it.what = "risk-gone";
		add(dc->fixes, dc, &it);
	}
}

static void compare_patches(const struct diff_ctx *dc)
{
	const json_t *patches = json_object_get(dc->ncell, "patches"), *np;
	size_t i;

	json_array_foreach(patches, i, np) {
		const json_t *bp = dc->bcell && jtrue(dc->bcell, "ok")
					   ? find_patch(dc->bcell, patch_key(np))
					   : NULL;
		compare_outcome(dc, bp, np);
		compare_risk(dc, bp, np);
	}
}

/* 0 builds (or nothing to build), 1 new warnings, 2 errors; -1 unknown */
static int build_rank(const json_t *cell)
{
	const char *st = jstr(json_object_get(cell, "build"), "status");

	if (!st)
		return -1;
	if (!strcmp(st, "ok") || !strcmp(st, "skipped"))
		return 0;
	return !strcmp(st, "warnings") ? 1 : 2;
}

static void compare_build(const struct diff_ctx *dc)
{
	int b = dc->bcell ? build_rank(dc->bcell) : -1;
	int n = build_rank(dc->ncell);
	const char *bs = dc->bcell ? jstr(json_object_get(dc->bcell, "build"),
					  "status")
				   : NULL;
	struct item it = { NULL, "build", bs ? bs : "unknown",
			   jstr(json_object_get(dc->ncell, "build"),
				"status") };

	if (n < 0)
		return;
	if (n > 0 && n > b)
		add(dc->regressions, dc, &it);
	else if (b > n && b > 0)
		add(dc->fixes, dc, &it);
}

static void site_key(struct buf *k, const json_t *s)
{
	const char *parts[] = { jstr(s, "path"), jstr(s, "function"),
				jstr(s, "symbol"), jstr(s, "text") };

	buf_truncate(k, 0);
	for (size_t i = 0; i < 4; i++) {
		buf_adds(k, parts[i] ? parts[i] : "");
		buf_addc(k, '\n');
	}
}

static bool has_site(const json_t *cell, const struct buf *key)
{
	const json_t *list = json_object_get(json_object_get(cell, "audit"),
					     "unconverted"), *s;
	struct buf k = BUF_INIT;
	bool found = false;
	size_t i;

	json_array_foreach(list, i, s) {
		site_key(&k, s);
		if ((found = !strcmp(k.ptr, key->ptr)))
			break;
	}
	buf_release(&k);
	return found;
}

/*
 * Whether the cell's result still removes or changes symbol: when the
 * change did not land (its patch conflicts), no caller of it is flagged,
 * and that is no fix.
 */
static bool still_changes(const json_t *cell, const char *symbol)
{
	const json_t *ch = json_object_get(json_object_get(cell, "audit"),
					   "changes"), *c;
	size_t i;

	json_array_foreach(ch, i, c) {
		const char *name = jstr(c, "name"), *how = jstr(c, "change");
		if (name && symbol && !strcmp(name, symbol) && how &&
		    strcmp(how, "added"))
			return true;
	}
	return false;
}

/*
 * Sites of a's audit that b's lacks go to list (b NULL: all of them).
 * fixed: a is the base; a site counts only when b still changes its
 * symbol.
 */
static void sites_only_in(const struct diff_ctx *dc, const json_t *a,
			  const json_t *b, json_t *list, const char *what)
{
	const json_t *sites = json_object_get(json_object_get(a, "audit"),
					      "unconverted"), *s;
	struct buf k = BUF_INIT, d = BUF_INIT;
	size_t i;

	json_array_foreach(sites, i, s) {
		struct item it = { NULL, what, NULL, NULL };
		site_key(&k, s);
		if (b && has_site(b, &k))
			continue;
		if (!strcmp(what, "converted") &&
		    !still_changes(b, jstr(s, "symbol")))
			continue;
		buf_truncate(&d, 0);
		buf_addf(&d, "%s:%lld %s%s %s", jstr(s, "path") ? jstr(s, "path") : "?",
			 (long long)json_integer_value(json_object_get(s, "line")),
			 jstr(s, "function") ? jstr(s, "function") : "(file scope)",
			 jstr(s, "function") ? "()" : "",
			 jstr(s, "symbol") ? jstr(s, "symbol") : "?");
		it.to = d.ptr;
		add(list, dc, &it);
	}
	buf_release(&k);
	buf_release(&d);
}

static void compare_cell(struct diff_ctx *dc)
{
	bool bok = dc->bcell && jtrue(dc->bcell, "ok");
	bool nok = jtrue(dc->ncell, "ok");
	struct item it = { NULL, "cell", bok ? "ran" : "unknown",
			   nok ? "ran" : jstr(dc->ncell, "error") };

	if (!jtrue(dc->ncell, "in_shard") &&
	    json_object_get(dc->ncell, "in_shard"))
		return; /* another shard's cell: nothing known here */
	if (!nok) {
		if (bok || !dc->bcell)
			add(dc->regressions, dc, &it);
		return;
	}
	if (dc->bcell && !bok) {
		it.from = jstr(dc->bcell, "error");
		it.to = "ran";
		add(dc->fixes, dc, &it);
	}
	compare_patches(dc);
	compare_build(dc);
	sites_only_in(dc, dc->ncell, bok ? dc->bcell : NULL, dc->regressions,
		      "unconverted");
	if (bok)
		sites_only_in(dc, dc->bcell, dc->ncell, dc->fixes,
			      "converted");
}

static const json_t *find_cell(const json_t *doc, const char *series,
			       const char *target)
{
	const json_t *cells = json_object_get(doc, "cells"), *c;
	size_t i;

	if (!series || !target)
		return NULL;
	json_array_foreach(cells, i, c) {
		const char *s = jstr(c, "series"), *t = jstr(c, "target");
		if (s && t && !strcmp(s, series) && !strcmp(t, target))
			return c;
	}
	return NULL;
}

json_t *report_diff_compare(const json_t *base, const json_t *cur)
{
	json_t *out = json_object();
	struct diff_ctx dc = { json_array(), json_array(), json_array(),
			       NULL, NULL };
	const json_t *c;
	size_t i;

	json_array_foreach(json_object_get(cur, "cells"), i, c) {
		dc.ncell = c;
		dc.bcell = find_cell(base, jstr(c, "series"), jstr(c, "target"));
		compare_cell(&dc);
	}
	json_object_set_new(out, "schema", json_string(REPORT_DIFF_SCHEMA));
	json_object_set_new(out, "regressions", dc.regressions);
	json_object_set_new(out, "fixes", dc.fixes);
	json_object_set_new(out, "upstreamed", dc.upstreamed);
	return out;
}

size_t report_diff_regressions(const json_t *diff)
{
	return json_array_size(json_object_get(diff, "regressions"));
}

static int check_schema(json_t *doc, const char *what, struct err *err)
{
	const char *schema = jstr(doc, "schema");

	if (json_is_object(doc) && schema && !strcmp(schema, "kcarry-check/1") &&
	    json_is_array(json_object_get(doc, "cells")))
		return 0;
	return err_set(err, ERR_PARSE, "%s: not a kcarry-check/1 report", what);
}

int report_diff_load(json_t **doc, const char *path, struct err *err)
{
	json_error_t je;
	int error;

	*doc = json_load_file(path, 0, &je);
	if (!*doc)
		return err_set(err, ERR_PARSE, "%s:%d: %s", path, je.line,
			       je.text);
	if ((error = check_schema(*doc, path, err)) < 0) {
		json_decref(*doc);
		*doc = NULL;
	}
	return error;
}

int report_diff_parse(json_t **doc, const char *text, size_t len,
		      struct err *err)
{
	json_error_t je;
	int error;

	*doc = json_loadb(text, len, 0, &je);
	if (!*doc)
		return err_set(err, ERR_PARSE, "the report: %s", je.text);
	if ((error = check_schema(*doc, "the report", err)) < 0) {
		json_decref(*doc);
		*doc = NULL;
	}
	return error;
}

/* How an item's what reads before "from -> to". */
static const char *what_words(const char *what)
{
	static const char *const words[][2] = {
		{ "outcome", "" },
		{ "new-risk", "new placement risk:" },
		{ "risk-gone", "placement risk gone:" },
		{ "build", "build:" },
		{ "cell", "cell:" },
	};

	for (size_t i = 0; what && i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(what, words[i][0]))
			return words[i][1];
	return what ? what : "";
}

void report_diff_item_line(struct buf *b, const json_t *it)
{
	const json_t *p = json_object_get(it, "patch");
	const char *what = jstr(it, "what"), *from = jstr(it, "from");
	const char *to = jstr(it, "to"), *subj = jstr(it, "subject");

	buf_addf(b, "%s@%s on %s: ", jstr(it, "series") ? jstr(it, "series") : "?",
		 jstr(it, "version") ? jstr(it, "version") : "?",
		 jstr(it, "target") ? jstr(it, "target") : "?");
	if (json_is_integer(p))
		buf_addf(b, "%04lld %s: ", (long long)json_integer_value(p),
			 subj ? subj : "");
	if (what && (!strcmp(what, "unconverted") || !strcmp(what, "converted")))
		buf_addf(b, "%s %s", !strcmp(what, "unconverted")
					     ? "new unconverted caller"
					     : "unconverted caller gone:",
			 to ? to : "?");
	else
		buf_addf(b, "%s%s%s -> %s", what_words(what),
			 *what_words(what) ? " " : "", from ? from : "?",
			 to ? to : "?");
}

static const char *const sections[][2] = {
	{ "regressions", "regressions" },
	{ "fixes", "fixes" },
	{ "upstreamed", "newly upstreamed" },
};

void report_diff_text(FILE *out, const json_t *diff)
{
	struct buf b = BUF_INIT;

	for (size_t s = 0; s < 3; s++) {
		const json_t *list = json_object_get(diff, sections[s][0]), *it;
		size_t i;

		fprintf(out, "%s: %zu\n", sections[s][1], json_array_size(list));
		json_array_foreach(list, i, it) {
			buf_truncate(&b, 0);
			report_diff_item_line(&b, it);
			report_printf(out, "  %s\n", b.ptr);
		}
	}
	buf_release(&b);
}

static void md_escape(struct buf *b, const char *s)
{
	for (; *s; s++) {
		if (strchr("\\`*_{}[]()#+-.!|<>&~", *s))
			buf_addc(b, '\\');
		buf_addc(b, (unsigned char)*s < ' ' ? ' ' : *s);
	}
}

void report_diff_markdown(FILE *out, const json_t *diff)
{
	struct buf b = BUF_INIT, e = BUF_INIT;

	for (size_t s = 0; s < 3; s++) {
		const json_t *list = json_object_get(diff, sections[s][0]), *it;
		size_t i;

		if (!s || json_array_size(list))
			fprintf(out, "### %s%s (%zu)\n\n",
				s ? "" : "Against the baseline: ",
				sections[s][1], json_array_size(list));
		json_array_foreach(list, i, it) {
			buf_truncate(&b, 0);
			buf_truncate(&e, 0);
			report_diff_item_line(&b, it);
			md_escape(&e, b.ptr);
			fprintf(out, "- %s\n", e.ptr);
		}
		if (json_array_size(list))
			fputc('\n', out);
	}
	buf_release(&b);
	buf_release(&e);
}

/* mboxrd: a line that starts with any number of '>' then "From " gets one more */
static void add_mboxrd_line(struct buf *b, const char *line)
{
	const char *s = line;

	while (*s == '>')
		s++;
	if (!strncmp(s, "From ", 5))
		buf_addc(b, '>');
	buf_adds(b, line);
	buf_addc(b, '\n');
}

void report_diff_email(FILE *out, const json_t *diff, long long date)
{
	struct buf b = BUF_INIT, line = BUF_INIT, pr = BUF_INIT;
	time_t when = date ? (time_t)date : time(NULL);
	struct tm tm;
	char stamp[64];
	size_t n = report_diff_regressions(diff);

	gmtime_r(&when, &tm);
	strftime(stamp, sizeof(stamp), "%a, %d %b %Y %H:%M:%S +0000", &tm);
	buf_addf(&b, "From kcarry Thu Jan  1 00:00:00 1970\n"
		     "From: kcarry <kcarry@localhost>\n"
		     "Subject: kcarry: %zu regression%s against the baseline\n"
		     "Date: %s\n"
		     "Message-ID: <kcarry.baseline.%lld@localhost>\n"
		     "MIME-Version: 1.0\n"
		     "Content-Type: text/plain; charset=UTF-8\n"
		     "Content-Transfer-Encoding: 8bit\n\n",
		 n, n == 1 ? "" : "s", stamp, (long long)when);
	for (size_t s = 0; s < 3; s++) {
		const json_t *list = json_object_get(diff, sections[s][0]), *it;
		size_t i;

		buf_truncate(&line, 0);
		buf_addf(&line, "%s: %zu", sections[s][1], json_array_size(list));
		add_mboxrd_line(&b, line.ptr);
		json_array_foreach(list, i, it) {
			buf_truncate(&line, 0);
			buf_truncate(&pr, 0);
			report_diff_item_line(&line, it);
			buf_adds(&pr, "  ");
			buf_add_printable(&pr, line.ptr);
			add_mboxrd_line(&b, pr.ptr);
		}
	}
	buf_addc(&b, '\n');
	fwrite(b.ptr, 1, b.len, out);
	buf_release(&b);
	buf_release(&line);
	buf_release(&pr);
}
