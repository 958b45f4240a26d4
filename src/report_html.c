#include "report_html.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "report.h"
#include "report_ci.h"
#include "report_diff.h"

static const char *jstr(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static bool jtrue(const json_t *o, const char *key)
{
	return json_is_true(json_object_get(o, key));
}

static long long jint(const json_t *o, const char *key)
{
	return (long long)json_integer_value(json_object_get(o, key));
}

/*
 * Escape for HTML text and quoted attribute values.  The JSON holds valid
 * UTF-8; C0 controls but tab and newline, which HTML does not allow,
 * become U+FFFD.
 */
static void esc(struct buf *b, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': buf_adds(b, "&amp;"); break;
		case '<': buf_adds(b, "&lt;"); break;
		case '>': buf_adds(b, "&gt;"); break;
		case '"': buf_adds(b, "&quot;"); break;
		case '\'': buf_adds(b, "&#39;"); break;
		default:
			if ((unsigned char)*s < ' ' && *s != '\n' && *s != '\t')
				buf_adds(b, "\xef\xbf\xbd");
			else
				buf_addc(b, *s);
		}
	}
}

/* A class name from a fixed list: never text of the report. */
static const char *outcome_class(const char *o)
{
	static const char *const known[] = { "clean", "offset", "fuzzy",
					     "3-way", "already-applied",
					     "partial", "conflict",
					     "not-tried", "adapted", NULL };
	static const char *const cls[] = { "o-clean", "o-offset", "o-fuzzy",
					   "o-3way", "o-already", "o-partial",
					   "o-conflict", "o-nottried",
					   "o-adapted" };

	for (size_t i = 0; o && known[i]; i++)
		if (!strcmp(o, known[i]))
			return cls[i];
	return "o-other";
}

static bool outcome_fails(const char *o)
{
	return o && (!strcmp(o, "conflict") || !strcmp(o, "partial"));
}

static const char style[] =
	"body{font:14px/1.4 sans-serif;margin:1em;color:#222}"
	"table{border-collapse:collapse;margin:.5em 0}"
	"td,th{border:1px solid #ccc;padding:2px 6px;vertical-align:top;"
	"text-align:left}"
	"pre{background:#f6f6f6;padding:4px;overflow:auto;max-width:70em;"
	"white-space:pre-wrap}"
	"details>summary{cursor:pointer}"
	".o-clean{background:#cfc}.o-offset,.o-fuzzy,.o-3way{background:#ffc}"
	".o-already{background:#cef}.o-partial,.o-conflict,.o-error{"
	"background:#fbb}.o-adapted{background:#ecf}.o-nottried,.o-other{"
	"background:#eee}.risk{outline:3px solid #e80}"
	".side{display:flex;gap:1em}.side>div{flex:1}"
	".reg{color:#a00}.fix{color:#070}.hide{display:none}";

/* The filters: rows with no cell left shown are hidden, and columns. */
static const char script[] =
	"function kcf(){var c=document.getElementById('f-conflict').checked,"
	"r=document.getElementById('f-risk').checked,"
	"t=document.getElementById('f-target').value;"
	"document.querySelectorAll('[data-target]').forEach(function(e){"
	"e.classList.toggle('hide',t!==''&&e.dataset.target!==t)});"
	"document.querySelectorAll('tr.prow').forEach(function(row){var any=false;"
	"row.querySelectorAll('td.cell').forEach(function(e){"
	"if((t===''||e.dataset.target===t)&&(!c||e.dataset.fail==='1')&&"
	"(!r||e.dataset.risk==='1'))any=true});"
	"row.classList.toggle('hide',!any)})}";

struct page {
	struct buf *b;
	const json_t *doc;
};

static void head(struct page *p)
{
	buf_adds(p->b, "<!DOCTYPE html>\n<html lang=\"en\"><head>"
		       "<meta charset=\"utf-8\">\n"
		       "<meta http-equiv=\"Content-Security-Policy\" "
		       "content=\"default-src 'none'; style-src "
		       "'unsafe-inline'; script-src 'unsafe-inline'\">\n"
		       "<title>kcarry check</title><style>");
	buf_adds(p->b, style);
	buf_adds(p->b, "</style><script>");
	buf_adds(p->b, script);
	buf_adds(p->b, "</script></head>\n<body>\n<h1>kcarry check</h1>\n");
}

