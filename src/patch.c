#include "patch.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cursor.h"
#include "mail.h"
#include "thread.h"

#ifdef KCARRY_VERSION
#define SIGNATURE "kcarry " KCARRY_VERSION
#else
#define SIGNATURE "kcarry"
#endif

#define SLUG_MAX 52 /* 64 bytes of "0001-" + slug + ".patch", as git */
#define STAT_WIDTH 72

/* What the text before the diff is. */
enum head_form { FORM_BARE, FORM_MAIL, FORM_DEP3 };

struct parser {
	struct patch *p;
	const char *name;
	int strip;
	struct cursor c;
	struct err *err;
	size_t files_alloc;
	size_t hunks_alloc;   /* of the file being parsed */
	const char *diff_end; /* end of the last byte that belongs to a file */
	bool git_file;        /* in a "diff --git" file: strip as git does */
};

/* Names of a file patch as written, before stripping. */
struct raw_names {
	char *hdr_old, *hdr_new; /* from "diff --git" */
	char *old, *new;         /* from "---"/"+++" or "Binary files" */
	size_t old_line, new_line;
	char *ren_old, *ren_new; /* from "rename/copy from/to" */
	size_t ren_old_line, ren_new_line;
};

void patch_init(struct patch *p)
{
	memset(p, 0, sizeof(*p));
	buf_init(&p->raw, 0);
	buf_init(&p->message, 0);
}

static void free_fields(struct patch_field *f, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		free(f[i].key);
		free(f[i].value);
	}
	free(f);
}

void patch_release(struct patch *p)
{
	for (size_t i = 0; i < p->nr_files; i++) {
		struct patch_file *f = &p->files[i];

		free(f->old_path);
		free(f->new_path);
		free(f->old_oid);
		free(f->new_oid);
		for (size_t j = 0; j < f->nr_hunks; j++)
			free(f->hunks[j].lines);
		free(f->hunks);
	}
	free(p->files);
	free_fields(p->trailers, p->nr_trailers);
	free_fields(p->dep3, p->nr_dep3);
	buf_release(&p->raw);
	buf_release(&p->message);
	free(p->name);
	free(p->author_name);
	free(p->author_email);
	free(p->date);
	free(p->subject);
	free(p->commit);
	free(p->message_id);
	patch_init(p);
}

const char *patch_file_path(const struct patch_file *f)
{
	return f->new_path ? f->new_path : f->old_path;
}

/* ---- small helpers ---------------------------------------------------- */

static bool is_blank(struct span l)
{
	return !span_trim(l).len;
}

static bool is_signature(struct span l)
{
	return span_eq(l, "-- ") || span_eq(l, "--");
}

/* The n-th line from the cursor (0: the next one), CR stripped. */
static bool peek_at(const struct cursor *c, size_t n, struct span *line)
{
	struct cursor t = *c;
	struct span l;

	*line = SPAN_NULL;
	do {
		if (!cursor_next(&t, &l, NULL))
			return false;
	} while (n--);
	*line = span_chomp_cr(l);
	return true;
}

static bool next_line(struct cursor *c, struct span *line)
{
	struct span l;

	*line = SPAN_NULL;
	if (!cursor_next(c, &l, NULL))
		return false;
	*line = span_chomp_cr(l);
	return true;
}

static struct span span_after(struct span s, size_t n)
{
	return (struct span){ s.ptr + n, s.len - n };
}

/* "Key: value" with a key of letters, digits and dashes. */
static bool field_key(struct span l, struct span *key, struct span *value)
{
	size_t i = 0;

	while (i < l.len && (isalnum((unsigned char)l.ptr[i]) ||
			     (i && l.ptr[i] == '-')))
		i++;
	if (!i || i >= l.len || l.ptr[i] != ':')
		return false;
	if (i + 1 < l.len && l.ptr[i + 1] != ' ' && l.ptr[i + 1] != '\t')
		return false;
	if (key)
		*key = (struct span){ l.ptr, i };
	if (value)
		*value = span_trim(span_after(l, i + 1));
	return true;
}

static bool span_eq_ci(struct span s, const char *lit)
{
	return s.len == strlen(lit) && !strncasecmp(s.ptr, lit, s.len);
}

static bool has_8bit(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] >= 0x80)
			return true;
	return false;
}

