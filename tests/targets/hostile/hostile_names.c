/* Names that are escape sequences (issue #31, item 15): a thread named
 * with U+009B (CSI on some terminals, "\xc2\x9b" in UTF-8), an ESC and a
 * backslash, that works long enough to be sampled; the test also passes
 * such bytes in argv. profanalyze must print them escaped in --threads
 * and --processes, never raw. */
#include <pthread.h>
#include <stdio.h>

/* 15 bytes at most: the kernel's limit for a thread's name. */
#define NAME "t\xc2\x9b" "31m\x1b\\u003c"

static void *
worker(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), NAME);
	volatile unsigned long x = 0;
	for (unsigned long i = 0; i < 100000000; i++)
		x += i;
	return NULL;
}

int
main(void)
{
	pthread_t t;
	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return 1;
	pthread_join(t, NULL);
	printf("names done\n");
	return 0;
}
