/*
 * cursor: walks a byte range line by line, counting lines for error
 * messages.  Every text parser in kcarry reads through one of these.
 */
#ifndef KCARRY_CURSOR_H
#define KCARRY_CURSOR_H

#include "buf.h"

struct cursor {
	const char *pos;
	const char *end;
	size_t lineno; /* 1-based number of the line next_line returns next */
};

void cursor_init(struct cursor *c, const char *ptr, size_t len);
bool cursor_eof(const struct cursor *c);
/*
 * Return the next line in *line without its LF (a CR before the LF is kept:
 * callers decide what CRLF means).  *full, when not NULL, gets the line with
 * its LF.  Returns false at the end.
 */
bool cursor_next(struct cursor *c, struct span *line, struct span *full);
/* Like cursor_next but does not move. */
bool cursor_peek(const struct cursor *c, struct span *line);
/* The rest of the input from the current position. */
struct span cursor_rest(const struct cursor *c);

/* Strip one trailing CR. */
struct span span_chomp_cr(struct span s);

#endif
