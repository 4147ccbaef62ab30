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

/*
 * A set of 32-bit ids (tree nodes, call-graph edges, functions) found by
 * a key that is read from the record each id names, through key_of: a
 * slot is 4 bytes where an hmap entry carrying key and value takes 16.
 * The maps with an entry per distinct PC or call path were a good part of
 * the analyzer's peak memory as hmaps. Zeroed is empty.
 */
#define HMAP_NO_ID UINT32_MAX

struct hmap_ids {
	uint32_t *slots; /* HMAP_NO_ID in a free slot */
	size_t cap, count;
};

/* The slot of the id whose key is key, after making room for one more.
 * When it holds HMAP_NO_ID the key is absent: the caller may store the
 * new id there and then count it (s->count++); the id's record must give
 * key by then. records is passed to key_of as is. The pointer is valid
 * until the next hmap_ids_ref() on s. */
uint32_t *
hmap_ids_ref(struct hmap_ids *s, const void *records,
	     uint64_t (*key_of)(const void *records, uint32_t id),
	     uint64_t key);

void
hmap_ids_free(struct hmap_ids *s);

#endif
