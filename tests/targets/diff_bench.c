/*
 * diff_bench: the ground truth of the CI recipe's test (profanalyze
 * --diff, tests/integration/test_diff_gate.py). A benchmark loop calls
 * three functions that do 4, 3 and 3 parts of the work; built with
 * -DDIFF_HEAD (diff_bench_head) bench_b does twice its work, which is the
 * one regression the gate must name. The work is a fixed number of
 * iterations of a loop that calls nothing, so that bench_b's own time is
 * all that changes (a loop that polled the CPU clock would make the
 * clock's function grow with it). About 0.5 s of CPU at scale 1
 * (argv[1]) on the machines this was written on, 0.65 s for the head.
 */
#include "work.h"

#define ROUNDS 10

#ifdef DIFF_HEAD
#define B_FACTOR 2
#else
#define B_FACTOR 1
#endif

static volatile unsigned long sink;

#define LOOP(iters)                                                        \
	do {                                                               \
		unsigned long acc = 0;                                     \
		for (unsigned long i = 0; i < (iters); i++)                \
			acc += i ^ (acc >> 3);                             \
		sink = acc;                                                \
	} while (0)

static WORK_FN void
bench_a(unsigned long iters)
{
	LOOP(iters);
}

static WORK_FN void
bench_b(unsigned long iters)
{
	LOOP(iters);
}

static WORK_FN void
bench_c(unsigned long iters)
{
	LOOP(iters);
}

static WORK_FN void
bench_loop(unsigned long part)
{
	for (int round = 0; round < ROUNDS; round++) {
		bench_a(4 * part);
		bench_b(3 * part * B_FACTOR);
		bench_c(3 * part);
	}
}

int
main(int argc, char **argv)
{
	/* 10 parts a round, 10 rounds: 100 parts of 5 million iterations
	 * (some 5 ms) at scale 1. */
	bench_loop((unsigned long)(work_scale(argc, argv, 1) * 5e6));
	return 0;
}
