/*
 * sleepers: THREADS threads (argv[1]) that each sleep SLEEP_US
 * microseconds (argv[2]) at a time, over and over, for SECS seconds
 * (argv[3]). Nearly all of their time is blocked, so it is the case the
 * wall clock's poller (profrun --clock=wall) works hardest at: long
 * sleeps test how cheaply it keeps up with blocked threads, short ones
 * how it copes with episodes that keep ending. Used by scripts/bench-wall.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long sleep_us;
static double secs;

static double
now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *
sleeper(void *arg)
{
	struct timespec ts = { sleep_us / 1000000, (sleep_us % 1000000) * 1000 };
	double end = now() + secs;

	while (now() < end)
		nanosleep(&ts, NULL);
	return arg;
}

int
main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: %s THREADS SLEEP_US SECS\n", argv[0]);
		return 2;
	}
	int n = atoi(argv[1]);
	sleep_us = atol(argv[2]);
	secs = atof(argv[3]);
	if (n < 1 || sleep_us < 1 || !(secs > 0)) {
		fprintf(stderr, "%s: bad arguments\n", argv[0]);
		return 2;
	}
	pthread_t *t = calloc((size_t)n, sizeof(*t));
	if (!t)
		return 1;
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, sleeper, NULL) != 0)
			return 1;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
	return 0;
}