static void filters(struct page *p)
{
	const json_t *targets = json_object_get(p->doc, "targets"), *t;
	size_t i;

	buf_adds(p->b, "<p id=\"filters\"><label><input type=\"checkbox\" "
		       "id=\"f-conflict\" onchange=\"kcf()\"> only conflicts"
		       "</label> <label><input type=\"checkbox\" id=\"f-risk\" "
		       "onchange=\"kcf()\"> only risks</label> <label>target "
		       "<select id=\"f-target\" onchange=\"kcf()\">"
		       "<option value=\"\">all</option>");
	json_array_foreach(targets, i, t) {
		buf_adds(p->b, "<option value=\"");
		esc(p->b, json_string_value(t));
		buf_adds(p->b, "\">");
		esc(p->b, json_string_value(t));
		buf_adds(p->b, "</option>");
	}
	buf_adds(p->b, "</select></label></p>\n");
}

static void diff_section(struct page *p, const json_t *diff)
{
	static const char *const keys[] = { "regressions", "fixes",
					    "upstreamed" };
	static const char *const titles[] = { "Regressions", "Fixes",
					      "Newly upstreamed" };
	struct buf line = BUF_INIT;

	buf_adds(p->b, "<section id=\"baseline\"><h2>Against the baseline"
		       "</h2>\n");
	for (size_t s = 0; s < 3; s++) {
		const json_t *list = json_object_get(diff, keys[s]), *it;
		size_t i;

		buf_addf(p->b, "<h3 class=\"%s\">%s (%zu)</h3><ul id=\"%s\">",
			 s == 0 ? "reg" : "fix", titles[s],
			 json_array_size(list), keys[s]);
		json_array_foreach(list, i, it) {
			buf_truncate(&line, 0);
			report_diff_item_line(&line, it);
			buf_adds(p->b, "<li>");
			esc(p->b, line.ptr);
			buf_adds(p->b, "</li>");
		}
		buf_adds(p->b, "</ul>\n");
	}
	buf_adds(p->b, "</section>\n");
	buf_release(&line);
}

/*
 * The adapted hunk beside its original (the "adaptation" object); its
 * note when the hunk's reason does not say it already.
 */
static void adaptation(struct page *p, const json_t *ad, const char *reason)
{
	const char *note = jstr(ad, "note");

	if (!json_is_object(ad))
		return;
	buf_adds(p->b, "<div class=\"adapt\">adapted (");
	esc(p->b, jstr(ad, "rule"));
	buf_adds(p->b, jtrue(ad, "accepted") ? ", accepted by a person)"
		       : jtrue(ad, "built")  ? ", builds)"
					     : ")");
	if (note && !(reason && strstr(reason, note))) {
		buf_adds(p->b, ": ");
		esc(p->b, jstr(ad, "note"));
	}
	buf_adds(p->b, "<div class=\"side\"><div>original<pre>");
	esc(p->b, jstr(ad, "original"));
	buf_adds(p->b, "</pre></div><div>adapted<pre>");
	esc(p->b, jstr(ad, "adapted"));
	buf_adds(p->b, "</pre></div></div></div>");
}

static void hunk_row(struct page *p, const json_t *h)
{
	const json_t *cause = json_object_get(h, "cause");

	buf_addf(p->b, "<tr%s><td>%lld</td><td>",
		 jtrue(h, "risk") ? " class=\"risk\"" : "", jint(h, "index"));
	esc(p->b, jstr(h, "rule"));
	buf_addf(p->b, "</td><td>%lld</td><td>%+lld</td><td>", jint(h, "line"),
		 jint(h, "offset"));
	esc(p->b, jstr(h, "function"));
	buf_adds(p->b, "</td><td class=\"cause\">");
	esc(p->b, jstr(h, "reason"));
	if (jstr(cause, "text") &&
	    !(jstr(h, "reason") && strstr(jstr(h, "reason"), jstr(cause, "text")))) {
		buf_adds(p->b, "<br>cause: ");
		esc(p->b, jstr(cause, "text"));
	}
	adaptation(p, json_object_get(h, "adaptation"), jstr(h, "reason"));
	buf_adds(p->b, "</td></tr>");
}

