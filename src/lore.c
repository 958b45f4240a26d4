#include "lore.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <zlib.h>

#include "cursor.h"
#include "fs.h"
#include "series.h"
#include "settings.h"
#include "thread.h"

void lore_ref_release(struct lore_ref *r)
{
	free(r->base);
	free(r->msgid);
	memset(r, 0, sizeof(*r));
}

bool lore_valid_msgid(const char *s)
{
	size_t n = strlen(s);
	const char *at = strchr(s, '@');

	if (n < 3 || n > 995 || !at || at == s || !at[1])
		return false;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c <= ' ' || c == 0x7f || c == '<' || c == '>')
			return false;
	}
	return true;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static char *percent_decode(const char *s, size_t n)
{
	struct buf b = BUF_INIT;

	for (size_t i = 0; i < n; i++) {
		int hi, lo;
		if (s[i] == '%' && i + 2 < n &&
		    (hi = hexval((unsigned char)s[i + 1])) >= 0 &&
		    (lo = hexval((unsigned char)s[i + 2])) >= 0) {
			buf_addc(&b, (char)(hi * 16 + lo));
			i += 2;
		} else
			buf_addc(&b, s[i]);
	}
	return buf_detach(&b, NULL);
}

static char *strip_brackets(const char *s)
{
	size_t n = strlen(s);

	if (n >= 2 && s[0] == '<' && s[n - 1] == '>')
		return xstrndup(s + 1, n - 2);
	return xstrdup(s);
}

/* https://HOST/[PREFIX/]INBOX/MSGID[/...]: the segment with an '@'. */
static int parse_url(struct lore_ref *out, const char *url, struct err *err)
{
	const char *host = strstr(url, "://") + 3;
	const char *path = host + strcspn(host, "/?#");
	const char *end = path + strcspn(path, "?#");
	const char *seg = path;
	struct buf base = BUF_INIT;
	size_t nr_before = 0;
	const char *first = NULL;
	int error;

	while (seg < end) {
		const char *next;
		char *dec;
		size_t len;

		seg++; /* the '/' */
		next = memchr(seg, '/', (size_t)(end - seg));
		if (!next)
			next = end;
		len = (size_t)(next - seg);
		dec = percent_decode(seg, len);
		if (strchr(dec, '@')) {
			char *id = strip_brackets(dec);
			free(dec);
			if (!lore_valid_msgid(id)) {
				error = err_set(
					err, ERR_USAGE,
					"'%s': '%s' is not a message-id", url,
					id);
				free(id);
				buf_release(&base);
				return error;
			}
			buf_add(&base, url, (size_t)(seg - url));
			/* lore's redirectors lead to its /all/ inbox */
			if (nr_before == 0 &&
			    !strncasecmp(host, "patch.msgid.link", 16)) {
				buf_reset(&base);
				buf_adds(&base, "https://lore.kernel.org/all/");
			} else if (nr_before == 1 && first &&
				   !strncmp(first, "r/", 2) &&
				   !strncasecmp(host, "lore.kernel.org/", 16)) {
				buf_truncate(&base, (size_t)(first - url));
				buf_adds(&base, "all/");
			}
			out->msgid = id;
			out->base = buf_detach(&base, NULL);
			return 1;
		}
		free(dec);
		if (!nr_before)
			first = seg;
		if (len)
			nr_before++;
		seg = next;
	}
	buf_release(&base);
	error = err_set(err, ERR_USAGE, "'%s' names no message", url);
	err_hint(err, "a thread's URL holds its message-id, as in "
		      "https://lore.kernel.org/all/MESSAGE-ID/");
	return error;
}

int lore_parse_ref(struct lore_ref *out, const char *arg, struct err *err)
{
	char *id;

	memset(out, 0, sizeof(*out));
	if (!strncasecmp(arg, "http://", 7) || !strncasecmp(arg, "https://", 8))
		return parse_url(out, arg, err);
	if (!strncasecmp(arg, "mid:", 4)) {
		/* RFC 2392: mid:ID, percent-encoded */
		char *dec = percent_decode(arg + 4, strlen(arg + 4));
		id = strip_brackets(dec);
		free(dec);
		if (!lore_valid_msgid(id)) {
			int error = err_set(err, ERR_USAGE,
					    "'%s' is not a message-id", arg);
			free(id);
			return error;
		}
		out->msgid = id;
		return 1;
	}
	if (arg[0] == '<') {
		id = strip_brackets(arg);
		if (!lore_valid_msgid(id)) {
			int error = err_set(err, ERR_USAGE,
					    "'%s' is not a message-id", arg);
			free(id);
			return error;
		}
		out->msgid = id;
		return 1;
	}
	/* a bare word is a message-id when it could not be a path */
	if (!strchr(arg, '/') && lore_valid_msgid(arg)) {
		out->msgid = xstrdup(arg);
		return 1;
	}
	return 0;
}

