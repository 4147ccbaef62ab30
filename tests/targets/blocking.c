/*
 * blocking: sleeps, pipe reads, poll and select with timeouts, between
 * bursts of CPU work, in the main thread and a writer thread. The sampling
 * signal must not disturb them: any call that fails with EINTR makes the
 * program print the call and exit 3. Exit 0 otherwise.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

#include "work.h"

#define ROUNDS 40

static int fds[2];

static WORK_FN void
burst(void)
{
	work_spin(WORK_UNIT / 2);
}

static void
check(int rc, const char *what)
{
	if (rc < 0 && errno == EINTR) {
		printf("EINTR from %s\n", what);
		exit(3);
	}
}

static void *
writer(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		struct timespec ms = { 0, 2000000 };
		burst();
		check(nanosleep(&ms, NULL), "nanosleep (writer)");
		char c = (char)i;
		check((int)write(fds[1], &c, 1), "write");
	}
	return NULL;
}

int
main(void)
{
	pthread_t t;
	if (pipe(fds) < 0 || pthread_create(&t, NULL, writer, NULL) != 0)
		return 1;
	for (int i = 0; i < ROUNDS; i++) {
		char c;
		burst();
		check((int)read(fds[0], &c, 1), "read");
		struct timespec ms = { 0, 1000000 };
		check(nanosleep(&ms, NULL), "nanosleep");
		struct pollfd p = { .fd = fds[0], .events = POLLIN };
		check(poll(&p, 1, 1), "poll");
		struct timeval tv = { 0, 1000 };
		check(select(0, NULL, NULL, NULL, &tv), "select");
		check(usleep(500), "usleep");
	}
	pthread_join(t, NULL);
	return 0;
}
