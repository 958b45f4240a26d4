/*
 * thread: see thread.h.  Everything here reads messages mail.c has
 * parsed, and has mail.c parse a message another one embeds (a stable
 * report's commit, a format-patch attachment); nothing here reads a
 * container or decodes a message itself.
 */
#include "thread.h"

#include "cursor.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NONE SIZE_MAX

/* ---- small helpers ---------------------------------------------------- */

static struct span span_of(const char *p, size_t n)
{
	return (struct span){ p, n };
}

static bool is_wsp(int c)
{
	return c == ' ' || c == '\t';
}

static bool span_blank(struct span s)
{
	return !span_trim(s).len;
}

static struct span span_rtrim(struct span s)
{
	while (s.len && isspace((unsigned char)s.ptr[s.len - 1]))
		s.len--;
	return s;
}

static bool span_eq_ci(struct span s, const char *lit)
{
	return s.len == strlen(lit) && span_starts_with_ci(s, lit);
}

static void ensure_final_lf(struct buf *b)
{
	if (b->len && b->ptr[b->len - 1] != '\n')
		buf_addc(b, '\n');
}

struct strlist {
	char **v;
	size_t nr, alloc;
};

static bool strlist_has(const struct strlist *sl, const char *s)
{
	for (size_t i = 0; i < sl->nr; i++)
		if (!strcasecmp(sl->v[i], s))
			return true;
	return false;
}

/* Takes ownership of s. */
static void strlist_add_unique(struct strlist *sl, char *s)
{
	if (strlist_has(sl, s)) {
		free(s);
		return;
	}
	ALLOC_GROW(sl->v, sl->nr + 1, sl->alloc);
	sl->v[sl->nr++] = s;
}

static void strlist_release(struct strlist *sl)
{
	for (size_t i = 0; i < sl->nr; i++)
		free(sl->v[i]);
	free(sl->v);
	memset(sl, 0, sizeof(*sl));
}

/* ---- subjects ------------------------------------------------------------ */

/* Length of a reply prefix ("Re:", "AW :", "Re[2]:", "回复："), or 0. */
static size_t reply_prefix(const char *s)
{
	/* "Fw:"/"Tr:" are left out: too close to real subsystem prefixes */
	static const char *const ascii[] = { "antw", "fwd", "re",  "aw",
					     "sv",   "vs",  "wg",  "odp",
					     "ynt",  "rif" };
	static const char *const utf8[] = {
		"回复", "答复", "回覆", "答覆", "转发", "轉寄",
		"轉發", "회신", "전달", "返信", "転送",
	};
	const char *p;
	size_t n = 0;

	for (size_t i = 0; i < sizeof(ascii) / sizeof(*ascii) && !n; i++)
		if (!strncasecmp(s, ascii[i], strlen(ascii[i])))
			n = strlen(ascii[i]);
	for (size_t i = 0; i < sizeof(utf8) / sizeof(*utf8) && !n; i++)
		if (starts_with(s, utf8[i]))
			n = strlen(utf8[i]);
	if (!n)
		return 0;
	p = s + n;
	if (*p == '[' || *p == '(') {
		const char *q = p + 1;
		while (isdigit((unsigned char)*q))
			q++;
		if (q > p + 1 && *q == (*p == '[' ? ']' : ')'))
			p = q + 1;
	}
	while (is_wsp(*p))
		p++;
	if (*p == ':')
		return (size_t)(p + 1 - s);
	if (starts_with(p, "\xEF\xBC\x9A")) /* fullwidth colon */
		return (size_t)(p + 3 - s);
	return 0;
}

static bool parse_version(const char *t, size_t n, unsigned *v)
{
	unsigned long x = 0;

	if (n < 2 || n > 7 || (t[0] != 'v' && t[0] != 'V'))
		return false;
	for (size_t i = 1; i < n; i++) {
		if (!isdigit((unsigned char)t[i]))
			return false;
		x = x * 10 + (unsigned long)(t[i] - '0');
	}
	if (!x)
		return false;
	*v = (unsigned)x;
	return true;
}

static bool parse_number(const char *t, size_t n, unsigned *v)
{
	unsigned long x = 0;

	if (!n || n > 6)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)t[i]))
			return false;
		x = x * 10 + (unsigned long)(t[i] - '0');
	}
	*v = (unsigned)x;
	return true;
}

static void tag_token(struct subject_info *si, const char *t, size_t n)
{
	const char *slash;
	unsigned a, b;

	if (n >= 5 && !strncasecmp(t, "PATCH", 5)) {
		si->has_patch_tag = true;
		t += 5;
		n -= 5;
		if (n >= 3 && !strncasecmp(t, "SET", 3)) {
			t += 3;
			n -= 3;
		} else if (n >= 2 && !strncasecmp(t, "ES", 2)) {
			t += 2;
			n -= 2;
		}
		while (n && (*t == '-' || *t == '_')) {
			t++;
			n--;
		}
		parse_version(t, n, &si->version);
	} else if (n >= 3 && !strncasecmp(t, "RFC", 3)) {
		si->rfc = true;
		t += 3;
		n -= 3;
		while (n && (*t == '-' || *t == '_')) {
			t++;
			n--;
		}
		parse_version(t, n, &si->version);
	} else if (n == 6 && !strncasecmp(t, "RESEND", 6)) {
		si->resend = true;
	} else if (parse_version(t, n, &a)) {
		si->version = a;
	} else if ((slash = memchr(t, '/', n)) && !si->total &&
		   parse_number(t, (size_t)(slash - t), &a) &&
		   parse_number(slash + 1, n - (size_t)(slash + 1 - t), &b) &&
		   b) {
		si->index = a;
		si->total = b;
	}
}

