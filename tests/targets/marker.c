/*
 * marker: creates the file named by argv[1] and exits 0. Built dynamically
 * and (when the toolchain can) statically: the tests check through the file
 * whether profrun started a program it should have refused.
 */
#include <stdio.h>

int
main(int argc, char **argv)
{
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: marker FILE\n");
		return 2;
	}
	f = fopen(argv[1], "w");
	if (!f || fputs("started\n", f) == EOF || fclose(f) == EOF) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
