/*
 * space_peak: the heap peaks at a known size in the middle of the run.
 * grow_site builds up PEAK bytes in 64 KiB blocks and then frees them all;
 * churn_site then allocates and frees four times as much in small blocks
 * (the heap stays small); tail_site finally keeps PEAK / 8 until exit.
 * At the estimated peak the live sampled blocks must be grow_site's and
 * add up to PEAK.
 *
 * PEAK is 96 MiB at scale 1 (argv[1]); the program prints it.
 */
#include <stdint.h>

#include "work.h"

#define GROW_BLOCK (64 * 1024)

static void *volatile sink;

static WORK_FN void **
grow_site(uint64_t bytes, size_t *n)
{
	size_t count = (size_t)(bytes / GROW_BLOCK);
	void **blocks = calloc(count, sizeof(*blocks));
	if (!blocks)
		abort();
	for (size_t i = 0; i < count; i++) {
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
	void **blocks = grow_site(peak, &n);

	for (size_t i = 0; i < n; i++)
		free(blocks[i]);
	free(blocks);
	churn_site(4 * peak);
	tail_site(peak / 8);
	printf("grow_site=%llu\n", (unsigned long long)n * GROW_BLOCK);
	return 0;
}