char *lore_thread_url(const char *base, const char *msgid)
{
	struct buf b = BUF_INIT;

	buf_adds(&b, base);
	if (!ends_with(base, "/"))
		buf_addc(&b, '/');
	fetch_escape_segment(&b, msgid);
	buf_addc(&b, '/');
	return buf_detach(&b, NULL);
}

static char *with_slash(char *s)
{
	char *t;

	if (ends_with(s, "/"))
		return s;
	t = xstrfmt("%s/", s);
	free(s);
	return t;
}

char *lore_server(const char *root, const char *name,
		  const struct settings *set)
{
	struct series_records recs;
	struct err err = ERR_INIT;
	char *url = NULL;

	if (series_provenance_load(&recs, root, name, &err) == 0 &&
	    recs.exists) {
		if (recs.list_url && *recs.list_url)
			url = xstrdup(recs.list_url);
		if (!url) {
			char **vs = NULL;
			size_t nv = 0;
			const struct series_record *rec = NULL;
			struct lore_ref ref;

			if (series_list_versions(root, name, &vs, &nv, &err) ==
				    0 &&
			    nv)
				rec = series_records_find(&recs, vs[nv - 1]);
			if (rec && rec->source) {
				if (lore_parse_ref(&ref, rec->source, &err) ==
					    1 &&
				    ref.base) {
					url = ref.base;
					ref.base = NULL;
				}
				lore_ref_release(&ref);
			}
			series_free_list(vs, nv);
		}
	}
	series_records_release(&recs);
	err_release(&err);
	return url ? with_slash(url) : xstrdup(set->lore);
}

int lore_gunzip(struct buf *out, const char *data, size_t len, size_t limit,
		const char *what, struct err *err)
{
	z_stream zs;
	int rc = Z_OK;
	int error = 0;

	memset(&zs, 0, sizeof(zs));
	buf_reset(out);
	if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
		return err_set(err, ERR_IO, "cannot start zlib");
	zs.next_in = (unsigned char *)data;
	zs.avail_in = (uInt)len;
	if (len > UINT32_MAX) {
		inflateEnd(&zs);
		return err_set(err, ERR_PARSE, "%s: too large", what);
	}
	while (zs.avail_in) {
		buf_grow(out, 65536);
		zs.next_out = (unsigned char *)out->ptr + out->len;
		zs.avail_out = (uInt)(out->alloc - out->len - 1);
		rc = inflate(&zs, Z_NO_FLUSH);
		out->len = (size_t)((char *)zs.next_out - out->ptr);
		out->ptr[out->len] = '\0';
		if (limit && out->len > limit) {
			error = err_set(err, ERR_PARSE,
					"%s: more than %zu bytes once inflated",
					what, limit);
			break;
		}
		if (rc == Z_STREAM_END) {
			/* another gzip member may follow */
			if (zs.avail_in && inflateReset(&zs) != Z_OK)
				rc = Z_DATA_ERROR;
			else
				continue;
		}
		if (rc != Z_OK && rc != Z_BUF_ERROR) {
			error = err_set(err, ERR_PARSE,
					"%s: not gzip data (%s)", what,
					zs.msg ? zs.msg : "bad data");
			break;
		}
		if (rc == Z_BUF_ERROR && zs.avail_out) {
			error = err_set(err, ERR_PARSE,
					"%s: gzip data cut short", what);
			break;
		}
	}
	if (!error && rc != Z_STREAM_END)
		error = err_set(err, ERR_PARSE, "%s: gzip data cut short",
				what);
	inflateEnd(&zs);
	return error;
}

/* A gzip'd mbox (empty allowed for search answers); fetch's check. */
struct mbox_check {
	bool may_be_empty;
	unsigned long long limit;
};

static int read_mbox_gz(struct buf *out, const char *path,
			const struct mbox_check *mc, struct err *err)
{
	struct buf gz = BUF_INIT;
	int error;

	if ((error = fs_read_file(&gz, path, (size_t)mc->limit, err)) < 0)
		goto out;
	if (gz.len < 2 || (unsigned char)gz.ptr[0] != 0x1f ||
	    (unsigned char)gz.ptr[1] != 0x8b) {
		error = err_set(err, ERR_PARSE, "not gzip data");
		goto out;
	}
	if ((error = lore_gunzip(out, gz.ptr, gz.len, MAIL_MAX_SIZE,
				 "the thread", err)) < 0)
		goto out;
	if (!out->len && mc->may_be_empty)
		goto out;
	if (!starts_with(out->ptr, "From "))
		error = err_set(err, ERR_PARSE, "not an mbox once inflated");
out:
	buf_release(&gz);
	return error;
}

