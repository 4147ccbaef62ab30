/* A stack overflow (issue #31, item 8): some CPU work, a line of output,
 * then a recursion without end that dies of SIGSEGV on the guard page of
 * the main thread's stack. The profiler's fatal-signal handler can only
 * write the spool's footer if it runs on a stack of its own: the thread's
 * is full. Bare, the program dies of SIGSEGV; profiled, it must die the
 * same way.
 *
 * usage: hostile_overflow [DEPTH]
 *   DEPTH: stop after that many frames (default: never; the stack ends
 *   first) */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

/* Each frame keeps 1 KiB live across the call, so the compiler can make
 * neither a loop nor a tail call of it. */
static __attribute__((noinline)) unsigned long
descend(unsigned long n, unsigned long depth)
{
	volatile unsigned char frame[1024];
	if (n == depth)
		return n;
	frame[n % sizeof(frame)] = (unsigned char)n;
	unsigned long below = descend(n + 1, depth);
	return below + frame[n % sizeof(frame)];
}

int
main(int argc, char **argv)
{
	unsigned long depth = argc > 1 ? strtoul(argv[1], NULL, 0) : ULONG_MAX;
	unsigned long x = 0;
	for (unsigned long i = 0; i < 20000000; i++)
		x = x * 6364136223846793005ul + i;
	sink = x;
	printf("overflow: recursing\n");
	fflush(stdout);
	sink = descend(0, depth);
	printf("overflow: %lu frames and back\n", depth);
	return 0;
}
