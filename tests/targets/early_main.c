/*
 * early_main: waits for the thread libearly's constructor started, doing
 * some work of its own meanwhile: 0.1 s, a third of the early thread's, at
 * scale 1 (argv[1], read by both).
 */
#include <pthread.h>

#include "work.h"

extern pthread_t early_thread;

static WORK_FN void
main_work(double scale)
{
	work_spin((unsigned long)(scale * 10 * WORK_UNIT));
}

int
main(int argc, char **argv)
{
	main_work(work_scale(argc, argv, 1));
	return pthread_join(early_thread, NULL) == 0 ? 0 : 1;
}
