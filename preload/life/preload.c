/*
 * preload: the library's entry points and the life of a process image:
 * the constructor that starts profiling when PROF_SPOOL is set, the fork
 * hooks, the exec and _exit wrappers and the destructor that finish the
 * spool, the pthread_create wrapper that attaches new threads, and the
 * wrappers that keep the module table and thread names current (dlclose,
 * prctl, pthread_setname_np), and those that end profiling before the
 * program enters seccomp (prctl, syscall). Layer: life, the top: it calls
 * every layer below and nothing calls it; none of it runs in a signal
 * handler.
 *
 * Start-up order matters: the timer source is chosen before the spool is
 * written (its PROCESS record names it), the module table is filled before
 * the handler can run, and the handler is installed before any timer fires.
 * Any failure leaves the target running unprofiled, with one line saying why.
 *
 * Every wrapper first asks whether it runs in the image being profiled
 * (getpid() == prof_state.pid): a vfork child shares our memory and must
 * not touch the parent's spool or threads.
 */
#include "alloc.h"
#include "calls.h"
#include "control.h"
#include "endings.h"
#include "log.h"
#include "masks.h"
#include "modules.h"
#include "real.h"
#include "offcpu.h"
#include "perfmap.h"
#include "sampler.h"
#include "sigview.h"
#include "state.h"
#include "threads.h"
#include "timer.h"
#include "unwind.h"
#include "appender.h"
#include "sys.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h> /* remove()'s prototype only: no stdio is used */
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static int
profiling_here(void)
{
	return prof_state.initialised && getpid() == prof_state.pid;
}

/* What a thread's joining and leaving mean to the event sources. */
static void
thread_attached(struct thread_slot *t)
{
	alloc_thread_attach(t);
	calls_thread_attach(t);
}

static void
thread_leaving(struct thread_slot *t)
{
	calls_thread_detach(t);
	alloc_thread_detach(t);
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
	prof_cpu_ns(&prof_state.base_utime_ns, &prof_state.base_stime_ns);
	if ((rc = appender_open()) == -EMFILE) {
		struct rlimit rl;
		getrlimit(RLIMIT_NOFILE, &rl);
		const struct prof_config *cfg = &prof_state.cfg;
		log_msg("%s: no descriptor for the spool out of the program's way "
			"(RLIMIT_NOFILE %lu, hard limit %lu: the library takes no "
			"number the program could be given); profiling disabled",
			cfg->primary && cfg->spool_final[0] ? cfg->spool_final
							    : cfg->spool_path,
			(unsigned long)rl.rlim_cur, (unsigned long)rl.rlim_max);
		return rc;
	}
	if (rc < 0) {
		log_msg("%s: cannot create the spool (%s); profiling disabled",
			prof_state.cfg.spool_path,
			rc == -EFBIG ? "the file size limit (ulimit -f) leaves "
				       "no room for its header" : strerror(-rc));
		return rc;
	}
	appender_set_finish_hook(perfmap_copy);
	/* The modules first: unwind_init's warm-up walk then finds them in
	 * the table (else each of its reads is a system call). */
	if ((rc = modules_init()) == 0) {
		modules_sync();
		rc = unwind_init();
	}
	if (rc < 0) {
		log_msg("cannot set up the unwinder (%s); profiling disabled",
			strerror(-rc));
		return rc;
	}
	appender_shared_release();
	static const struct threads_hooks hooks = {
		.attached = thread_attached,
		.leaving = thread_leaving,
	};
	if ((rc = real_resolve_early()) < 0 || (rc = control_init()) < 0 ||
	    (rc = sampler_install()) < 0 || (rc = threads_init(&hooks)) < 0 ||
	    (rc = timer_process_start()) < 0 || (rc = offcpu_start()) < 0) {
		log_msg("cannot start sampling (%s); profiling disabled",
			strerror(-rc));
		return rc;
	}
	endings_install();
	masks_start();
	return 0;
}

/* ---- fork ---- */

/* Threads may fork at the same time, and glibc runs the atfork handlers
 * of each without a lock of its own. The hooks of the modules each take
 * a lock in prefork and drop it in postfork, and the sampling pause
 * saves and restores prof_state.enabled: both are right for one fork in
 * flight only. So a profiled fork takes fork_lock first and holds it to
 * the end of its postfork_parent: forks wait for each other in prefork
 * (they would for the modules' locks anyway), and paused_for_fork, under
 * the lock, is the one fork in flight's. What a thread's hooks must
 * remember from prefork to postfork is its own (thread-local): one
 * thread's postfork must never end another's fork. */
