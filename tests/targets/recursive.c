/*
 * recursive: a function that calls itself 50 deep and does the same work at
 * every level, beside a non-recursive sibling. recurse() does 60 % of the
 * work and sibling() 40 %, so a sample must count once in recurse's total
 * however many times recurse is on its stack. About 1.5 s at scale 1.
 */
#include "work.h"

#define DEPTH 50
#define ROUNDS 10

static volatile unsigned long levels_done;

static WORK_FN void
recurse(int depth, unsigned long iters)
{
	if (depth > 1)
		recurse(depth - 1, iters);
	/* Work after the call, so the recursion is not a tail call the
	 * compiler could turn into a loop. */
	work_spin(iters);
	levels_done++;
}

static WORK_FN void
sibling(unsigned long iters)
{
	work_spin(iters);
}

int
main(int argc, char **argv)
{
	/* Per round: 9 units in recurse (spread over DEPTH levels), 6 in
	 * sibling. */
	double unit = work_scale(argc, argv, 1) * WORK_UNIT;

	for (int round = 0; round < ROUNDS; round++) {
		recurse(DEPTH, (unsigned long)(9 * unit / DEPTH));
		sibling((unsigned long)(6 * unit));
	}
	return levels_done == (unsigned long)DEPTH * ROUNDS ? 0 : 1;
}
