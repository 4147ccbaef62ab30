/*
 * libworkshared.so: the work of shlib_main that happens in a shared
 * library, so that samples must be resolved against the library's own
 * load address and symbol table.
 */
#include "libworkshared.h"
#include "work.h"

WORK_FN void
shared_work(unsigned long iters)
{
	work_spin(iters);
}
