/*
 * closefrom: a program that closes every descriptor above 2, as daemons
 * and spawners do, then fills the numbers 3 to 799 with duplicates of one
 * empty file of its own (argv[1]), among them those the profiler kept its
 * own descriptors at (the spool at 512, the wall clock's poller at 600 and
 * up). It then works and sleeps while the profiler would write and poll,
 * and checks that nothing was written to its file and that every one of
 * its descriptors is still open. Exit 0 when so, 1 otherwise (with the
 * reason on stdout).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "work.h"

#define LAST_FD 799

/* The second thread is running before main closes anything: what the
 * profiler sets up for a new thread (its perf event) is then in place,
 * and the descriptor numbers main counts on are its own to take. */
static pthread_barrier_t started;

static WORK_FN void *
sleeper(void *arg)
{
	struct timespec ms50 = { 0, 50000000 };
	pthread_barrier_wait(&started);
	for (int i = 0; i < 6; i++)
		nanosleep(&ms50, NULL);
	return arg;
}

int
main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	pthread_t t;
	pthread_barrier_init(&started, NULL, 2);
	if (pthread_create(&t, NULL, sleeper, NULL) != 0)
		return 1;
	pthread_barrier_wait(&started);
	for (int fd = 3; fd < 4096; fd++)
		close(fd);
	int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd != 3) {
		printf("open gave %d, not 3\n", fd);
		return 1;
	}
	for (int want = 4; want <= LAST_FD; want++)
		if (dup(fd) != want) {
			printf("dup did not give %d\n", want);
			return 1;
		}
	work_spin(30 * WORK_UNIT);
	pthread_join(t, NULL);
	/* The profiler renews what the program closed 200 to 300 ms later:
	 * most of this second is sampled. */
	work_spin(100 * WORK_UNIT);
	struct timespec ms100 = { 0, 100000000 };
	nanosleep(&ms100, NULL); /* a few writer cycles */
	for (int i = 3; i <= LAST_FD; i++)
		if (fcntl(i, F_GETFD) < 0) {
			printf("descriptor %d was closed behind the program\n", i);
			return 1;
		}
	struct stat st;
	if (fstat(fd, &st) != 0 || st.st_size != 0) {
		printf("%lld bytes were written to the program's file\n",
		       (long long)st.st_size);
		return 1;
	}
	printf("all %d descriptors intact, the file empty\n", LAST_FD - 2);
	return 0;
}
