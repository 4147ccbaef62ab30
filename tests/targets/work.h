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
#include <time.h>

#if defined(__clang__)
#define WORK_FN __attribute__((noinline))
#else
#define WORK_FN __attribute__((noinline, noclone, no_icf))
#endif

/* One unit of work: 10 ms of the calling thread's CPU time, in ns. */
#define WORK_UNIT 10000000UL

/* Iterations between two looks at the thread's CPU clock: tens of
 * microseconds, so the clock's system calls cost well under 1% of it. */
#define WORK_CHECK_EVERY 65536UL

static inline unsigned long
work_thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) {
		perror("clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
		abort();
	}
	return (unsigned long)ts.tv_sec * 1000000000UL +
	       (unsigned long)ts.tv_nsec;
}

/* The loop every work function shares, inlined into each of them so that
 * the samples land in the work function itself. It runs for cpu_ns of the
 * thread's CPU time rather than for a number of iterations: the profiler
 * measures CPU time, and how long an iteration takes depends on what the
 * other hyperthread of the core is doing, on frequency scaling and on the
 * code's alignment, so only CPU time makes the shares exact by
 * construction on a shared machine. */
static inline __attribute__((always_inline)) void
work_spin(unsigned long cpu_ns)
{
	volatile unsigned long acc = 0;
	unsigned long end = work_thread_cpu_ns() + cpu_ns;

	do {
		for (unsigned long i = 0; i < WORK_CHECK_EVERY; i++)
			acc += i ^ (acc >> 3);
	} while (work_thread_cpu_ns() < end);
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
