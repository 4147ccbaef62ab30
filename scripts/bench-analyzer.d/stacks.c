/*
 * stacks: the workload of BENCHMARKS.md's side-by-side comparison of
 * profanalyze with perf report and go tool pprof ("Analyzer: 50 million
 * samples over 10,000 stacks"): one program whose profile has 10,000
 * distinct stacks, whichever tool records it.
 *
 * Ten functions, f0 to f9, each call one of the ten, chosen by a digit
 * of a counter, four levels deep: counter value n runs
 * f[d0] -> f[d1] -> f[d2] -> f[d3], d0 to d3 its four low decimal
 * digits, and the fourth does a fixed unit of arithmetic. The counter
 * goes round all 10,000 values every few milliseconds, so a profile of
 * a few seconds has samples in every stack, about as many in each.
 * Each function mixes its own constant into the result so that the
 * compiler's identical code folding can not merge the ten into one.
 *
 * Built as BENCHMARKS.md says (the flags keep every call a frame of its
 * own):
 *   cc -O2 -g -fno-omit-frame-pointer -fno-inline \
 *     -fno-optimize-sibling-calls -o stacks scripts/bench-analyzer.d/stacks.c
 *
 * usage: stacks [SECONDS]
 *   runs until the process has used SECONDS of CPU time (default 10),
 *   then prints the counter and a checksum.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define LEVELS 4
/* Multiply-adds of the unit of work: a few hundred nanoseconds, so that
 * most samples fall in the fourth level and the counter still goes
 * round many times a second. */
#define WORK 200

typedef unsigned long (*step_fn)(unsigned long n, int level,
				 unsigned long x);

/* The ten functions, by digit (defined after them). */
static const step_fn steps[10];

static const unsigned long tens[LEVELS] = { 1, 10, 100, 1000 };
/* The decimal digit of n that chooses the function at level (1 to 4): a
 * macro, since -fno-inline would leave a function of it a frame, and
 * stacks, of its own. */
#define DIGIT(n, level) ((n) / tens[(level) - 1] % 10)

#define STEP(i)                                                             \
	static __attribute__((noinline)) unsigned long f##i(                \
		unsigned long n, int level, unsigned long x)                \
	{                                                                   \
		x = x * 6364136223846793005ul + (i) + 1;                    \
		if (level < LEVELS)                                         \
			return steps[DIGIT(n, level + 1)](n, level + 1, x) ^ \
			       (i);                                         \
		for (int k = 0; k < WORK; k++)                              \
			x = x * 2862933555777941757ul + 3037000493ul + (i); \
		return x;                                                   \
	}

STEP(0)
STEP(1)
STEP(2)
STEP(3)
STEP(4)
STEP(5)
STEP(6)
STEP(7)
STEP(8)
STEP(9)

static const step_fn steps[10] = { f0, f1, f2, f3, f4,
				   f5, f6, f7, f8, f9 };

static double
cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 10;
	if (!(seconds > 0)) {
		fprintf(stderr, "usage: stacks [SECONDS]\n");
		return 2;
	}
	unsigned long n = 0, x = 1;
	/* The clock is read once a round of the 10,000 stacks, so that
	 * every stack gets the same share of the time. */
	do {
		for (int i = 0; i < 10000; i++, n++)
			x ^= steps[DIGIT(n, 1)](n, 1, x);
	} while (cpu_seconds() < seconds);
	printf("counter %lu checksum %lx\n", n, x);
	return 0;
}