static pthread_mutex_t fork_lock = PTHREAD_MUTEX_INITIALIZER;
static int paused_for_fork; /* under fork_lock */
/* Forks this thread has in flight: more than one when a signal handler
 * of the program forks while the thread is in fork already (the inner
 * one's hooks then do nothing: the outer holds the locks). */
static __thread int fork_depth __attribute__((tls_model("initial-exec")));
/* This thread's outermost fork ran prefork in the profiled image. */
static __thread int fork_ours __attribute__((tls_model("initial-exec")));

static int image_ended(void);

static void
prefork(void)
{
	if (fork_depth++ > 0)
		return;
	fork_ours = profiling_here();
	if (!fork_ours)
		return;
	pthread_mutex_lock(&fork_lock);
	/* No handler may hold a lock (ours or libunwind's) across fork. */
	paused_for_fork = atomic_exchange(&prof_state.enabled, 0);
	threads_quiesce();
	modules_prefork();
	offcpu_prefork();
	appender_prefork();
	alloc_prefork(); /* last: the others may still allocate */
}

/* Sampling resumes after the fork unless profiling ended meanwhile (a
 * failure, the program's exit on another thread): those set their flag
 * before they clear enabled, so that one of the two stores of enabled
 * here or there comes last with 0. */
static void
resume_after_fork(void)
{
	if (!paused_for_fork)
		return;
	atomic_store(&prof_state.enabled, 1);
	if (image_ended())
		atomic_store(&prof_state.enabled, 0);
}

static void
postfork_parent(void)
{
	if (--fork_depth > 0 || !fork_ours)
		return;
	fork_ours = 0;
	alloc_postfork_arena(); /* first: the others may allocate */
	appender_postfork_parent();
	offcpu_postfork_parent();
	modules_postfork_parent();
	resume_after_fork();
	pthread_mutex_unlock(&fork_lock);
}

/* The child carries on in a spool of its own (OUTPUT.PID), or unprofiled
 * under --no-follow. */
static void
postfork_child(void)
{
	if (--fork_depth > 0 || !fork_ours)
		return;
	fork_ours = 0;
	pthread_mutex_init(&fork_lock, NULL);
	alloc_postfork_arena(); /* first: the others may allocate */
	appender_postfork_child();
	offcpu_postfork_child();
	modules_postfork_child();
	struct thread_slot *t = threads_postfork_child();
	alloc_postfork_child(t);
	calls_postfork_child(t);
	prof_state.pid = getpid();
	prof_state.cfg.primary = 0;
	for (int i = 0; i < SPOOL_DROP_MAX_; i++)
		atomic_store(&prof_state.drops[i], 0);
	if (!prof_state.cfg.follow || !t || atomic_load(&prof_state.disabled)) {
		prof_state.initialised = 0;
		return;
	}
	prof_state.start_mono_ns = prof_now_ns();
	prof_cpu_ns(&prof_state.base_utime_ns, &prof_state.base_stime_ns);
	prof_image_mark();
	int rc = appender_open();
	if (rc < 0) {
		log_msg("%s.%d: cannot create the spool of a child process (%s); it runs unprofiled",
			prof_state.cfg.output, (int)getpid(), strerror(-rc));
		prof_state.initialised = 0;
		return;
	}
	threads_child_started();
	modules_emit_all();
	if (timer_thread_start(t) < 0 || timer_process_start() < 0 ||
	    offcpu_start() < 0) {
		prof_disable("cannot start sampling in a child process");
		return;
	}
	atomic_store(&prof_state.enabled, 1);
}

/* ---- exec ---- */

/* Before exec: finish the spool, and make sure no sampling signal is
 * pending for this thread or the process, because the new image starts
 * with the default disposition (terminate) until its own constructor runs. */
static int
exec_begin(void)
{
	if (!profiling_here())
		return 0;
	struct thread_slot *t = threads_self();
	if (t)
		timer_thread_stop(t);
	timer_process_stop();
	alloc_finish();
	calls_finish();
	offcpu_stop();
	modules_sync();
	threads_record_cpu();
	appender_finish(SPOOL_END_EXEC, 0);
	sampler_discard_pending();
	masks_exec_begin();
	return 1;
}

