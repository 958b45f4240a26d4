#include "diag.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

void diag_list_init(struct diag_list *l)
{
	memset(l, 0, sizeof(*l));
}

static void diag_release(struct diag *d)
{
	free(d->path);
	free(d->message);
	free(d->function);
	free(d->unit);
	for (size_t i = 0; i < d->nr_notes; i++) {
		free(d->notes[i].path);
		free(d->notes[i].message);
	}
	free(d->notes);
	buf_release(&d->text);
}

void diag_list_release(struct diag_list *l)
{
	for (size_t i = 0; i < l->nr; i++)
		diag_release(&l->items[i]);
	free(l->items);
	for (size_t i = 0; i < l->nr_failed; i++)
		free(l->failed[i]);
	free(l->failed);
	memset(l, 0, sizeof(*l));
}

const char *diag_severity_name(enum diag_severity s)
{
	switch (s) {
	case DIAG_ERROR:
		return "error";
	case DIAG_WARNING:
		return "warning";
	default:
		return "note";
	}
}

bool diag_is_object(const char *t)
{
	return ends_with(t, ".o") || ends_with(t, ".s") || ends_with(t, ".i") ||
	       ends_with(t, ".lst") || ends_with(t, ".ko");
}

/* "a/./b/../c" -> "a/c", lexically; absolute stays absolute */
static char *clean_path(const char *p)
{
	struct buf out = BUF_INIT;
	size_t *starts = NULL, nr = 0, alloc = 0;
	bool abs = p[0] == '/';

	while (*p) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (n == 0 || (n == 1 && p[0] == '.')) {
			/* skip */
		} else if (n == 2 && p[0] == '.' && p[1] == '.' && nr &&
			   strcmp(out.ptr + starts[nr - 1], "..")) {
			nr--;
			buf_truncate(&out, starts[nr] ? starts[nr] - 1
						       : (abs ? 1 : 0));
			if (!starts[nr] && abs)
				buf_truncate(&out, 1);
		} else {
			if (out.len && out.ptr[out.len - 1] != '/')
				buf_addc(&out, '/');
			else if (!out.len && abs)
				buf_addc(&out, '/');
			ALLOC_GROW(starts, nr + 1, alloc);
			starts[nr++] = out.len;
			buf_add(&out, p, n);
		}
		p += n;
		if (*p == '/')
			p++;
	}
	if (!out.len && abs)
		buf_addc(&out, '/');
	free(starts);
	return buf_detach(&out, NULL);
}

static const char *under(const char *path, const char *root)
{
	size_t n;

	if (!root || !*root)
		return NULL;
	n = strlen(root);
	while (n > 1 && root[n - 1] == '/')
		n--;
	if (!strncmp(path, root, n) && path[n] == '/')
		return path + n + 1;
	return NULL;
}

char *diag_normalize_path(const char *path, const struct diag_parse_opts *o)
{
	char *full, *res;
	const char *rel;

	if (path[0] == '/' || !o || !o->obj_root)
		full = clean_path(path);
	else {
		char *j = xstrfmt("%s/%s", o->obj_root, path);
		full = clean_path(j);
		free(j);
	}
	if (o && (rel = under(full, o->src_root)))
		res = xstrdup(rel);
	else if (o && (rel = under(full, o->obj_root)))
		res = xstrdup(rel);
	else if (path[0] != '/')
		res = clean_path(path);
	else
		res = xstrdup(full);
	free(full);
	return res;
}

struct pstate {
	struct diag_list *l;
	const struct diag_parse_opts *o;
	struct buf pending;  /* include chain and "In function" lines */
	char *chain_top;     /* last "from" of the pending include chain */
	char *unit;          /* the .c being compiled, when known */
	char *function;
	struct diag *cur;    /* the diagnostic lines attach to, or NULL */
	bool cur_dup;        /* cur is a repeat: attach nothing */
};

static void set_str(char **dst, char *s)
{
	free(*dst);
	*dst = s;
}

static bool all_digits(const char *p, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)p[i]))
			return false;
	return true;
}

/*
 * "path:line[:col]" ending at end (exclusive): the parts, or false (and
 * nothing to free) when it is none or the path is empty.
 */
