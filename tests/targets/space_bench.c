/*
 * space_bench: the benchmark of the allocation fast path (scripts/
 * bench-space): a loop of small malloc/free pairs, sizes cycling from 16
 * to 256 bytes, about 10 ns a pair when run bare. Each block is written
 * and its address kept in a volatile, so that the compiler can neither
 * drop the pair nor merge iterations.
 *
 * usage: space_bench [MILLIONS_OF_PAIRS] (default 50)
 */
#include <stdio.h>
#include <stdlib.h>

static void *volatile sink;

int
main(int argc, char **argv)
{
	double millions = argc > 1 ? strtod(argv[1], NULL) : 50.0;
	unsigned long pairs = (unsigned long)(millions * 1e6);

	if (!(millions > 0)) {
		fprintf(stderr, "usage: space_bench [MILLIONS_OF_PAIRS]\n");
		return 2;
	}
	for (unsigned long i = 0; i < pairs; i++) {
		char *p = malloc(16 + (i & 15) * 16);
		if (!p)
			return 1;
		p[0] = (char)i;
		sink = p;
		free(p);
	}
	return 0;
}
