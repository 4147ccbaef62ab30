/*
 * masks: the program's view of the sampling signal's mask (see masks.h),
 * and the wrappers that keep it: sigprocmask, pthread_sigmask, sigpending.
 *
 * Layer: life; what may run in a signal handler is marked
 * async-signal-safe, here and in the header.
 */
#include "masks.h"

#include "alloc.h"
#include "real.h"
#include "sampler.h"
#include "sigview.h"
#include "state.h"
#include "unwind.h"
#include "sys.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Signals (bit per number) whose handler the program installed with the
 * sampling signal in its sa_mask. */
static _Atomic unsigned long long action_masked;

static int
watching(void)
{
	/* (The image page, not getpid: no system call per mask change.) */
	return prof_state.initialised && prof_in_image();
}

void
masks_start(void)
{
	sigset_t cur, set;
	int sig = prof_state.cfg.sig;
	if (real_mask(SIG_BLOCK, NULL, &cur) != 0 || sigismember(&cur, sig) != 1)
		return;
	sigemptyset(&set);
	sigaddset(&set, sig);
	if (real_mask(SIG_UNBLOCK, &set, NULL) == 0)
		sigview_inherit(1);
}

void
masks_exec_begin(void)
{
	if (!sigview_believed())
		return;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, prof_state.cfg.sig);
	real_mask(SIG_BLOCK, &set, NULL);
	sigview_release(); /* pending across the exec, blocked */
}

void
masks_exec_failed(void)
{
	if (!sigview_believed())
		return;
	int saved_errno = errno;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, prof_state.cfg.sig);
	/* A signal raised again before the exec arrives now, and the
	 * handler holds it back once more (the belief still stands). */
	real_mask(SIG_UNBLOCK, &set, NULL);
	errno = saved_errno;
}

const struct sigaction *
masks_action_in(int sig, const struct sigaction *act, struct sigaction *copy)
{
	int ours = prof_state.cfg.sig;
	if (!act || sig <= 0 || sig >= 64 || !watching() ||
	    sigismember(&act->sa_mask, ours) != 1)
		return act;
	*copy = *act;
	sigdelset(&copy->sa_mask, ours);
	return copy;
}

void
masks_action_out(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (sig <= 0 || sig >= 64)
		return;
	unsigned long long bit = 1ull << sig;
	if (old && (atomic_load(&action_masked) & bit))
		sigaddset(&old->sa_mask, prof_state.cfg.sig);
	if (act && watching() &&
	    sigismember(&act->sa_mask, prof_state.cfg.sig) == 1)
		atomic_fetch_or(&action_masked, bit);
	else if (act)
		atomic_fetch_and(&action_masked, ~bit);
}

/* Calls real (sigprocmask or pthread_sigmask) with the sampling signal
 * taken out of what it blocks, and keeps the thread's belief. */
static int
change_mask(real_sigprocmask_fn real, int how, const sigset_t *set, sigset_t *old)
{
	/* libunwind's masking around its cache lock is made a no-op
	 * (unwind.h says why it needs none); the profiler's own other calls
	 * (alloc_in_guard) go straight through. */
	if (unwind_active()) {
		if (old)
			sigemptyset(old);
		return 0;
	}
	if (alloc_in_guard() || !watching())
		return real(how, set, old);
	int sig = prof_state.cfg.sig;
	sigset_t copy;
	const sigset_t *pass = set;
	if (set && how != SIG_UNBLOCK && sigismember(set, sig) == 1) {
		copy = *set;
		sigdelset(&copy, sig);
		pass = &copy;
	}
	int rc = real(how, pass, old);
	if (rc != 0)
		return rc;
	int believed = sigview_believed();
	if (old && believed)
		sigaddset(old, sig);
	if (!set)
		return 0;
	int in_set = sigismember(set, sig) == 1;
	sigview_set_believed(how == SIG_BLOCK     ? believed || in_set
			     : how == SIG_UNBLOCK ? believed && !in_set
						  : in_set);
	return 0;
}

__attribute__((visibility("default"))) int
sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	return change_mask(real_sigprocmask(), how, set, old);
}

__attribute__((visibility("default"))) int
pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	return change_mask(real_pthread_sigmask(), how, set, old);
}

/* A thread that blocks the sampling signal where the wrappers cannot see
 * (the raw system call) has the timer's signals pending: those are taken
 * out of the queue before the program looks (one of its own is raised
 * again, sampler.h), and unless one of the program's own was, the answer
 * leaves the signal out: the timer keeps running, and the kernel queues
 * the signal of a counter that overflowed a moment before only on its way
 * back to user space, so a second look could find one again. (A signal
 * of the program's own sent meanwhile stays pending, and the next call
 * reports it, as if it had come just after this one.) */
__attribute__((visibility("default"))) int
sigpending(sigset_t *set)
{
	int sig = prof_state.cfg.sig;
	int rc = real_sigpending()(set);
	sigset_t cur;
	if (rc == 0 && watching() && sigismember(set, sig) == 1 &&
	    real_mask(SIG_BLOCK, NULL, &cur) == 0 && sigismember(&cur, sig) == 1) {
		if (!sampler_discard_pending())
			sigdelset(set, sig);
	}
	if (rc == 0 && sigview_held())
		sigaddset(set, sig);
	return rc;
}
