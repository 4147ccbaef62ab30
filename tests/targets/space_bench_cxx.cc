/*
 * space_bench_cxx: space_bench (see space_bench.c) in C++: a loop of small
 * operator new / sized operator delete pairs, what `new T` and `delete`
 * of a class object compile to, sizes cycling from 16 to 256 bytes
 * (scripts/bench-space --cxx). With the C++ runtime's operator new each
 * pair also goes through malloc and free; with jemalloc's, not.
 *
 * usage: space_bench_cxx [MILLIONS_OF_PAIRS] (default 50)
 */
#include <cstdio>
#include <cstdlib>
#include <new>

static void *volatile sink;

int
main(int argc, char **argv)
{
	double millions = argc > 1 ? std::strtod(argv[1], nullptr) : 50.0;
	unsigned long pairs = static_cast<unsigned long>(millions * 1e6);

	if (!(millions > 0)) {
		std::fprintf(stderr, "usage: space_bench_cxx [MILLIONS_OF_PAIRS]\n");
		return 2;
	}
	for (unsigned long i = 0; i < pairs; i++) {
		std::size_t n = 16 + (i & 15) * 16;
		char *p = static_cast<char *>(::operator new(n));
		p[0] = static_cast<char>(i);
		sink = p;
		::operator delete(p, n);
	}
	return 0;
}
