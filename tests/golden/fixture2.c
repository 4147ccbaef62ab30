/*
 * Second fixture library for the analyzer tests: loaded by the generated
 * spools at the address range fixture.c's library left, to check that a
 * PC is resolved by the module map of the sample's time.
 */
#define FIXTURE_FN __attribute__((noinline, used))

int fy_main(int x);
int fy_leaf(int x);

static volatile int fy_sink;

FIXTURE_FN int
fy_leaf(int x)
{
	fy_sink = x;
	return fy_sink * 11;
}

FIXTURE_FN int
fy_main(int x)
{
	return fy_leaf(x) + 1;
}
