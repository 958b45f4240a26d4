/*
 * buf: growable byte buffers, spans into owned bytes, and the allocation
 * helpers that end the program when memory runs out.
 */
#ifndef KCARRY_BUF_H
#define KCARRY_BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* A buffer's ptr is never NULL and always NUL-terminated. */
struct buf {
	char *ptr;
	size_t len;
	size_t alloc;
};

extern char buf_slopbuf[];
#define BUF_INIT { buf_slopbuf, 0, 0 }

/* A view into bytes owned by someone else; never outlives the owner. */
struct span {
	const char *ptr;
	size_t len;
};

#define SPAN_NULL ((struct span){ NULL, 0 })

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xstrfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* What the x* helpers do when malloc fails: "out of memory", exit 3. */
_Noreturn void die_oom(size_t size);
/* Grow *arr so that it holds at least nr elements of size sz. */
#define ALLOC_GROW(arr, nr, alloc)                                          \
	do {                                                                \
		if ((nr) > (alloc)) {                                       \
			(alloc) = (alloc) < 16 ? 16 : (alloc) * 2;          \
			if ((alloc) < (nr))                                 \
				(alloc) = (nr);                             \
			(arr) = xrealloc((arr), (alloc) * sizeof(*(arr)));  \
		}                                                           \
	} while (0)

void buf_init(struct buf *b, size_t hint);
void buf_release(struct buf *b);
void buf_grow(struct buf *b, size_t extra);
void buf_add(struct buf *b, const void *data, size_t len);
void buf_adds(struct buf *b, const char *s);
void buf_addc(struct buf *b, char c);
void buf_addspan(struct buf *b, struct span s);
void buf_addf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void buf_vaddf(struct buf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
void buf_truncate(struct buf *b, size_t len);
#define buf_reset(b) buf_truncate((b), 0)
/* Hand the bytes to the caller (always NUL-terminated, malloc'd). */
char *buf_detach(struct buf *b, size_t *len);
void buf_swap(struct buf *a, struct buf *b);
/* Strip trailing whitespace (spaces, tabs, CR, LF). */
void buf_rtrim(struct buf *b);

struct span span_from(const char *s);
struct span span_trim(struct span s);
bool span_eq(struct span s, const char *lit);
bool span_starts_with(struct span s, const char *prefix);
bool span_starts_with_ci(struct span s, const char *prefix);
/* s holds word (n bytes) as a whole C identifier: no letter, digit or
 * '_' touches it on either side. */
bool span_has_word(struct span s, const char *word, size_t n);
char *span_dup(struct span s);

bool starts_with(const char *s, const char *prefix);
bool ends_with(const char *s, const char *suffix);

/*
 * Text a person reads holds no control character: an ESC from a Subject
 * or a file name would reach the terminal, a newline would forge a line.
 * buf_control_len: the length of the control character at s (C0 or DEL:
 * 1; C1, U+0080-U+009F in UTF-8: 2), else 0.  buf_add_printable appends
 * s with each control character as U+FFFD and a tab as a space.
 */
size_t buf_control_len(const char *s);
void buf_add_printable(struct buf *b, const char *s);

#endif
