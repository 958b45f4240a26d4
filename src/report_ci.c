#include "report.h"
#include "report_ci.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mail.h"

/* ---- shared ------------------------------------------------------------ */

/* carry.c marks a patch it did not try as skipped with outcome conflict. */
static const char *patch_outcome_id(const struct carry_patch *cp)
{
	return cp->skipped ? "not-tried" : report_outcome_id(cp->outcome);
}

static bool patch_failed(const struct carry_patch *cp)
{
	return !cp->skipped && (cp->outcome == OUTCOME_CONFLICT ||
				cp->outcome == OUTCOME_PARTIAL);
}

static const char *item_subject(const struct series_item *it)
{
	return it->patch.subject ? it->patch.subject : it->file;
}

static const char *patch_subject(const struct carry_patch *cp)
{
	return cp->item ? item_subject(cp->item) : "(unknown patch)";
}

static const char *patch_file(const struct carry_patch *cp)
{
	return cp->item ? cp->item->file : "(unknown)";
}

/* The audit flags of patch i, or NULL when the audit has none. */
static const struct audit_patch *audit_patch_of(const struct check_cell *c,
						size_t i)
{
	if (!c->ok || i >= c->audit.nr_patches)
		return NULL;
	return &c->audit.patches[i];
}

static size_t conflicting_hunks(const struct carry_patch *cp)
{
	size_t n = 0;

	for (size_t f = 0; f < cp->nr_files; f++)
		for (size_t h = 0; h < cp->files[f].nr_hunks; h++)
			n += cp->files[f].hunks[h].rule == RULE_CONFLICT;
	return n;
}

static size_t risky_hunks(const struct carry_patch *cp)
{
	size_t n = 0;

	for (size_t f = 0; f < cp->nr_files; f++)
		for (size_t h = 0; h < cp->files[f].nr_hunks; h++)
			n += cp->files[f].hunks[h].risk;
	return n;
}

static bool has_file_error(const struct carry_patch *cp)
{
	for (size_t f = 0; f < cp->nr_files; f++)
		if (cp->files[f].error)
			return true;
	return false;
}

/*
 * A failed patch is a conflict unless all its hunks were placed and it
 * failed only because a placement risk counts as failure (--strict).
 */
static bool failed_by_risk_only(const struct carry_patch *cp)
{
	return cp->outcome == OUTCOME_CONFLICT && cp->risk &&
	       !conflicting_hunks(cp) && !has_file_error(cp);
}

/* "fs/btrfs/x.c hunk 2: offset at line 120 (offset +3) RISK: reason" */
static void describe_hunk(struct buf *b, const struct carry_file *cf,
			  size_t h)
{
	const struct apply_hunk_result *hr = &cf->hunks[h];

	buf_add_printable(b, cf->path);
	buf_addf(b, " hunk %zu: %s", h + 1, apply_rule_name(hr->rule));
	if (hr->adapt && (hr->adapt->accepted || hr->adapt->built))
		buf_adds(b, hr->adapt->accepted ? ", accepted by a person"
						: ", builds");
	if (hr->line)
		buf_addf(b, " %s line %lu",
			 hr->rule == RULE_CONFLICT ? "near" : "at", hr->line);
	if (hr->offset)
		buf_addf(b, " (offset %+ld)", hr->offset);
	if (hr->fuzz)
		buf_addf(b, " (fuzz %u)", hr->fuzz);
	if (hr->risk) {
		buf_adds(b, " RISK");
		if (hr->func && hr->found_func) {
			buf_adds(b, " (in ");
			buf_add_printable(b, hr->found_func);
			buf_adds(b, "(), header names ");
			buf_add_printable(b, hr->func);
			buf_adds(b, "())");
		}
	}
	if (hr->reason) {
		buf_adds(b, ": ");
		buf_add_printable(b, hr->reason);
	}
}

/* "    cause: fs/btrfs/x.c has no foo()\n" */
static void describe_cause(struct buf *b, const char *indent,
			   const struct apply_hunk_result *hr)
{
	if (report_cause_tells(hr)) {
		buf_addf(b, "%scause: ", indent);
		buf_add_printable(b, hr->cause->text);
		buf_addc(b, '\n');
	}
}

static bool hunk_matters(const struct apply_hunk_result *hr)
{
	return hr->rule == RULE_CONFLICT || hr->rule == RULE_ADAPTED ||
	       hr->risk;
}

static size_t adapted_hunks(const struct carry_patch *cp)
{
	size_t n = 0;

	for (size_t f = 0; f < cp->nr_files; f++)
		for (size_t h = 0; h < cp->files[f].nr_hunks; h++)
			n += cp->files[f].hunks[h].rule == RULE_ADAPTED;
	return n;
}

/* "path:line func(): call of sym", without the source line */
static void describe_site_head(struct buf *b, const struct audit_site *s)
{
	buf_add_printable(b, s->path);
	buf_addf(b, ":%zu", s->line);
	if (s->func)
		buf_addf(b, " %s()", s->func);
	buf_addf(b, ": %s of %s", watch_ref_kind_name(s->kind), s->symbol);
}

static void describe_site(struct buf *b, const struct audit_site *s)
{
	describe_site_head(b, s);
	if (s->text && *s->text) {
		buf_adds(b, ": ");
		buf_add_printable(b, s->text);
	}
}

static void describe_change(struct buf *b, const struct audit_change *c)
{
	buf_addf(b, "%s %s %s", watch_kind_name(c->kind), c->name,
		 watch_change_name(c->change));
	if (c->old_sig && c->new_sig)
		buf_addf(b, ": %s -> %s", c->old_sig, c->new_sig);
	else if (c->old_sig || c->new_sig)
		buf_addf(b, ": %s", c->old_sig ? c->old_sig : c->new_sig);
}

static int write_out(FILE *out, const char *data, size_t len,
		     const char *what, struct err *err)
{
	errno = 0;
	if (len && fwrite(data, 1, len, out) != len)
		goto fail;
	if (fflush(out) == EOF || ferror(out))
		goto fail;
	return 0;
fail:
	return err_set(err, ERR_IO, "cannot write the %s report: %s", what,
		       strerror(errno ? errno : EIO));
}

/* ---- JSON ------------------------------------------------------------- */

/* jansson takes UTF-8 only: anything else gets U+FFFD where invalid. */
/* Library names with spaces ("enum constant") as ids ("enum-constant"). */
static json_t *jid(const char *s)
{
	char *d = xstrdup(s);
	json_t *j;

	for (char *p = d; *p; p++)
		if (*p == ' ')
			*p = '-';
	j = json_string(d);
	free(d);
	return j;
}

static json_t *joid(const struct tree_oid *oid)
{
	char hex[41];

	if (tree_oid_is_zero(oid))
		return json_null();
	tree_oid_hex(hex, oid);
	return json_string(hex);
}

static json_t *jcount(size_t n)
{
	return json_integer((json_int_t)n);
}

/* An array of the strings v[0..n). */
static json_t *str_array(char *const *v, size_t n)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, report_json_str(v[i]));
	return arr;
}

/* A change of the API: its name, kind, change and both signatures. */
static json_t *change_json(const char *name, enum watch_kind kind,
			   enum watch_change change, const char *old_sig,
			   const char *new_sig)
{
	json_t *o = json_object();

	json_object_set_new(o, "name", report_json_str(name));
	json_object_set_new(o, "kind", jid(watch_kind_name(kind)));
	json_object_set_new(o, "change",
			    json_string(watch_change_name(change)));
	json_object_set_new(o, "old", report_json_str(old_sig));
	json_object_set_new(o, "new", report_json_str(new_sig));
	return o;
}

/* The document, indented, its keys in order, and a newline. */
static int write_json_doc(FILE *out, json_t *doc, const char *what,
			  struct err *err)
{
	char *text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
					     JSON_REAL_PRECISION(9));
	int error;

	json_decref(doc);
	if (!text)
		BUG("jansson cannot serialise the %s", what);
	error = write_out(out, text, strlen(text), "JSON", err);
	free(text);
	if (!error)
		error = write_out(out, "\n", 1, "JSON", err);
	return error;
}


static json_t *file_json(const struct carry_file *cf)
{
	json_t *o = json_object(), *hunks = json_array();

	json_object_set_new(o, "path", report_json_str(cf->path));
	json_object_set_new(o, "outcome", json_string(report_outcome_id(cf->outcome)));
	json_object_set_new(o, "risk", json_boolean(cf->risk));
	json_object_set_new(o, "error", report_json_str(cf->error));
	for (size_t h = 0; h < cf->nr_hunks; h++)
		json_array_append_new(hunks, report_json_hunk(&cf->hunks[h], h));
	json_object_set_new(o, "hunks", hunks);
	json_object_set_new(o, "rej", cf->rej.len
					      ? report_json_strn(cf->rej.ptr, cf->rej.len)
					      : json_null());
	return o;
}

