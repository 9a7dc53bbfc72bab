/*
 * strmap: string → size_t, open addressing (see strmap.h).
 */
#include "util/strmap.h"

#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"

#define STRMAP_MIN_CAP 16

void strmap_init(struct strmap *m, int flags)
{
	memset(m, 0, sizeof(*m));
	m->flags = flags;
}

void strmap_release(struct strmap *m)
{
	int flags = m->flags;
	free(m->slot);
	strmap_init(m, flags);
}

size_t strmap_hash(const char *s, int flags)
{
	size_t h = (size_t)1469598103934665603ULL;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((flags & STRMAP_ICASE) && c >= 'a' && c <= 'z')
			c = (unsigned char)(c - 32);
		h = (h ^ c) * (size_t)1099511628211ULL;
	}
	return h;
}

static int same_key(const struct strmap *m, const char *a, const char *b)
{
	return (m->flags & STRMAP_ICASE) ? !str_icmp(a, b) : !strcmp(a, b);
}

/* The slot holding key, or the empty slot where it would go. */
static struct strmap_slot *find(const struct strmap *m, const char *key, size_t h)
{
	size_t mask = m->cap - 1, i;
	for (i = h & mask; m->slot[i].key; i = (i + 1) & mask)
		if (m->slot[i].hash == h && same_key(m, m->slot[i].key, key))
			break;
	return &m->slot[i];
}

int strmap_get(const struct strmap *m, const char *key, size_t *val)
{
	const struct strmap_slot *s;
	if (!m->cap)
		return 0;
	s = find(m, key, strmap_hash(key, m->flags));
	if (!s->key)
		return 0;
	if (val)
		*val = s->val;
	return 1;
}

static void grow(struct strmap *m)
{
	struct strmap_slot *old = m->slot;
	size_t oldcap = m->cap, i;
	m->cap = m->cap ? m->cap * 2 : STRMAP_MIN_CAP;
	m->slot = xcalloc(m->cap, sizeof(*m->slot));
	for (i = 0; i < oldcap; i++)
		if (old[i].key)
			*find(m, old[i].key, old[i].hash) = old[i];
	free(old);
}

int strmap_add(struct strmap *m, const char *key, size_t val)
{
	size_t h = strmap_hash(key, m->flags);
	struct strmap_slot *s;
	if (m->cap && find(m, key, h)->key)
		return 1;
	if (2 * (m->n + 1) > m->cap)
		grow(m);
	s = find(m, key, h);
	s->key = key;
	s->hash = h;
	s->val = val;
	m->n++;
	return 0;
}