static int verify_mbox_gz(const char *tmp, void *ctx, struct err *err)
{
	struct buf mbox = BUF_INIT;
	int error = read_mbox_gz(&mbox, tmp, ctx, err);

	buf_release(&mbox);
	return error;
}

void lore_thread_release(struct lore_thread *t)
{
	free(t->url);
	free(t->mbox);
	memset(t, 0, sizeof(*t));
}

int lore_fetch_thread(struct lore_thread *t, const char *base,
		      const char *msgid, const struct fetch_opts *o,
		      struct err *err)
{
	struct fetch_request req = { 0 };
	struct fetch_result res;
	struct mbox_check mc = { false, 0 };
	struct buf mbox = BUF_INIT, old = BUF_INIT;
	char *url, *gz;
	int error;

	memset(t, 0, sizeof(*t));
	{
		/* t->url is stored and shown: no user:password@ in it */
		char *page = lore_thread_url(base, msgid);
		url = xstrfmt("%st.mbox.gz", page);
		t->url = fetch_url_public(page);
		free(page);
	}
	gz = fetch_cache_path("lore", url);
	mc.limit = o->limits.max_size;
	req.url = url;
	req.path = gz;
	req.verify = verify_mbox_gz;
	req.verify_ctx = &mc;
	error = fetch_url(&res, &req, o, err);
	t->source = res.source;
	if (error == ERR_IO && res.status == 404) {
		char *shown = fetch_url_public(base);
		err_hint(err,
			 "is <%s> archived at %s? series.list-url, or "
			 "kcarry.lore in kcarry.conf, names the server",
			 msgid, shown);
		free(shown);
	}
	fetch_result_release(&res);
	if (error < 0)
		goto out;
	if ((error = read_mbox_gz(&mbox, gz, &mc, err)) < 0) {
		err_prefix(err, "'%s'", gz);
		goto out;
	}
	t->mbox = xstrfmt("%.*s", (int)(strlen(gz) - 3), gz); /* t.mbox */
	if (fs_read_file(&old, t->mbox, 0, err) == 0 && old.len == mbox.len &&
	    !memcmp(old.ptr, mbox.ptr, old.len))
		goto out;
	err_release(err);
	err_init(err);
	error = fs_write_atomic(t->mbox, mbox.ptr, mbox.len, err);
out:
	buf_release(&old);
	buf_release(&mbox);
	free(gz);
	free(url);
	return error;
}

int lore_import_thread(struct import_set *set, struct lore_thread *t,
		       const char *base, const char *msgid,
		       const struct import_opts *io, struct err *err)
{
	int error;

	struct import_opts o = *io;

	if ((error = lore_fetch_thread(t, base, msgid, io->fetch, err)) < 0)
		return error;
	/* a server that answers with another thread: nothing of it is the
	 * asked message's series */
	o.require_msgid = msgid;
	if ((error = import_sources(set, &t->mbox, 1, &o, err)) < 0) {
		if (error == ERR_NOTFOUND && o.require_msgid) {
			err_prefix(err, "'%s'", t->url);
			err_hint(err, "the server answered for <%s> with "
				      "another thread; nothing is stored",
				 msgid);
		}
		return error;
	}
	for (size_t i = 0; i < set->nr; i++) {
		free(set->items[i].source);
		set->items[i].source = xstrdup(t->url);
	}
	return 0;
}

