/*
 * callcount: a program compiled with -finstrument-functions whose call
 * counts are known by construction (test_callcount.py holds the same
 * figures):
 *   - fib(FIB_N) once from main: fib is called 2 F(FIB_N + 1) - 1 times,
 *     once by main and the rest by itself;
 *   - loop() calls leaf() LOOP_CALLS times;
 *   - through_lib() calls lib_call() of libcallcount.so LIB_CALLS times,
 *     which calls lib_inner() once each;
 *   - a thread named "counter" calls thread_leaf() THREAD_CALLS times;
 *   - many_sites() calls site_leaf() from SITES distinct call sites, once
 *     each: more arcs than a thread's first table holds (it grows) and
 *     than one record holds;
 *   - spin() is not instrumented (no_instrument_function) and burns CPU
 *     time, so that it is sampled without a count.
 * With the argument "fork" a child process calls leaf() FORK_CALLS times
 * after the parent's work, and the parent waits for it.
 *
 * It prints what it computed and exits with status 3, which a profiled
 * run must reproduce.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libcallcount.h"

#if defined(__clang__)
#define COUNTED_FN __attribute__((noinline))
#else
#define COUNTED_FN __attribute__((noinline, noclone, no_icf))
#endif
#define PLAIN_FN __attribute__((noinline, no_instrument_function))

#define FIB_N 32
#define LOOP_CALLS 100000
#define LIB_CALLS 3000
#define THREAD_CALLS 7777
#define FORK_CALLS 555
#define SPIN_NS 200000000L

static volatile unsigned long sink;

COUNTED_FN static unsigned long
fib(unsigned n)
{
	if (n < 2)
		return n;
	unsigned long r = fib(n - 1);
	return r + fib(n - 2);
}

COUNTED_FN static void
leaf(void)
{
	sink++;
}

COUNTED_FN static void
loop(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		leaf();
}

COUNTED_FN static void
through_lib(void)
{
	for (unsigned long i = 0; i < LIB_CALLS; i++)
		lib_call(&sink, i);
}

COUNTED_FN static void
site_leaf(void)
{
	sink += 3;
}

/* SITES = 1000 call sites of site_leaf. */
#define SITES 1000
#define X10(x) x x x x x x x x x x
#define X1000(x) X10(X10(X10(x)))

COUNTED_FN static void
many_sites(void)
{
	X1000(site_leaf(); __asm__ volatile("" ::: "memory");)
}

COUNTED_FN static void
thread_leaf(void)
{
	sink += 2;
}

static void *
counter(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "counter");
	for (unsigned long i = 0; i < THREAD_CALLS; i++)
		thread_leaf();
	return NULL;
}

/* CPU time of the thread in ns. */
PLAIN_FN static long
cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

PLAIN_FN static void
spin(void)
{
	long end = cpu_ns() + SPIN_NS;
	while (cpu_ns() < end)
		for (int i = 0; i < 10000; i++)
			sink++;
}

int
main(int argc, char **argv)
{
	pthread_t t;
	if (pthread_create(&t, NULL, counter, NULL) != 0)
		return 1;
	unsigned long f = fib(FIB_N);
	loop(LOOP_CALLS);
	through_lib();
	many_sites();
	spin();
	pthread_join(t, NULL);
	if (argc > 1 && strcmp(argv[1], "fork") == 0) {
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			loop(FORK_CALLS);
			_exit(0);
		}
		int st;
		if (pid < 0 || waitpid(pid, &st, 0) != pid || st != 0)
			return 1;
	}
	printf("fib(%d) = %lu\n", FIB_N, f);
	return 3;
}