static bool split_location(const char *s, size_t n, char **path,
			   unsigned long *line, unsigned long *col)
{
	const char *c1, *c2 = NULL;
	size_t i;

	for (i = n; i > 0 && s[i - 1] != ':'; i--)
		;
	if (!i || !all_digits(s + i, n - i))
		return false;
	c1 = s + i - 1;
	{
		size_t k;
		for (k = i - 1; k > 0 && s[k - 1] != ':'; k--)
			;
		if (k && all_digits(s + k, (size_t)(c1 - (s + k))))
			c2 = s + k - 1;
	}
	if (c2) {
		*line = strtoul(c2 + 1, NULL, 10);
		*col = strtoul(c1 + 1, NULL, 10);
		*path = xstrndup(s, (size_t)(c2 - s));
	} else {
		*line = strtoul(c1 + 1, NULL, 10);
		*col = 0;
		*path = xstrndup(s, (size_t)(c1 - s));
	}
	if (!**path) {
		free(*path);
		*path = NULL;
		return false;
	}
	return true;
}

static const struct {
	const char *tag;
	enum diag_severity sev;
} severities[] = {
	{ ": fatal error: ", DIAG_ERROR },
	{ ": error: ", DIAG_ERROR },
	{ ": warning: ", DIAG_WARNING },
	{ ": note: ", DIAG_NOTE },
};

/* The parts of a diagnostic line; path and msg are the reader's to free. */
struct diag_line {
	char *path;
	unsigned long line, col;
	enum diag_severity sev;
	char *msg;
};

/* A diagnostic line: fills the parts and returns true. */
static bool parse_diag_line(const char *s, size_t n, struct diag_line *dl)
{
	const char *best = NULL;
	size_t best_k = 0;

	for (size_t k = 0; k < sizeof(severities) / sizeof(severities[0]); k++) {
		const char *p = memmem(s, n, severities[k].tag,
				       strlen(severities[k].tag));
		if (p && (!best || p < best)) {
			best = p;
			best_k = k;
		}
	}
	if (!best || !split_location(s, (size_t)(best - s), &dl->path,
				     &dl->line, &dl->col))
		return false;
	dl->sev = severities[best_k].sev;
	{
		const char *m = best + strlen(severities[best_k].tag);
		dl->msg = xstrndup(m, n - (size_t)(m - s));
	}
	return true;
}

static void buf_addbuf_pending(struct buf *dst, const struct buf *pending)
{
	buf_add(dst, pending->ptr, pending->len);
}

/* Whether d is what the line dl says at path (dl's, normalised). */
static bool same_diag(const struct diag *d, const char *path,
		      const struct diag_line *dl)
{
	return d->line == dl->line && d->col == dl->col && d->sev == dl->sev &&
	       !strcmp(d->path, path) && !strcmp(d->message, dl->msg);
}

static void add_failed(struct diag_list *l, const char *target, size_t n)
{
	char *t = xstrndup(target, n);

	for (size_t i = 0; i < l->nr_failed; i++)
		if (!strcmp(l->failed[i], t)) {
			free(t);
			return;
		}
	ALLOC_GROW(l->failed, l->nr_failed + 1, l->alloc_failed);
	l->failed[l->nr_failed++] = t;
}

/* make[N]: *** [Makefile:12: x.o] Error 1  /  *** No rule to make ... */
static bool parse_make_line(struct pstate *st, const char *s, size_t n)
{
	const char *p;

	if (!starts_with(s, "make") || !(p = memmem(s, n, ": *** ", 6)))
		return false;
	p += 6;
	if (*p == '[') {
		const char *e = memmem(p, n - (size_t)(p - s), "] Error ", 8);
		const char *t;
		if (!e)
			return true;
		t = e;
		while (t > p + 1 && !(t[-1] == ' ' && t[-2] == ':'))
			t--;
		if (t == p + 1)
			t = p + 1;
		{
			char *target = xstrndup(t, (size_t)(e - t));
			if (diag_is_object(target)) {
				char *np = diag_normalize_path(target, st->o);
				add_failed(st->l, np, strlen(np));
				free(np);
			}
			free(target);
		}
	} else if (starts_with(p, "No rule to make target ")) {
		const char *q = p + 23, *e;
		if (*q == '\'' || *q == '`')
			q++;
		e = q;
		while (e < s + n && *e != '\'')
			e++;
		{
			char *target = xstrndup(q, (size_t)(e - q));
			if (diag_is_object(target))
				add_failed(st->l, target, strlen(target));
			free(target);
		}
	}
	return true;
}