/* "v3": a version named after a posting's vN tag */
static bool is_vn(const char *v)
{
	if (v[0] != 'v' || !v[1])
		return false;
	for (const char *p = v + 1; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

long lore_pick(const struct import_set *set, const char *msgid,
	       const char *version)
{
	for (size_t i = 0; i < set->nr && msgid; i++)
		for (size_t j = 0; j < set->items[i].nr_msgids; j++)
			if (!strcmp(set->items[i].msgids[j], msgid))
				return (long)i;
	for (size_t i = 0; i < set->nr && version; i++)
		if (set->items[i].version &&
		    !strcmp(set->items[i].version, version))
			return (long)i;
	/* the only one, unless it is another vN than the one asked: a v1
	 * thread is no v2 (it was stored as v2 ... v999) */
	if (set->nr != 1)
		return -1;
	if (version && set->items[0].version && is_vn(version) &&
	    strcmp(set->items[0].version, version))
		return -1;
	return 0;
}

/* ---- later revisions ------------------------------------------------ */

void lore_series_id_release(struct lore_series_id *id)
{
	free(id->title);
	free(id->email);
	free(id->change_id);
	memset(id, 0, sizeof(*id));
}

/* b4's "change-id: ID" line of a cover letter, or NULL. */
static char *find_change_id(const char *text, size_t len)
{
	struct cursor c;
	struct span l;

	cursor_init(&c, text, len);
	while (cursor_next(&c, &l, NULL)) {
		l = span_trim(l);
		if (span_starts_with_ci(l, "change-id:")) {
			struct span v = { l.ptr + 10, l.len - 10 };
			v = span_trim(v);
			if (v.len && !memchr(v.ptr, '"', v.len))
				return span_dup(v);
		}
	}
	return NULL;
}

int lore_series_id_from_version(struct lore_series_id *id,
				const struct series_version *v, struct err *err)
{
	unsigned n = 0;
	char *end = NULL;
	int error = 0;

	memset(id, 0, sizeof(*id));
	if (v->version[0] == 'v' && isdigit((unsigned char)v->version[1]))
		n = (unsigned)strtoul(v->version + 1, &end, 10);
	if (!n || !end || *end)
		return err_set(err, ERR_USAGE,
			       "%s@%s is not a mail version (vN): there is no "
			       "later revision to look for",
			       v->name, v->version);
	id->version = n;
	if (v->cover.len) {
		struct mail m;
		struct subject_info si;
		mail_init(&m);
		if ((error = mail_parse(&m, v->cover.ptr, v->cover.len,
					"cover letter", err)) == 0) {
			subject_parse(&si, m.subject);
			id->title = si.title ? xstrdup(si.title) : NULL;
			subject_info_release(&si);
			id->email = m.from_email ? xstrdup(m.from_email) : NULL;
			id->date = m.date_epoch;
			id->has_cover = true;
			id->change_id = find_change_id(m.body.ptr, m.body.len);
		}
		mail_release(&m);
		if (error)
			return error;
	} else if (v->nr) {
		const struct patch *p = &v->items[0].patch;
		int tz;
		id->title = p->subject ? xstrdup(p->subject) : NULL;
		id->email = p->author_email ? xstrdup(p->author_email) : NULL;
		if (p->date)
			mail_parse_date(p->date, &id->date, &tz);
	}
	if (!id->title || !*id->title || !id->email) {
		lore_series_id_release(id);
		return err_set(err, ERR_PARSE,
			       "%s@%s: no subject or author to look for",
			       v->name, v->version);
	}
	return 0;
}

/* A search term holds no double quote: b4 drops them too. */
static void add_phrase(struct buf *q, const char *prefix, const char *s)
{
	buf_addf(q, "%s:\"", prefix);
	for (; *s; s++)
		if (*s != '"')
			buf_addc(q, *s);
	buf_addc(q, '"');
}

char *lore_newer_query(const struct lore_series_id *id)
{
	struct buf q = BUF_INIT;

	buf_addc(&q, '(');
	buf_addc(&q, '(');
	add_phrase(&q, "s", id->title);
	if (id->has_cover) {
		buf_adds(&q, " AND ");
		add_phrase(&q, "f", id->email);
	}
	buf_addc(&q, ')');
	if (id->change_id) {
		struct buf cid = BUF_INIT;
		buf_addf(&cid, "change-id: %s", id->change_id);
		buf_adds(&q, " OR ");
		add_phrase(&q, "nq", cid.ptr);
		buf_release(&cid);
	}
	buf_addc(&q, ')');
	if (id->date > 0) {
		time_t t = (time_t)id->date;
		struct tm tm;
		char day[16];
		gmtime_r(&t, &tm);
		strftime(day, sizeof(day), "%Y%m%d", &tm);
		buf_addf(&q, " AND d:%s..", day);
	}
	return buf_detach(&q, NULL);
}

/* Lower case, blanks folded to one space, none at either end. */
static char *fold_title(const char *s)
{
	struct buf b = BUF_INIT;

	for (; *s; s++) {
		if (isspace((unsigned char)*s)) {
			if (b.len && b.ptr[b.len - 1] != ' ')
				buf_addc(&b, ' ');
		} else
			buf_addc(&b, (char)tolower((unsigned char)*s));
	}
	buf_rtrim(&b);
	return buf_detach(&b, NULL);
}

bool lore_title_eq(const char *a, const char *b)
{
	char *fa = fold_title(a), *fb = fold_title(b);
	bool same = !strcmp(fa, fb);

	free(fa);
	free(fb);
	return same;
}

void lore_revisions_release(struct lore_revisions *r)
{
	for (size_t i = 0; i < r->nr; i++) {
		free(r->items[i].msgid);
		free(r->items[i].subject);
		free(r->items[i].date);
	}
	free(r->items);
	memset(r, 0, sizeof(*r));
}

static bool same_author(const struct mail *m, const struct lore_series_id *id)
{
	char *name = NULL, *email = NULL;
	bool same;

	if (m->from_email && !strcasecmp(m->from_email, id->email))
		return true;
	if (id->has_cover)
		return false;
	/* no cover: the id is the patch's author, maybe an in-body From: */
	mail_author(m, &name, &email);
	same = email && !strcasecmp(email, id->email);
	free(name);
	free(email);
	return same;
}

void lore_match_newer(struct lore_revisions *out, const struct mail_list *l,
		      const struct lore_series_id *id)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < l->nr; i++) {
		const struct mail *m = &l->items[i];
		struct subject_info si;
		struct lore_revision *r = NULL;
		bool same;

		if (!m->message_id || !m->subject)
			continue;
		subject_parse(&si, m->subject);
		if (si.is_reply || !si.has_patch_tag ||
		    si.version <= id->version || !si.title) {
			subject_info_release(&si);
			continue;
		}
		same = lore_title_eq(si.title, id->title) && same_author(m, id);
		if (!same && id->change_id) {
			char *cid = find_change_id(m->body.ptr, m->body.len);
			same = cid && !strcmp(cid, id->change_id);
			free(cid);
		}
		/* a cover letter, a lone patch, or the first of a series */
		if (!same || si.index > 1) {
			subject_info_release(&si);
			continue;
		}
		for (size_t k = 0; k < out->nr && !r; k++)
			if (out->items[k].version == si.version)
				r = &out->items[k];
		if (r) {
			/* the cover letter (0/N) wins over patch 1/N */
			if (si.index >= r->index) {
				subject_info_release(&si);
				continue;
			}
			free(r->msgid);
			free(r->subject);
			free(r->date);
		} else {
			size_t k;
			ALLOC_GROW(out->items, out->nr + 1, out->alloc);
			/* kept in version order */
			for (k = out->nr;
			     k > 0 && out->items[k - 1].version > si.version;
			     k--)
				out->items[k] = out->items[k - 1];
			out->nr++;
			r = &out->items[k];
		}
		r->version = si.version;
		r->msgid = xstrdup(m->message_id);
		r->subject = xstrdup(m->subject);
		r->date = m->date ? xstrdup(m->date) : NULL;
		r->epoch = m->date_epoch;
		r->total = si.total;
		r->index = si.index;
		subject_info_release(&si);
	}
}

