/*
 * wall_split: where the wall-clock time goes when most of it is spent
 * blocked. The main thread repeats: cpu_part works 10 ms of CPU time,
 * sleep_part sleeps 20 ms (nanosleep), wait_part waits 10 ms on a
 * condition variable that is never signalled (a futex wait with a
 * timeout). A second thread sits in io_wait, blocked in read(2) on a pipe
 * for the whole run, until main writes to it at the end.
 *
 * Every call is checked: EINTR anywhere makes the program exit 3, since a
 * wall-clock profiler must not interrupt sleeps. Prints the run's elapsed
 * wall time in seconds ("elapsed S") and the wall time spent in all the
 * calls of sleep_part and of wait_part ("sleep_part S", "wait_part S":
 * on a loaded machine they oversleep, each by its own amount), for the
 * test to compare with.
 * ROUNDS is 20 at scale 1 (argv[1]).
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "work.h"

static int fds[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;

static void
fail(const char *what, int err)
{
	printf("%s: %s\n", what, strerror(err));
	fflush(stdout);
	_exit(err == EINTR ? 3 : 1);
}

static double
now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static WORK_FN void
cpu_part(void)
{
	work_spin(WORK_UNIT);
}

static WORK_FN void
sleep_part(void)
{
	struct timespec ms20 = { 0, 20000000 };
	if (nanosleep(&ms20, NULL) != 0)
		fail("nanosleep", errno);
}

static WORK_FN void
wait_part(void)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += 10000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&lock);
	int rc;
	do
		rc = pthread_cond_timedwait(&never, &lock, &until);
	while (rc == 0);
	pthread_mutex_unlock(&lock);
	if (rc != ETIMEDOUT)
		fail("pthread_cond_timedwait", rc);
}

static WORK_FN void *
io_wait(void *arg)
{
	char c;
	(void)arg;
	if (read(fds[0], &c, 1) != 1)
		fail("read", errno);
	return NULL;
}

int
main(int argc, char **argv)
{
	int rounds = (int)(work_scale(argc, argv, 1) * 20 + 0.5);
	pthread_t t;
	double start = now();

	if (pipe(fds) != 0 || pthread_create(&t, NULL, io_wait, NULL) != 0)
		return 1;
	double slept = 0, waited = 0;
	for (int i = 0; i < rounds; i++) {
		cpu_part();
		double t0 = now();
		sleep_part();
		double t1 = now();
		wait_part();
		slept += t1 - t0;
		waited += now() - t1;
	}
	if (write(fds[1], "x", 1) != 1)
		fail("write", errno);
	pthread_join(t, NULL);
	printf("elapsed %.6f\nsleep_part %.6f\nwait_part %.6f\n",
	       now() - start, slept, waited);
	return 0;
}