void subject_parse(struct subject_info *si, const char *subject)
{
	const char *p = subject ? subject : "";

	memset(si, 0, sizeof(*si));
	si->version = 1;
	for (;;) {
		size_t k;

		while (isspace((unsigned char)*p))
			p++;
		/* a reply prefix after the [PATCH] tag is part of the title */
		if (!si->has_patch_tag && (k = reply_prefix(p))) {
			si->is_reply = true;
			p += k;
			continue;
		}
		if (*p == '[') {
			const char *e = strchr(p, ']');
			const char *q = p + 1;

			if (!e)
				break;
			while (q < e) {
				const char *st;
				while (q < e && (isspace((unsigned char)*q) ||
						 *q == ','))
					q++;
				st = q;
				while (q < e && !isspace((unsigned char)*q) &&
				       *q != ',')
					q++;
				if (q > st)
					tag_token(si, st, (size_t)(q - st));
			}
			p = e + 1;
			continue;
		}
		break;
	}
	si->title = mail_folded_dup(p, strlen(p));
}

void subject_info_release(struct subject_info *si)
{
	free(si->title);
	si->title = NULL;
}

/* ---- patch text ------------------------------------------------------- */

/* "From:", "Subject:", "Date:" lines opening a body, as git am reads them. */
struct inbody {
	struct buf from, subject, date;
	bool has_from, has_subject, has_date;
};

static void inbody_release(struct inbody *ib)
{
	buf_release(&ib->from);
	buf_release(&ib->subject);
	buf_release(&ib->date);
}

/* Returns where the message proper starts. */
static size_t parse_inbody(struct inbody *ib, const char *s, size_t n)
{
	struct buf *cur = NULL;
	struct cursor c;
	struct span l;
	bool any = false;
	size_t off;

	memset(ib, 0, sizeof(*ib));
	buf_init(&ib->from, 0);
	buf_init(&ib->subject, 0);
	buf_init(&ib->date, 0);
	cursor_init(&c, s, n);
	while (cursor_peek(&c, &l) && span_blank(l))
		cursor_next(&c, &l, NULL);
	off = (size_t)(c.pos - s);
	while (cursor_peek(&c, &l)) {
		struct span t = span_chomp_cr(l);
		size_t skip;

		if (cur && t.len && is_wsp(t.ptr[0])) {
			buf_addc(cur, ' ');
			buf_addspan(cur, span_trim(t));
			cursor_next(&c, &l, NULL);
			continue;
		}
		if (span_starts_with_ci(t, "From:")) {
			cur = &ib->from;
			ib->has_from = true;
			skip = 5;
		} else if (span_starts_with_ci(t, "Subject:")) {
			cur = &ib->subject;
			ib->has_subject = true;
			skip = 8;
		} else if (span_starts_with_ci(t, "Date:")) {
			cur = &ib->date;
			ib->has_date = true;
			skip = 5;
		} else {
			break;
		}
		any = true;
		buf_reset(cur);
		buf_addspan(cur,
			    span_trim(span_of(t.ptr + skip, t.len - skip)));
		cursor_next(&c, &l, NULL);
	}
	if (!any)
		return off;
	if (cursor_peek(&c, &l) && span_blank(l))
		cursor_next(&c, &l, NULL);
	return (size_t)(c.pos - s);
}

void mail_author(const struct mail *m, char **name, char **email)
{
	struct inbody ib;

	parse_inbody(&ib, m->body.ptr, m->body.len);
	if (ib.has_from && ib.from.len)
		mail_parse_address(ib.from.ptr, name, email);
	else {
		*name = m->from_name ? xstrdup(m->from_name) : NULL;
		*email = m->from_email ? xstrdup(m->from_email) : NULL;
	}
	inbody_release(&ib);
}

/* Split a body at its "---" line, or where the diff starts. */
static void split_body(struct span body, struct span *msg, struct span *rest)
{
	const char *end = body.ptr + body.len;
	struct cursor c;
	struct span l;

	cursor_init(&c, body.ptr, body.len);
	while (cursor_peek(&c, &l)) {
		if (span_eq(span_rtrim(l), "---")) {
			*msg = span_of(body.ptr, (size_t)(l.ptr - body.ptr));
			cursor_next(&c, &l, NULL);
			*rest = cursor_rest(&c);
			return;
		}
		if ((*l.ptr == 'd' || *l.ptr == '-') &&
		    mail_diff_starts(l.ptr, end)) {
			*msg = span_of(body.ptr, (size_t)(l.ptr - body.ptr));
			*rest = span_of(l.ptr, (size_t)(end - l.ptr));
			return;
		}
		cursor_next(&c, &l, NULL);
	}
	*msg = body;
	*rest = span_of(end, 0);
}

static struct span trim_blank_lines(struct span s)
{
	while (s.len) {
		const char *nl = memchr(s.ptr, '\n', s.len);
		size_t n = nl ? (size_t)(nl - s.ptr) + 1 : s.len;
		if (!span_blank(span_of(s.ptr, n)))
			break;
		s.ptr += n;
		s.len -= n;
	}
	return span_rtrim(s);
}

static struct span last_line(struct span s)
{
	const char *nl = s.len ? memrchr(s.ptr, '\n', s.len) : NULL;
	return nl ? span_of(nl + 1, (size_t)(s.ptr + s.len - nl - 1)) : s;
}

