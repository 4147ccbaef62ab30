/*
 * space_edge: the corners of the malloc family that the wrappers must
 * leave as the C library defines them, checked from inside the profiled
 * program: failed allocations (NULL and ENOMEM, the old block intact),
 * size overflows in calloc and reallocarray, realloc(p, 0) and
 * realloc(NULL, n), alignment rules of posix_memalign, aligned_alloc,
 * memalign, valloc and pvalloc, zeroing by calloc, malloc_usable_size,
 * free(NULL), C23's free_sized and free_aligned_sized, and errno
 * untouched by a successful call. Each check is
 * repeated, so that under --space-interval=1 both the sampled (slow) and,
 * with the default interval, the fast paths are exercised.
 *
 * free_sized and free_aligned_sized are looked up with dlsym: glibc has
 * them only from 2.41, and libprofrun.so provides them where it lacks
 * them, so under the profiler they must be found (their counts printed as
 * 0 when they are not).
 *
 * Prints "ok" and the number of calls made to each function, and exits 0;
 * or prints what went wrong and exits 1. Frees everything it allocates.
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
#include <unistd.h>

/* Sizes no allocator can satisfy, hidden from the compiler's checks. */
static volatile size_t huge = SIZE_MAX;

/* Every call goes through a volatile pointer: the compiler may not drop
 * an unused allocation, turn realloc(NULL, n) into malloc(n) or skip
 * free(NULL), so the counts printed are the calls made. */
static void *(*volatile v_malloc)(size_t) = malloc;
static void *(*volatile v_calloc)(size_t, size_t) = calloc;
static void *(*volatile v_realloc)(void *, size_t) = realloc;
static void *(*volatile v_reallocarray)(void *, size_t, size_t) = reallocarray;
static void (*volatile v_free)(void *) = free;
static int (*volatile v_posix_memalign)(void **, size_t, size_t) =
	posix_memalign;
static void *(*volatile v_aligned_alloc)(size_t, size_t) = aligned_alloc;
static void *(*volatile v_memalign)(size_t, size_t) = memalign;
static void *(*volatile v_valloc)(size_t) = valloc;
static void *(*volatile v_pvalloc)(size_t) = pvalloc;
static size_t (*volatile v_usable)(void *) = malloc_usable_size;
/* C23, found at run time (NULL when nothing provides them). */
static void (*volatile v_free_sized)(void *, size_t);
static void (*volatile v_free_aligned_sized)(void *, size_t, size_t);

static int failures;
static unsigned long n_malloc, n_calloc, n_realloc, n_reallocarray, n_free,
	n_posix_memalign, n_aligned_alloc, n_memalign, n_valloc, n_pvalloc,
	n_usable, n_free_sized, n_free_aligned_sized;

#define CHECK(cond)                                                        \
	do {                                                               \
		if (!(cond)) {                                             \
			printf("FAILED: %s (line %d, errno %d)\n", #cond,  \
			       __LINE__, errno);                           \
			failures++;                                        \
		}                                                          \
	} while (0)

/* The checks stay functions of their own (not inlined into main), so
 * that the profile can tell what each one left in use. */
#define CHECK_FN static __attribute__((noinline))

static int
aligned_to(const void *p, size_t a)
{
	return ((uintptr_t)p & (a - 1)) == 0;
}

CHECK_FN void
check_failures(void)
{
	errno = 0;
	void *p = v_malloc(huge);
	n_malloc++;
	CHECK(p == NULL && errno == ENOMEM);

	errno = 0;
	p = v_calloc(huge / 2, 3);
	n_calloc++;
	CHECK(p == NULL && errno == ENOMEM);

	char *q = v_malloc(100);
	n_malloc++;
	CHECK(q != NULL);
	memset(q, 'x', 100);
	errno = 0;
	void *r = v_realloc(q, huge - 4096);
	n_realloc++;
	CHECK(r == NULL && errno == ENOMEM && q[99] == 'x');
	errno = 0;
	r = v_reallocarray(q, huge / 2, 3);
	n_reallocarray++;
	CHECK(r == NULL && errno == ENOMEM && q[0] == 'x');
	v_free(q);
	n_free++;
}

CHECK_FN void
check_realloc(void)
{
	char *p = v_realloc(NULL, 300);
	n_realloc++;
	CHECK(p != NULL);
	memset(p, 'a', 300);
	p = v_realloc(p, 70000);
	n_realloc++;
	CHECK(p != NULL && p[0] == 'a' && p[299] == 'a');
	p = v_reallocarray(p, 10, 8);
	n_reallocarray++;
	CHECK(p != NULL && p[79] == 'a');
	/* glibc frees the block and returns NULL. */
	p = v_realloc(p, 0);
	n_realloc++;
	CHECK(p == NULL);
	v_free(p);
	n_free++;
}

