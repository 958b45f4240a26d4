#include "report.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "mail.h"

void report_printf(FILE *out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report_vprintf(out, fmt, ap);
	va_end(ap);
}

void report_vprintf(FILE *out, const char *fmt, va_list ap)
{
	struct buf raw = BUF_INIT, b = BUF_INIT;
	size_t n = strlen(fmt);
	bool nl = n && fmt[n - 1] == '\n';

	buf_vaddf(&raw, fmt, ap);
	if (nl)
		buf_truncate(&raw, raw.len - 1);
	buf_add_printable(&b, raw.ptr);
	if (nl)
		buf_addc(&b, '\n');
	fwrite(b.ptr, 1, b.len, out);
	buf_release(&raw);
	buf_release(&b);
}

static const char *outcome_color(enum apply_outcome o)
{
	switch (o) {
	case OUTCOME_CLEAN:
		return "\033[32m";
	case OUTCOME_OFFSET:
	case OUTCOME_FUZZY:
	case OUTCOME_3WAY:
	case OUTCOME_ADAPTED:
		return "\033[33m";
	case OUTCOME_ALREADY:
		return "\033[36m";
	default:
		return "\033[1;31m";
	}
}

bool report_cause_tells(const struct apply_hunk_result *hr)
{
	const struct cause *c = hr->cause;

	return c && c->text && *c->text && c->kind != CAUSE_CONTEXT &&
	       c->kind != CAUSE_PLACEMENT && c->kind != CAUSE_PRESENT &&
	       !(hr->reason && strstr(hr->reason, c->text));
}

/* Some hunk of cp stands in the target in edited form. */
static bool patch_edited(const struct carry_patch *cp)
{
	for (size_t f = 0; f < cp->nr_files; f++)
		for (size_t h = 0; h < cp->files[f].nr_hunks; h++)
			if (cp->files[f].hunks[h].edited)
				return true;
	return false;
}

/* What the patch line adds after the outcome: "[risk] ", ... or "". */
static const char *patch_tag(const struct carry_patch *cp)
{
	if (cp->risk)
		return "[risk] ";
	if (cp->resolved)
		return "[resolved] ";
	if (!cp->skipped && cp->outcome == OUTCOME_ALREADY && patch_edited(cp))
		return "[edited] ";
	return "";
}

/* Indent each line of text under a hunk's line. */
static void print_indented(FILE *out, const char *title, const char *text)
{
	report_printf(out, "           %s:\n", title);
	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char *line = xstrndup(p, n);

		report_printf(out, "             %s\n", line);
		free(line);
		p += n + (nl != NULL);
	}
}

/* The rule; with -v the original hunk beside the adapted one. */
static void print_adaptation(FILE *out, const struct adaptation *a,
			     int verbosity)
{
	report_printf(out, "           adapted by rule %s%s\n",
		      adapt_rule_name(a->rule),
		      a->accepted ? "; accepted by a person"
		      : a->built  ? ", builds; not accepted yet"
				  : "; not accepted yet");
	if (verbosity < 1)
		return;
	print_indented(out, "original hunk", a->original);
	print_indented(out, "adapted hunk", a->adapted);
}

static void print_hunk(FILE *out, const struct carry_file *cf, size_t h,
		       int verbosity)
{
	const struct apply_hunk_result *hr = &cf->hunks[h];

	/* exact and plain offset hunks are summed up on the patch line */
	if ((hr->rule == RULE_EXACT || hr->rule == RULE_OFFSET) && !hr->risk &&
	    verbosity < 1)
		return;
	report_printf(out, "         %s hunk %zu: %s", cf->path, h + 1,
		      apply_rule_name(hr->rule));
	if (hr->rule != RULE_CONFLICT && hr->line)
		fprintf(out, " at line %lu", hr->line);
	if (hr->offset)
		fprintf(out, " (offset %+ld)", hr->offset);
	if (hr->fuzz)
		fprintf(out, " (fuzz %u)", hr->fuzz);
	if (hr->risk)
		fprintf(out, " RISK");
	if (hr->reason)
		report_printf(out, ": %s", hr->reason);
	fputc('\n', out);
	if (report_cause_tells(hr))
		report_printf(out, "           cause: %s\n", hr->cause->text);
	if (hr->adapt)
		print_adaptation(out, hr->adapt, verbosity);
}

