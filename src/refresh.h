/*
 * refresh: turns the commits of a carried series into the refreshed
 * per-target quilt series (format-patch files that apply exactly to the
 * target, each with a note of what was adjusted) under
 * patches/NAME/VERSION/TARGET/.
 */
#ifndef KCARRY_REFRESH_H
#define KCARRY_REFRESH_H

#include "carry.h"

/* Write patches/NAME/VERSION/TARGET/ from res; *written gets the count. */
int refresh_write(size_t *written, const char *root, struct tree_repo *repo,
		  const struct carry_result *res, struct err *err);

/*
 * Set the refreshed text of every committed patch of res (its
 * carry_patch.refreshed), as refresh_write would write it; refresh_write
 * then writes those texts instead of formatting them again.
 */
int refresh_texts(struct tree_repo *repo, struct carry_result *res,
		  struct err *err);

/* The note put after "---" in a refreshed patch ("" when exact). */
void refresh_note(struct buf *out, const struct carry_patch *cp,
		  const char *target);
/*
 * Put note, with a newline, right after the "---" line that ends the
 * message of text; an empty note, or a text without that line, is left.
 */
void refresh_insert_note(struct buf *text, const struct buf *note);

#endif
