/*
 * killrec: the witness of the SIGKILL test. THREADS threads (argv[2])
 * each allocate in a loop, and after every allocation has returned write
 * one byte to the descriptor argv[1]: the byte of thread i is 'a' + i, and
 * its allocations are of 100 + i bytes, so the test can tell the threads
 * apart both in the pipe and in the spool. Under --space-interval=1 every
 * allocation is sampled, and its ALLOC record is in the spool before
 * malloc returns: a byte read from the pipe is a record that must be on
 * disk, whenever the process is killed. The main thread spins, for time
 * samples to be written meanwhile. Runs until killed.
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "work.h"

static int out_fd;

static WORK_FN void *
allocator(void *arg)
{
	long i = (long)arg;
	char mark = (char)('a' + i);
	for (;;) {
		void *volatile p = malloc(100 + (size_t)i);
		free(p);
		if (write(out_fd, &mark, 1) != 1)
			abort();
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	out_fd = atoi(argv[1]);
	long n = atol(argv[2]);
	for (long i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, allocator, (void *)i) != 0)
			return 1;
	}
	for (;;)
		work_spin(WORK_UNIT);
}
