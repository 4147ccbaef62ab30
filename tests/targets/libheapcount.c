/*
 * libheapcount: counts what reaches the real allocator, for
 * test_own_heap.py. Preloaded after libprofrun.so, it is what the
 * profiler's wrappers find as "the next" malloc family (dlsym RTLD_NEXT),
 * so it sees exactly the calls they forward to the target's heap, and
 * forwards them on to the C library. The target's own calls reach it in
 * the same number whether or not the profiler is sampling; anything more
 * is the profiler taking memory from the target's heap.
 *
 * The count is kept in a file mapped shared (HEAPCOUNT_FILE, created by
 * the test), so that calls made during exit, after every destructor, are
 * counted too: one 64-bit counter per function, in the order of NAMES in
 * test_own_heap.py. Only a process that has libprofrun.so loaded counts:
 * the profrun launcher, which passes LD_PRELOAD on, does not.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <link.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { MALLOC, FREE, CALLOC, REALLOC, POSIX_MEMALIGN, ALIGNED_ALLOC,
       MEMALIGN, VALLOC, PVALLOC, NFUNCS };

extern void *__libc_malloc(size_t);
extern void __libc_free(void *);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void *__libc_valloc(size_t);
extern void *__libc_pvalloc(size_t);

/* Until the constructor has mapped the file, calls are not counted: the
 * loader's own, before either library runs, are the same in every run. */
static _Atomic uint64_t *counts;

static void
count(int fn)
{
	if (counts)
		counts[fn]++;
}

/* dl_iterate_phdr callback: whether the object is libprofrun.so. */
static int
is_profrun(struct dl_phdr_info *info, size_t size, void *arg)
{
	const char *slash = strrchr(info->dlpi_name, '/');
	const char *name = slash ? slash + 1 : info->dlpi_name;
	return strcmp(name, "libprofrun.so") == 0;
}

__attribute__((constructor)) static void
map_counts(void)
{
	const char *path = getenv("HEAPCOUNT_FILE");
	if (!path || !dl_iterate_phdr(is_profrun, NULL))
		return;
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return;
	void *p = mmap(NULL, NFUNCS * sizeof(uint64_t), PROT_READ | PROT_WRITE,
		       MAP_SHARED, fd, 0);
	close(fd);
	if (p != MAP_FAILED)
		counts = p;
}

/* glibc's own entry points: the next definitions, and what dlsym would
 * find, without calling dlsym (which allocates) from here. */

void *
malloc(size_t n)
{
	count(MALLOC);
	return __libc_malloc(n);
}

void
free(void *p)
{
	count(FREE);
	__libc_free(p);
}

void *
calloc(size_t k, size_t n)
{
	count(CALLOC);
	return __libc_calloc(k, n);
}

void *
realloc(void *p, size_t n)
{
	count(REALLOC);
	return __libc_realloc(p, n);
}

int
posix_memalign(void **out, size_t align, size_t n)
{
	count(POSIX_MEMALIGN);
	if (align < sizeof(void *) || (align & (align - 1)))
		return 22; /* EINVAL */
	void *p = __libc_memalign(align, n);
	if (!p)
		return 12; /* ENOMEM */
	*out = p;
	return 0;
}

void *
aligned_alloc(size_t align, size_t n)
{
	count(ALIGNED_ALLOC);
	return __libc_memalign(align, n);
}

void *
memalign(size_t align, size_t n)
{
	count(MEMALIGN);
	return __libc_memalign(align, n);
}

void *
valloc(size_t n)
{
	count(VALLOC);
	return __libc_valloc(n);
}

void *
pvalloc(size_t n)
{
	count(PVALLOC);
	return __libc_pvalloc(n);
}