void report_apply_text(FILE *out, const struct carry_result *res,
		       const struct report_opts *opts)
{
	const char *off = opts->color ? "\033[m" : "";
	const char *bold = opts->color ? "\033[1m" : "";
	bool first = true;

	fprintf(out, "%s%s@%s on %s%s (%s)\n", bold, res->series, res->version,
		res->target, off, res->branch + strlen("refs/heads/"));
	for (size_t i = 0; i < res->nr; i++) {
		const struct carry_patch *cp = &res->patches[i];
		const char *subj = cp->item->patch.subject
					   ? cp->item->patch.subject
					   : cp->item->file;
		const char *name = cp->skipped ? "not tried"
					       : apply_outcome_name(cp->outcome);

		long lo = 0, hi = 0;
		size_t nofs = 0;

		for (size_t f = 0; f < cp->nr_files; f++)
			for (size_t h = 0; h < cp->files[f].nr_hunks; h++) {
				long o = cp->files[f].hunks[h].offset;
				if (cp->files[f].hunks[h].rule != RULE_OFFSET)
					continue;
				lo = nofs++ ? (o < lo ? o : lo) : o;
				hi = nofs > 1 ? (o > hi ? o : hi) : o;
			}
		fprintf(out, "  %04zu %s%-17s%s %s%s", i + 1,
			opts->color ? outcome_color(cp->outcome) : "", name, off,
			patch_tag(cp), subj);
		if (nofs && lo == hi)
			fprintf(out, " (%zu hunk%s %+ld)", nofs,
				nofs == 1 ? "" : "s", lo);
		else if (nofs)
			fprintf(out, " (%zu hunks %+ld..%+ld)", nofs, lo, hi);
		fputc('\n', out);
		if (cp->skipped)
			continue;
		for (size_t f = 0; f < cp->nr_files; f++) {
			const struct carry_file *cf = &cp->files[f];
			if (cf->error)
				report_printf(out, "         %s: %s\n",
					      cf->path, cf->error);
			if (cp->outcome == OUTCOME_CLEAN && !cf->risk &&
			    opts->verbosity < 1)
				continue;
			for (size_t h = 0; h < cf->nr_hunks; h++)
				print_hunk(out, cf, h, opts->verbosity);
		}
		if (cp->nr_depends) {
			fprintf(out, "         touches lines of failed patch%s",
				cp->nr_depends > 1 ? "es" : "");
			for (size_t d = 0; d < cp->nr_depends; d++)
				fprintf(out, " %04zu", cp->depends[d]);
			fputc('\n', out);
		}
	}
	fprintf(out, "  summary:");
	for (int o = OUTCOME_CLEAN; o <= OUTCOME_CONFLICT; o++) {
		if (!res->counts[o])
			continue;
		fprintf(out, "%s %zu %s", first ? "" : ",", res->counts[o],
			apply_outcome_name((enum apply_outcome)o));
		first = false;
	}
	if (res->nr_risk)
		fprintf(out, ", %zu placement risk%s", res->nr_risk,
			res->nr_risk == 1 ? "" : "s");
	if (first)
		fprintf(out, " no patches");
	fputc('\n', out);
}

const char *report_outcome_id(enum apply_outcome o)
{
	switch (o) {
	case OUTCOME_ALREADY:
		return "already-applied";
	case OUTCOME_PARTIAL:
		return "partial";
	default:
		return apply_outcome_name(o);
	}
}

json_t *report_json_strn(const char *s, size_t len)
{
	struct buf u = BUF_INIT;
	json_t *j;

	if ((j = json_stringn(s, len)))
		return j;
	/* not UTF-8 (a path or a reason quoting Latin-1 code): U+FFFD */
	mail_to_utf8(&u, s, len, "UTF-8");
	j = json_stringn(u.ptr, u.len);
	buf_release(&u);
	return j ? j : json_null();
}

json_t *report_json_str(const char *s)
{
	return s ? report_json_strn(s, strlen(s)) : json_null();
}

static json_t *json_source(const struct cause_source *src)
{
	json_t *o;

	if (src->kind == SOURCE_NONE)
		return json_null();
	o = json_object();
	json_object_set_new(o, "kind",
			    json_string(src->kind == SOURCE_SERIES ? "series"
					: src->kind == SOURCE_OTHER ? "other"
								    : "upstream"));
	json_object_set_new(o, "patch",
			    src->patch ? json_integer((json_int_t)src->patch)
				       : json_null());
	json_object_set_new(o, "series", report_json_str(src->series));
	json_object_set_new(o, "version", report_json_str(src->version));
	json_object_set_new(o, "commit", report_json_str(src->commit));
	json_object_set_new(o, "subject", report_json_str(src->subject));
	return o;
}

/* Adaptation rule 6: the patches or commits proposed (never applied). */
static json_t *json_prereqs(const struct cause *c)
{
	struct cause_prereq *p;
	size_t nr;
	json_t *a = json_array();

	cause_prereqs(&p, &nr, c);
	for (size_t i = 0; i < nr; i++) {
		json_t *o = json_object(), *names = json_array();

		for (size_t k = 0; k < p[i].nr_names; k++)
			json_array_append_new(names,
					      report_json_str(p[i].names[k]));
		json_object_set_new(o, "source", json_source(p[i].source));
		json_object_set_new(o, "also", json_source(p[i].also));
		json_object_set_new(o, "names", names);
		json_array_append_new(a, o);
	}
	cause_prereqs_free(p, nr);
	return a;
}

