/*
 * diff_bench: the ground truth of the CI recipe's test (profanalyze
 * --diff, tests/integration/test_diff_gate.py). A benchmark loop calls
 * three functions that do 4, 3 and 3 parts of the work; built with
 * -DDIFF_HEAD (diff_bench_head) bench_b does twice its work, which is the
 * one regression the gate must name. About 0.5 s of CPU at scale 1
 * (argv[1]), 0.65 s for the head.
 */
#include "work.h"

#define ROUNDS 10

#ifdef DIFF_HEAD
#define B_FACTOR 2
#else
#define B_FACTOR 1
#endif

static WORK_FN void
bench_a(unsigned long iters)
{
	work_spin(iters);
}

static WORK_FN void
bench_b(unsigned long iters)
{
	work_spin(iters);
}

static WORK_FN void
bench_c(unsigned long iters)
{
	work_spin(iters);
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
	/* 10 parts a round, 10 rounds: 100 parts of 5 ms at scale 1. */
	bench_loop((unsigned long)(work_scale(argc, argv, 1) * 0.5 *
				   WORK_UNIT));
	return 0;
}
