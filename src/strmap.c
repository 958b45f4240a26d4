#include "strmap.h"

#include <stdlib.h>
#include <string.h>

static size_t hash(const char *s)
{
	size_t h = 14695981039346656037ULL; /* FNV-1a */

	for (; *s; s++) {
		h ^= (unsigned char)*s;
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

static size_t slot(const struct strmap *m, const char *key)
{
	size_t i = hash(key) & (m->alloc - 1);

	while (m->keys[i] && strcmp(m->keys[i], key))
		i = (i + 1) & (m->alloc - 1);
	return i;
}

size_t strmap_get(const struct strmap *m, const char *key)
{
	size_t i;

	if (!m->alloc)
		return (size_t)-1;
	i = slot(m, key);
	return m->keys[i] ? m->vals[i] : (size_t)-1;
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
