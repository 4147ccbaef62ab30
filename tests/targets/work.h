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

/* The benchmark's mode (scripts/bench). With WORK_ITERS_PER_MS=N in the
 * environment, work_spin(cpu_ns) runs a fixed number of iterations,
 * N per millisecond asked for, instead of watching the CPU clock: a
 * profiler's cost then shows as extra CPU time, where in the CPU-time mode
 * the work would shrink to make room for it. WORK_REPORT=1 prints, at exit,
 * the iterations done and the process's CPU time, from which the benchmark
 * takes N. Read once; 0 is the CPU-time mode. */
static unsigned long work_iters_total;

static inline unsigned long
work_iters_per_ms(void)
{
	static unsigned long per_ms = ~0UL;
	unsigned long v = __atomic_load_n(&per_ms, __ATOMIC_RELAXED);

	if (v == ~0UL) {
		const char *e = getenv("WORK_ITERS_PER_MS");
		char *end;

		v = e && *e ? strtoul(e, &end, 10) : 0;
		if (e && *e && (*end || v == 0 || v == ~0UL)) {
			fprintf(stderr, "bad WORK_ITERS_PER_MS '%s'\n", e);
			exit(2);
		}
		__atomic_store_n(&per_ms, v, __ATOMIC_RELAXED);
	}
	return v;
}

static void __attribute__((destructor))
work_report(void)
{
	const char *e = getenv("WORK_REPORT");
	struct timespec ts;

	if (!e || *e != '1' ||
	    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
		return;
	fprintf(stderr, "work: %lu iterations in %lu ns of CPU\n",
		__atomic_load_n(&work_iters_total, __ATOMIC_RELAXED),
		(unsigned long)ts.tv_sec * 1000000000UL +
			(unsigned long)ts.tv_nsec);
}

/* The loop every work function shares, inlined into each of them so that
 * the samples land in the work function itself. It runs for cpu_ns of the
 * thread's CPU time rather than for a number of iterations: the profiler
 * measures CPU time, and how long an iteration takes depends on what the
 * other hyperthread of the core is doing, on frequency scaling and on the
 * code's alignment, so only CPU time makes the shares exact by
 * construction on a shared machine. The same loop, by chunks of
 * WORK_CHECK_EVERY, in both modes. */
static inline __attribute__((always_inline)) void
work_spin(unsigned long cpu_ns)
{
	volatile unsigned long acc = 0;
	unsigned long per_ms = work_iters_per_ms();
	unsigned long chunks = 0;
	unsigned long end = per_ms ? 0 : work_thread_cpu_ns() + cpu_ns;
	unsigned long fixed = per_ms ? (unsigned long)((double)cpu_ns / 1e6 *
						       (double)per_ms /
						       WORK_CHECK_EVERY)
				     : 0;

	do {
		for (unsigned long i = 0; i < WORK_CHECK_EVERY; i++)
			acc += i ^ (acc >> 3);
		chunks++;
	} while (per_ms ? chunks < fixed : work_thread_cpu_ns() < end);
	__atomic_fetch_add(&work_iters_total, chunks * WORK_CHECK_EVERY,
			   __ATOMIC_RELAXED);
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
