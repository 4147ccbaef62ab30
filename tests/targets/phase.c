/*
 * phase: a program whose work repeats with the sampling period. Two
 * functions take turns for 0.5 ms each on a fixed 1 ms schedule of the
 * monotonic clock (the truth is 50/50): a profiler whose samples come at
 * a fixed 1 ms of CPU time catches the same phase every time.
 *
 * The truth is 50/50 on a quiet machine only: a process preempted in the
 * middle of a phase loses the rest of it, and the scheduler's tick, a
 * multiple of 1 ms, preempts at the same phase each time. So the program
 * measures the CPU time each phase took (the thread's CPU clock, read in
 * main between the phases, so the reads fall in neither function) and
 * prints it: the ground truth of the run.
 *
 * usage: phase [SECS]: runs until it has used SECS seconds of CPU time
 * (default 3.2: some 3,200 samples at 1 kHz however loaded the machine),
 * prints "phase_a_ns=A phase_b_ns=B", exits 0
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "work.h"

static uint64_t
clock_ns(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t
now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static WORK_FN void
phase_a(uint64_t until)
{
	while (now_ns() < until)
		;
}

static WORK_FN void
phase_b(uint64_t until)
{
	while (now_ns() < until)
		;
}

int
main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3.2;
	uint64_t budget = (uint64_t)(secs * 1e9);
	uint64_t frame = now_ns(), a_ns = 0, b_ns = 0;
	uint64_t cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	while (cpu < budget) {
		/* A frame missed while the process did not run is skipped,
		 * as a frame loop would. */
		uint64_t now = now_ns();
		if (now >= frame + 1000000)
			frame += (now - frame) / 1000000 * 1000000;
		phase_a(frame + 500000);
		uint64_t mid = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		phase_b(frame + 1000000);
		uint64_t end = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		a_ns += mid - cpu;
		b_ns += end - mid;
		cpu = end;
		frame += 1000000;
	}
	printf("phase_a_ns=%llu phase_b_ns=%llu\n", (unsigned long long)a_ns,
	       (unsigned long long)b_ns);
	return 0;
}