int lore_find_newer(struct lore_revisions *out, const char *base,
		    const struct lore_series_id *id, const struct fetch_opts *o,
		    struct err *err)
{
	char *query = lore_newer_query(id);
	struct buf url = BUF_INIT, mbox = BUF_INIT;
	struct fetch_request req = { 0 };
	struct fetch_result res;
	struct mbox_check mc = { true, o->limits.max_size };
	struct mail_list l = { 0 };
	char *path;
	int error;

	memset(out, 0, sizeof(*out));
	buf_adds(&url, base);
	buf_adds(&url, "?x=m&q=");
	fetch_escape_query(&url, query);
	path = fetch_cache_path("lore", url.ptr);
	req.url = url.ptr;
	req.path = path;
	req.post = true;
	req.verify = verify_mbox_gz;
	req.verify_ctx = &mc;
	error = fetch_url(&res, &req, o, err);
	if (error == ERR_IO && res.status == 404 &&
	    starts_with(res.error_body.ptr, "No results")) {
		/* public-inbox's answer when nothing matches */
		error = 0;
		fetch_result_release(&res);
		err_release(err);
		err_init(err);
		goto out;
	}
	if (error == ERR_IO && res.status == 501)
		err_hint(err, "the archive has no search (public-inbox needs "
			      "indexlevel medium or full)");
	fetch_result_release(&res);
	if (error < 0 || (error = read_mbox_gz(&mbox, path, &mc, err)) < 0 ||
	    (mbox.len && (error = mail_read_mbox(&l, mbox.ptr, mbox.len,
						 url.ptr, err)) < 0))
		goto out;
	lore_match_newer(out, &l, id);
out:
	mail_list_release(&l);
	buf_release(&mbox);
	buf_release(&url);
	free(path);
	free(query);
	return error;
}
