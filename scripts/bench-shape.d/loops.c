/*
 * loops: the C loops of scripts/bench-shape, one per invocation, each on a
 * single thread. Not built by meson; bench_shape.py compiles it with the
 * system's cc:
 *
 *   cc -O2 -o loops scripts/bench-shape.d/loops.c
 *
 * usage: loops getc N     N getc from /dev/zero, each putc to /dev/null
 *        loops calloc N   N calloc(1, 64) + free pairs
 *        loops malloc N   N malloc(64) + free pairs
 *
 * All three are loops whose cost glibc cuts while the process has a single
 * thread (__libc_single_threaded): getc and putc skip the FILE's lock (not
 * the _unlocked variants on purpose: the locking ones are what programs
 * call), and malloc's arena and fastbins skip their lock and atomic
 * operations (calloc does not go through the thread cache in glibc 2.36,
 * so every calloc takes the arena path). At the end each prints
 * single=%d, __libc_single_threaded, to stderr: whether the process still
 * had one thread's shape when the loop ended; and loop_cpu_ns=%lld, the
 * process's CPU time over the loop alone (signal handlers included; the
 * process's start and exit, and so a profiler's, left out).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/single_threaded.h>
#include <time.h>

static int
loop_getc(long n)
{
	FILE *in = fopen("/dev/zero", "r");
	FILE *out = fopen("/dev/null", "w");
	if (!in || !out) {
		perror("loops: fopen");
		return 1;
	}
	for (long i = 0; i < n; i++) {
		int c = getc(in);
		if (c == EOF) {
			fputs("loops: EOF on /dev/zero\n", stderr);
			return 1;
		}
		putc(c, out);
	}
	fclose(in);
	fclose(out);
	return 0;
}

/* Through a volatile pointer, so that the compiler can neither drop a pair
 * nor merge it with the next one. */
static void *volatile slot;

static int
loop_calloc(long n)
{
	for (long i = 0; i < n; i++) {
		slot = calloc(1, 64);
		if (!slot)
			return 1;
		free(slot);
	}
	return 0;
}

static int
loop_malloc(long n)
{
	for (long i = 0; i < n; i++) {
		slot = malloc(64);
		if (!slot)
			return 1;
		free(slot);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc != 3) {
		fputs("usage: loops getc|calloc|malloc N\n", stderr);
		return 2;
	}
	long n = strtol(argv[2], NULL, 10);
	int rc;
	struct timespec t0, t1;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	if (strcmp(argv[1], "getc") == 0)
		rc = loop_getc(n);
	else if (strcmp(argv[1], "calloc") == 0)
		rc = loop_calloc(n);
	else if (strcmp(argv[1], "malloc") == 0)
		rc = loop_malloc(n);
	else {
		fprintf(stderr, "loops: unknown loop %s\n", argv[1]);
		return 2;
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	fprintf(stderr, "single=%d\nloop_cpu_ns=%lld\n",
		(int)__libc_single_threaded,
		(long long)(t1.tv_sec - t0.tv_sec) * 1000000000 +
			(t1.tv_nsec - t0.tv_nsec));
	return rc;
}
