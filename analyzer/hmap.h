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

struct hmap {
	uint64_t *keys;
	uint64_t *vals;
	uint8_t *used;
	size_t cap;   /* a power of two, or 0 before the first insert */
	size_t count;
};

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

#endif
