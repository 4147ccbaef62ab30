/*
 * vdso_loop: spends most of its time in the vdso, reading the clock
 * through clock_gettime() in a loop (about 1 s at scale 1), so that
 * samples land in the kernel's code mapped into the process, which has
 * no file: the analyzer must name its functions from the image the spool
 * carries.
 */
#include <time.h>

#include "work.h"

static WORK_FN unsigned long
read_clocks(unsigned long n)
{
	struct timespec ts;
	unsigned long sum = 0;
	for (unsigned long i = 0; i < n; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		sum += (unsigned long)ts.tv_nsec;
	}
	return sum;
}

int
main(int argc, char **argv)
{
	struct timespec start, now;
	double secs = work_scale(argc, argv, 1);
	unsigned long sum = 0;

	/* By time rather than by count: a clock read costs 20 ns with a
	 * vdso clock source and a microsecond without. */
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &start);
	do {
		sum += read_clocks(100000);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
	} while ((double)(now.tv_sec - start.tv_sec) +
		 (double)(now.tv_nsec - start.tv_nsec) / 1e9 < secs);
	return sum == 42;
}
