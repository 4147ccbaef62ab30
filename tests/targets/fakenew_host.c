/*
 * fakenew_host: loads libfakenew variant 1 with RTLD_LOCAL, has its
 * operator new and delete called through the dynamic linker, closes it
 * (it must unload), then does the same with variant 2. Under profrun the
 * calls go through the profiler's wrappers, which find the library's
 * definitions among the loaded objects: once the first is gone they must
 * find the second's, not call into freed memory.
 *
 * usage: fakenew_host LIBFAKENEW1 LIBFAKENEW2
 * Prints first=N unloaded=0|1 second=N (N: calls that reached the
 * library's own definitions, 2 when right).
 */
#include <dlfcn.h>
#include <stdio.h>

static int
use(const char *path, void **h)
{
	*h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	int (*fn)(void) = *h ? (int (*)(void))dlsym(*h, "fakenew_use") : NULL;
	if (!fn) {
		fprintf(stderr, "fakenew_host: %s\n", dlerror());
		return -1;
	}
	return fn();
}

int
main(int argc, char **argv)
{
	void *h;
	if (argc != 3) {
		fprintf(stderr, "usage: fakenew_host LIBFAKENEW1 LIBFAKENEW2\n");
		return 2;
	}
	int first = use(argv[1], &h);
	if (first < 0 || dlclose(h) != 0)
		return 2;
	int unloaded = dlopen(argv[1], RTLD_NOW | RTLD_NOLOAD) == NULL;
	int second = use(argv[2], &h);
	printf("first=%d unloaded=%d second=%d\n", first, unloaded, second);
	return first == 2 && unloaded && second == 2 ? 0 : 1;
}
