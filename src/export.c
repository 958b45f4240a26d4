#include "export.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "check.h"
#include "cursor.h"
#include "fs.h"
#include "mail.h"
#include "refresh.h"

#ifndef SIGNATURE
#define SIGNATURE "kcarry " KCARRY_VERSION
#endif

static const char *const format_names[] = {
	[EXPORT_DEBIAN] = "debian", [EXPORT_RPM] = "rpm",
	[EXPORT_SUSE] = "suse",	    [EXPORT_QUILT] = "quilt",
	[EXPORT_MBOX] = "mbox",	    [EXPORT_GIT] = "git",
};

int export_format_parse(enum export_format *f, const char *name,
			struct err *err)
{
	for (size_t i = 0; i < sizeof(format_names) / sizeof(*format_names);
	     i++)
		if (!strcmp(name, format_names[i])) {
			*f = (enum export_format)i;
			return 0;
		}
	return err_set(err, ERR_USAGE,
		       "unknown format '%s' (debian, rpm, suse, quilt, mbox, "
		       "git)",
		       name);
}

const char *export_format_name(enum export_format f)
{
	return format_names[f];
}

/* ---- small text helpers ----------------------------------------------- */

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* The first run of exactly 40 lower-case hex digits in s. */
static bool find_hex40(struct span s, char hex[41])
{
	size_t run = 0;

	for (size_t i = 0; i <= s.len; i++) {
		if (i < s.len && is_hex(s.ptr[i])) {
			run++;
			continue;
		}
		if (run == 40) {
			memcpy(hex, s.ptr + i - 40, 40);
			hex[40] = '\0';
			return true;
		}
		run = 0;
	}
	return false;
}

static bool span_is_hex40(struct span s)
{
	if (s.len != 40)
		return false;
	for (size_t i = 0; i < 40; i++)
		if (!is_hex(s.ptr[i]))
			return false;
	return true;
}

static struct span span_from_to(const char *a, const char *b)
{
	return (struct span){ a, (size_t)(b - a) };
}

static bool eat_ci(struct span *s, const char *word)
{
	size_t n = strlen(word);

	if (s->len < n || strncasecmp(s->ptr, word, n))
		return false;
	s->ptr += n;
	s->len -= n;
	return true;
}

/* "commit X upstream." or "[ Upstream commit X ]" (trimmed line). */
static bool upstream_line(struct span t, char hex[41])
{
	struct span rest;

	if (eat_ci(&t, "commit ")) {
		struct span id =
			span_from_to(t.ptr, t.ptr + (t.len < 40 ? t.len : 40));
		if (!span_is_hex40(id))
			return false;
		rest = span_trim(span_from_to(t.ptr + 40, t.ptr + t.len));
		if (!eat_ci(&rest, "upstream"))
			return false;
		if (rest.len && !(rest.len == 1 && rest.ptr[0] == '.'))
			return false;
		memcpy(hex, id.ptr, 40);
		hex[40] = '\0';
		return true;
	}
	if (t.len && t.ptr[0] == '[' && t.ptr[t.len - 1] == ']') {
		struct span in =
			span_trim(span_from_to(t.ptr + 1, t.ptr + t.len - 1));
		if (!eat_ci(&in, "upstream commit "))
			return false;
		in = span_trim(in);
		if (!span_is_hex40(in))
			return false;
		memcpy(hex, in.ptr, 40);
		hex[40] = '\0';
		return true;
	}
	return false;
}

static bool cherry_line(struct span t, char hex[41])
{
	static const char key[] = "(cherry picked from commit ";
	const char *at = memmem(t.ptr, t.len, key, sizeof(key) - 1);
	struct span id;

	if (!at)
		return false;
	at += sizeof(key) - 1;
	if ((size_t)(t.ptr + t.len - at) < 41 || at[40] != ')')
		return false;
	id = (struct span){ at, 40 };
	if (!span_is_hex40(id))
		return false;
	memcpy(hex, at, 40);
	hex[40] = '\0';
	return true;
}

enum export_upstream export_find_upstream(char hex[41], const struct patch *p)
{
	struct cursor c;
	struct span l;
	char cherry[41] = "";

	hex[0] = '\0';
	cursor_init(&c, p->message.ptr, p->message.len);
	while (cursor_next(&c, &l, NULL)) {
		struct span t = span_trim(span_chomp_cr(l));
		char h[41];

		if (upstream_line(t, h)) {
			memcpy(hex, h, 41);
			return UPSTREAM_LINE;
		}
		if (!cherry[0] && cherry_line(t, h))
			memcpy(cherry, h, 41);
	}
	if (cherry[0]) {
		memcpy(hex, cherry, 41);
		return UPSTREAM_CHERRY;
	}
	for (size_t i = 0; i < p->nr_dep3; i++)
		if (!strcasecmp(p->dep3[i].key, "Origin") && p->dep3[i].value &&
		    find_hex40(span_from(p->dep3[i].value), hex))
			return UPSTREAM_DEP3;
	return UPSTREAM_NONE;
}

/* "VERSION = 6" -> 6; -1 when line is not "KEY = number". */
static long makefile_number(struct span l, const char *key)
{
	size_t n = strlen(key);
	struct span v;
	long x = 0;

	if (l.len <= n || memcmp(l.ptr, key, n) ||
	    (l.ptr[n] != ' ' && l.ptr[n] != '\t' && l.ptr[n] != '='))
		return -1;
	v = span_trim(span_from_to(l.ptr + n, l.ptr + l.len));
	if (!v.len || v.ptr[0] != '=')
		return -1;
	v = span_trim(span_from_to(v.ptr + 1, v.ptr + v.len));
	if (!v.len)
		return -1;
	for (size_t i = 0; i < v.len; i++) {
		if (!isdigit((unsigned char)v.ptr[i]) || x > 100000)
			return -1;
		x = x * 10 + (v.ptr[i] - '0');
	}
	return x;
}

char *export_kernel_version(const char *makefile, size_t len)
{
	struct cursor c;
	struct span l;
	long version = -1, patchlevel = -1, sublevel = -1;
	size_t lines = 0;

	cursor_init(&c, makefile, len);
	/* the kernel's Makefile sets them in its first lines */
	while (cursor_next(&c, &l, NULL) && lines++ < 40) {
		long x;

		l = span_chomp_cr(l);
		if (version < 0 && (x = makefile_number(l, "VERSION")) >= 0)
			version = x;
		else if (patchlevel < 0 &&
			 (x = makefile_number(l, "PATCHLEVEL")) >= 0)
			patchlevel = x;
		else if (sublevel < 0 &&
			 (x = makefile_number(l, "SUBLEVEL")) >= 0)
			sublevel = x;
	}
	if (version < 0 || patchlevel < 0)
		return NULL;
	if (sublevel <= 0)
		return xstrfmt("%ld.%ld", version, patchlevel);
	return xstrfmt("%ld.%ld.%ld", version, patchlevel, sublevel);
}

/* Append text wrapped at width columns; later lines start with indent. */
static void add_wrapped(struct buf *out, const char *text, size_t width,
			const char *indent)
{
	size_t col = 0, start = out->len;

	while (*text) {
		size_t n = strcspn(text, " ");

		if (col && col + 1 + n > width) {
			buf_addc(out, '\n');
			buf_adds(out, indent);
			col = strlen(indent);
		} else if (col) {
			buf_addc(out, ' ');
			col++;
		}
		buf_add(out, text, n);
		col += n;
		text += n;
		while (*text == ' ')
			text++;
	}
	if (out->len > start)
		buf_addc(out, '\n');
}

/*
 * The hunks of cf the backport adjusted: "hunk 1 offset +5 lines, hunk 2
 * fuzz 1".  Leaves out the adapted ones when asked (RHEL's Conflicts
 * paragraph holds their notes in full).  True when it wrote any.
 */
static bool file_adjustments(struct buf *out, const struct carry_file *cf,
			     bool skip_adapted)
{
	bool any = false;

	for (size_t h = 0; h < cf->nr_hunks; h++) {
		const struct apply_hunk_result *hr = &cf->hunks[h];
		long off = hr->offset;
		const char *lines = off == 1 || off == -1 ? "line" : "lines";

		if ((hr->rule == RULE_EXACT && !hr->risk) ||
		    (skip_adapted && hr->adapt))
			continue;
		if (any)
			buf_adds(out, ", ");
		any = true;
		buf_addf(out, "hunk %zu ", h + 1);
		switch (hr->rule) {
		case RULE_OFFSET:
			buf_addf(out, "offset %+ld %s", off, lines);
			break;
		case RULE_FUZZ:
			buf_addf(out, "fuzz %u", hr->fuzz);
			if (off)
				buf_addf(out, " at offset %+ld %s", off, lines);
			break;
		case RULE_3WAY:
		case RULE_3WAY_HUNK:
			buf_adds(out, "3-way merge");
			break;
		default:
			buf_adds(out, apply_rule_name(hr->rule));
			break;
		}
		if (hr->risk)
			buf_adds(out, " (placement risk)");
	}
	return any;
}

void export_adjustments(struct buf *out, const struct export_patch *p)
{
	const struct carry_patch *cp = p->cp;
	struct buf items = BUF_INIT;
	bool first = true;

	if (!cp)
		return;
	if (cp->resolved) {
		buf_adds(out, "conflict resolved by hand");
		first = false;
	}
	for (size_t f = 0; f < cp->nr_files; f++) {
		buf_reset(&items);
		if (!file_adjustments(&items, &cp->files[f], false))
			continue;
		buf_addf(out, "%s%s: %s", first ? "" : "; ", cp->files[f].path,
			 items.ptr);
		first = false;
	}
	buf_release(&items);
}

/* Does the description of cp end with a Conflicts paragraph of adapted
 * notes (carry_adapted_notes, RHEL's form)? */
static bool has_conflicts(const struct carry_patch *cp)
{
	if (cp->note_form != CARRY_NOTE_RHEL)
		return false;
	for (size_t f = 0; f < cp->nr_files; f++)
		for (size_t h = 0; h < cp->files[f].nr_hunks; h++)
			if (cp->files[f].hunks[h].adapt)
				return true;
	return false;
}

/* One line of RHEL's Conflicts paragraph: its key on the first. */
static void add_conflict(struct buf *out, bool *first, const char *text)
{
	buf_addf(out, "%s%s\n", *first ? "Conflicts: " : "  ", text);
	*first = false;
}

/*
 * RHEL's form of the backporter's note: what the backport adjusted, a
 * line a file, in the Conflicts paragraph the description ends with (a
 * continuation of it) or in one of its own.  A RHEL backport names
 * neither the backporter (the Signed-off-by does) nor the target (the
 * branch does).
 */
static void rhel_note(struct buf *out, const struct export_patch *p)
{
	const struct carry_patch *cp = p->cp;
	bool first = !has_conflicts(cp);
	struct buf items = BUF_INIT, line = BUF_INIT;

	if (cp->resolved)
		add_conflict(out, &first, "resolved by hand");
	for (size_t f = 0; f < cp->nr_files; f++) {
		buf_reset(&items);
		if (!file_adjustments(&items, &cp->files[f], true))
			continue;
		buf_reset(&line);
		buf_addf(&line, "%s: %s", cp->files[f].path, items.ptr);
		add_conflict(out, &first, line.ptr);
	}
	buf_release(&items);
	buf_release(&line);
}

static const char *tree_name(const struct export_series *s)
{
	return s->stable ? s->stable : s->target;
}

void export_note(struct buf *out, const struct export_series *s,
		 const struct export_patch *p)
{
	struct buf items = BUF_INIT, text = BUF_INIT;

	if (p->cp && p->cp->note_form == CARRY_NOTE_RHEL) {
		rhel_note(out, p);
		return;
	}
	export_adjustments(&items, p);
	if (items.len) {
		buf_adds(&text, "[ ");
		if (s->backporter_name)
			buf_addf(&text, "%s: ", s->backporter_name);
		buf_addf(&text, "backported to %s: %s", tree_name(s),
			 items.ptr);
		/* the closing bracket never stands alone on a line */
		add_wrapped(out, text.ptr, 70, "  ");
		buf_truncate(out, out->len - 1);
		buf_adds(out, " ]\n");
	}
	buf_release(&items);
	buf_release(&text);
}

