/*
 * shape: a single-threaded program that reports what glibc sees of its
 * shape while it runs: __libc_single_threaded, which glibc and libstdc++
 * read to skip locks and atomics, and the number of entries in
 * /proc/self/task. It prints "single=N tasks=N" at the start of main,
 * after CPU work and allocations (when the profiler has taken samples and
 * space samples), after a dlopen and dlclose of libm (module changes),
 * and in a forked child. A profiler that adds a thread shows as
 * single=0 or tasks=2.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/single_threaded.h>
#include <sys/wait.h>
#include <unistd.h>

#include "work.h"

static int
tasks(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;
	if (!d)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static void
report(const char *when)
{
	printf("%s: single=%d tasks=%d\n", when, (int)__libc_single_threaded,
	       tasks());
	fflush(stdout);
}

static WORK_FN void
allocate(int n)
{
	for (int i = 0; i < n; i++) {
		void *volatile p = malloc(1000 + (size_t)i % 4000);
		free(p);
	}
}

int
main(void)
{
	report("start");
	work_spin(20 * WORK_UNIT);
	allocate(200000);
	report("worked");
	void *h = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
	if (h)
		dlclose(h);
	report("dlopen");
	pid_t pid = fork();
	if (pid == 0) {
		work_spin(5 * WORK_UNIT);
		report("child");
		_exit(0);
	}
	int st;
	waitpid(pid, &st, 0);
	report("end");
	return 0;
}
