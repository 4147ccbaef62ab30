/*
 * stress_throw: C++ exceptions thrown through deep stacks, for the stress
 * matrix (tests/integration/test_stress.py). Four threads each throw
 * ROUNDS (default 150) exceptions from the bottom of a recursion 100 to
 * 999 frames deep, every frame of which holds a heap-allocated string
 * that the unwinding destroys; every fifth throw is caught and rethrown
 * half-way up. Prints the throws caught, the frames destroyed and a sum
 * of the values thrown (functions of the work alone); exits 0 when every
 * throw was caught where it should have been, 1 otherwise.
 *
 * usage: stress_throw [ROUNDS]
 */
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

std::atomic<unsigned long> destroyed{0};

struct Frame {
	std::string text;

	explicit Frame(int depth) : text(static_cast<size_t>(depth % 64 + 24),
					 static_cast<char>('a' + depth % 26))
	{
	}
	~Frame() { destroyed.fetch_add(1, std::memory_order_relaxed); }
};

struct Bottom {
	unsigned long value;
	int rethrown;
};

__attribute__((noinline)) unsigned long
mix(unsigned long seed, unsigned long n)
{
	unsigned long x = seed * 2654435761UL + 1;

	for (unsigned long i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

__attribute__((noinline)) unsigned long
dive(int depth, int bottom, int rethrow_at, unsigned long seed)
{
	Frame frame(depth);

	if (depth == bottom)
		throw Bottom{mix(seed, 20000), 0};
	if (depth == rethrow_at) {
		try {
			return dive(depth + 1, bottom, rethrow_at, seed) +
			       frame.text.size();
		} catch (Bottom &b) {
			b.rethrown++;
			throw;
		}
	}
	return dive(depth + 1, bottom, rethrow_at, seed) + frame.text.size();
}

struct Tally {
	unsigned long caught = 0, rethrown = 0, sum = 0;
};

void
thrower(int id, unsigned long rounds, Tally *t)
{
	for (unsigned long r = 0; r < rounds; r++) {
		int bottom = 100 + static_cast<int>((r * 37 + id * 101) % 900);
		int rethrow_at = r % 5 == 0 ? bottom / 2 : -1;

		try {
			dive(0, bottom, rethrow_at, r * 4 + id);
		} catch (const Bottom &b) {
			t->caught++;
			t->rethrown += static_cast<unsigned long>(b.rethrown);
			t->sum += b.value;
		}
	}
}

} // namespace

int
main(int argc, char **argv)
{
	unsigned long rounds = argc > 1 ? std::strtoul(argv[1], nullptr, 10)
					: 150;
	std::vector<Tally> tallies(4);
	std::vector<std::thread> threads;
	unsigned long caught = 0, rethrown = 0, sum = 0;

	for (int i = 0; i < 4; i++)
		threads.emplace_back(thrower, i, rounds, &tallies[i]);
	for (auto &t : threads)
		t.join();
	for (const auto &t : tallies) {
		caught += t.caught;
		rethrown += t.rethrown;
		sum += t.sum;
	}
	std::printf("throws=%lu rethrown=%lu destroyed=%lu sum=%lx\n", caught,
		    rethrown, destroyed.load(), sum);
	return caught == 4 * rounds ? 0 : 1;
}
