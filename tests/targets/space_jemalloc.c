/*
 * space_jemalloc: jemalloc's own API, which the profiler wraps too:
 * mallocx and sdallocx (50 % of the bytes), mallocx then rallocx and
 * dallocx (30 %), mallocx then xallocx growing in place (20 %). Linked
 * with -ljemalloc. A reallocation counts its new size as bytes allocated
 * (as the profiler counts it), and an xallocx only when it grew the block.
 *
 * Prints the bytes each site allocated and the calls it made, the ground
 * truth. 1 GiB in all at scale 1 (argv[1]).
 */
#include <jemalloc/jemalloc.h>
#include <stdint.h>

#include "work.h"

static void *volatile sink;
static uint64_t n_mallocx, n_rallocx, n_xallocx, n_sdallocx, n_dallocx;

static WORK_FN uint64_t
site_mallocx(uint64_t bytes)
{
	uint64_t done = 0;
	for (; done + 4096 <= bytes; done += 4096) {
		char *p = mallocx(4096, 0);
		if (!p)
			abort();
		p[0] = 1;
		sink = p;
		sdallocx(p, 4096, 0);
		n_mallocx++;
		n_sdallocx++;
	}
	return done;
}

static WORK_FN uint64_t
site_rallocx(uint64_t bytes)
{
	uint64_t done = 0;
	while (done + 1024 + 16384 <= bytes) {
		char *p = mallocx(1024, 0);
		if (!p)
			abort();
		p[0] = 1;
		p = rallocx(p, 16384, 0);
		if (!p)
			abort();
		sink = p;
		dallocx(p, 0);
		done += 1024 + 16384;
		n_mallocx++;
		n_rallocx++;
		n_dallocx++;
	}
	return done;
}

static WORK_FN uint64_t
site_xallocx(uint64_t bytes)
{
	uint64_t done = 0;
	while (done + 20480 + 40960 <= bytes) {
		char *p = mallocx(20480, 0);
		if (!p)
			abort();
		p[0] = 1;
		done += 20480;
		if (xallocx(p, 40960, 0, 0) >= 40960)
			done += 40960;
		sink = p;
		dallocx(p, 0);
		n_mallocx++;
		n_xallocx++;
		n_dallocx++;
	}
	return done;
}

int
main(int argc, char **argv)
{
	uint64_t total = (uint64_t)(work_scale(argc, argv, 1) * 1024.0 *
				    1024 * 1024);
	uint64_t done[3] = { 0, 0, 0 };

	for (int r = 0; r < 8; r++) {
		done[0] += site_mallocx(total / 8 * 5 / 10);
		done[1] += site_rallocx(total / 8 * 3 / 10);
		done[2] += site_xallocx(total / 8 * 2 / 10);
	}
	printf("site_mallocx=%llu site_rallocx=%llu site_xallocx=%llu\n",
	       (unsigned long long)done[0], (unsigned long long)done[1],
	       (unsigned long long)done[2]);
	printf("mallocx=%llu rallocx=%llu xallocx=%llu sdallocx=%llu "
	       "dallocx=%llu\n", (unsigned long long)n_mallocx,
	       (unsigned long long)n_rallocx, (unsigned long long)n_xallocx,
	       (unsigned long long)n_sdallocx, (unsigned long long)n_dallocx);
	return 0;
}