/* "  CC [M]  fs/btrfs/disk-io.o": the unit being compiled */
static bool parse_cc_line(struct pstate *st, const char *s, size_t n)
{
	const char *p = s, *e = s + n;

	while (p < e && *p == ' ')
		p++;
	if (p == s || e - p < 4 || strncmp(p, "CC", 2) || p[2] != ' ')
		return false;
	p += 2;
	while (p < e && *p == ' ')
		p++;
	if (e - p >= 3 && !strncmp(p, "[M]", 3)) {
		p += 3;
		while (p < e && *p == ' ')
			p++;
	}
	if (e - p < 3 || memchr(p, ' ', (size_t)(e - p)) ||
	    strncmp(e - 2, ".o", 2))
		return false;
	{
		char *o = xstrndup(p, (size_t)(e - p));
		o[strlen(o) - 1] = 'c';
		set_str(&st->unit, o);
	}
	set_str(&st->function, NULL);
	st->cur = NULL;
	return true;
}

static void add_note(struct diag *d, const char *path, unsigned long line,
		     const char *msg)
{
	d->notes = xrealloc(d->notes, (d->nr_notes + 1) * sizeof(*d->notes));
	d->notes[d->nr_notes].path = xstrdup(path);
	d->notes[d->nr_notes].line = line;
	d->notes[d->nr_notes].message = xstrdup(msg);
	d->nr_notes++;
}

/* The diagnostic line s read as dl: a new diagnostic, a repeated one, or
 * a note of the current one.  Frees dl's strings. */
static void take_diag(struct pstate *st, const char *s, size_t n,
		      struct diag_line *dl)
{
	char *np = diag_normalize_path(dl->path, st->o);

	free(dl->path);
	if (dl->sev == DIAG_NOTE) {
		if (st->cur && !st->cur_dup) {
			add_note(st->cur, np, dl->line, dl->msg);
			buf_addbuf_pending(&st->cur->text, &st->pending);
			buf_add(&st->cur->text, s, n);
			buf_addc(&st->cur->text, '\n');
		}
	} else {
		struct diag *d = NULL;
		for (size_t i = 0; i < st->l->nr && !d; i++)
			if (same_diag(&st->l->items[i], np, dl))
				d = &st->l->items[i];
		if (d) {
			st->cur = d;
			st->cur_dup = true;
		} else {
			ALLOC_GROW(st->l->items, st->l->nr + 1, st->l->alloc);
			d = &st->l->items[st->l->nr++];
			memset(d, 0, sizeof(*d));
			buf_init(&d->text, 0);
			d->path = xstrdup(np);
			d->line = dl->line;
			d->col = dl->col;
			d->sev = dl->sev;
			d->message = xstrdup(dl->msg);
			d->function = st->function ? xstrdup(st->function)
						   : NULL;
			if (ends_with(np, ".c") || ends_with(np, ".S"))
				d->unit = xstrdup(np);
			else if (st->chain_top)
				d->unit = xstrdup(st->chain_top);
			else if (st->unit)
				d->unit = xstrdup(st->unit);
			else
				d->unit = xstrdup(np);
			buf_addbuf_pending(&d->text, &st->pending);
			buf_add(&d->text, s, n);
			buf_addc(&d->text, '\n');
			st->cur = d;
			st->cur_dup = false;
		}
		if (d->unit &&
		    (ends_with(d->unit, ".c") || ends_with(d->unit, ".S")))
			set_str(&st->unit, xstrdup(d->unit));
	}
	free(np);
	free(dl->msg);
	buf_reset(&st->pending);
	set_str(&st->chain_top, NULL);
}

