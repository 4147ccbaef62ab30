/*
 * Fixture for the hiding golden tests: stands for the profiler's own
 * library, which the reports hide by default. The build copies it to
 * libprofrun.so.golden, a file name the default module pattern
 * libprofrun.so* matches. Never loaded, only read by tests/mkspool and
 * profanalyze.
 */
#define FIXTURE_FN __attribute__((noinline, used))

int trampoline(int x);
int rt_wrap(int x);
int rt_inner(int x);

static volatile int rt_sink;

FIXTURE_FN int
rt_inner(int x)
{
	rt_sink = x;
	return rt_sink * 19;
}

FIXTURE_FN int
rt_wrap(int x)
{
	rt_sink = x + 1;
	return rt_sink * 23 + rt_inner(x);
}

FIXTURE_FN int
trampoline(int x)
{
	rt_sink = x + 2;
	return rt_sink * 29 + rt_wrap(x);
}
