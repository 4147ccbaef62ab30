/*
 * space_cxx_host: a C program that loads a C++ library with RTLD_LOCAL,
 * as Python loads its extensions, and runs it: space_cxx built as a
 * library (see space_cxx.cc). Its C++ runtime then comes in with the
 * library, outside the global scope. Then closes the library, says
 * whether it was unloaded, loads it again and has it check that new and
 * delete still work.
 *
 * usage: space_cxx_host LIBRARY [SCALE]
 */
#include <dlfcn.h>
#include <stdio.h>

int
main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: space_cxx_host LIBRARY [SCALE]\n");
		return 2;
	}
	void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "space_cxx_host: %s\n", dlerror());
		return 2;
	}
	int (*run)(int, char **) =
		(int (*)(int, char **))dlsym(h, "space_cxx_run");
	if (!run) {
		fprintf(stderr, "space_cxx_host: %s\n", dlerror());
		return 2;
	}
	/* std::terminate(), which only a C++ runtime defines. */
	if (dlsym(RTLD_DEFAULT, "_ZSt9terminatev")) {
		fprintf(stderr, "space_cxx_host: a C++ runtime is in the "
				"global scope: the test would not test\n");
		return 2;
	}
	int rc = run(argc - 1, argv + 1);
	fflush(stdout);
	/* The profiler keeps no hold on the library: closing it unloads it,
	 * as without the profiler. Loaded again, its C++ still works. */
	if (dlclose(h) != 0) {
		fprintf(stderr, "space_cxx_host: dlclose: %s\n", dlerror());
		return 2;
	}
	printf("library_unloaded=%d\n",
	       dlopen(argv[1], RTLD_NOW | RTLD_NOLOAD) == NULL);
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	int (*check)(void) = h ? (int (*)(void))dlsym(h, "space_cxx_check") :
				 NULL;
	if (!check) {
		fprintf(stderr, "space_cxx_host: %s\n", dlerror());
		return 2;
	}
	printf("reloaded_ok=%d\n", check());
	return rc;
}
