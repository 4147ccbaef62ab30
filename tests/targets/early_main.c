/*
 * early_main: waits for the thread libearly's constructor started, doing
 * some work of its own meanwhile.
 */
#include <pthread.h>

#include "work.h"

extern pthread_t early_thread;

static WORK_FN void
main_work(void)
{
	work_spin(10 * WORK_UNIT);
}

int
main(void)
{
	main_work();
	return pthread_join(early_thread, NULL) == 0 ? 0 : 1;
}
