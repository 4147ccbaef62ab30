/*
 * libcallcount: the shared library of callcount (built with
 * -finstrument-functions like its executable): calls into a library and
 * inside it are counted too.
 */
#include "libcallcount.h"

#if defined(__clang__)
#define COUNTED_FN __attribute__((noinline))
#else
#define COUNTED_FN __attribute__((noinline, noclone, no_icf))
#endif

COUNTED_FN static void
lib_inner(volatile unsigned long *acc, unsigned long x)
{
	*acc += x;
}

void
lib_call(volatile unsigned long *acc, unsigned long x)
{
	lib_inner(acc, x);
	__asm__ volatile("" ::: "memory"); /* no tail call */
}