static json_t *patch_json(const struct check_cell *c, size_t i)
{
	const struct carry_patch *cp = &c->carry.patches[i];
	const struct audit_patch *ap = audit_patch_of(c, i);
	json_t *o = json_object(), *deps = json_array(), *files = json_array(),
	       *watched = json_object();

	json_object_set_new(o, "index", json_integer((json_int_t)i + 1));
	json_object_set_new(o, "file", report_json_str(patch_file(cp)));
	json_object_set_new(o, "subject",
			    report_json_str(cp->item ? cp->item->patch.subject : NULL));
	json_object_set_new(o, "outcome", json_string(patch_outcome_id(cp)));
	json_object_set_new(o, "risk", json_boolean(cp->risk));
	json_object_set_new(o, "resolved", json_boolean(cp->resolved));
	json_object_set_new(o, "committed", json_boolean(cp->committed));
	json_object_set_new(o, "commit", cp->committed ? joid(&cp->commit)
						       : json_null());
	for (size_t d = 0; d < cp->nr_depends; d++)
		json_array_append_new(deps,
				      json_integer((json_int_t)cp->depends[d]));
	json_object_set_new(o, "depends_on", deps);
	json_object_set_new(watched, "file",
			    json_boolean(ap && ap->touches_watched));
	json_object_set_new(watched, "caller",
			    json_boolean(ap && ap->touches_caller));
	json_object_set_new(o, "watched", watched);
	for (size_t f = 0; f < cp->nr_files; f++)
		json_array_append_new(files, file_json(&cp->files[f]));
	json_object_set_new(o, "files", files);
	/* optional: only a committed patch has one, and only when asked */
	if (cp->refreshed)
		json_object_set_new(o, "refreshed_patch",
				    report_json_str(cp->refreshed));
	return o;
}

static json_t *site_json(const struct audit_site *s)
{
	json_t *o = json_object();

	json_object_set_new(o, "path", report_json_str(s->path));
	json_object_set_new(o, "line", json_integer((json_int_t)s->line));
	json_object_set_new(o, "function", report_json_str(s->func));
	json_object_set_new(o, "symbol", report_json_str(s->symbol));
	json_object_set_new(o, "kind", jid(watch_ref_kind_name(s->kind)));
	json_object_set_new(o, "text", report_json_str(s->text));
	return o;
}

static json_t *sites_json(const struct audit_site *v, size_t n)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, site_json(&v[i]));
	return arr;
}

/* The series' own API change and what the target has of it. */
static json_t *intents_json(const struct audit_result *a)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < a->nr_intents; i++) {
		const struct audit_intent *t = &a->intents[i];
		json_t *o = change_json(t->name, t->kind, t->change,
					t->old_sig, t->new_sig);

		json_object_set_new(o, "patch",
				    json_integer((json_int_t)t->patch));
		json_object_set_new(o, "target",
				    json_string(audit_target_state_name(t->target)));
		json_object_set_new(o, "target_signature",
				    report_json_str(t->target_sig));
		json_array_append_new(arr, o);
	}
	return arr;
}

static json_t *target_api_json(const struct audit_result *a)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < a->nr_target_api; i++) {
		const struct watch_symbol *w = &a->target_api[i];
		json_t *o = json_object();

		json_object_set_new(o, "name", report_json_str(w->name));
		json_object_set_new(o, "kind", jid(watch_kind_name(w->kind)));
		json_object_set_new(o, "path", report_json_str(w->path));
		json_object_set_new(o, "line", json_integer((json_int_t)w->line));
		json_object_set_new(o, "signature",
				    report_json_str(w->signature));
		json_array_append_new(arr, o);
	}
	return arr;
}

static json_t *callers_json(const struct audit_result *a)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < a->nr_callers; i++) {
		const struct audit_caller *c = &a->callers[i];
		json_t *o = site_json(&c->site);

		json_object_set_new(o, "class",
				    json_string(audit_caller_class_name(c->class)));
		json_object_set_new(o, "patch",
				    c->patch ? json_integer((json_int_t)c->patch)
					     : json_null());
		json_object_set_new(o, "hunk_file", report_json_str(c->file));
		json_object_set_new(o, "hunk",
				    c->hunk ? json_integer((json_int_t)c->hunk)
					    : json_null());
		json_array_append_new(arr, o);
	}
	return arr;
}

static json_t *audit_json(const struct audit_result *a)
{
	json_t *o = json_object(), *changes = json_array();

	json_object_set_new(o, "watched", str_array(a->watched, a->nr_watched));
	for (size_t i = 0; i < a->nr_changes; i++) {
		const struct audit_change *c = &a->changes[i];

		json_array_append_new(changes,
				      change_json(c->name, c->kind, c->change,
						  c->old_sig, c->new_sig));
	}
	json_object_set_new(o, "changes", changes);
	json_object_set_new(o, "unconverted",
			    sites_json(a->unconverted, a->nr_unconverted));
	json_object_set_new(o, "absent", sites_json(a->absent, a->nr_absent));
	json_object_set_new(o, "files_scanned",
			    json_integer((json_int_t)a->nr_files_scanned));
	json_object_set_new(o, "intended", intents_json(a));
	json_object_set_new(o, "api_absent", json_boolean(a->api_absent));
	json_object_set_new(o, "target_api", target_api_json(a));
	json_object_set_new(o, "callers", callers_json(a));
	return o;
}

static json_t *diag_json(const struct diag *d, const struct blame_attribution *a)
{
	json_t *o = json_object(), *notes = json_array(), *ps = json_array();

	json_object_set_new(o, "path", report_json_str(d->path));
	json_object_set_new(o, "line", jcount(d->line));
	json_object_set_new(o, "column", jcount(d->col));
	json_object_set_new(o, "severity",
			    json_string(diag_severity_name(d->sev)));
	json_object_set_new(o, "message", report_json_str(d->message));
	json_object_set_new(o, "function", report_json_str(d->function));
	json_object_set_new(o, "unit", report_json_str(d->unit));
	for (size_t i = 0; i < d->nr_notes; i++) {
		json_t *n = json_object();
		json_object_set_new(n, "path", report_json_str(d->notes[i].path));
		json_object_set_new(n, "line", jcount(d->notes[i].line));
		json_object_set_new(n, "message",
				    report_json_str(d->notes[i].message));
		json_array_append_new(notes, n);
	}
	json_object_set_new(o, "notes", notes);
	json_object_set_new(o, "text", report_json_strn(d->text.ptr, d->text.len));
	json_object_set_new(o, "cause",
			    a ? json_string(blame_cause_id(a->cause))
			      : json_null());
	json_object_set_new(o, "patch", a && a->patch ? jcount(a->patch)
						      : json_null());
	json_object_set_new(o, "hunk", a && a->hunk ? jcount(a->hunk)
						    : json_null());
	json_object_set_new(o, "symbol", report_json_str(a ? a->symbol : NULL));
	json_object_set_new(o, "where", report_json_str(a ? a->where : NULL));
	for (size_t i = 0; a && i < a->nr_patches; i++)
		json_array_append_new(ps, jcount(a->patches[i]));
	json_object_set_new(o, "file_patches", ps);
	json_object_set_new(o, "base_line", a && a->base_line
						    ? jcount(a->base_line)
						    : json_null());
	if (a) {
		struct buf b = BUF_INIT;
		blame_describe(&b, a);
		json_object_set_new(o, "blame", report_json_str(b.ptr));
		buf_release(&b);
	} else
		json_object_set_new(o, "blame", json_null());
	return o;
}

json_t *report_build_json(const struct build_result *b)
{
	json_t *o = json_object(), *steps = json_array(),
	       *diags = json_array(), *secs = json_object();
	bool base_broken = b->nr_broken_objects && !b->errors &&
			   !b->nr_failed_objects;
	const char *status = b->error		     ? "error"
			     : b->skipped || !b->ran ? "skipped"
			     : base_broken	     ? "base-broken"
			     : b->failed	     ? "errors"
			     : b->warnings	     ? "warnings"
						     : "ok";

	json_object_set_new(o, "status", json_string(status));
	json_object_set_new(o, "error", report_json_str(b->error));
	json_object_set_new(o, "cc", report_json_str(b->cc));
	json_object_set_new(o, "profile", report_json_str(b->profile));
	json_object_set_new(o, "kbuild_rule", report_json_str(b->kbuild_rule));
	json_object_set_new(o, "target_var", report_json_str(b->target_var));
	json_object_set_new(o, "targets", str_array(b->targets, b->nr_targets));
	json_object_set_new(o, "errors", jcount(b->errors));
	json_object_set_new(o, "warnings", jcount(b->warnings));
	json_object_set_new(o, "base_errors", jcount(b->base_errors));
	json_object_set_new(o, "base_warnings", jcount(b->base_warnings));
	json_object_set_new(o, "kept", jcount(b->kept));
	json_object_set_new(o, "failed_objects",
			    str_array(b->failed_objects, b->nr_failed_objects));
	json_object_set_new(o, "broken_objects",
			    str_array(b->broken_objects, b->nr_broken_objects));
	json_object_set_new(o, "first_breaking",
			    b->first_breaking ? jcount(b->first_breaking)
					      : json_null());
	for (size_t i = 0; i < b->nr_steps; i++) {
		json_t *s = json_object();
		json_object_set_new(s, "patch", jcount(b->steps[i].patch));
		json_object_set_new(s, "errors", jcount(b->steps[i].errors));
		json_object_set_new(s, "warnings", jcount(b->steps[i].warnings));
		json_object_set_new(s, "introduced",
				    jcount(b->steps[i].introduced));
		json_object_set_new(s, "failed", json_boolean(b->steps[i].failed));
		json_array_append_new(steps, s);
	}
	json_object_set_new(o, "steps", steps);
	for (size_t i = 0; i < b->diags.nr; i++)
		json_array_append_new(diags,
				      diag_json(&b->diags.items[i],
						b->attr ? &b->attr[i] : NULL));
	json_object_set_new(o, "diagnostics", diags);
	json_object_set_new(o, "base_cached", json_boolean(b->base_cached));
	json_object_set_new(secs, "prepare", json_real(b->seconds_prepare));
	json_object_set_new(secs, "base", json_real(b->seconds_base));
	json_object_set_new(secs, "build", json_real(b->seconds_build));
	json_object_set_new(o, "seconds", secs);
	return o;
}

