/*
 * space_peak: the heap peaks at a known size in the middle of the run.
 * grow_site builds up PEAK bytes in 64 KiB blocks and then frees them all;
 * churn_site then allocates and frees four times as much in small blocks
 * (the heap stays small); tail_site finally keeps PEAK / 8 until exit.
 * At the estimated peak the live sampled blocks must be grow_site's and
 * add up to PEAK.
 *
 * PEAK is 96 MiB at scale 1 (argv[1]); the program prints it, and when
 * the heap peaks: peak_from_ns, CLOCK_MONOTONIC (the spool's clock) once
 * all of grow_site's blocks but the last LAST_BLOCKS are allocated, and
 * peak_to_ns, once they all are (the peak). The profile's peak is its
 * last sampled grow_site block, which is between the two unless none of
 * the last LAST_BLOCKS was sampled.
 */
#include <stdint.h>

#include "work.h"

#define GROW_BLOCK (64 * 1024)
#define LAST_BLOCKS 16

static uint64_t
mono_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		abort();
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *volatile sink;

/* Allocates bytes in blocks, kept; *from_ns is the time when all but the
 * last LAST_BLOCKS are. */
static WORK_FN void **
grow_site(uint64_t bytes, size_t *n, uint64_t *from_ns)
{
	size_t count = (size_t)(bytes / GROW_BLOCK);
	void **blocks = calloc(count, sizeof(*blocks));
	if (!blocks || count <= LAST_BLOCKS)
		abort();
	for (size_t i = 0; i < count; i++) {
		if (i == count - LAST_BLOCKS)
			*from_ns = mono_ns();
		char *p = malloc(GROW_BLOCK);
		if (!p)
			abort();
		p[0] = 1;
		blocks[i] = p;
	}
	*n = count;
	return blocks;
}

static WORK_FN void
churn_site(uint64_t bytes)
{
	for (uint64_t done = 0; done < bytes; done += 512) {
		char *p = malloc(512);
		if (!p)
			abort();
		p[0] = 1;
		sink = p;
		free(p);
	}
}

static WORK_FN void
tail_site(uint64_t bytes)
{
	for (uint64_t done = 0; done < bytes; done += GROW_BLOCK) {
		char *p = malloc(GROW_BLOCK);
		if (!p)
			abort();
		p[0] = 1;
		sink = p; /* kept to the end */
	}
}

int
main(int argc, char **argv)
{
	uint64_t peak = (uint64_t)(work_scale(argc, argv, 1) * 96.0 * 1024 *
				   1024);
	size_t n;
	uint64_t from_ns = 0;
	void **blocks = grow_site(peak, &n, &from_ns);
	uint64_t to_ns = mono_ns();

	for (size_t i = 0; i < n; i++)
		free(blocks[i]);
	free(blocks);
	churn_site(4 * peak);
	tail_site(peak / 8);
	printf("grow_site=%llu peak_from_ns=%llu peak_to_ns=%llu\n",
	       (unsigned long long)n * GROW_BLOCK, (unsigned long long)from_ns,
	       (unsigned long long)to_ns);
	return 0;
}
