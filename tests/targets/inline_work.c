/*
 * inline_work: a function whose work is code the compiler inlined, for
 * profanalyze --inline. caller() (out of line) does 3 units of work in
 * mix(), a static inline function forced inline, and 1 unit in work.h's
 * work_spin directly; mix() does its work in work_spin, inlined into it
 * (so its frames nest: caller, mix, work_spin). By construction mix's
 * frame has 3/4 of caller's time, and all of caller's time is in
 * inlined code but for a few instructions. About 1.5 s at scale 1.
 */
#include "work.h"

#define ROUNDS 38

static inline __attribute__((always_inline)) void
mix(unsigned long cpu_ns)
{
	work_spin(cpu_ns); /* inline_work: mix's call */
}

static WORK_FN void
caller(unsigned long unit)
{
	mix(3 * unit); /* inline_work: caller's call of mix */
	work_spin(unit);
}

int
main(int argc, char **argv)
{
	double unit = work_scale(argc, argv, 1) * WORK_UNIT;

	for (int round = 0; round < ROUNDS; round++)
		caller((unsigned long)unit);
	return 0;
}
