/*
 * racing_ends: three threads end the process at the same moment, after a
 * barrier, each its own way (MODE, argv[1]): "exit" (each calls exit(3)),
 * "segv" (each dereferences a null pointer), "abort" (each calls
 * abort(3)), or "mixed" (one of each). One ending must win and write the
 * spool's footer whatever the others do; the process must end as the
 * first ending says.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "work.h"

static pthread_barrier_t go;
static const char *mode;
static int *volatile null_pointer;

static void
end(int which)
{
	const char *how = mode;
	if (strcmp(mode, "mixed") == 0)
		how = which == 0 ? "exit" : which == 1 ? "segv" : "abort";
	if (strcmp(how, "exit") == 0)
		exit(3);
	if (strcmp(how, "segv") == 0)
		*null_pointer = 1;
	abort();
}

static WORK_FN void *
racer(void *arg)
{
	work_spin(5 * WORK_UNIT);
	pthread_barrier_wait(&go);
	end((int)(long)arg);
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t t[3];
	if (argc != 2)
		return 2;
	mode = argv[1];
	pthread_barrier_init(&go, NULL, 3);
	for (long i = 0; i < 3; i++)
		if (pthread_create(&t[i], NULL, racer, (void *)i) != 0)
			return 1;
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	return 0;
}
