/*
 * libreuse_b.so: libreuse_a.so under another name (see libreuse_a.c).
 */
#include "work.h"

unsigned long
reuse_b_work(unsigned long iters);

WORK_FN unsigned long
reuse_b_work(unsigned long iters)
{
	work_spin(iters);
	return iters;
}
