/*
 * preload: the library's entry points: the constructor that starts
 * profiling when PROF_SPOOL is set, the destructor that finishes the spool,
 * the fork handler, and the dlclose wrapper.
 *
 * Start-up order matters: the timer source is chosen before the spool is
 * written (its PROCESS record names it), the module table is filled before
 * the handler can run, and the handler is installed before any timer fires.
 * Any failure leaves the target running unprofiled, with one line saying why.
 */
#include "log.h"
#include "modules.h"
#include "sampler.h"
#include "state.h"
#include "threads.h"
#include "timer.h"
#include "unwind.h"
#include "writer.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void
after_fork_child(void)
{
	if (!prof_state.initialised)
		return;
	/* Following children is not done yet: the child runs unprofiled and
	 * leaves the parent's spool and timers alone. */
	atomic_store(&prof_state.enabled, 0);
	prof_state.initialised = 0; /* wrappers pass straight through */
	threads_after_fork_child();
	writer_after_fork_child();
}

/* A process started by the profiled one (fork + exec) inherits PROF_*; only
 * the process profrun started (PROF_PID) is profiled for now. */
static int
is_profiled_process(void)
{
	const char *pid = getenv("PROF_PID");
	return !pid || !*pid || strtol(pid, NULL, 10) == (long)getpid();
}

static int
start(void)
{
	int rc = timer_choose();
	if (rc < 0) {
		log_msg("timer %s is not available (%s); profiling disabled",
			spool_timer_name((uint32_t)prof_state.cfg.timer_request),
			strerror(-rc));
		return rc;
	}
	prof_state.start_mono_ns = prof_now_ns();
	if ((rc = writer_open()) < 0) {
		log_msg("%s: cannot create the spool (%s); profiling disabled",
			prof_state.cfg.spool_path, strerror(-rc));
		return rc;
	}
	if ((rc = unwind_init()) < 0 || (rc = modules_init()) < 0) {
		log_msg("cannot set up the unwinder (%s); profiling disabled",
			strerror(-rc));
		return rc;
	}
	modules_sync();
	if ((rc = sampler_install()) < 0 || (rc = threads_init()) < 0 ||
	    (rc = timer_process_start()) < 0 || (rc = writer_start()) < 0) {
		log_msg("cannot start sampling (%s); profiling disabled",
			strerror(-rc));
		return rc;
	}
	return 0;
}

__attribute__((constructor)) static void
preload_init(void)
{
	int saved_errno = errno;
	if (!is_profiled_process() ||
	    prof_config_from_env(&prof_state.cfg) <= 0) {
		errno = saved_errno;
		return;
	}
	prof_state.pid = getpid();
	atomic_store(&prof_state.enabled, 1);
	if (start() == 0) {
		prof_state.initialised = 1;
		pthread_atfork(NULL, NULL, after_fork_child);
	} else {
		atomic_store(&prof_state.enabled, 0);
		atomic_store(&prof_state.disabled, 1);
		threads_stop_all_timers();
	}
	errno = saved_errno;
}

__attribute__((destructor)) static void
preload_fini(void)
{
	int saved_errno = errno;
	if (prof_state.initialised && getpid() == prof_state.pid) {
		atomic_store(&prof_state.enabled, 0);
		timer_process_stop();
		threads_stop_all_timers();
		threads_quiesce();
		writer_finish();
	}
	errno = saved_errno;
}

typedef int (*dlclose_fn)(void *);

__attribute__((visibility("default"))) int
dlclose(void *handle)
{
	static _Atomic(dlclose_fn) real;
	dlclose_fn fn = atomic_load(&real);
	if (!fn) {
		fn = (dlclose_fn)dlsym(RTLD_NEXT, "dlclose");
		atomic_store(&real, fn);
	}
	if (!prof_state.initialised)
		return fn(handle);
	modules_unload_begin();
	int rc = fn(handle);
	int saved_errno = errno;
	modules_unload_end();
	errno = saved_errno;
	return rc;
}
