/*
 * work_split: main calls three leaves that do 50, 30 and 20 % of the work
 * (the same loop, for 5:3:2 of the thread's CPU time; see work.h), in
 * interleaved rounds so that a sampler that starts late does not skew the
 * split. About 1.5 s of CPU at scale 1 (argv[1]).
 */
#include "work.h"

#define ROUNDS 10

static WORK_FN void
leaf_50(unsigned long iters)
{
	work_spin(iters);
}

static WORK_FN void
leaf_30(unsigned long iters)
{
	work_spin(iters);
}

static WORK_FN void
leaf_20(unsigned long iters)
{
	work_spin(iters);
}

int
main(int argc, char **argv)
{
	/* 150 units in all, 15 per round: 5:3:2 of them. */
	unsigned long part = (unsigned long)(work_scale(argc, argv, 1) * 1.5 *
					     WORK_UNIT);

	for (int round = 0; round < ROUNDS; round++) {
		leaf_50(5 * part);
		leaf_30(3 * part);
		leaf_20(2 * part);
	}
	return 0;
}
