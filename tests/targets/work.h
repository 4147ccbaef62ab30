/*
 * work: CPU work whose amount is known by construction, for the target
 * programs of the integration tests.
 *
 * The targets are built like ordinary user code (-O2 -g, no frame pointer),
 * so the profiler has to unwind them through DWARF CFI as it would a real
 * program. Two things must survive the optimizer for the ground truth to
 * hold: every iteration of the loop (the accumulator is volatile) and every
 * work function as a function of its own (WORK_FN: not inlined, not cloned
 * into foo.constprop.0, not folded with an identical sibling by ICF).
 */
#ifndef PROFRUN_TARGETS_WORK_H
#define PROFRUN_TARGETS_WORK_H

#include <stdio.h>
#include <stdlib.h>

#if defined(__clang__)
#define WORK_FN __attribute__((noinline))
#else
#define WORK_FN __attribute__((noinline, noclone, no_icf))
#endif

/* Iterations in one unit of work: about 10 ms of CPU on a 2020s x86-64. */
#define WORK_UNIT 10000000UL

/* The loop body every work function shares, inlined into each of them so
 * that the samples land in the work function itself. */
static inline __attribute__((always_inline)) void
work_spin(unsigned long iters)
{
	volatile unsigned long acc = 0;

	for (unsigned long i = 0; i < iters; i++)
		acc += i ^ (acc >> 3);
}

/* The scale factor in argv[i] (default 1.0): each target multiplies its
 * work by it, so a test can make a run shorter or longer. */
static inline double
work_scale(int argc, char **argv, int i)
{
	char *end;
	double scale;

	if (argc <= i)
		return 1.0;
	scale = strtod(argv[i], &end);
	if (*end || !(scale > 0)) {
		fprintf(stderr, "%s: bad scale '%s'\n", argv[0], argv[i]);
		exit(2);
	}
	return scale;
}

#endif
