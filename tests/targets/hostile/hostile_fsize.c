/* A program that runs under a file-size limit (RLIMIT_FSIZE) and writes
 * no file: the profiler's spool must never turn the limit into SIGXFSZ.
 * Some CPU and many small allocations, a line of output. With "lower N",
 * it lowers its own limit to N bytes with setrlimit half-way through. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static void
work(int rounds)
{
	volatile unsigned long x = 0;
	for (int r = 0; r < rounds; r++) {
		for (unsigned long i = 0; i < 2000000; i++)
			x += i;
		for (int i = 0; i < 20000; i++)
			free(malloc((size_t)(i % 200) * 8 + 16));
	}
}

int
main(int argc, char **argv)
{
	work(10);
	if (argc == 3 && strcmp(argv[1], "lower") == 0) {
		struct rlimit rl;
		getrlimit(RLIMIT_FSIZE, &rl);
		rl.rlim_cur = strtoull(argv[2], NULL, 10);
		if (setrlimit(RLIMIT_FSIZE, &rl) != 0) {
			perror("setrlimit");
			return 1;
		}
	}
	work(10);
	printf("fsize done\n");
	return 0;
}
