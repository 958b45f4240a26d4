/*
 * already: whether a hunk's change stands in a region of the target in
 * edited form, whatever its context says: every significant added line
 * there in order, none of the removed ones.  Compares the C lexer's
 * tokens, so comments and whitespace do not count.  Knows nothing of
 * placement: apply.c picks the region (the function the hunk names) and
 * asks only for hunks that placed nowhere.
 */
#ifndef KCARRY_ALREADY_H
#define KCARRY_ALREADY_H

#include "patch.h"

/* Where the added lines of one hunk stand. */
struct already_found {
	/*
	 * Per added line of the hunk, in order: the 1-based target line
	 * where its first token stands, 0 for a line without code (a blank
	 * or a comment).
	 */
	unsigned long *lines;
	size_t nr;
};

void already_found_release(struct already_found *af);

/*
 * Whether hunk h is applied in region (target lines, whole, the first of
 * them numbered first_line): each block of added lines (consecutive in the
 * postimage) stands there as whole target lines, token for token, the
 * blocks in order; no significant removed line stands there as whole
 * lines, unless the hunk also adds it; and there is evidence enough: a
 * significant added line, and when nothing significant is removed, a
 * block of two significant lines and every block standing only once in
 * the region.  A line is significant when it holds a name, a number, a
 * literal or a directive.  On true, out holds where each added line was found; on
 * false, out is empty.
 */
bool already_edited(struct already_found *out, const struct patch_hunk *h,
		    struct span region, unsigned long first_line);

#endif