static void file_block(struct page *p, const json_t *f)
{
	const json_t *h;
	size_t i;

	buf_addf(p->b, "<div class=\"file %s\"><b>",
		 outcome_class(jstr(f, "outcome")));
	esc(p->b, jstr(f, "path"));
	buf_adds(p->b, "</b> ");
	esc(p->b, jstr(f, "outcome"));
	if (jstr(f, "error")) {
		buf_adds(p->b, ": ");
		esc(p->b, jstr(f, "error"));
	}
	buf_adds(p->b, "</div><table class=\"hunks\"><tr><th>hunk</th>"
		       "<th>rule</th><th>line</th><th>offset</th>"
		       "<th>function</th><th>reason, cause</th></tr>");
	json_array_foreach(json_object_get(f, "hunks"), i, h)
		hunk_row(p, h);
	buf_adds(p->b, "</table>");
	if (jstr(f, "rej")) {
		buf_adds(p->b, "<details><summary>.rej</summary><pre>");
		esc(p->b, jstr(f, "rej"));
		buf_adds(p->b, "</pre></details>");
	}
}

static void diag_item(struct page *p, const json_t *d)
{
	buf_addf(p->b, "<li class=\"diag\">");
	esc(p->b, jstr(d, "path"));
	buf_addf(p->b, ":%lld: ", jint(d, "line"));
	esc(p->b, jstr(d, "severity"));
	buf_adds(p->b, ": ");
	esc(p->b, jstr(d, "message"));
	if (jstr(d, "blame")) {
		buf_adds(p->b, " <i>");
		esc(p->b, jstr(d, "blame"));
		buf_adds(p->b, "</i>");
	}
	if (jstr(d, "text")) {
		buf_adds(p->b, "<pre>");
		esc(p->b, jstr(d, "text"));
		buf_adds(p->b, "</pre>");
	}
	buf_adds(p->b, "</li>");
}

static const json_t *diag_list(const json_t *cell)
{
	return json_object_get(json_object_get(cell, "build"), "diagnostics");
}

/* The patch a diagnostic is pinned on; 0: none. */
static long long diag_patch(const json_t *d)
{
	const json_t *pin = json_object_get(d, "patch");

	return json_is_integer(pin) ? json_integer_value(pin) : 0;
}

/*
 * ", 2 build errors, 1 build warning": what a closed cell's summary says
 * of the diagnostics pinned on its patch, so that a person opens it.
 */
static void pinned_summary(struct page *p, const json_t *cell,
			   long long index)
{
	const json_t *d;
	size_t i, n[2] = { 0, 0 };

	json_array_foreach(diag_list(cell), i, d)
		if (diag_patch(d) == index)
			n[jstr(d, "severity") &&
			  !strcmp(jstr(d, "severity"), "error") ? 0 : 1]++;
	if (n[0])
		buf_addf(p->b, ", %zu build error%s", n[0], n[0] == 1 ? "" : "s");
	if (n[1])
		buf_addf(p->b, ", %zu build warning%s", n[1],
			 n[1] == 1 ? "" : "s");
}

/* The diagnostics pinned on patch index (0: those pinned on none). */
static size_t diags_of(struct page *p, const json_t *cell, long long index)
{
	const json_t *d;
	size_t i, n = 0;

	json_array_foreach(diag_list(cell), i, d) {
		if (diag_patch(d) != index)
			continue;
		if (!n++)
			buf_adds(p->b, "<ul class=\"diags\">");
		diag_item(p, d);
	}
	if (n)
		buf_adds(p->b, "</ul>");
	return n;
}

/*
 * The refreshed patch: its commit, and its text (kcarry-check/1's
 * optional "refreshed_patch") closed until asked for.
 */
static void refreshed(struct page *p, const json_t *cell, const json_t *pt)
{
	const char *text = jstr(pt, "refreshed_patch");
	size_t lines = 0;

	if (jstr(pt, "commit")) {
		buf_adds(p->b, "<div>refreshed: <code>git show ");
		esc(p->b, jstr(pt, "commit"));
		buf_adds(p->b, "</code> on <code>");
		esc(p->b, jstr(cell, "branch"));
		buf_adds(p->b, "</code></div>");
	}
	if (!text)
		return;
	for (const char *s = text; *s; s++)
		lines += *s == '\n';
	/* a browser drops a newline right after <pre>: the text keeps its
	 * own first line by starting on the next one */
	buf_addf(p->b, "<details class=\"refreshed\"><summary>refreshed "
		       "patch (%zu lines)</summary><pre>%s",
		 lines, text[0] == '\n' ? "\n" : "");
	esc(p->b, text);
	buf_adds(p->b, "</pre></details>");
}