CHECK_FN void
check_alignment(void)
{
	void *p = (void *)1;
	long page = sysconf(_SC_PAGESIZE);

	CHECK(v_posix_memalign(&p, 3, 16) == EINVAL && p == (void *)1);
	n_posix_memalign++;
	CHECK(v_posix_memalign(&p, 256, 1000) == 0 && aligned_to(p, 256));
	n_posix_memalign++;
	v_free(p);
	n_free++;
	p = v_aligned_alloc(64, 128);
	n_aligned_alloc++;
	CHECK(p && aligned_to(p, 64));
	v_free(p);
	n_free++;
	p = v_memalign(4096, 10);
	n_memalign++;
	CHECK(p && aligned_to(p, 4096));
	v_free(p);
	n_free++;
	p = v_valloc(10);
	n_valloc++;
	CHECK(p && aligned_to(p, (size_t)page));
	v_free(p);
	n_free++;
	p = v_pvalloc(10);
	n_pvalloc++;
	CHECK(p && aligned_to(p, (size_t)page) &&
	      v_usable(p) >= (size_t)page);
	n_usable++;
	v_free(p);
	n_free++;
}

CHECK_FN void
check_contents(void)
{
	unsigned char *p = v_malloc(4000);
	n_malloc++;
	CHECK(p != NULL);
	memset(p, 0xff, 4000);
	CHECK(v_usable(p) >= 4000);
	n_usable++;
	v_free(p);
	n_free++;
	p = v_calloc(1000, 4);
	n_calloc++;
	CHECK(p != NULL);
	int zero = 1;
	for (int i = 0; i < 4000; i++)
		zero &= p[i] == 0;
	CHECK(zero);
	v_free(p);
	n_free++;
	v_free(NULL);
	n_free++;
	p = v_malloc(0);
	n_malloc++;
	CHECK(p != NULL);
	v_free(p);
	n_free++;
}

/* Blocks freed with their size: the profiler must see them go (nothing of
 * check_sized in use at exit). */
CHECK_FN void
check_sized(void)
{
	if (v_free_sized) {
		char *p = v_malloc(200);
		n_malloc++;
		CHECK(p != NULL);
		v_free_sized(p, 200);
		n_free_sized++;
		p = v_calloc(50, 40);
		n_calloc++;
		CHECK(p != NULL);
		v_free_sized(p, 50 * 40);
		n_free_sized++;
		v_free_sized(NULL, 0);
		n_free_sized++;
	}
	if (v_free_aligned_sized) {
		void *p = v_aligned_alloc(128, 384);
		n_aligned_alloc++;
		CHECK(p && aligned_to(p, 128));
		v_free_aligned_sized(p, 128, 384);
		n_free_aligned_sized++;
		p = v_aligned_alloc(4096, 70000);
		n_aligned_alloc++;
		CHECK(p && aligned_to(p, 4096));
		errno = 4321;
		v_free_aligned_sized(p, 4096, 70000);
		n_free_aligned_sized++;
		CHECK(errno == 4321);
	}
}

CHECK_FN void
check_errno(void)
{
	errno = 1234;
	void *p = v_malloc(48);
	n_malloc++;
	void *q = v_calloc(3, 700000);
	n_calloc++;
	p = v_realloc(p, 96);
	n_realloc++;
	v_free(q);
	n_free++;
	v_free(p);
	n_free++;
	CHECK(errno == 1234);
}

int
main(void)
{
	v_free_sized = (void (*)(void *, size_t))dlsym(RTLD_DEFAULT,
						       "free_sized");
	v_free_aligned_sized = (void (*)(void *, size_t, size_t))dlsym(
		RTLD_DEFAULT, "free_aligned_sized");
	for (int i = 0; i < 200; i++) {
		check_failures();
		check_realloc();
		check_alignment();
		check_contents();
		check_sized();
		check_errno();
	}
	if (failures) {
		printf("%d failures\n", failures);
		return 1;
	}
	printf("ok malloc=%lu calloc=%lu realloc=%lu reallocarray=%lu "
	       "free=%lu posix_memalign=%lu aligned_alloc=%lu memalign=%lu "
	       "valloc=%lu pvalloc=%lu malloc_usable_size=%lu free_sized=%lu "
	       "free_aligned_sized=%lu\n",
	       n_malloc, n_calloc, n_realloc, n_reallocarray, n_free,
	       n_posix_memalign, n_aligned_alloc, n_memalign, n_valloc,
	       n_pvalloc, n_usable, n_free_sized, n_free_aligned_sized);
	return 0;
}
