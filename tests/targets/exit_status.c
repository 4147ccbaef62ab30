/*
 * exit_status: ends the way the command line says, after some optional
 * work, so that the tests can check that profrun passes the program's
 * exit status on and that the spool survives the program's death.
 *
 * usage: exit_status [-w SCALE] exit N | signal N | segv
 *   exit N    exit(N)
 *   signal N  raise(N), with whatever handler is installed (the profiler's
 *             own, if it has one, must end in the same death)
 *   segv      a real invalid memory access
 */
#include <signal.h>
#include <string.h>

#include "work.h"

/* volatile so the compiler cannot see that it is NULL. */
static int *volatile bad_pointer;

static WORK_FN void
busy(unsigned long iters)
{
	work_spin(iters);
}

static int
usage(void)
{
	fprintf(stderr, "usage: exit_status [-w SCALE] exit N | signal N | "
		"segv\n");
	return 2;
}

int
main(int argc, char **argv)
{
	int i = 1;

	if (argc > 2 && strcmp(argv[1], "-w") == 0) {
		busy((unsigned long)(work_scale(argc, argv, 2) * 50 *
				     WORK_UNIT));
		i = 3;
	}
	if (argc == i + 2 && strcmp(argv[i], "exit") == 0)
		exit(atoi(argv[i + 1]));
	if (argc == i + 2 && strcmp(argv[i], "signal") == 0) {
		raise(atoi(argv[i + 1]));
		fprintf(stderr, "exit_status: still alive after signal %s\n",
			argv[i + 1]);
		return 99;
	}
	if (argc == i + 1 && strcmp(argv[i], "segv") == 0) {
		*bad_pointer = 1;
		return 99;
	}
	return usage();
}