/* ---- the model -------------------------------------------------------- */

static bool looks_like_msgid(const char *s)
{
	return s && *s && strchr(s, '@') && !strchr(s, '/') &&
	       !strpbrk(s, " \t\n<>");
}

static char *lore_link(const char *msgid)
{
	return msgid ? xstrfmt("https://lore.kernel.org/r/%s", msgid) : NULL;
}

static void add_unique(char ***list, size_t *nr, const char *value)
{
	for (size_t i = 0; i < *nr; i++)
		if (!strcmp((*list)[i], value))
			return;
	*list = xrealloc(*list, (*nr + 2) * sizeof(char *));
	(*list)[(*nr)++] = xstrdup(value);
	(*list)[*nr] = NULL;
}

static void free_list(char **list, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(list[i]);
	free(list);
}

static bool is_zero_id(const char *s)
{
	return strspn(s, "0") == strlen(s);
}

static void take_metadata(struct export_patch *ep, const struct series_item *it,
			  const struct export_model_opts *o)
{
	const struct patch *ip = &it->patch;
	const char *kind = o->kind ? o->kind : "";

	ep->subject =
		xstrdup(ip->subject && *ip->subject ? ip->subject : it->file);
	ep->author_name = ip->author_name ? xstrdup(ip->author_name) : NULL;
	ep->author_email = ip->author_email ? xstrdup(ip->author_email) : NULL;
	ep->date = ip->date ? xstrdup(ip->date) : NULL;
	buf_add(&ep->message, ip->message.ptr, ip->message.len);
	if (ep->message.len && ep->message.ptr[ep->message.len - 1] != '\n')
		buf_addc(&ep->message, '\n');
	ep->has_trailers = ip->nr_trailers > 0;

	ep->upstream_from = export_find_upstream(ep->upstream, ip);
	if (ep->upstream_from == UPSTREAM_NONE && ip->commit &&
	    span_is_hex40(span_from(ip->commit)) && !is_zero_id(ip->commit)) {
		/* a --git import keeps the commit it read; a mail carries
		 * one when it embeds a commit (a stable FAILED report) */
		if (!strcmp(kind, "git"))
			ep->upstream_from = UPSTREAM_GIT;
		else if (!strcmp(kind, "mbox") && looks_like_msgid(it->origin))
			ep->upstream_from = UPSTREAM_MAIL;
		if (ep->upstream_from != UPSTREAM_NONE)
			memcpy(ep->upstream, ip->commit, 41);
	}

	if (ip->message_id)
		ep->msgid = xstrdup(ip->message_id);
	else if (!strcmp(kind, "mbox") && looks_like_msgid(it->origin))
		ep->msgid = xstrdup(it->origin);
	ep->link = lore_link(ep->msgid);

	for (size_t t = 0; t < ip->nr_trailers; t++) {
		const struct patch_field *f = &ip->trailers[t];

		if (!f->value || !*f->value)
			continue;
		if (!strcasecmp(f->key, "Bug") || !strcasecmp(f->key, "Closes"))
			add_unique(&ep->bugs, &ep->nr_bugs, f->value);
		else if (!strcasecmp(f->key, "Link"))
			add_unique(&ep->links, &ep->nr_links, f->value);
		else if (!strcasecmp(f->key, "Reviewed-by") ||
			 !strcasecmp(f->key, "Acked-by")) {
			char *v = xstrfmt("%s\t%s",
					  !strcasecmp(f->key, "Reviewed-by")
						  ? "Reviewed-by"
						  : "Acked-by",
					  f->value);
			add_unique(&ep->reviewed, &ep->nr_reviewed, v);
			free(v);
		}
	}
	for (size_t d = 0; d < ip->nr_dep3; d++) {
		const struct patch_field *f = &ip->dep3[d];
		char *v;

		if (!f->value || !*f->value ||
		    (strcasecmp(f->key, "Origin") &&
		     strcasecmp(f->key, "Forwarded") &&
		     strcasecmp(f->key, "Applied-Upstream") &&
		     strcasecmp(f->key, "Bug") &&
		     strncasecmp(f->key, "Bug-", 4)))
			continue;
		v = xstrfmt("%s\t%s", f->key, f->value);
		add_unique(&ep->dep3, &ep->nr_dep3, v);
		free(v);
	}
	for (size_t b = 0; b < o->nr_bugs; b++)
		add_unique(&ep->bugs, &ep->nr_bugs, o->bugs[b]);
	/* a commit applied from the list says where: "Link: lore/r/MSGID" */
	for (size_t l = 0; l < ep->nr_links && !ep->link; l++)
		if (starts_with(ep->links[l], "https://lore.kernel.org/"))
			ep->link = xstrdup(ep->links[l]);
}

/* The diff commit makes on the branch, parsed (empty: no change). */
static int take_diff(struct export_patch *ep, struct tree_repo *repo,
		     const struct tree_oid *parent,
		     const struct tree_oid *commit, struct err *err)
{
	char **paths = NULL;
	size_t nr = 0;
	struct buf diff = BUF_INIT;
	struct patch_parse_opts po = { 0 };
	int error;

	if ((error = tree_changed_paths(&paths, &nr, repo, parent, commit,
					err)) < 0)
		goto out;
	if ((error = tree_diff_paths(&diff, repo, parent, commit,
				     (const char *const *)paths, nr, err)) < 0)
		goto out;
	if (diff.len) {
		po.name = ep->file;
		error = patch_parse(&ep->diff, diff.ptr, diff.len, &po, err);
	}
out:
	free_list(paths, nr);
	buf_release(&diff);
	return error;
}

char *export_slug(const char *subject)
{
	struct buf b = BUF_INIT;

	for (const char *c = subject; *c; c++) {
		unsigned char u = (unsigned char)*c;
		if (isalnum(u) && u < 0x80)
			buf_addc(&b, (char)tolower(u));
		else if (b.len && b.ptr[b.len - 1] != '-')
			buf_addc(&b, '-');
	}
	if (b.len > 72) {
		size_t cut = 72;
		while (cut > 20 && b.ptr[cut] != '-')
			cut--;
		buf_truncate(&b, cut);
	}
	while (b.len && b.ptr[b.len - 1] == '-')
		buf_truncate(&b, b.len - 1);
	return buf_detach(&b, NULL);
}

static void unique_slug(struct export_series *s, size_t i)
{
	struct export_patch *ep = &s->patches[i];
	char *base = export_slug(ep->subject);
	unsigned n = 1;

	if (!*base) {
		free(base);
		base = xstrfmt("patch-%zu", ep->number);
	}
	ep->slug = xstrdup(base);
	for (;;) {
		bool taken = false;
		for (size_t k = 0; k < i && !taken; k++)
			taken = !strcmp(s->patches[k].slug, ep->slug);
		if (!taken)
			break;
		free(ep->slug);
		ep->slug = xstrfmt("%s-%u", base, ++n);
	}
	free(base);
}

static void read_kernel_version(struct export_series *s, struct tree_repo *repo)
{
	struct tree_oid tree;
	struct buf mk = BUF_INIT;
	struct err e = ERR_INIT;
	bool exists = false;

	if (tree_commit_tree(&tree, repo, &s->base, &e) == 0 &&
	    tree_read_file(&mk, &exists, NULL, repo, &tree, "Makefile", &e) ==
		    0 &&
	    exists)
		s->kernel = export_kernel_version(mk.ptr, mk.len);
	if (s->kernel) {
		const char *dot = strchr(s->kernel, '.');
		size_t n = strcspn(dot + 1, ".");
		s->stable = xstrfmt("%.*s.y", (int)(dot + 1 + n - s->kernel),
				    s->kernel);
	}
	buf_release(&mk);
	err_release(&e);
}

int export_model(struct export_series *s, struct tree_repo *repo,
		 const struct carry_result *res,
		 const struct export_model_opts *o, struct err *err)
{
	struct tree_oid parent = res->base;
	int error = 0;

	memset(s, 0, sizeof(*s));
	s->name = xstrdup(res->series);
	s->version = xstrdup(res->version);
	s->target = xstrdup(res->target);
	s->branch = xstrdup(res->branch);
	s->base = res->base;
	s->head = res->head;
	s->now = o->now;
	s->cover_title = o->cover_title;
	if (o->cover_title && o->nr_cover_msgids &&
	    looks_like_msgid(o->cover_msgids[0]))
		s->cover_link = lore_link(o->cover_msgids[0]);
	if (o->backporter_name && *o->backporter_name)
		s->backporter_name = xstrdup(o->backporter_name);
	if (o->backporter_email && *o->backporter_email)
		s->backporter_email = xstrdup(o->backporter_email);
	read_kernel_version(s, repo);

	s->patches = xcalloc(res->nr + 1, sizeof(*s->patches));
	s->nr = res->nr;
	for (size_t i = 0; i < res->nr; i++) {
		const struct carry_patch *cp = &res->patches[i];
		struct export_patch *ep = &s->patches[i];

		ep->number = i + 1;
		ep->cp = cp;
		ep->file = cp->item->file;
		buf_init(&ep->message, 0);
		patch_init(&ep->diff);
		take_metadata(ep, cp->item, o);
		/* issue 18: the backporter's lines follow stable's "[ ... ]"
		 * notes in their block, RHEL's Conflicts: paragraph after a
		 * blank line */
		if (carry_adapted_notes(&ep->message, cp))
			ep->has_trailers = cp->note_form == CARRY_NOTE_STABLE;
		unique_slug(s, i);
		if (ep->upstream[0]) {
			if (o->mainline)
				ep->release = xstrdup(o->mainline);
			else if ((error = tree_release_containing(
					  &ep->release, repo, ep->upstream,
					  err)) < 0)
				break;
		}
		if (!cp->committed) {
			ep->why = xstrfmt(
				"%s in %s",
				cp->skipped ? "not tried"
					    : apply_outcome_name(cp->outcome),
				res->target);
			if (cp->outcome == OUTCOME_ALREADY && !cp->skipped)
				s->nr_already++;
			else
				s->nr_failed++;
			continue;
		}
		ep->parent = parent;
		ep->commit = cp->commit;
		parent = cp->commit;
		if ((error = take_diff(ep, repo, &ep->parent, &ep->commit,
				       err)) < 0) {
			err_prefix(err, "%s", ep->file);
			break;
		}
		if (!ep->diff.nr_files) {
			ep->why = xstrfmt("makes no change in %s", res->target);
			s->nr_already++;
			continue;
		}
		ep->included = true;
		s->nr_included++;
		if (cp->risk)
			s->nr_risk++;
		if (check_patch_adapted_open(cp, ACCEPT_PERSON))
			s->nr_adapted++;
		{
			struct buf adj = BUF_INIT;
			export_adjustments(&adj, ep);
			ep->adjusted = adj.len > 0;
			buf_release(&adj);
		}
	}
	return error;
}

void export_series_release(struct export_series *s)
{
	for (size_t i = 0; i < s->nr; i++) {
		struct export_patch *ep = &s->patches[i];
		free(ep->slug);
		free(ep->why);
		free(ep->subject);
		free(ep->author_name);
		free(ep->author_email);
		free(ep->date);
		free(ep->release);
		free(ep->msgid);
		free(ep->link);
		free_list(ep->bugs, ep->nr_bugs);
		free_list(ep->dep3, ep->nr_dep3);
		free_list(ep->links, ep->nr_links);
		free_list(ep->reviewed, ep->nr_reviewed);
		buf_release(&ep->message);
		patch_release(&ep->diff);
	}
	free(s->patches);
	free(s->name);
	free(s->version);
	free(s->target);
	free(s->kernel);
	free(s->stable);
	free(s->backporter_name);
	free(s->backporter_email);
	free(s->branch);
	free(s->cover_link);
	memset(s, 0, sizeof(*s));
}