/* kcarry build --json: one series built on its targets. */
/* The adapted hunks of a built cell, and those the build turned back
 * into conflicts (kcarry-build/1 "adapted"). */
static json_t *build_adapted_json(const struct carry_result *cr)
{
	json_t *a = json_array();

	for (size_t i = 0; i < cr->nr; i++)
		for (size_t f = 0; f < cr->patches[i].nr_files; f++) {
			const struct carry_file *cf = &cr->patches[i].files[f];

			for (size_t h = 0; h < cf->nr_hunks; h++) {
				const struct apply_hunk_result *hr = &cf->hunks[h];
				bool back = hr->cause &&
					    hr->cause->kind == CAUSE_BUILD;
				json_t *o;

				if (!back && !(hr->rule == RULE_ADAPTED &&
					       hr->adapt))
					continue;
				o = json_object();
				json_object_set_new(o, "patch",
						    json_integer((json_int_t)i + 1));
				json_object_set_new(o, "path",
						    json_string(cf->path));
				json_object_set_new(o, "hunk",
						    json_integer((json_int_t)h + 1));
				json_object_set_new(
					o, "rule",
					back ? json_null()
					     : json_string(adapt_rule_name(
						       hr->adapt->rule)));
				json_object_set_new(
					o, "state",
					json_string(back ? "conflict"
						    : hr->adapt->built ? "builds"
								       : "not-built"));
				json_object_set_new(o, "cause",
						    back ? json_string(hr->cause->text)
							 : json_null());
				json_array_append_new(a, o);
			}
		}
	return a;
}

int report_build_doc_json(FILE *out, const struct check_report *r,
			  struct err *err)
{
	json_t *doc = json_object(), *builds = json_array(), *so;

	json_object_set_new(doc, "schema", json_string(REPORT_BUILD_SCHEMA));
	json_object_set_new(doc, "seconds",
			    json_real(r->seconds > 0 ? r->seconds : 0));
	so = json_array();
	/* a series carried only because the one built stacks on it was not
	 * built */
	for (size_t s = 0; s < r->nr_series; s++) {
		json_t *o;
		if (r->series[s].stacked_base)
			continue;
		o = json_object();
		json_object_set_new(o, "name", json_string(r->series[s].name));
		json_object_set_new(o, "version",
				    json_string(r->series[s].v.version));
		json_object_set_new(o, "patches",
				    json_integer((json_int_t)r->series[s].v.nr));
		json_array_append_new(so, o);
	}
	json_object_set_new(doc, "series", so);
	for (size_t s = 0; s < r->nr_series; s++)
		for (size_t t = 0;
		     t < r->nr_targets && !r->series[s].stacked_base; t++) {
			const struct check_cell *c = check_cell(r, s, t);
			json_t *o = json_object();
			char hex[41];

			json_object_set_new(o, "series",
					    json_string(r->series[s].name));
			json_object_set_new(o, "target",
					    json_string(r->targets[t]));
			json_object_set_new(o, "carried", json_boolean(c->ok));
			json_object_set_new(o, "error",
					    c->ok ? json_null()
						  : json_string(c->error ? c->error
									 : "failed"));
			json_object_set_new(o, "failed_patches",
					    json_integer((json_int_t)c->carry.nr_failed));
			json_object_set_new(o, "branch",
					    c->carry.branch
						    ? json_string(c->carry.branch)
						    : json_null());
			tree_oid_hex(hex, &c->carry.head);
			json_object_set_new(o, "head",
					    c->ok ? json_string(hex) : json_null());
			json_object_set_new(o, "build",
					    c->ok ? report_build_json(&c->build)
						  : json_null());
			json_object_set_new(o, "adapted",
					    build_adapted_json(&c->carry));
			json_array_append_new(builds, o);
		}
	json_object_set_new(doc, "builds", builds);
	return write_json_doc(out, doc, "build report", err);
}

static json_t *cell_json(const struct check_report *r, size_t s, size_t t)
{
	const struct check_cell *c = check_cell(r, s, t);
	const struct carry_result *cr = &c->carry;
	json_t *o = json_object(), *counts = json_object(),
	       *patches = json_array();

	json_object_set_new(o, "series", report_json_str(r->series[s].name));
	json_object_set_new(o, "version", report_json_str(r->series[s].v.version));
	json_object_set_new(o, "target", report_json_str(r->targets[t]));
	json_object_set_new(o, "ok", json_boolean(c->ok));
	if (c->ok) {
		json_object_set_new(o, "error", json_null());
		json_object_set_new(o, "outcome",
				    json_string(report_outcome_id(cr->worst)));
	} else {
		json_object_set_new(o, "error", report_json_str(c->error ? c->error
							      : "unknown error"));
		json_object_set_new(o, "outcome", json_null());
	}
	json_object_set_new(o, "risk", json_boolean(cr->risk));
	for (int k = OUTCOME_CLEAN; k <= OUTCOME_CONFLICT; k++)
		json_object_set_new(counts, report_outcome_id((enum apply_outcome)k),
				    json_integer((json_int_t)cr->counts[k]));
	json_object_set_new(o, "counts", counts);
	json_object_set_new(o, "placement_risks",
			    json_integer((json_int_t)cr->nr_risk));
	json_object_set_new(o, "failed",
			    json_integer((json_int_t)cr->nr_failed));
	json_object_set_new(o, "branch", report_json_str(cr->branch));
	json_object_set_new(o, "base", joid(&cr->base));
	json_object_set_new(o, "head", joid(&cr->head));
	for (size_t i = 0; i < cr->nr; i++)
		json_array_append_new(patches, patch_json(c, i));
	json_object_set_new(o, "patches", patches);
	json_object_set_new(o, "audit",
			    c->ok ? audit_json(&c->audit) : json_null());
	json_object_set_new(o, "in_shard", json_boolean(!c->other_shard));
	json_object_set_new(o, "build", r->built && c->ok && !c->other_shard
						? report_build_json(&c->build)
						: json_null());
	return o;
}

int report_check_json(FILE *out, const struct check_report *r,
		      struct err *err)
{
	json_t *doc = json_object(), *series = json_array(),
	       *cells = json_array();

	json_object_set_new(doc, "schema", json_string(REPORT_CHECK_SCHEMA));
	/* NaN would make jansson drop the field */
	json_object_set_new(doc, "seconds",
			    json_real(r->seconds > 0 ? r->seconds : 0));
	for (size_t s = 0; s < r->nr_series; s++) {
		const struct check_series *cs = &r->series[s];
		json_t *so = json_object();
		bool stacks = cs->stacks_on >= 0 &&
			      (size_t)cs->stacks_on < r->nr_series;

		json_object_set_new(so, "name", report_json_str(cs->name));
		json_object_set_new(so, "version", report_json_str(cs->v.version));
		json_object_set_new(so, "stacks_on",
				    stacks ? report_json_str(r->series[cs->stacks_on].name)
					   : json_null());
		json_object_set_new(so, "patches",
				    json_integer((json_int_t)cs->v.nr));
		json_array_append_new(series, so);
	}
	json_object_set_new(doc, "series", series);
	json_object_set_new(doc, "built", json_boolean(r->built));
	if (r->nr_shards > 1) {
		json_t *sh = json_object();
		json_object_set_new(sh, "index", jcount(r->shard));
		json_object_set_new(sh, "count", jcount(r->nr_shards));
		json_object_set_new(doc, "shard", sh);
	} else
		json_object_set_new(doc, "shard", json_null());
	json_object_set_new(doc, "targets",
			    str_array(r->targets, r->nr_targets));
	for (size_t s = 0; s < r->nr_series; s++)
		for (size_t t = 0; t < r->nr_targets; t++)
			json_array_append_new(cells, cell_json(r, s, t));
	json_object_set_new(doc, "cells", cells);
	return write_json_doc(out, doc, "check report", err);
}

/* ---- JUnit XML -------------------------------------------------------- */

/*
 * Escape for XML 1.0 text or attribute values: valid UTF-8 (U+FFFD for
 * bad bytes), and U+FFFD for the characters XML 1.0 does not allow at all
 * (C0 controls other than tab, LF, CR; U+FFFE, U+FFFF).  In attributes,
 * tab, LF and CR become references so that parsers do not fold them.
 */
static void xml_addn(struct buf *b, const char *s, size_t len, bool attr)
{
	static const char repl[] = "\xef\xbf\xbd";
	struct buf u = BUF_INIT;
	const unsigned char *p;

	mail_to_utf8(&u, s, len, "UTF-8");
	p = (const unsigned char *)u.ptr;
	for (size_t i = 0; i < u.len; i++) {
		switch (p[i]) {
		case '&':
			buf_adds(b, "&amp;");
			continue;
		case '<':
			buf_adds(b, "&lt;");
			continue;
		case '>':
			buf_adds(b, "&gt;");
			continue;
		case '"':
			buf_adds(b, "&quot;");
			continue;
		case '\r':
			buf_adds(b, "&#13;");
			continue;
		case '\n':
		case '\t':
			if (attr)
				buf_addf(b, "&#%d;", p[i]);
			else
				buf_addc(b, (char)p[i]);
			continue;
		}
		if (p[i] < 0x20) {
			buf_adds(b, repl);
		} else if (p[i] == 0xef && i + 2 < u.len && p[i + 1] == 0xbf &&
			   (p[i + 2] == 0xbe || p[i + 2] == 0xbf)) {
			buf_adds(b, repl);
			i += 2;
		} else {
			buf_addc(b, (char)p[i]);
		}
	}
	buf_release(&u);
}

static void xml_add(struct buf *b, const char *s, bool attr)
{
	xml_addn(b, s, strlen(s), attr);
}

