/* Threads with small stacks (issue #31, item 3): four threads, each with
 * a stack of STACK_BYTES, put USE_BYTES of it to use (an array they
 * touch) and then spin with that array live, so that every sample of
 * time catches them with only what is left of their stack below. Bare,
 * 16 KiB stacks using 1 byte and 64 KiB stacks using 56,000 bytes run
 * fine; a signal handler that runs on the thread's own stack and needs
 * more than is left crashes the program.
 *
 * usage: hostile_smallstack STACK_BYTES USE_BYTES [ROUNDS]
 * Prints a checksum of the work, the same bare and profiled. */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 4

static size_t use_bytes;
static unsigned long rounds = 30000000;

/* Not inlined: the array lives in this frame while the loop runs. */
static __attribute__((noinline)) unsigned long
spin_with(size_t n, unsigned long seed)
{
	volatile unsigned char used[n];
	memset((unsigned char *)used, 1, n);
	unsigned long x = used[n - 1] + seed;
	for (unsigned long i = 0; i < rounds; i++)
		x = x * 6364136223846793005ul + i;
	return x + used[0];
}

static void *
worker(void *arg)
{
	unsigned long *io = arg; /* in: the thread's number; out: its sum */
	*io = spin_with(use_bytes, *io);
	return NULL;
}

int
main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s STACK_BYTES USE_BYTES [ROUNDS]\n",
			argv[0]);
		return 2;
	}
	size_t stack = strtoul(argv[1], NULL, 0);
	use_bytes = strtoul(argv[2], NULL, 0);
	if (argc > 3)
		rounds = strtoul(argv[3], NULL, 0);
	if (use_bytes == 0)
		use_bytes = 1;

	pthread_attr_t attr;
	pthread_attr_init(&attr);
	int rc = pthread_attr_setstacksize(&attr, stack);
	if (rc != 0) {
		fprintf(stderr, "pthread_attr_setstacksize(%zu): %s\n", stack,
			strerror(rc));
		return 1;
	}
	pthread_t th[THREADS];
	unsigned long res[THREADS];
	for (int i = 0; i < THREADS; i++) {
		res[i] = (unsigned long)i;
		rc = pthread_create(&th[i], &attr, worker, &res[i]);
		if (rc != 0) {
			fprintf(stderr, "pthread_create: %s\n", strerror(rc));
			return 1;
		}
	}
	unsigned long sum = 0;
	for (int i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		sum += res[i];
	}
	printf("smallstack: %d threads, %zu-byte stacks, %zu bytes used: %lx\n",
	       THREADS, stack, use_bytes, sum);
	return 0;
}
