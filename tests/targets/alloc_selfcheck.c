/*
 * alloc_selfcheck: catches a profiler whose allocation wrappers allocate
 * on the target's heap for their own needs (or call the malloc family in
 * any other way while they sample).
 *
 * Symbols defined in the executable take precedence over every shared
 * library's, the preloaded profiler's included, so the malloc family
 * defined here sees every call made anywhere in the process: the target's,
 * the C library's and the profiler's own. Each forwards to the next
 * definition, the profiler's wrapper, and counts the calls made on the
 * main thread while it runs its loop of exactly N malloc/free pairs. Run
 * with --space-interval=1, nearly every pair takes the wrappers' slow path
 * (unwinding, recording, the set of sampled blocks): any call beyond the
 * N pairs came from the profiler.
 *
 * Prints "calls=K pairs=N" and exits 3 when K != 2N, 0 otherwise.
 *
 * usage: alloc_selfcheck [N] (default 100000)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void *(*malloc_fn)(size_t);
typedef void (*free_fn)(void *);
typedef void *(*calloc_fn)(size_t, size_t);
typedef void *(*realloc_fn)(void *, size_t);
typedef int (*posix_memalign_fn)(void **, size_t, size_t);
typedef void *(*memalign_fn)(size_t, size_t);

static malloc_fn next_malloc;
static free_fn next_free;
static calloc_fn next_calloc;
static realloc_fn next_realloc;
static posix_memalign_fn next_posix_memalign;
static memalign_fn next_aligned_alloc, next_memalign;

static __thread int checked, resolving;
static unsigned long calls;

/* What dlsym allocates before the next functions are known. */
static char boot[65536] __attribute__((aligned(16)));
static size_t boot_used;

static void *
boot_alloc(size_t n)
{
	size_t at = (boot_used + 15) & ~(size_t)15;
	if (at + n > sizeof(boot))
		abort();
	boot_used = at + n;
	return boot + at;
}

static int
is_boot(const void *p)
{
	return (const char *)p >= boot && (const char *)p < boot + sizeof(boot);
}

static void
resolve(void)
{
	if (next_malloc || resolving)
		return;
	resolving = 1;
	next_malloc = (malloc_fn)dlsym(RTLD_NEXT, "malloc");
	next_free = (free_fn)dlsym(RTLD_NEXT, "free");
	next_calloc = (calloc_fn)dlsym(RTLD_NEXT, "calloc");
	next_realloc = (realloc_fn)dlsym(RTLD_NEXT, "realloc");
	next_posix_memalign = (posix_memalign_fn)dlsym(RTLD_NEXT,
						      "posix_memalign");
	next_aligned_alloc = (memalign_fn)dlsym(RTLD_NEXT, "aligned_alloc");
	next_memalign = (memalign_fn)dlsym(RTLD_NEXT, "memalign");
	resolving = 0;
}

static void
note(void)
{
	if (checked)
		__atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED);
}

void *
malloc(size_t n)
{
	note();
	resolve();
	return next_malloc ? next_malloc(n) : boot_alloc(n);
}

void
free(void *p)
{
	note();
	if (!is_boot(p) && next_free)
		next_free(p);
}

void *
calloc(size_t k, size_t n)
{
	note();
	resolve();
	if (next_calloc)
		return next_calloc(k, n);
	return boot_alloc(k * n); /* static memory: zero */
}

void *
realloc(void *p, size_t n)
{
	note();
	resolve();
	if (is_boot(p)) {
		void *q = next_malloc ? next_malloc(n) : boot_alloc(n);
		if (q)
			memcpy(q, p, n); /* within the buffer: good enough */
		return q;
	}
	return next_realloc(p, n);
}

int
posix_memalign(void **out, size_t align, size_t n)
{
	note();
	resolve();
	return next_posix_memalign(out, align, n);
}

void *
aligned_alloc(size_t align, size_t n)
{
	note();
	resolve();
	return next_aligned_alloc(align, n);
}

void *
memalign(size_t align, size_t n)
{
	note();
	resolve();
	return next_memalign(align, n);
}

static void *volatile sink;

static __attribute__((noinline)) void
pairs(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		char *p = malloc(16 + (i % 64) * 16);
		if (!p)
			abort();
		p[0] = 1;
		sink = p;
		free(p);
	}
}

int
main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;

	checked = 1;
	pairs(n);
	checked = 0;
	printf("calls=%lu pairs=%lu\n", calls, n);
	return calls == 2 * n ? 0 : 3;
}
