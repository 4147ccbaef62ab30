/* Eight threads that allocate as fast as they can for a while: at a
 * small allocation interval each fills a spool chunk every few
 * milliseconds, so that threads take new chunks at the same moments.
 * The library once took a chunk taken meanwhile by another thread for a
 * spool cut under it (the file's size read before the other thread's
 * reservation, the spool's end after it), and stopped profiling. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 8

static void *
churn(void *arg)
{
	unsigned long n = 0;
	(void)arg;
	for (int i = 0; i < 400000; i++) {
		void *p = malloc((size_t)(i % 64) * 16 + 16);
		n += p != NULL;
		free(p);
	}
	return (void *)n;
}

int
main(void)
{
	pthread_t t[THREADS];
	unsigned long total = 0;
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, churn, NULL);
	for (int i = 0; i < THREADS; i++) {
		void *n;
		pthread_join(t[i], &n);
		total += (unsigned long)n;
	}
	printf("%lu allocations\n", total);
	return 0;
}