static void take_line(struct pstate *st, const char *s, size_t n)
{
	struct diag_line dl;

	if (parse_make_line(st, s, n) || parse_cc_line(st, s, n)) {
		buf_reset(&st->pending);
		set_str(&st->chain_top, NULL);
		st->cur = NULL;
		return;
	}
	if (starts_with(s, "In file included from ") ||
	    (n > 5 && s[0] == ' ' && memmem(s, n, " from ", 6) &&
	     st->pending.len)) {
		/* gcc: "In file included from a.h:3,\n   from b.c:5:";
		 * clang: one "In file included from" line per level */
		const char *p = memmem(s, n, "from ", 5) + 5;
		size_t k = n - (size_t)(p - s);
		char *lp;
		unsigned long l2, c2;

		/* gcc names the including files innermost first, going on
		 * with indented "from" lines; clang outermost first, one
		 * "In file included from" line each */
		bool clang_more = starts_with(s, "In file included from ") &&
				  st->pending.len &&
				  starts_with(st->pending.ptr,
					      "In file included from");

		if (starts_with(s, "In file included from ") && !clang_more)
			buf_reset(&st->pending);
		buf_add(&st->pending, s, n);
		buf_addc(&st->pending, '\n');
		while (k && (p[k - 1] == ':' || p[k - 1] == ','))
			k--;
		if (split_location(p, k, &lp, &l2, &c2)) {
			if (!clang_more)
				set_str(&st->chain_top,
					diag_normalize_path(lp, st->o));
			free(lp);
		}
		return;
	}
	if (n > 2 && s[n - 1] == ':' &&
	    (memmem(s, n, ": In function ", 14) ||
	     memmem(s, n, ": In static function ", 21) ||
	     memmem(s, n, ": In member function ", 21) ||
	     memmem(s, n, ": At top level", 14))) {
		const char *q = memmem(s, n, ": In ", 5);
		buf_add(&st->pending, s, n);
		buf_addc(&st->pending, '\n');
		if (q) {
			const char *a = q + 5;
			while (a < s + n && *a != '\'' && strncmp(a, "\xe2\x80\x98", 3))
				a++;
			if (a < s + n) {
				const char *b;
				a += *a == '\'' ? 1 : 3;
				b = a;
				while (b < s + n && *b != '\'' &&
				       strncmp(b, "\xe2\x80\x99", 3))
					b++;
				set_str(&st->function, xstrndup(a, (size_t)(b - a)));
			}
		} else
			set_str(&st->function, NULL);
		st->cur = NULL;
		return;
	}
	if (parse_diag_line(s, n, &dl)) {
		take_diag(st, s, n, &dl);
		return;
	}
	/* source excerpts and carets under a diagnostic */
	if (st->cur && !st->cur_dup && n && (s[0] == ' ' || isdigit((unsigned char)s[0])) &&
	    memchr(s, '|', n)) {
		buf_add(&st->cur->text, s, n);
		buf_addc(&st->cur->text, '\n');
		return;
	}
	if (st->cur && !st->cur_dup && n && s[0] == ' ' && !st->pending.len) {
		/* clang's excerpt has no '|' */
		buf_add(&st->cur->text, s, n);
		buf_addc(&st->cur->text, '\n');
		return;
	}
	st->cur = NULL;
}

/*
 * gcc quotes with U+2018/U+2019 in a UTF-8 locale and with ' in C.  kcarry
 * runs make with LANG=C, but a compile farm (distcc, icecc) runs gcc in
 * its own daemon's locale: the same diagnostic must read the same, or a
 * warning of the base build would be "new" when another host compiled
 * it.  Lines without those bytes are taken as they are.
 */
static const char *ascii_quotes(struct buf *b, const char *s, size_t *n)
{
	if (!memmem(s, *n, "\xe2\x80", 2))
		return s;
	buf_reset(b);
	for (size_t i = 0; i < *n; i++) {
		if (i + 2 < *n && (unsigned char)s[i] == 0xe2 &&
		    (unsigned char)s[i + 1] == 0x80 &&
		    ((unsigned char)s[i + 2] == 0x98 ||
		     (unsigned char)s[i + 2] == 0x99)) {
			buf_addc(b, '\'');
			i += 2;
		} else
			buf_addc(b, s[i]);
	}
	*n = b->len;
	return b->ptr;
}

void diag_parse(struct diag_list *l, const char *text, size_t len,
		const struct diag_parse_opts *opts)
{
	struct pstate st = { l, opts, BUF_INIT, NULL, NULL, NULL, NULL, false };
	struct buf line = BUF_INIT;
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		size_t n = e ? (size_t)(e - p) : (size_t)(end - p);
		size_t k = n;
		while (k && p[k - 1] == '\r')
			k--;
		const char *s = ascii_quotes(&line, p, &k);
		take_line(&st, s, k);
		p += n + (e ? 1 : 0);
	}
	buf_release(&line);
	buf_release(&st.pending);
	free(st.chain_top);
	free(st.unit);
	free(st.function);
}

void diag_list_add_copy(struct diag_list *l, const struct diag *d)
{
	struct diag *c;

	ALLOC_GROW(l->items, l->nr + 1, l->alloc);
	c = &l->items[l->nr++];
	memset(c, 0, sizeof(*c));
	c->path = xstrdup(d->path);
	c->line = d->line;
	c->col = d->col;
	c->sev = d->sev;
	c->message = xstrdup(d->message);
	c->function = d->function ? xstrdup(d->function) : NULL;
	c->unit = d->unit ? xstrdup(d->unit) : NULL;
	for (size_t i = 0; i < d->nr_notes; i++)
		add_note(c, d->notes[i].path, d->notes[i].line,
			 d->notes[i].message);
	buf_init(&c->text, 0);
	buf_add(&c->text, d->text.ptr, d->text.len);
}
