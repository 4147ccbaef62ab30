/*
 * libearly: a library whose constructor starts a thread, which therefore
 * runs before the profiler's own constructor (constructors of a program's
 * libraries run before those of preloaded ones). The profiler must adopt
 * and sample it all the same.
 */
#include <pthread.h>

#include "work.h"

pthread_t early_thread;

static WORK_FN void
early_work(void)
{
	work_spin(30 * WORK_UNIT);
}

static void *
early_main(void *arg)
{
	(void)arg;
	early_work();
	return NULL;
}

__attribute__((constructor)) static void
early_start(void)
{
	if (pthread_create(&early_thread, NULL, early_main, NULL) != 0)
		abort();
}