/* exec failed: the image goes on, and so does its spool. */
static void
exec_failed(int began)
{
	if (!began)
		return;
	int saved_errno = errno;
	masks_exec_failed();
	struct thread_slot *t = threads_self();
	if (t)
		timer_thread_start(t);
	timer_process_start();
	appender_resume();
	offcpu_start();
	errno = saved_errno;
}


__attribute__((visibility("default"))) int
execve(const char *path, char *const argv[], char *const envp[])
{
	int began = exec_begin();
	int rc = real_execve()(path, argv, envp);
	exec_failed(began);
	return rc;
}

__attribute__((visibility("default"))) int
execv(const char *path, char *const argv[])
{
	int began = exec_begin();
	int rc = real_execv()(path, argv);
	exec_failed(began);
	return rc;
}

__attribute__((visibility("default"))) int
execvp(const char *file, char *const argv[])
{
	int began = exec_begin();
	int rc = real_execvp()(file, argv);
	exec_failed(began);
	return rc;
}

__attribute__((visibility("default"))) int
execvpe(const char *file, char *const argv[], char *const envp[])
{
	int began = exec_begin();
	int rc = real_execvpe()(file, argv, envp);
	exec_failed(began);
	return rc;
}

__attribute__((visibility("default"))) int
execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
	 int flags)
{
	int began = exec_begin();
	int rc = real_execveat()(dirfd, path, argv, envp, flags);
	exec_failed(began);
	return rc;
}

__attribute__((visibility("default"))) int
fexecve(int fd, char *const argv[], char *const envp[])
{
	int began = exec_begin();
	int rc = real_fexecve()(fd, argv, envp);
	exec_failed(began);
	return rc;
}

/* The execl family takes its arguments as a list; glibc's own versions
 * call the internal execve, which a wrapper cannot see, so they are
 * rebuilt here on execve/execvp. */
#define COLLECT_ARGS(first, ap, argv)                                        \
	size_t argc_ = 1;                                                    \
	va_start(ap, first);                                                 \
	while (va_arg(ap, char *))                                           \
		argc_++;                                                     \
	va_end(ap);                                                          \
	char *argv[argc_ + 1];                                               \
	argv[0] = (char *)(first);                                           \
	va_start(ap, first);                                                 \
	for (size_t i_ = 1; i_ <= argc_; i_++)                               \
		argv[i_] = va_arg(ap, char *);

__attribute__((visibility("default"))) int
execl(const char *path, const char *arg, ...)
{
	va_list ap;
	COLLECT_ARGS(arg, ap, argv);
	va_end(ap);
	extern char **environ;
	return execve(path, argv, environ);
}

__attribute__((visibility("default"))) int
execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	COLLECT_ARGS(arg, ap, argv);
	va_end(ap);
	return execvp(file, argv);
}

__attribute__((visibility("default"))) int
execle(const char *path, const char *arg, ...)
{
	va_list ap;
	COLLECT_ARGS(arg, ap, argv);
	char *const *envp = va_arg(ap, char *const *);
	va_end(ap);
	return execve(path, argv, envp);
}

/* ---- exit and _exit ---- */

/* Set by the first thread to finish the image; a later one goes straight
 * to the footer, which waits for the first's (appender_finish). */
static _Atomic int image_finishing;

/* Whether profiling of this image ended for good (a failure, or a thread
 * finishing the image). */
static int
image_ended(void)
{
	return atomic_load(&prof_state.disabled) ||
	       atomic_load(&image_finishing);
}

static void
finish_image(uint32_t end_reason)
{
	if (atomic_exchange(&image_finishing, 1)) {
		appender_finish(end_reason, 0);
		return;
	}
	atomic_store(&prof_state.enabled, 0);
	timer_process_stop();
	threads_stop_all_timers();
	threads_quiesce();
	alloc_finish();
	calls_finish();
	offcpu_stop();
	threads_reap_adopted();
	modules_sync();
	threads_record_cpu();
	appender_finish(end_reason, 0);
}

/* Threads inside exit(). With the C library of Debian 12 (glibc 2.36),
 * a second thread that calls exit() while another runs the exit handlers
 * runs those that are left and ends the process with _exit, which the
 * library does not see (an internal call), cutting the first one's
 * handlers short, ours among them: the footer was lost. So a thread that
 * enters exit() while another is in it finishes the spool first; what
 * the first thread's handlers still do is cut short by its _exit anyway.
 * (A C library whose exit() makes later callers wait would make this one
 * finish the spool early: no sample is taken after, while the first
 * thread's handlers run.) */