/* "Key: value" as trailers are written: a token, a colon, a space. */
static bool trailer_like(struct span l)
{
	size_t i = 0;

	while (i < l.len &&
	       (isalnum((unsigned char)l.ptr[i]) || l.ptr[i] == '-'))
		i++;
	return i && i + 1 < l.len && l.ptr[i] == ':' && l.ptr[i + 1] == ' ';
}

/*
 * A trailer that replies give and b4 collects, normalized: canonical key,
 * value cut after the address ("... <a@b> albeit one nit" -> "... <a@b>").
 * NULL for any other line.
 */
static char *reply_trailer(struct span l)
{
	static const char *const keys[] = {
		"Acked-by",		  "Reviewed-by",
		"Tested-by",		  "Reported-by",
		"Suggested-by",		  "Reviewed-and-tested-by",
		"Tested-and-reviewed-by", "Reported-and-tested-by",
		"Acked-and-tested-by",	  "Acked-and-reviewed-by",
	};
	const char *colon, *lt, *gt;
	struct span key, val;
	struct buf b = BUF_INIT;
	size_t k;

	l = span_rtrim(span_chomp_cr(l));
	colon = memchr(l.ptr, ':', l.len);
	if (!colon)
		return NULL;
	key = span_of(l.ptr, (size_t)(colon - l.ptr));
	for (k = 0; k < sizeof(keys) / sizeof(*keys); k++)
		if (span_eq_ci(key, keys[k]))
			break;
	if (k == sizeof(keys) / sizeof(*keys))
		return NULL;
	val = span_trim(span_of(colon + 1, l.len - key.len - 1));
	if (!val.len || !memchr(val.ptr, '@', val.len))
		return NULL;
	lt = memchr(val.ptr, '<', val.len);
	if (lt && (gt = memchr(lt, '>', val.len - (size_t)(lt - val.ptr)))) {
		/* nothing may follow the address but a "# note" (as b4:
		 * "<a@b> albeit one nit" is no trailer it can vouch for) */
		struct span rest = span_trim(span_of(
			gt + 1, val.len - (size_t)(gt + 1 - val.ptr)));
		if (rest.len && rest.ptr[0] != '#')
			return NULL;
		val.len = (size_t)(gt + 1 - val.ptr);
	} else if (lt || memchr(val.ptr, ' ', val.len))
		return NULL;
	buf_adds(&b, keys[k]);
	buf_adds(&b, ": ");
	mail_add_folded(&b, val.ptr, val.len);
	return buf_detach(&b, NULL);
}

static bool message_has_trailer(struct span msg, const char *tr)
{
	struct cursor c;
	struct span l;
	bool found = false;

	cursor_init(&c, msg.ptr, msg.len);
	while (!found && cursor_next(&c, &l, NULL)) {
		char *t = reply_trailer(l);
		found = t && !strcasecmp(t, tr);
		free(t);
	}
	return found;
}

/* Unquoted trailer lines of a reply, up to its signature. */
/* a@b and a+x@b, a@b.c and a@c: one person (b4's fuzzy match). */
static bool same_address(const char *a, const char *b)
{
	const char *aat = strrchr(a, '@'), *bat = strrchr(b, '@');
	size_t al, bl;
	const char *ad, *bd, *p;
	int dots_a = 0, dots_b = 0;

	if (!strcasecmp(a, b))
		return true;
	if (!aat || !bat)
		return false;
	/* the local part without a +extension */
	p = memchr(a, '+', (size_t)(aat - a));
	al = p ? (size_t)(p - a) : (size_t)(aat - a);
	p = memchr(b, '+', (size_t)(bat - b));
	bl = p ? (size_t)(p - b) : (size_t)(bat - b);
	if (al != bl || strncasecmp(a, b, al))
		return false;
	ad = aat + 1;
	bd = bat + 1;
	if (!strcasecmp(ad, bd))
		return true;
	for (p = ad; *p; p++)
		dots_a += *p == '.';
	for (p = bd; *p; p++)
		dots_b += *p == '.';
	if (dots_a - dots_b == 1 || dots_b - dots_a == 1) {
		const char *lng = dots_a > dots_b ? ad : bd;
		const char *sht = dots_a > dots_b ? bd : ad;
		size_t ll = strlen(lng), sl = strlen(sht);
		return ll > sl + 1 && lng[ll - sl - 1] == '.' &&
		       !strcasecmp(lng + ll - sl, sht);
	}
	return false;
}

/*
 * Whether the sender of a reply may give trailer tr: a trailer names its
 * giver, who must be the sender (by address, or by name), as b4 checks
 * (a reply cannot add someone else's Reviewed-by).
 */
static bool trailer_from_sender(const char *tr, const struct mail *m)
{
	const char *v = strchr(tr, ':');
	char *name = NULL, *email = NULL;
	bool ok = false;

	if (!v)
		return false;
	mail_parse_address(v + 1, &name, &email);
	if (email && m->from_email && same_address(email, m->from_email))
		ok = true;
	else if (name && m->from_name && !strcasecmp(name, m->from_name))
		ok = true;
	free(name);
	free(email);
	return ok;
}

/* Trailers of a reply; those its sender cannot give go to skipped. */
static void scan_trailers(struct strlist *out, struct strlist *skipped,
			  const struct mail *m)
{
	struct cursor c;
	struct span l;

	cursor_init(&c, m->body.ptr, m->body.len);
	while (cursor_next(&c, &l, NULL)) {
		struct span t = span_chomp_cr(l);
		char *tr;

		if (span_eq(t, "-- "))
			break;
		if (!t.len || t.ptr[0] == '>')
			continue;
		if ((tr = reply_trailer(t)) && trailer_from_sender(tr, m)) {
			strlist_add_unique(out, tr);
			continue;
		}
		if (!tr && !is_wsp(t.ptr[0]) && trailer_like(t) &&
		    memchr(t.ptr, '@', t.len)) {
			/* a trailer b4 would not take either: said so */
			struct span k = span_of(t.ptr, (size_t)((const char *)
				memchr(t.ptr, ':', t.len) - t.ptr));
			if (k.len > 3 &&
			    !strncasecmp(k.ptr + k.len - 3, "-by", 3))
				tr = span_dup(t);
		}
		if (tr)
			strlist_add_unique(skipped,
					   xstrfmt("%s (reply from %s)",
						   tr, m->from_email
							   ? m->from_email
							   : "?"));
		free(tr);
	}
}

