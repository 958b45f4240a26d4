#include "cursor.h"

#include <string.h>

void cursor_init(struct cursor *c, const char *ptr, size_t len)
{
	c->pos = ptr;
	c->end = ptr + len;
	c->lineno = 1;
}

bool cursor_eof(const struct cursor *c)
{
	return c->pos >= c->end;
}

bool cursor_peek(const struct cursor *c, struct span *line)
{
	const char *nl;

	if (c->pos >= c->end)
		return false;
	nl = memchr(c->pos, '\n', (size_t)(c->end - c->pos));
	line->ptr = c->pos;
	line->len = (size_t)((nl ? nl : c->end) - c->pos);
	return true;
}

bool cursor_next(struct cursor *c, struct span *line, struct span *full)
{
	struct span l;

	if (!cursor_peek(c, &l))
		return false;
	if (full) {
		full->ptr = l.ptr;
		full->len = l.len + (l.ptr + l.len < c->end ? 1 : 0);
	}
	c->pos = l.ptr + l.len;
	if (c->pos < c->end)
		c->pos++;
	c->lineno++;
	*line = l;
	return true;
}

struct span cursor_rest(const struct cursor *c)
{
	return (struct span){ c->pos, (size_t)(c->end - c->pos) };
}

struct span span_chomp_cr(struct span s)
{
	if (s.len && s.ptr[s.len - 1] == '\r')
		s.len--;
	return s;
}
