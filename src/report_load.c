#include "report_load.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cause.h"
#include "report.h"

static const char *jstr(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

static char *jdup(json_t *o, const char *key)
{
	const char *s = jstr(o, key);
	return s ? xstrdup(s) : NULL;
}

static size_t jsize(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_integer(v) && json_integer_value(v) > 0
		       ? (size_t)json_integer_value(v)
		       : 0;
}

static long jlong(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_integer(v) ? (long)json_integer_value(v) : 0;
}

static bool jbool(json_t *o, const char *key)
{
	return json_is_true(json_object_get(o, key));
}

static double jreal(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : 0;
}

static int parse_oid(struct tree_oid *oid, const char *hex)
{
	memset(oid, 0, sizeof(*oid));
	if (!hex)
		return 0;
	if (strlen(hex) != 40)
		return -1;
	for (size_t i = 0; i < 20; i++) {
		unsigned v;
		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return -1;
		oid->id[i] = (unsigned char)v;
	}
	return 0;
}

static bool outcome_of(enum apply_outcome *o, const char *id)
{
	for (int k = OUTCOME_CLEAN; id && k <= OUTCOME_CONFLICT; k++)
		if (!strcmp(report_outcome_id((enum apply_outcome)k), id)) {
			*o = (enum apply_outcome)k;
			return true;
		}
	return false;
}

static enum apply_rule rule_of(const char *id)
{
	for (int k = RULE_EXACT; id && k <= RULE_CONFLICT; k++)
		if (!strcmp(apply_rule_name((enum apply_rule)k), id))
			return (enum apply_rule)k;
	return RULE_CONFLICT;
}

/* names with '-' for ' ' (jid) */
static bool same_id(const char *name, const char *id)
{
	for (; *name && *id; name++, id++)
		if (*name != *id && !(*name == ' ' && *id == '-'))
			return false;
	return !*name && !*id;
}

static void load_site(struct audit_site *s, json_t *o)
{
	const char *kind = jstr(o, "kind");

	memset(s, 0, sizeof(*s));
	s->path = jdup(o, "path");
	s->line = jsize(o, "line");
	s->func = jdup(o, "function");
	s->symbol = jdup(o, "symbol");
	s->text = jdup(o, "text");
	for (int k = WATCH_REF_CALL; kind && k <= WATCH_REF_DECL; k++)
		if (same_id(watch_ref_kind_name((enum watch_ref_kind)k), kind))
			s->kind = (enum watch_ref_kind)k;
}

static void load_sites(struct audit_site **out, size_t *nr, json_t *arr)
{
	size_t i;
	json_t *v;

	*nr = json_array_size(arr);
	*out = *nr ? xcalloc(*nr, sizeof(**out)) : NULL;
	json_array_foreach(arr, i, v) load_site(&(*out)[i], v);
}

static enum watch_kind kind_of(const char *id)
{
	for (int k = WATCH_FUNCTION; id && k <= WATCH_ANY; k++)
		if (same_id(watch_kind_name((enum watch_kind)k), id))
			return (enum watch_kind)k;
	return WATCH_ANY;
}

static enum watch_change change_of(const char *id)
{
	for (int k = WATCH_REMOVED; id && k <= WATCH_CHANGED; k++)
		if (same_id(watch_change_name((enum watch_change)k), id))
			return (enum watch_change)k;
	return WATCH_CHANGED;
}

/* The series' own API change, the target's API, the callers classified
 * (the fields the audit of the series' hunks adds). */
static void load_series_api(struct audit_result *a, json_t *o)
{
	json_t *arr, *v;
	size_t i;

	arr = json_object_get(o, "intended");
	a->nr_intents = json_array_size(arr);
	a->intents = a->nr_intents ? xcalloc(a->nr_intents, sizeof(*a->intents))
				   : NULL;
	json_array_foreach(arr, i, v)
	{
		struct audit_intent *t = &a->intents[i];
		const char *ts = jstr(v, "target");
		t->name = jdup(v, "name");
		t->kind = kind_of(jstr(v, "kind"));
		t->change = change_of(jstr(v, "change"));
		t->old_sig = jdup(v, "old");
		t->new_sig = jdup(v, "new");
		t->patch = jsize(v, "patch");
		t->target_sig = jdup(v, "target_signature");
		for (int k = AUDIT_TARGET_PRESENT; ts && k <= AUDIT_TARGET_ABSENT;
		     k++)
			if (!strcmp(audit_target_state_name(
					    (enum audit_target_state)k),
				    ts))
				t->target = (enum audit_target_state)k;
	}
	a->api_absent = jbool(o, "api_absent");
	arr = json_object_get(o, "target_api");
	a->nr_target_api = json_array_size(arr);
	a->target_api = a->nr_target_api
				? xcalloc(a->nr_target_api, sizeof(*a->target_api))
				: NULL;
	json_array_foreach(arr, i, v)
	{
		struct watch_symbol *w = &a->target_api[i];
		w->name = jdup(v, "name");
		w->kind = kind_of(jstr(v, "kind"));
		w->path = jdup(v, "path");
		w->line = jsize(v, "line");
		w->signature = jdup(v, "signature");
	}
	arr = json_object_get(o, "callers");
	a->nr_callers = json_array_size(arr);
	a->callers = a->nr_callers ? xcalloc(a->nr_callers, sizeof(*a->callers))
				   : NULL;
	json_array_foreach(arr, i, v)
	{
		struct audit_caller *c = &a->callers[i];
		const char *cls = jstr(v, "class");
		load_site(&c->site, v);
		for (int k = AUDIT_CONVERTED; cls && k <= AUDIT_TARGET_ONLY; k++)
			if (!strcmp(audit_caller_class_name(
					    (enum audit_caller_class)k),
				    cls))
				c->class = (enum audit_caller_class)k;
		c->patch = jsize(v, "patch");
		c->file = jdup(v, "hunk_file");
		c->hunk = jsize(v, "hunk");
		if (c->class == AUDIT_CONFLICTED)
			a->nr_conflicted++;
		else if (c->class == AUDIT_TARGET_ONLY)
			a->nr_target_only++;
	}
}

static void load_source(struct cause_source *s, json_t *o)
{
	const char *kind = jstr(o, "kind");

	memset(s, 0, sizeof(*s));
	if (!json_is_object(o) || !kind)
		return;
	s->kind = !strcmp(kind, "series")  ? SOURCE_SERIES
		  : !strcmp(kind, "other") ? SOURCE_OTHER
					   : SOURCE_UPSTREAM;
	s->patch = jsize(o, "patch");
	s->series = jdup(o, "series");
	s->version = jdup(o, "version");
	s->commit = jdup(o, "commit");
	s->subject = jdup(o, "subject");
}

static struct cause *load_cause(json_t *o)
{
	struct cause *c;
	const char *kind = jstr(o, "kind");
	json_t *arr, *v;
	size_t i;

	if (!json_is_object(o))
		return NULL;
	c = xcalloc(1, sizeof(*c));
	for (int k = CAUSE_CONTEXT; kind && k <= CAUSE_BUILD; k++)
		if (!strcmp(cause_kind_name((enum cause_kind)k), kind))
			c->kind = (enum cause_kind)k;
	c->text = jdup(o, "text");
	c->function = jdup(o, "function");
	c->similar = jdup(o, "similar");
	c->similarity = (unsigned)jsize(o, "similarity");
	c->stacks_on = jdup(o, "stacks_on");
	arr = json_object_get(o, "names");
	c->nr_names = json_array_size(arr);
	c->names = c->nr_names ? xcalloc(c->nr_names, sizeof(*c->names)) : NULL;
	json_array_foreach(arr, i, v)
	{
		struct cause_name *n = &c->names[i];
		const char *use = jstr(v, "use");
		n->name = jdup(v, "name");
		n->tag = jdup(v, "tag");
		for (int k = USE_NAME; use && k <= USE_KCONFIG; k++)
			if (!strcmp(cause_use_name((enum cause_use)k), use))
				n->use = (enum cause_use)k;
		load_source(&n->source, json_object_get(v, "source"));
		load_source(&n->also, json_object_get(v, "also"));
	}
	arr = json_object_get(o, "failed_patches");
	c->nr_patches = json_array_size(arr);
	c->patches = c->nr_patches ? xcalloc(c->nr_patches, sizeof(size_t))
				   : NULL;
	json_array_foreach(arr, i, v) c->patches[i] =
		json_is_integer(v) ? (size_t)json_integer_value(v) : 0;
	return c;
}

static void load_audit(struct audit_result *a, json_t *o, json_t *patches)
{
	json_t *arr, *v;
	size_t i;

	memset(a, 0, sizeof(*a));
	if (!json_is_object(o))
		return;
	arr = json_object_get(o, "watched");
	a->nr_watched = json_array_size(arr);
	a->watched = a->nr_watched ? xcalloc(a->nr_watched, sizeof(char *))
				   : NULL;
	json_array_foreach(arr, i, v) a->watched[i] =
		xstrdup(json_is_string(v) ? json_string_value(v) : "");
	arr = json_object_get(o, "changes");
	a->nr_changes = json_array_size(arr);
	a->changes = a->nr_changes ? xcalloc(a->nr_changes, sizeof(*a->changes))
				   : NULL;
	json_array_foreach(arr, i, v)
	{
		struct audit_change *c = &a->changes[i];
		const char *kind = jstr(v, "kind"), *ch = jstr(v, "change");
		c->name = jdup(v, "name");
		c->old_sig = jdup(v, "old");
		c->new_sig = jdup(v, "new");
		for (int k = WATCH_FUNCTION; kind && k <= WATCH_ANY; k++)
			if (same_id(watch_kind_name((enum watch_kind)k), kind))
				c->kind = (enum watch_kind)k;
		for (int k = WATCH_REMOVED; ch && k <= WATCH_CHANGED; k++)
			if (same_id(watch_change_name((enum watch_change)k), ch))
				c->change = (enum watch_change)k;
	}
	load_sites(&a->unconverted, &a->nr_unconverted,
		   json_object_get(o, "unconverted"));
	load_sites(&a->absent, &a->nr_absent, json_object_get(o, "absent"));
	a->nr_files_scanned = jsize(o, "files_scanned");
	load_series_api(a, o);
	a->nr_patches = json_array_size(patches);
	a->patches = a->nr_patches ? xcalloc(a->nr_patches, sizeof(*a->patches))
				   : NULL;
	json_array_foreach(patches, i, v)
	{
		json_t *w = json_object_get(v, "watched");
		a->patches[i].touches_watched = jbool(w, "file");
		a->patches[i].touches_caller = jbool(w, "caller");
	}
}

/* A hunk's "edited" object: where each added line stands. */
static void load_edited(struct apply_hunk_result *h, json_t *o)
{
	json_t *lines = json_object_get(o, "lines"), *v;
	size_t i;

	if (!json_is_array(lines))
		return;
	h->edited = true;
	h->nr_found = json_array_size(lines);
	h->found = xcalloc(h->nr_found + 1, sizeof(*h->found));
	json_array_foreach(lines, i, v)
		h->found[i] = json_is_integer(v) && json_integer_value(v) > 0
				      ? (unsigned long)json_integer_value(v)
				      : 0;
}

/*
 * A hunk's "adaptation" object (rule, original, adapted, note): what a
 * report shows of it.  The placed hunk itself (hunk, line, texts) stays
 * with the run that made it; NULL for null or an unknown rule.
 */
static struct adaptation *load_adaptation(json_t *o)
{
	const char *id = jstr(o, "rule");
	struct adaptation *a;

	if (!json_is_object(o) || !id)
		return NULL;
	a = xcalloc(1, sizeof(*a));
	for (int k = ADAPT_MOVED; k <= ADAPT_DRIFT; k++)
		if (!strcmp(adapt_rule_name((enum adapt_rule)k), id))
			a->rule = (enum adapt_rule)k;
	if (!a->rule) {
		free(a);
		return NULL;
	}
	a->original = jdup(o, "original");
	a->adapted = jdup(o, "adapted");
	a->note = jdup(o, "note");
	a->built = json_is_true(json_object_get(o, "built"));
	a->accepted = json_is_true(json_object_get(o, "accepted"));
	return a;
}

static void load_file(struct carry_file *f, json_t *o)
{
	json_t *hunks = json_object_get(o, "hunks"), *v;
	const char *rej = jstr(o, "rej");
	size_t i;

	memset(f, 0, sizeof(*f));
	buf_init(&f->rej, 0);
	f->path = jdup(o, "path");
	outcome_of(&f->outcome, jstr(o, "outcome"));
	f->risk = jbool(o, "risk");
	f->error = jdup(o, "error");
	if (rej)
		buf_adds(&f->rej, rej);
	f->nr_hunks = json_array_size(hunks);
	f->hunks = f->nr_hunks ? xcalloc(f->nr_hunks, sizeof(*f->hunks)) : NULL;
	json_array_foreach(hunks, i, v)
	{
		struct apply_hunk_result *h = &f->hunks[i];
		h->rule = rule_of(jstr(v, "rule"));
		h->line = (unsigned long)jsize(v, "line");
		h->offset = jlong(v, "offset");
		h->fuzz = (unsigned)jsize(v, "fuzz");
		h->risk = jbool(v, "risk");
		h->func = jdup(v, "function");
		h->found_func = jdup(v, "found_function");
		h->reason = jdup(v, "reason");
		h->cause = load_cause(json_object_get(v, "cause"));
		if (h->cause && h->cause->similar) {
			h->similar = xstrdup(h->cause->similar);
			h->similarity = h->cause->similarity;
		}
		load_edited(h, json_object_get(v, "edited"));
		h->adapt = load_adaptation(json_object_get(v, "adaptation"));
	}
}

static int load_carry(struct carry_result *cr, json_t *cell,
		      const struct series_version *v, struct err *err)
{
	json_t *patches = json_object_get(cell, "patches"), *p, *counts;
	size_t i;

	memset(cr, 0, sizeof(*cr));
	cr->series = jdup(cell, "series");
	cr->version = jdup(cell, "version");
	cr->target = jdup(cell, "target");
	cr->branch = jdup(cell, "branch");
	if (parse_oid(&cr->base, jstr(cell, "base")) < 0 ||
	    parse_oid(&cr->head, jstr(cell, "head")) < 0)
		return err_set(err, ERR_PARSE, "a cell has a bad object id");
	outcome_of(&cr->worst, jstr(cell, "outcome"));
	cr->risk = jbool(cell, "risk");
	cr->nr_risk = jsize(cell, "placement_risks");
	cr->nr_failed = jsize(cell, "failed");
	counts = json_object_get(cell, "counts");
	for (int k = OUTCOME_CLEAN; k <= OUTCOME_CONFLICT; k++)
		cr->counts[k] = jsize(counts,
				      report_outcome_id((enum apply_outcome)k));
	/* cr->nr only once cr->patches holds that many: a result refused
	 * here is still released */
	if (json_array_size(patches) > v->nr) {
		err_set(err, ERR_PARSE,
			"the report has %zu patches for %s@%s, the "
			"workspace %zu",
			json_array_size(patches), v->name, v->version, v->nr);
		err_hint(err, "merge the reports in the workspace the check "
			      "ran in");
		return ERR_PARSE;
	}
	cr->nr = json_array_size(patches);
	cr->patches = cr->nr ? xcalloc(cr->nr, sizeof(*cr->patches)) : NULL;
	json_array_foreach(patches, i, p)
	{
		struct carry_patch *cp = &cr->patches[i];
		json_t *files = json_object_get(p, "files"), *f, *deps, *d;
		const char *out = jstr(p, "outcome");
		size_t k;

		cp->item = &v->items[i];
		if (out && !strcmp(out, "not-tried")) {
			cp->skipped = true;
			cp->outcome = OUTCOME_CONFLICT;
		} else
			outcome_of(&cp->outcome, out);
		cp->risk = jbool(p, "risk");
		cp->resolved = jbool(p, "resolved");
		cp->committed = jbool(p, "committed");
		/* optional: absent in older reports and --no-patch-text */
		cp->refreshed = jdup(p, "refreshed_patch");
		if (parse_oid(&cp->commit, jstr(p, "commit")) < 0)
			return err_set(err, ERR_PARSE,
				       "a patch has a bad commit id");
		deps = json_object_get(p, "depends_on");
		cp->nr_depends = json_array_size(deps);
		cp->depends = cp->nr_depends
				      ? xcalloc(cp->nr_depends, sizeof(size_t))
				      : NULL;
		json_array_foreach(deps, k, d) cp->depends[k] =
			json_is_integer(d) ? (size_t)json_integer_value(d) : 0;
		cp->nr_files = json_array_size(files);
		cp->files = cp->nr_files ? xcalloc(cp->nr_files,
						   sizeof(*cp->files))
					 : NULL;
		json_array_foreach(files, k, f) load_file(&cp->files[k], f);
	}
	return 0;
}

/* An array of strings (anything else read as "") into a new list. */
static void load_strings(char ***out, size_t *nr, json_t *arr)
{
	json_t *v;
	size_t i;

	json_array_foreach(arr, i, v)
	{
		*out = xrealloc(*out, (i + 1) * sizeof(char *));
		(*out)[i] = xstrdup(json_string_value(v) ? json_string_value(v)
							 : "");
		*nr = i + 1;
	}
}

static void load_build(struct build_result *b, json_t *o)
{
	json_t *arr, *v, *secs;
	const char *status = jstr(o, "status");
	size_t i;

	memset(b, 0, sizeof(*b));
	diag_list_init(&b->diags);
	buf_init(&b->log, 0);
	if (!json_is_object(o))
		return;
	b->error = jdup(o, "error");
	b->skipped = status && !strcmp(status, "skipped");
	b->ran = !b->skipped && !b->error;
	b->failed = status && (!strcmp(status, "errors") ||
			       !strcmp(status, "error") ||
			       !strcmp(status, "base-broken"));
	b->cc = jdup(o, "cc");
	b->profile = jdup(o, "profile");
	b->kbuild_rule = jdup(o, "kbuild_rule");
	b->target_var = jdup(o, "target_var");
	arr = json_object_get(o, "targets");
	json_array_foreach(arr, i, v)
	{
		b->targets = xrealloc(b->targets, (i + 1) * sizeof(char *));
		b->targets[i] = xstrdup(json_string_value(v) ? json_string_value(v)
							     : "");
		b->nr_targets = i + 1;
	}
	b->errors = jsize(o, "errors");
	b->warnings = jsize(o, "warnings");
	b->base_errors = jsize(o, "base_errors");
	b->base_warnings = jsize(o, "base_warnings");
	b->kept = jsize(o, "kept");
	load_strings(&b->failed_objects, &b->nr_failed_objects,
		     json_object_get(o, "failed_objects"));
	load_strings(&b->broken_objects, &b->nr_broken_objects,
		     json_object_get(o, "broken_objects"));
	b->first_breaking = jsize(o, "first_breaking");
	arr = json_object_get(o, "steps");
	b->nr_steps = json_array_size(arr);
	b->steps = b->nr_steps ? xcalloc(b->nr_steps, sizeof(*b->steps)) : NULL;
	json_array_foreach(arr, i, v)
	{
		b->steps[i].patch = jsize(v, "patch");
		b->steps[i].errors = jsize(v, "errors");
		b->steps[i].warnings = jsize(v, "warnings");
		b->steps[i].introduced = jsize(v, "introduced");
		b->steps[i].failed = jbool(v, "failed");
	}
	arr = json_object_get(o, "diagnostics");
	b->attr = json_array_size(arr) ? xcalloc(json_array_size(arr),
						 sizeof(*b->attr))
				       : NULL;
	json_array_foreach(arr, i, v)
	{
		struct diag d;
		struct blame_attribution *a = &b->attr[i];
		const char *sev = jstr(v, "severity"), *cause = jstr(v, "cause");
		json_t *notes = json_object_get(v, "notes"), *n, *fp, *x;
		size_t k;
		const char *text = jstr(v, "text");

		memset(&d, 0, sizeof(d));
		d.path = (char *)(jstr(v, "path") ? jstr(v, "path") : "");
		d.line = (unsigned long)jsize(v, "line");
		d.col = (unsigned long)jsize(v, "column");
		d.sev = sev && !strcmp(sev, "error") ? DIAG_ERROR : DIAG_WARNING;
		d.message = (char *)(jstr(v, "message") ? jstr(v, "message")
							: "");
		d.function = (char *)jstr(v, "function");
		d.unit = (char *)jstr(v, "unit");
		buf_init(&d.text, 0);
		if (text)
			buf_adds(&d.text, text);
		d.nr_notes = json_array_size(notes);
		d.notes = d.nr_notes ? xcalloc(d.nr_notes, sizeof(*d.notes))
				     : NULL;
		json_array_foreach(notes, k, n)
		{
			d.notes[k].path = (char *)(jstr(n, "path") ? jstr(n, "path") : "");
			d.notes[k].line = (unsigned long)jsize(n, "line");
			d.notes[k].message = (char *)(jstr(n, "message") ? jstr(n, "message") : "");
		}
		diag_list_add_copy(&b->diags, &d);
		free(d.notes);
		buf_release(&d.text);
		buf_add(&b->log, b->diags.items[i].text.ptr,
			b->diags.items[i].text.len);
		for (int c = BLAME_PATCH; cause && c <= BLAME_PREEXISTING; c++)
			if (!strcmp(blame_cause_id((enum blame_cause)c), cause))
				a->cause = (enum blame_cause)c;
		a->patch = jsize(v, "patch");
		a->hunk = jsize(v, "hunk");
		a->symbol = jdup(v, "symbol");
		a->where = jdup(v, "where");
		a->base_line = (unsigned long)jsize(v, "base_line");
		fp = json_object_get(v, "file_patches");
		a->nr_patches = json_array_size(fp);
		a->patches = xcalloc(a->nr_patches + 1, sizeof(size_t));
		json_array_foreach(fp, k, x) a->patches[k] =
			json_is_integer(x) ? (size_t)json_integer_value(x) : 0;
	}
	for (size_t k = 0; k < b->nr_failed_objects; k++)
		buf_addf(&b->log, "make: *** [%s] Error 1\n",
			 b->failed_objects[k]);
	b->base_cached = jbool(o, "base_cached");
	secs = json_object_get(o, "seconds");
	b->seconds_prepare = jreal(secs, "prepare");
	b->seconds_base = jreal(secs, "base");
	b->seconds_build = jreal(secs, "build");
}

static json_t *load_json(const char *path, struct err *err)
{
	json_error_t je;
	json_t *doc = json_load_file(path, 0, &je);
	const char *schema;

	if (!doc) {
		err_set(err, ERR_PARSE, "%s:%d: %s", path, je.line, je.text);
		return NULL;
	}
	schema = jstr(doc, "schema");
	if (!schema || strcmp(schema, "kcarry-check/1")) {
		err_set(err, ERR_PARSE, "%s: not a kcarry-check/1 report", path);
		json_decref(doc);
		return NULL;
	}
	return doc;
}

/* The series and targets of doc equal those of first. */
static bool same_layout(json_t *a, json_t *b)
{
	json_t *sa = json_object_get(a, "series"), *sb = json_object_get(b, "series");
	json_t *ta = json_object_get(a, "targets"), *tb = json_object_get(b, "targets");
	size_t i;
	json_t *v;

	if (json_array_size(sa) != json_array_size(sb) || !json_equal(ta, tb))
		return false;
	json_array_foreach(sa, i, v)
	{
		json_t *w = json_array_get(sb, i);
		if (!json_equal(json_object_get(v, "name"), json_object_get(w, "name")) ||
		    !json_equal(json_object_get(v, "version"), json_object_get(w, "version")))
			return false;
	}
	return true;
}

/*
 * The row series i was carried on: a base may be in the report at two
 * versions; series_stacks_on_resolve's rule picks the one named like
 * series i's version, else the base's newest.
 */
static long stacked_on(const struct check_report *r, size_t i,
		       const char *on)
{
	long best = -1;

	for (size_t k = 0; on && k < r->nr_series; k++) {
		if (strcmp(r->series[k].name, on))
			continue;
		if (!strcmp(r->series[k].v.version, r->series[i].v.version))
			return (long)k;
		if (best < 0 || series_version_cmp(r->series[k].v.version,
						   r->series[best].v.version) >
					0)
			best = (long)k;
	}
	return best;
}

/* "shard": null, or 1 <= index <= count. */
static int load_shard(unsigned *shard, unsigned *count, json_t *doc,
		      const char *path, struct err *err)
{
	json_t *sh = json_object_get(doc, "shard");
	json_t *i = json_object_get(sh, "index");
	json_t *n = json_object_get(sh, "count");
	json_int_t a, b;

	*shard = *count = 0;
	if (!sh || json_is_null(sh))
		return 0;
	if (!json_is_integer(i) || !json_is_integer(n))
		return err_set(err, ERR_PARSE,
			       "%s: a shard without a whole index and count",
			       path);
	a = json_integer_value(i);
	b = json_integer_value(n);
	if (a < 1 || b < 1 || a > b || b > 1000000)
		return err_set(err, ERR_PARSE,
			       "%s: shard %lld of %lld: expected 1 <= index "
			       "<= count",
			       path, (long long)a, (long long)b);
	*shard = (unsigned)a;
	*count = (unsigned)b;
	return 0;
}

/* key of o, when there, is a count (a whole number, not negative). */
static int is_count(json_t *o, const char *key, const char *label,
		    const char *where, struct err *err)
{
	json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v) ||
	    (json_is_integer(v) && json_integer_value(v) >= 0))
		return 0;
	if (json_is_integer(v))
		return err_set(err, ERR_PARSE, "%s: %s is %lld, not a count",
			       where, label, (long long)json_integer_value(v));
	return err_set(err, ERR_PARSE, "%s: %s is not a count", where, label);
}

