/*
 * shared_ptr: the C++ loop of scripts/bench-shape. N copies of one
 * std::shared_ptr<int>, each passed by value to a function the compiler may
 * neither inline nor analyze, so that every copy really increments and
 * decrements the reference count. libstdc++ (GCC 11 and later) makes those
 * plain increments while __libc_single_threaded is set and atomic ones
 * (lock-prefixed) once the process has had a second thread. Not built by
 * meson; bench_shape.py compiles it with the system's c++:
 *
 *   c++ -O2 -o shared_ptr scripts/bench-shape.d/shared_ptr.cc
 *
 * usage: shared_ptr N
 * At the end it prints single=%d, __libc_single_threaded, and
 * loop_cpu_ns=%lld, the process's CPU time over the loop alone, to stderr.
 */
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <sys/single_threaded.h>

#if defined(__GNUC__) && !defined(__clang__)
#define OPAQUE __attribute__((noinline, noipa))
#else
#define OPAQUE __attribute__((noinline, optnone))
#endif

OPAQUE static long
use(std::shared_ptr<int> p)
{
	return *p;
}

int
main(int argc, char **argv)
{
	if (argc != 2) {
		std::fputs("usage: shared_ptr N\n", stderr);
		return 2;
	}
	long n = std::strtol(argv[1], nullptr, 10);
	// The process's CPU time over the loop alone, as loops.c prints it.
	struct timespec t0, t1;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	auto sp = std::make_shared<int>(1);
	long sum = 0;
	for (long i = 0; i < n; i++)
		sum += use(sp);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	std::fprintf(stderr, "single=%d\nloop_cpu_ns=%lld\n",
		     (int)__libc_single_threaded,
		     (long long)(t1.tv_sec - t0.tv_sec) * 1000000000 +
			     (t1.tv_nsec - t0.tv_nsec));
	return sum == n && sp.use_count() == 1 ? 0 : 1;
}