json_t *report_json_cause(const struct cause *c)
{
	json_t *o, *names, *failed;

	if (!c)
		return json_null();
	o = json_object();
	names = json_array();
	failed = json_array();
	json_object_set_new(o, "kind", json_string(cause_kind_name(c->kind)));
	json_object_set_new(o, "text", report_json_str(c->text ? c->text : ""));
	json_object_set_new(o, "function", report_json_str(c->function));
	json_object_set_new(o, "similar", report_json_str(c->similar));
	json_object_set_new(o, "similarity",
			    c->similar ? json_integer(c->similarity)
				       : json_null());
	for (size_t i = 0; i < c->nr_names; i++) {
		const struct cause_name *n = &c->names[i];
		json_t *no = json_object();

		json_object_set_new(no, "name", report_json_str(n->name));
		json_object_set_new(no, "tag", report_json_str(n->tag));
		json_object_set_new(no, "use",
				    json_string(cause_use_name(n->use)));
		json_object_set_new(no, "source", json_source(&n->source));
		json_object_set_new(no, "also", json_source(&n->also));
		json_array_append_new(names, no);
	}
	json_object_set_new(o, "names", names);
	json_object_set_new(o, "prerequisites", json_prereqs(c));
	for (size_t i = 0; i < c->nr_patches; i++)
		json_array_append_new(failed,
				      json_integer((json_int_t)c->patches[i]));
	json_object_set_new(o, "failed_patches", failed);
	json_object_set_new(o, "stacks_on", report_json_str(c->stacks_on));
	return o;
}

static json_t *json_adaptation(const struct adaptation *a)
{
	json_t *o;

	if (!a)
		return json_null();
	o = json_object();
	json_object_set_new(o, "rule", json_string(adapt_rule_name(a->rule)));
	json_object_set_new(o, "original", report_json_str(a->original));
	json_object_set_new(o, "adapted", report_json_str(a->adapted));
	json_object_set_new(o, "note", report_json_str(a->note));
	json_object_set_new(o, "built", json_boolean(a->built));
	json_object_set_new(o, "accepted", json_boolean(a->accepted));
	return o;
}

json_t *report_json_hunk(const struct apply_hunk_result *h, size_t i)
{
	json_t *o = json_object();

	json_object_set_new(o, "index", json_integer((json_int_t)i + 1));
	json_object_set_new(o, "rule", json_string(apply_rule_name(h->rule)));
	json_object_set_new(o, "line", json_integer((json_int_t)h->line));
	json_object_set_new(o, "offset", json_integer(h->offset));
	json_object_set_new(o, "fuzz", json_integer(h->fuzz));
	json_object_set_new(o, "risk", json_boolean(h->risk));
	json_object_set_new(o, "function", report_json_str(h->func));
	json_object_set_new(o, "found_function", report_json_str(h->found_func));
	json_object_set_new(o, "reason", report_json_str(h->reason));
	json_object_set_new(o, "cause", report_json_cause(h->cause));
	if (h->edited) {
		json_t *e = json_object(), *lines = json_array();

		for (size_t l = 0; l < h->nr_found; l++)
			json_array_append_new(
				lines, json_integer((json_int_t)h->found[l]));
		json_object_set_new(e, "lines", lines);
		json_object_set_new(o, "edited", e);
	}
	json_object_set_new(o, "adaptation", json_adaptation(h->adapt));
	return o;
}

static json_t *result_json(const struct carry_result *res)
{
	json_t *o = json_object(), *patches = json_array(),
	       *counts = json_object();
	char hex[41];

	json_object_set_new(o, "series", json_string(res->series));
	json_object_set_new(o, "version", json_string(res->version));
	json_object_set_new(o, "target", json_string(res->target));
	json_object_set_new(o, "branch", json_string(res->branch));
	tree_oid_hex(hex, &res->base);
	json_object_set_new(o, "base", json_string(hex));
	tree_oid_hex(hex, &res->head);
	json_object_set_new(o, "head", json_string(hex));
	json_object_set_new(o, "outcome",
			    json_string(report_outcome_id(res->worst)));
	json_object_set_new(o, "risk", json_boolean(res->risk));
	for (int c = OUTCOME_CLEAN; c <= OUTCOME_CONFLICT; c++)
		json_object_set_new(counts, report_outcome_id((enum apply_outcome)c),
				    json_integer((json_int_t)res->counts[c]));
	json_object_set_new(o, "counts", counts);
	for (size_t i = 0; i < res->nr; i++) {
		const struct carry_patch *cp = &res->patches[i];
		json_t *p = json_object(), *files = json_array(),
		       *deps = json_array();

		json_object_set_new(p, "index", json_integer((json_int_t)i + 1));
		json_object_set_new(p, "file", json_string(cp->item->file));
		json_object_set_new(p, "subject",
				    report_json_str(cp->item->patch.subject));
		json_object_set_new(p, "outcome",
				    json_string(cp->skipped
							? "not-tried"
							: report_outcome_id(cp->outcome)));
		json_object_set_new(p, "risk", json_boolean(cp->risk));
		json_object_set_new(p, "resolved", json_boolean(cp->resolved));
		if (cp->outcome == OUTCOME_ALREADY && patch_edited(cp))
			json_object_set_new(p, "edited", json_true());
		json_object_set_new(p, "committed", json_boolean(cp->committed));
		if (cp->committed) {
			tree_oid_hex(hex, &cp->commit);
			json_object_set_new(p, "commit", json_string(hex));
		} else
			json_object_set_new(p, "commit", json_null());
		for (size_t d = 0; d < cp->nr_depends; d++)
			json_array_append_new(
				deps, json_integer((json_int_t)cp->depends[d]));
		json_object_set_new(p, "depends_on", deps);
		for (size_t f = 0; f < cp->nr_files; f++) {
			const struct carry_file *cf = &cp->files[f];
			json_t *fo = json_object(), *hunks = json_array();
			json_object_set_new(fo, "path", json_string(cf->path));
			json_object_set_new(
				fo, "outcome",
				json_string(report_outcome_id(cf->outcome)));
			json_object_set_new(fo, "risk", json_boolean(cf->risk));
			json_object_set_new(fo, "error", report_json_str(cf->error));
			for (size_t h = 0; h < cf->nr_hunks; h++)
				json_array_append_new(hunks,
						      report_json_hunk(&cf->hunks[h], h));
			json_object_set_new(fo, "hunks", hunks);
			json_array_append_new(files, fo);
		}
		json_object_set_new(p, "files", files);
		json_array_append_new(patches, p);
	}
	json_object_set_new(o, "patches", patches);
	return o;
}

