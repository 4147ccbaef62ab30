/*
 * api_dlopen: loads libapi_user (which links libprofrun.so) with dlopen
 * and calls it. Not profiled, the API answers -ENOSYS.
 *
 * usage: api_dlopen LIBAPI_USER
 * Prints "flush=N" (N the API's return value); exits 1 when the library
 * cannot be loaded.
 */
#include <dlfcn.h>
#include <stdio.h>

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: api_dlopen LIBAPI_USER\n");
		return 2;
	}
	void *h = dlopen(argv[1], RTLD_NOW);
	int (*flush)(void) = h ? (int (*)(void))dlsym(h, "api_user_flush") :
				 NULL;
	if (!flush) {
		printf("dlopen: %s\n", dlerror());
		return 1;
	}
	printf("flush=%d\n", flush());
	return 0;
}
