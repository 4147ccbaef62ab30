/*
 * libdliter_check: a preloaded library that catches a profiler whose
 * sampling signal handler calls dl_iterate_phdr, whatever the program.
 *
 * dl_iterate_phdr takes the dynamic loader's lock. A handler that calls it
 * while the interrupted thread is inside dlopen or dlclose (which hold that
 * lock) waits forever: the classic deadlock of profilers built on signals.
 * A stress test that hits that window only hangs by chance; this library
 * makes the check deterministic by counting every call made from inside
 * the handler, whether or not the lock happened to be free.
 *
 * profrun puts libprofrun.so first in LD_PRELOAD and this library after
 * it, so:
 * - calls of dl_iterate_phdr from libprofrun.so, libunwind and the program
 *   reach the definition here before the C library's;
 * - libprofrun.so installs its handler through dlsym(RTLD_NEXT,
 *   "sigaction"), which is the sigaction here: for the sampling signal
 *   (PROF_SIGNAL, default SIGPROF) it installs a trampoline that marks the
 *   thread as inside the handler while the profiler's handler runs, and
 *   reports the profiler's handler back to whoever asks.
 *
 * A call from inside the handler is counted and not passed on (it returns
 * 0 without calling back), so that it cannot deadlock: the test fails on
 * the count at once instead of at its timeout.
 *
 * At exit, in a process that profrun profiles, it prints on stderr
 *   "dliter_check: in_handler=N outside=N handler_runs=N"
 * where in_handler must be 0, and outside and handler_runs above 0 (else
 * the interposition did not work and the check proves nothing).
 */
#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int (*dl_iterate_phdr_fn)(int (*)(struct dl_phdr_info *, size_t,
					  void *),
				  void *);
typedef int (*sigaction_fn)(int, const struct sigaction *,
			    struct sigaction *);
typedef void (*handler_fn)(int, siginfo_t *, void *);

static unsigned long in_handler_calls, outside_calls, handler_runs;
static __thread int handler_depth __attribute__((tls_model("initial-exec")));
static handler_fn profiler_handler;

/* Resolved in the constructor, before any handler runs; dlsym takes the
 * loader's lock, so never from the handler. */
static void *
next_symbol(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (!p) {
		fprintf(stderr, "dliter_check: no next %s\n", name);
		abort();
	}
	return p;
}

static dl_iterate_phdr_fn
real_dl_iterate_phdr(void)
{
	static dl_iterate_phdr_fn fn;

	if (!__atomic_load_n(&fn, __ATOMIC_ACQUIRE))
		__atomic_store_n(&fn, next_symbol("dl_iterate_phdr"),
				 __ATOMIC_RELEASE);
	return fn;
}

static sigaction_fn
real_sigaction(void)
{
	static sigaction_fn fn;

	if (!__atomic_load_n(&fn, __ATOMIC_ACQUIRE))
		__atomic_store_n(&fn, next_symbol("sigaction"), __ATOMIC_RELEASE);
	return fn;
}

/* PROF_SIGNAL, read when first needed: libprofrun.so's constructor may
 * install its handler before this library's constructor has run. */
static int
sampling_signal(void)
{
	static int sig;

	if (!__atomic_load_n(&sig, __ATOMIC_RELAXED)) {
		const char *s = getenv("PROF_SIGNAL");
		int v = s ? atoi(s) : 0;

		__atomic_store_n(&sig, v > 0 ? v : SIGPROF, __ATOMIC_RELAXED);
	}
	return sig;
}

/* async-signal-safe */
static void
trampoline(int sig, siginfo_t *si, void *uc)
{
	handler_fn h = __atomic_load_n(&profiler_handler, __ATOMIC_ACQUIRE);

	__atomic_fetch_add(&handler_runs, 1, __ATOMIC_RELAXED);
	handler_depth++;
	if (h)
		h(sig, si, uc);
	handler_depth--;
}

int
sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct sigaction wrapped;
	int rc;

	if (sig != sampling_signal())
		return real_sigaction()(sig, act, old);
	if (act && (act->sa_flags & SA_SIGINFO) &&
	    act->sa_sigaction != trampoline) {
		__atomic_store_n(&profiler_handler, act->sa_sigaction,
				 __ATOMIC_RELEASE);
		wrapped = *act;
		wrapped.sa_sigaction = trampoline;
		act = &wrapped;
	}
	rc = real_sigaction()(sig, act, old);
	if (rc == 0 && old && (old->sa_flags & SA_SIGINFO) &&
	    old->sa_sigaction == trampoline)
		old->sa_sigaction = profiler_handler;
	return rc;
}

int
dl_iterate_phdr(int (*callback)(struct dl_phdr_info *, size_t, void *),
		void *data)
{
	if (handler_depth) {
		/* Not passed on: the loader's lock may be held by the very
		 * code the handler interrupted, and the test should fail on
		 * this count, not hang until its timeout. */
		__atomic_fetch_add(&in_handler_calls, 1, __ATOMIC_RELAXED);
		return 0;
	}
	__atomic_fetch_add(&outside_calls, 1, __ATOMIC_RELAXED);
	return real_dl_iterate_phdr()(callback, data);
}

static void __attribute__((constructor))
dliter_check_init(void)
{
	sampling_signal();
	real_dl_iterate_phdr();
	real_sigaction();
}

static void __attribute__((destructor))
dliter_check_report(void)
{
	char line[160];
	int n;

	/* Not in profrun itself, which inherits LD_PRELOAD too. */
	if (!getenv("PROF_SPOOL"))
		return;
	n = snprintf(line, sizeof(line),
			 "dliter_check: in_handler=%lu outside=%lu "
			 "handler_runs=%lu\n",
			 __atomic_load_n(&in_handler_calls, __ATOMIC_RELAXED),
			 __atomic_load_n(&outside_calls, __ATOMIC_RELAXED),
			 __atomic_load_n(&handler_runs, __ATOMIC_RELAXED));

	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}