/*
 * Cell i of a report holds series s on target t as the report's lists
 * say, and its counts are counts.
 */
static int check_cell_json(const struct check_report *r, size_t i, json_t *v,
			   const char *path, struct err *err)
{
	const struct check_series *cs = &r->series[i / r->nr_targets];
	const char *target = r->targets[i % r->nr_targets];
	const char *sn = jstr(v, "series"), *tn = jstr(v, "target");
	const char *vn = jstr(v, "version");
	json_t *counts = json_object_get(v, "counts"), *c;
	const char *k;
	char *where;
	int error = 0;

	if (!sn || !tn || strcmp(sn, cs->name) || strcmp(tn, target) ||
	    (vn && strcmp(vn, cs->v.version)))
		return err_set(err, ERR_PARSE,
			       "%s: a cell of series '%s' on %s, where the "
			       "report lists %s@%s on %s",
			       path, sn ? sn : "(none)", tn ? tn : "(none)",
			       cs->name, cs->v.version, target);
	where = xstrfmt("%s: cell %s on %s", path, cs->name, target);
	if ((error = is_count(v, "failed", "failed", where, err)) < 0 ||
	    (error = is_count(v, "placement_risks", "placement_risks", where,
			      err)) < 0)
		goto out;
	json_object_foreach(counts, k, c)
	{
		char *label = xstrfmt("counts.%s", k);
		error = is_count(counts, k, label, where, err);
		free(label);
		if (error < 0)
			break;
	}
out:
	free(where);
	return error;
}

