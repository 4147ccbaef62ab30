/*
 * hmap: an open-addressing hash map from 64-bit keys to 64-bit values.
 * The analyzer's hot paths (PC -> function, (parent, function) -> tree
 * node) are integer lookups, so one small integer map serves them all
 * instead of a generic container with callbacks.
 */
#ifndef PROFANALYZE_HMAP_H
#define PROFANALYZE_HMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hmap_entry {
	uint64_t key; /* HMAP_EMPTY_ in a free slot */
	uint64_t val;
};

struct hmap {
	struct hmap_entry *slots;
	size_t cap;   /* a power of two, or 0 before the first insert */
	size_t count; /* keys stored, the side slot's included */
	/* The key that marks free slots cannot live in the table: */
	bool has_empty_key;
	uint64_t empty_key_val;
};

/* FNV-1a, for maps keyed by strings or records: the hash of an empty
 * input, and that hash h continued over len bytes (or a string without
 * its NUL). Equal hashes still need their keys compared. */
#define HMAP_HASH_INIT 0xcbf29ce484222325ull

static inline uint64_t
hmap_hash_bytes(uint64_t h, const void *data, size_t len)
{
	const unsigned char *b = data;
	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static inline uint64_t
hmap_hash_str(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/* An empty map; a zeroed struct hmap is also valid. */
void
hmap_init(struct hmap *m);

void
hmap_free(struct hmap *m);

/* Returns true and stores the value in *val when key is present. */
bool
hmap_get(const struct hmap *m, uint64_t key, uint64_t *val);

/* Inserts or replaces. */
void
hmap_put(struct hmap *m, uint64_t key, uint64_t val);

/* The value of key, inserted (with value 0) when absent; *found says
 * which. One probe where hmap_get then hmap_put take two. The pointer is
 * valid until the next insertion into m. */
uint64_t *
hmap_ref(struct hmap *m, uint64_t key, bool *found);

#endif