int export_check_complete(const struct export_series *s, unsigned allow,
			  struct err *err)
{
	struct buf names = BUF_INIT;
	size_t n = 0, first = 0;
	int error = 0;

	if (s->nr_failed && !(allow & EXPORT_ALLOW_PARTIAL)) {
		for (size_t i = 0; i < s->nr; i++) {
			const struct export_patch *ep = &s->patches[i];
			if (ep->included || !ep->cp ||
			    ep->cp->outcome == OUTCOME_ALREADY ||
			    (ep->why &&
			     starts_with(ep->why, "makes no change")))
				continue;
			if (!first)
				first = ep->number;
			buf_addf(&names, "%s%s (%s)", n++ ? ", " : "", ep->file,
				 ep->cp->skipped
					 ? "not tried"
					 : apply_outcome_name(ep->cp->outcome));
		}
		error = err_set(err, ERR_CONFLICT,
				"%s@%s did not carry completely onto %s: %s",
				s->name, s->version, s->target, names.ptr);
		err_hint(err,
			 "resolve it ('kcarry resolve %s@%s %s %zu', "
			 "then 'kcarry refresh'), or export what applied "
			 "with --allow-partial",
			 s->name, s->version, s->target, first);
	} else if (s->nr_risk && !(allow & EXPORT_ALLOW_RISK)) {
		for (size_t i = 0; i < s->nr; i++) {
			const struct export_patch *ep = &s->patches[i];
			if (ep->included && ep->cp->risk)
				buf_addf(&names, "%s%s", n++ ? ", " : "",
					 ep->file);
		}
		error = err_set(err, ERR_CONFLICT,
				"%s@%s on %s has placement risks: %s", s->name,
				s->version, s->target, names.ptr);
		err_hint(err,
			 "check where those hunks landed ('kcarry apply "
			 "%s@%s %s' tells), then export with --allow-risk",
			 s->name, s->version, s->target);
	} else if (s->nr_adapted && !(allow & EXPORT_ACCEPT_ADAPTED)) {
		/* a proposal kcarry wrote is a person's to accept */
		for (size_t i = 0; i < s->nr; i++) {
			const struct export_patch *ep = &s->patches[i];
			if (ep->included &&
			    check_patch_adapted_open(ep->cp, ACCEPT_PERSON))
				buf_addf(&names, "%s%s", n++ ? ", " : "",
					 ep->file);
		}
		error = err_set(err, ERR_CONFLICT,
				"%s@%s on %s has adapted hunks no one "
				"accepted: %s",
				s->name, s->version, s->target, names.ptr);
		err_hint(err,
			 "read each beside its original ('kcarry apply -v "
			 "%s@%s %s'), then export with --accept-adapted",
			 s->name, s->version, s->target);
	}
	buf_release(&names);
	return error;
}

/* ---- text of each format ---------------------------------------------- */

static void add_person(struct buf *out, const char *name, const char *email)
{
	if (name && *name)
		buf_adds(out, name);
	if (email && *email)
		buf_addf(out, "%s<%s>", name && *name ? " " : "", email);
}

/* "2024-11-06" (UTC) of epoch. */
static void add_iso_date(struct buf *out, long long epoch)
{
	time_t t = (time_t)epoch;
	struct tm tm;
	char s[32];

	gmtime_r(&t, &tm);
	strftime(s, sizeof(s), "%Y-%m-%d", &tm);
	buf_adds(out, s);
}

/* RFC 2822 date of epoch in UTC; the names are always English. */
static void add_mail_date(struct buf *out, long long epoch)
{
	static const char *const days[] = { "Sun", "Mon", "Tue", "Wed",
					    "Thu", "Fri", "Sat" };
	static const char *const months[] = { "Jan", "Feb", "Mar", "Apr",
					      "May", "Jun", "Jul", "Aug",
					      "Sep", "Oct", "Nov", "Dec" };
	time_t t = (time_t)epoch;
	struct tm tm;

	gmtime_r(&t, &tm);
	buf_addf(out, "%s, %d %s %d %02d:%02d:%02d +0000", days[tm.tm_wday],
		 tm.tm_mday, months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour,
		 tm.tm_min, tm.tm_sec);
}

/* Does text hold line (without LF) as one of its lines? */
static bool has_line(const struct buf *text, const char *line)
{
	size_t n = strlen(line);
	const char *p = text->ptr;

	while ((p = strstr(p, line))) {
		if ((p == text->ptr || p[-1] == '\n') &&
		    (p[n] == '\n' || p[n] == '\0'))
			return true;
		p += n;
	}
	return false;
}

/* The last line of text (without LF), as a span. */
static struct span last_line(const struct buf *text)
{
	size_t end = text->len;
	size_t start;

	while (end && text->ptr[end - 1] == '\n')
		end--;
	start = end;
	while (start && text->ptr[start - 1] != '\n')
		start--;
	return (struct span){ text->ptr + start, end - start };
}

enum body_style { BODY_MBOX, BODY_GIT, BODY_SUSE, BODY_DEBIAN };

/*
 * The commit message body of p as the format wants it: the stable
 * upstream line on top (mbox), the cherry-pick line (git), the
 * backporter's note and sign-off in the trailer block.
 */
static void compose_body(struct buf *out, const struct export_series *s,
			 const struct export_patch *p,
			 const struct export_text_opts *o,
			 enum body_style style)
{
	struct buf tail = BUF_INIT, line = BUF_INIT, conflicts = BUF_INIT;
	bool rhel = p->cp && p->cp->note_form == CARRY_NOTE_RHEL;

	if (style == BODY_MBOX && p->upstream[0] &&
	    p->upstream_from != UPSTREAM_LINE) {
		if (o && o->upstream_style == UPSTREAM_STYLE_BRACKET)
			buf_addf(out, "[ Upstream commit %s ]\n\n",
				 p->upstream);
		else
			buf_addf(out, "commit %s upstream.\n\n", p->upstream);
	}
	buf_add(out, p->message.ptr, p->message.len);
	/* RHEL: the note is the description's Conflicts paragraph (or one
	 * of its own), the backporter's lines a paragraph after it */
	if (rhel)
		export_note(&conflicts, s, p);
	if (conflicts.len && p->message.len && !has_conflicts(p->cp))
		buf_addc(out, '\n');
	buf_add(out, conflicts.ptr, conflicts.len);
	if (style == BODY_GIT && p->upstream[0]) {
		buf_addf(&line, "(cherry picked from commit %s)", p->upstream);
		if (!has_line(&p->message, line.ptr))
			buf_addf(&tail, "%s\n", line.ptr);
	}
	if (!rhel)
		export_note(&tail, s, p);
	if (o && o->signoff && (s->backporter_name || s->backporter_email)) {
		buf_reset(&line);
		buf_addf(&line, "%s: ",
			 style == BODY_SUSE ? "Acked-by" : "Signed-off-by");
		add_person(&line, s->backporter_name, s->backporter_email);
		/* as git commit -s: not twice in a row */
		if (!(span_eq(last_line(&tail), line.ptr) ||
		      (!tail.len && !conflicts.len &&
		       span_eq(last_line(&p->message), line.ptr))))
			buf_addf(&tail, "%s\n", line.ptr);
	}
	if (tail.len) {
		if ((p->message.len && !p->has_trailers) || conflicts.len)
			buf_addc(out, '\n');
		buf_add(out, tail.ptr, tail.len);
	}
	buf_release(&conflicts);
	buf_release(&tail);
	buf_release(&line);
}

/*
 * A view of p->diff with other metadata, for patch_format: it shares
 * p->diff's allocations and must not be released.
 */
static void format_view(struct buf *out, const struct export_patch *p,
			const struct buf *message, const char *prefix,
			size_t index, size_t total)
{
	struct patch v = p->diff;
	struct patch_format_opts fo = { (unsigned)index, (unsigned)total,
					prefix };
	char hex[41];

	tree_oid_hex(hex, &p->commit);
	v.commit = hex;
	v.author_name = p->author_name;
	v.author_email = p->author_email;
	v.date = p->date;
	v.subject = p->subject;
	v.message = *message;
	patch_format(out, &v, &fo);
}

/* DEP-3 bug fields for one Bug/Closes/--bug value; false when none fits. */
static bool dep3_bug(struct buf *out, const char *v)
{
	const char *num = NULL;
	const char *h = strchr(v, '#');

	if (strstr(v, "bugs.debian.org/")) {
		buf_addf(out, "Bug-Debian: %s\n", v);
		return true;
	}
	if (h && isdigit((unsigned char)h[1]) &&
	    strspn(h + 1, "0123456789") == strlen(h + 1))
		num = h + 1;
	if (num && (h == v || !strncasecmp(v, "debian#", 7))) {
		buf_addf(out, "Bug-Debian: https://bugs.debian.org/%s\n", num);
		return true;
	}
	if (num && (!strncasecmp(v, "bsc#", 4) || !strncasecmp(v, "boo#", 4) ||
		    !strncasecmp(v, "bnc#", 4))) {
		buf_addf(out,
			 "Bug-SUSE: https://bugzilla.suse.com/show_bug.cgi?id="
			 "%s\n",
			 num);
		return true;
	}
	if (num && (!strncasecmp(v, "lp#", 3) || !strncasecmp(v, "LP: #", 5))) {
		buf_addf(out, "Bug-Ubuntu: https://launchpad.net/bugs/%s\n",
			 num);
		return true;
	}
	if (starts_with(v, "https://") || starts_with(v, "http://")) {
		buf_addf(out, "Bug: %s\n", v);
		return true;
	}
	return false;
}

/* The value of a DEP-3 field the patch came with, or NULL. */
static const char *dep3_value(const struct export_patch *p, const char *key)
{
	size_t kl = strlen(key);

	for (size_t d = 0; d < p->nr_dep3; d++)
		if (!strncasecmp(p->dep3[d], key, kl) && p->dep3[d][kl] == '\t')
			return p->dep3[d] + kl + 1;
	return NULL;
}

/* "Key: value", a multi-line value as DEP-3 continuation lines. */
static void add_dep3_line(struct buf *out, const char *key, size_t kl,
			  const char *v)
{
	buf_addf(out, "%.*s:", (int)kl, key);
	for (const char *l = v; *l;) {
		size_t n = strcspn(l, "\n");
		buf_addf(out, " %.*s\n", (int)n, l);
		l += n;
		if (*l == '\n')
			l++;
	}
}

/* Materially changed: merged or resolved, not only moved or re-contexted. */
static bool merged(const struct export_patch *p)
{
	const struct carry_patch *cp = p->cp;

	if (!cp)
		return false;
	if (cp->resolved)
		return true;
	for (size_t f = 0; f < cp->nr_files; f++)
		for (size_t h = 0; h < cp->files[f].nr_hunks; h++)
			if (cp->files[f].hunks[h].rule == RULE_3WAY ||
			    cp->files[f].hunks[h].rule == RULE_3WAY_HUNK)
				return true;
	return false;
}

static void add_diff_part(struct buf *out, const struct export_patch *p)
{
	buf_adds(out, "---\n");
	patch_diffstat(out, &p->diff);
	buf_addc(out, '\n');
	buf_addspan(out, p->diff.diff);
	if (p->diff.diff.len && p->diff.diff.ptr[p->diff.diff.len - 1] != '\n')
		buf_addc(out, '\n');
}

