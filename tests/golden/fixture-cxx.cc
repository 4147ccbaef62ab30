/*
 * C++ fixture library for the analyzer tests: never loaded, only read.
 * Its symbols are mangled (a namespace, a class template, overloads, an
 * operator): the reports show them demangled unless --no-demangle.
 */
#define FIXTURE_FN __attribute__((noinline, used))

namespace fixture {

static volatile int sink;

template <typename T> struct Box {
	FIXTURE_FN T get(T x) const { sink = (int)x; return x + sink; }
};

FIXTURE_FN int
twice(int x)
{
	sink = x;
	return sink * 2;
}

FIXTURE_FN double
twice(double x)
{
	sink = (int)x;
	return x * 2;
}

struct Vec {
	int v;
	FIXTURE_FN Vec operator+(const Vec &o) const
	{
		sink = o.v;
		return Vec{ v + sink };
	}
};

} // namespace fixture

extern "C" FIXTURE_FN int
fixture_cxx_main(int x)
{
	fixture::Box<long> b;
	fixture::Vec a{ 1 }, c{ 2 };
	return (int)b.get(x) + fixture::twice(x) + (int)fixture::twice(1.5) +
	       (a + c).v;
}