static char *find_base_commit(const char *s, size_t n)
{
	struct cursor c;
	struct span l;

	cursor_init(&c, s, n);
	while (cursor_next(&c, &l, NULL)) {
		struct span v;
		size_t i;

		if (!span_starts_with(l, "base-commit:"))
			continue;
		v = span_trim(span_of(l.ptr + 12, l.len - 12));
		for (i = 0; i < v.len && isxdigit((unsigned char)v.ptr[i]); i++)
			;
		if (i >= 7 && i <= 64 && i == v.len)
			return span_dup(v);
	}
	return NULL;
}

/* ---- threads and series ------------------------------------------------- */

enum kind { K_OTHER, K_REPLY, K_PATCH, K_COVER };

struct node {
	struct subject_info si;
	enum kind kind;
	size_t parent, first_child, last_child, next_sibling;
};

/* A patch found in a message, before it is put into a series. */
struct cand {
	size_t msg;
	struct mail *inner; /* embedded commit or format-patch attachment */
	struct subject_info si;
	struct buf diffs; /* attached diffs that follow the body */
	size_t cover;
	struct strlist trailers;
	bool dropped;
	/* for trailers across versions: the version, the trailers its own
	 * replies give, and patchwork's normalised text of its diff */
	unsigned version;
	struct strlist own, skipped;
	struct buf pw;
};

struct finder {
	const struct mail_list *l;
	struct node *nodes;
	struct cand *cands;
	size_t nr_cands, alloc_cands;
};

struct idref {
	const char *id;
	size_t i;
};

static int cmp_idref(const void *a, const void *b)
{
	const struct idref *x = a, *y = b;
	int r = strcmp(x->id, y->id);

	if (r)
		return r;
	return x->i < y->i ? -1 : x->i > y->i;
}

static size_t lookup_id(const struct idref *ids, size_t nr, const char *id)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(ids[mid].id, id) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < nr && !strcmp(ids[lo].id, id) ? ids[lo].i : NONE;
}

/* Parent by In-Reply-To, else by the newest known References entry. */
static void link_threads(struct finder *f)
{
	const struct mail_list *l = f->l;
	struct idref *ids = xcalloc(l->nr ? l->nr : 1, sizeof(*ids));
	size_t nr_ids = 0;

	for (size_t i = 0; i < l->nr; i++) {
		struct node *nd = &f->nodes[i];
		nd->parent = nd->first_child = nd->last_child = NONE;
		nd->next_sibling = NONE;
		if (l->items[i].message_id) {
			ids[nr_ids].id = l->items[i].message_id;
			ids[nr_ids++].i = i;
		}
	}
	if (nr_ids)
		qsort(ids, nr_ids, sizeof(*ids), cmp_idref);
	for (size_t i = 0; i < l->nr; i++) {
		const struct mail *m = &l->items[i];
		size_t p = NONE, steps = 0;

		if (m->in_reply_to)
			p = lookup_id(ids, nr_ids, m->in_reply_to);
		for (size_t k = m->nr_references; p == NONE && k--;)
			p = lookup_id(ids, nr_ids, m->references[k]);
		/* links that would close a cycle are dropped */
		for (size_t a = p; a != NONE && steps <= l->nr;
		     a = f->nodes[a].parent, steps++)
			if (a == i)
				p = NONE;
		if (p == NONE)
			continue;
		f->nodes[i].parent = p;
		if (f->nodes[p].last_child == NONE)
			f->nodes[p].first_child = i;
		else
			f->nodes[f->nodes[p].last_child].next_sibling = i;
		f->nodes[p].last_child = i;
	}
	free(ids);
}

/* The upstream commit in a stable "FAILED: ... failed to apply" report. */
static bool failed_report(const struct mail *m, struct span *embedded)
{
	struct cursor c;
	struct span l;
	char sha[41];

	cursor_init(&c, m->body.ptr, m->body.len);
	while (cursor_next(&c, &l, NULL)) {
		if (span_starts_with(l, "-----") &&
		    memmem(l.ptr, l.len, "original commit in Linus's tree", 31))
			break;
	}
	while (cursor_peek(&c, &l) && span_blank(l))
		cursor_next(&c, &l, NULL);
	if (!cursor_peek(&c, &l))
		return false;
	while (l.len && l.ptr[0] == '>') {
		l.ptr++;
		l.len--;
	}
	if (!mail_commit_line(l, sha))
		return false;
	*embedded = span_of(l.ptr, (size_t)(m->body.ptr + m->body.len - l.ptr));
	return true;
}

static bool is_format_patch(const struct buf *b)
{
	struct span l = span_of(b->ptr, strcspn(b->ptr, "\n"));
	size_t name_len, colon;
	char sha[41];

	if (mail_commit_line(l, sha))
		return true;
	l = span_chomp_cr(l);
	if (!mail_header_line(l, &name_len, &colon))
		return false;
	l.len = name_len;
	return span_eq_ci(l, "From") || span_eq_ci(l, "Subject") ||
	       span_eq_ci(l, "Date");
}

