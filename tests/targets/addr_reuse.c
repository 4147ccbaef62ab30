/*
 * addr_reuse: loads libreuse_a.so, works in it, unloads it, then loads
 * libreuse_b.so, which the dynamic loader maps where A was (both are
 * linked to prefer that address, and this program is not
 * position-independent, so the loader asks for it), and works in it: a PC is in A's code or in
 * B's depending only on when it was sampled. A does 2 and B 3 parts of
 * the work (about 0.75 s at scale 1). Each library stays loaded for
 * 100 ms or more, longer than the preload library takes to notice a
 * load.
 *
 * Prints "reused N of M" (rounds in which B got A's address). Exits 3
 * when that never happened: the test cannot judge anything then.
 *
 * usage: addr_reuse LIBA LIBB [SCALE]
 */
#include <stdint.h>
#include <dlfcn.h>

#include "work.h"

#define ROUNDS 3

typedef unsigned long (*work_fn)(unsigned long);

/* Loads path, runs its function name for iters, unloads it; returns the
 * address it was mapped at. */
static uintptr_t
run_in(const char *path, const char *name, unsigned long iters)
{
	Dl_info info;
	work_fn fn;
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "addr_reuse: %s\n", dlerror());
		exit(1);
	}
	*(void **)&fn = dlsym(h, name);
	if (!fn || !dladdr(*(void **)&fn, &info) || fn(iters) != iters) {
		fprintf(stderr, "addr_reuse: %s: no %s\n", path, name);
		exit(1);
	}
	uintptr_t base = (uintptr_t)info.dli_fbase;
	if (dlclose(h) != 0) {
		fprintf(stderr, "addr_reuse: %s\n", dlerror());
		exit(1);
	}
	return base;
}

int
main(int argc, char **argv)
{
	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: addr_reuse LIBA LIBB [SCALE]\n");
		return 2;
	}
	unsigned long part = (unsigned long)(work_scale(argc, argv, 3) * 5 *
					     WORK_UNIT);
	int reused = 0;
	for (int round = 0; round < ROUNDS; round++) {
		uintptr_t a = run_in(argv[1], "reuse_a_work", 2 * part);
		uintptr_t b = run_in(argv[2], "reuse_b_work", 3 * part);
		printf("round %d: A at %#lx, B at %#lx\n", round,
		       (unsigned long)a, (unsigned long)b);
		reused += a == b;
	}
	printf("reused %d of %d\n", reused, ROUNDS);
	return reused ? 0 : 3;
}