static _Atomic int exiting;

__attribute__((visibility("default"), noreturn)) void
exit(int status)
{
	if (atomic_fetch_add(&exiting, 1) > 0 && profiling_here())
		finish_image(SPOOL_END_EXIT);
	real_exit()(status);
	__builtin_unreachable();
}

__attribute__((visibility("default"), noreturn)) void
_exit(int status)
{
	if (profiling_here())
		finish_image(SPOOL_END__EXIT);
	real__exit()(status);
	__builtin_unreachable();
}

__attribute__((visibility("default"), noreturn)) void
_Exit(int status)
{
	if (profiling_here())
		finish_image(SPOOL_END__EXIT);
	real__Exit()(status);
	__builtin_unreachable();
}

/* ---- seccomp ---- */

/* Attaches in flight, and whether attaching is over for good: a thread
 * the program created before it entered seccomp may reach its first code
 * only after, where starting its timer would be refused (end_for_seccomp
 * closes, then waits for those in flight). Each side stores its flag
 * before it reads the other's (seq_cst): a thread attaches only while
 * the closer has not finished waiting. */
static _Atomic int attaching;
static _Atomic int attach_closed;

/* A program that enters seccomp (strict mode, or a filter of its own)
 * may be killed by any system call it did not allow, and the library's
 * (the timers, the spool's writes, the footer at exit) are not on its
 * list. So profiling ends for the whole process before the call takes
 * effect: the spool is finished (end reason seccomp), every timer is
 * stopped, the fatal signals get their default dispositions back, and
 * from then on every wrapper passes straight through (initialised = 0:
 * profiling_here() then makes no system call either). It is not resumed
 * when the call fails. A call that cannot install anything (a filter
 * without a program: the probe libseccomp and others make for EFAULT) is
 * passed on alone. The filter outlives exec and is inherited, so
 * PROF_SPOOL leaves the environment: an image this process or a child
 * execs later (by any means, system() and posix_spawn included) loads
 * the library inert. (unsetenv is no signal handler's: a program that
 * enters seccomp from one while it changes its environment is not
 * covered.) */
static void
end_for_seccomp(void)
{
	if (!profiling_here())
		return;
	int saved_errno = errno;
	atomic_store(&prof_state.disabled, 1); /* no fork resumes sampling */
	/* Before the timers stop: a thread attached meanwhile has one. */
	atomic_store(&attach_closed, 1);
	while (atomic_load(&attaching))
		sched_yield();
	finish_image(SPOOL_END_SECCOMP);
	sampler_discard_pending();
	endings_uninstall();
	alloc_start(0);
	prof_state.initialised = 0;
	unsetenv("PROF_SPOOL");
	log_msg("the program entered seccomp; profiling stopped and the spool "
		"finished");
	errno = saved_errno;
}

/* glibc has no seccomp() function: programs and libseccomp call
 * syscall(SYS_seccomp, ...). Everything else is passed straight on (a
 * program may call syscall() in its own signal handlers: nothing here
 * but the seccomp case does more than compare). The library's own system
 * calls never come here (base/sys.h). Not async-signal-safe for
 * SYS_seccomp, which ends profiling. */
__attribute__((visibility("default"))) long
syscall(long nr, ...)
{
	va_list ap;
	va_start(ap, nr);
	long a1 = va_arg(ap, long);
	long a2 = va_arg(ap, long);
	long a3 = va_arg(ap, long);
	long a4 = va_arg(ap, long);
	long a5 = va_arg(ap, long);
	long a6 = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_seccomp && (a1 == SECCOMP_SET_MODE_STRICT ||
				  (a1 == SECCOMP_SET_MODE_FILTER && a3)))
		end_for_seccomp();
	return sys_call6(nr, a1, a2, a3, a4, a5, a6);
}

/* ---- the perf map ---- */

/* A JIT's perf map is copied into the spool before the program deletes
 * it (perfmap.h): glibc's remove() calls unlink internally, so each of
 * the three is wrapped. */
__attribute__((visibility("default"))) int
unlink(const char *path)
{
	if (profiling_here())
		perfmap_unlinking(AT_FDCWD, path);
	return real_unlink()(path);
}

__attribute__((visibility("default"))) int
unlinkat(int dirfd, const char *path, int flags)
{
	if (!(flags & AT_REMOVEDIR) && profiling_here())
		perfmap_unlinking(dirfd, path);
	return real_unlinkat()(dirfd, path, flags);
}

