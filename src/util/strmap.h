/*
 * strmap: a hash map from strings to indexes (open addressing), for the
 * places that look a path up among many: the files a patch changed so far,
 * the paths of a diff.  The keys are borrowed and must outlive the map.
 */
#ifndef KCARRY_STRMAP_H
#define KCARRY_STRMAP_H

#include <stddef.h>

#include "buf.h"

struct strmap {
	const char **keys;
	size_t *vals;
	size_t nr, alloc; /* alloc: a power of two, or 0 */
};

#define STRMAP_INIT { NULL, NULL, 0, 0 }

void strmap_release(struct strmap *m);
/* The value of key, or (size_t)-1 when absent. */
size_t strmap_get(const struct strmap *m, const char *key);
/* The same for the len bytes at key (no NUL needed). */
size_t strmap_get_n(const struct strmap *m, const char *key, size_t len);
/* Set key (borrowed) to val, replacing an earlier value. */
void strmap_put(struct strmap *m, const char *key, size_t val);

/*
 * How many pairs of keys this thread's maps have compared so far: a
 * deterministic measure of their work, for tests (a lookup compares about
 * one; a linear search among n paths compared n).
 */
size_t strmap_comparisons(void);

#endif