void export_debian_patch(struct buf *out, const struct export_series *s,
			 const struct export_patch *p,
			 const struct export_text_opts *o)
{
	struct buf body = BUF_INIT;
	struct cursor c;
	struct span l;

	compose_body(&body, s, p, o, BODY_DEBIAN);
	/* Description with the long text as continuation lines: one
	 * header, so no paragraph of the message (a trailer block) can be
	 * read as a second DEP-3 header */
	buf_addf(out, "Description: %s\n", p->subject);
	cursor_init(&c, body.ptr, body.len);
	while (cursor_next(&c, &l, NULL)) {
		struct span t = span_trim(l);
		if (!t.len)
			buf_adds(out, " .\n");
		else {
			buf_addc(out, ' ');
			buf_addspan(out, l);
			buf_addc(out, '\n');
		}
	}
	if (p->author_name || p->author_email) {
		buf_adds(out, "Author: ");
		add_person(out, p->author_name, p->author_email);
		buf_addc(out, '\n');
	}
	if (p->upstream[0])
		buf_addf(out, "Origin: %s, commit:%s\n",
			 merged(p) ? "backport" : "upstream", p->upstream);
	else if (dep3_value(p, "Origin"))
		add_dep3_line(out, "Origin", 6, dep3_value(p, "Origin"));
	else if (p->link)
		buf_addf(out, "Origin: backport, %s\n", p->link);
	for (size_t b = 0; b < p->nr_bugs; b++)
		dep3_bug(out, p->bugs[b]);
	/* the patch's own bug fields, as it came (Debian's patches) */
	for (size_t d = 0; d < p->nr_dep3; d++) {
		const char *tab = strchr(p->dep3[d], '\t');
		size_t kl = (size_t)(tab - p->dep3[d]);
		if ((kl == 3 && !strncasecmp(p->dep3[d], "Bug", 3)) ||
		    !strncasecmp(p->dep3[d], "Bug-", 4))
			add_dep3_line(out, p->dep3[d], kl, tab + 1);
	}
	if (dep3_value(p, "Forwarded"))
		add_dep3_line(out, "Forwarded", 9, dep3_value(p, "Forwarded"));
	else if (!p->upstream[0] && p->link)
		buf_addf(out, "Forwarded: %s\n", p->link);
	if (!p->upstream[0] && dep3_value(p, "Applied-Upstream"))
		add_dep3_line(out, "Applied-Upstream", 16,
			      dep3_value(p, "Applied-Upstream"));
	if (p->upstream[0]) {
		buf_adds(out, "Applied-Upstream: ");
		if (p->release)
			buf_addf(out, "%s, ",
				 p->release[0] == 'v' ? p->release + 1
						      : p->release);
		buf_addf(out, "commit:%s\n", p->upstream);
	}
	for (size_t r = 0; r < p->nr_reviewed; r++) {
		const char *tab = strchr(p->reviewed[r], '\t');
		buf_addf(out, "%.*s: %s\n", (int)(tab - p->reviewed[r]),
			 p->reviewed[r], tab + 1);
	}
	buf_adds(out, "Last-Update: ");
	add_iso_date(out, s->now);
	buf_adds(out, "\n\n");
	add_diff_part(out, p);
	buf_release(&body);
}

/* SUSE References values from Bug/Closes/--bug values. */
static void suse_references(struct buf *out, const struct export_patch *p)
{
	for (size_t b = 0; b < p->nr_bugs; b++) {
		const char *v = p->bugs[b];
		const char *id =
			strstr(v, "bugzilla.suse.com/show_bug.cgi?id=");
		size_t before = out->len;

		if (id)
			buf_addf(out, "bsc#%s", id + 34);
		else if (!strncasecmp(v, "bsc#", 4) ||
			 !strncasecmp(v, "boo#", 4) ||
			 !strncasecmp(v, "bnc#", 4) ||
			 !strncasecmp(v, "jsc#", 4) ||
			 !strncasecmp(v, "CVE-", 4) || !strcmp(v, "git-fixes"))
			buf_adds(out, v);
		if (out->len > before)
			buf_addc(out, ' ');
	}
	buf_rtrim(out);
}

void export_suse_patch(struct buf *out, const struct export_series *s,
		       const struct export_patch *p,
		       const struct export_text_opts *o)
{
	struct buf body = BUF_INIT, refs = BUF_INIT;

	compose_body(&body, s, p, o, BODY_SUSE);
	if (p->author_name || p->author_email) {
		buf_adds(out, "From: ");
		add_person(out, p->author_name, p->author_email);
		buf_addc(out, '\n');
	}
	if (p->date)
		buf_addf(out, "Date: %s\n", p->date);
	buf_addf(out, "Subject: %s\n", p->subject);
	if (p->upstream[0] && p->release)
		buf_addf(out, "Patch-mainline: %s\n", p->release);
	else if (p->upstream[0])
		buf_adds(out, "Patch-mainline: Not yet, release not known\n");
	else if (p->link)
		buf_addf(out, "Patch-mainline: Submitted, %s\n", p->link);
	else
		buf_adds(out, "Patch-mainline: Not yet, no upstream commit "
			      "known\n");
	if (p->upstream[0])
		buf_addf(out, "Git-commit: %s\n", p->upstream);
	suse_references(&refs, p);
	if (refs.len)
		buf_addf(out, "References: %s\n", refs.ptr);
	buf_addc(out, '\n');
	buf_add(out, body.ptr, body.len);
	add_diff_part(out, p);
	buf_release(&body);
	buf_release(&refs);
}

static void subject_prefix(struct buf *out, const struct export_series *s,
			   const struct export_text_opts *o)
{
	if (o && o->subject_prefix && *o->subject_prefix)
		buf_adds(out, o->subject_prefix);
	else
		buf_addf(out, "PATCH %s", tree_name(s));
}

const char *export_failed_report(const struct export_series *s)
{
	const char *id = NULL;

	for (size_t i = 0; i < s->nr; i++) {
		const struct export_patch *p = &s->patches[i];

		if (!p->included)
			continue;
		if (p->upstream_from != UPSTREAM_MAIL || !p->msgid ||
		    (id && strcmp(id, p->msgid)))
			return NULL;
		id = p->msgid;
	}
	return id;
}

/*
 * Insert To:/Cc: before the blank line that ends the header of msg, and
 * In-Reply-To:/References: on the first message of the export (the cover
 * letter, or the one patch), which git send-email keeps.
 */
static void add_recipients(struct buf *msg, const struct export_text_opts *o,
			   bool first)
{
	struct buf h = BUF_INIT, out = BUF_INIT;
	const char *end, *irt = o && first ? o->in_reply_to : NULL;
	size_t at;

	if (irt && *irt) {
		size_t n = strlen(irt);
		if (irt[0] == '<' && irt[n - 1] == '>') {
			irt++;
			n -= 2;
		}
		buf_addf(&h, "In-Reply-To: <%.*s>\nReferences: <%.*s>\n",
			 (int)n, irt, (int)n, irt);
	}
	if (!o || (!o->nr_to && !o->nr_cc && !h.len)) {
		buf_release(&h);
		return;
	}
	for (size_t i = 0; i < o->nr_to; i++)
		buf_addf(&h, "%s%s", i ? ",\n " : "To: ", o->to[i]);
	if (o->nr_to)
		buf_addc(&h, '\n');
	for (size_t i = 0; i < o->nr_cc; i++)
		buf_addf(&h, "%s%s", i ? ",\n " : "Cc: ", o->cc[i]);
	if (o->nr_cc)
		buf_addc(&h, '\n');
	end = strstr(msg->ptr, "\n\n");
	at = end ? (size_t)(end - msg->ptr) + 1 : msg->len;
	buf_add(&out, msg->ptr, at);
	buf_add(&out, h.ptr, h.len);
	buf_add(&out, msg->ptr + at, msg->len - at);
	buf_swap(&out, msg);
	buf_release(&out);
	buf_release(&h);
}

void export_mbox_patch(struct buf *out, const struct export_series *s,
		       const struct export_patch *p,
		       const struct export_text_opts *o)
{
	struct buf body = BUF_INIT, prefix = BUF_INIT, msg = BUF_INIT;

	compose_body(&body, s, p, o, BODY_MBOX);
	subject_prefix(&prefix, s, o);
	format_view(&msg, p, &body, prefix.ptr, o ? o->index : 1,
		    o ? o->total : 1);
	add_recipients(&msg, o, !o || o->total <= 1);
	buf_add(out, msg.ptr, msg.len);
	buf_release(&body);
	buf_release(&prefix);
	buf_release(&msg);
}

void export_mbox_cover(struct buf *out, const struct export_series *s,
		       const struct export_text_opts *o)
{
	struct buf subj = BUF_INIT, enc = BUF_INIT, msg = BUF_INIT;
	struct buf text = BUF_INIT, from = BUF_INIT;
	size_t n = 0, total = 0;

	for (size_t i = 0; i < s->nr; i++)
		total += s->patches[i].included;
	buf_adds(&msg, "From 0000000000000000000000000000000000000000 Mon Sep "
		       "17 00:00:00 2001\n");
	if (s->backporter_name || s->backporter_email) {
		add_person(&from, s->backporter_name, s->backporter_email);
		mail_encode_header(&enc, from.ptr);
		buf_addf(&msg, "From: %s\n", enc.ptr);
		buf_reset(&enc);
	}
	buf_adds(&msg, "Date: ");
	add_mail_date(&msg, s->now);
	buf_addc(&msg, '\n');
	buf_adds(&subj, "[");
	subject_prefix(&subj, s, o);
	buf_addf(&subj, " 0/%zu] ", total);
	if (s->cover_title)
		buf_adds(&subj, s->cover_title);
	else
		buf_addf(&subj, "%s: backport to %s", s->name, tree_name(s));
	mail_encode_header(&enc, subj.ptr);
	buf_addf(&msg, "Subject: %s\n", enc.ptr);
	buf_adds(&msg, "\n");

	buf_addf(&text, "This is a backport of %s@%s", s->name, s->version);
	if (s->cover_title)
		buf_addf(&text, " (\"%s\")", s->cover_title);
	if (s->cover_link)
		buf_addf(&text, ", %s,", s->cover_link);
	buf_addf(&text, " to %s", tree_name(s));
	if (s->kernel)
		buf_addf(&text, ", carried onto %s (Linux %s)", s->target,
			 s->kernel);
	buf_adds(&text, ".");
	add_wrapped(&msg, text.ptr, 72, "");
	buf_addc(&msg, '\n');
	for (size_t i = 0; i < s->nr; i++) {
		const struct export_patch *p = &s->patches[i];
		struct buf adj = BUF_INIT;

		if (!p->included)
			continue;
		buf_addf(&msg, "  %zu/%zu %s\n", ++n, total, p->subject);
		if (p->upstream[0])
			buf_addf(&msg, "      commit %s upstream\n",
				 p->upstream);
		export_adjustments(&adj, p);
		buf_reset(&text);
		buf_addf(&text, "%s", adj.len ? adj.ptr : "applied as it is");
		buf_adds(&msg, "      ");
		add_wrapped(&msg, text.ptr, 72, "      ");
		buf_release(&adj);
	}
	if (total < s->nr) {
		buf_adds(&msg, "\nNot in this backport:\n");
		for (size_t i = 0; i < s->nr; i++)
			if (!s->patches[i].included)
				buf_addf(&msg, "  %s: %s\n", s->patches[i].file,
					 s->patches[i].why);
	}
	buf_adds(&msg, "\n-- \n" SIGNATURE "\n\n");
	add_recipients(&msg, o, true);
	buf_add(out, msg.ptr, msg.len);
	buf_release(&subj);
	buf_release(&enc);
	buf_release(&msg);
	buf_release(&text);
	buf_release(&from);
}

void export_git_message(struct buf *out, const struct export_series *s,
			const struct export_patch *p,
			const struct export_text_opts *o)
{
	buf_addf(out, "%s\n", p->subject);
	if (p->message.len || p->upstream[0] || p->adjusted ||
	    (o && o->signoff))
		buf_addc(out, '\n');
	compose_body(out, s, p, o, BODY_GIT);
}

