/*
 * Ground truth for profanalyze --disassemble and --list: hot() runs a loop
 * whose work is known by construction, with
 *   - a 64-bit division by a divisor read from memory (volatile, so the
 *     compiler cannot turn it into a multiplication): the slowest
 *     instruction of the loop;
 *   - mix(), inlined into the loop (always_inline): its lines are those
 *     of another function, marked as inlined in the listing;
 *   - a call of callee() every 64 iterations, which does the rest of the
 *     work: its samples are callee's own, and with --hide=callee they
 *     become hot's hits on the instruction after the call.
 * The lines the tests look for carry a marker comment (ANNOTATE-...).
 *
 * usage: annotate [SECONDS]   (default 1: CPU time spent in the loop)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

uint64_t callee(uint64_t x);
uint64_t hot(uint64_t n);

volatile uint64_t annotate_divisor = 7;

static inline __attribute__((always_inline)) uint64_t
mix(uint64_t x)
{
	x ^= x >> 29;                  /* ANNOTATE-MIX */
	x *= 0xbf58476d1ce4e5b9ull;    /* ANNOTATE-MIX */
	return x ^ (x >> 32);          /* ANNOTATE-MIX */
}

__attribute__((noinline)) uint64_t
callee(uint64_t x)
{
	for (int i = 0; i < 300; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

__attribute__((noinline)) uint64_t
hot(uint64_t n)
{
	uint64_t acc = 1;
	for (uint64_t i = 0; i < n; i++) {
		acc += mix(acc + i);                    /* ANNOTATE-INLINE */
		if ((i & 63) == 0)
			acc = callee(acc);              /* ANNOTATE-CALL */
		acc = acc / annotate_divisor + i;       /* ANNOTATE-DIV */
	}
	return acc;
}

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
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	double start = cpu_seconds();
	uint64_t acc = 0;
	while (cpu_seconds() - start < secs)
		acc += hot(1000000);
	printf("%llu\n", (unsigned long long)(acc & 1));
	return 0;
}
