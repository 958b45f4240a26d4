#include "strmap.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/*
 * Pairs of keys compared, for strmap_comparisons(): a measure for tests,
 * not state that a map reads.  One per thread, as check runs several.
 */
static _Thread_local size_t compared;

size_t strmap_comparisons(void)
{
	return compared;
}

static size_t hash(const char *s, size_t len)
{
	size_t h = 14695981039346656037ULL; /* FNV-1a */

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

void strmap_release(struct strmap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

/* Key a is the len bytes at b. */
static bool key_eq(const char *a, const char *b, size_t len)
{
	compared++;
	return !strncmp(a, b, len) && !a[len];
}

static size_t slot_n(const struct strmap *m, const char *key, size_t len)
{
	size_t i = hash(key, len) & (m->alloc - 1);

	while (m->keys[i] && !key_eq(m->keys[i], key, len))
		i = (i + 1) & (m->alloc - 1);
	return i;
}

static size_t slot(const struct strmap *m, const char *key)
{
	return slot_n(m, key, strlen(key));
}

size_t strmap_get_n(const struct strmap *m, const char *key, size_t len)
{
	size_t i;

	if (!m->alloc)
		return (size_t)-1;
	i = slot_n(m, key, len);
	return m->keys[i] ? m->vals[i] : (size_t)-1;
}

size_t strmap_get(const struct strmap *m, const char *key)
{
	return strmap_get_n(m, key, strlen(key));
}

static void grow(struct strmap *m)
{
	struct strmap n = STRMAP_INIT;

	n.alloc = m->alloc ? m->alloc * 2 : 64;
	n.keys = xcalloc(n.alloc, sizeof(*n.keys));
	n.vals = xcalloc(n.alloc, sizeof(*n.vals));
	for (size_t i = 0; i < m->alloc; i++)
		if (m->keys[i]) {
			size_t k = slot(&n, m->keys[i]);
			n.keys[k] = m->keys[i];
			n.vals[k] = m->vals[i];
			n.nr++;
		}
	strmap_release(m);
	*m = n;
}

void strmap_put(struct strmap *m, const char *key, size_t val)
{
	size_t i;

	/* at most half full: probes stay short */
	if ((m->nr + 1) * 2 > m->alloc)
		grow(m);
	i = slot(m, key);
	if (!m->keys[i]) {
		m->keys[i] = key;
		m->nr++;
	}
	m->vals[i] = val;
}