void export_git_patch(struct buf *out, const struct export_series *s,
		      const struct export_patch *p,
		      const struct export_text_opts *o)
{
	struct buf body = BUF_INIT;

	compose_body(&body, s, p, o, BODY_GIT);
	format_view(out, p, &body, "PATCH", o ? o->index : 1, o ? o->total : 1);
	buf_release(&body);
}

void export_quilt_patch(struct buf *out, const struct export_series *s,
			const struct export_patch *p)
{
	struct buf msg = BUF_INIT, note = BUF_INIT;

	format_view(&msg, p, &p->message, NULL, 1, 1);
	if (p->cp)
		refresh_note(&note, p->cp, s->target);
	refresh_insert_note(&msg, &note);
	buf_add(out, msg.ptr, msg.len);
	buf_release(&msg);
	buf_release(&note);
}

/* ---- marked blocks ---------------------------------------------------- */

#define BLOCK_BEGIN "# kcarry export begin: "
#define BLOCK_END "# kcarry export end: "

/* Offset of the line of text that is exactly marker+key, or SIZE_MAX. */
/* Offset of the line "MARKER KEY" (blanks around it allowed), or SIZE_MAX. */
static size_t find_marker(const struct buf *text, size_t from,
			  const char *marker, const char *key)
{
	struct cursor c;
	struct span l, full;
	size_t ml = strlen(marker), kl = strlen(key);

	cursor_init(&c, text->ptr + from, text->len - from);
	while (cursor_next(&c, &l, &full)) {
		struct span t = span_trim(span_chomp_cr(l));
		if (t.len == ml + kl && !memcmp(t.ptr, marker, ml) &&
		    !memcmp(t.ptr + ml, key, kl))
			return (size_t)(l.ptr - text->ptr);
	}
	return SIZE_MAX;
}

/*
 * The block of key that begins at begin: *stop gets the offset after its
 * end line, old its lines.  ERR_PARSE when it has no end.
 */
static int block_at(size_t *stop, const struct buf *text, size_t begin,
		    const char *key, struct buf *old, struct err *err)
{
	size_t end = find_marker(text, begin, BLOCK_END, key);
	const char *nl, *b;
	size_t from;

	if (end == SIZE_MAX)
		return err_set(err, ERR_PARSE,
			       "kcarry's block '%s' has a start but no end "
			       "('%s%s')",
			       key, BLOCK_END, key);
	nl = memchr(text->ptr + end, '\n', text->len - end);
	*stop = nl ? (size_t)(nl - text->ptr) + 1 : text->len;
	b = memchr(text->ptr + begin, '\n', text->len - begin);
	from = b ? (size_t)(b - text->ptr) + 1 : end;
	if (old)
		buf_add(old, text->ptr + from, end - from);
	return 0;
}

int export_block_update(struct buf *text, const char *key, const char *body,
			size_t at, struct buf *old, struct err *err)
{
	size_t begin = find_marker(text, 0, BLOCK_BEGIN, key);
	size_t stop;
	struct buf out = BUF_INIT;
	int error = 0;

	if (old)
		buf_reset(old);
	if (begin == SIZE_MAX) {
		if (find_marker(text, 0, BLOCK_END, key) != SIZE_MAX)
			return err_set(err, ERR_PARSE,
				       "the end of kcarry's block '%s' stands "
				       "without its start",
				       key);
		if (at > text->len)
			at = text->len;
		buf_add(&out, text->ptr, at);
		if (at && out.ptr[at - 1] != '\n')
			buf_addc(&out, '\n');
		stop = at;
	} else {
		if ((error = block_at(&stop, text, begin, key, old, err)) < 0)
			goto out;
		buf_add(&out, text->ptr, begin);
	}
	buf_addf(&out, BLOCK_BEGIN "%s\n", key);
	buf_adds(&out, body);
	buf_addf(&out, BLOCK_END "%s\n", key);
	/* a second block of key (a merge of two branches of a package) is
	 * stale: it goes, its files count as kcarry's */
	while ((begin = find_marker(text, stop, BLOCK_BEGIN, key)) !=
	       SIZE_MAX) {
		buf_add(&out, text->ptr + stop, begin - stop);
		if ((error = block_at(&stop, text, begin, key, old, err)) < 0)
			goto out;
	}
	buf_add(&out, text->ptr + stop, text->len - stop);
	buf_swap(&out, text);
out:
	buf_release(&out);
	return error;
}

/* ---- writing: a plan checked before anything is written ----------------- */

struct plan_file {
	char *path;
	struct buf text;
	bool shared;	   /* a user's file with kcarry's block in it */
	const char *block; /* its block's name, for the report */
};

struct plan {
	struct plan_file *files;
	size_t nr, alloc;
	char **owned; /* files kcarry wrote last time */
	size_t nr_owned;
	char *own_dir; /* owned files outside it are never removed */
};

static void plan_release(struct plan *p)
{
	for (size_t i = 0; i < p->nr; i++) {
		free(p->files[i].path);
		buf_release(&p->files[i].text);
	}
	free(p->files);
	free_list(p->owned, p->nr_owned);
	free(p->own_dir);
	memset(p, 0, sizeof(*p));
}

/* Add a file; text is taken over (left empty). */
static struct plan_file *plan_add(struct plan *p, char *path, struct buf *text)
{
	struct plan_file *f;

	ALLOC_GROW(p->files, p->nr + 1, p->alloc);
	f = &p->files[p->nr++];
	memset(f, 0, sizeof(*f));
	f->path = path;
	buf_init(&f->text, 0);
	buf_swap(&f->text, text);
	return f;
}

/* A relative path without ".." that stays where it is put. */
static bool safe_relative(const char *path)
{
	const char *s = path;

	if (!*path || *path == '/')
		return false;
	while (*s) {
		size_t n = strcspn(s, "/");
		if ((n == 2 && !strncmp(s, "..", 2)) || n == 0)
			return false;
		s += n;
		if (*s == '/')
			s++;
	}
	return true;
}

enum owned_form {
	OWNED_FIRST_WORD, /* quilt and Debian series, series.conf */
	OWNED_SPEC_PATCH, /* "Patch1000: name" */
};

/* Files named in the old block: kcarry wrote them, it may replace them. */
static void plan_owned(struct plan *p, const char *dir, const struct buf *old,
		       enum owned_form form)
{
	struct cursor c;
	struct span l;

	cursor_init(&c, old->ptr, old->len);
	while (cursor_next(&c, &l, NULL)) {
		struct span t = span_trim(span_chomp_cr(l));
		char *name, *path;

		if (!t.len || t.ptr[0] == '#')
			continue;
		if (form == OWNED_SPEC_PATCH) {
			const char *colon = memchr(t.ptr, ':', t.len);
			if (!colon || !eat_ci(&t, "Patch"))
				continue;
			t = span_trim(span_from_to(colon + 1, t.ptr + t.len));
		}
		for (size_t k = 0; k < t.len; k++)
			if (t.ptr[k] == ' ' || t.ptr[k] == '\t') {
				t.len = k;
				break;
			}
		name = span_dup(t);
		if (safe_relative(name)) {
			path = fs_join(dir, name);
			add_unique(&p->owned, &p->nr_owned, path);
			free(path);
		}
		free(name);
	}
}

static bool plan_is_owned(const struct plan *p, const char *path)
{
	for (size_t i = 0; i < p->nr_owned; i++)
		if (!strcmp(p->owned[i], path))
			return true;
	return false;
}

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