static bool parse_ulong(const char **s, const char *end, unsigned long *out)
{
	unsigned long v = 0;
	const char *q = *s;

	if (q >= end || !isdigit((unsigned char)*q))
		return false;
	for (; q < end && isdigit((unsigned char)*q); q++) {
		unsigned d = (unsigned)(*q - '0');
		if (v > (ULONG_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*s = q;
	*out = v;
	return true;
}

/* ---- input checks ----------------------------------------------------- */

static int check_bytes(struct parser *ps)
{
	const char *s = ps->p->raw.ptr, *end = s + ps->p->raw.len;
	size_t lineno = 1;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end;

		if (memchr(s, '\0', (size_t)(le - s)))
			return err_set(ps->err, ERR_PARSE, "%s:%zu: NUL byte",
				       ps->name, lineno);
		if ((size_t)(le - s) > PATCH_MAX_LINE)
			return err_set(ps->err, ERR_PARSE,
				       "%s:%zu: line longer than %d bytes",
				       ps->name, lineno, PATCH_MAX_LINE);
		s = nl ? nl + 1 : end;
		lineno++;
	}
	return 0;
}

/* ---- paths ------------------------------------------------------------- */

/* Undo git's C-style quoting; s points at the opening quote. */
static bool unquote(struct buf *out, const char *s, const char *end,
		    const char **after)
{
	s++;
	while (s < end && *s != '"') {
		char ch = *s++;

		if (ch != '\\') {
			buf_addc(out, ch);
			continue;
		}
		if (s >= end)
			return false;
		ch = *s++;
		switch (ch) {
		case 'a': buf_addc(out, '\a'); break;
		case 'b': buf_addc(out, '\b'); break;
		case 'f': buf_addc(out, '\f'); break;
		case 'n': buf_addc(out, '\n'); break;
		case 'r': buf_addc(out, '\r'); break;
		case 't': buf_addc(out, '\t'); break;
		case 'v': buf_addc(out, '\v'); break;
		case '\\': buf_addc(out, '\\'); break;
		case '"': buf_addc(out, '"'); break;
		case '0': case '1': case '2': case '3': {
			unsigned v = (unsigned)(ch - '0');
			for (int i = 0; i < 2; i++) {
				if (s >= end || *s < '0' || *s > '7')
					return false;
				v = v * 8 + (unsigned)(*s++ - '0');
			}
			if (!v)
				return false; /* a NUL would cut the name */
			buf_addc(out, (char)v);
			break;
		}
		default:
			return false;
		}
	}
	if (s >= end)
		return false;
	*after = s + 1;
	return true;
}

/*
 * The name on a "---"/"+++"/"rename from" line: quoted as git quotes, or
 * up to a TAB (GNU diff puts the timestamp there).  *stamp gets what
 * follows the TAB.
 */
static int read_name(struct parser *ps, struct span s, size_t lineno,
		     char **out, struct span *stamp)
{
	struct buf b = BUF_INIT;
	const char *end = s.ptr + s.len, *after;

	if (stamp)
		*stamp = SPAN_NULL;
	if (s.len && s.ptr[0] == '"') {
		if (!unquote(&b, s.ptr, end, &after)) {
			buf_release(&b);
			return err_set(ps->err, ERR_PARSE,
				       "%s:%zu: badly quoted file name",
				       ps->name, lineno);
		}
		if (stamp && after < end)
			*stamp = span_trim((struct span){ after, end - after });
	} else {
		const char *tab = memchr(s.ptr, '\t', s.len);

		if (tab) {
			if (stamp)
				*stamp = span_trim((struct span){
					tab + 1, (size_t)(end - tab - 1) });
			end = tab;
		}
		while (end > s.ptr && (end[-1] == ' ' || end[-1] == '\r'))
			end--;
		buf_add(&b, s.ptr, (size_t)(end - s.ptr));
	}
	if (!b.len) {
		buf_release(&b);
		return err_set(ps->err, ERR_PARSE, "%s:%zu: missing file name",
			       ps->name, lineno);
	}
	*out = buf_detach(&b, NULL);
	return 0;
}

/* Skip n leading components as patch(1) does; NULL when there are fewer. */
/*
 * Strip n components.  In a git diff every slash counts, as git apply
 * strips: "b//etc/passwd" less one is "/etc/passwd", absolute, which git
 * refuses and so does kcarry.  A plain diff goes to GNU patch (quilt),
 * which takes a run of slashes as one: "a//a.c" less one is "a.c".
 */
static const char *strip_components(const char *s, int n, bool git)
{
	while (n-- > 0) {
		const char *slash = strchr(s, '/');

		if (!slash)
			return NULL;
		while (!git && slash[1] == '/')
			slash++;
		s = slash + 1;
	}
	return s;
}

/* Code points HFS+ ignores in names (git's is_hfs_dotgit): U+200C-200F,
 * U+202A-202E, U+206A-206F, U+FEFF.  Length of one at s, or 0. */
static size_t hfs_ignorable(const unsigned char *s)
{
	if (s[0] == 0xe2 && s[1] == 0x80 &&
	    ((s[2] >= 0x8c && s[2] <= 0x8f) || (s[2] >= 0xaa && s[2] <= 0xae)))
		return 3;
	if (s[0] == 0xe2 && s[1] == 0x81 && s[2] >= 0xaa && s[2] <= 0xaf)
		return 3;
	if (s[0] == 0xef && s[1] == 0xbb && s[2] == 0xbf)
		return 3;
	return 0;
}

/*
 * HFS+: the component (n bytes at c) is "." and name, in any case, with
 * ignorable code points anywhere (git's is_hfs_dot_generic).
 */
static bool is_hfs_dot(const char *c, size_t n, const char *name)
{
	const unsigned char *u = (const unsigned char *)c, *e = u + n;
	size_t k = 0, len = strlen(name);

	while (u < e) {
		size_t skip = e - u >= 3 ? hfs_ignorable(u) : 0;

		if (skip) {
			u += skip;
			continue;
		}
		if (k > len || tolower(*u) != (k ? name[k - 1] : '.'))
			return false;
		k++;
		u++;
	}
	return k == len + 1;
}

/* NTFS drops a run of dots and spaces at the end of a name. */
static const char *skip_dots_and_spaces(const char *s)
{
	while (*s == '.' || *s == ' ')
		s++;
	return s;
}

/*
 * NTFS: s (the rest of the path) starts with .git or its short name
 * git~1, in any case, then dots and spaces up to a separator ('/' or
 * '\\') or a stream name (':') (git's is_ntfs_dotgit).
 */
static bool is_ntfs_dotgit(const char *s)
{
	if (!strncasecmp(s, ".git", 4) || !strncasecmp(s, "git~1", 5)) {
		s = skip_dots_and_spaces(s + (*s == '.' ? 4 : 5));
		return !*s || *s == '/' || *s == '\\' || *s == ':';
	}
	return false;
}

/*
 * NTFS: s (the rest of the path) is "." and name, its short name (the
 * first 6 characters, '~' and 1 to 4), or its hashed short name
 * (hashed: up to 6 characters, '~' and digits, 8 in all), in any case,
 * then dots and spaces up to the end or a stream name (git's
 * is_ntfs_dot_generic).
 */
static bool is_ntfs_dot(const char *s, const char *name, const char *hashed)
{
	size_t len = strlen(name), i;

	if (s[0] == '.' && !strncasecmp(s + 1, name, len))
		i = len + 1;
	else if (!strncasecmp(s, name, 6) && s[6] == '~' && s[7] >= '1' &&
		 s[7] <= '4')
		i = 8;
	else {
		bool tilde = false;

		/* 8 characters; past the 6th, only after the '~' */
		for (i = 0; i < 8; i++) {
			unsigned char c = (unsigned char)s[i];

			if (tilde) {
				if (!isdigit(c))
					return false;
			} else if (c == '~') {
				if (s[i + 1] < '1' || s[i + 1] > '9')
					return false;
				tilde = true;
				i++;
			} else if (i >= 6 || c >= 0x80 ||
				   tolower(c) != hashed[i]) {
				return false;
			}
		}
	}
	s = skip_dots_and_spaces(s + i);
	return !*s || *s == ':';
}

/*
 * Files git reads from the work tree that must not be symlinks: git's
 * verify_path refuses a .gitmodules symlink, and git fsck flags the
 * others (gitattributesSymlink, ...), so all four are refused.
 */
static const struct {
	const char *name, *hashed, *why;
} link_names[] = {
	{ "gitmodules", "gi7eba", "is a .gitmodules symlink" },
	{ "gitattributes", "gi7d29", "is a .gitattributes symlink" },
	{ "gitignore", "gi250a", "is a .gitignore symlink" },
	{ "mailmap", "maba30", "is a .mailmap symlink" },
};

/*
 * What git's verify_path (HFS and NTFS rules on) finds wrong where a name
 * starts at s: at the start, after a '/' or (NTFS) after a '\\'.  n: the
 * length of the '/'-component for the HFS rules, 0 after a '\\'.
 */
static const char *refused_at(const char *s, size_t n, unsigned mode)
{
	if (is_hfs_dot(s, n, "git") || is_ntfs_dotgit(s))
		return "is inside .git";
	if (mode != 0120000)
		return NULL;
	for (size_t i = 0; i < sizeof(link_names) / sizeof(link_names[0]); i++)
		if (is_hfs_dot(s, n, link_names[i].name) ||
		    is_ntfs_dot(s, link_names[i].name, link_names[i].hashed))
			return link_names[i].why;
	return NULL;
}

const char *patch_path_refused(const char *path, unsigned mode)
{
	const char *c = path;

	if (!*path)
		return "is empty";
	if (*path == '/')
		return "is absolute";
	for (;;) {
		size_t n = strcspn(c, "/");
		const char *why;

		if (!n)
			return c[0] ? "has an empty component" : "ends with '/'";
		if ((n == 1 && c[0] == '.') || (n == 2 && !memcmp(c, "..", 2)))
			return n == 1 ? "has a '.' component"
				      : "escapes the tree";
		if ((why = refused_at(c, n, mode)) != NULL)
			return why;
		/* NTFS: a backslash separates names too */
		for (const char *b = memchr(c, '\\', n); b;
		     b = memchr(b + 1, '\\', n - (size_t)(b + 1 - c)))
			if ((why = refused_at(b + 1, 0, mode)) != NULL)
				return why;
		if (!c[n])
			return NULL;
		c += n + 1;
	}
}

/*
 * Turn a name as written into a path in the tree: strip; drop the empty
 * and "." components ("./x", "x//y", as patch(1) reads them); then refuse
 * what git's verify_path refuses (with core.protectHFS and protectNTFS):
 * "..", .git in any spelling, a final '/' (patch_path_refused).  NULL for
 * /dev/null.
 */
static int make_path(struct parser *ps, const char *raw, int strip,
		     size_t lineno, char **out)
{
	const char *s, *c, *why;
	struct buf b = BUF_INIT;

	*out = NULL;
	if (!strcmp(raw, "/dev/null"))
		return 0;
	s = strip_components(raw, strip, ps->git_file);
	if (!s || !*s)
		return err_set(ps->err, ERR_PARSE,
			       "%s:%zu: cannot strip %d leading component%s "
			       "from '%s'",
			       ps->name, lineno, strip, strip == 1 ? "" : "s",
			       raw);
	if (*s == '/')
		return err_set(ps->err, ERR_PARSE,
			       "%s:%zu: path '%s' is absolute", ps->name,
			       lineno, raw);
	for (c = s; *c;) {
		size_t n = strcspn(c, "/");

		if (n && !(n == 1 && c[0] == '.')) {
			if (b.len)
				buf_addc(&b, '/');
			buf_add(&b, c, n);
		}
		c += n;
		if (*c == '/' && !c[1] && b.len)
			buf_addc(&b, '/'); /* kept to be refused below */
		while (*c == '/')
			c++;
	}
	if ((why = patch_path_refused(b.ptr, 0)) != NULL) {
		int error = err_set(ps->err, ERR_PARSE, "%s:%zu: path '%s' %s",
				    ps->name, lineno, raw, why);
		buf_release(&b);
		return error;
	}
	*out = buf_detach(&b, NULL);
	return 0;
}

static struct span strip_span(struct span s, int n)
{
	while (n-- > 0) {
		const char *slash = memchr(s.ptr, '/', s.len);

		if (!slash)
			return SPAN_NULL;
		slash++; /* every slash counts, as git strips */
		s.len -= (size_t)(slash - s.ptr);
		s.ptr = slash;
	}
	return s;
}

/* Do a and b name the same path once n components are stripped? */
static bool same_stripped(struct span a, struct span b, int n)
{
	a = strip_span(a, n);
	b = strip_span(b, n);
	return a.ptr && b.ptr && a.len == b.len && !memcmp(a.ptr, b.ptr, a.len);
}

/*
 * The two names of "diff --git a/x b/x".  Unquoted names may hold spaces:
 * as git does, split where both halves name the same path once stripped.
 * Only the first spaces are tried (and the middle one), so that a line of
 * a million spaces costs no more than one pass.
 */
static void git_header_names(struct span rest, int strip, char **a, char **b)
{
	const char *end = rest.ptr + rest.len, *after;
	struct buf x = BUF_INIT;
	size_t spaces = 0, last = 0, split = 0, mid = rest.len / 2;

	*a = *b = NULL;
	if (rest.len && rest.ptr[0] == '"') {
		if (!unquote(&x, rest.ptr, end, &after) || after >= end ||
		    *after != ' ')
			goto out;
		*a = buf_detach(&x, NULL);
		after++;
		if (after < end && *after == '"') {
			if (unquote(&x, after, end, &after))
				*b = buf_detach(&x, NULL);
		} else {
			*b = xstrndup(after, (size_t)(end - after));
		}
		goto out;
	}
	for (size_t i = 0; i < rest.len; i++) {
		struct span l = { rest.ptr, i };
		struct span r = { rest.ptr + i + 1, rest.len - i - 1 };

		if (rest.ptr[i] != ' ')
			continue;
		if (i + 1 < rest.len && rest.ptr[i + 1] == '"') {
			*a = xstrndup(rest.ptr, i);
			if (unquote(&x, rest.ptr + i + 1, end, &after))
				*b = buf_detach(&x, NULL);
			goto out;
		}
		spaces++;
		last = i;
		if (!split && (spaces <= 64 || i == mid) &&
		    same_stripped(l, r, strip))
			split = i;
	}
	if (!split && spaces == 1)
		split = last;
	if (split) {
		*a = xstrndup(rest.ptr, split);
		*b = xstrndup(rest.ptr + split + 1, rest.len - split - 1);
	}
out:
	buf_release(&x);
}

static void raw_names_release(struct raw_names *n)
{
	free(n->hdr_old);
	free(n->hdr_new);
	free(n->old);
	free(n->new);
	free(n->ren_old);
	free(n->ren_new);
}

/* n decimal digits at *s. */
static bool fixed_num(const char **s, const char *end, int n, long *out)
{
	long v = 0;

	if (end - *s < n)
		return false;
	for (int i = 0; i < n; i++) {
		if (!isdigit((unsigned char)(*s)[i]))
			return false;
		v = v * 10 + ((*s)[i] - '0');
	}
	*s += n;
	*out = v;
	return true;
}

static bool expect(const char **s, const char *end, char c)
{
	if (*s >= end || **s != c)
		return false;
	(*s)++;
	return true;
}

/*
 * A GNU diff timestamp at the epoch ("1970-01-01 00:00:00.000 +0000" or
 * the same instant in another zone): how diff -N marks an absent file.
 */
static bool is_epoch(struct span stamp)
{
	const char *s, *end;
	long y, mo, d, h, mi, sec, th, tm, secs;
	int sign = 1;

	if (!stamp.len)
		return false; /* ptr may be NULL: no arithmetic on it */
	s = stamp.ptr;
	end = stamp.ptr + stamp.len;
	if (memmem(stamp.ptr, stamp.len, "Jan  1 00:00:00 1970", 20))
		return true;
	if (!fixed_num(&s, end, 4, &y) || !expect(&s, end, '-') ||
	    !fixed_num(&s, end, 2, &mo) || !expect(&s, end, '-') ||
	    !fixed_num(&s, end, 2, &d) || !expect(&s, end, ' ') ||
	    !fixed_num(&s, end, 2, &h) || !expect(&s, end, ':') ||
	    !fixed_num(&s, end, 2, &mi) || !expect(&s, end, ':') ||
	    !fixed_num(&s, end, 2, &sec))
		return false;
	if (s < end && *s == '.')
		while (s < end && *s != ' ')
			s++;
	while (s < end && *s == ' ')
		s++;
	th = tm = 0;
	if (s < end && (*s == '+' || *s == '-')) {
		sign = *s++ == '-' ? -1 : 1;
		if (!fixed_num(&s, end, 2, &th) || !fixed_num(&s, end, 2, &tm))
			return false;
	}
	if (y == 1970 && mo == 1 && d == 1)
		secs = 0;
	else if (y == 1969 && mo == 12 && d == 31)
		secs = -86400;
	else
		return false;
	secs += h * 3600 + mi * 60 + sec - sign * (th * 3600 + tm * 60);
	return secs == 0;
}

/* ---- files and hunks -------------------------------------------------- */

static struct patch_file *new_file(struct parser *ps, size_t lineno)
{
	struct patch *p = ps->p;
	struct patch_file *f;

	ALLOC_GROW(p->files, p->nr_files + 1, ps->files_alloc);
	f = &p->files[p->nr_files++];
	memset(f, 0, sizeof(*f));
	f->op = PATCH_MODIFY;
	f->lineno = lineno;
	ps->hunks_alloc = 0;
	return f;
}

static int parse_hunk_header(struct span l, struct patch_hunk *h)
{
	const char *s = l.ptr + 4, *e = l.ptr + l.len;

	if (!parse_ulong(&s, e, &h->old_start))
		return -1;
	h->old_count = 1;
	if (s < e && *s == ',' && (++s, !parse_ulong(&s, e, &h->old_count)))
		return -1;
	if (e - s < 2 || s[0] != ' ' || s[1] != '+')
		return -1;
	s += 2;
	if (!parse_ulong(&s, e, &h->new_start))
		return -1;
	h->new_count = 1;
	if (s < e && *s == ',' && (++s, !parse_ulong(&s, e, &h->new_count)))
		return -1;
	if (e - s < 3 || memcmp(s, " @@", 3))
		return -1;
	s += 3;
	h->section = span_trim((struct span){ s, (size_t)(e - s) });
	if (!h->section.len)
		h->section.ptr = s;
	return 0;
}

static int short_hunk(struct parser *ps, const struct patch_hunk *h,
		      unsigned long o, unsigned long n)
{
	return err_set(ps->err, ERR_PARSE,
		       "%s:%zu: hunk claims %lu old and %lu new lines but "
		       "ends after %lu and %lu",
		       ps->name, h->lineno, h->old_count, h->new_count, o, n);
}

static int long_hunk(struct parser *ps, const struct patch_hunk *h,
		     size_t lineno)
{
	return err_set(ps->err, ERR_PARSE,
		       "%s:%zu: hunk claims %lu old and %lu new lines but "
		       "has more at line %zu",
		       ps->name, h->lineno, h->old_count, h->new_count,
		       lineno);
}

/* Read one hunk; the cursor is past its "@@" line.  Counts rule. */
static int parse_hunk(struct parser *ps, struct patch_file *f,
		      struct span hdr, size_t lineno)
{
	struct patch_hunk *h;
	unsigned long o = 0, n = 0;
	size_t alloc = 0;
	struct span l, l1;

	ALLOC_GROW(f->hunks, f->nr_hunks + 1, ps->hunks_alloc);
	h = &f->hunks[f->nr_hunks++];
	memset(h, 0, sizeof(*h));
	h->lineno = lineno;
	if (parse_hunk_header(hdr, h) < 0)
		return err_set(ps->err, ERR_PARSE,
			       "%s:%zu: malformed hunk header '%.*s'", ps->name,
			       lineno, (int)(hdr.len > 80 ? 80 : hdr.len),
			       hdr.ptr);
	if (!h->old_count && !h->new_count)
		return err_set(ps->err, ERR_PARSE,
			       "%s:%zu: hunk has no lines ('@@ -%lu,0 +%lu,0 "
			       "@@')",
			       ps->name, lineno, h->old_start, h->new_start);
	if (h->old_count > PATCH_MAX_HUNK_LINES ||
	    h->new_count > PATCH_MAX_HUNK_LINES)
		return err_set(ps->err, ERR_PARSE,
			       "%s:%zu: hunk claims %lu lines, more than the "
			       "limit of %lu",
			       ps->name, lineno,
			       h->old_count > h->new_count ? h->old_count
							   : h->new_count,
			       PATCH_MAX_HUNK_LINES);
	while (o < h->old_count || n < h->new_count) {
		struct patch_line *pl;
		char kind;

		if (!cursor_peek(&ps->c, &l))
			return short_hunk(ps, h, o, n);
		/* "---", "+++", "@@": the next file, not "-" and "+" lines. */
		if (span_starts_with(l, "--- ") && peek_at(&ps->c, 1, &l1) &&
		    span_starts_with(l1, "+++ ") && peek_at(&ps->c, 2, &l1) &&
		    span_starts_with(l1, "@@ -"))
			return short_hunk(ps, h, o, n);
		/* A mailer may have eaten the space of an empty context. */
		if (!l.len || (l.len == 1 && l.ptr[0] == '\r'))
			kind = ' ';
		else
			kind = l.ptr[0];
		switch (kind) {
		case ' ':
			if (o >= h->old_count || n >= h->new_count)
				return long_hunk(ps, h, ps->c.lineno);
			o++;
			n++;
			break;
		case '-':
			if (o >= h->old_count)
				return long_hunk(ps, h, ps->c.lineno);
			o++;
			break;
		case '+':
			if (n >= h->new_count)
				return long_hunk(ps, h, ps->c.lineno);
			n++;
			break;
		case '\\':
			if (!h->nr_lines || h->lines[h->nr_lines - 1].no_eol)
				return err_set(ps->err, ERR_PARSE,
					       "%s:%zu: stray '\\' line",
					       ps->name, ps->c.lineno);
			h->lines[h->nr_lines - 1].no_eol = true;
			cursor_next(&ps->c, &l, NULL);
			continue;
		default:
			return short_hunk(ps, h, o, n);
		}
		ALLOC_GROW(h->lines, h->nr_lines + 1, alloc);
		pl = &h->lines[h->nr_lines++];
		pl->kind = kind;
		pl->no_eol = false;
		pl->text = l.len && l.ptr[0] == kind ? span_after(l, 1) : l;
		cursor_next(&ps->c, &l, NULL);
	}
	if (cursor_peek(&ps->c, &l) && l.len && l.ptr[0] == '\\' &&
	    h->nr_lines) {
		h->lines[h->nr_lines - 1].no_eol = true;
		cursor_next(&ps->c, &l, NULL);
	}
	ps->diff_end = ps->c.pos;
	/* A body line right after the counted ones: the counts lie. */
	if (peek_at(&ps->c, 0, &l) && l.len &&
	    (l.ptr[0] == ' ' || l.ptr[0] == '+' || l.ptr[0] == '-') &&
	    !is_signature(l) &&
	    !(span_starts_with(l, "--- ") && peek_at(&ps->c, 1, &l1) &&
	      span_starts_with(l1, "+++ ")))
		return long_hunk(ps, h, ps->c.lineno);
	return 0;
}

static int parse_hunks(struct parser *ps, struct patch_file *f)
{
	struct span l;

	while (peek_at(&ps->c, 0, &l) && span_starts_with(l, "@@ -")) {
		size_t lineno = ps->c.lineno;

		next_line(&ps->c, &l);
		if (parse_hunk(ps, f, l, lineno) < 0)
			return -1;
	}
	return 0;
}

/* Skip the base85 blocks after "GIT binary patch". */
static void skip_git_binary(struct parser *ps)
{
	struct span l;

	next_line(&ps->c, &l);
	for (int block = 0; block < 2; block++) {
		if (!peek_at(&ps->c, 0, &l) ||
		    !(span_starts_with(l, "literal ") ||
		      span_starts_with(l, "delta ")))
			break;
		next_line(&ps->c, &l);
		while (peek_at(&ps->c, 0, &l) && l.len &&
		       isalpha((unsigned char)l.ptr[0]))
			next_line(&ps->c, &l);
		if (peek_at(&ps->c, 0, &l) && !l.len)
			next_line(&ps->c, &l);
	}
	ps->diff_end = ps->c.pos;
}

/* "Binary files A and B differ": the names, when they can be told. */
static void binary_names(struct span l, struct raw_names *rn, size_t lineno)
{
	struct span s = span_after(l, strlen("Binary files "));
	const char *and;

	if (s.len < 7 || memcmp(s.ptr + s.len - 7, " differ", 7))
		return;
	s.len -= 7;
	and = memmem(s.ptr, s.len, " and ", 5);
	if (!and)
		return;
	free(rn->old);
	free(rn->new);
	rn->old = xstrndup(s.ptr, (size_t)(and - s.ptr));
	rn->new = xstrndup(and + 5, (size_t)(s.ptr + s.len - and - 5));
	rn->old_line = rn->new_line = lineno;
}

/* The "---" and "+++" lines; the cursor is on "---". */
static int read_minus_plus(struct parser *ps, struct raw_names *rn,
			   struct span *old_stamp, struct span *new_stamp)
{
	struct span l;

	free(rn->old);
	free(rn->new);
	rn->old = rn->new = NULL;
	rn->old_line = ps->c.lineno;
	next_line(&ps->c, &l);
	if (read_name(ps, span_after(l, 4), rn->old_line, &rn->old,
		      old_stamp) < 0)
		return -1;
	rn->new_line = ps->c.lineno;
	next_line(&ps->c, &l);
	if (read_name(ps, span_after(l, 4), rn->new_line, &rn->new,
		      new_stamp) < 0)
		return -1;
	ps->diff_end = ps->c.pos;
	return 0;
}

static int parse_mode(struct parser *ps, struct span v, unsigned *mode,
		      size_t lineno)
{
	unsigned m = 0;

	v = span_trim(v);
	if (!v.len || v.len > 7)
		goto bad;
	for (size_t i = 0; i < v.len; i++) {
		if (v.ptr[i] < '0' || v.ptr[i] > '7')
			goto bad;
		m = m * 8 + (unsigned)(v.ptr[i] - '0');
	}
	/* git writes 100644, 100755, 120000 and 160000; an old git wrote
	 * 100664.  As git apply, a regular file is 100755 when its owner
	 * may execute it, else 100644 (git's canon_mode). */
	if ((m & 0170000) == 0100000)
		m = m & 0100 ? 0100755 : 0100644;
	else if ((m & 0170000) == 0120000 || (m & 0170000) == 0160000)
		m &= 0170000;
	else
		goto bad;
	*mode = m;
	return 0;
bad:
	return err_set(ps->err, ERR_PARSE, "%s:%zu: invalid mode '%.*s'",
		       ps->name, lineno, (int)(v.len > 20 ? 20 : v.len),
		       v.ptr);
}

static void parse_index_line(struct patch_file *f, struct span v)
{
	const char *dots = memmem(v.ptr, v.len, "..", 2);
	const char *end = v.ptr + v.len, *sp;

	if (!dots)
		return;
	sp = memchr(dots, ' ', (size_t)(end - dots));
	free(f->old_oid);
	free(f->new_oid);
	f->old_oid = xstrndup(v.ptr, (size_t)(dots - v.ptr));
	f->new_oid = xstrndup(dots + 2, (size_t)((sp ? sp : end) - dots - 2));
	if (sp) {
		unsigned m = 0;
		const char *q = sp + 1;

		for (; q < end && *q >= '0' && *q <= '7'; q++)
			m = m * 8 + (unsigned)(*q - '0');
		if (q == end && q > sp + 1 && m <= 0777777) {
			if (!f->old_mode)
				f->old_mode = m;
			if (!f->new_mode)
				f->new_mode = m;
		}
	}
}

/* Turn the names as written into the file's paths and check them. */
static int finish_names(struct parser *ps, struct patch_file *f,
			struct raw_names *rn)
{
	int ren_strip = ps->strip > 0 ? ps->strip - 1 : 0;
	char *old = NULL, *new = NULL;

	if (rn->ren_old) {
		if (make_path(ps, rn->ren_old, ren_strip, rn->ren_old_line,
			      &old) < 0)
			goto fail;
	} else if (rn->old) {
		if (make_path(ps, rn->old, ps->strip, rn->old_line, &old) < 0)
			goto fail;
		if (!old && f->op == PATCH_MODIFY)
			f->op = PATCH_ADD;
	} else if (rn->hdr_old && f->op != PATCH_ADD) {
		if (make_path(ps, rn->hdr_old, ps->strip, f->lineno, &old) < 0)
			goto fail;
	}
	if (rn->ren_new) {
		if (make_path(ps, rn->ren_new, ren_strip, rn->ren_new_line,
			      &new) < 0)
			goto fail;
	} else if (rn->new) {
		if (make_path(ps, rn->new, ps->strip, rn->new_line, &new) < 0)
			goto fail;
		if (!new && f->op == PATCH_MODIFY)
			f->op = PATCH_DELETE;
	} else if (rn->hdr_new && f->op != PATCH_DELETE) {
		if (make_path(ps, rn->hdr_new, ps->strip, f->lineno, &new) < 0)
			goto fail;
	}
	if (f->op == PATCH_ADD) {
		free(old);
		old = NULL;
	}
	if (f->op == PATCH_DELETE) {
		free(new);
		new = NULL;
	}
	if (new && f->new_mode == 0120000 &&
	    patch_path_refused(new, f->new_mode)) {
		err_set(ps->err, ERR_PARSE, "%s:%zu: path '%s' %s", ps->name,
			f->lineno, new, patch_path_refused(new, f->new_mode));
		goto fail;
	}
	if ((f->op != PATCH_ADD && !old) || (f->op != PATCH_DELETE && !new) ||
	    (!old && !new)) {
		err_set(ps->err, ERR_PARSE,
			"%s:%zu: file header lacks file name information",
			ps->name, f->lineno);
		goto fail;
	}
	f->old_path = old;
	f->new_path = new;
	return 0;
fail:
	free(old);
	free(new);
	return -1;
}

/*
 * What git apply refuses in a git file header once it is read: a file
 * that turns into a symlink (or back) in place, which git writes as a
 * deletion and an addition; a header that changes nothing (no hunks, no
 * binary, no mode line that differs, no rename, copy, creation or
 * deletion).  modes_differ: "old mode" and "new mode" as written differ,
 * or only "new mode" was given.
 */
static int check_git_file(struct parser *ps, const struct patch_file *f,
			  bool modes_differ)
{
	const char *path = patch_file_path(f);

	if (f->op != PATCH_ADD && f->op != PATCH_DELETE && f->old_mode &&
	    f->new_mode && (f->old_mode & 0170000) != (f->new_mode & 0170000))
		return err_set(ps->err, ERR_PARSE,
			       "%s:%zu: '%s' changes type from mode %06o to "
			       "%06o in place",
			       ps->name, f->lineno, path, f->old_mode,
			       f->new_mode);
	if (f->op == PATCH_MODIFY && !f->nr_hunks && !f->binary &&
	    !modes_differ)
		return err_set(ps->err, ERR_PARSE,
			       "%s:%zu: the header of '%s' changes nothing "
			       "(no hunk, mode, rename or binary data)",
			       ps->name, f->lineno, path);
	return 0;
}

static int parse_git_file(struct parser *ps)
{
	struct raw_names rn = { 0 };
	struct patch_file *f = new_file(ps, ps->c.lineno);
	struct span l, l1, v;
	struct span old_mode = SPAN_NULL, new_mode = SPAN_NULL;
	bool has_hunks = false;
	int error = -1;

	ps->git_file = true;
	next_line(&ps->c, &l);
	git_header_names(span_after(l, strlen("diff --git ")), ps->strip,
			 &rn.hdr_old, &rn.hdr_new);
	ps->diff_end = ps->c.pos;
	while (peek_at(&ps->c, 0, &l)) {
		size_t lineno = ps->c.lineno;
		char **ren = NULL;
		size_t *ren_line = NULL;

		if (span_starts_with(l, "old mode ")) {
			old_mode = span_trim(span_after(l, 9));
			if (parse_mode(ps, span_after(l, 9), &f->old_mode,
				       lineno) < 0)
				goto out;
		} else if (span_starts_with(l, "new mode ")) {
			new_mode = span_trim(span_after(l, 9));
			if (parse_mode(ps, span_after(l, 9), &f->new_mode,
				       lineno) < 0)
				goto out;
		} else if (span_starts_with(l, "deleted file mode ")) {
			f->op = PATCH_DELETE;
			if (parse_mode(ps, span_after(l, 18), &f->old_mode,
				       lineno) < 0)
				goto out;
		} else if (span_starts_with(l, "new file mode ")) {
			f->op = PATCH_ADD;
			if (parse_mode(ps, span_after(l, 14), &f->new_mode,
				       lineno) < 0)
				goto out;
		} else if (span_starts_with(l, "rename from ") ||
			   span_starts_with(l, "rename old ")) {
			f->op = PATCH_RENAME;
			ren = &rn.ren_old;
			ren_line = &rn.ren_old_line;
			v = span_after(l, 11 + (l.ptr[7] == 'f'));
		} else if (span_starts_with(l, "rename to ") ||
			   span_starts_with(l, "rename new ")) {
			f->op = PATCH_RENAME;
			ren = &rn.ren_new;
			ren_line = &rn.ren_new_line;
			v = span_after(l, l.ptr[7] == 't' ? 10 : 11);
		} else if (span_starts_with(l, "copy from ")) {
			f->op = PATCH_COPY;
			ren = &rn.ren_old;
			ren_line = &rn.ren_old_line;
			v = span_after(l, 10);
		} else if (span_starts_with(l, "copy to ")) {
			f->op = PATCH_COPY;
			ren = &rn.ren_new;
			ren_line = &rn.ren_new_line;
			v = span_after(l, 8);
		} else if (span_starts_with(l, "similarity index ")) {
			const char *s = l.ptr + 17;
			unsigned long pct = 0;

			if (parse_ulong(&s, l.ptr + l.len, &pct) && pct <= 100)
				f->similarity = (unsigned)pct;
		} else if (span_starts_with(l, "dissimilarity index ")) {
			/* informational */
		} else if (span_starts_with(l, "index ")) {
			parse_index_line(f, span_after(l, 6));
		} else {
			break;
		}
		if (ren) {
			free(*ren);
			*ren = NULL;
			if (read_name(ps, v, lineno, ren, NULL) < 0)
				goto out;
			*ren_line = lineno;
		}
		next_line(&ps->c, &l);
		ps->diff_end = ps->c.pos;
	}
	if (peek_at(&ps->c, 0, &l) && span_starts_with(l, "--- ") &&
	    peek_at(&ps->c, 1, &l1) && span_starts_with(l1, "+++ ")) {
		if (read_minus_plus(ps, &rn, NULL, NULL) < 0)
			goto out;
		has_hunks = true;
	} else if (peek_at(&ps->c, 0, &l) &&
		   span_starts_with(l, "Binary files ")) {
		f->binary = true;
		next_line(&ps->c, &l);
		ps->diff_end = ps->c.pos;
	} else if (peek_at(&ps->c, 0, &l) && span_eq(l, "GIT binary patch")) {
		f->binary = true;
		skip_git_binary(ps);
	}
	if (finish_names(ps, f, &rn) < 0)
		goto out;
	/* Without "---"/"+++" a git diff has no hunks: git says the same. */
	error = has_hunks ? parse_hunks(ps, f) : 0;
	/* a hunk right after the header: parse_diff names that error */
	if (!error && !(peek_at(&ps->c, 0, &l) && span_starts_with(l, "@@ -")))
		error = check_git_file(
			ps, f,
			new_mode.ptr &&
				!(old_mode.ptr && old_mode.len == new_mode.len &&
				  !memcmp(old_mode.ptr, new_mode.ptr,
					  new_mode.len)));
out:
	ps->git_file = false;
	raw_names_release(&rn);
	return error;
}

/* Quilt and plain diff -u: [Index: + ====] [diff ...] --- +++ hunks. */
static int parse_plain_file(struct parser *ps)
{
	struct raw_names rn = { 0 };
	struct span l, l1, old_stamp = SPAN_NULL, new_stamp = SPAN_NULL;
	size_t lineno = ps->c.lineno, index_line = 0;
	char *index_name = NULL;
	struct patch_file *f;
	int error = -1;

	peek_at(&ps->c, 0, &l);
	if (span_starts_with(l, "Index: ")) {
		index_line = lineno;
		index_name = span_dup(span_trim(span_after(l, 7)));
		next_line(&ps->c, &l);
		if (peek_at(&ps->c, 0, &l) && span_starts_with(l, "===="))
			next_line(&ps->c, &l);
	}
	if (peek_at(&ps->c, 0, &l) && span_starts_with(l, "diff ") &&
	    !span_starts_with(l, "diff --git "))
		next_line(&ps->c, &l);
	if (!peek_at(&ps->c, 0, &l)) {
		error = 0;
		goto out;
	}
	if (span_starts_with(l, "Binary files ")) {
		f = new_file(ps, lineno);
		f->binary = true;
		binary_names(l, &rn, ps->c.lineno);
		if (!rn.old && index_name) {
			rn.old = xstrdup(index_name);
			rn.new = xstrdup(index_name);
			rn.old_line = rn.new_line = index_line;
		}
		next_line(&ps->c, &l);
		ps->diff_end = ps->c.pos;
		error = finish_names(ps, f, &rn);
		goto out;
	}
	if (!span_starts_with(l, "--- ") || !peek_at(&ps->c, 1, &l1) ||
	    !span_starts_with(l1, "+++ ")) {
		error = 0; /* an Index: line with nothing after it */
		goto out;
	}
	f = new_file(ps, lineno);
	if (read_minus_plus(ps, &rn, &old_stamp, &new_stamp) < 0 ||
	    finish_names(ps, f, &rn) < 0 || parse_hunks(ps, f) < 0)
		goto out;
	/* diff -N: an absent side is the empty file dated at the epoch. */
	if (f->op == PATCH_MODIFY && f->nr_hunks == 1) {
		const struct patch_hunk *h = &f->hunks[0];

		if (is_epoch(old_stamp) && !h->old_start && !h->old_count) {
			f->op = PATCH_ADD;
			free(f->old_path);
			f->old_path = NULL;
		} else if (is_epoch(new_stamp) && !h->new_start &&
			   !h->new_count) {
			f->op = PATCH_DELETE;
			free(f->new_path);
			f->new_path = NULL;
		}
	}
	error = 0;
out:
	free(index_name);
	raw_names_release(&rn);
	return error;
}

static bool ends_with_differ(struct span l)
{
	return l.len >= 7 && !memcmp(l.ptr + l.len - 7, " differ", 7);
}

/* Does a file's header start at the cursor? */
static bool at_file_start(const struct cursor *c)
{
	struct span l0, l1, l2;
	bool h1, h2;

	if (!peek_at(c, 0, &l0))
		return false;
	if (span_starts_with(l0, "diff --git "))
		return true;
	h1 = peek_at(c, 1, &l1);
	h2 = peek_at(c, 2, &l2);
	if (span_starts_with(l0, "--- "))
		return h1 && span_starts_with(l1, "+++ ");
	if (span_starts_with(l0, "Index: "))
		return h1 && (span_starts_with(l1, "====") ||
			      (span_starts_with(l1, "--- ") && h2 &&
			       span_starts_with(l2, "+++ ")));
	if (span_starts_with(l0, "diff "))
		return h1 && ((span_starts_with(l1, "--- ") && h2 &&
			       span_starts_with(l2, "+++ ")) ||
			      span_starts_with(l1, "Binary files "));
	return false;
}

/* From the first file header to the end of the diff. */
static int parse_diff(struct parser *ps)
{
	struct patch *p = ps->p;
	const char *start = ps->c.pos;
	struct span l;

	ps->diff_end = start;
	while (peek_at(&ps->c, 0, &l)) {
		int error = 0;

		if (span_starts_with(l, "diff --git "))
			error = parse_git_file(ps);
		else if (at_file_start(&ps->c))
			error = parse_plain_file(ps);
		else if (is_signature(l))
			break;
		else if (span_starts_with(l, "@@"))
			return err_set(ps->err, ERR_PARSE,
				       "%s:%zu: hunk without a file header",
				       ps->name, ps->c.lineno);
		else if (span_starts_with(l, "Binary files ") &&
			 ends_with_differ(l))
			error = parse_plain_file(ps);
		else
			next_line(&ps->c, &l);
		if (error < 0)
			return error;
	}
	p->diff = (struct span){ start, (size_t)(ps->diff_end - start) };
	return 0;
}

/* ---- what comes before the diff --------------------------------------- */

static bool is_dep3_key(struct span key)
{
	static const char *const keys[] = {
		"Description",	"Author",	  "Origin",
		"Bug",		"Forwarded",	  "Last-Update",
		"Applied-Upstream",
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (span_eq_ci(key, keys[i]))
			return true;
	return span_starts_with_ci(key, "Bug-");
}

static bool is_continuation(struct span l)
{
	return l.len && (l.ptr[0] == ' ' || l.ptr[0] == '\t') &&
	       !is_blank(l);
}

/* Move past a block of "Key: value" lines and their continuations. */
static size_t skip_fields(struct cursor *c, bool *dep3, bool *mail)
{
	struct span l, key;
	size_t fields = 0;

	while (peek_at(c, 0, &l)) {
		if (!(fields && is_continuation(l))) {
			if (!field_key(l, &key, NULL) || span_eq(key, "Index"))
				break;
			fields++;
			if (dep3 && is_dep3_key(key))
				*dep3 = true;
			if (mail && (span_eq_ci(key, "From") ||
				     span_eq_ci(key, "Subject") ||
				     span_eq_ci(key, "Date")))
				*mail = true;
		}
		next_line(c, &l);
	}
	return fields;
}

static enum head_form classify(const struct cursor *c, bool mbox)
{
	struct cursor t = *c;
	bool dep3 = false, mail = false;
	size_t fields = skip_fields(&t, &dep3, &mail);

	if (mbox)
		return FORM_MAIL;
	if (!fields)
		return FORM_BARE;
	if (dep3)
		return FORM_DEP3;
	return mail ? FORM_MAIL : FORM_BARE;
}

static void replace(char **dst, const char *src)
{
	free(*dst);
	*dst = src ? xstrdup(src) : NULL;
}

/* Take what a parsed header block says; absent headers change nothing. */
/*
 * A DEP-3 field that kcarry's stored form keeps as a header of its own:
 * the ones that are not From/Date/Subject/Description by another name.
 */
static bool is_kept_dep3(const char *key)
{
	static const char *const mapped[] = { "Description", "Subject",
					      "Author", "From", "Date" };
	struct span k = span_from(key);

	for (size_t i = 0; i < sizeof(mapped) / sizeof(mapped[0]); i++)
		if (!strcasecmp(key, mapped[i]))
			return false;
	return is_dep3_key(k) || span_eq_ci(k, "Reviewed-by") ||
	       span_eq_ci(k, "Acked-by");
}

static void take_mail(struct patch *p, const struct mail *m)
{
	size_t alloc = p->nr_dep3;

	/* DEP-3 fields written as mail headers (kcarry's stored form of a
	 * quilt or Debian patch) come back as DEP-3 fields */
	for (size_t i = 0; i < m->nr_headers; i++) {
		const struct mail_header *h = &m->headers[i];
		if (!is_kept_dep3(h->name))
			continue;
		ALLOC_GROW(p->dep3, p->nr_dep3 + 1, alloc);
		p->dep3[p->nr_dep3].key = xstrdup(h->name);
		p->dep3[p->nr_dep3].value = xstrdup(h->value ? h->value : "");
		p->nr_dep3++;
	}
	if (m->from_name || m->from_email) {
		replace(&p->author_name, m->from_name);
		replace(&p->author_email, m->from_email);
	}
	if (m->date)
		replace(&p->date, m->date);
	if (m->message_id)
		replace(&p->message_id, m->message_id);
	if (m->subject) {
		struct subject_info si;

		subject_parse(&si, m->subject);
		replace(&p->subject, si.title ? si.title : m->subject);
		subject_info_release(&si);
	}
}

/* Parse header lines [from, to) with mail_parse; the block needs no LF. */
static int parse_header_block(struct parser *ps, struct mail *m,
			      const char *from, const char *to)
{
	struct buf b = BUF_INIT;
	int error;

	buf_add(&b, from, (size_t)(to - from));
	if (b.len && b.ptr[b.len - 1] != '\n')
		buf_addc(&b, '\n');
	buf_addc(&b, '\n');
	error = mail_parse(m, b.ptr, b.len, ps->name, ps->err);
	buf_release(&b);
	return error;
}

/* "charset=..." of a Content-Type value, or NULL. */
static char *content_charset(const char *ct)
{
	const char *s = ct ? strcasestr(ct, "charset=") : NULL;
	size_t n;

	if (!s)
		return NULL;
	s += 8;
	if (*s == '"')
		s++;
	n = strcspn(s, "\"; \t");
	return n ? xstrndup(s, n) : NULL;
}

static bool needs_decoding(const struct mail *m)
{
	const char *cte = mail_header(m, "Content-Transfer-Encoding");
	const char *ct = mail_header(m, "Content-Type");

	if (cte && (!strncasecmp(cte, "base64", 6) ||
		    !strncasecmp(cte, "quoted-printable", 16)))
		return true;
	return ct && !strncasecmp(ct, "multipart/", 10);
}

/*
 * The decoded body of a message whose body bytes are not the text (base64,
 * quoted-printable, attachments) replaces the raw bytes.
 */
static int use_decoded_body(struct parser *ps, const char *start)
{
	struct patch *p = ps->p;
	struct buf text = BUF_INIT;
	struct mail m;
	int error;

	mail_init(&m);
	error = mail_parse(&m, start, (size_t)(p->raw.ptr + p->raw.len - start),
			   ps->name, ps->err);
	if (error < 0)
		goto out;
	buf_addspan(&text, (struct span){ m.body.ptr, m.body.len });
	for (size_t i = 0; i < m.nr_attachments; i++) {
		if (text.len && text.ptr[text.len - 1] != '\n')
			buf_addc(&text, '\n');
		buf_add(&text, m.attachments[i].ptr, m.attachments[i].len);
	}
	buf_swap(&text, &p->raw);
	cursor_init(&ps->c, p->raw.ptr, p->raw.len);
	error = check_bytes(ps);
out:
	buf_release(&text);
	mail_release(&m);
	return error;
}

/* git am's in-body From:/Subject:/Date: lines at the top of the body. */
static int read_inbody_headers(struct parser *ps)
{
	struct cursor t = ps->c;
	const char *start;
	struct span l;
	struct mail m;
	int error;

	while (peek_at(&t, 0, &l) && is_blank(l))
		next_line(&t, &l);
	start = t.pos;
	while (peek_at(&t, 0, &l) &&
	       (span_starts_with(l, "From: ") ||
		span_starts_with(l, "Subject: ") ||
		span_starts_with(l, "Date: ") ||
		(t.pos != start && is_continuation(l))))
		next_line(&t, &l);
	if (t.pos == start)
		return 0;
	mail_init(&m);
	error = parse_header_block(ps, &m, start, t.pos);
	if (!error)
		take_mail(ps->p, &m);
	mail_release(&m);
	ps->c = t;
	return error;
}

/* An RFC 5322 header line: printable name, colon. */
static bool is_header_line(struct span l)
{
	size_t i = 0;

	while (i < l.len && l.ptr[i] > ' ' && l.ptr[i] < 127 && l.ptr[i] != ':')
		i++;
	return i && i < l.len && l.ptr[i] == ':';
}

static int read_mail_head(struct parser *ps, char **charset)
{
	const char *start = ps->c.pos;
	struct span l;
	struct mail m;
	int error;

	while (peek_at(&ps->c, 0, &l) &&
	       (is_header_line(l) ||
		(ps->c.pos != start && is_continuation(l))))
		next_line(&ps->c, &l);
	mail_init(&m);
	if ((error = parse_header_block(ps, &m, start, ps->c.pos)) < 0)
		goto out;
	take_mail(ps->p, &m);
	if (needs_decoding(&m)) {
		error = use_decoded_body(ps, start);
	} else {
		*charset = content_charset(mail_header(&m, "Content-Type"));
		if (peek_at(&ps->c, 0, &l) && is_blank(l))
			next_line(&ps->c, &l);
	}
	if (!error)
		error = read_inbody_headers(ps);
out:
	mail_release(&m);
	return error;
}

/* "Name <email>" as the From: header would give it. */
static void set_author(struct patch *p, const char *value)
{
	char *v = xstrdup(value), *name = NULL, *email = NULL;

	for (char *s = v; *s; s++)
		if (*s == '\n')
			*s = ' ';
	mail_parse_address(v, &name, &email);
	free(p->author_name);
	free(p->author_email);
	p->author_name = name;
	p->author_email = email;
	if (!name && !email)
		p->author_name = xstrdup(v);
	free(v);
}

static const struct patch_field *dep3_field(const struct patch *p,
					    const char *key)
{
	for (size_t i = 0; i < p->nr_dep3; i++)
		if (!strcasecmp(p->dep3[i].key, key))
			return &p->dep3[i];
	return NULL;
}

/*
 * DEP-3: "Key: value" lines, continuation lines indented, " ." for an
 * empty line; the block ends at a blank line or "---".  *dashes tells
 * that it ended at "---", after which free text is not description.
 */
static void read_dep3_head(struct parser *ps, bool *dashes)
{
	struct patch *p = ps->p;
	const struct patch_field *f;
	struct span l, key, value;
	struct buf v = BUF_INIT; /* value of the last field, growing */
	size_t alloc = 0;

	while (peek_at(&ps->c, 0, &l)) {
		if (p->nr_dep3 && is_continuation(l)) {
			struct span cont = span_after(l, 1);

			if (span_eq(span_trim(cont), "."))
				cont.len = 0;
			while (cont.len && isspace((unsigned char)
						   cont.ptr[cont.len - 1]))
				cont.len--;
			buf_addc(&v, '\n');
			buf_addspan(&v, cont);
		} else if (field_key(l, &key, &value) &&
			   !span_eq(key, "Index")) {
			if (p->nr_dep3)
				p->dep3[p->nr_dep3 - 1].value =
					buf_detach(&v, NULL);
			ALLOC_GROW(p->dep3, p->nr_dep3 + 1, alloc);
			p->dep3[p->nr_dep3].key = span_dup(key);
			p->dep3[p->nr_dep3].value = NULL;
			p->nr_dep3++;
			buf_addspan(&v, value);
		} else {
			break;
		}
		next_line(&ps->c, &l);
	}
	if (p->nr_dep3)
		p->dep3[p->nr_dep3 - 1].value = buf_detach(&v, NULL);
	buf_release(&v);
	*dashes = false;
	if (peek_at(&ps->c, 0, &l) && span_eq(span_trim(l), "---")) {
		*dashes = true;
		next_line(&ps->c, &l);
	} else if (peek_at(&ps->c, 0, &l) && is_blank(l)) {
		next_line(&ps->c, &l);
	}

	if ((f = dep3_field(p, "Description"))) {
		const char *d = f->value, *nl;

		while (*d == '\n')
			d++;
		nl = strchr(d, '\n');
		p->subject = nl ? xstrndup(d, (size_t)(nl - d)) : xstrdup(d);
		if (nl) {
			while (*nl == '\n')
				nl++;
			buf_adds(&p->message, nl);
		}
	} else if ((f = dep3_field(p, "Subject"))) {
		struct buf b = BUF_INIT;
		struct subject_info si;

		mail_decode_header(&b, f->value, strlen(f->value));
		for (size_t i = 0; i < b.len; i++)
			if (b.ptr[i] == '\n')
				b.ptr[i] = ' ';
		subject_parse(&si, b.ptr);
		p->subject = xstrdup(si.title ? si.title : b.ptr);
		subject_info_release(&si);
		buf_release(&b);
	}
	if ((f = dep3_field(p, "Author")) || (f = dep3_field(p, "From")))
		set_author(p, f->value);
	if ((f = dep3_field(p, "Date")))
		p->date = xstrdup(f->value);
}

/* "---" ends the message (git am's patch break); so does "--- x". */
static bool is_separator(struct span l)
{
	return span_starts_with(l, "---") &&
	       (l.len == 3 || l.ptr[3] == ' ' || l.ptr[3] == '\t');
}

/*
 * Free text up to the separator or the diff goes to msg (when not NULL);
 * text between the separator and the diff (a diffstat) is dropped.
 * Returns whether a diff starts at the cursor.
 */
static bool read_free_text(struct parser *ps, struct buf *msg)
{
	bool in_msg = msg != NULL;
	struct span l;

	while (peek_at(&ps->c, 0, &l)) {
		if (at_file_start(&ps->c))
			return true;
		if (in_msg && is_separator(l)) {
			in_msg = false;
		} else if (in_msg && (msg->len || !is_blank(l))) {
			buf_addspan(msg, l);
			buf_addc(msg, '\n');
		}
		next_line(&ps->c, &l);
	}
	return false;
}

static void add_field(struct patch_field **arr, size_t *nr, struct span key,
		      struct span value)
{
	/* Room for a power of two: no alloc count, yet no quadratic growth. */
	if (!(*nr & (*nr - 1)))
		*arr = xrealloc(*arr, (*nr ? *nr * 2 : 1) * sizeof(**arr));
	(*arr)[*nr].key = span_dup(key);
	(*arr)[*nr].value = span_dup(value);
	(*nr)++;
}

/* The last paragraph of the message, when it is all trailers. */
static void find_trailers(struct patch *p)
{
	struct cursor c;
	struct span l, key, value;
	const char *para = p->message.ptr;
	struct patch_field *t = NULL;
	struct buf v = BUF_INIT; /* value of the last trailer, growing */
	size_t nr = 0;

	cursor_init(&c, p->message.ptr, p->message.len);
	while (cursor_next(&c, &l, NULL))
		if (is_blank(l))
			para = c.pos;
	cursor_init(&c, para, (size_t)(p->message.ptr + p->message.len -
				       para));
	while (cursor_next(&c, &l, NULL)) {
		if (is_continuation(l) && nr) {
			buf_addc(&v, ' ');
			buf_addspan(&v, span_trim(l));
		} else if (field_key(l, &key, &value) && value.len) {
			if (nr) {
				free(t[nr - 1].value);
				t[nr - 1].value = buf_detach(&v, NULL);
			}
			add_field(&t, &nr, key, value);
			buf_addspan(&v, value);
		} else if (!(l.len && l.ptr[0] == '[') &&
			   !span_starts_with(l, "(cherry picked from")) {
			free_fields(t, nr);
			buf_release(&v);
			return;
		}
	}
	if (nr) {
		free(t[nr - 1].value);
		t[nr - 1].value = buf_detach(&v, NULL);
	}
	buf_release(&v);
	p->trailers = t;
	p->nr_trailers = nr;
}

static void convert_message(struct patch *p, const char *charset)
{
	struct buf b = BUF_INIT;

	if (!charset || !strcasecmp(charset, "utf-8") ||
	    !strcasecmp(charset, "utf8") || !strcasecmp(charset, "us-ascii") ||
	    !has_8bit(p->message.ptr, p->message.len))
		return;
	mail_to_utf8(&b, p->message.ptr, p->message.len, charset);
	buf_swap(&b, &p->message);
	buf_release(&b);
}

static bool is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

/*
 * "From <sha or address> Mon Sep 17 00:00:00 2001": an mbox separator,
 * not a sentence that starts with "From".
 */
static bool is_mbox_line(struct span l, struct span *id)
{
	static const char *const days[] = { "Mon ", "Tue ", "Wed ", "Thu ",
					    "Fri ", "Sat ", "Sun " };
	const char *sp;
	struct span rest;

	if (!span_starts_with(l, "From "))
		return false;
	*id = span_after(l, 5);
	sp = memchr(id->ptr, ' ', id->len);
	if (!sp)
		return false;
	id->len = (size_t)(sp - id->ptr);
	rest = (struct span){ sp + 1, (size_t)(l.ptr + l.len - sp - 1) };
	for (size_t i = 0; i < sizeof(days) / sizeof(days[0]); i++)
		if (span_starts_with(rest, days[i]))
			return true;
	return false;
}

/*
 * A header holds no control characters (RFC 5322), but an encoded word
 * can decode to one ("=?utf-8?q?=1B[2J?="): each becomes U+FFFD, so that
 * no report, terminal or commit carries an escape sequence.  A tab is a
 * space.
 */
static void clean_header_text(char **s)
{
	struct buf b = BUF_INIT;

	if (!*s)
		return;
	buf_add_printable(&b, *s);
	if (strcmp(b.ptr, *s)) {
		free(*s);
		*s = buf_detach(&b, NULL);
	} else
		buf_release(&b);
}

int patch_parse(struct patch *p, const char *text, size_t len,
		const struct patch_parse_opts *opts, struct err *err)
{
	struct parser ps = { 0 };
	struct buf free_text = BUF_INIT;
	char *charset = NULL;
	bool dashes = false, mbox = false, found;
	enum head_form form;
	struct span l, id;
	int error;

	patch_release(p);
	ps.p = p;
	ps.err = err;
	ps.name = p->name = xstrdup(opts && opts->name ? opts->name : "patch");
	ps.strip = opts && opts->strip_set ? opts->strip : 1;
	if (ps.strip < 0) {
		error = err_set(err, ERR_USAGE, "%s: invalid strip count %d",
				ps.name, ps.strip);
		goto fail;
	}
	buf_add(&p->raw, text, len);
	if ((error = check_bytes(&ps)) < 0)
		goto fail;
	cursor_init(&ps.c, p->raw.ptr, p->raw.len);

	while (peek_at(&ps.c, 0, &l) && is_blank(l))
		next_line(&ps.c, &l);
	if (peek_at(&ps.c, 0, &l) && is_mbox_line(l, &id)) {
		if ((id.len == 40 || id.len == 64) && is_hex(id.ptr, id.len))
			p->commit = span_dup(id);
		next_line(&ps.c, &l);
		mbox = true;
	}
	form = classify(&ps.c, mbox);
	if (form == FORM_MAIL) {
		if ((error = read_mail_head(&ps, &charset)) < 0)
			goto fail;
	} else if (form == FORM_DEP3) {
		read_dep3_head(&ps, &dashes);
	}
	found = read_free_text(&ps, dashes ? NULL : &free_text);
	buf_rtrim(&free_text);
	if (free_text.len) {
		buf_rtrim(&p->message);
		if (p->message.len)
			buf_adds(&p->message, "\n\n");
		buf_addspan(&p->message,
			    (struct span){ free_text.ptr, free_text.len });
	}
	buf_rtrim(&p->message);
	if (p->message.len)
		buf_addc(&p->message, '\n');
	convert_message(p, charset);
	find_trailers(p);
	clean_header_text(&p->subject);
	clean_header_text(&p->author_name);
	clean_header_text(&p->author_email);
	if (!found) {
		error = err_set(err, ERR_PARSE, "%s: no diff found", ps.name);
		goto fail;
	}
	if ((error = parse_diff(&ps)) < 0)
		goto fail;
	if (!p->nr_files) {
		error = err_set(err, ERR_PARSE, "%s: no diff found", ps.name);
		goto fail;
	}
	error = 0;
	goto out;
fail:
	patch_release(p);
out:
	free(charset);
	buf_release(&free_text);
	return error;
}

void patch_add_trailer(struct patch *p, const char *key, const char *value)
{
	for (size_t i = 0; i < p->nr_trailers; i++)
		if (!strcasecmp(p->trailers[i].key, key) &&
		    !strcmp(p->trailers[i].value, value))
			return;
	if (p->message.len && !p->nr_trailers)
		buf_addc(&p->message, '\n');
	buf_addf(&p->message, "%s: %s\n", key, value);
	add_field(&p->trailers, &p->nr_trailers, span_from(key),
		  span_from(value));
}

int patch_check_text(const struct patch *p, struct err *err)
{
	for (size_t i = 0; i < p->nr_files; i++) {
		if (!p->files[i].binary)
			continue;
		err_set(err, ERR_PARSE,
			"%s: '%s' is a binary patch, which kcarry cannot apply",
			p->name ? p->name : "patch",
			patch_file_path(&p->files[i]));
		err_hint(err, "apply this patch with 'git am' and import the "
			      "result as a git range");
		return ERR_PARSE;
	}
	return 0;
}

/* ---- writing ----------------------------------------------------------- */

struct stat_entry {
	char *name;
	unsigned long adds, dels;
	bool binary;
};

/* A byte git's quote_c_style escapes (core.quotePath on): its letter
 * ('a' for BEL, '"' for '"'), 'o' for octal, or 0. */
static char quote_as(unsigned char c)
{
	static const char letters[] = "abtnvfr";

	if (c >= 0x07 && c <= 0x0d)
		return letters[c - 0x07];
	if (c == '"' || c == '\\')
		return (char)c;
	return c < 0x20 || c >= 0x7f ? 'o' : 0;
}

/* A path as git names it in a diffstat: "..." with C escapes when it
 * holds a control character, a quote, a backslash or a non-ASCII byte. */
static void add_quoted_path(struct buf *out, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	bool quote = false;

	for (const unsigned char *p = u; *p && !quote; p++)
		quote = quote_as(*p) != 0;
	if (!quote) {
		buf_adds(out, s);
		return;
	}
	buf_addc(out, '"');
	for (; *u; u++) {
		char q = quote_as(*u);

		if (q == 'o')
			buf_addf(out, "\\%03o", *u);
		else if (q)
			buf_addf(out, "\\%c", q);
		else
			buf_addc(out, (char)*u);
	}
	buf_addc(out, '"');
}

static char *quoted_path(const char *s)
{
	struct buf b = BUF_INIT;

	add_quoted_path(&b, s);
	return buf_detach(&b, NULL);
}

/* "a/{b => c}/d" as git writes a rename in a diffstat; both names whole
 * and quoted when either needs quoting. */
static char *rename_name(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), pfx = 0, sfx = 0;
	char *qa = quoted_path(a), *qb = quoted_path(b);

	if (strcmp(qa, a) || strcmp(qb, b)) {
		char *both = xstrfmt("%s => %s", qa, qb);

		free(qa);
		free(qb);
		return both;
	}
	free(qa);
	free(qb);

	for (size_t i = 0; i < la && i < lb && a[i] == b[i]; i++)
		if (a[i] == '/')
			pfx = i + 1;
	for (size_t i = 1; i <= la - pfx && i <= lb - pfx &&
			   a[la - i] == b[lb - i];
	     i++)
		if (a[la - i] == '/')
			sfx = i;
	if (!pfx && !sfx)
		return xstrfmt("%s => %s", a, b);
	return xstrfmt("%.*s{%.*s => %.*s}%s", (int)pfx, a,
		       (int)(la - pfx - sfx), a + pfx, (int)(lb - pfx - sfx),
		       b + pfx, a + la - sfx);
}

static void add_repeat(struct buf *out, char c, unsigned long n)
{
	while (n--)
		buf_addc(out, c);
}

static unsigned digits(unsigned long n)
{
	unsigned d = 1;

	while (n >= 10) {
		n /= 10;
		d++;
	}
	return d;
}

/* At least one column for any change: as if one column were missing. */
static unsigned long scale_linear(unsigned long n, size_t width,
				  unsigned long max_change)
{
	return n ? 1 + n * (width - 1) / max_change : 0;
}

void patch_diffstat(struct buf *out, const struct patch *p)
{
	struct stat_entry *e = xcalloc(p->nr_files, sizeof(*e));
	unsigned long adds = 0, dels = 0, max_change = 0;
	size_t name_w = 0, num_w = 1, graph_w;

	for (size_t i = 0; i < p->nr_files; i++) {
		const struct patch_file *f = &p->files[i];

		if ((f->op == PATCH_RENAME || f->op == PATCH_COPY) &&
		    f->old_path && f->new_path)
			e[i].name = rename_name(f->old_path, f->new_path);
		else
			e[i].name = quoted_path(patch_file_path(f));
		e[i].binary = f->binary;
		for (size_t j = 0; j < f->nr_hunks; j++)
			for (size_t k = 0; k < f->hunks[j].nr_lines; k++) {
				char kind = f->hunks[j].lines[k].kind;
				e[i].adds += kind == '+';
				e[i].dels += kind == '-';
			}
		adds += e[i].adds;
		dels += e[i].dels;
		if (e[i].adds + e[i].dels > max_change)
			max_change = e[i].adds + e[i].dels;
		if (strlen(e[i].name) > name_w)
			name_w = strlen(e[i].name);
	}
	num_w = digits(max_change);
	if (num_w < 3 && p->nr_files && e[0].binary)
		num_w = 3;
	graph_w = STAT_WIDTH > name_w + num_w + 6 ? STAT_WIDTH - name_w -
							    num_w - 6
						  : 10;
	for (size_t i = 0; i < p->nr_files; i++) {
		unsigned long a = e[i].adds, d = e[i].dels;

		buf_addf(out, " %-*s | ", (int)name_w, e[i].name);
		if (e[i].binary) {
			buf_addf(out, "%*s\n", (int)num_w, "Bin");
			continue;
		}
		buf_addf(out, "%*lu", (int)num_w, a + d);
		if (a + d) {
			if (max_change > graph_w) {
				/* git's diff.c: scale the total, then the
				 * smaller side (deletions when even) */
				unsigned long t = scale_linear(a + d, graph_w,
							       max_change);
				if (t < 2 && a && d)
					t = 2;
				if (a < d) {
					a = scale_linear(a, graph_w, max_change);
					d = t - a;
				} else {
					d = scale_linear(d, graph_w, max_change);
					a = t - d;
				}
			}
			buf_addc(out, ' ');
			add_repeat(out, '+', a);
			add_repeat(out, '-', d);
		}
		buf_addc(out, '\n');
	}
	buf_addf(out, " %zu file%s changed", p->nr_files,
		 p->nr_files == 1 ? "" : "s");
	if (adds || !dels)
		buf_addf(out, ", %lu insertion%s(+)", adds,
			 adds == 1 ? "" : "s");
	if (dels || !adds)
		buf_addf(out, ", %lu deletion%s(-)", dels,
			 dels == 1 ? "" : "s");
	buf_addc(out, '\n');
	for (size_t i = 0; i < p->nr_files; i++) {
		const struct patch_file *f = &p->files[i];

		if (f->op == PATCH_ADD || f->op == PATCH_DELETE) {
			buf_addf(out, " %s mode %06o ",
				 f->op == PATCH_ADD ? "create" : "delete",
				 f->op == PATCH_ADD ? f->new_mode
						    : f->old_mode);
			add_quoted_path(out, patch_file_path(f));
			buf_addc(out, '\n');
		} else if (f->op == PATCH_RENAME || f->op == PATCH_COPY)
			buf_addf(out, " %s %s (%u%%)\n",
				 f->op == PATCH_RENAME ? "rename" : "copy",
				 e[i].name, f->similarity);
		if (f->op != PATCH_ADD && f->op != PATCH_DELETE &&
		    f->old_mode && f->new_mode && f->old_mode != f->new_mode) {
			buf_addf(out, " mode change %06o => %06o ", f->old_mode,
				 f->new_mode);
			add_quoted_path(out, patch_file_path(f));
			buf_addc(out, '\n');
		}
		free(e[i].name);
	}
	free(e);
}

/* An ASCII display name git would quote: RFC 822 specials. */
static void add_display_name(struct buf *out, const char *name)
{
	struct buf enc = BUF_INIT;

	if (has_8bit(name, strlen(name))) {
		mail_encode_header(&enc, name);
		buf_add(out, enc.ptr, enc.len);
	} else if (strpbrk(name, "()<>[]:;@\\,.\"")) {
		buf_addc(out, '"');
		for (const char *s = name; *s; s++) {
			if (*s == '"' || *s == '\\')
				buf_addc(out, '\\');
			buf_addc(out, *s);
		}
		buf_addc(out, '"');
	} else {
		buf_adds(out, name);
	}
	buf_release(&enc);
}

/* The title used when the patch has no subject: its file name. */
static void add_fallback_title(struct buf *out, const struct patch *p)
{
	const char *name = p->name ? p->name : "patch";
	const char *base = strrchr(name, '/');
	size_t n;

	base = base ? base + 1 : name;
	n = strlen(base);
	if (ends_with(base, ".patch"))
		n -= 6;
	else if (ends_with(base, ".diff"))
		n -= 5;
	buf_add(out, base, n);
}

void patch_format(struct buf *out, const struct patch *p,
		  const struct patch_format_opts *opts)
{
	const char *prefix = opts && opts->prefix ? opts->prefix : "PATCH";
	struct buf subj = BUF_INIT, enc = BUF_INIT;
	bool eight = false;

	buf_addf(out, "From %s Mon Sep 17 00:00:00 2001\n",
		 p->commit ? p->commit
			   : "0000000000000000000000000000000000000000");
	if ((p->author_name && *p->author_name) || p->author_email) {
		buf_adds(out, "From: ");
		if (p->author_name && *p->author_name) {
			add_display_name(out, p->author_name);
			if (p->author_email)
				buf_addc(out, ' ');
		}
		if (p->author_email)
			buf_addf(out, "<%s>", p->author_email);
		buf_addc(out, '\n');
	}
	if (p->date)
		buf_addf(out, "Date: %s\n", p->date);
	if (opts && opts->total > 1)
		buf_addf(&subj, "[%s %u/%u] ", prefix, opts->index,
			 opts->total);
	else
		buf_addf(&subj, "[%s] ", prefix);
	if (p->subject)
		buf_adds(&subj, p->subject);
	else
		add_fallback_title(&subj, p);
	mail_encode_header(&enc, subj.ptr);
	buf_adds(out, "Subject: ");
	buf_add(out, enc.ptr, enc.len);
	buf_addc(out, '\n');
	/* DEP-3 fields with no place in a format-patch header (Origin,
	 * Bug-Debian, Forwarded, ...) stay as headers of their own: git am
	 * ignores them, and nothing of a Debian patch is lost */
	for (size_t i = 0; i < p->nr_dep3; i++) {
		const struct patch_field *f = &p->dep3[i];
		if (!is_kept_dep3(f->key) || !f->value)
			continue;
		buf_addf(out, "%s:", f->key);
		/* a multi-line value as folded lines, each encoded alone */
		for (const char *v = f->value; *v;) {
			size_t n = strcspn(v, "\n");
			char *line = xstrndup(v, n);
			buf_reset(&enc);
			mail_encode_header(&enc, line);
			buf_addc(out, ' ');
			buf_add(out, enc.ptr, enc.len);
			free(line);
			v += n;
			if (*v == '\n' && *++v)
				buf_adds(out, "\n");
		}
		buf_addc(out, '\n');
	}
	eight = has_8bit(p->message.ptr, p->message.len) ||
		has_8bit(subj.ptr, subj.len) ||
		(p->author_name &&
		 has_8bit(p->author_name, strlen(p->author_name))) ||
		has_8bit(p->diff.ptr, p->diff.len);
	if (eight)
		buf_adds(out, "MIME-Version: 1.0\n"
			      "Content-Type: text/plain; charset=UTF-8\n"
			      "Content-Transfer-Encoding: 8bit\n");
	buf_addc(out, '\n');
	if (p->message.len) {
		buf_add(out, p->message.ptr, p->message.len);
		if (p->message.ptr[p->message.len - 1] != '\n')
			buf_addc(out, '\n');
	}
	buf_adds(out, "---\n");
	patch_diffstat(out, p);
	buf_addc(out, '\n');
	buf_addspan(out, p->diff);
	if (p->diff.len && p->diff.ptr[p->diff.len - 1] != '\n')
		buf_addc(out, '\n');
	buf_adds(out, "-- \n" SIGNATURE "\n\n");
	buf_release(&subj);
	buf_release(&enc);
}

static bool is_title_char(char c)
{
	return isalnum((unsigned char)c) || c == '.' || c == '_';
}

char *patch_slug(const char *subject)
{
	struct buf b = BUF_INIT;
	int space = 2;

	/* git's format_sanitized_subject, then its file-name limit. */
	for (const char *s = subject ? subject : ""; *s; s++) {
		if (!is_title_char(*s) || (unsigned char)*s >= 0x80) {
			space |= 1;
			continue;
		}
		if (space == 1)
			buf_addc(&b, '-');
		space = 0;
		buf_addc(&b, *s);
		if (*s == '.')
			while (s[1] == '.')
				s++;
	}
	while (b.len && (b.ptr[b.len - 1] == '.' || b.ptr[b.len - 1] == '-'))
		b.len--;
	if (b.len > SLUG_MAX)
		b.len = SLUG_MAX;
	buf_truncate(&b, b.len);
	return buf_detach(&b, NULL);
}
