/*
 * space_leak: leaky_site allocates LEAK bytes in 4 KiB blocks and never
 * frees them; churn_site allocates 16 times as much in 1 KiB blocks and
 * frees each at once. The in-use view at exit must show leaky_site's
 * bytes and nothing of churn_site's (every free of a sampled block
 * recorded); the allocation view, churn_site with 16/17 of the bytes.
 *
 * LEAK is 128 MiB at scale 1 (argv[1]); the program prints the bytes
 * leaked and churned.
 */
#include <stdint.h>

#include "work.h"

#define ROUNDS 16
#define LEAK_BLOCK 4096
#define CHURN_BLOCK 1024

static void *volatile sink;

static WORK_FN uint64_t
leaky_site(uint64_t bytes)
{
	uint64_t done = 0;
	for (; done + LEAK_BLOCK <= bytes; done += LEAK_BLOCK) {
		char *p = malloc(LEAK_BLOCK);
		if (!p)
			abort();
		p[0] = 1;
		sink = p; /* and forgotten */
	}
	return done;
}

static WORK_FN uint64_t
churn_site(uint64_t bytes)
{
	uint64_t done = 0;
	for (; done + CHURN_BLOCK <= bytes; done += CHURN_BLOCK) {
		char *p = malloc(CHURN_BLOCK);
		if (!p)
			abort();
		p[0] = 1;
		sink = p;
		free(p);
	}
	return done;
}

int
main(int argc, char **argv)
{
	uint64_t leak = (uint64_t)(work_scale(argc, argv, 1) * 128.0 * 1024 *
				   1024);
	uint64_t leaked = 0, churned = 0;

	for (int r = 0; r < ROUNDS; r++) {
		leaked += leaky_site(leak / ROUNDS);
		churned += churn_site(16 * leak / ROUNDS);
	}
	printf("leaky_site=%llu churn_site=%llu\n", (unsigned long long)leaked,
	       (unsigned long long)churned);
	return 0;
}