static void xml_attr(struct buf *b, const char *name, const char *value)
{
	buf_addf(b, " %s=\"", name);
	xml_add(b, value, true);
	buf_addc(b, '"');
}

struct junit_suite {
	struct buf body;
	const char *classname;
	size_t tests, failures, errors, skipped;
};

struct junit_case {
	const char *name;
	const char *child; /* "failure", "error", "skipped", or NULL: passed */
	const char *type;  /* of a failure or an error */
	const char *message;
	const char *text;  /* the child's content */
	const char *out;   /* system-out, or NULL */
};

static void junit_case(struct junit_suite *js, const struct junit_case *c)
{
	struct buf *b = &js->body;

	js->tests++;
	buf_adds(b, "    <testcase");
	xml_attr(b, "classname", js->classname);
	xml_attr(b, "name", c->name);
	buf_adds(b, " time=\"0\"");
	if (!c->child && !c->out) {
		buf_adds(b, "/>\n");
		return;
	}
	buf_adds(b, ">\n");
	if (c->child) {
		if (!strcmp(c->child, "failure"))
			js->failures++;
		else if (!strcmp(c->child, "error"))
			js->errors++;
		else
			js->skipped++;
		buf_addf(b, "      <%s", c->child);
		if (c->message)
			xml_attr(b, "message", c->message);
		if (c->type)
			xml_attr(b, "type", c->type);
		if (c->text && *c->text) {
			buf_addc(b, '>');
			xml_add(b, c->text, false);
			buf_addf(b, "</%s>\n", c->child);
		} else {
			buf_adds(b, "/>\n");
		}
	}
	if (c->out) {
		buf_adds(b, "      <system-out>");
		xml_add(b, c->out, false);
		buf_adds(b, "</system-out>\n");
	}
	buf_adds(b, "    </testcase>\n");
}

/* "\nPATH.rej:\n" and the hunks rejected there, for each file of cp. */
static void add_rejects(struct buf *b, const struct carry_patch *cp)
{
	for (size_t f = 0; f < cp->nr_files; f++) {
		const struct carry_file *cf = &cp->files[f];

		if (!cf->rej.len)
			continue;
		buf_addc(b, '\n');
		buf_add_printable(b, cf->path);
		buf_adds(b, ".rej:\n");
		buf_add(b, cf->rej.ptr, cf->rej.len);
		if (cf->rej.ptr[cf->rej.len - 1] != '\n')
			buf_addc(b, '\n');
	}
}

/* Everything known about patch i on one cell, for people reading CI. */
static void patch_details(struct buf *b, const struct check_cell *c,
			  size_t i, const char *target)
{
	const struct carry_patch *cp = &c->carry.patches[i];
	const struct audit_patch *ap = audit_patch_of(c, i);

	buf_addf(b, "%s: %s on %s%s\n", patch_file(cp),
		 cp->skipped ? "not tried" : apply_outcome_name(cp->outcome),
		 target, cp->resolved ? " (recorded resolution replayed)" : "");
	for (size_t f = 0; f < cp->nr_files; f++) {
		const struct carry_file *cf = &cp->files[f];

		buf_add_printable(b, cf->path);
		buf_addf(b, ": %s%s\n", apply_outcome_name(cf->outcome),
			 cf->risk ? ", placement risk" : "");
		if (cf->error) {
			buf_adds(b, "  ");
			buf_add_printable(b, cf->error);
			buf_addc(b, '\n');
		}
		for (size_t h = 0; h < cf->nr_hunks; h++) {
			buf_adds(b, "  ");
			describe_hunk(b, cf, h);
			buf_addc(b, '\n');
			describe_cause(b, "    ", &cf->hunks[h]);
		}
	}
	if (cp->nr_depends) {
		buf_adds(b, "touches lines of failed patches:");
		for (size_t d = 0; d < cp->nr_depends; d++)
			buf_addf(b, " %04zu", cp->depends[d]);
		buf_addc(b, '\n');
	}
	if (ap && ap->touches_watched)
		buf_adds(b, "watch: changes a watched file\n");
	if (ap && ap->touches_caller)
		buf_adds(b, "watch: changes a line that uses a watched "
			    "symbol\n");
	add_rejects(b, cp);
}

static void junit_patch(struct junit_suite *js, const struct check_cell *c,
			size_t i, const char *target)
{
	const struct carry_patch *cp = &c->carry.patches[i];
	struct buf name = BUF_INIT, msg = BUF_INIT, text = BUF_INIT;
	struct junit_case jc = { NULL };

	buf_addf(&name, "%04zu %s", i + 1, patch_subject(cp));
	jc.name = name.ptr;
	if (cp->skipped) {
		jc.child = "skipped";
		jc.message = "not tried";
	} else if (cp->outcome == OUTCOME_ALREADY) {
		jc.child = "skipped";
		jc.message = "already applied";
	} else if (cp->outcome == OUTCOME_ADAPTED && !cp->risk &&
		   check_patch_adapted_open(cp, ACCEPT_PERSON)) {
		size_t n = adapted_hunks(cp);

		/* never clean: a person accepts it, or --accept-adapted */
		jc.child = "failure";
		jc.type = "adapted";
		buf_addf(&msg, "adapted%s: %zu hunk%s rewritten to apply, not "
			       "accepted yet",
			 check_patch_adapted_open(cp, ACCEPT_BUILT) ? ""
								   : ", builds",
			 n, n == 1 ? "" : "s");
		jc.message = msg.ptr;
		patch_details(&text, c, i, target);
		jc.text = text.ptr;
	} else if (patch_failed(cp) || cp->risk) {
		size_t n;

		jc.child = "failure";
		if (!patch_failed(cp) || failed_by_risk_only(cp)) {
			n = risky_hunks(cp);
			jc.type = "placement-risk";
			buf_addf(&msg, "%zu hunk%s outside the function %s "
				       "header names",
				 n, n == 1 ? " lands" : "s land",
				 n == 1 ? "its" : "their");
		} else {
			n = conflicting_hunks(cp);
			jc.type = "conflict";
			buf_addf(&msg, "%s: %zu hunk%s %s not apply",
				 apply_outcome_name(cp->outcome), n,
				 n == 1 ? "" : "s", n == 1 ? "does" : "do");
			if (has_file_error(cp))
				buf_adds(&msg, ", files could not be handled");
		}
		jc.message = msg.ptr;
		patch_details(&text, c, i, target);
		jc.text = text.ptr;
	} else if (cp->outcome != OUTCOME_CLEAN || cp->resolved) {
		patch_details(&text, c, i, target);
		jc.out = text.ptr;
	}
	junit_case(js, &jc);
	buf_release(&name);
	buf_release(&msg);
	buf_release(&text);
}

static void junit_changes(struct buf *b, const struct audit_result *a)
{
	if (!a->nr_changes)
		return;
	buf_adds(b, "changed symbols:\n");
	for (size_t i = 0; i < a->nr_changes; i++) {
		buf_adds(b, "  ");
		describe_change(b, &a->changes[i]);
		buf_addc(b, '\n');
	}
}

static void junit_sites(struct junit_suite *js, const struct audit_result *a,
			bool absent, const char *target)
{
	const struct audit_site *sites = absent ? a->absent : a->unconverted;
	size_t nr = absent ? a->nr_absent : a->nr_unconverted;
	struct buf msg = BUF_INIT, text = BUF_INIT;
	struct junit_case jc = { NULL };

	jc.name = absent ? "watch: absent callers"
			 : "watch: unconverted callers";
	if (!absent)
		junit_changes(&text, a);
	if (nr) {
		jc.child = "failure";
		jc.type = absent ? "absent-callers" : "unconverted-callers";
		if (absent)
			buf_addf(&msg, "%zu caller%s the series converts %s "
				       "missing from %s",
				 nr, nr == 1 ? "" : "s", nr == 1 ? "is" : "are",
				 target);
		else
			buf_addf(&msg, "%zu site%s still use%s a changed or "
				       "removed symbol",
				 nr, nr == 1 ? "" : "s", nr == 1 ? "s" : "");
		jc.message = msg.ptr;
		buf_addf(&text, "%s:\n", absent ? "absent callers"
						 : "unconverted callers");
		for (size_t i = 0; i < nr; i++) {
			buf_adds(&text, "  ");
			describe_site(&text, &sites[i]);
			buf_addc(&text, '\n');
		}
		jc.text = text.ptr;
	} else if (text.len) {
		jc.out = text.ptr;
	}
	junit_case(js, &jc);
	buf_release(&msg);
	buf_release(&text);
}

/*
 * The series' own API change says more than the carried result: the
 * target lacks the API, or callers are left by a conflict or were never
 * converted while the result does not show the change.
 */
static bool series_api_matters(const struct audit_result *a)
{
	return a->api_absent || a->nr_conflicted ||
	       (a->nr_target_only && !a->nr_changes);
}

