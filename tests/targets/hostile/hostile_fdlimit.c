/* A program run under a low descriptor limit (ulimit -n 4, 8, 16: a
 * sandbox, a test harness): it spins, allocates, and opens files until
 * the limit stops it, printing each number it got, from the main thread
 * and from a thread started later. Profiled, it must get the same
 * numbers and the same failures as bare (the library keeps its
 * descriptors out of the program's numbers: above the soft limit, or
 * nowhere), and the profile must have time and allocation samples of
 * both threads (issue #31, item 10: --timer=auto took perf, whose
 * per-thread descriptor did not fit, and disabled profiling).
 *
 * usage: hostile_fdlimit [FILES] (default 20 opens per thread) */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int files = 20;

/* About 0.3 s of CPU, allocating 32 MB in 64 KiB blocks meanwhile. */
static unsigned long
work(void)
{
	struct timespec a, b;
	unsigned long x = 0, blocks = 0;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do {
		for (int i = 0; i < 100000; i++)
			x = x * 6364136223846793005ul + 1442695040888963407ul;
		if (blocks < 512) {
			char *p = malloc(65536);
			if (p)
				p[x % 65536] = (char)x;
			free(p);
			blocks++;
		}
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000000000l + (b.tv_nsec - a.tv_nsec) <
		 300000000l);
	return x & 1;
}

static void
open_files(const char *who, int *fds)
{
	for (int i = 0; i < files; i++) {
		fds[i] = open("/dev/null", O_RDONLY);
		if (fds[i] < 0)
			printf("%s: open %d: %s\n", who, i, strerror(errno));
		else
			printf("%s: open %d: fd %d\n", who, i, fds[i]);
	}
}

static void
close_files(int *fds)
{
	for (int i = 0; i < files; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

static void *
thread_main(void *arg)
{
	int fds[64];
	(void)arg;
	unsigned long r = work();
	open_files("thread", fds);
	close_files(fds);
	return (void *)r;
}

int
main(int argc, char **argv)
{
	int fds[64];
	if (argc > 1)
		files = atoi(argv[1]);
	if (files < 1 || files > 64) {
		fprintf(stderr, "usage: hostile_fdlimit [FILES 1..64]\n");
		return 2;
	}
	unsigned long r = work();
	open_files("main", fds);
	fflush(stdout);
	close_files(fds);
	pthread_t t;
	void *tr = NULL;
	if (pthread_create(&t, NULL, thread_main, NULL) != 0 ||
	    pthread_join(t, &tr) != 0) {
		printf("no thread\n");
		return 1;
	}
	printf("done %lu\n", r + (unsigned long)tr);
	return 0;
}