__attribute__((visibility("default"))) int
remove(const char *path)
{
	if (profiling_here())
		perfmap_unlinking(AT_FDCWD, path);
	return real_remove()(path);
}

/* ---- thread names and seccomp ---- */

__attribute__((visibility("default"))) int
prctl(int option, ...)
{
	va_list ap;
	va_start(ap, option);
	unsigned long a2 = va_arg(ap, unsigned long);
	unsigned long a3 = va_arg(ap, unsigned long);
	unsigned long a4 = va_arg(ap, unsigned long);
	unsigned long a5 = va_arg(ap, unsigned long);
	va_end(ap);
	if (option == PR_SET_SECCOMP && (a2 == SECCOMP_MODE_STRICT ||
					 (a2 == SECCOMP_MODE_FILTER && a3)))
		end_for_seccomp();
	int rc = real_prctl()(option, a2, a3, a4, a5);
	if (rc == 0 && option == PR_SET_NAME && profiling_here()) {
		int saved_errno = errno;
		threads_record_name(pthread_self(), (const char *)a2);
		errno = saved_errno;
	}
	return rc;
}

__attribute__((visibility("default"))) int
pthread_setname_np(pthread_t thread, const char *name)
{
	int rc = real_pthread_setname_np()(thread, name);
	if (rc == 0 && profiling_here())
		threads_record_name(thread, name);
	return rc;
}

/* ---- threads ---- */

/* A new thread's first code: attaches it, then runs the target's start
 * routine. */
static void *
trampoline(void *arg)
{
	struct thread_slot *t = arg;
	void *(*fn)(void *) = t->start_fn;
	void *fn_arg = t->start_arg;
	sigview_inherit(t->start_masked);
	alloc_guard_enter(); /* attach's allocations are not the target's */
	atomic_fetch_add(&attaching, 1);
	if (!atomic_load(&attach_closed)) {
		threads_attach(t);
		/* The wall clock's file for this thread, opened here, in
		 * the program's new thread, rather than later by the
		 * poller. */
		offcpu_thread_started();
	} else {
		atomic_store(&t->state, THREAD_FREE);
	}
	atomic_fetch_sub(&attaching, 1);
	alloc_guard_leave();
	return fn(fn_arg);
}

__attribute__((visibility("default"))) int
pthread_create(pthread_t *thread, const pthread_attr_t *attr,
	       void *(*routine)(void *), void *arg)
{
	real_pthread_create_fn real = real_pthread_create();
	if (!real)
		return EAGAIN;
	if (!atomic_load(&prof_state.enabled) || !profiling_here())
		return real(thread, attr, routine, arg);
	struct thread_slot *t = threads_claim();
	if (!t) {
		prof_drop(SPOOL_DROP_NO_RING);
		return real(thread, attr, routine, arg);
	}
	t->start_fn = routine;
	t->start_arg = arg;
	t->start_masked = sigview_believed();
	int rc = real(thread, attr, trampoline, t);
	if (rc != 0)
		atomic_store(&t->state, THREAD_FREE);
	else
		modules_poll(); /* (not in the new thread: it may be first) */
	return rc;
}

/* ---- the program's own ITIMER_PROF ---- */

/* With the itimer source the library holds the process's one ITIMER_PROF.
 * A program that arms it for itself (a profiler of its own, a CPU-time
 * watchdog) gets it: time sampling stops, with a note, and the program's
 * timer and its SIGPROFs are its own from then on. Until then, the
 * program sees the timer as unarmed, as it was before the library. */
static int
itimer_is_ours(__itimer_which_t which)
{
	return which == ITIMER_PROF && profiling_here() &&
	       prof_state.timer == SPOOL_TIMER_ITIMER;
}

__attribute__((visibility("default"))) int
setitimer(__itimer_which_t which, const struct itimerval *nv,
	  struct itimerval *ov)
{
	real_setitimer_fn real = real_setitimer();
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	if (!itimer_is_ours(which) || !nv)
		return real(which, nv, ov);
	if (ov)
		memset(ov, 0, sizeof(*ov));
	if (!nv->it_value.tv_sec && !nv->it_value.tv_usec)
		return 0; /* disarming what it never armed */
	timer_process_stop();
	prof_state.timer = SPOOL_TIMER_NONE;
	log_msg("the program arms ITIMER_PROF itself; time sampling (--timer=itimer) "
		"stops and leaves it the timer");
	return real(which, nv, NULL);
}