/* The series' API change on target and its callers, one per line. */
static void describe_series_api(struct buf *b, const struct audit_result *a,
				const char *target)
{
	for (size_t i = 0; i < a->nr_intents; i++) {
		const struct audit_intent *t = &a->intents[i];

		if (t->change == WATCH_ADDED)
			continue;
		buf_addf(b, "series %s %s %s in %04zu, which %s %s",
			 t->change == WATCH_REMOVED ? "removes" : "changes",
			 watch_kind_name(t->kind), t->name, t->patch, target,
			 t->target == AUDIT_TARGET_ABSENT ? "does not have"
			 : t->target == AUDIT_TARGET_PRESENT ? "has"
			 : t->target == AUDIT_TARGET_ALREADY
				 ? "has in the new form already"
				 : "has in another form");
		if (t->change == WATCH_CHANGED && t->old_sig && t->new_sig)
			buf_addf(b, ": %s -> %s", t->old_sig, t->new_sig);
		buf_addc(b, '\n');
	}
	if (a->api_absent) {
		buf_addf(b, "%s does not have the API the series changes",
			 target);
		for (size_t i = 0; i < a->nr_target_api; i++)
			buf_addf(b, "%s %s%s",
				 i ? "," : "; its watched files define instead:",
				 a->target_api[i].name,
				 a->target_api[i].kind == WATCH_FUNCTION ? "()"
									 : "");
		buf_addc(b, '\n');
	}
	for (size_t i = 0; i < a->nr_callers; i++) {
		const struct audit_caller *c = &a->callers[i];

		/* what became of the caller first, then its source line
		 * (which ends in its own punctuation) */
		buf_adds(b, "caller ");
		describe_site_head(b, &c->site);
		if (c->class == AUDIT_CONVERTED)
			buf_addf(b, ", converted by %04zu", c->patch);
		else if (c->class == AUDIT_CONFLICTED)
			buf_addf(b, ", %04zu (%s hunk %zu) meant to convert it "
				    "and did not apply",
				 c->patch, c->file, c->hunk);
		else
			buf_addf(b, ", only in %s, the series never converts "
				    "it",
				 target);
		if (c->site.text && *c->site.text)
			buf_addf(b, ": %s", c->site.text);
		buf_addc(b, '\n');
	}
}

static void junit_series_api(struct junit_suite *js,
			     const struct audit_result *a, const char *target)
{
	struct buf msg = BUF_INIT, text = BUF_INIT;
	struct junit_case jc = { NULL };
	size_t left = a->nr_conflicted + (a->nr_changes ? 0 : a->nr_target_only);

	jc.name = "watch: the series' API";
	jc.child = "failure";
	if (a->api_absent) {
		jc.type = "api-absent";
		buf_addf(&msg, "%s does not have the API the series changes",
			 target);
	} else {
		jc.type = "callers-left";
		buf_addf(&msg, "%zu caller%s of the API the series changes "
			       "%s not converted",
			 left, left == 1 ? "" : "s", left == 1 ? "is" : "are");
	}
	jc.message = msg.ptr;
	describe_series_api(&text, a, target);
	jc.text = text.ptr;
	junit_case(js, &jc);
	buf_release(&msg);
	buf_release(&text);
}

/* Jenkins splits a classname at its last dot: keep dots for our parts. */
static void add_class_part(struct buf *b, const char *s)
{
	for (; *s; s++)
		buf_addc(b, *s == '.' ? '_' : *s);
}

/* One testcase for the build of a cell: the compiler output of the new
 * diagnostics, each with what it is pinned on, in the failure. */
/* A build's new diagnostics and failing objects, a line each after
 * indent, as every text report lists them. */
static void build_findings(struct buf *text, const struct build_result *b,
			   const char *indent)
{
	for (size_t i = 0; i < b->diags.nr; i++) {
		buf_adds(text, indent);
		report_build_diag_line(text, &b->diags.items[i],
				       b->attr ? &b->attr[i] : NULL);
		buf_addc(text, '\n');
	}
	for (size_t i = 0; i < b->nr_failed_objects; i++)
		buf_addf(text, "%sfailed: %s\n", indent, b->failed_objects[i]);
	for (size_t i = 0; i < b->nr_broken_objects; i++)
		buf_addf(text, "%sfails in the base tree too: %s\n", indent,
			 b->broken_objects[i]);
}

static void junit_build(struct junit_suite *js, const struct build_result *b)
{
	struct buf msg = BUF_INIT, text = BUF_INIT;
	struct junit_case jc = { NULL };

	jc.name = "build";
	if (b->error) {
		jc.child = "error";
		jc.type = "build";
		jc.message = b->error;
		jc.text = b->error;
	} else if (b->skipped || !b->ran) {
		jc.child = "skipped";
		jc.message = "nothing to build";
	} else {
		report_build_summary(&msg, b);
		build_findings(&text, b, "");
		if (b->log.len) {
			buf_adds(&text, "\ncompiler output:\n");
			buf_add(&text, b->log.ptr, b->log.len);
		}
		if (b->failed) {
			jc.child = "failure";
			jc.type = "build";
			jc.message = msg.ptr;
			jc.text = text.ptr;
		} else if (text.len)
			jc.out = text.ptr;
	}
	junit_case(js, &jc);
	buf_release(&msg);
	buf_release(&text);
}

static void junit_cell(struct buf *doc, size_t totals[3],
		       const struct check_report *r, size_t s, size_t t)
{
	const struct check_cell *c = check_cell(r, s, t);
	const struct check_series *cs = &r->series[s];
	const char *target = r->targets[t];
	struct junit_suite js = { BUF_INIT };
	struct buf cls = BUF_INIT, name = BUF_INIT, tmp = BUF_INIT;
	char hex[41];

	add_class_part(&cls, cs->name);
	buf_addc(&cls, '.');
	add_class_part(&cls, cs->v.version);
	buf_addc(&cls, '.');
	add_class_part(&cls, target);
	js.classname = cls.ptr;

	if (!c->ok) {
		const char *why = c->error ? c->error : "unknown error";
		struct junit_case jc = { NULL, "error", "check", why, why };

		for (size_t i = 0; i < cs->v.nr; i++) {
			buf_reset(&tmp);
			buf_addf(&tmp, "%04zu %s", i + 1,
				 item_subject(&cs->v.items[i]));
			jc.name = tmp.ptr;
			junit_case(&js, &jc);
		}
		if (!cs->v.nr) {
			jc.name = "carry";
			junit_case(&js, &jc);
		}
	} else {
		for (size_t i = 0; i < c->carry.nr; i++)
			junit_patch(&js, c, i, target);
		junit_sites(&js, &c->audit, false, target);
		junit_sites(&js, &c->audit, true, target);
		if (r->built)
			junit_build(&js, &c->build);
		if (series_api_matters(&c->audit))
			junit_series_api(&js, &c->audit, target);
	}

	if (r->nr_series > 1)
		buf_addf(&name, "%s@%s on %s", cs->name, cs->v.version, target);
	else
		buf_adds(&name, target);
	buf_adds(doc, "  <testsuite");
	xml_attr(doc, "name", name.ptr);
	buf_addf(doc, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
		      "skipped=\"%zu\">\n",
		 js.tests, js.failures, js.errors, js.skipped);
	buf_adds(doc, "    <properties>\n");
	buf_adds(doc, "      <property name=\"series\"");
	xml_attr(doc, "value", cs->name);
	buf_adds(doc, "/>\n      <property name=\"version\"");
	xml_attr(doc, "value", cs->v.version);
	buf_adds(doc, "/>\n      <property name=\"target\"");
	xml_attr(doc, "value", target);
	buf_adds(doc, "/>\n");
	if (c->carry.branch) {
		buf_adds(doc, "      <property name=\"branch\"");
		xml_attr(doc, "value", c->carry.branch);
		buf_adds(doc, "/>\n");
	}
	if (!tree_oid_is_zero(&c->carry.base)) {
		tree_oid_hex(hex, &c->carry.base);
		buf_addf(doc, "      <property name=\"base\" value=\"%s\"/>\n",
			 hex);
	}
	if (!tree_oid_is_zero(&c->carry.head)) {
		tree_oid_hex(hex, &c->carry.head);
		buf_addf(doc, "      <property name=\"head\" value=\"%s\"/>\n",
			 hex);
	}
	buf_adds(doc, "    </properties>\n");
	buf_add(doc, js.body.ptr, js.body.len);
	buf_adds(doc, "  </testsuite>\n");
	totals[0] += js.tests;
	totals[1] += js.failures;
	totals[2] += js.errors;
	buf_release(&js.body);
	buf_release(&cls);
	buf_release(&name);
	buf_release(&tmp);
}

int report_check_junit(FILE *out, const struct check_report *r,
		       struct err *err)
{
	struct buf suites = BUF_INIT, doc = BUF_INIT;
	size_t totals[3] = { 0, 0, 0 };
	long long ms = r->seconds > 0 ? (long long)(r->seconds * 1000 + 0.5)
				      : 0;
	int error;

	for (size_t s = 0; s < r->nr_series; s++)
		for (size_t t = 0; t < r->nr_targets; t++)
			if (!check_cell(r, s, t)->other_shard)
				junit_cell(&suites, totals, r, s, t);
	/*
	 * No "skipped" here: the Jenkins schema allows it on testsuite only.
	 * The time is written by hand to stay '.' in any locale.
	 */
	buf_addf(&doc, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		       "<testsuites name=\"kcarry check\" tests=\"%zu\" "
		       "failures=\"%zu\" errors=\"%zu\" "
		       "time=\"%lld.%03lld\">\n",
		 totals[0], totals[1], totals[2], ms / 1000, ms % 1000);
	buf_add(&doc, suites.ptr, suites.len);
	buf_adds(&doc, "</testsuites>\n");
	error = write_out(out, doc.ptr, doc.len, "JUnit", err);
	buf_release(&suites);
	buf_release(&doc);
	return error;
}

/* ---- Markdown --------------------------------------------------------- */

/*
 * Text that Markdown must show as it is: punctuation that means something
 * to CommonMark/GFM is backslash-escaped ('|' too, for table cells), line
 * breaks and tabs become spaces, other control characters U+FFFD.
 */
