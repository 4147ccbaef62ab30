/*
 * Fixture for the call-graph, outline and hiding golden tests: a shared
 * library whose functions have the short names the Allegro manual uses
 * in its examples (foo, bar, baz), so the expected reports read like
 * the manual. It is never loaded, only read: tests/mkspool turns the
 * names into addresses inside it. Who calls whom is decided by the test
 * descriptions, not by these bodies. __restore_rt has the name of the C
 * library's signal return trampoline, which the reports hide by
 * default.
 */
#define FIXTURE_FN __attribute__((noinline, used))

int top(int x);
int foo(int x);
int bar(int x);
int baz(int x);
int qux(int x);
int leaf(int x);
int work(int x);
int __restore_rt(int x);

/* volatile keeps the bodies from being folded into one another. */
static volatile int sink;

FIXTURE_FN int
leaf(int x)
{
	sink = x;
	return sink * 3 + 1;
}

FIXTURE_FN int
qux(int x)
{
	sink = x + 1;
	return sink * 5 + 2;
}

FIXTURE_FN int
baz(int x)
{
	sink = x + 2;
	return sink * 7 + 3 + leaf(x);
}

FIXTURE_FN int
bar(int x)
{
	sink = x + 3;
	return sink * 11 + baz(x);
}

FIXTURE_FN int
foo(int x)
{
	sink = x + 4;
	return sink * 13 + bar(x) + qux(x);
}

FIXTURE_FN int
work(int x)
{
	sink = x + 5;
	return sink * 17 + foo(x);
}

FIXTURE_FN int
__restore_rt(int x)
{
	sink = x + 6;
	return sink * 19;
}

FIXTURE_FN int
top(int x)
{
	return work(x) + foo(x);
}