static void cell_td(struct page *p, const json_t *cell, const json_t *pt)
{
	const char *o = jstr(pt, "outcome");
	const json_t *f;
	size_t i;

	buf_addf(p->b, "<td class=\"cell %s%s\" data-fail=\"%d\" "
		       "data-risk=\"%d\" data-patch=\"%lld\" data-target=\"",
		 outcome_class(o), jtrue(pt, "risk") ? " risk" : "",
		 outcome_fails(o), jtrue(pt, "risk"), jint(pt, "index"));
	esc(p->b, jstr(cell, "target"));
	buf_adds(p->b, "\"><details><summary>");
	esc(p->b, o ? o : "?");
	if (jtrue(pt, "risk"))
		buf_adds(p->b, " !");
	if (jtrue(pt, "resolved"))
		buf_adds(p->b, " (resolved)");
	pinned_summary(p, cell, jint(pt, "index"));
	buf_adds(p->b, "</summary>");
	json_array_foreach(json_object_get(pt, "files"), i, f)
		file_block(p, f);
	diags_of(p, cell, jint(pt, "index"));
	refreshed(p, cell, pt);
	buf_adds(p->b, "</details></td>");
}

/* The cell of patch index on a target that did not run. */
static void error_td(struct page *p, const json_t *cell, size_t index)
{
	buf_addf(p->b, "<td class=\"cell o-error\" data-fail=\"1\" "
		       "data-risk=\"0\" data-patch=\"%zu\" data-target=\"",
		 index);
	esc(p->b, jstr(cell, "target"));
	buf_adds(p->b, "\"><details><summary>error</summary>");
	esc(p->b, jstr(cell, "error"));
	buf_adds(p->b, "</details></td>");
}

/* The cells of series s: cells[s * nt + t]. */
static const json_t *cell_at(struct page *p, size_t s, size_t t)
{
	size_t nt = json_array_size(json_object_get(p->doc, "targets"));

	return json_array_get(json_object_get(p->doc, "cells"), s * nt + t);
}

static const json_t *patch_at(const json_t *cell, size_t i)
{
	return json_array_get(json_object_get(cell, "patches"), i);
}

static void patch_row(struct page *p, size_t s, size_t i, size_t nt)
{
	const json_t *first = NULL;

	for (size_t t = 0; t < nt && !first; t++)
		first = patch_at(cell_at(p, s, t), i);
	buf_addf(p->b, "<tr class=\"prow\"><th>%04zu ", i + 1);
	esc(p->b, first ? (jstr(first, "subject") ? jstr(first, "subject")
						  : jstr(first, "file"))
			: "");
	buf_adds(p->b, "</th>");
	for (size_t t = 0; t < nt; t++) {
		const json_t *c = cell_at(p, s, t), *pt = patch_at(c, i);
		if (!jtrue(c, "ok") && json_is_object(c))
			error_td(p, c, i + 1);
		else if (pt)
			cell_td(p, c, pt);
		else
			buf_adds(p->b, "<td></td>");
	}
	buf_adds(p->b, "</tr>\n");
}

static void build_row(struct page *p, size_t s, size_t nt)
{
	buf_adds(p->b, "<tr class=\"brow\"><th>build</th>");
	for (size_t t = 0; t < nt; t++) {
		const json_t *c = cell_at(p, s, t), *b = json_object_get(c, "build");
		const char *st = jstr(b, "status");
		buf_addf(p->b, "<td class=\"%s\" data-target=\"",
			 !st ? "" : !strcmp(st, "ok") ? "o-clean"
			 : !strcmp(st, "warnings") ? "o-fuzzy"
			 : !strcmp(st, "skipped") ? "o-nottried" : "o-error");
		esc(p->b, jstr(c, "target"));
		buf_adds(p->b, "\"><details><summary>");
		esc(p->b, st ? st : "-");
		buf_addf(p->b, " %lld E %lld W</summary>", jint(b, "errors"),
			 jint(b, "warnings"));
		esc(p->b, jstr(b, "error"));
		diags_of(p, c, 0);
		buf_adds(p->b, "</details></td>");
	}
	buf_adds(p->b, "</tr>\n");
}

static void grouped_li(void *ctx, const char *line)
{
	struct buf *b = ctx;

	buf_adds(b, "<li>");
	esc(b, line);
	buf_adds(b, "</li>");
}