static void md_add(struct buf *b, const char *s)
{
	for (; *s; s++) {
		size_t n = buf_control_len(s);

		if (*s == '\n' || *s == '\r' || *s == '\t')
			buf_addc(b, ' ');
		else if (n) {
			buf_adds(b, "\xef\xbf\xbd");
			s += n - 1;
		} else if (strchr("\\`*_[]<>|#~!&", *s))
			buf_addf(b, "\\%c", *s);
		else
			buf_addc(b, *s);
	}
}

static size_t longest_backtick_run(const char *s, size_t len)
{
	size_t best = 0, run = 0;

	for (size_t i = 0; i < len; i++) {
		run = s[i] == '`' ? run + 1 : 0;
		if (run > best)
			best = run;
	}
	return best;
}

/* An inline code span that holds any text. */
static void md_code(struct buf *b, const char *s)
{
	size_t n = longest_backtick_run(s, strlen(s)) + 1;
	bool pad = *s == '`' || (*s && s[strlen(s) - 1] == '`');

	for (size_t i = 0; i < n; i++)
		buf_addc(b, '`');
	if (pad)
		buf_addc(b, ' ');
	for (; *s; s++) {
		size_t k = buf_control_len(s);

		if (*s == '\n' || *s == '\r' || *s == '\t')
			buf_addc(b, ' ');
		else if (k) {
			buf_adds(b, "\xef\xbf\xbd");
			s += k - 1;
		} else
			buf_addc(b, *s);
	}
	if (pad)
		buf_addc(b, ' ');
	for (size_t i = 0; i < n; i++)
		buf_addc(b, '`');
}

/* For HTML elements such as <summary>. */
static void html_add(struct buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '&')
			buf_adds(b, "&amp;");
		else if (*s == '<')
			buf_adds(b, "&lt;");
		else if (*s == '>')
			buf_adds(b, "&gt;");
		else if (*s == '"')
			buf_adds(b, "&quot;");
		else if (*s == '\n' || *s == '\r')
			buf_addc(b, ' ');
		else
			buf_addc(b, *s);
	}
}

static void md_fenced(struct buf *b, const char *lang, const char *s,
		      size_t len)
{
	size_t n = longest_backtick_run(s, len) + 1;

	if (n < 3)
		n = 3;
	for (size_t i = 0; i < n; i++)
		buf_addc(b, '`');
	buf_addf(b, "%s\n", lang);
	buf_add(b, s, len);
	if (len && s[len - 1] != '\n')
		buf_addc(b, '\n');
	for (size_t i = 0; i < n; i++)
		buf_addc(b, '`');
	buf_addc(b, '\n');
}

static void md_table_cell(struct buf *b, const struct check_cell *c, size_t i)
{
	const struct carry_patch *cp;

	if (c->other_shard)
		return;
	if (i >= c->carry.nr) {
		buf_adds(b, c->ok ? "-" : "error");
		return;
	}
	cp = &c->carry.patches[i];
	if (cp->skipped) {
		buf_adds(b, "not tried");
		return;
	}
	if (patch_failed(cp) || cp->risk)
		buf_adds(b, "**");
	buf_adds(b, apply_outcome_name(cp->outcome));
	if (cp->risk)
		buf_adds(b, ", risk");
	if (patch_failed(cp) || cp->risk)
		buf_adds(b, "**");
	if (cp->resolved)
		buf_adds(b, " (resolved)");
}

static void md_table(struct buf *b, const struct check_report *r, size_t s)
{
	const struct check_series *cs = &r->series[s];

	buf_adds(b, "| Patch |");
	for (size_t t = 0; t < r->nr_targets; t++) {
		buf_addc(b, ' ');
		md_add(b, r->targets[t]);
		buf_adds(b, " |");
	}
	buf_adds(b, "\n| --- |");
	for (size_t t = 0; t < r->nr_targets; t++)
		buf_adds(b, " --- |");
	buf_addc(b, '\n');
	for (size_t i = 0; i < cs->v.nr; i++) {
		buf_addf(b, "| %04zu ", i + 1);
		md_add(b, item_subject(&cs->v.items[i]));
		buf_adds(b, " |");
		for (size_t t = 0; t < r->nr_targets; t++) {
			buf_addc(b, ' ');
			md_table_cell(b, check_cell(r, s, t), i);
			buf_adds(b, " |");
		}
		buf_addc(b, '\n');
	}
	if (r->built) {
		buf_adds(b, "| build |");
		for (size_t t = 0; t < r->nr_targets; t++) {
			const struct check_cell *c = check_cell(r, s, t);
			struct buf sum = BUF_INIT;
			buf_addc(b, ' ');
			if (!c->other_shard && c->ok) {
				report_build_summary(&sum, &c->build);
				if (c->build.failed)
					buf_adds(b, "**");
				md_add(b, sum.ptr);
				if (c->build.failed)
					buf_adds(b, "**");
			}
			buf_release(&sum);
			buf_adds(b, " |");
		}
		buf_addc(b, '\n');
	}
	buf_addc(b, '\n');
}

static void md_patch_failure(struct buf *b, const struct check_cell *c,
			     size_t i)
{
	const struct carry_patch *cp = &c->carry.patches[i];
	struct buf line = BUF_INIT;

	buf_addf(&line, "%04zu %s: %s%s", i + 1, patch_subject(cp),
		 apply_outcome_name(cp->outcome),
		 cp->risk ? ", placement risk" : "");
	buf_adds(b, "<details><summary>");
	html_add(b, line.ptr);
	buf_adds(b, "</summary>\n\n");
	for (size_t f = 0; f < cp->nr_files; f++) {
		const struct carry_file *cf = &cp->files[f];

		if (cf->error) {
			buf_adds(b, "- ");
			md_code(b, cf->path);
			buf_adds(b, ": ");
			md_add(b, cf->error);
			buf_addc(b, '\n');
		}
		for (size_t h = 0; h < cf->nr_hunks; h++) {
			if (!hunk_matters(&cf->hunks[h]))
				continue;
			buf_reset(&line);
			describe_hunk(&line, cf, h);
			buf_adds(b, "- ");
			md_add(b, line.ptr);
			buf_addc(b, '\n');
			if (report_cause_tells(&cf->hunks[h])) {
				buf_adds(b, "  - cause: ");
				md_add(b, cf->hunks[h].cause->text);
				buf_addc(b, '\n');
			}
		}
	}
	if (cp->nr_depends) {
		buf_adds(b, "- touches lines of failed patch");
		buf_adds(b, cp->nr_depends > 1 ? "es" : "");
		for (size_t d = 0; d < cp->nr_depends; d++)
			buf_addf(b, " %04zu", cp->depends[d]);
		buf_addc(b, '\n');
	}
	for (size_t f = 0; f < cp->nr_files; f++) {
		const struct carry_file *cf = &cp->files[f];

		if (!cf->rej.len)
			continue;
		buf_adds(b, "\n");
		md_code(b, cf->path);
		buf_adds(b, ".rej:\n\n");
		md_fenced(b, "diff", cf->rej.ptr, cf->rej.len);
	}
	buf_adds(b, "\n</details>\n\n");
	buf_release(&line);
}

static void md_sites(struct buf *b, const char *title,
		     const struct audit_site *sites, size_t nr)
{
	struct buf loc = BUF_INIT;

	if (!nr)
		return;
	buf_addf(b, "%s:\n\n", title);
	for (size_t i = 0; i < nr; i++) {
		const struct audit_site *st = &sites[i];

		buf_reset(&loc);
		buf_addf(&loc, "%s:%zu", st->path, st->line);
		buf_adds(b, "- ");
		md_code(b, loc.ptr);
		if (st->func) {
			buf_reset(&loc);
			buf_addf(&loc, "%s()", st->func);
			buf_addc(b, ' ');
			md_code(b, loc.ptr);
		}
		buf_addf(b, ": %s of ", watch_ref_kind_name(st->kind));
		md_code(b, st->symbol);
		if (st->text && *st->text) {
			buf_adds(b, ": ");
			md_code(b, st->text);
		}
		buf_addc(b, '\n');
	}
	buf_addc(b, '\n');
	buf_release(&loc);
}

static void md_watch(struct buf *b, const struct audit_result *a,
		     const char *target)
{
	if (!a->nr_changes && !a->nr_unconverted && !a->nr_absent &&
	    !series_api_matters(a))
		return;
	buf_adds(b, "Watch findings");
	for (size_t i = 0; i < a->nr_watched; i++) {
		buf_adds(b, i ? ", " : " (");
		md_code(b, a->watched[i]);
	}
	buf_adds(b, a->nr_watched ? "):\n\n" : ":\n\n");
	for (size_t i = 0; i < a->nr_changes; i++) {
		const struct audit_change *ch = &a->changes[i];

		buf_adds(b, "- ");
		md_code(b, ch->name);
		buf_addf(b, " (%s) %s", watch_kind_name(ch->kind),
			 watch_change_name(ch->change));
		if (ch->old_sig && ch->new_sig) {
			buf_adds(b, ": ");
			md_code(b, ch->old_sig);
			buf_adds(b, " -> ");
			md_code(b, ch->new_sig);
		} else if (ch->old_sig || ch->new_sig) {
			buf_adds(b, ": ");
			md_code(b, ch->old_sig ? ch->old_sig : ch->new_sig);
		}
		buf_addc(b, '\n');
	}
	if (a->nr_changes)
		buf_addc(b, '\n');
	md_sites(b, "Unconverted callers", a->unconverted, a->nr_unconverted);
	md_sites(b, "Callers the series converts that are absent here",
		 a->absent, a->nr_absent);
	if (series_api_matters(a)) {
		struct buf t = BUF_INIT;
		const char *p, *nl;

		buf_adds(b, "The API the series' own hunks change:\n\n");
		describe_series_api(&t, a, target);
		for (p = t.ptr; *p; p = nl + 1) {
			char *line;

			nl = strchr(p, '\n');
			line = xstrndup(p, (size_t)(nl - p));
			buf_adds(b, "- ");
			md_add(b, line);
			buf_addc(b, '\n');
			free(line);
		}
		buf_addc(b, '\n');
		buf_release(&t);
	}
}