int report_load_merge(struct check_report *r, const char *root,
		      char *const *paths, size_t nr, struct err *err)
{
	json_t **docs = xcalloc(nr + 1, sizeof(*docs));
	json_t *series, *targets, *v;
	size_t i, ncells;
	bool *have = NULL;
	int error = 0;

	memset(r, 0, sizeof(*r));
	r->root = xstrdup(root);
	for (i = 0; i < nr; i++) {
		if (!(docs[i] = load_json(paths[i], err))) {
			error = ERR_PARSE;
			goto out;
		}
		if (i && !same_layout(docs[0], docs[i])) {
			error = err_set(err, ERR_PARSE,
					"%s: other series or targets than %s",
					paths[i], paths[0]);
			goto out;
		}
	}
	series = json_object_get(docs[0], "series");
	targets = json_object_get(docs[0], "targets");
	r->nr_targets = json_array_size(targets);
	r->targets = xcalloc(r->nr_targets + 1, sizeof(char *));
	json_array_foreach(targets, i, v) r->targets[i] =
		xstrdup(json_is_string(v) ? json_string_value(v) : "");
	r->nr_series = json_array_size(series);
	r->series = xcalloc(r->nr_series + 1, sizeof(*r->series));
	json_array_foreach(series, i, v)
	{
		struct check_series *cs = &r->series[i];
		cs->name = jdup(v, "name");
		cs->stacks_on = -1;
		if (!cs->name || !jstr(v, "version")) {
			error = err_set(err, ERR_PARSE, "%s: a series without "
					"name or version", paths[0]);
			goto out;
		}
		if ((error = series_load_version(&cs->v, root, cs->name,
						 jstr(v, "version"), err)) < 0) {
			err_hint(err, "merge the reports in the workspace the "
				      "check ran in");
			goto out;
		}
	}
	json_array_foreach(series, i, v)
		r->series[i].stacks_on = stacked_on(r, i, jstr(v, "stacks_on"));
	ncells = r->nr_series * r->nr_targets;
	r->cells = xcalloc(ncells + 1, sizeof(*r->cells));
	have = xcalloc(ncells + 1, sizeof(bool));
	for (size_t d = 0; d < nr; d++) {
		json_t *cells = json_object_get(docs[d], "cells");
		if (json_array_size(cells) != ncells) {
			error = err_set(err, ERR_PARSE, "%s: %zu cells, expected "
					"%zu", paths[d], json_array_size(cells),
					ncells);
			goto out;
		}
		unsigned shard, count;
		if ((error = load_shard(&shard, &count, docs[d], paths[d],
					err)) < 0)
			goto out;
		r->seconds += jreal(docs[d], "seconds");
		r->built = r->built || jbool(docs[d], "built");
		json_array_foreach(cells, i, v)
		{
			struct check_cell *c = &r->cells[i];
			size_t s = i / r->nr_targets;
			json_t *in = json_object_get(v, "in_shard");

			if ((error = check_cell_json(r, i, v, paths[d],
						     err)) < 0)
				goto out;
			if (count &&
			    !json_is_false(in) !=
				    check_in_shard(s, i % r->nr_targets,
						   r->nr_targets, shard,
						   count)) {
				error = err_set(err, ERR_PARSE,
						"%s: cell %s on %s is%s in "
						"shard %u/%u, the report says "
						"otherwise",
						paths[d], r->series[s].name,
						r->targets[i % r->nr_targets],
						json_is_false(in) ? "" : " not",
						shard, count);
				goto out;
			}
			if (json_is_false(in))
				continue;
			if (have[i]) {
				error = err_set(err, ERR_PARSE,
						"%s: cell %s on %s is in two "
						"reports",
						paths[d], r->series[s].name,
						r->targets[i % r->nr_targets]);
				goto out;
			}
			have[i] = true;
			c->ok = jbool(v, "ok");
			c->error = jdup(v, "error");
			if ((error = load_carry(&c->carry, v, &r->series[s].v,
						err)) < 0)
				goto out;
			load_audit(&c->audit, json_object_get(v, "audit"),
				   json_object_get(v, "patches"));
			load_build(&c->build, json_object_get(v, "build"));
		}
	}
	for (i = 0; i < ncells; i++)
		if (!have[i]) {
			error = err_set(err, ERR_PARSE,
					"no report has the cell %s on %s",
					r->series[i / r->nr_targets].name,
					r->targets[i % r->nr_targets]);
			err_hint(err, "give the reports of every shard");
			goto out;
		}
out:
	for (i = 0; i < nr; i++)
		json_decref(docs[i]);
	free(docs);
	free(have);
	return error;
}
