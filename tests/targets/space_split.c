/*
 * space_split: three call sites allocate 60, 30 and 10 % of the bytes,
 * each with its own block size: many small blocks (64 bytes, far below the
 * sampling interval), blocks of 256 KiB (about half the default interval,
 * so a block is sampled with probability about 0.4) and blocks of 4 MiB
 * (always sampled). A space profile is right only if every byte is as
 * likely to be charged whatever the size of its block, and each sample is
 * weighted accordingly. Every block is freed at once.
 *
 * Rounds interleave the sites. 2 GiB in all at scale 1 (argv[1]); the
 * program prints the bytes each site allocated, the ground truth. When
 * jemalloc is in the process (linked or preloaded) it also prints, as
 * je_allocated, the bytes jemalloc itself says it allocated on this
 * thread (mallctl "thread.allocated", found through dlsym): the proof that
 * jemalloc, not the C library, served the blocks.
 */
#include <dlfcn.h>
#include <stdint.h>

#include "work.h"

#define ROUNDS 16
#define SMALL 64
#define MEDIUM (256 * 1024)
#define LARGE (4 * 1024 * 1024)

static void *volatile sink;

/* Allocates bytes in blocks of size; returns the bytes allocated. */
static inline __attribute__((always_inline)) uint64_t
blocks(uint64_t bytes, size_t size)
{
	uint64_t done = 0;
	for (; done + size <= bytes; done += size) {
		char *p = malloc(size);
		if (!p)
			abort();
		p[0] = 1;
		sink = p;
		free(p);
	}
	return done;
}

static WORK_FN uint64_t
site_small_60(uint64_t bytes)
{
	return blocks(bytes, SMALL);
}

static WORK_FN uint64_t
site_medium_30(uint64_t bytes)
{
	return blocks(bytes, MEDIUM);
}

static WORK_FN uint64_t
site_large_10(uint64_t bytes)
{
	return blocks(bytes, LARGE);
}

/* jemalloc's count of the bytes allocated on this thread, or -1 when
 * jemalloc is not in the process (or keeps no statistics). */
static long long
jemalloc_allocated(void)
{
	int (*mallctl)(const char *, void *, size_t *, void *, size_t) =
		(int (*)(const char *, void *, size_t *, void *, size_t))dlsym(
			RTLD_DEFAULT, "mallctl");
	uint64_t v;
	size_t len = sizeof(v);

	if (!mallctl || mallctl("thread.allocated", &v, &len, NULL, 0) != 0)
		return -1;
	return (long long)v;
}

int
main(int argc, char **argv)
{
	uint64_t total = (uint64_t)(work_scale(argc, argv, 1) * 2048.0 *
				    1024 * 1024);
	uint64_t round = total / ROUNDS, done[3] = { 0, 0, 0 };

	for (int r = 0; r < ROUNDS; r++) {
		done[0] += site_small_60(round * 6 / 10);
		done[1] += site_medium_30(round * 3 / 10);
		done[2] += site_large_10(round / 10);
	}
	long long je = jemalloc_allocated();
	printf("site_small_60=%llu site_medium_30=%llu site_large_10=%llu\n",
	       (unsigned long long)done[0], (unsigned long long)done[1],
	       (unsigned long long)done[2]);
	if (je >= 0)
		printf("je_allocated=%lld\n", je);
	return 0;
}