static void md_build(struct buf *b, const struct build_result *br)
{
	struct buf s = BUF_INIT, text = BUF_INIT;

	if (br->error) {
		buf_adds(b, "**Build did not run:**\n\n");
		md_fenced(b, "", br->error, strlen(br->error));
		return;
	}
	if (!br->failed && !br->diags.nr)
		return;
	report_build_summary(&s, br);
	buf_adds(b, "**Build:** ");
	md_add(b, s.ptr + (starts_with(s.ptr, "build: ") ? 7 : 0));
	if (br->profile) {
		buf_adds(b, " (profile ");
		md_code(b, br->profile);
		buf_addc(b, ')');
	}
	buf_adds(b, "\n\n");
	build_findings(&text, br, "");
	md_fenced(b, "", text.ptr, text.len);
	if (br->log.len) {
		buf_adds(b, "<details><summary>compiler output</summary>\n\n");
		md_fenced(b, "", br->log.ptr, br->log.len);
		buf_adds(b, "</details>\n\n");
	}
	buf_release(&s);
	buf_release(&text);
}

static bool cell_has_findings(const struct check_cell *c)
{
	if (c->other_shard)
		return false;
	if (!c->ok)
		return true;
	if (c->build.failed || c->build.error || c->build.diags.nr)
		return true;
	for (size_t i = 0; i < c->carry.nr; i++)
		if (patch_failed(&c->carry.patches[i]) ||
		    c->carry.patches[i].risk)
			return true;
	return c->audit.nr_changes || c->audit.nr_unconverted ||
	       c->audit.nr_absent || series_api_matters(&c->audit);
}

struct md_totals {
	size_t outcomes[OUTCOME_CONFLICT + 1];
	size_t not_tried, risks, unconverted, absent, errors;
	/* callers of the series' intended API where its patch did not
	 * land: meant to be converted by a conflicting hunk, or never
	 * converted by the series (counted as the text report does) */
	size_t conflicted, target_only;
	size_t builds, builds_failed, build_errors, build_warnings;
};

static void md_count(struct md_totals *tot, const struct check_cell *c)
{
	if (c->other_shard)
		return;
	if (c->build.ran) {
		tot->builds++;
		tot->builds_failed += c->build.failed;
		tot->build_errors += c->build.errors;
		tot->build_warnings += c->build.warnings;
	}
	if (!c->ok) {
		tot->errors++;
		return;
	}
	for (size_t i = 0; i < c->carry.nr; i++) {
		const struct carry_patch *cp = &c->carry.patches[i];

		if (cp->skipped)
			tot->not_tried++;
		else
			tot->outcomes[cp->outcome]++;
		tot->risks += cp->risk;
	}
	tot->unconverted += c->audit.nr_unconverted;
	tot->conflicted += c->audit.nr_conflicted;
	if (!c->audit.nr_unconverted)
		tot->target_only += c->audit.nr_target_only;
	tot->absent += c->audit.nr_absent;
}

static void md_totals(struct buf *b, const struct md_totals *tot)
{
	bool first = true;

	buf_adds(b, "**Totals:**");
	for (int o = OUTCOME_CLEAN; o <= OUTCOME_CONFLICT; o++) {
		if (!tot->outcomes[o])
			continue;
		buf_addf(b, "%s %zu %s", first ? "" : ",", tot->outcomes[o],
			 apply_outcome_name((enum apply_outcome)o));
		first = false;
	}
	if (tot->not_tried) {
		buf_addf(b, "%s %zu not tried", first ? "" : ",",
			 tot->not_tried);
		first = false;
	}
	if (first)
		buf_adds(b, " no patches");
	buf_addf(b, "; %zu placement risk%s; %zu unconverted caller%s; "
		    "%zu absent caller%s",
		 tot->risks, tot->risks == 1 ? "" : "s", tot->unconverted,
		 tot->unconverted == 1 ? "" : "s", tot->absent,
		 tot->absent == 1 ? "" : "s");
	if (tot->conflicted)
		buf_addf(b, "; %zu caller%s left by a conflict", tot->conflicted,
			 tot->conflicted == 1 ? "" : "s");
	if (tot->target_only)
		buf_addf(b, "; %zu caller%s the series never converts",
			 tot->target_only, tot->target_only == 1 ? "" : "s");
	if (tot->errors)
		buf_addf(b, "; %zu cell%s could not run", tot->errors,
			 tot->errors == 1 ? "" : "s");
	if (tot->builds)
		buf_addf(b, "; builds: %zu of %zu failed, %zu new error%s, %zu "
			    "new warning%s",
			 tot->builds_failed, tot->builds, tot->build_errors,
			 tot->build_errors == 1 ? "" : "s", tot->build_warnings,
			 tot->build_warnings == 1 ? "" : "s");
	buf_adds(b, ".\n");
}

int report_check_markdown(FILE *out, const struct check_report *r,
			  struct err *err)
{
	struct buf b = BUF_INIT;
	struct md_totals tot;
	bool findings = false;
	int error;

	memset(&tot, 0, sizeof(tot));
	buf_addf(&b, "## kcarry check: %zu series on %zu target%s\n\n",
		 r->nr_series, r->nr_targets, r->nr_targets == 1 ? "" : "s");
	for (size_t s = 0; s < r->nr_series; s++) {
		const struct check_series *cs = &r->series[s];

		buf_adds(&b, "### ");
		md_add(&b, cs->name);
		buf_addc(&b, '@');
		md_add(&b, cs->v.version);
		if (cs->stacks_on >= 0 &&
		    (size_t)cs->stacks_on < r->nr_series) {
			buf_adds(&b, " (on top of ");
			md_add(&b, r->series[cs->stacks_on].name);
			buf_addc(&b, ')');
		}
		buf_adds(&b, "\n\n");
		md_table(&b, r, s);
		for (size_t t = 0; t < r->nr_targets; t++)
			md_count(&tot, check_cell(r, s, t));
	}
	for (size_t s = 0; s < r->nr_series; s++)
		for (size_t t = 0; t < r->nr_targets; t++) {
			const struct check_cell *c = check_cell(r, s, t);
			const struct check_series *cs = &r->series[s];

			if (!cell_has_findings(c))
				continue;
			if (!findings)
				buf_adds(&b, "### Failures and findings\n\n");
			findings = true;
			buf_adds(&b, "#### ");
			md_add(&b, r->targets[t]);
			buf_adds(&b, ": ");
			md_add(&b, cs->name);
			buf_addc(&b, '@');
			md_add(&b, cs->v.version);
			buf_adds(&b, "\n\n");
			if (!c->ok) {
				buf_adds(&b, "Could not run: ");
				md_add(&b, c->error ? c->error
						    : "unknown error");
				buf_adds(&b, "\n\n");
				continue;
			}
			for (size_t i = 0; i < c->carry.nr; i++)
				if (patch_failed(&c->carry.patches[i]) ||
				    c->carry.patches[i].risk)
					md_patch_failure(&b, c, i);
			md_watch(&b, &c->audit, r->targets[t]);
			if (r->built)
				md_build(&b, &c->build);
		}
	md_totals(&b, &tot);
	error = write_out(out, b.ptr, b.len, "Markdown", err);
	buf_release(&b);
	return error;
}

/* ---- email ------------------------------------------------------------ */

/* RFC 2822 date in UTC; by hand, for names that no locale changes. */
static void add_rfc2822_date(struct buf *b, long long epoch)
{
	static const char *const days[] = { "Sun", "Mon", "Tue", "Wed",
					    "Thu", "Fri", "Sat" };
	static const char *const months[] = { "Jan", "Feb", "Mar", "Apr",
					      "May", "Jun", "Jul", "Aug",
					      "Sep", "Oct", "Nov", "Dec" };
	time_t t = (time_t)epoch;
	struct tm tm;

	if (!gmtime_r(&t, &tm)) {
		t = 0;
		gmtime_r(&t, &tm);
	}
	buf_addf(b, "%s, %02d %s %04d %02d:%02d:%02d +0000", days[tm.tm_wday],
		 tm.tm_mday, months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour,
		 tm.tm_min, tm.tm_sec);
}

/* One dot-atom part of a Message-ID: no '..', no dot at either end. */
static void add_msgid_part(struct buf *b, const char *s)
{
	size_t start = b->len;

	for (; *s; s++) {
		char c = *s;
		bool dot_ok = b->len > start && b->ptr[b->len - 1] != '.' &&
			      s[1];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || strchr("-_+=", c))
			buf_addc(b, c);
		else
			buf_addc(b, c == '.' && dot_ok ? '.' : '-');
	}
	if (b->len == start)
		buf_addc(b, '_');
}

/* A display name that needs quoting in an address (RFC 5322 specials). */
static bool needs_quotes(const char *name)
{
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (*p >= 0x80)
			return false; /* encoded as a whole by RFC 2047 */
	return strpbrk(name, "()<>[]:;@\\,.\"") != NULL;
}

static void author_address(struct buf *b, const struct patch *p)
{
	if (!p->author_name || !*p->author_name) {
		buf_adds(b, p->author_email);
		return;
	}
	if (needs_quotes(p->author_name)) {
		buf_addc(b, '"');
		for (const char *s = p->author_name; *s; s++) {
			if (*s == '"' || *s == '\\')
				buf_addc(b, '\\');
			buf_addc(b, *s);
		}
		buf_addc(b, '"');
	} else {
		buf_adds(b, p->author_name);
	}
	buf_addf(b, " <%s>", p->author_email);
}

