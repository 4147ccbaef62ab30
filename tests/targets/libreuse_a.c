/*
 * libreuse_a.so and libreuse_b.so (libreuse_b.c): two libraries of the
 * same layout that addr_reuse loads one after the other at the same
 * address. Only their names differ.
 */
#include "work.h"

unsigned long
reuse_a_work(unsigned long iters);

WORK_FN unsigned long
reuse_a_work(unsigned long iters)
{
	work_spin(iters);
	return iters;
}
