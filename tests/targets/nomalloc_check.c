/*
 * nomalloc_check: catches a profiler that calls malloc or dl_iterate_phdr
 * from its signal handler.
 *
 * Symbols defined in the executable take precedence over every shared
 * library's, the preloaded profiler and libunwind included, so the malloc
 * family and dl_iterate_phdr defined here see every call made anywhere in
 * the process. They forward to glibc and count the calls made on one of
 * this program's own threads while a profiling signal is blocked on it.
 * This program never blocks those signals itself, so a blocked one means
 * the thread is inside the signal's handler (the kernel blocks the signal
 * while its handler runs).
 *
 * Such a call is a bug even when it happens to work: malloc may be
 * interrupted in the middle of its own bookkeeping, and dl_iterate_phdr
 * takes the loader lock that an interrupted dlopen may hold.
 *
 * Main and two threads do CPU work that also calls malloc, free and
 * dl_iterate_phdr from normal code. At exit the program prints
 * "violations=N ..." and exits 3 if N > 0, or 4 if the interposition did
 * not work (so the check itself is tested).
 *
 * usage: nomalloc_check [SCALE]
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>

#include "work.h"

void *__libc_malloc(size_t size);
void __libc_free(void *ptr);
void *__libc_calloc(size_t nmemb, size_t size);
void *__libc_realloc(void *ptr, size_t size);

/* The interposed functions: public names, declared by the system headers. */

enum call { CALL_MALLOC, CALL_FREE, CALL_CALLOC, CALL_REALLOC, CALL_DLITER,
	    CALL_MAX_ };

static const char *const call_names[CALL_MAX_] = {
	"malloc", "free", "calloc", "realloc", "dl_iterate_phdr",
};

static unsigned long violations[CALL_MAX_];
static unsigned long normal_calls[CALL_MAX_];

/* Set on main and on this program's threads while they do the work; the
 * profiler's own threads and the start and exit paths are not checked. */
static __thread int checked_thread;

typedef int (*dl_iterate_phdr_fn)(int (*)(struct dl_phdr_info *, size_t,
					  void *),
				  void *);
static dl_iterate_phdr_fn real_dl_iterate_phdr;

/* async-signal-safe: one syscall. */
static int
in_signal_handler(void)
{
	sigset_t blocked;

	if (pthread_sigmask(SIG_BLOCK, NULL, &blocked) != 0)
		return 0;
	/* SIGPROF is the profiling signal; the others are the ones a timer
	 * could be set to deliver instead. */
	if (sigismember(&blocked, SIGPROF) == 1 ||
	    sigismember(&blocked, SIGVTALRM) == 1)
		return 1;
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		if (sigismember(&blocked, sig) == 1)
			return 1;
	return 0;
}

/* async-signal-safe: a TLS read, in_signal_handler and an atomic add. */
static void
note_call(enum call which)
{
	if (!checked_thread)
		return;
	__atomic_fetch_add(in_signal_handler() ? &violations[which] :
						 &normal_calls[which],
			   1, __ATOMIC_RELAXED);
}

void *
malloc(size_t size)
{
	note_call(CALL_MALLOC);
	return __libc_malloc(size);
}

void
free(void *ptr)
{
	note_call(CALL_FREE);
	__libc_free(ptr);
}

void *
calloc(size_t nmemb, size_t size)
{
	note_call(CALL_CALLOC);
	return __libc_calloc(nmemb, size);
}

void *
realloc(void *ptr, size_t size)
{
	note_call(CALL_REALLOC);
	return __libc_realloc(ptr, size);
}

/* Resolved before main runs; the lazy path serves callers that come even
 * earlier (the profiler's own constructor). dlsym does not call
 * dl_iterate_phdr, and its allocations go to __libc_malloc above. */
static dl_iterate_phdr_fn
resolve_dl_iterate_phdr(void)
{
	dl_iterate_phdr_fn fn = __atomic_load_n(&real_dl_iterate_phdr,
						__ATOMIC_ACQUIRE);

	if (!fn) {
		*(void **)&fn = dlsym(RTLD_NEXT, "dl_iterate_phdr");
		if (!fn)
			abort();
		__atomic_store_n(&real_dl_iterate_phdr, fn, __ATOMIC_RELEASE);
	}
	return fn;
}

static void __attribute__((constructor(101)))
nomalloc_check_init(void)
{
	resolve_dl_iterate_phdr();
}

int
dl_iterate_phdr(int (*callback)(struct dl_phdr_info *, size_t, void *),
		void *data)
{
	note_call(CALL_DLITER);
	return resolve_dl_iterate_phdr()(callback, data);
}

static int
count_module(struct dl_phdr_info *info, size_t size, void *data)
{
	(*(unsigned long *)data)++;
	return 0;
}

static unsigned long work_rounds;

/* CPU work interleaved with the calls that must be legal outside the
 * handler: the samples land in all of them. */
static WORK_FN void
alloc_work(void)
{
	unsigned long modules = 0;

	checked_thread = 1;
	for (unsigned long i = 0; i < work_rounds; i++) {
		char *p = malloc(64 + (i % 64) * 64);
		char *q = calloc(16, 16);

		if (!p || !q)
			abort();
		p[0] = (char)i;
		p = realloc(p, 8192);
		if (!p)
			abort();
		work_spin(WORK_UNIT / 1000);
		dl_iterate_phdr(count_module, &modules);
		free(q);
		free(p);
	}
	checked_thread = 0;
	if (modules == 0)
		abort();
}

static void *
work_thread(void *arg)
{
	alloc_work();
	return arg;
}

int
main(int argc, char **argv)
{
	pthread_t tids[2];
	unsigned long total = 0, normal = 0;

	/* 100 units per thread, 3 threads: about 3 s of CPU at scale 1. */
	work_rounds = (unsigned long)(work_scale(argc, argv, 1) * 100 * 1000);
	for (int i = 0; i < 2; i++) {
		int err = pthread_create(&tids[i], NULL, work_thread, NULL);
		if (err) {
			fprintf(stderr, "nomalloc_check: pthread_create: %s\n",
				strerror(err));
			return 1;
		}
	}
	alloc_work();
	for (int i = 0; i < 2; i++)
		pthread_join(tids[i], NULL);

	for (int i = 0; i < CALL_MAX_; i++) {
		total += __atomic_load_n(&violations[i], __ATOMIC_RELAXED);
		normal += __atomic_load_n(&normal_calls[i], __ATOMIC_RELAXED);
	}
	printf("violations=%lu", total);
	for (int i = 0; i < CALL_MAX_; i++)
		printf(" %s=%lu", call_names[i], violations[i]);
	printf(" (calls outside the handler: %lu)\n", normal);
	if (normal == 0) {
		fprintf(stderr, "nomalloc_check: the interposed functions were "
			"never called: the check is not working\n");
		return 4;
	}
	return total ? 3 : 0;
}
