/* Threads that fork at the same time (issue #31, item 2): three threads
 * each fork 300 times (spin about 1 ms, fork, the child _exits at once,
 * the parent waits for it). Under the profiler the fork hooks of one
 * thread once reset the state of another's fork in flight: a thread went
 * on holding the library's locks and hung in its next fork. Prints the
 * number of children reaped, which is THREADS * FORKS. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define THREADS 3
#define FORKS 300

static void
spin_ms(void)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) <
	       1000000L);
}

static void *
forker(void *arg)
{
	long *reaped = arg;
	for (int i = 0; i < FORKS; i++) {
		spin_ms();
		pid_t pid = fork();
		if (pid < 0) {
			perror("fork");
			exit(1);
		}
		if (pid == 0)
			_exit(0);
		int status;
		if (waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		    WEXITSTATUS(status) == 0)
			(*reaped)++;
	}
	return NULL;
}

int
main(void)
{
	pthread_t th[THREADS];
	long reaped[THREADS] = { 0 };
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&th[i], NULL, forker, &reaped[i]) != 0) {
			fprintf(stderr, "pthread_create failed\n");
			return 1;
		}
	long total = 0;
	for (int i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		total += reaped[i];
	}
	printf("forkrace: %ld children reaped\n", total);
	return 0;
}