static void add_header(struct buf *b, const char *name, const char *value)
{
	buf_addf(b, "%s: ", name);
	mail_encode_header(b, value);
	buf_addc(b, '\n');
}

/* mboxrd: every line that starts with ">*From " gets one more '>'. */
static void add_mboxrd(struct buf *b, const char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		const char *nl = memchr(s + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - s) + 1 : len, j = i;

		while (j < end && s[j] == '>')
			j++;
		if (end - j >= 5 && !memcmp(s + j, "From ", 5))
			buf_addc(b, '>');
		buf_add(b, s + i, end - i);
		i = end;
	}
	if (len && s[len - 1] != '\n')
		buf_addc(b, '\n');
}

struct email_ctx {
	const struct check_report *r;
	const struct report_email_opts *opts;
	long long date;
};

static void email_body(struct buf *b, const struct check_report *r,
		       size_t s, size_t t, size_t i)
{
	const struct check_series *cs = &r->series[s];
	const struct check_cell *c = check_cell(r, s, t);
	const struct carry_patch *cp = &c->carry.patches[i];
	const char *target = r->targets[t];

	buf_addf(b, "The patch below does not apply to the %s tree.\n"
		    "If someone wants it applied there, please resolve it "
		    "and send a backport.\n\n"
		    "To reproduce the conflict and resubmit, you may use the "
		    "following commands:\n\n"
		    "  kcarry apply %s@%s %s\n"
		    "  kcarry resolve %s@%s %s %04zu\n"
		    "  # edit, then\n"
		    "  kcarry refresh %s@%s %s\n\n"
		    "Possible dependencies:\n",
		 target, cs->name, cs->v.version, target, cs->name,
		 cs->v.version, target, i + 1, cs->name, cs->v.version, target);
	for (size_t d = 0; d < cp->nr_depends; d++) {
		size_t n = cp->depends[d];

		buf_addf(b, "  %04zu", n);
		if (n >= 1 && n <= c->carry.nr)
			buf_addf(b, " %s",
				 patch_subject(&c->carry.patches[n - 1]));
		buf_addc(b, '\n');
	}
	if (!cp->nr_depends)
		buf_adds(b, "  none known\n");
	buf_adds(b, "\nConflicting hunks:\n\n");
	for (size_t f = 0; f < cp->nr_files; f++) {
		const struct carry_file *cf = &cp->files[f];

		if (cf->error) {
			buf_adds(b, "  ");
			buf_add_printable(b, cf->path);
			buf_adds(b, ": ");
			buf_add_printable(b, cf->error);
			buf_addc(b, '\n');
		}
		for (size_t h = 0; h < cf->nr_hunks; h++) {
			if (!hunk_matters(&cf->hunks[h]))
				continue;
			buf_adds(b, "  ");
			describe_hunk(b, cf, h);
			buf_addc(b, '\n');
			describe_cause(b, "    ", &cf->hunks[h]);
		}
	}
	add_rejects(b, cp);
	buf_adds(b, "\n------------------ original patch ------------------\n");
	if (cp->item)
		buf_add(b, cp->item->text.ptr, cp->item->text.len);
}

/*
 * A report mail's first lines: its mbox separator, From: kcarry (or
 * --from), To: --to or the author of cp (when there is one), the
 * subject and the date.
 */
static void email_head(struct buf *b, const struct email_ctx *ec,
		       const struct carry_patch *cp, const char *subject)
{
	struct buf to = BUF_INIT;

	buf_adds(b, "From kcarry Thu Jan  1 00:00:00 1970\n");
	add_header(b, "From", ec->opts && ec->opts->from
				      ? ec->opts->from
				      : "kcarry <kcarry@localhost>");
	if (ec->opts && ec->opts->to)
		buf_adds(&to, ec->opts->to);
	else if (cp && cp->item && cp->item->patch.author_email)
		author_address(&to, &cp->item->patch);
	if (to.len)
		add_header(b, "To", to.ptr);
	add_header(b, "Subject", subject);
	buf_adds(b, "Date: ");
	add_rfc2822_date(b, ec->date);
	buf_addc(b, '\n');
	buf_release(&to);
}

/*
 * The rest of the header: Message-ID <kcarry.KIND NAME.VERSION.TARGET
 * [.NNNN]@localhost> (nr 0: no number) and the MIME lines.
 */
static void email_msgid(struct buf *b, const char *kind,
			const struct check_series *cs, const char *target,
			size_t nr)
{
	buf_addf(b, "Message-ID: <kcarry.%s", kind);
	add_msgid_part(b, cs->name);
	buf_addc(b, '.');
	add_msgid_part(b, cs->v.version);
	buf_addc(b, '.');
	add_msgid_part(b, target);
	if (nr)
		buf_addf(b, ".%04zu", nr);
	buf_adds(b, "@localhost>\n");
	buf_adds(b, "MIME-Version: 1.0\n"
		    "Content-Type: text/plain; charset=UTF-8\n"
		    "Content-Transfer-Encoding: 8bit\n\n");
}

/* The patch a failed build is pinned on first: the first breaking patch
 * (--each), else the earliest patch a new error is pinned on. */
static size_t build_culprit(const struct build_result *br)
{
	size_t best = 0;

	if (br->first_breaking)
		return br->first_breaking;
	for (size_t i = 0; br->attr && i < br->diags.nr; i++)
		if (br->diags.items[i].sev == DIAG_ERROR && br->attr[i].patch &&
		    (!best || br->attr[i].patch < best))
			best = br->attr[i].patch;
	return best;
}

/* "FAILED: patch ... failed to build on TARGET tree" */
static void email_build(struct buf *b, const struct email_ctx *ec, size_t s,
			size_t t)
{
	const struct check_report *r = ec->r;
	const struct check_series *cs = &r->series[s];
	const struct check_cell *c = check_cell(r, s, t);
	const struct build_result *br = &c->build;
	size_t i = build_culprit(br);
	const struct carry_patch *cp = i && i <= c->carry.nr
					       ? &c->carry.patches[i - 1]
					       : NULL;
	struct buf v = BUF_INIT, body = BUF_INIT;

	if (cp)
		buf_addf(&v, "FAILED: patch \"%s\" failed to build on %s tree",
			 patch_subject(cp), r->targets[t]);
	else
		buf_addf(&v, "FAILED: %s@%s failed to build on %s tree",
			 cs->name, cs->v.version, r->targets[t]);
	email_head(b, ec, cp, v.ptr);
	email_msgid(b, "build.", cs, r->targets[t], 0);
	buf_addf(&body, "The series %s@%s applies to the %s tree but does not "
			"build there.\n",
		 cs->name, cs->v.version, r->targets[t]);
	if (br->first_breaking)
		buf_addf(&body, "The first patch after which it breaks is "
				"%04zu.\n",
			 br->first_breaking);
	buf_addf(&body, "\nTo reproduce:\n\n  kcarry build%s %s@%s %s\n\n"
			"New diagnostics, each with the patch or finding behind "
			"it:\n\n",
		 br->first_breaking ? " --each" : "", cs->name, cs->v.version,
		 r->targets[t]);
	if (br->error)
		buf_addf(&body, "  %s\n", br->error);
	build_findings(&body, br, "  ");
	if (br->log.len) {
		buf_adds(&body, "\n------------------ compiler output "
				"------------------\n");
		buf_add(&body, br->log.ptr, br->log.len);
	}
	if (cp && cp->item) {
		buf_adds(&body, "\n------------------ original patch "
				"------------------\n");
		buf_add(&body, cp->item->text.ptr, cp->item->text.len);
	}
	add_mboxrd(b, body.ptr, body.len);
	buf_addc(b, '\n');
	buf_release(&v);
	buf_release(&body);
}

static void email_one(struct buf *b, const struct email_ctx *ec, size_t s,
		      size_t t, size_t i)
{
	const struct check_report *r = ec->r;
	const struct check_series *cs = &r->series[s];
	const struct carry_patch *cp = &check_cell(r, s, t)->carry.patches[i];
	struct buf v = BUF_INIT, body = BUF_INIT;

	buf_addf(&v, "FAILED: patch \"%s\" failed to apply to %s tree",
		 patch_subject(cp), r->targets[t]);
	email_head(b, ec, cp, v.ptr);
	email_msgid(b, "", cs, r->targets[t], i + 1);
	email_body(&body, r, s, t, i);
	add_mboxrd(b, body.ptr, body.len);
	buf_addc(b, '\n');
	buf_release(&v);
	buf_release(&body);
}

int report_check_email(FILE *out, const struct check_report *r,
		       const struct report_email_opts *opts, struct err *err)
{
	struct email_ctx ec = { r, opts, opts ? opts->date : 0 };
	struct buf b = BUF_INIT;
	int error;

	if (!ec.date)
		ec.date = (long long)time(NULL);
	for (size_t s = 0; s < r->nr_series; s++)
		for (size_t t = 0; t < r->nr_targets; t++) {
			const struct check_cell *c = check_cell(r, s, t);

			if (c->other_shard || (!c->ok && !c->carry.nr))
				continue;
			for (size_t i = 0; i < c->carry.nr; i++)
				if (patch_failed(&c->carry.patches[i]))
					email_one(&b, &ec, s, t, i);
			if (r->built && c->ok && c->build.failed)
				email_build(&b, &ec, s, t);
		}
	error = write_out(out, b.ptr, b.len, "email", err);
	buf_release(&b);
	return error;
}
