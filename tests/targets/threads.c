/*
 * threads: four threads started with pthread_create do 10, 20, 30 and 40 %
 * of the work, each in its own function; main only waits. The profile must
 * show 5 threads and the 1:2:3:4 split. About 1.5 s of CPU at scale 1.
 */
#include <pthread.h>
#include <string.h>

#include "work.h"

static unsigned long part;

static WORK_FN void *
thread_work_1(void *arg)
{
	work_spin(1 * part);
	return arg;
}

static WORK_FN void *
thread_work_2(void *arg)
{
	work_spin(2 * part);
	return arg;
}

static WORK_FN void *
thread_work_3(void *arg)
{
	work_spin(3 * part);
	return arg;
}

static WORK_FN void *
thread_work_4(void *arg)
{
	work_spin(4 * part);
	return arg;
}

int
main(int argc, char **argv)
{
	void *(*const fns[])(void *) = {
		thread_work_1, thread_work_2, thread_work_3, thread_work_4,
	};
	pthread_t tids[4];
	/* "serial" (argv[2]): each thread is joined before the next starts,
	 * so that one works at a time. */
	int serial = argc > 2 && !strcmp(argv[2], "serial");

	part = (unsigned long)(work_scale(argc, argv, 1) * 15 * WORK_UNIT);
	for (int i = 0; i < 4; i++) {
		int err = pthread_create(&tids[i], NULL, fns[i], NULL);
		if (err) {
			fprintf(stderr, "threads: pthread_create: %s\n",
				strerror(err));
			return 1;
		}
		if (serial)
			pthread_join(tids[i], NULL);
	}
	for (int i = 0; i < 4 && !serial; i++)
		pthread_join(tids[i], NULL);
	return 0;
}
