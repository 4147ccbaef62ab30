/*
 * mmap_heap: 96 MiB of memory in use at once, taken with mmap directly
 * (as Python's pymalloc arenas are) or through malloc, and a few small
 * blocks from malloc beside it: the space profiler sees the one and not
 * the other.
 *
 * usage: mmap_heap mmap|malloc; prints the sum of the bytes written and
 * exits 0 (2 for a bad mode)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define BIG (96u << 20)

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int use_mmap = strcmp(mode, "mmap") == 0;
	if (!use_mmap && strcmp(mode, "malloc") != 0) {
		fprintf(stderr, "usage: mmap_heap mmap|malloc\n");
		return 2;
	}
	unsigned char *big = use_mmap ? mmap(NULL, BIG, PROT_READ | PROT_WRITE,
					     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
				      : malloc(BIG);
	if (!big || big == MAP_FAILED)
		return 1;
	unsigned long sum = 0;
	for (size_t i = 0; i < BIG; i += 4096) {
		big[i] = (unsigned char)(i >> 12);
		sum += big[i];
	}
	for (int i = 0; i < 1000; i++) {
		char *small = malloc(64 + (size_t)i);
		if (!small)
			return 1;
		small[0] = (char)i;
		sum += (unsigned char)small[0];
		free(small);
	}
	if (use_mmap)
		munmap(big, BIG);
	else
		free(big);
	printf("%lu\n", sum);
	return 0;
}
