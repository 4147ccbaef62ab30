/* The control case of the hostile table: a program that does nothing
 * unusual (a little CPU, a few allocations, a line of output). If this
 * one differs bare and profiled, the comparison itself is broken. */
#include <stdio.h>
#include <stdlib.h>

int
main(void)
{
	volatile unsigned long x = 0;
	for (unsigned long i = 0; i < 20000000; i++)
		x += i;
	for (int i = 0; i < 1000; i++)
		free(malloc((size_t)i * 64 + 1));
	printf("plain done\n");
	return 0;
}
