/*
 * hmap: linear probing over power-of-two tables, grown at 50% load so
 * probe sequences stay short. Keys are mixed with a 64-bit finalizer
 * because PCs and packed ids share their low bits a lot.
 */
#include "hmap.h"

#include <stdlib.h>

#include "xmalloc.h"

static uint64_t
mix(uint64_t k)
{
	/* splitmix64 finalizer */
	k ^= k >> 30;
	k *= 0xbf58476d1ce4e5b9ull;
	k ^= k >> 27;
	k *= 0x94d049bb133111ebull;
	k ^= k >> 31;
	return k;
}

void
hmap_init(struct hmap *m)
{
	m->keys = NULL;
	m->vals = NULL;
	m->used = NULL;
	m->cap = 0;
	m->count = 0;
}

void
hmap_free(struct hmap *m)
{
	free(m->keys);
	free(m->vals);
	free(m->used);
	hmap_init(m);
}

/* Slot of key, or of the empty slot where it would go. */
static size_t
find_slot(const struct hmap *m, uint64_t key)
{
	size_t mask = m->cap - 1;
	size_t i = mix(key) & mask;
	while (m->used[i] && m->keys[i] != key)
		i = (i + 1) & mask;
	return i;
}

bool
hmap_get(const struct hmap *m, uint64_t key, uint64_t *val)
{
	if (m->count == 0)
		return false;
	size_t i = find_slot(m, key);
	if (!m->used[i])
		return false;
	*val = m->vals[i];
	return true;
}

static void
rehash(struct hmap *m, size_t ncap)
{
	struct hmap n = {
		.keys = xcalloc(ncap, sizeof(uint64_t)),
		.vals = xcalloc(ncap, sizeof(uint64_t)),
		.used = xcalloc(ncap, 1),
		.cap = ncap,
		.count = m->count,
	};
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->used[i])
			continue;
		size_t j = find_slot(&n, m->keys[i]);
		n.used[j] = 1;
		n.keys[j] = m->keys[i];
		n.vals[j] = m->vals[i];
	}
	hmap_free(m);
	*m = n;
}

void
hmap_put(struct hmap *m, uint64_t key, uint64_t val)
{
	if ((m->count + 1) * 2 > m->cap)
		rehash(m, m->cap ? m->cap * 2 : 16);
	size_t i = find_slot(m, key);
	if (!m->used[i]) {
		m->used[i] = 1;
		m->keys[i] = key;
		m->count++;
	}
	m->vals[i] = val;
}
