/*
 * deep_chain: a call chain 200 frames deep, deeper than the 128 frames a
 * sample holds, with all the work at its bottom. The samples are truncated
 * (the outermost frames are lost) but the leaf, bottom_work(), is the
 * innermost frame and must still get them. About 1 s at scale 1.
 */
#include "work.h"

#define DEPTH 200
#define ROUNDS 10

static volatile unsigned long links;

static WORK_FN void
bottom_work(unsigned long iters)
{
	work_spin(iters);
}

static WORK_FN void
chain(int depth, unsigned long iters)
{
	if (depth > 0)
		chain(depth - 1, iters);
	else
		bottom_work(iters);
	/* Not a tail call: every link keeps its frame. */
	links++;
}

int
main(int argc, char **argv)
{
	unsigned long iters = (unsigned long)(work_scale(argc, argv, 1) * 10 *
					      WORK_UNIT);

	for (int round = 0; round < ROUNDS; round++)
		chain(DEPTH, iters);
	return links == (unsigned long)(DEPTH + 1) * ROUNDS ? 0 : 1;
}
