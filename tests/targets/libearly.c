/*
 * libearly: a library whose constructor starts a thread, which therefore
 * runs before the profiler's own constructor (constructors of a program's
 * libraries run before those of preloaded ones). The profiler must adopt
 * and sample it all the same. It works 0.3 s at scale 1, the scale being
 * the program's argv[1] (glibc passes argc and argv to constructors).
 */
#include <pthread.h>

#include "work.h"

pthread_t early_thread;

static unsigned long early_ns;

static WORK_FN void
early_work(void)
{
	work_spin(early_ns);
}

static void *
early_main(void *arg)
{
	(void)arg;
	early_work();
	return NULL;
}

__attribute__((constructor)) static void
early_start(int argc, char **argv)
{
	early_ns = (unsigned long)(work_scale(argc, argv, 1) * 30 * WORK_UNIT);
	if (pthread_create(&early_thread, NULL, early_main, NULL) != 0)
		abort();
}
