/*
 * hmap: linear probing over power-of-two tables, grown at 50% load so
 * probe sequences stay short. Keys are mixed with a 64-bit finalizer
 * because PCs and packed ids share their low bits a lot.
 *
 * A slot holds its key and value side by side, so a probe touches one
 * cache line: the maps grow to millions of entries (one per distinct PC
 * or call path), and separate key, value and "used" arrays cost three
 * cache misses per lookup there. Free slots hold a reserved key; that key
 * itself, should it be stored, lives beside the table.
 */
#include "hmap.h"

#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

#define HMAP_EMPTY_ UINT64_MAX

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
	m->slots = NULL;
	m->cap = 0;
	m->count = 0;
	m->has_empty_key = false;
	m->empty_key_val = 0;
}

void
hmap_free(struct hmap *m)
{
	free(m->slots);
	hmap_init(m);
}

/* Slot of key (not HMAP_EMPTY_), or of the free slot where it would go. */
static size_t
find_slot(const struct hmap_entry *slots, size_t cap, uint64_t key)
{
	size_t mask = cap - 1;
	size_t i = mix(key) & mask;
	while (slots[i].key != key && slots[i].key != HMAP_EMPTY_)
		i = (i + 1) & mask;
	return i;
}

bool
hmap_get(const struct hmap *m, uint64_t key, uint64_t *val)
{
	if (key == HMAP_EMPTY_) {
		if (m->has_empty_key)
			*val = m->empty_key_val;
		return m->has_empty_key;
	}
	if (m->cap == 0)
		return false;
	size_t i = find_slot(m->slots, m->cap, key);
	if (m->slots[i].key == HMAP_EMPTY_)
		return false;
	*val = m->slots[i].val;
	return true;
}

static struct hmap_entry *
new_slots(size_t cap)
{
	struct hmap_entry *s = xreallocarray(NULL, cap, sizeof(*s));
	for (size_t i = 0; i < cap; i++)
		s[i].key = HMAP_EMPTY_;
	return s;
}

static void
rehash(struct hmap *m, size_t ncap)
{
	struct hmap_entry *n = new_slots(ncap);
	for (size_t i = 0; i < m->cap; i++) {
		if (m->slots[i].key == HMAP_EMPTY_)
			continue;
		n[find_slot(n, ncap, m->slots[i].key)] = m->slots[i];
	}
	free(m->slots);
	m->slots = n;
	m->cap = ncap;
}

uint64_t *
hmap_ref(struct hmap *m, uint64_t key, bool *found)
{
	if (key == HMAP_EMPTY_) {
		*found = m->has_empty_key;
		if (!m->has_empty_key) {
			m->count++;
			m->has_empty_key = true;
			m->empty_key_val = 0;
		}
		return &m->empty_key_val;
	}
	if ((m->count + 1) * 2 > m->cap)
		rehash(m, m->cap ? m->cap * 2 : 16);
	size_t i = find_slot(m->slots, m->cap, key);
	*found = m->slots[i].key != HMAP_EMPTY_;
	if (!*found) {
		m->slots[i].key = key;
		m->slots[i].val = 0;
		m->count++;
	}
	return &m->slots[i].val;
}

/* The slot of key in s, or the free slot where it would go. */
static size_t
ids_slot(const struct hmap_ids *s, const void *records,
	 uint64_t (*key_of)(const void *, uint32_t), uint64_t key)
{
	size_t mask = s->cap - 1;
	size_t i = mix(key) & mask;
	while (s->slots[i] != HMAP_NO_ID && key_of(records, s->slots[i]) != key)
		i = (i + 1) & mask;
	return i;
}

uint32_t *
hmap_ids_ref(struct hmap_ids *s, const void *records,
	     uint64_t (*key_of)(const void *records, uint32_t id),
	     uint64_t key)
{
	if ((s->count + 1) * 2 > s->cap) {
		struct hmap_ids old = *s;
		s->cap = old.cap ? old.cap * 2 : 16;
		s->slots = xreallocarray(NULL, s->cap, sizeof(*s->slots));
		memset(s->slots, 0xff, s->cap * sizeof(*s->slots));
		for (size_t i = 0; i < old.cap; i++) {
			uint32_t id = old.slots[i];
			if (id != HMAP_NO_ID)
				s->slots[ids_slot(s, records, key_of,
						  key_of(records, id))] = id;
		}
		free(old.slots);
	}
	return &s->slots[ids_slot(s, records, key_of, key)];
}

void
hmap_ids_free(struct hmap_ids *s)
{
	free(s->slots);
	*s = (struct hmap_ids){ .slots = NULL };
}

void
hmap_put(struct hmap *m, uint64_t key, uint64_t val)
{
	bool found;
	*hmap_ref(m, key, &found) = val;
}