static struct mail *parse_inner(const struct mail *m, const char *data,
				size_t len)
{
	struct mail *in = xmalloc(sizeof(*in));
	struct err e = ERR_INIT;

	mail_init(in);
	if (mail_parse(in, data, len, m->source ? m->source : "", &e) < 0) {
		mail_release(in);
		free(in);
		in = NULL;
	}
	err_release(&e);
	return in;
}

static struct cand *add_cand(struct finder *f, size_t msg, struct mail *inner)
{
	struct cand *cd;

	ALLOC_GROW(f->cands, f->nr_cands + 1, f->alloc_cands);
	cd = &f->cands[f->nr_cands++];
	memset(cd, 0, sizeof(*cd));
	cd->msg = msg;
	cd->inner = inner;
	cd->cover = NONE;
	buf_init(&cd->diffs, 0);
	buf_init(&cd->pw, 0);
	return cd;
}

/*
 * The subject a patch is known by: its own, with an in-body "Subject:"
 * giving the title; an embedded patch without numbers takes the
 * mail's version and numbers.
 */
static void cand_subject(struct cand *cd, const struct mail *src,
			 const struct subject_info *outer)
{
	struct inbody ib;

	subject_parse(&cd->si, src->subject);
	parse_inbody(&ib, src->body.ptr, src->body.len);
	if (ib.has_subject) {
		struct subject_info t;
		subject_parse(&t, ib.subject.ptr);
		free(cd->si.title);
		cd->si.title = t.title;
	}
	inbody_release(&ib);
	if (!outer)
		return;
	if (!cd->si.total && outer->total) {
		cd->si.index = outer->index;
		cd->si.total = outer->total;
	}
	if (cd->si.version == 1)
		cd->si.version = outer->version;
	cd->si.rfc |= outer->rfc;
	cd->si.resend |= outer->resend;
}

static void classify(struct finder *f, size_t i)
{
	const struct mail *m = &f->l->items[i];
	struct node *nd = &f->nodes[i];
	struct span emb;
	size_t nr_fp = 0, before = f->nr_cands;

	subject_parse(&nd->si, m->subject);
	nd->kind = K_OTHER;
	if (nd->si.is_reply) {
		nd->kind = K_REPLY;
		return;
	}
	if (failed_report(m, &emb)) {
		struct mail *in = parse_inner(m, emb.ptr, emb.len);
		if (in)
			cand_subject(add_cand(f, i, in), in, NULL);
	} else if (!nd->si.index && nd->si.total) {
		nd->kind = K_COVER;
		return;
	} else {
		for (size_t k = 0; k < m->nr_attachments; k++)
			nr_fp += is_format_patch(&m->attachments[k]);
		for (size_t k = 0; k < m->nr_attachments && nr_fp; k++) {
			struct mail *in;
			if (!is_format_patch(&m->attachments[k]))
				continue;
			in = parse_inner(m, m->attachments[k].ptr,
					 m->attachments[k].len);
			if (in)
				cand_subject(add_cand(f, i, in), in,
					     nr_fp == 1 ? &nd->si : NULL);
		}
		if (!nr_fp && (mail_find_diff(m->body.ptr, m->body.len, NULL) ||
			       m->nr_attachments)) {
			struct cand *cd = add_cand(f, i, NULL);
			cand_subject(cd, m, NULL);
			cd->si.index = nd->si.index;
			cd->si.total = nd->si.total;
			for (size_t k = 0;
			     k < m->nr_attachments &&
			     !mail_find_diff(m->body.ptr, m->body.len, NULL);
			     k++)
				buf_add(&cd->diffs, m->attachments[k].ptr,
					m->attachments[k].len);
		}
	}
	if (f->nr_cands > before)
		nd->kind = K_PATCH;
}

/*
 * The cover letter of a patch: above the patch (and any patches it is
 * threaded under), a [PATCH 0/N] of the same version, or for a numbered
 * patch a plain message without a diff.
 */
static void find_cover(struct finder *f, struct cand *cd)
{
	size_t a = f->nodes[cd->msg].parent, steps = 0;

	while (a != NONE && f->nodes[a].kind == K_PATCH && steps++ < f->l->nr)
		a = f->nodes[a].parent;
	if (a == NONE || f->nodes[a].si.version != cd->si.version)
		return;
	if (f->nodes[a].kind == K_COVER) {
		cd->cover = a;
	} else if (f->nodes[a].kind == K_OTHER && cd->si.total) {
		f->nodes[a].kind = K_COVER;
		cd->cover = a;
	}
}

/*
 * Patches not threaded under a cover (format-patch without --thread, a
 * mailer that dropped In-Reply-To) join the one [PATCH vV 0/N] of their
 * version and N, when there is exactly one.
 */
