/*
 * dlopen_stress: loader threads dlopen() a plugin, call into it and
 * dlclose() it, over and over, while another thread does plain CPU work.
 *
 * Run at a high sampling rate this is the deadlock test: samples keep
 * arriving while a thread holds the dynamic loader's lock, and a profiler
 * that takes that lock (dl_iterate_phdr) or any other one from its signal
 * handler hangs here. It also moves the plugin around the address space,
 * which the module load/unload records must follow. Prints the number of
 * load-call-unload rounds done and exits 0 (1 on the first that fails).
 *
 * usage: dlopen_stress PLUGIN [LOADERS [ITERATIONS [SCALE]]]
 */
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include "work.h"

/* Per call of plugin_work: 20 us of CPU time (work.h's unit is ns). */
#define PLUGIN_ITERS 20000UL

static const char *plugin_path;
static unsigned long iterations = 2000;
static unsigned long cpu_iters;
static unsigned long rounds_done;

static WORK_FN void *
loader_thread(void *arg)
{
	for (unsigned long i = 0; i < iterations; i++) {
		void *h = dlopen(plugin_path, RTLD_NOW | RTLD_LOCAL);
		unsigned long (*fn)(unsigned long);

		if (!h) {
			fprintf(stderr, "dlopen_stress: %s\n", dlerror());
			exit(1);
		}
		*(void **)&fn = dlsym(h, "plugin_work");
		if (!fn || fn(PLUGIN_ITERS) != PLUGIN_ITERS) {
			fprintf(stderr, "dlopen_stress: %s: no plugin_work\n",
				plugin_path);
			exit(1);
		}
		if (dlclose(h)) {
			fprintf(stderr, "dlopen_stress: %s\n", dlerror());
			exit(1);
		}
		__atomic_fetch_add(&rounds_done, 1, __ATOMIC_RELAXED);
	}
	return arg;
}

static WORK_FN void *
cpu_thread(void *arg)
{
	work_spin(cpu_iters);
	return arg;
}

static unsigned long
parse_count(const char *s, const char *what)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (*end || v == 0) {
		fprintf(stderr, "dlopen_stress: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

int
main(int argc, char **argv)
{
	unsigned long loaders = 2;
	pthread_t tids[65];

	if (argc < 2 || argc > 5) {
		fprintf(stderr, "usage: dlopen_stress PLUGIN [LOADERS "
			"[ITERATIONS [SCALE]]]\n");
		return 2;
	}
	plugin_path = argv[1];
	if (argc > 2)
		loaders = parse_count(argv[2], "loader count");
	if (loaders > 64)
		loaders = 64;
	if (argc > 3)
		iterations = parse_count(argv[3], "iteration count");
	cpu_iters = (unsigned long)(work_scale(argc, argv, 4) * 50 * WORK_UNIT);

	for (unsigned long i = 0; i <= loaders; i++) {
		int err = pthread_create(&tids[i], NULL,
					 i ? loader_thread : cpu_thread, NULL);
		if (err) {
			fprintf(stderr, "dlopen_stress: pthread_create: %s\n",
				strerror(err));
			return 1;
		}
	}
	for (unsigned long i = 0; i <= loaders; i++)
		pthread_join(tids[i], NULL);
	printf("dlopen_stress: %lu loaders, %lu rounds\n", loaders,
	       rounds_done);
	return 0;
}
