/*
 * shlib_main: 60 % of the work in shared_work() of libworkshared.so, 40 %
 * in local_work() of the executable. About 1.5 s at scale 1.
 */
#include "libworkshared.h"
#include "work.h"

#define ROUNDS 10

static WORK_FN void
local_work(unsigned long iters)
{
	work_spin(iters);
}

int
main(int argc, char **argv)
{
	unsigned long part = (unsigned long)(work_scale(argc, argv, 1) * 3 *
					     WORK_UNIT);

	for (int round = 0; round < ROUNDS; round++) {
		shared_work(3 * part);
		local_work(2 * part);
	}
	return 0;
}