char *report_apply_json(const struct carry_result *res, size_t nr)
{
	json_t *doc = json_object(), *arr = json_array();
	char *s;

	json_object_set_new(doc, "schema", json_string(REPORT_APPLY_SCHEMA));
	for (size_t i = 0; i < nr; i++)
		json_array_append_new(arr, result_json(&res[i]));
	json_object_set_new(doc, "results", arr);
	s = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(doc);
	return s;
}

/* One character per outcome, for the matrix. */
static char outcome_symbol(const struct carry_patch *cp)
{
	if (cp->skipped)
		return '-';
	switch (cp->outcome) {
	case OUTCOME_CLEAN:
		return '.';
	case OUTCOME_OFFSET:
		return 'o';
	case OUTCOME_FUZZY:
		return '~';
	case OUTCOME_3WAY:
		return '3';
	case OUTCOME_ADAPTED: /* 'A': each adapted hunk built or accepted */
		return check_patch_adapted_open(cp, ACCEPT_BUILT) ? 'a' : 'A';
	case OUTCOME_ALREADY:
		return '=';
	case OUTCOME_PARTIAL:
		return 'p';
	default:
		return 'X';
	}
}

static const char *symbol_color(char c)
{
	switch (c) {
	case '.':
		return "\033[32m";
	case 'o':
	case '~':
	case '3':
	case 'a':
	case 'A':
		return "\033[33m";
	case '=':
		return "\033[36m";
	case '-':
		return "";
	default:
		return "\033[1;31m";
	}
}

char report_build_symbol(const struct check_cell *c)
{
	if (c->other_shard)
		return ' ';
	if (!c->ok || c->build.error)
		return '?';
	if (c->build.skipped || !c->build.ran)
		return '-';
	if (c->build.failed)
		return 'E';
	return c->build.warnings ? 'W' : 'B';
}

void report_build_summary(struct buf *b, const struct build_result *br)
{
	if (br->error) {
		buf_adds(b, "build did not run");
		return;
	}
	if (br->skipped || !br->ran) {
		buf_adds(b, "nothing to build");
		return;
	}
	if (!br->errors && !br->warnings && !br->nr_failed_objects &&
	    br->nr_broken_objects) {
		/* never "builds": the tree fails there with or without it */
		buf_addf(b, "does not build: %zu object%s fail%s in the base "
			    "tree too, not the series' fault",
			 br->nr_broken_objects,
			 br->nr_broken_objects == 1 ? "" : "s",
			 br->nr_broken_objects == 1 ? "s" : "");
		return;
	}
	if (!br->errors && !br->warnings && !br->nr_failed_objects) {
		buf_adds(b, "builds");
		return;
	}
	buf_adds(b, "build:");
	if (br->errors)
		buf_addf(b, " %zu error%s", br->errors,
			 br->errors == 1 ? "" : "s");
	if (br->warnings)
		buf_addf(b, "%s %zu new warning%s", br->errors ? "," : "",
			 br->warnings, br->warnings == 1 ? "" : "s");
	if (br->nr_failed_objects && !br->errors)
		buf_addf(b, "%s %zu object%s failed",
			 br->warnings ? "," : "", br->nr_failed_objects,
			 br->nr_failed_objects == 1 ? "" : "s");
	if (br->first_breaking)
		buf_addf(b, ", first broken by %04zu", br->first_breaking);
	if (br->nr_broken_objects)
		buf_addf(b, "; %zu object%s fail%s in the base tree too",
			 br->nr_broken_objects,
			 br->nr_broken_objects == 1 ? "" : "s",
			 br->nr_broken_objects == 1 ? "s" : "");
}

void report_build_diag_line(struct buf *b, const struct diag *d,
			    const struct blame_attribution *a)
{
	buf_add_printable(b, d->path);
	buf_addf(b, ":%lu: %s: ", d->line, diag_severity_name(d->sev));
	buf_add_printable(b, d->message);
	if (a) {
		buf_adds(b, "  ");
		blame_describe(b, a);
	}
}

