/*
 * libfakenew: a C library that defines C++'s operator new and delete
 * (_Znwm, _ZdlPv) itself, as an allocator library does, and counts the
 * calls its own definitions get. Built twice (FAKENEW_VARIANT 1 and 2,
 * with different code before the definitions, so that they sit at other
 * offsets), for fakenew_host.c: loaded with RTLD_LOCAL, closed, and the
 * other loaded in its place.
 */
#include <stddef.h>
#include <stdlib.h>

void *_Znwm(size_t n);
void _ZdlPv(void *p);
int fakenew_use(void);

static int calls;

#if FAKENEW_VARIANT == 2
/* Code that moves the definitions below to other offsets. */
int fakenew_pad(int x);
int
fakenew_pad(int x)
{
	volatile int acc = 0;
	for (int i = 0; i < x; i++)
		acc += i * x;
	return acc;
}
#endif

void *
_Znwm(size_t n)
{
	calls++;
	return malloc(n ? n : 1);
}

void
_ZdlPv(void *p)
{
	calls++;
	free(p);
}

/* One new and one delete through the dynamic linker (the profiler's
 * wrappers when it runs); returns how many reached this library's own. */
int
fakenew_use(void)
{
	calls = 0;
	void *p = _Znwm(32);
	if (!p)
		return -1;
	_ZdlPv(p);
	return calls;
}