__attribute__((visibility("default"))) int
getitimer(__itimer_which_t which, struct itimerval *cur)
{
	real_getitimer_fn real = real_getitimer();
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	if (!itimer_is_ours(which) || !cur)
		return real(which, cur);
	memset(cur, 0, sizeof(*cur));
	return 0;
}

/* ---- clone ---- */

/* A child the program starts with clone() itself runs without the
 * profiler: a process has no atfork handler run for it (and must not
 * write into its parent's spool: prof_in_image), a thread no slot. It is
 * counted, so that the report can say what it does not cover. The
 * optional arguments are passed on whatever the flags: clone reads only
 * those its flags name. */
__attribute__((visibility("default"))) int
clone(int (*fn)(void *), void *stack, int flags, void *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	pid_t *ptid = va_arg(ap, pid_t *);
	void *tls = va_arg(ap, void *);
	pid_t *ctid = va_arg(ap, pid_t *);
	va_end(ap);
	real_clone_fn real = real_clone();
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	int rc = real(fn, stack, flags, arg, ptid, tls, ctid);
	if (rc > 0 && profiling_here())
		atomic_fetch_add(flags & CLONE_THREAD ? &prof_state.clone_threads
						      : &prof_state.clone_processes,
				 1);
	return rc;
}

/* ---- libunwind's pipe ---- */

/* Where libunwind's descriptors go: above the program's, as the
 * library's others (appender.c, timer.c). */
#define UNWIND_FD_MIN 512

/* libunwind opens a pipe when it sets up (to validate memory in local
 * unwinding, which the library does not use): by the lowest numbers free,
 * where the program expects its own (3 and 4, or 0 and 1 when it was
 * started with stdio closed, so that its write(1) would succeed). Its
 * descriptors are moved above the program's range before libunwind
 * learns their numbers. */
__attribute__((visibility("default"))) int
pipe2(int fds[2], int flags)
{
	real_pipe2_fn real = real_pipe2();
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	int rc = real(fds, flags);
	int starting = unwind_initialising();
	if (rc == 0 && (starting || unwind_active())) {
		/* (While the library starts it is the only thread.) */
		int (*move)(int, int) = starting ? prof_fd_raise_start
						 : prof_fd_raise;
		fds[0] = move(fds[0], UNWIND_FD_MIN);
		fds[1] = move(fds[1], UNWIND_FD_MIN);
		if (fds[0] < 0 || fds[1] < 0) {
			/* No room above the program's numbers: libunwind
			 * goes without (it does not use the pipe here). */
			if (fds[0] >= 0)
				close(fds[0]);
			if (fds[1] >= 0)
				close(fds[1]);
			fds[0] = fds[1] = -1;
			errno = EMFILE;
			return -1;
		}
	}
	return rc;
}

/* ---- dlclose ---- */


__attribute__((visibility("default"))) int
dlclose(void *handle)
{
	int profiling = profiling_here();
	if (profiling)
		modules_unload_begin();
	int rc = real_dlclose()(handle);
	int saved_errno = errno;
	if (profiling)
		modules_unload_end();
	alloc_dlclosed();
	errno = saved_errno;
	return rc;
}

/* ---- constructor and destructor ---- */

__attribute__((constructor)) static void
preload_init(void)
{
	int saved_errno = errno;
	/* What the profiler allocates while it starts is not the target's. */
	alloc_guard_enter();
	if (prof_config_from_env(&prof_state.cfg) <= 0) {
		alloc_start(0);
		alloc_guard_leave();
		errno = saved_errno;
		return;
	}
	prof_state.pid = getpid();
	prof_image_mark();
	atomic_store(&prof_state.enabled, 1);
	if (start() == 0) {
		prof_state.initialised = 1;
		pthread_atfork(prefork, postfork_parent, postfork_child);
		alloc_set_seed(prof_state.cfg.space_seed);
		alloc_start(prof_state.cfg.space_interval);
	} else {
		atomic_store(&prof_state.enabled, 0);
		atomic_store(&prof_state.disabled, 1);
		threads_stop_all_timers();
		alloc_start(0);
	}
	alloc_guard_leave();
	errno = saved_errno;
}

__attribute__((destructor)) static void
preload_fini(void)
{
	int saved_errno = errno;
	if (profiling_here())
		finish_image(SPOOL_END_EXIT);
	errno = saved_errno;
}
