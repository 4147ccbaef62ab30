/*
 * load: THREADS threads (default 64) that compute for SECONDS of wall
 * time (default 600), for scripts/bench-load. Each thread walks a few
 * dozen distinct call paths (four functions recursing to depths 1 to 8)
 * doing fixed units of arithmetic, and counts the units it finished. At
 * the end it prints "units N" (all threads) and "cpu S" (the process's
 * user + system CPU seconds, getrusage) and "rss K" (its peak resident
 * set in KiB), so that a driver can compare
 * CPU seconds per unit with and without a profiler whatever share of the
 * machine the run had.
 *
 * usage: load [THREADS] [SECONDS]
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static atomic_int stop;
static atomic_ulong units;

#define NOINLINE __attribute__((noinline))

static NOINLINE unsigned long
unit(unsigned long x)
{
	for (int i = 0; i < 4000; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

static unsigned long walk_a(unsigned long x, int depth, int kind);

static NOINLINE unsigned long
walk_b(unsigned long x, int depth, int kind)
{
	return depth ? walk_a(x + 1, depth - 1, kind) : unit(x);
}

static NOINLINE unsigned long
walk_c(unsigned long x, int depth, int kind)
{
	return depth ? walk_a(x + 2, depth - 1, kind) : unit(x);
}

static NOINLINE unsigned long
walk_d(unsigned long x, int depth, int kind)
{
	return depth ? walk_a(x + 3, depth - 1, kind) : unit(x);
}

static NOINLINE unsigned long
walk_a(unsigned long x, int depth, int kind)
{
	switch ((kind + depth) % 3) {
	case 0: return walk_b(x, depth, kind);
	case 1: return walk_c(x, depth, kind);
	default: return walk_d(x, depth, kind);
	}
}

static void *
worker(void *arg)
{
	unsigned long x = (unsigned long)(size_t)arg, n = 0;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		x = walk_a(x, (int)(n % 8) + 1, (int)(n / 8 % 4));
		n++;
	}
	atomic_fetch_add(&units, n);
	return (void *)(size_t)(x & 1);
}

int
main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 64;
	double seconds = argc > 2 ? atof(argv[2]) : 600;
	if (threads < 1 || threads > 4096 || !(seconds > 0)) {
		fprintf(stderr, "usage: load [THREADS] [SECONDS]\n");
		return 2;
	}
	pthread_t *t = calloc((size_t)threads, sizeof(*t));
	if (!t)
		return 1;
	for (int i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(size_t)i)) {
			fprintf(stderr, "load: pthread_create failed\n");
			return 1;
		}
	struct timespec ts = { (time_t)seconds,
			       (long)((seconds - (double)(time_t)seconds) * 1e9) };
	while (nanosleep(&ts, &ts))
		;
	atomic_store(&stop, 1);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("units %lu\ncpu %.3f\nrss %ld\n", atomic_load(&units),
	       (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
		       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6,
	       ru.ru_maxrss);
	free(t);
	return 0;
}
