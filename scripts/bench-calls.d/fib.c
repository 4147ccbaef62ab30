/*
 * fib: the call-heavy target of scripts/bench-calls. The naive recursive
 * Fibonacci makes 2 F(n + 1) - 1 calls of a function that does almost
 * nothing else, the worst case for a call counter; it is built three
 * ways (plain, -finstrument-functions, -pg) from this one file.
 *
 * Each call keeps its own frame and both recursive calls stay calls: the
 * empty asm between them stops GCC from turning the second one into a
 * loop (tail recursion with an accumulator), which a -pg build would
 * otherwise count differently from an instrumented one.
 *
 * usage: fib N   (prints F(N))
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline, noclone)) static unsigned long
fib(unsigned n)
{
	if (n < 2)
		return n;
	unsigned long a = fib(n - 1);
	__asm__ volatile("" : "+r"(a));
	unsigned long b = fib(n - 2);
	__asm__ volatile("" : "+r"(b));
	return a + b;
}

int
main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 30;
	printf("%lu\n", fib(n));
	return 0;
}