void report_build_text(FILE *out, const char *series, const char *target,
		       const struct build_result *br, int verbosity)
{
	struct buf b = BUF_INIT;

	if (!br->ran && !br->error)
		return;
	if (br->error) {
		/* a log excerpt: its lines kept, each made printable */
		const char *e = br->error;

		fprintf(out, "  build, %s on %s: did not run: ", series,
			target);
		for (;;) {
			int n = (int)strcspn(e, "\n");

			report_printf(out, "%.*s\n", n, e);
			if (!e[n])
				break;
			e += n + 1;
		}
		return;
	}
	report_build_summary(&b, br);
	fprintf(out, "  build, %s on %s: %s", series, target, b.ptr);
	if (br->kept || br->base_errors || br->base_warnings)
		fprintf(out, " (base: %zu error%s, %zu warning%s, not blamed)",
			br->base_errors, br->base_errors == 1 ? "" : "s",
			br->base_warnings, br->base_warnings == 1 ? "" : "s");
	if (br->profile)
		report_printf(out, " [profile %s]", br->profile);
	fputc('\n', out);
	if (br->target_var)
		report_printf(out, "    make: %s (folder targets: %s)\n",
			      br->target_var, br->kbuild_rule);
	for (size_t i = 0; i < br->diags.nr; i++) {
		buf_reset(&b);
		report_build_diag_line(&b, &br->diags.items[i],
				       br->attr ? &br->attr[i] : NULL);
		fprintf(out, "    %s\n", b.ptr);
	}
	for (size_t i = 0; i < br->nr_failed_objects; i++)
		report_printf(out, "    failed: %s\n", br->failed_objects[i]);
	for (size_t i = 0; i < br->nr_broken_objects; i++)
		report_printf(out, "    fails in the base tree too: %s\n",
			      br->broken_objects[i]);
	for (size_t i = 0; i < br->nr_steps; i++) {
		const struct build_step *st = &br->steps[i];
		if (!st->failed && verbosity < 1 && !st->warnings)
			continue;
		fprintf(out, "    after %04zu: %zu error%s, %zu new warning%s%s\n",
			st->patch, st->errors, st->errors == 1 ? "" : "s",
			st->warnings, st->warnings == 1 ? "" : "s",
			st->patch == br->first_breaking ? "  <- first breaking patch"
			: st->failed && !st->introduced ? " (inherited)"
							: "");
	}
	if (verbosity >= 1)
		fprintf(out, "    times: prepare %.1f s, base %.1f s%s, build "
			     "%.1f s\n",
			br->seconds_prepare, br->seconds_base,
			br->base_cached ? " (cached)" : "", br->seconds_build);
	buf_release(&b);
}

static void print_build(FILE *out, const struct check_report *r, size_t s,
			size_t t, const struct report_opts *opts)
{
	const struct check_cell *c = check_cell(r, s, t);

	if (!r->built || !c->ok || c->other_shard)
		return;
	if (!c->build.error && !c->build.diags.nr &&
	    !c->build.nr_failed_objects && opts->verbosity < 1)
		return;
	report_build_text(out, r->series[s].name, r->targets[t], &c->build,
			  opts->verbosity);
}