static void written_add(struct export_written *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void written_add(struct export_written *w, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	ALLOC_GROW(w->lines, w->nr + 1, w->alloc);
	w->lines[w->nr++] = buf_detach(&b, NULL);
}

void export_written_release(struct export_written *w)
{
	for (size_t i = 0; i < w->nr; i++)
		free(w->lines[i]);
	free(w->lines);
	for (size_t i = 0; i < w->nr_notes; i++)
		free(w->notes[i]);
	free(w->notes);
	free(w->where);
	memset(w, 0, sizeof(*w));
}

/*
 * Every file of an export is first written to a temporary beside it,
 * ".kcarry-export.PID.NAME", and renamed into place only once all are
 * written: a full disk or any failed write leaves nothing, where it left
 * a cover letter and half the messages (git send-email out/\*.patch would
 * send them) or patch files without their series lines.
 */
#define STAGE_PREFIX ".kcarry-export."

static char *stage_path(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = dir_of(path);
	char *name = xstrfmt(STAGE_PREFIX "%ld.%s", (long)getpid(),
			     slash ? slash + 1 : path);
	char *stage = fs_join(dir, name);

	free(dir);
	free(name);
	return stage;
}

/* The process id a temporary name ends in or starts with, or 0. */
static long temp_pid(const char *name, const struct plan *p)
{
	const char *t;
	char *end;
	long pid;

	if (starts_with(name, STAGE_PREFIX)) {
		pid = strtol(name + strlen(STAGE_PREFIX), &end, 10);
		return *end == '.' ? pid : 0;
	}
	/* fs_write_atomic's "NAME.tmp.PID" of a file of the plan */
	t = strstr(name, ".tmp.");
	if (!t || !t[5])
		return 0;
	pid = strtol(t + 5, &end, 10);
	if (*end)
		return 0;
	for (size_t i = 0; i < p->nr; i++) {
		const char *slash = strrchr(p->files[i].path, '/');
		const char *base = slash ? slash + 1 : p->files[i].path;
		if (strlen(base) == (size_t)(t - name) &&
		    !strncmp(base, name, (size_t)(t - name)))
			return pid;
	}
	return 0;
}

/*
 * Remove the temporaries a killed export (kill -9) left in dir: those
 * of a process that is gone.  Another export's, still running, stay.
 */
static void remove_stale(const char *dir, const struct plan *p)
{
	char **names = NULL;
	size_t nr = 0;
	struct err e = ERR_INIT;

	if (!fs_is_dir(dir) || fs_list_dir(dir, &names, &nr, &e) < 0) {
		err_release(&e);
		return;
	}
	for (size_t i = 0; i < nr; i++) {
		long pid = temp_pid(names[i], p);
		char *path;

		if (pid <= 0 || pid == (long)getpid() ||
		    kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		path = fs_join(dir, names[i]);
		if (fs_is_file(path))
			unlink(path);
		free(path);
	}
	fs_free_list(names, nr);
}

/* Add dir and its parents that do not exist to *made (to undo mkdirs). */
static void note_missing_dirs(char ***made, size_t *nr, const char *dir)
{
	char *d = xstrdup(dir);

	while (strcmp(d, ".") && strcmp(d, "/") && !fs_is_dir(d) &&
	       !fs_is_file(d)) {
		char *up = dir_of(d);
		add_unique(made, nr, d);
		free(d);
		d = up;
	}
	free(d);
}

static int by_length_desc(const void *a, const void *b)
{
	size_t la = strlen(*(char *const *)a), lb = strlen(*(char *const *)b);

	return la < lb ? 1 : la > lb ? -1 : 0;
}

/* Undo a failed export: its temporaries, then the folders it made. */
static void unstage(char **stages, size_t nr, char **made, size_t nr_made)
{
	for (size_t i = 0; i < nr; i++)
		if (stages[i])
			unlink(stages[i]);
	if (nr_made)
		qsort(made, nr_made, sizeof(*made), by_length_desc);
	for (size_t i = 0; i < nr_made; i++)
		rmdir(made[i]);
}

/* A file in the way that kcarry did not write fails the whole plan. */
static int plan_check(const struct plan *p, struct err *err)
{
	struct buf cur = BUF_INIT;
	int error = 0;

	for (size_t i = 0; i < p->nr && !error; i++) {
		const struct plan_file *f = &p->files[i];

		if (fs_is_dir(f->path)) {
			error = err_set(err, ERR_EXISTS, "'%s' is a directory",
					f->path);
			break;
		}
		if (f->shared || !fs_is_file(f->path) ||
		    plan_is_owned(p, f->path))
			continue;
		if ((error = fs_read_file(&cur, f->path, 0, err)) < 0)
			break;
		if (cur.len != f->text.len ||
		    memcmp(cur.ptr, f->text.ptr, cur.len)) {
			error = err_set(err, ERR_EXISTS,
					"'%s' exists and kcarry did not write "
					"it",
					f->path);
			err_hint(err, "move it away, or export somewhere else");
		}
	}
	buf_release(&cur);
	return error;
}

/* Write every file of the plan to its temporary; undone on failure. */
static int plan_stage(char **stages, const struct plan *p, struct err *err)
{
	char **made = NULL;
	size_t nr_made = 0;
	int error = 0;

	for (size_t i = 0; i < p->nr && !error; i++) {
		char *dir = dir_of(p->files[i].path);

		note_missing_dirs(&made, &nr_made, dir);
		if (!(error = fs_mkdirs(dir, err))) {
			remove_stale(dir, p);
			stages[i] = stage_path(p->files[i].path);
			error = fs_write_atomic(stages[i], p->files[i].text.ptr,
						p->files[i].text.len, err);
		}
		free(dir);
	}
	if (error)
		unstage(stages, p->nr, made, nr_made);
	free_list(made, nr_made);
	return error;
}

/*
 * Check every file of the plan, write them all to temporaries, rename
 * them into place (the files a block names before the shared file that
 * holds the block), then remove the files kcarry wrote last time that
 * this export no longer has.
 */
static int plan_commit(struct export_written *w, struct plan *p,
		       struct err *err)
{
	char **stages = xcalloc(p->nr + 1, sizeof(*stages));
	int error;

	if ((error = plan_check(p, err)) < 0 ||
	    (error = plan_stage(stages, p, err)) < 0)
		goto out;
	for (int shared = 0; shared < 2 && !error; shared++)
		for (size_t i = 0; i < p->nr && !error; i++) {
			const struct plan_file *f = &p->files[i];
			if (f->shared != (bool)shared)
				continue;
			if (rename(stages[i], f->path) < 0) {
				error = err_set(err, ERR_IO,
						"cannot write '%s': %s",
						f->path, strerror(errno));
				unstage(stages, p->nr, NULL, 0);
			}
			free(stages[i]);
			stages[i] = NULL;
		}
	for (size_t i = 0; i < p->nr && !error; i++) {
		const struct plan_file *f = &p->files[i];
		if (f->block)
			written_add(w, "%s (block '%s')", f->path, f->block);
		else
			written_add(w, "%s", f->path);
	}
	for (size_t i = 0; i < p->nr_owned && !error; i++) {
		const char *o = p->owned[i];
		bool keep = false;

		for (size_t k = 0; k < p->nr && !keep; k++)
			keep = !strcmp(p->files[k].path, o);
		if (keep || !p->own_dir || !starts_with(o, p->own_dir) ||
		    o[strlen(p->own_dir)] != '/' || !fs_is_file(o))
			continue;
		if (remove(o) < 0)
			error = err_set(err, ERR_IO, "cannot remove '%s'", o);
		else
			written_add(w, "%s (removed)", o);
	}
out:
	free_list(stages, p->nr);
	return error;
}

/* Read a user's file kcarry puts a block in; absent is empty. */
static int read_shared(struct buf *out, const char *path, struct err *err)
{
	buf_reset(out);
	if (!fs_is_file(path))
		return 0;
	return fs_read_file(out, path, 0, err);
}

static void block_head(struct buf *b, const struct export_series *s,
		       const char *lead)
{
	buf_addf(b, "%s# %s@%s on %s", lead, s->name, s->version, s->target);
	if (s->kernel)
		buf_addf(b, " (Linux %s)", s->kernel);
	buf_addf(b, ", written by 'kcarry export'; a new export replaces "
		    "this block\n");
}

static void block_missing(struct buf *b, const struct export_series *s,
			  const char *lead)
{
	for (size_t i = 0; i < s->nr; i++)
		if (!s->patches[i].included)
			buf_addf(b, "%s# %s: %s\n", lead, s->patches[i].file,
				 s->patches[i].why);
}

/* A block of kcarry's lines in a file it shares with the user. */
struct block {
	const char *path;      /* the file (created when absent) */
	const char *key;       /* the block's name */
	const char *body;      /* its lines */
	size_t at;	       /* where a new block goes; SIZE_MAX: the end */
	const char *owned_dir; /* the old block's files are relative to it */
	enum owned_form form;
};

/* Plan the file with the block put in. */
static int plan_block(struct plan *p, const struct block *b, struct err *err)
{
	struct buf text = BUF_INIT, old = BUF_INIT;
	struct plan_file *f;
	int error;

	if ((error = read_shared(&text, b->path, err)) < 0 ||
	    (error = export_block_update(&text, b->key, b->body, b->at, &old,
					 err)) < 0) {
		err_prefix(err, "%s", b->path);
		goto out;
	}
	if (b->owned_dir)
		plan_owned(p, b->owned_dir, &old, b->form);
	f = plan_add(p, xstrdup(b->path), &text);
	f->shared = true;
	f->block = b->key;
out:
	buf_release(&text);
	buf_release(&old);
	return error;
}

static char *name_slug(const struct export_series *s)
{
	char *slug = patch_slug(s->name);

	if (!*slug) {
		free(slug);
		slug = xstrdup("series");
	}
	return slug;
}

/*
 * dpkg-source (3.0 quilt) refuses a patch that changes or removes a
 * symlink of the tree ("modifies file ... through a symlink"), where
 * git am, quilt and rpmbuild apply it: say which patches do.
 */
static void note_symlinks(struct export_written *w,
			  const struct export_series *s)
{
	for (size_t i = 0; i < s->nr; i++) {
		const struct export_patch *ep = &s->patches[i];
		for (size_t f = 0; ep->included && f < ep->diff.nr_files; f++) {
			const struct patch_file *pf = &ep->diff.files[f];
			if (pf->op == PATCH_ADD || pf->old_mode != 0120000)
				continue;
			ALLOC_GROW(w->notes, w->nr_notes + 1, w->alloc_notes);
			w->notes[w->nr_notes++] = xstrfmt(
				"%s changes the symlink '%s': dpkg-source "
				"refuses such a patch",
				ep->file, pf->old_path);
		}
	}
}

/*
 * A Debian or SUSE export: one file per patch under dir, named by its slug,
 * and a block in the series file that lists them, each entry indented by
 * indent and written prefix SLUG.patch, relative to dir.
 */
struct listed {
	const char *series; /* the file that holds the block */
	const char *dir;    /* the folder its entries are relative to */
	const char *prefix; /* an entry's text before the slug */
	const char *indent; /* before each line of the block */
	char *own_dir;      /* taken: the folder whose stale patches go */
	const char *where;  /* what the export names as written to */
	void (*render)(struct buf *out, const struct export_series *s,
		       const struct export_patch *p,
		       const struct export_text_opts *o);
};

static int write_listed(struct export_written *w,
			const struct export_series *s,
			const struct export_opts *o, struct listed *l,
			struct err *err)
{
	struct plan p = { 0 };
	struct buf body = BUF_INIT, text = BUF_INIT;
	int error;

	p.own_dir = l->own_dir;
	block_head(&body, s, l->indent);
	for (size_t i = 0; i < s->nr; i++) {
		const struct export_patch *ep = &s->patches[i];
		if (!ep->included)
			continue;
		buf_addf(&body, "%s%s%s.patch\n", l->indent, l->prefix,
			 ep->slug);
		buf_reset(&text);
		l->render(&text, s, ep, &o->text);
		plan_add(&p,
			 xstrfmt("%s/%s%s.patch", l->dir, l->prefix, ep->slug),
			 &text);
	}
	block_missing(&body, s, l->indent);
	{
		struct block b = { l->series, s->name, body.ptr,
				   SIZE_MAX,  l->dir,  OWNED_FIRST_WORD };
		if ((error = plan_block(&p, &b, err)) < 0)
			goto out;
	}
	error = plan_commit(w, &p, err);
	w->where = xstrdup(l->where);
out:
	plan_release(&p);
	buf_release(&body);
	buf_release(&text);
	return error;
}

static int write_debian(struct export_written *w, const struct export_series *s,
			const struct export_opts *o, struct err *err)
{
	const char *root = o->into ? o->into : o->out ? o->out : ".";
	char *slug = name_slug(s);
	char *subdir = o->subdir ? xstrdup(o->subdir)
				 : xstrfmt("kcarry/%s", slug);
	char *patches = xstrfmt("%s/debian/patches", root);
	char *series = xstrfmt("%s/series", patches);
	char *prefix = xstrfmt("%s/", subdir);
	struct buf fmt = BUF_INIT;
	int error = 0;

	if (!safe_relative(subdir)) {
		error = err_set(err, ERR_USAGE,
				"--subdir '%s' must be a relative path inside "
				"debian/patches",
				subdir);
		goto out;
	}
	if (o->into) {
		char *f = xstrfmt("%s/debian/source/format", root);
		struct err e = ERR_INIT;

		if (!fs_is_dir(root))
			error = err_set(err, ERR_NOTFOUND,
					"--into '%s': %s", root,
					access(root, F_OK)
						? "no such folder"
						: "not a folder");
		else if (fs_read_file(&fmt, f, 4096, &e) < 0 ||
			 !strstr(fmt.ptr, "3.0 (quilt)"))
			error = err_set(err, ERR_USAGE,
					"'%s' is not an unpacked 3.0 (quilt) "
					"source package (%s)",
					root,
					e.code ? "no debian/source/format"
					       : "debian/source/format is not "
						 "'3.0 (quilt)'");
		free(f);
		err_release(&e);
		if (error)
			goto out;
	}
	{
		struct listed l = { series, patches, prefix, "",
				    xstrdup(patches), root,
				    export_debian_patch };
		if ((error = write_listed(w, s, o, &l, err)) == 0)
			note_symlinks(w, s);
	}
out:
	buf_release(&fmt);
	free(slug);
	free(subdir);
	free(patches);
	free(series);
	free(prefix);
	return error;
}

static int write_quilt(struct export_written *w, const struct export_series *s,
		       const struct export_opts *o, struct err *err)
{
	const char *dir = o->out ? o->out : ".";
	char *series = fs_join(dir, "series");
	struct plan p = { 0 };
	struct buf body = BUF_INIT, text = BUF_INIT;
	int error;

	p.own_dir = xstrdup(dir);
	block_head(&body, s, "");
	for (size_t i = 0; i < s->nr; i++) {
		const struct export_patch *ep = &s->patches[i];
		if (!ep->included)
			continue;
		buf_addf(&body, "%s\n", ep->file);
		buf_reset(&text);
		export_quilt_patch(&text, s, ep);
		plan_add(&p, fs_join(dir, ep->file), &text);
	}
	block_missing(&body, s, "");
	{
		struct block b = { series,   s->name, body.ptr,
				   SIZE_MAX, dir,     OWNED_FIRST_WORD };
		error = plan_block(&p, &b, err);
	}
	if (!error)
		error = plan_commit(w, &p, err);
	w->where = xstrdup(dir);
	plan_release(&p);
	buf_release(&body);
	buf_release(&text);
	free(series);
	return error;
}

static int write_suse(struct export_written *w, const struct export_series *s,
		      const struct export_opts *o, struct err *err)
{
	const char *root = o->into ? o->into : o->out ? o->out : ".";
	char *conf = fs_join(root, "series.conf");
	int error = 0;

	for (size_t i = 0; i < s->nr; i++) {
		const struct export_patch *ep = &s->patches[i];
		if (ep->included && ep->upstream[0] && !ep->release) {
			error = err_set(err, ERR_USAGE,
					"%s: upstream commit %.12s, but no "
					"release tag of %s's repository "
					"tells which release has it",
					ep->file, ep->upstream, s->target);
			err_hint(err, "SUSE's Patch-mainline wants it: give "
				      "it with --mainline VERSION (as "
				      "'v6.12-rc3')");
			goto out;
		}
	}
	if (o->into && !fs_is_dir(root)) {
		error = err_set(err, ERR_NOTFOUND, "--into '%s': %s", root,
				access(root, F_OK) ? "no such folder"
						   : "not a folder");
		goto out;
	}
	if (o->into && !fs_is_file(conf)) {
		error = err_set(err, ERR_USAGE,
				"'%s' is not a kernel-source checkout (no "
				"series.conf)",
				root);
		goto out;
	}
	{
		struct listed l = { conf, root, "patches.suse/", "\t",
				    fs_join(root, "patches.suse"), root,
				    export_suse_patch };
		error = write_listed(w, s, o, &l, err);
	}
out:
	free(conf);
	return error;
}

/* ---- RPM: Patch lines and their application in %prep ------------------ */

static const char *const spec_sections[] = {
	"package",
	"description",
	"prep",
	"build",
	"install",
	"check",
	"clean",
	"files",
	"changelog",
	"pre",
	"post",
	"preun",
	"postun",
	"pretrans",
	"posttrans",
	"triggerin",
	"triggerun",
	"triggerpostun",
	"verifyscript",
	"conf",
	"generate_buildrequires",
	"sourcelist",
	"patchlist",
	"filetriggerin",
	"filetriggerun",
	"transfiletriggerin",
	"transfiletriggerun",
};

/* The section a spec line opens ("prep" for "%prep"), or NULL. */
static const char *spec_section(struct span t)
{
	size_t n;

	if (!t.len || t.ptr[0] != '%')
		return NULL;
	for (n = 1;
	     n < t.len && (isalnum((unsigned char)t.ptr[n]) || t.ptr[n] == '_');
	     n++)
		;
	for (size_t i = 0; i < sizeof(spec_sections) / sizeof(*spec_sections);
	     i++)
		if (strlen(spec_sections[i]) == n - 1 &&
		    !memcmp(t.ptr + 1, spec_sections[i], n - 1))
			return spec_sections[i];
	return NULL;
}

struct spec_scan {
	size_t after_sources;	/* after the last Source/Patch line, or MAX */
	size_t first_section;	/* start of the first section, or MAX */
	size_t prep;		/* start of the %prep line, or MAX */
	size_t prep_end;	/* after the last non-blank line of %prep */
	bool autoapply;		/* %autosetup / %autopatch apply every patch */
	unsigned long *numbers; /* PatchN numbers outside kcarry's blocks */
	size_t nr_numbers;
};

/* "Patch12:" -> 12 (true); "Source0:" sets *source. */
static bool spec_tag_number(struct span t, const char *tag, unsigned long *n)
{
	size_t k;

	if (!eat_ci(&t, tag))
		return false;
	*n = 0;
	for (k = 0; k < t.len && isdigit((unsigned char)t.ptr[k]); k++)
		*n = *n * 10 + (unsigned long)(t.ptr[k] - '0');
	while (k < t.len && (t.ptr[k] == ' ' || t.ptr[k] == '\t'))
		k++;
	return k < t.len && t.ptr[k] == ':';
}

static void spec_scan(struct spec_scan *sc, const struct buf *spec)
{
	struct cursor c;
	struct span l, full;
	bool in_block = false, in_prep = false;

	memset(sc, 0, sizeof(*sc));
	sc->after_sources = sc->first_section = sc->prep = SIZE_MAX;
	sc->prep_end = SIZE_MAX;
	cursor_init(&c, spec->ptr, spec->len);
	while (cursor_next(&c, &l, &full)) {
		struct span t = span_trim(span_chomp_cr(l));
		size_t at = (size_t)(l.ptr - spec->ptr);
		size_t next = at + full.len;
		const char *sect = spec_section(t);
		unsigned long n;

		if (span_starts_with(t, BLOCK_BEGIN))
			in_block = true;
		else if (span_starts_with(t, BLOCK_END))
			in_block = false;
		if (sect) {
			if (sc->first_section == SIZE_MAX)
				sc->first_section = at;
			in_prep = !strcmp(sect, "prep");
			if (in_prep) {
				sc->prep = at;
				sc->prep_end = next;
			}
			continue;
		}
		if (!in_block && spec_tag_number(t, "Patch", &n)) {
			sc->numbers = xrealloc(sc->numbers,
					       (sc->nr_numbers + 1) *
						       sizeof(*sc->numbers));
			sc->numbers[sc->nr_numbers++] = n;
		}
		if (sc->first_section == SIZE_MAX &&
		    (spec_tag_number(t, "Patch", &n) ||
		     spec_tag_number(t, "Source", &n)))
			sc->after_sources = next;
		if (in_prep) {
			if (t.len)
				sc->prep_end = next;
			if (span_starts_with(t, "%autosetup") &&
			    !memmem(t.ptr, t.len, " -N", 3))
				sc->autoapply = true;
			if (span_starts_with(t, "%autopatch") &&
			    !memmem(t.ptr, t.len, "-m", 2) &&
			    !memmem(t.ptr, t.len, "-M", 2))
				sc->autoapply = true;
		}
	}
}

static void rpm_blocks(struct buf *patches, struct buf *prep,
		       const struct export_series *s,
		       const struct export_opts *o, const char *slug)
{
	unsigned long n = o->start, first = o->start, last = o->start;

	block_head(patches, s, "");
	for (size_t i = 0; i < s->nr; i++) {
		const struct export_patch *ep = &s->patches[i];
		if (!ep->included)
			continue;
		buf_addf(patches, "Patch%lu: %s-%s\n", n, slug, ep->file);
		if (!o->autopatch)
			buf_addf(prep, "%%patch -P %lu -p1 -F0\n", n);
		last = n++;
	}
	block_missing(patches, s, "");
	if (o->autopatch && n > first)
		buf_addf(prep, "%%autopatch -p1 -m %lu -M %lu\n", first, last);
}

static int write_rpm(struct export_written *w, const struct export_series *s,
		     const struct export_opts *o, struct err *err)
{
	char *slug = name_slug(s);
	char *dir = o->out    ? xstrdup(o->out)
		    : o->into ? dir_of(o->into)
			      : xstrdup(".");
	/* no '%' in a spec's comments: rpm expands macros there too */
	char *prep_key = xstrfmt("%s prep", s->name);
	struct plan p = { 0 };
	struct buf patches = BUF_INIT, prep = BUF_INIT, text = BUF_INIT;
	struct spec_scan sc = { 0 };
	unsigned long end;
	size_t n = 0;
	int error = 0;

	for (size_t i = 0; i < s->nr; i++)
		n += s->patches[i].included;
	end = o->start + n;
	rpm_blocks(&patches, &prep, s, o, slug);
	p.own_dir = xstrdup(dir);
	for (size_t i = 0; i < s->nr; i++) {
		const struct export_patch *ep = &s->patches[i];
		struct export_text_opts to = o->text;
		if (!ep->included)
			continue;
		to.index = 1;
		to.total = 1;
		buf_reset(&text);
		export_git_patch(&text, s, ep, &to);
		plan_add(&p, xstrfmt("%s/%s-%s", dir, slug, ep->file), &text);
	}
	if (o->into) {
		struct buf spec = BUF_INIT;

		if ((error = fs_read_file(&spec, o->into, 0, err)) < 0)
			goto out;
		spec_scan(&sc, &spec);
		buf_release(&spec);
		if (sc.prep == SIZE_MAX) {
			error = err_set(err, ERR_PARSE,
					"'%s' has no %%prep section", o->into);
			goto out;
		}
		for (size_t i = 0; i < sc.nr_numbers; i++)
			if (sc.numbers[i] >= o->start && sc.numbers[i] < end) {
				error = err_set(err, ERR_EXISTS,
						"%s: Patch%lu is taken",
						o->into, sc.numbers[i]);
				err_hint(err, "number kcarry's patches from "
					      "elsewhere with --start N");
				goto out;
			}
		if (sc.autoapply) {
			buf_reset(&prep);
			buf_adds(&prep, "# applied by the autosetup or "
					"autopatch of this spec\n");
		}
		/* %prep first: it comes later in the file, so inserting it
		 * leaves the offset of the Patch lines as scanned */
		{
			struct block b = { o->into,  prep_key,
					   prep.ptr, sc.prep_end,
					   NULL,     OWNED_FIRST_WORD };
			if ((error = plan_block(&p, &b, err)) < 0)
				goto out;
		}
		{
			/* the same file again: apply the second block to the
			 * text the first produced */
			struct plan_file *f = &p.files[p.nr - 1];
			struct buf old = BUF_INIT;
			size_t at = sc.after_sources != SIZE_MAX
					    ? sc.after_sources
					    : sc.first_section;

			error = export_block_update(&f->text, s->name,
						    patches.ptr, at, &old, err);
			if (error)
				err_prefix(err, "%s", o->into);
			else
				plan_owned(&p, dir, &old, OWNED_SPEC_PATCH);
			f->block = s->name;
			buf_release(&old);
			if (error)
				goto out;
		}
		w->where = xstrdup(o->into);
	} else {
		char *pf = xstrfmt("%s/%s-patches.inc", dir, slug);
		char *rf = xstrfmt("%s/%s-prep.inc", dir, slug);
		struct block b = { pf,	     s->name, patches.ptr,
				   SIZE_MAX, dir,     OWNED_SPEC_PATCH };
		struct block r = { rf,	     prep_key, prep.ptr,
				   SIZE_MAX, NULL,     OWNED_FIRST_WORD };

		error = plan_block(&p, &b, err);
		if (!error)
			error = plan_block(&p, &r, err);
		free(pf);
		free(rf);
		if (error)
			goto out;
		w->where = xstrdup(dir);
	}
	error = plan_commit(w, &p, err);
out:
	plan_release(&p);
	buf_release(&patches);
	buf_release(&prep);
	buf_release(&text);
	free(sc.numbers);
	free(slug);
	free(dir);
	free(prep_key);
	return error;
}

/* ---- mbox: one message per file, as git format-patch writes them ------- */

static bool is_numbered_patch(const char *name)
{
	return strlen(name) > 11 && strspn(name, "0123456789") == 4 &&
	       name[4] == '-' && ends_with(name, ".patch");
}

static int write_mbox(struct export_written *w, const struct export_series *s,
		      const struct export_opts *o, struct err *err)
{
	const char *dir = o->out ? o->out : ".";
	struct export_text_opts text_opts = o->text;
	struct plan p = { 0 };
	struct buf text = BUF_INIT, cur = BUF_INIT, missing = BUF_INIT;
	char **names = NULL, *slug;
	size_t nr_names = 0, total = 0, k = 0;
	int error = 0;

	for (size_t i = 0; i < s->nr; i++)
		total += s->patches[i].included;
	if (!text_opts.in_reply_to)
		text_opts.in_reply_to = export_failed_report(s);
	/* the numbered files of an earlier export are kcarry's (they end in
	 * its signature): git send-email DIR would send stale ones too */
	if (fs_is_dir(dir) &&
	    (error = fs_list_dir(dir, &names, &nr_names, err)) < 0)
		return error;
	for (size_t i = 0; i < nr_names; i++) {
		char *path = fs_join(dir, names[i]);
		struct err e = ERR_INIT;

		if (is_numbered_patch(names[i]) && fs_is_file(path) &&
		    fs_read_file(&cur, path, 0, &e) == 0 &&
		    strstr(cur.ptr, "\n-- \nkcarry"))
			add_unique(&p.owned, &p.nr_owned, path);
		free(path);
		err_release(&e);
	}
	fs_free_list(names, nr_names);
	p.own_dir = xstrdup(dir);
	if (total > 1) {
		export_mbox_cover(&text, s, &text_opts);
		plan_add(&p, fs_join(dir, "0000-cover-letter.patch"), &text);
	} else if (total < s->nr) {
		buf_adds(&missing, "Not in this backport:\n");
		for (size_t i = 0; i < s->nr; i++)
			if (!s->patches[i].included)
				buf_addf(&missing, "  %s: %s\n",
					 s->patches[i].file, s->patches[i].why);
	}
	for (size_t i = 0; i < s->nr; i++) {
		const struct export_patch *ep = &s->patches[i];
		struct export_text_opts to = text_opts;

		if (!ep->included)
			continue;
		to.index = ++k;
		to.total = total;
		buf_reset(&text);
		export_mbox_patch(&text, s, ep, &to);
		refresh_insert_note(&text, &missing);
		/* named as git format-patch names them */
		slug = patch_slug(ep->subject);
		plan_add(&p, xstrfmt("%s/%04zu-%s.patch", dir, k, slug), &text);
		free(slug);
	}
	error = plan_commit(w, &p, err);
	w->where = xstrdup(dir);
	plan_release(&p);
	buf_release(&text);
	buf_release(&cur);
	buf_release(&missing);
	return error;
}

/* ---- git: a branch whose commits say where they come from -------------- */

static int person_of(struct tree_person *who, const char *name,
		     const char *email, const char *date)
{
	long long epoch = 0;
	int tz = 0;

	memset(who, 0, sizeof(*who));
	who->name = name;
	who->email = email;
	if (date && mail_parse_date(date, &epoch, &tz)) {
		who->when = epoch;
		who->tz = tz;
	}
	return 0;
}

/*
 * The changes commit makes to parent in src, as changes to tree in dst:
 * every path must hold in dst what it holds in src's parent, or the
 * result would not be the carried backport.
 */
static int copy_changes(struct tree_oid *tree, struct tree_repo *dst,
			struct tree_repo *src, const struct export_patch *p,
			const char *where, struct err *err)
{
	struct tree_oid ptree, ctree;
	struct tree_change *ch = NULL;
	struct buf data = BUF_INIT;
	char **paths = NULL;
	size_t nr = 0, n = 0;
	int error;

	if ((error = tree_changed_paths(&paths, &nr, src, &p->parent,
					&p->commit, err)) < 0 ||
	    (error = tree_commit_tree(&ptree, src, &p->parent, err)) < 0 ||
	    (error = tree_commit_tree(&ctree, src, &p->commit, err)) < 0)
		goto out;
	ch = xcalloc(nr + 1, sizeof(*ch));
	for (size_t i = 0; i < nr; i++) {
		char before[41], mine[41];
		bool in_before, in_mine, exists;
		unsigned mode = 0;

		if ((error = tree_file_id(before, &in_before, src, &ptree,
					  paths[i], err)) < 0 ||
		    (error = tree_file_id(mine, &in_mine, dst, tree, paths[i],
					  err)) < 0)
			goto out;
		if (in_before != in_mine || strcmp(before, mine)) {
			error = err_set(
				err, ERR_CONFLICT,
				"%s: '%s' differs between %s's tree and "
				"%s",
				p->file, paths[i], "the target", where);
			err_hint(err, "--onto must name a commit with the "
				      "target's tree for the files the series "
				      "touches");
			goto out;
		}
		if ((error = tree_read_file(&data, &exists, &mode, src, &ctree,
					    paths[i], err)) < 0)
			goto out;
		ch[n].path = paths[i];
		if (!exists) {
			ch[n++].remove = true;
			continue;
		}
		if ((error = tree_write_blob(&ch[n].blob, dst, data.ptr,
					     data.len, err)) < 0)
			goto out;
		ch[n++].mode = mode;
	}
	error = tree_update(tree, dst, tree, ch, n, err);
out:
	free(ch);
	free_list(paths, nr);
	buf_release(&data);
	return error;
}

static int write_git(struct export_written *w, const struct export_series *s,
		     struct tree_repo *repo, const struct export_opts *o,
		     struct err *err)
{
	struct tree_repo *dst = repo;
	struct tree_oid base, tree, head, old;
	struct tree_person committer = { s->backporter_name,
					 s->backporter_email, s->now, 0 };
	struct buf msg = BUF_INIT, ref = BUF_INIT;
	const char *where = o->git_dir ? o->onto : "the target";
	int error = 0;

	if (o->branch)
		buf_addf(&ref, "%s%s",
			 starts_with(o->branch, "refs/heads/") ? ""
							       : "refs/heads/",
			 o->branch);
	else {
		char *b = carry_branch_name(s->name, s->version, s->target);
		buf_addf(&ref, "refs/heads/kcarry-export/%s",
			 b + strlen("refs/heads/kcarry/"));
		free(b);
	}
	if (o->git_dir) {
		if (!o->onto)
			return err_set(err, ERR_USAGE,
				       "--git-dir needs --onto REV: the commit "
				       "of that repository to build on");
		if ((error = tree_open(&dst, o->git_dir, err)) < 0)
			return error;
		if ((error = tree_resolve(&base, dst, o->onto, err)) < 0)
			goto out;
	} else {
		base = s->base;
	}
	if (tree_get_ref(&old, dst, ref.ptr, err) == 0 &&
	    !starts_with(ref.ptr, "refs/heads/kcarry-export/")) {
		error = err_set(err, ERR_EXISTS,
				"branch '%s' exists; kcarry export moves only "
				"its own (kcarry-export/...)",
				ref.ptr + (starts_with(ref.ptr, "refs/heads/")
						   ? 11
						   : 0));
		err_hint(err, "delete it first, or name another --branch");
		goto out;
	}
	err_release(err);
	err_init(err);
	head = base;
	if ((error = tree_commit_tree(&tree, dst, &base, err)) < 0)
		goto out;
	for (size_t i = 0; i < s->nr; i++) {
		const struct export_patch *p = &s->patches[i];
		struct tree_person author;

		if (!p->included)
			continue;
		if ((error = copy_changes(&tree, dst, repo, p, where, err)) < 0)
			goto out;
		buf_reset(&msg);
		export_git_message(&msg, s, p, &o->text);
		person_of(&author, p->author_name, p->author_email, p->date);
		if ((error = tree_commit(&head, dst, &tree, &head, &author,
					 &committer, msg.ptr, err)) < 0)
			goto out;
	}
	if (s->nr_included < s->nr - s->nr_already) {
		/* what is missing, where the branch ends */
		buf_reset(&msg);
		buf_addf(&msg,
			 "kcarry: %s@%s on %s is not complete\n\n"
			 "Not in this backport:\n",
			 s->name, s->version, s->target);
		for (size_t i = 0; i < s->nr; i++)
			if (!s->patches[i].included)
				buf_addf(&msg, "  %s: %s\n", s->patches[i].file,
					 s->patches[i].why);
		if ((error = tree_commit(&head, dst, &tree, &head, &committer,
					 &committer, msg.ptr, err)) < 0)
			goto out;
	}
	{
		char *log = xstrfmt("kcarry export %s@%s %s", s->name,
				    s->version, s->target);
		error = tree_set_ref(dst, ref.ptr, &head, log, err);
		free(log);
	}
	if (!error) {
		written_add(w, "%s",
			    ref.ptr + (starts_with(ref.ptr, "refs/heads/")
					       ? 11
					       : 0));
		w->where = xstrdup(tree_path(dst));
	}
out:
	if (dst != repo)
		tree_close(dst);
	buf_release(&msg);
	buf_release(&ref);
	return error;
}

/* The first control character of s (a line break: a header of its own). */
static const char *control_char(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return s;
	return NULL;
}

static int check_header_value(const char *opt, const char *v, struct err *err)
{
	const char *c = v ? control_char(v) : NULL;

	if (!c)
		return 0;
	return err_set(err, ERR_USAGE,
		       "%s holds a %s: a mail header value is one line of "
		       "text",
		       opt,
		       *c == '\n'   ? "line break"
		       : *c == '\r' ? "carriage return"
				    : "control character");
}

static bool subdir_char(char c)
{
	return isalnum((unsigned char)c) || strchr("._+~-", c);
}

static int check_subdir(const char *d, struct err *err)
{
	const char *c = d;

	if (!safe_relative(d))
		goto bad;
	for (; *c; c++) {
		bool start = c == d || c[-1] == '/';
		if (*c == '/')
			continue;
		if (!subdir_char(*c) || (start && *c == '.'))
			goto bad;
	}
	if (!strcmp(d, "series") || starts_with(d, "series/"))
		return err_set(err, ERR_USAGE,
			       "--subdir 'series' is quilt's series file");
	return 0;
bad:
	return err_set(err, ERR_USAGE,
		       "--subdir must be a relative folder of names made of "
		       "letters, digits and ._+~- (none starting with '.')");
}

int export_check_opts(const struct export_opts *o, struct err *err)
{
	const struct export_text_opts *t = &o->text;
	int error = 0;

	for (size_t i = 0; i < t->nr_to && !error; i++)
		error = check_header_value("--to", t->to[i], err);
	for (size_t i = 0; i < t->nr_cc && !error; i++)
		error = check_header_value("--cc", t->cc[i], err);
	if (!error)
		error = check_header_value("--in-reply-to", t->in_reply_to, err);
	if (!error)
		error = check_header_value("--subject-prefix",
					   t->subject_prefix, err);
	if (!error && o->subdir)
		error = check_subdir(o->subdir, err);
	if (!error && o->branch) {
		const char *b = o->branch;
		if (starts_with(b, "refs/heads/"))
			b += strlen("refs/heads/");
		/* "@" alone is HEAD to git (check-ref-format rule 9);
		 * libgit2 takes it */
		if (starts_with(b, "refs/") || !strcmp(b, "@") ||
		    !tree_branch_name_valid(b))
			error = err_set(err, ERR_USAGE,
					"--branch '%s' is no valid local "
					"branch name",
					o->branch);
	}
	return error;
}

/*
 * The folder an export of files writes in, locked for the export: two
 * exports into one package from two workspaces (no workspace or
 * repository lock in common) each read debian/patches/series and wrote
 * it back, and one block was lost.  --into's folder (a spec's folder),
 * else -o's; the nearest that exists.  An flock on the folder itself:
 * nothing is added to a user's package, and a killed export holds
 * nothing.
 */
static int lock_folder(int *fd, const struct export_opts *o, struct err *err)
{
	char *dir = xstrdup(o->into ? o->into : o->out ? o->out : ".");
	int error = 0;

	while (!fs_is_dir(dir) && strcmp(dir, ".") && strcmp(dir, "/")) {
		char *up = dir_of(dir);
		free(dir);
		dir = up;
	}
	*fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*fd < 0)
		error = err_set(err, ERR_IO, "cannot open '%s': %s", dir,
				strerror(errno));
	else
		while (flock(*fd, LOCK_EX) < 0)
			if (errno != EINTR) {
				error = err_set(err, ERR_IO,
						"cannot lock '%s': %s", dir,
						strerror(errno));
				break;
			}
	free(dir);
	return error;
}

static int write_files(struct export_written *w,
		       const struct export_series *s,
		       const struct export_opts *o, struct err *err)
{
	switch (o->format) {
	case EXPORT_DEBIAN:
		return write_debian(w, s, o, err);
	case EXPORT_RPM:
		return write_rpm(w, s, o, err);
	case EXPORT_SUSE:
		return write_suse(w, s, o, err);
	case EXPORT_QUILT:
		return write_quilt(w, s, o, err);
	case EXPORT_MBOX:
		return write_mbox(w, s, o, err);
	case EXPORT_GIT:
		break;
	}
	BUG("unknown export format %d", (int)o->format);
}

int export_write(struct export_written *w, const struct export_series *s,
		 struct tree_repo *repo, const struct export_opts *o,
		 struct err *err)
{
	int fd = -1, error;

	memset(w, 0, sizeof(*w));
	if (o->format == EXPORT_GIT)
		return write_git(w, s, repo, o, err);
	if ((error = lock_folder(&fd, o, err)) == 0)
		error = write_files(w, s, o, err);
	if (fd >= 0)
		close(fd); /* releases the flock */
	return error;
}