static void find_unthreaded_covers(struct finder *f)
{
	size_t *covers = NULL, nr = 0, alloc = 0;

	for (size_t j = 0; j < f->l->nr; j++) {
		if (f->nodes[j].kind != K_COVER || !f->nodes[j].si.total)
			continue;
		ALLOC_GROW(covers, nr + 1, alloc);
		covers[nr++] = j;
	}
	for (size_t i = 0; i < f->nr_cands && nr; i++) {
		struct cand *cd = &f->cands[i];
		size_t found = NONE, nr_found = 0;

		if (cd->cover != NONE || !cd->si.total)
			continue;
		for (size_t k = 0; k < nr; k++) {
			const struct node *nd = &f->nodes[covers[k]];
			if (nd->si.version == cd->si.version &&
			    nd->si.total == cd->si.total) {
				found = covers[k];
				nr_found++;
			}
		}
		if (nr_found == 1)
			cd->cover = found;
	}
	free(covers);
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

/* Replies under root, in message order, not entering other patches. */
static void gather_trailers(struct strlist *out, struct strlist *skipped,
			    const struct finder *f, size_t root)
{
	size_t *stack = NULL, *seen = NULL;
	size_t sp = 0, alloc = 0, nr_seen = 0, alloc_seen = 0;

	for (size_t c = f->nodes[root].first_child; c != NONE;
	     c = f->nodes[c].next_sibling) {
		ALLOC_GROW(stack, sp + 1, alloc);
		stack[sp++] = c;
	}
	while (sp) {
		size_t i = stack[--sp];

		if (f->nodes[i].kind == K_PATCH || f->nodes[i].kind == K_COVER)
			continue;
		ALLOC_GROW(seen, nr_seen + 1, alloc_seen);
		seen[nr_seen++] = i;
		for (size_t c = f->nodes[i].first_child; c != NONE;
		     c = f->nodes[c].next_sibling) {
			ALLOC_GROW(stack, sp + 1, alloc);
			stack[sp++] = c;
		}
	}
	if (nr_seen)
		qsort(seen, nr_seen, sizeof(*seen), cmp_size);
	for (size_t k = 0; k < nr_seen; k++)
		scan_trailers(out, skipped, &f->l->items[seen[k]]);
	free(stack);
	free(seen);
}

static void add_author(struct buf *t, const char *name, const char *email)
{
	if (!name && !email)
		return;
	buf_adds(t, "From: ");
	if (name && strpbrk(name, ",;:\"\\<>@[]")) {
		buf_addc(t, '"');
		for (const char *p = name; *p; p++) {
			if (*p == '"' || *p == '\\')
				buf_addc(t, '\\');
			buf_addc(t, *p);
		}
		buf_addc(t, '"');
	} else if (name) {
		buf_adds(t, name);
	}
	if (email)
		buf_addf(t, "%s<%s>", name ? " " : "", email);
	buf_addc(t, '\n');
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void build_patch(struct mail_patch *p, const struct mail *outer,
			struct cand *cd)
{
	const struct mail *src = cd->inner ? cd->inner : outer;
	struct buf *t = &p->text;
	struct span body, msg, rest;
	struct inbody ib;
	size_t off, alloc = 0;

	memset(p, 0, sizeof(*p));
	buf_init(&p->text, 0);
	p->msg = outer;
	p->subj = cd->si;
	memset(&cd->si, 0, sizeof(cd->si));

	off = parse_inbody(&ib, src->body.ptr, src->body.len);
	if (ib.has_from)
		mail_parse_address(ib.from.ptr, &p->author_name,
				   &p->author_email);
	if (!p->author_name && !p->author_email) {
		const struct mail *a = src->from_name || src->from_email ?
					       src :
					       outer;
		p->author_name = dup_or_null(a->from_name);
		p->author_email = dup_or_null(a->from_email);
	}
	if (ib.has_date)
		p->date = xstrdup(ib.date.ptr);
	else
		p->date = dup_or_null(src->date ? src->date : outer->date);
	p->commit_id = dup_or_null(src->commit_id);

	body = span_of(src->body.ptr + off, src->body.len - off);
	split_body(body, &msg, &rest);
	msg = trim_blank_lines(msg);
	for (size_t i = 0; i < cd->trailers.nr; i++) {
		if (message_has_trailer(msg, cd->trailers.v[i]))
			continue;
		ALLOC_GROW(p->extra_trailers, p->nr_extra_trailers + 1, alloc);
		p->extra_trailers[p->nr_extra_trailers++] =
			xstrdup(cd->trailers.v[i]);
	}

	if (p->commit_id)
		buf_addf(t, "From %s Mon Sep 17 00:00:00 2001\n", p->commit_id);
	add_author(t, p->author_name, p->author_email);
	if (p->date)
		buf_addf(t, "Date: %s\n", p->date);
	buf_addf(t, "Subject: [PATCH] %s\n", p->subj.title);
	if (outer->message_id)
		buf_addf(t, "Message-ID: <%s>\n", outer->message_id);
	buf_addc(t, '\n');
	if (msg.len) {
		buf_addspan(t, msg);
		buf_addc(t, '\n');
	}
	if (p->nr_extra_trailers && msg.len && !trailer_like(last_line(msg)))
		buf_addc(t, '\n');
	for (size_t i = 0; i < p->nr_extra_trailers; i++)
		buf_addf(t, "%s\n", p->extra_trailers[i]);
	buf_adds(t, "---\n");
	buf_addspan(t, rest);
	if (cd->diffs.len) {
		/* diffstat from the text part, a blank line, the diff */
		ensure_final_lf(t);
		if (!span_blank(rest) && !ends_with(t->ptr, "\n\n"))
			buf_addc(t, '\n');
		buf_addspan(t, span_of(cd->diffs.ptr, cd->diffs.len));
	}
	inbody_release(&ib);
}

struct group {
	unsigned version;
	size_t cover;
	size_t *c;
	size_t nr, alloc;
};

static int cmp_group(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	if (x->version != y->version)
		return x->version < y->version ? -1 : 1;
	return x->c[0] < y->c[0] ? -1 : x->c[0] > y->c[0];
}

/* Patch order: by number, then as found; a re-sent number replaces. */
static void order_group(struct finder *f, struct group *g)
{
	for (size_t i = 1; i < g->nr; i++) {
		size_t v = g->c[i], j = i;
		while (j && f->cands[g->c[j - 1]].si.index >
				    f->cands[v].si.index) {
			g->c[j] = g->c[j - 1];
			j--;
		}
		g->c[j] = v;
	}
	for (size_t i = 0; i + 1 < g->nr; i++) {
		struct cand *a = &f->cands[g->c[i]];
		struct cand *b = &f->cands[g->c[i + 1]];
		if (a->si.index && a->si.index == b->si.index &&
		    a->msg != b->msg)
			a->dropped = true;
	}
}

static void add_msgid(struct mail_series *s, size_t *alloc, const char *id)
{
	if (!id)
		return;
	for (size_t i = 0; i < s->nr_msgids; i++)
		if (!strcmp(s->msgids[i], id))
			return;
	ALLOC_GROW(s->msgids, s->nr_msgids + 1, *alloc);
	s->msgids[s->nr_msgids++] = xstrdup(id);
}

/*
 * The text patchwork (and b4) hash a patch by: its lines that start with
 * '-', '+' or ' ', file names without their first component, hunk
 * headers without line numbers.  Equal texts: the same patch.
 */
static void patchwork_text(struct buf *out, struct span body)
{
	struct cursor c;
	struct span l;

	cursor_init(&c, body.ptr, body.len);
	while (cursor_next(&c, &l, NULL)) {
		unsigned long oc = 1, nc = 1;
		const char *p;

		if (!l.len)
			continue;
		if ((span_starts_with(l, "--- ") || span_starts_with(l, "+++ ")) &&
		    l.len > 4 && l.ptr[4] != ' ' && l.ptr[4] != '\t') {
			const char *name = l.ptr + 4, *end = name, *slash;
			while (end < l.ptr + l.len && *end != ' ' && *end != '\t')
				end++;
			slash = memchr(name, '/', (size_t)(end - name));
			buf_adds(out, l.ptr[0] == '-' ? "--- a/" : "+++ b/");
			if (slash)
				buf_add(out, slash + 1, (size_t)(end - slash - 1));
			buf_addc(out, '\n');
			continue;
		}
		if (span_starts_with(l, "@@ -") && l.len > 4 &&
		    isdigit((unsigned char)l.ptr[4])) {
			char *h = span_dup(l), *q;
			p = h + 4;
			strtoul(p, &q, 10);
			if (*q == ',')
				oc = strtoul(q + 1, &q, 10);
			if (q[0] == ' ' && q[1] == '+' &&
			    isdigit((unsigned char)q[2])) {
				strtoul(q + 2, &q, 10);
				if (*q == ',')
					nc = strtoul(q + 1, &q, 10);
				if (starts_with(q, " @@")) {
					buf_addf(out, "@@ -%lu +%lu @@\n", oc,
						 nc);
					free(h);
					continue;
				}
			}
			free(h);
		}
		if (l.ptr[0] == '-' || l.ptr[0] == '+' || l.ptr[0] == ' ') {
			buf_addspan(out, l);
			buf_addc(out, '\n');
		}
	}
}

/*
 * Before any series is emitted: each patch's own trailers from replies,
 * and what identifies its diff across versions.
 */
static void prepare_cands(struct finder *f, struct group *groups, size_t nr)
{
	/* patchwork's text carries trailers to the same patch of another
	 * version: with one version it would only double the memory */
	bool versions = nr > 1 && groups[0].version != groups[nr - 1].version;

	for (size_t k = 0; k < nr; k++)
		for (size_t i = 0; i < groups[k].nr; i++) {
			struct cand *cd = &f->cands[groups[k].c[i]];
			const struct mail *src =
				cd->inner ? cd->inner : &f->l->items[cd->msg];
			if (cd->dropped)
				continue;
			cd->version = groups[k].version;
			gather_trailers(&cd->own, &cd->skipped, f, cd->msg);
			if (versions)
				patchwork_text(&cd->pw, cd->diffs.len
				? (struct span){ cd->diffs.ptr, cd->diffs.len }
				: (struct span){ src->body.ptr, src->body.len });
		}
}

static void emit_series(struct mail_series_list *out, struct finder *f,
			struct group *g)
{
	const struct mail_list *l = f->l;
	struct mail_series *s;
	struct strlist cover_tr = { 0 }, skipped = { 0 };
	size_t alloc_ids = 0, n = 0;

	ALLOC_GROW(out->items, out->nr + 1, out->alloc);
	s = &out->items[out->nr++];
	memset(s, 0, sizeof(*s));
	s->version = g->version;
	if (g->cover != NONE) {
		s->cover = &l->items[g->cover];
		s->cover_title = xstrdup(f->nodes[g->cover].si.title);
		s->total = f->nodes[g->cover].si.total;
		s->base_commit = find_base_commit(s->cover->body.ptr,
						  s->cover->body.len);
		add_msgid(s, &alloc_ids, s->cover->message_id);
		gather_trailers(&cover_tr, &skipped, f, g->cover);
	}
	for (size_t i = 0; i < g->nr; i++)
		n += !f->cands[g->c[i]].dropped;
	s->patches = xcalloc(n, sizeof(*s->patches));
	for (size_t i = 0; i < g->nr; i++) {
		struct cand *cd = &f->cands[g->c[i]];

		if (cd->dropped)
			continue;
		for (size_t k = 0; k < cd->own.nr; k++)
			strlist_add_unique(&cd->trailers, xstrdup(cd->own.v[k]));
		for (size_t k = 0; k < cd->skipped.nr; k++)
			strlist_add_unique(&skipped, xstrdup(cd->skipped.v[k]));
		/* trailers given to the same patch in another version of the
		 * thread carry over, as b4 carries them */
		for (size_t j = 0; j < f->nr_cands && cd->pw.len; j++) {
			const struct cand *o = &f->cands[j];
			if (o->dropped || o->version == cd->version ||
			    !o->version || o->pw.len != cd->pw.len ||
			    memcmp(o->pw.ptr, cd->pw.ptr, o->pw.len))
				continue;
			for (size_t k = 0; k < o->own.nr; k++)
				strlist_add_unique(&cd->trailers,
						   xstrdup(o->own.v[k]));
		}
		for (size_t k = 0; k < cover_tr.nr; k++)
			strlist_add_unique(&cd->trailers,
					   xstrdup(cover_tr.v[k]));
		if (!s->total && cd->si.total)
			s->total = cd->si.total;
		build_patch(&s->patches[s->nr_patches++], &l->items[cd->msg],
			    cd);
		add_msgid(s, &alloc_ids, l->items[cd->msg].message_id);
	}
	if (!s->total)
		s->total = (unsigned)s->nr_patches;
	for (size_t i = s->nr_patches; !s->base_commit && i--;)
		s->base_commit = find_base_commit(s->patches[i].text.ptr,
						  s->patches[i].text.len);
	strlist_release(&cover_tr);
	s->skipped_trailers = skipped.v;
	s->nr_skipped_trailers = skipped.nr;
}

static void finder_release(struct finder *f)
{
	if (f->nodes)
		for (size_t i = 0; i < f->l->nr; i++)
			subject_info_release(&f->nodes[i].si);
	free(f->nodes);
	for (size_t i = 0; i < f->nr_cands; i++) {
		struct cand *cd = &f->cands[i];
		if (cd->inner) {
			mail_release(cd->inner);
			free(cd->inner);
		}
		subject_info_release(&cd->si);
		buf_release(&cd->diffs);
		strlist_release(&cd->trailers);
		strlist_release(&cd->own);
		strlist_release(&cd->skipped);
		buf_release(&cd->pw);
	}
	free(f->cands);
}

static int no_patch_error(const struct mail_list *l, struct err *err)
{
	const char *src;
	size_t n;

	if (!l->nr)
		return err_set(err, ERR_NOTFOUND,
			       "no message to find a patch in");
	src = l->items[0].source ? l->items[0].source : "";
	n = strlen(src);
	while (n && isdigit((unsigned char)src[n - 1]))
		n--;
	if (n && src[n - 1] == ':')
		n--;
	err_set(err, ERR_NOTFOUND, "'%.*s': no patch found in %zu message%s",
		(int)n, src, l->nr, l->nr == 1 ? "" : "s");
	err_hint(err, "replies (Re:, 回复:, ...) and the patches they "
		      "quote are review mail, not patches");
	return err->code;
}

int mail_find_series(struct mail_series_list *out, const struct mail_list *l,
		     struct err *err)
{
	struct finder f = { l, NULL, NULL, 0, 0 };
	struct group *groups = NULL;
	size_t nr_groups = 0, alloc_groups = 0;
	int error = 0;

	f.nodes = xcalloc(l->nr ? l->nr : 1, sizeof(*f.nodes));
	link_threads(&f);
	for (size_t i = 0; i < l->nr; i++)
		classify(&f, i);
	if (!f.nr_cands) {
		error = no_patch_error(l, err);
		goto out;
	}
	for (size_t i = 0; i < f.nr_cands; i++)
		find_cover(&f, &f.cands[i]);
	find_unthreaded_covers(&f);

	for (size_t i = 0; i < f.nr_cands; i++) {
		struct cand *cd = &f.cands[i];
		struct group *g = NULL;

		for (size_t k = 0; k < nr_groups && !g; k++)
			if (groups[k].version == cd->si.version &&
			    groups[k].cover == cd->cover)
				g = &groups[k];
		if (!g) {
			ALLOC_GROW(groups, nr_groups + 1, alloc_groups);
			g = &groups[nr_groups++];
			memset(g, 0, sizeof(*g));
			g->version = cd->si.version;
			g->cover = cd->cover;
		}
		ALLOC_GROW(g->c, g->nr + 1, g->alloc);
		g->c[g->nr++] = i;
	}
	qsort(groups, nr_groups, sizeof(*groups), cmp_group);
	for (size_t k = 0; k < nr_groups; k++)
		order_group(&f, &groups[k]);
	prepare_cands(&f, groups, nr_groups);
	for (size_t k = 0; k < nr_groups; k++)
		emit_series(out, &f, &groups[k]);
out:
	for (size_t k = 0; k < nr_groups; k++)
		free(groups[k].c);
	free(groups);
	finder_release(&f);
	return error;
}

void mail_series_list_release(struct mail_series_list *l)
{
	for (size_t i = 0; i < l->nr; i++) {
		struct mail_series *s = &l->items[i];

		for (size_t k = 0; k < s->nr_patches; k++) {
			struct mail_patch *p = &s->patches[k];

			subject_info_release(&p->subj);
			buf_release(&p->text);
			for (size_t t = 0; t < p->nr_extra_trailers; t++)
				free(p->extra_trailers[t]);
			free(p->extra_trailers);
			free(p->author_name);
			free(p->author_email);
			free(p->date);
			free(p->commit_id);
		}
		free(s->patches);
		free(s->cover_title);
		free(s->base_commit);
		for (size_t k = 0; k < s->nr_msgids; k++)
			free(s->msgids[k]);
		free(s->msgids);
		for (size_t k = 0; k < s->nr_skipped_trailers; k++)
			free(s->skipped_trailers[k]);
		free(s->skipped_trailers);
	}
	free(l->items);
	memset(l, 0, sizeof(*l));
}
