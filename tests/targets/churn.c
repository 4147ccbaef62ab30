/*
 * churn: 200 threads created and exiting in waves of 20 while sampling
 * runs, each naming itself and doing a little work in churn_work(); main
 * renames itself once and does the same amount of work in main_work() as
 * all the threads together. Prints nothing; exit 0.
 *
 * The threads of a wave are alive together, but do their work one at a
 * time (a mutex): two threads on sibling hardware threads each take more
 * CPU time for the same work, and the split by construction would no
 * longer be the split of CPU time.
 */
#include <pthread.h>
#include <sys/prctl.h>

#include "work.h"

#define WAVES 10
#define PER_WAVE 20

static WORK_FN void
churn_work(void)
{
	work_spin(WORK_UNIT / 2);
}

static WORK_FN void
main_work(void)
{
	work_spin(WAVES * PER_WAVE * WORK_UNIT / 2);
}

static pthread_mutex_t one_at_a_time = PTHREAD_MUTEX_INITIALIZER;

static void *
churn_main(void *arg)
{
	char name[16];
	snprintf(name, sizeof(name), "churn-%d", (int)(long)arg);
	pthread_setname_np(pthread_self(), name);
	pthread_mutex_lock(&one_at_a_time);
	churn_work();
	pthread_mutex_unlock(&one_at_a_time);
	return NULL;
}

int
main(void)
{
	prctl(PR_SET_NAME, "churn-main");
	for (int w = 0; w < WAVES; w++) {
		pthread_t t[PER_WAVE];
		for (int i = 0; i < PER_WAVE; i++)
			if (pthread_create(&t[i], NULL, churn_main,
					   (void *)(long)(w * PER_WAVE + i)) != 0)
				return 1;
		for (int i = 0; i < PER_WAVE; i++)
			pthread_join(t[i], NULL);
	}
	main_work();
	return 0;
}
