/*
 * space_cxx: C++'s operator new and delete, the ground truth of
 * test_space_cxx.py. Three call sites allocate 60, 30 and 10 % of the
 * bytes through different forms of new: objects of 64 bytes (new, sized
 * delete), arrays of 16 KiB (new[], delete[]) and blocks of 256 KiB
 * aligned to 4 KiB (aligned new, half of them the nothrow form; aligned
 * delete).
 * A fourth leaks 16 MiB in arrays of 64 KiB. Then operator new is asked
 * for more than can be had, once throwing (std::bad_alloc must reach the
 * catch) and once nothrow (nullptr).
 *
 * Prints the bytes each site allocated, the bytes leaked, the calls the
 * program made to operator new and delete (all forms), whether the two
 * failures behaved, and, when jemalloc is in the process, its count of
 * the bytes it allocated on this thread (je_allocated; see space_split.c).
 *
 * Built as a program, and as a library (SPACE_CXX_LIBRARY) whose
 * space_cxx_run() a C program loads with RTLD_LOCAL (space_cxx_host.c),
 * as Python loads its extensions: the C++ runtime is then in no scope the
 * profiler's dlsym(RTLD_NEXT) sees. space_cxx_check() is for the host
 * to call once it closed the library and loaded it again.
 *
 * usage: space_cxx [SCALE] (default 1: 512 MiB through the three sites)
 */
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>

#if defined(__clang__)
#define SITE __attribute__((noinline))
#else
#define SITE __attribute__((noinline, noclone, no_icf))
#endif

namespace {

constexpr int ROUNDS = 16;
constexpr std::size_t MEDIUM = 16 * 1024;
constexpr std::size_t LARGE = 256 * 1024;
constexpr std::size_t LEAK_BLOCK = 64 * 1024;
constexpr std::size_t LEAK_BYTES = 16 * 1024 * 1024;
constexpr std::align_val_t LARGE_ALIGN{4096};

struct Small {
	char bytes[64];
};

void *volatile sink;
std::uint64_t news, deletes;

SITE std::uint64_t
site_new_60(std::uint64_t bytes)
{
	std::uint64_t done = 0;
	for (; done + sizeof(Small) <= bytes; done += sizeof(Small)) {
		Small *s = new Small;
		s->bytes[0] = 1;
		sink = s;
		delete s; /* sized: operator delete(void *, size_t) */
		news++;
		deletes++;
	}
	return done;
}

SITE std::uint64_t
site_array_30(std::uint64_t bytes)
{
	std::uint64_t done = 0;
	for (; done + MEDIUM <= bytes; done += MEDIUM) {
		char *p = new char[MEDIUM];
		p[0] = 1;
		sink = p;
		delete[] p;
		news++;
		deletes++;
	}
	return done;
}

SITE std::uint64_t
site_aligned_10(std::uint64_t bytes)
{
	std::uint64_t done = 0;
	for (int i = 0; done + LARGE <= bytes; done += LARGE, i++) {
		void *p = i & 1 ? ::operator new(LARGE, LARGE_ALIGN, std::nothrow)
				: ::operator new(LARGE, LARGE_ALIGN);
		if (!p || reinterpret_cast<std::uintptr_t>(p) % 4096)
			std::abort();
		static_cast<char *>(p)[0] = 1;
		sink = p;
		::operator delete(p, LARGE_ALIGN);
		news++;
		deletes++;
	}
	return done;
}

SITE std::uint64_t
site_leak(void)
{
	std::uint64_t done = 0;
	for (; done < LEAK_BYTES; done += LEAK_BLOCK) {
		char *p = new char[LEAK_BLOCK];
		p[0] = 1;
		sink = p; /* never deleted */
		news++;
	}
	return done;
}

/* More than any allocator gives; not a constant the compiler could
 * see through. */
std::size_t
too_much(void)
{
	return static_cast<std::size_t>(-1) / 4 + (news & 1);
}

SITE int
fail_throwing(void)
{
	news++;
	try {
		sink = ::operator new(too_much());
	} catch (const std::bad_alloc &) {
		return 1;
	}
	return 0;
}

SITE int
fail_nothrow(void)
{
	news++;
	return ::operator new[](too_much(), std::nothrow) == nullptr;
}

long long
jemalloc_allocated(void)
{
	auto mallctl = reinterpret_cast<int (*)(const char *, void *,
						std::size_t *, void *,
						std::size_t)>(
		dlsym(RTLD_DEFAULT, "mallctl"));
	std::uint64_t v;
	std::size_t len = sizeof(v);

	if (!mallctl || mallctl("thread.allocated", &v, &len, nullptr, 0) != 0)
		return -1;
	return static_cast<long long>(v);
}

} // namespace

extern "C" int
space_cxx_run(int argc, char **argv)
{
	double scale = argc > 1 ? std::strtod(argv[1], nullptr) : 1.0;
	if (!(scale > 0)) {
		std::fprintf(stderr, "usage: space_cxx [SCALE]\n");
		return 2;
	}
	std::uint64_t total =
		static_cast<std::uint64_t>(scale * 512.0 * 1024 * 1024);
	std::uint64_t round = total / ROUNDS, done[3] = {0, 0, 0};

	for (int r = 0; r < ROUNDS; r++) {
		done[0] += site_new_60(round * 6 / 10);
		done[1] += site_array_30(round * 3 / 10);
		done[2] += site_aligned_10(round / 10);
	}
	std::uint64_t leaked = site_leak();
	int bad_alloc = fail_throwing();
	int nothrow_null = fail_nothrow();
	long long je = jemalloc_allocated();

	std::printf("site_new_60=%llu site_array_30=%llu site_aligned_10=%llu "
		    "site_leak=%llu\n",
		    static_cast<unsigned long long>(done[0]),
		    static_cast<unsigned long long>(done[1]),
		    static_cast<unsigned long long>(done[2]),
		    static_cast<unsigned long long>(leaked));
	std::printf("news=%llu deletes=%llu bad_alloc=%d nothrow_null=%d\n",
		    static_cast<unsigned long long>(news),
		    static_cast<unsigned long long>(deletes), bad_alloc,
		    nothrow_null);
	if (je >= 0)
		std::printf("je_allocated=%lld\n", je);
	return bad_alloc && nothrow_null ? 0 : 1;
}

/* After the library was closed and loaded again (space_cxx_host.c): new
 * and delete still work, and the failures still fail as C++ says. */
extern "C" int
space_cxx_check(void)
{
	Small *s = new Small;
	s->bytes[0] = 1;
	sink = s;
	delete s;
	return fail_throwing() && fail_nothrow();
}

#ifndef SPACE_CXX_LIBRARY
int
main(int argc, char **argv)
{
	return space_cxx_run(argc, argv);
}
#endif
