/* A program whose spool is truncated while it runs (the test does it):
 * it prints "started" once it has worked a little, waits for a line on
 * standard input, then works for about a second more, allocating and
 * being sampled, and prints "truncate done". With "handler", it installs
 * a SIGBUS handler of its own first, which says so and exits 99: a
 * SIGBUS the profiler raised must not reach it either. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void
on_bus(int sig)
{
	(void)sig;
	static const char msg[] = "hostile_truncate: SIGBUS\n";
	(void)!write(2, msg, sizeof(msg) - 1);
	_exit(99);
}

static double
now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
work(double secs)
{
	volatile unsigned long x = 0;
	double end = now() + secs;
	while (now() < end) {
		for (unsigned long i = 0; i < 200000; i++)
			x += i;
		for (int i = 0; i < 2000; i++)
			free(malloc((size_t)(i % 100) * 16 + 16));
	}
}

int
main(int argc, char **argv)
{
	char line[64];
	if (argc > 1 && strcmp(argv[1], "handler") == 0) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_bus;
		sigaction(SIGBUS, &sa, NULL);
	}
	work(0.2);
	printf("started\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 2;
	work(1.0);
	printf("truncate done\n");
	return 0;
}
