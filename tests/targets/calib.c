/*
 * calib: ground truth for the error bars, whose truth is known by
 * construction, in many short runs.
 *
 * calib time SECS: six functions with the same loop (the same code,
 * each aligned to 64 bytes, so an iteration costs the same in each) run
 * 1, 2, 3, 4, 5 and 5 units in turn, a unit being a few microseconds: the
 * whole cycle takes some 40 us, far below a sampling period, so a sample
 * falls in each function with the probability of its share, 5, 10, 15,
 * 20, 25 and 25 % of the six's time. Runs until the process has used SECS
 * seconds of CPU time.
 *
 * calib space MBYTES: six functions allocate (and free) 1, 2, 3, 4, 5
 * and 5 parts of the same 40 block sizes, from 24 bytes to 96 KiB (below
 * and above the sampling intervals the test uses), MBYTES mebibytes in
 * all: their shares of the bytes allocated are 5, 10, 15, 20, 25 and 25 %.
 *
 * Prints "done" and exits 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "work.h"

#define UNIT 2000UL /* loop iterations */
#define FN __attribute__((noinline, aligned(64)))
#if defined(__clang__)
#define SPACE_FN __attribute__((noinline))
#else
#define SPACE_FN __attribute__((noinline, noclone, no_icf))
#endif

static volatile unsigned long sink;

#define SPIN_FN(name)                                                      \
	static WORK_FN FN void name(unsigned long units)                   \
	{                                                                  \
		unsigned long acc = 0;                                     \
		for (unsigned long i = 0; i < units * UNIT; i++)           \
			acc += i ^ (acc >> 3);                             \
		sink = acc;                                                \
	}

SPIN_FN(spin_1)
SPIN_FN(spin_2)
SPIN_FN(spin_3)
SPIN_FN(spin_4)
SPIN_FN(spin_5a)
SPIN_FN(spin_5b)

/* One part's sizes: 40 blocks from 24 bytes to 96 KiB, 256 KiB or so. */
static const size_t sizes[] = {
	24, 40, 64, 64, 100, 128, 200, 256, 300, 512, 700, 1024, 1500, 2048,
	3000, 4096, 6000, 8192, 12000, 16384, 24, 48, 96, 160, 320, 640,
	1280, 2560, 5120, 10240, 20480, 40960, 98304, 32, 72, 136, 264, 520,
	1032, 2056,
};

static size_t
part_bytes(void)
{
	size_t n = 0;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		n += sizes[i];
	return n;
}

/* Inlined: malloc's caller is the function whose part it is. */
static inline __attribute__((always_inline)) void
alloc_part(void)
{
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		char *p = malloc(sizes[i]);
		if (!p)
			abort();
		p[0] = 1;
		sink += (unsigned char)p[0];
		free(p);
	}
}

#define ALLOC_FN(name)                                                     \
	static SPACE_FN void name(unsigned long parts)                     \
	{                                                                  \
		for (unsigned long i = 0; i < parts; i++)                  \
			alloc_part();                                      \
		__asm__ volatile("" ::: "memory");                         \
	}

ALLOC_FN(alloc_1)
ALLOC_FN(alloc_2)
ALLOC_FN(alloc_3)
ALLOC_FN(alloc_4)
ALLOC_FN(alloc_5a)
ALLOC_FN(alloc_5b)

int
main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[1], "time") && strcmp(argv[1], "space"))) {
		fprintf(stderr, "usage: calib time SECS | calib space MBYTES\n");
		return 2;
	}
	double amount = atof(argv[2]);
	if (!strcmp(argv[1], "time")) {
		unsigned long budget = (unsigned long)(amount * 1e9);
		do {
			for (int k = 0; k < 64; k++) {
				spin_1(1);
				spin_2(2);
				spin_3(3);
				spin_4(4);
				spin_5a(5);
				spin_5b(5);
			}
		} while (work_thread_cpu_ns() < budget);
	} else {
		unsigned long rounds =
			(unsigned long)(amount * 1048576.0 / (20.0 * (double)part_bytes()));
		for (unsigned long r = 0; r < rounds; r++) {
			alloc_1(1);
			alloc_2(2);
			alloc_3(3);
			alloc_4(4);
			alloc_5a(5);
			alloc_5b(5);
		}
	}
	puts("done");
	return 0;
}
