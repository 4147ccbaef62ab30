/*
 * demo: the program scripts/demo profiles. It generates a text file of
 * key=value records, parses it, counts the distinct keys in a hash table
 * and sorts the records, a few times over: a small, ordinary workload
 * whose profile has a handful of functions of different weights, some in
 * the program and some in libc (qsort, strcmp). About 1 s of CPU.
 *
 * usage: demo [SCALE]
 */
#include <stdint.h>
#include <string.h>

#include "work.h"

#define RECORDS 100000
#define ROUNDS 25
#define TABLE_BITS 17

struct record {
	char key[16];
	long value;
};

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t
rng_next(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Writes nrecords lines "key=<word>,value=<n>\n" into text. */
static WORK_FN size_t
generate_text(char *text, size_t nrecords)
{
	static const char letters[] = "etaoinshrdlucmfw";
	char *p = text;

	for (size_t i = 0; i < nrecords; i++) {
		int len = 4 + (int)(rng_next() % 8);

		memcpy(p, "key=", 4);
		p += 4;
		/* A small alphabet, so that keys repeat. */
		for (int j = 0; j < len; j++)
			*p++ = letters[rng_next() % 4 + (j & 1) * 4];
		p += sprintf(p, ",value=%ld\n", (long)(rng_next() % 1000000));
	}
	return (size_t)(p - text);
}

static WORK_FN size_t
parse_text(const char *text, size_t size, struct record *out)
{
	const char *p = text, *end = text + size;
	size_t n = 0;

	while (p < end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		size_t klen;

		if (!comma || strncmp(p, "key=", 4) != 0)
			break;
		klen = (size_t)(comma - p - 4);
		if (klen >= sizeof(out[n].key))
			klen = sizeof(out[n].key) - 1;
		memcpy(out[n].key, p + 4, klen);
		out[n].key[klen] = '\0';
		out[n].value = strtol(comma + 7, (char **)&p, 10);
		p++; /* the newline */
		n++;
	}
	return n;
}

static uint32_t
hash_key(const char *key)
{
	uint32_t h = 2166136261u;

	while (*key)
		h = (h ^ (uint8_t)*key++) * 16777619u;
	return h;
}

/* Open addressing; returns the number of distinct keys. */
static WORK_FN size_t
count_distinct(const struct record *recs, size_t n, const char **table)
{
	size_t mask = ((size_t)1 << TABLE_BITS) - 1, distinct = 0;

	memset(table, 0, sizeof(*table) << TABLE_BITS);
	for (size_t i = 0; i < n; i++) {
		size_t slot = hash_key(recs[i].key) & mask;

		while (table[slot] && strcmp(table[slot], recs[i].key) != 0)
			slot = (slot + 1) & mask;
		if (!table[slot]) {
			table[slot] = recs[i].key;
			distinct++;
		}
	}
	return distinct;
}

static int
compare_records(const void *a, const void *b)
{
	const struct record *ra = a, *rb = b;
	int c = strcmp(ra->key, rb->key);

	if (c)
		return c;
	return (ra->value > rb->value) - (ra->value < rb->value);
}

static WORK_FN void
sort_records(struct record *recs, size_t n)
{
	qsort(recs, n, sizeof(*recs), compare_records);
}

static WORK_FN uint64_t
checksum(const struct record *recs, size_t n)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i++)
		sum = sum * 31 + hash_key(recs[i].key) + (uint64_t)recs[i].value;
	return sum;
}

int
main(int argc, char **argv)
{
	int rounds = (int)(work_scale(argc, argv, 1) * ROUNDS + 0.5);
	char *text = malloc((size_t)RECORDS * 40);
	struct record *recs = malloc(sizeof(*recs) * RECORDS);
	const char **table = malloc(sizeof(*table) << TABLE_BITS);
	size_t n = 0, distinct = 0;
	uint64_t sum = 0;

	if (!text || !recs || !table) {
		fprintf(stderr, "demo: out of memory\n");
		return 1;
	}
	for (int round = 0; round < (rounds > 0 ? rounds : 1); round++) {
		size_t size = generate_text(text, RECORDS);

		n = parse_text(text, size, recs);
		distinct = count_distinct(recs, n, table);
		sort_records(recs, n);
		sum ^= checksum(recs, n);
	}
	printf("demo: %zu records, %zu distinct keys, checksum %016llx\n", n,
	       distinct, (unsigned long long)sum);
	free(table);
	free(recs);
	free(text);
	return 0;
}
