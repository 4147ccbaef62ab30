/*
 * space_early: frees and reallocates, in main, blocks that a needed
 * library's constructor allocated before the profiler was initialised
 * (space_early_lib.c), after checking that they kept their contents,
 * alignment and size; then prints "ok" and the calls made to each
 * function of the malloc family, the constructor's included, and exits 0,
 * or prints what went wrong and exits 1.
 *
 * Output goes through write(2) from a stack buffer, not stdio, whose
 * buffer would be one more malloc: the counts printed are then every call
 * the process made.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "space_early.h"


static void *(*volatile v_realloc)(void *, size_t) = realloc;
static void (*volatile v_free)(void *) = free;
static size_t (*volatile v_usable)(void *) = malloc_usable_size;

static int failures;

static void
say(const char *s)
{
	size_t n = strlen(s);
	if (write(1, s, n) != (ssize_t)n)
		_exit(2);
}

#define CHECK(cond)                                                        \
	do {                                                               \
		if (!(cond)) {                                             \
			char m_[200];                                      \
			snprintf(m_, sizeof(m_), "FAILED: %s (line %d)\n", \
				 #cond, __LINE__);                         \
			say(m_);                                           \
			failures++;                                        \
		}                                                          \
	} while (0)

/* Whether n bytes at p are all c. */
static int
all(const char *p, size_t n, char c)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != c)
			return 0;
	return 1;
}

/* A block of the constructor's: its contents, alignment and usable
 * size. */
static int
intact(const struct space_early_block *b)
{
	if (!b->p || ((uintptr_t)b->p & (b->align - 1)))
		return 0;
	space_early_calls.malloc_usable_size++;
	return v_usable(b->p) >= b->n && all(b->p, b->n, b->fill);
}

int
main(void)
{
	struct space_early_blocks *b = &space_early_blocks;
	struct space_early_calls *k = &space_early_calls;

	CHECK(space_early_failures == 0);
	CHECK(intact(&b->malloc));
	CHECK(intact(&b->calloc));
	CHECK(intact(&b->realloc));
	CHECK(intact(&b->posix_memalign));
	CHECK(intact(&b->memalign));

	/* Grown past the mmap threshold (moved), shrunk, and freed. */
	char *m = v_realloc(b->malloc.p, 200000);
	k->realloc++;
	CHECK(m && all(m, b->malloc.n, 'm'));
	if (m)
		memset(m, 'M', 200000);
	char *r = v_realloc(b->realloc.p, 10);
	k->realloc++;
	CHECK(r && all(r, 10, 'r'));
	v_free(m);
	k->free++;
	v_free(r);
	k->free++;
	v_free(b->calloc.p);
	k->free++;
	v_free(b->posix_memalign.p);
	k->free++;
	/* realloc(p, 0) of an early block: freed, NULL. */
	CHECK(v_realloc(b->memalign.p, 0) == NULL);
	k->realloc++;

	if (failures) {
		char m_[64];
		snprintf(m_, sizeof(m_), "%d failures\n", failures);
		say(m_);
		return 1;
	}
	char out[300];
	snprintf(out, sizeof(out),
		 "ok malloc=%lu calloc=%lu realloc=%lu posix_memalign=%lu "
		 "memalign=%lu free=%lu malloc_usable_size=%lu\n",
		 k->malloc, k->calloc, k->realloc, k->posix_memalign,
		 k->memalign, k->free, k->malloc_usable_size);
	say(out);
	return 0;
}
