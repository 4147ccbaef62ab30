/*
 * seed-target: the program whose profiles seed the fuzzers (see
 * make-seeds). A few functions that call each other, a thread, a fork and
 * some allocations, so that the spools hold every record type, and small
 * enough that its ELF file (with DWARF) is a seed itself. Built with
 * -finstrument-functions, so that its calls are counted (CALL_ARCS).
 * With "extra": a library loaded and unloaded (MODULE_UNLOAD), a perf
 * map written and deleted, which the library copies first (PERF_MAP), and
 * a blocked second (off-CPU SAMPLE records with --clock=wall).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;

static void __attribute__((noinline))
leaf(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		sink += i * 2654435761u;
}

static void __attribute__((noinline))
middle(unsigned n)
{
	leaf(n);
	leaf(n / 2);
}

static void * __attribute__((noinline))
grow(size_t n)
{
	char *p = malloc(n);
	if (p)
		memset(p, 1, n);
	return p;
}

static void *
worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 200; i++)
		middle(20000);
	return NULL;
}

/* What the "extra" runs add (see the top of the file). */
static void
extra(void)
{
	void *lib = dlopen("libresolv.so.2", RTLD_NOW | RTLD_LOCAL);
	if (lib)
		dlclose(lib);
	char path[64];
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	FILE *f = fopen(path, "w");
	if (f) {
		fprintf(f, "7f0000001000 40 jit_leaf\n"
			   "7f0000001040 80 jit_middle [jitted]\n");
		fclose(f);
		unlink(path);
	}
	struct timespec ts = { 0, 300000000 };
	nanosleep(&ts, NULL);
}

int
main(int argc, char **argv)
{
	pthread_t t;
	void *kept[8];

	if (argc > 1 && strcmp(argv[1], "extra") == 0)
		extra();

	pthread_create(&t, NULL, worker, NULL);
	for (int i = 0; i < 300; i++) {
		middle(20000);
		free(grow(65536));
	}
	for (int i = 0; i < 8; i++)
		kept[i] = grow(1 << 20);
	pthread_join(t, NULL);
	pid_t pid = fork();
	if (pid == 0) {
		leaf(2000000);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
	free(kept[0]);
	return (int)(sink & 0);
}
