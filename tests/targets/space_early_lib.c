/*
 * space_early_lib: a library the program needs whose constructor
 * allocates, so it runs before the profiler's own constructor (those of a
 * program's libraries run before those of preloaded ones): the wrappers
 * must serve these calls before the profiler is initialised, and the
 * blocks must stay good for the C library's free and realloc once it is.
 *
 * The constructor calls malloc, calloc, realloc (growing a block, and
 * realloc(p, 0), which glibc defines as free(p) returning NULL),
 * posix_memalign and memalign, fills every block it keeps with a pattern,
 * and frees a block from __libc_malloc, which no wrapper saw. space_early
 * checks, frees and reallocates the blocks kept, and prints the calls made
 * (space_early_calls, counted here and there).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "space_early.h"


/* glibc's own entry point, which no wrapper interposes. */
extern void *__libc_malloc(size_t n);

struct space_early_blocks space_early_blocks;
struct space_early_calls space_early_calls;
int space_early_failures;

/* Through volatile pointers: the compiler may not merge a malloc and a
 * memset into calloc, or drop a call, so the counts are the calls made. */
static void *(*volatile v_malloc)(size_t) = malloc;
static void *(*volatile v_calloc)(size_t, size_t) = calloc;
static void *(*volatile v_realloc)(void *, size_t) = realloc;
static void (*volatile v_free)(void *) = free;
static int (*volatile v_posix_memalign)(void **, size_t, size_t) =
	posix_memalign;
static void *(*volatile v_memalign)(size_t, size_t) = memalign;
static void *(*volatile v_libc_malloc)(size_t) = __libc_malloc;

/* Keeps p as block b, filled with c. */
static void
keep(struct space_early_block *b, void *p, size_t n, size_t align, char c)
{
	b->p = p;
	b->n = n;
	b->align = align;
	b->fill = c;
	if (p)
		memset(p, c, n);
	else
		space_early_failures++;
}

__attribute__((constructor)) static void
space_early_ctor(void)
{
	struct space_early_blocks *b = &space_early_blocks;
	struct space_early_calls *c = &space_early_calls;

	keep(&b->malloc, v_malloc(100), 100, 1, 'm');
	c->malloc++;

	char *z = v_calloc(10, 30);
	c->calloc++;
	for (size_t i = 0; z && i < 10 * 30; i++)
		space_early_failures += z[i] != 0;
	keep(&b->calloc, z, 10 * 30, 1, 'c');

	char *r = v_malloc(40);
	c->malloc++;
	if (r)
		memset(r, 'r', 40);
	r = v_realloc(r, 4000);
	c->realloc++;
	for (size_t i = 0; r && i < 40; i++)
		space_early_failures += r[i] != 'r';
	keep(&b->realloc, r, 4000, 1, 'r');

	void *pm = NULL;
	space_early_failures += v_posix_memalign(&pm, 64, 256) != 0;
	c->posix_memalign++;
	keep(&b->posix_memalign, pm, 256, 64, 'p');

	keep(&b->memalign, v_memalign(4096, 512), 512, 4096, 'a');
	c->memalign++;

	/* realloc(p, 0) frees p and returns NULL (glibc). */
	void *f = v_malloc(70);
	c->malloc++;
	space_early_failures += !f;
	space_early_failures += v_realloc(f, 0) != NULL;
	c->realloc++;

	void *l = v_libc_malloc(123);
	space_early_failures += !l;
	v_free(l);
	c->free++;
}
