/*
 * libdlplugin.so: the module dlopen_stress loads and unloads thousands of
 * times. plugin_work() does enough work that samples land in it while it
 * is mapped, each time perhaps at another address.
 */
#include "work.h"

/* Exported for dlsym(); no header, the caller declares the type. */
unsigned long
plugin_work(unsigned long iters);

WORK_FN unsigned long
plugin_work(unsigned long iters)
{
	work_spin(iters);
	return iters;
}
