/*
 * space_threads: four threads allocate at the same time, 40, 30, 20 and
 * 10 % of the bytes, each from its own call site with its own block size,
 * freeing every block at once. Run with CPU-time sampling at a high rate,
 * the sampling signal keeps arriving inside the allocation wrappers, in
 * their fast and slow paths alike: the run must end (no deadlock), the
 * shares must come out right and no free of a sampled block may be lost
 * (nothing of the sites in use at exit).
 *
 * Each thread is named alloc-SHARE and prints the exact number of malloc
 * and free calls it made, which the call counts must match, and its user
 * CPU time (getrusage RUSAGE_THREAD), which its time samples must cover.
 * 1 GiB in all at scale 1 (argv[1]). With argv[2] = MS, each thread
 * repeats its share until it has MS milliseconds of user time, so that
 * the coverage check always has the samples it needs: 1 GiB alone gave a
 * thread as little as 8 ms on a loaded 2-core machine.
 */
#include <pthread.h>
#include <sys/resource.h>
#include <stdint.h>
#include <string.h>

#include "work.h"

struct job {
	const char *name;
	uint64_t bytes;
	size_t block;
	uint64_t (*site)(const struct job *j);
	uint64_t min_utime_ns;
	uint64_t calls;
	uint64_t utime_ns;
};

static void *volatile sink;

static inline __attribute__((always_inline)) uint64_t
blocks(const struct job *j)
{
	uint64_t calls = 0;
	for (uint64_t done = 0; done + j->block <= j->bytes;
	     done += j->block) {
		char *p = malloc(j->block);
		if (!p)
			abort();
		p[0] = 1;
		sink = p;
		free(p);
		calls++;
	}
	return calls;
}

static WORK_FN uint64_t
site_40(const struct job *j)
{
	return blocks(j);
}

static WORK_FN uint64_t
site_30(const struct job *j)
{
	return blocks(j);
}

static WORK_FN uint64_t
site_20(const struct job *j)
{
	return blocks(j);
}

static WORK_FN uint64_t
site_10(const struct job *j)
{
	return blocks(j);
}

static uint64_t
thread_utime_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru) != 0) {
		perror("getrusage(RUSAGE_THREAD)");
		abort();
	}
	return (uint64_t)ru.ru_utime.tv_sec * 1000000000u +
	       (uint64_t)ru.ru_utime.tv_usec * 1000u;
}

static void *
run(void *arg)
{
	struct job *j = arg;
	pthread_setname_np(pthread_self(), j->name);
	do
		j->calls += j->site(j);
	while ((j->utime_ns = thread_utime_ns()) < j->min_utime_ns);
	return NULL;
}

int
main(int argc, char **argv)
{
	uint64_t total = (uint64_t)(work_scale(argc, argv, 1) * 1024.0 *
				    1024 * 1024);
	uint64_t min_ns = argc > 2 ? strtoull(argv[2], NULL, 10) * 1000000u
				   : 0;
	struct job jobs[4] = {
		{ "alloc-40", total * 4 / 10, 256, site_40, min_ns, 0, 0 },
		{ "alloc-30", total * 3 / 10, 4096, site_30, min_ns, 0, 0 },
		{ "alloc-20", total * 2 / 10, 96, site_20, min_ns, 0, 0 },
		{ "alloc-10", total * 1 / 10, 32768, site_10, min_ns, 0, 0 },
	};
	pthread_t tids[4];

	for (int i = 0; i < 4; i++) {
		int err = pthread_create(&tids[i], NULL, run, &jobs[i]);
		if (err) {
			fprintf(stderr, "space_threads: pthread_create: %s\n",
				strerror(err));
			return 1;
		}
	}
	for (int i = 0; i < 4; i++)
		pthread_join(tids[i], NULL);
	for (int i = 0; i < 4; i++)
		printf("%s calls=%llu bytes=%llu utime_ns=%llu\n", jobs[i].name,
		       (unsigned long long)jobs[i].calls,
		       (unsigned long long)(jobs[i].calls * jobs[i].block),
		       (unsigned long long)jobs[i].utime_ns);
	return 0;
}
