/*
 * forward: the least an allocation profiler that interposes the malloc
 * family can cost, as a reference row for scripts/bench-space. A
 * preloaded malloc and free that do nothing but jump to the next ones:
 * no counting, no sampling, no lookup. Not built by meson;
 * bench_space.py compiles it with the system's cc.
 *
 *   cc -O2 -fPIC -shared -o forward.so scripts/bench-space.d/forward.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>

extern void *__libc_malloc(size_t);
extern void __libc_free(void *);

/* glibc's own until the constructor has found the next ones (dlsym may
 * allocate before that). */
static void *(*next_malloc)(size_t) = __libc_malloc;
static void (*next_free)(void *) = __libc_free;

__attribute__((constructor)) static void
find_next(void)
{
	void *m = dlsym(RTLD_NEXT, "malloc");
	void *f = dlsym(RTLD_NEXT, "free");
	if (m && f) {
		next_malloc = (void *(*)(size_t))m;
		next_free = (void (*)(void *))f;
	}
}

void *
malloc(size_t n)
{
	return next_malloc(n);
}

void
free(void *p)
{
	next_free(p);
}