static void print_build_summary(FILE *out, const struct check_report *r)
{
	size_t cells = 0, failed = 0, errors = 0, warnings = 0, kept = 0,
	       notrun = 0;

	for (size_t k = 0; k < r->nr_series * r->nr_targets; k++) {
		const struct check_cell *c = &r->cells[k];
		if (c->other_shard || !c->ok)
			continue;
		if (c->build.error) {
			notrun++;
			continue;
		}
		if (!c->build.ran)
			continue;
		cells++;
		failed += c->build.failed;
		errors += c->build.errors;
		warnings += c->build.warnings;
		kept += c->build.base_errors + c->build.base_warnings;
	}
	fprintf(out, "build: %zu of %zu built cell%s failed, %zu new error%s, "
		     "%zu new warning%s",
		failed, cells, cells == 1 ? "" : "s", errors,
		errors == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s");
	if (kept)
		fprintf(out, " (%zu in the base builds, not blamed)", kept);
	if (notrun)
		fprintf(out, ", %zu did not build", notrun);
	fputc('\n', out);
}

static int cell_severity(const struct check_cell *c)
{
	if (!c->ok)
		return 100;
	if (c->build.failed)
		return 99;
	return (int)c->carry.worst * 2 + (c->carry.risk ||
					  c->audit.nr_unconverted ? 1 : 0);
}

/* " (1 builds, 1 accepted)": the adapted patches a build or a person
 * accepted every adapted hunk of. */
static void print_adapted_proof(FILE *out, const struct carry_result *cr)
{
	size_t built = 0, accepted = 0;

	for (size_t i = 0; i < cr->nr; i++) {
		const struct carry_patch *cp = &cr->patches[i];

		if (cp->outcome != OUTCOME_ADAPTED)
			continue;
		if (!check_patch_adapted_open(cp, ACCEPT_PERSON))
			accepted++;
		else if (!check_patch_adapted_open(cp, ACCEPT_BUILT))
			built++;
	}
	if (built && accepted)
		fprintf(out, " (%zu builds, %zu accepted)", built, accepted);
	else if (built || accepted)
		fprintf(out, " (%zu %s)", built ? built : accepted,
			built ? "builds" : "accepted");
}

static void print_cell_summary(FILE *out, const struct check_report *r,
			       size_t s, size_t t)
{
	const struct check_cell *c = check_cell(r, s, t);
	const struct check_series *cs = &r->series[s];
	bool first = true;

	fprintf(out, "  %s@%s on %s:", cs->name, cs->v.version, r->targets[t]);
	if (!c->ok) {
		report_printf(out, " did not run: %s\n", c->error);
		return;
	}
	for (int o = OUTCOME_CONFLICT; o >= OUTCOME_CLEAN; o--) {
		if (!c->carry.counts[o])
			continue;
		fprintf(out, "%s %zu %s", first ? "" : ",", c->carry.counts[o],
			apply_outcome_name((enum apply_outcome)o));
		first = false;
		if (o == OUTCOME_ADAPTED)
			print_adapted_proof(out, &c->carry);
	}
	if (c->carry.nr_risk)
		fprintf(out, ", %zu placement risk%s", c->carry.nr_risk,
			c->carry.nr_risk == 1 ? "" : "s");
	if (c->audit.nr_unconverted)
		fprintf(out, ", %zu unconverted caller%s",
			c->audit.nr_unconverted,
			c->audit.nr_unconverted == 1 ? "" : "s");
	if (c->audit.nr_conflicted)
		fprintf(out, ", %zu caller%s left by a conflict",
			c->audit.nr_conflicted,
			c->audit.nr_conflicted == 1 ? "" : "s");
	if (c->audit.nr_target_only && !c->audit.nr_unconverted)
		fprintf(out, ", %zu caller%s only in %s",
			c->audit.nr_target_only,
			c->audit.nr_target_only == 1 ? "" : "s", r->targets[t]);
	if (c->audit.api_absent)
		fprintf(out, ", API absent");
	if (c->audit.nr_absent)
		fprintf(out, ", %zu converted caller%s absent from %s",
			c->audit.nr_absent, c->audit.nr_absent == 1 ? "" : "s",
			r->targets[t]);
	if (r->built) {
		struct buf b = BUF_INIT;
		report_build_summary(&b, &c->build);
		fprintf(out, ", %s", b.ptr);
		buf_release(&b);
	}
	fputc('\n', out);
}

/*
 * The API the series' own hunks change, when the carried result does not
 * show it (the watched patch did not land), and a target without it.
 */
static void print_intents(FILE *out, const struct audit_result *a,
			  const char *target, int verbosity)
{
	size_t shown = 0;

	for (size_t i = 0; !a->nr_changes && i < a->nr_intents; i++) {
		const struct audit_intent *t = &a->intents[i];

		if (t->change == WATCH_ADDED && verbosity < 1)
			continue;
		if (shown++ == 12 && verbosity < 1) {
			fprintf(out, "    ... more the series changes (-v shows "
				     "all)\n");
			break;
		}
		report_printf(out, "    series %s %s %s in %04zu, which %s %s",
			      t->change == WATCH_REMOVED ? "removes"
			      : t->change == WATCH_ADDED ? "adds"
							 : "changes",
			      watch_kind_name(t->kind), t->name, t->patch,
			      target,
			      t->target == AUDIT_TARGET_ABSENT ? "does not have"
			      : t->target == AUDIT_TARGET_PRESENT ? "has"
			      : t->target == AUDIT_TARGET_ALREADY
				      ? "has in the new form already"
				      : "has in another form");
		if (t->change == WATCH_CHANGED && t->old_sig && t->new_sig)
			report_printf(out, ": %s -> %s", t->old_sig,
				      t->new_sig);
		fputc('\n', out);
	}
	if (a->api_absent) {
		fprintf(out, "    %s does not have the API the series changes",
			target);
		for (size_t i = 0; i < a->nr_target_api; i++) {
			const struct watch_symbol *w = &a->target_api[i];

			if (!i)
				report_printf(out, "; its %s defines instead:",
					      w->path ? w->path
						      : "watched files");
			report_printf(out, "%s %s%s", i ? "," : "", w->name,
				      w->kind == WATCH_FUNCTION ? "()" : "");
		}
		fputc('\n', out);
	}
}

/*
 * The target's callers of what the series changes, by how they fare.
 * When the carried result shows the change, its unconverted callers are
 * listed already: only the callers a conflict left are added then.
 */
static void print_callers(FILE *out, const struct audit_result *a,
			  const char *target, int verbosity)
{
	size_t shown = 0, converted = 0;
	bool all = !a->nr_changes || verbosity >= 1;

	for (size_t i = 0; i < a->nr_callers; i++) {
		const struct audit_caller *c = &a->callers[i];
		const struct audit_site *u = &c->site;

		if (c->class == AUDIT_CONVERTED) {
			converted++;
			if (verbosity < 1)
				continue;
		}
		if (!all && c->class != AUDIT_CONFLICTED)
			continue;
		if (shown++ == 20 && verbosity < 1) {
			fprintf(out, "    ... more callers (-v shows all)\n");
			break;
		}
		report_printf(out, "    caller %s:%zu %s%s %s: ", u->path,
			      u->line, u->func ? u->func : "(file scope)",
			      u->func ? "()" : "", u->symbol);
		if (c->class == AUDIT_CONVERTED)
			fprintf(out, "converted by %04zu\n", c->patch);
		else if (c->class == AUDIT_CONFLICTED)
			report_printf(out,
				      "%04zu (%s hunk %zu) meant to convert it "
				      "and did not apply\n",
				      c->patch, c->file, c->hunk);
		else
			fprintf(out, "only in %s, the series never converts "
				     "it\n",
				target);
	}
	if (converted && verbosity < 1 && shown)
		fprintf(out, "    %zu caller%s converted by the series\n",
			converted, converted == 1 ? "" : "s");
}

static int site_ref_cmp(const void *va, const void *vb)
{
	const struct report_site_ref *a = va, *b = vb;
	int c = strcmp(a->symbol, b->symbol);

	if (!c)
		c = strcmp(a->path, b->path);
	if (!c)
		c = (a->line > b->line) - (a->line < b->line);
	return c;
}

/* " (1470-1491, 1609)" for the refs [i, end) of one symbol and file */
static void add_line_ranges(struct buf *b, const struct report_site_ref *r,
			    size_t i, size_t end)
{
	buf_adds(b, " (");
	while (i < end) {
		size_t j = i;

		while (j + 1 < end && r[j + 1].line - r[j].line <=
					      REPORT_GROUP_GAP)
			j++;
		buf_addf(b, "%s%zu", b->ptr[b->len - 1] == '(' ? "" : ", ",
			 r[i].line);
		if (r[j].line != r[i].line)
			buf_addf(b, "-%zu", r[j].line);
		i = j + 1;
	}
	buf_addc(b, ')');
}

static size_t same_symbol_end(const struct report_site_ref *r, size_t i,
			      size_t nr)
{
	size_t j = i;

	while (j < nr && !strcmp(r[j].symbol, r[i].symbol))
		j++;
	return j;
}

void report_group_sites(struct report_site_ref *refs, size_t nr,
			void (*emit)(void *ctx, const char *line), void *ctx)
{
	struct buf b = BUF_INIT;

	if (nr)
		qsort(refs, nr, sizeof(*refs), site_ref_cmp);
	for (size_t i = 0, end; i < nr; i = end) {
		end = same_symbol_end(refs, i, nr);
		buf_truncate(&b, 0);
		buf_addf(&b, "%s:", refs[i].symbol);
		for (size_t f = i, fe; f < end; f = fe) {
			for (fe = f; fe < end &&
				     !strcmp(refs[fe].path, refs[f].path);
			     fe++)
				;
			buf_addf(&b, "%s %zu%s in %s", f == i ? "" : ",",
				 fe - f,
				 f > i ? "" : (fe - f == 1 ? " use" : " uses"),
				 refs[f].path);
			add_line_ranges(&b, refs, f, fe);
		}
		emit(ctx, b.ptr);
	}
	buf_release(&b);
}

struct grouped_out {
	FILE *out;
	const char *prefix;
};

static void emit_grouped(void *ctx, const char *line)
{
	struct grouped_out *g = ctx;

	report_printf(g->out, "    %s%s\n", g->prefix, line);
}

/* unconverted: the sites grouped per symbol and file (-v: every line) */
static void print_unconverted(FILE *out, const struct audit_result *a,
			      int verbosity)
{
	struct report_site_ref *refs;
	struct grouped_out g = { out, "unconverted " };

	if (verbosity >= 1) {
		for (size_t i = 0; i < a->nr_unconverted; i++) {
			const struct audit_site *u = &a->unconverted[i];
			report_printf(out, "    unconverted %s:%zu %s%s %s\n",
				      u->path, u->line,
				      u->func ? u->func : "(file scope)",
				      u->func ? "()" : "", u->symbol);
		}
		return;
	}
	refs = xcalloc(a->nr_unconverted + 1, sizeof(*refs));
	for (size_t i = 0; i < a->nr_unconverted; i++) {
		refs[i].symbol = a->unconverted[i].symbol;
		refs[i].path = a->unconverted[i].path;
		refs[i].line = a->unconverted[i].line;
	}
	report_group_sites(refs, a->nr_unconverted, emit_grouped, &g);
	free(refs);
}

static void print_audit(FILE *out, const struct check_report *r, size_t s,
			size_t t, int verbosity)
{
	const struct check_cell *c = check_cell(r, s, t);
	const struct audit_result *a = &c->audit;

	if (c->other_shard)
		return;
	if (!c->ok || (!a->nr_changes && !a->nr_unconverted && !a->nr_absent &&
		       !a->nr_intents && !a->nr_callers))
		return;
	fprintf(out, "  watch, %s on %s:\n", r->series[s].name, r->targets[t]);
	print_intents(out, a, r->targets[t], verbosity);
	for (size_t i = 0; i < a->nr_changes; i++) {
		const struct audit_change *ch = &a->changes[i];
		if (ch->change == WATCH_ADDED && verbosity < 1)
			continue;
		report_printf(out, "    %s %s %s",
			      watch_change_name(ch->change),
			      watch_kind_name(ch->kind), ch->name);
		if (ch->change == WATCH_CHANGED && ch->old_sig && ch->new_sig)
			report_printf(out, ": %s -> %s", ch->old_sig,
				      ch->new_sig);
		fputc('\n', out);
	}
	print_unconverted(out, a, verbosity);
	for (size_t i = 0; i < a->nr_absent; i++) {
		const struct audit_site *u = &a->absent[i];
		report_printf(out, "    absent from %s: %s %s%s (%s)\n",
			      r->targets[t], u->path, u->func ? u->func : "",
			      u->func ? "()" : "", u->symbol);
	}
	print_callers(out, a, r->targets[t], verbosity);
}

void report_check_text(FILE *out, const struct check_report *r,
		       const struct report_opts *opts)
{
	const char *off = opts->color ? "\033[m" : "";
	const char *bold = opts->color ? "\033[1m" : "";
	size_t *order = xcalloc(r->nr_series * r->nr_targets + 1,
				sizeof(*order));
	size_t n = 0;

	for (size_t s = 0; s < r->nr_series; s++) {
		const struct check_series *cs = &r->series[s];
		size_t width = 0;

		fprintf(out, "%s%s@%s%s", bold, cs->name, cs->v.version, off);
		if (cs->stacks_on >= 0)
			fprintf(out, " (on top of %s)",
				r->series[cs->stacks_on].name);
		fprintf(out, "\n%-56s", "");
		for (size_t t = 0; t < r->nr_targets; t++) {
			size_t w = strlen(r->targets[t]);
			if (w > width)
				width = w;
		}
		if (width < 3)
			width = 3;
		for (size_t t = 0; t < r->nr_targets; t++)
			fprintf(out, " %-*s", (int)width, r->targets[t]);
		fputc('\n', out);
		for (size_t i = 0; i < cs->v.nr; i++) {
			const struct series_item *it = &cs->v.items[i];
			const char *subj = it->patch.subject ? it->patch.subject
							     : it->file;
			fprintf(out, "%04zu %-51.51s", i + 1, subj);
			for (size_t t = 0; t < r->nr_targets; t++) {
				const struct check_cell *c = check_cell(r, s, t);
				const struct carry_patch *cp;
				const struct audit_patch *ap;
				char sym;

				if (c->other_shard) {
					fprintf(out, " %-*s", (int)width, "");
					continue;
				}
				if (!c->ok || i >= c->carry.nr) {
					fprintf(out, " %-*s", (int)width, "?");
					continue;
				}
				cp = &c->carry.patches[i];
				ap = i < c->audit.nr_patches ? &c->audit.patches[i]
							     : NULL;
				sym = outcome_symbol(cp);
				fprintf(out, " %s%c%s%c%c%*s",
					opts->color ? symbol_color(sym) : "",
					sym, off, cp->risk ? '!' : ' ',
					ap && (ap->touches_watched ||
					       ap->touches_caller)
						? 'w'
						: ' ',
					(int)width - 3, "");
			}
			fputc('\n', out);
		}
		if (r->built) {
			fprintf(out, "%-56s", "build");
			for (size_t t = 0; t < r->nr_targets; t++) {
				char sym = report_build_symbol(check_cell(r, s, t));
				fprintf(out, " %s%c%s%*s",
					opts->color ? symbol_color(
							      sym == 'B' ? '.'
							      : sym == 'W' ? 'o'
							      : sym == 'E' ? 'X'
									   : '-')
						    : "",
					sym, off, (int)width - 1, "");
			}
			fputc('\n', out);
		}
		fputc('\n', out);
	}
	fprintf(out, "legend: . clean  o offset  ~ fuzz  3 3-way  = already "
		     "applied  p partial\n"
		     "        a adapted  X conflict  - not tried  ? did not run  "
		     "! placement risk\n"
		     "        w touches a watched file or a caller of its API\n");
	if (r->built)
		fprintf(out, "        build: B builds  W new warnings  E new errors"
			     "  - nothing to build  ? did not build\n"
			     "        A adapted, builds (or a person accepted "
			     "it)\n");
	fputc('\n', out);
	for (size_t s = 0; s < r->nr_series; s++)
		for (size_t t = 0; t < r->nr_targets; t++)
			print_audit(out, r, s, t, opts->verbosity);
	for (size_t s = 0; s < r->nr_series; s++)
		for (size_t t = 0; t < r->nr_targets; t++)
			print_build(out, r, s, t, opts);
	for (size_t s = 0; s < r->nr_series; s++)
		for (size_t t = 0; t < r->nr_targets; t++)
			if (!check_cell(r, s, t)->other_shard)
				order[n++] = s * r->nr_targets + t;
	/* worst first; stable for equal severity */
	for (size_t i = 1; i < n; i++) {
		size_t k = order[i], j = i;
		int sev = cell_severity(&r->cells[k]);
		while (j > 0 && cell_severity(&r->cells[order[j - 1]]) < sev) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = k;
	}
	fprintf(out, "summary (worst first):\n");
	for (size_t i = 0; i < n; i++)
		print_cell_summary(out, r, order[i] / r->nr_targets,
				   order[i] % r->nr_targets);
	if (r->built)
		print_build_summary(out, r);
	free(order);
}