/* The unconverted sites of a cell, grouped, then every line. */
static void audit_block(struct page *p, const json_t *cell)
{
	const json_t *list = json_object_get(json_object_get(cell, "audit"),
					     "unconverted"), *u;
	size_t n = json_array_size(list), i, k = 0;
	struct report_site_ref *refs;

	if (!n)
		return;
	refs = xcalloc(n, sizeof(*refs));
	json_array_foreach(list, i, u) {
		if (!jstr(u, "symbol") || !jstr(u, "path"))
			continue;
		refs[k].symbol = jstr(u, "symbol");
		refs[k].path = jstr(u, "path");
		refs[k++].line = (size_t)jint(u, "line");
	}
	buf_adds(p->b, "<div class=\"audit\" data-target=\"");
	esc(p->b, jstr(cell, "target"));
	buf_addf(p->b, "\"><h3>watched API on ");
	esc(p->b, jstr(cell, "target"));
	buf_addf(p->b, ": %zu unconverted</h3><ul class=\"groups\">", n);
	report_group_sites(refs, k, grouped_li, p->b);
	buf_adds(p->b, "</ul><details><summary>every line</summary><pre>");
	json_array_foreach(list, i, u) {
		struct buf l = BUF_INIT;
		buf_addf(&l, "%s:%lld %s %s  %s\n", jstr(u, "path") ? jstr(u, "path") : "?",
			 jint(u, "line"),
			 jstr(u, "function") ? jstr(u, "function") : "(file scope)",
			 jstr(u, "symbol") ? jstr(u, "symbol") : "?",
			 jstr(u, "text") ? jstr(u, "text") : "");
		esc(p->b, l.ptr);
		buf_release(&l);
	}
	buf_adds(p->b, "</pre></details></div>\n");
	free(refs);
}

static void series_table(struct page *p, size_t s, const json_t *so)
{
	size_t nt = json_array_size(json_object_get(p->doc, "targets"));
	size_t np = 0;
	const json_t *t;
	size_t i;

	for (size_t k = 0; k < nt; k++)
		if (json_array_size(json_object_get(cell_at(p, s, k), "patches")) > np)
			np = json_array_size(json_object_get(cell_at(p, s, k), "patches"));
	buf_adds(p->b, "<section class=\"series\"><h2>");
	esc(p->b, jstr(so, "name"));
	buf_adds(p->b, "@");
	esc(p->b, jstr(so, "version"));
	buf_adds(p->b, "</h2>\n<table class=\"matrix\"><tr><th>patch</th>");
	json_array_foreach(json_object_get(p->doc, "targets"), i, t) {
		buf_adds(p->b, "<th data-target=\"");
		esc(p->b, json_string_value(t));
		buf_adds(p->b, "\">");
		esc(p->b, json_string_value(t));
		buf_adds(p->b, "</th>");
	}
	buf_adds(p->b, "</tr>\n");
	for (size_t k = 0; k < np; k++)
		patch_row(p, s, k, nt);
	if (jtrue(p->doc, "built"))
		build_row(p, s, nt);
	buf_adds(p->b, "</table>\n");
	for (size_t k = 0; k < nt; k++)
		audit_block(p, cell_at(p, s, k));
	buf_adds(p->b, "</section>\n");
}

int report_html_write(FILE *out, const json_t *doc, const json_t *diff,
		      struct err *err)
{
	struct buf b = BUF_INIT;
	struct page p = { &b, doc };
	const json_t *so;
	size_t s;

	head(&p);
	if (diff)
		diff_section(&p, diff);
	filters(&p);
	json_array_foreach(json_object_get(doc, "series"), s, so)
		series_table(&p, s, so);
	buf_adds(&b, "</body></html>\n");
	fwrite(b.ptr, 1, b.len, out);
	buf_release(&b);
	if (fflush(out) || ferror(out))
		return err_set(err, ERR_IO, "cannot write the HTML report");
	return 0;
}

int report_check_doc(json_t **doc, const struct check_report *r,
		     struct err *err)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int error;

	if (!f)
		return err_set(err, ERR_IO, "cannot make the JSON report");
	error = report_check_json(f, r, err);
	fclose(f);
	if (!error)
		error = report_diff_parse(doc, text, len, err);
	free(text);
	return error;
}

int report_check_html(FILE *out, const struct check_report *r,
		      const json_t *diff, struct err *err)
{
	json_t *doc = NULL;
	int error;

	if ((error = report_check_doc(&doc, r, err)) < 0)
		return error;
	error = report_html_write(out, doc, diff, err);
	json_decref(doc);
	return error;
}
