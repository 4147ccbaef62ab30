/*
 * space_early.h: what space_early_lib.c's constructor leaves for
 * space_early.c's main: each block kept (filled with fill over n bytes,
 * aligned to align), the calls made, and the constructor's own failed
 * checks.
 */
#ifndef SPACE_EARLY_H
#define SPACE_EARLY_H

#include <stddef.h>

struct space_early_block {
	char *p;
	size_t n, align;
	char fill;
};
struct space_early_blocks {
	struct space_early_block malloc, calloc, realloc, posix_memalign,
		memalign;
};
struct space_early_calls {
	unsigned long malloc, calloc, realloc, posix_memalign, memalign, free,
		malloc_usable_size;
};
extern struct space_early_blocks space_early_blocks;
extern struct space_early_calls space_early_calls;
extern int space_early_failures;

#endif
