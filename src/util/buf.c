#include "buf.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

char buf_slopbuf[1];

/* Out of memory is the environment failing (exit status 3), not a crash:
 * no core dump, and the message says what happened. */
_Noreturn void die_oom(size_t size)
{
	fprintf(stderr, "fatal: out of memory allocating %zu bytes\n", size);
	exit(3);
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		die_oom(size);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		die_oom(nmemb * size);
	return p;
}

void *xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);
	if (!p)
		die_oom(size);
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xstrfmt(const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	return buf_detach(&b, NULL);
}

void buf_init(struct buf *b, size_t hint)
{
	b->ptr = buf_slopbuf;
	b->len = 0;
	b->alloc = 0;
	if (hint)
		buf_grow(b, hint);
}

void buf_release(struct buf *b)
{
	if (b->alloc)
		free(b->ptr);
	buf_init(b, 0);
}

void buf_grow(struct buf *b, size_t extra)
{
	size_t need;

	if (extra > SIZE_MAX - b->len - 1)
		die_oom(SIZE_MAX);
	need = b->len + extra + 1;
	if (need <= b->alloc)
		return;
	if (!b->alloc)
		b->ptr = NULL;
	b->alloc = b->alloc * 3 / 2 > need ? b->alloc * 3 / 2 : need;
	if (b->alloc < 64)
		b->alloc = 64;
	b->ptr = xrealloc(b->ptr, b->alloc);
	b->ptr[b->len] = '\0';
}

void buf_add(struct buf *b, const void *data, size_t len)
{
	const char *d = data;

	if (!len)
		return;
	if (b->alloc && d >= b->ptr && d < b->ptr + b->alloc) {
		/* adding our own bytes: buf_grow may move them */
		size_t off = (size_t)(d - b->ptr);
		buf_grow(b, len);
		d = b->ptr + off;
	} else
		buf_grow(b, len);
	memmove(b->ptr + b->len, d, len);
	b->len += len;
	b->ptr[b->len] = '\0';
}

void buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void buf_addc(struct buf *b, char c)
{
	buf_grow(b, 1);
	b->ptr[b->len++] = c;
	b->ptr[b->len] = '\0';
}

void buf_addspan(struct buf *b, struct span s)
{
	buf_add(b, s.ptr, s.len);
}

void buf_vaddf(struct buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	buf_grow(b, 64);
	va_copy(cp, ap);
	n = vsnprintf(b->ptr + b->len, b->alloc - b->len, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	if ((size_t)n >= b->alloc - b->len) {
		buf_grow(b, (size_t)n);
		n = vsnprintf(b->ptr + b->len, b->alloc - b->len, fmt, ap);
	}
	b->len += (size_t)n;
}

void buf_addf(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(b, fmt, ap);
	va_end(ap);
}

void buf_truncate(struct buf *b, size_t len)
{
	if (len > b->len)
		len = b->len;
	b->len = len;
	if (b->alloc)
		b->ptr[len] = '\0';
}

char *buf_detach(struct buf *b, size_t *len)
{
	char *p;

	if (!b->alloc)
		buf_grow(b, 0);
	p = b->ptr;
	if (len)
		*len = b->len;
	buf_init(b, 0);
	return p;
}

void buf_swap(struct buf *a, struct buf *b)
{
	struct buf t = *a;
	*a = *b;
	*b = t;
}

void buf_rtrim(struct buf *b)
{
	while (b->len && isspace((unsigned char)b->ptr[b->len - 1]))
		b->len--;
	buf_truncate(b, b->len);
}

struct span span_from(const char *s)
{
	return (struct span){ s, s ? strlen(s) : 0 };
}

struct span span_trim(struct span s)
{
	while (s.len && isspace((unsigned char)*s.ptr)) {
		s.ptr++;
		s.len--;
	}
	while (s.len && isspace((unsigned char)s.ptr[s.len - 1]))
		s.len--;
	return s;
}

bool span_eq(struct span s, const char *lit)
{
	size_t n = strlen(lit);
	return s.len == n && !memcmp(s.ptr, lit, n);
}

bool span_starts_with(struct span s, const char *prefix)
{
	size_t n = strlen(prefix);
	return s.len >= n && !memcmp(s.ptr, prefix, n);
}

static bool word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

bool span_has_word(struct span s, const char *word, size_t n)
{
	const char *end = s.ptr + s.len, *q;

	for (const char *p = s.ptr; n && p + n <= end; p = q + 1) {
		if (!(q = memmem(p, (size_t)(end - p), word, n)))
			return false;
		if ((q == s.ptr || !word_char(q[-1])) &&
		    (q + n == end || !word_char(q[n])))
			return true;
	}
	return false;
}

bool span_starts_with_ci(struct span s, const char *prefix)
{
	size_t n = strlen(prefix);
	return s.len >= n && !strncasecmp(s.ptr, prefix, n);
}

char *span_dup(struct span s)
{
	return xstrndup(s.ptr ? s.ptr : "", s.len);
}

bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !memcmp(s + n - m, suffix, m);
}

size_t buf_control_len(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	if ((*u && *u < 0x20) || *u == 0x7f)
		return 1;
	/* C1 (U+0080-U+009F) in UTF-8: CSI is one of them */
	if (u[0] == 0xc2 && u[1] >= 0x80 && u[1] <= 0x9f)
		return 2;
	return 0;
}

void buf_add_printable(struct buf *b, const char *s)
{
	while (*s) {
		size_t n = buf_control_len(s);

		if (*s == '\t')
			buf_addc(b, ' ');
		else if (n)
			buf_adds(b, "\xef\xbf\xbd");
		else
			buf_addc(b, *s);
		s += n ? n : 1;
	}
}
