/*
 * endings: fatal-signal handlers and the sigaction/signal wrappers that
 * keep them invisible (see endings.h). The handler is async-signal-safe.
 *
 * A fault (SIGSEGV, SIGBUS, SIGILL, SIGFPE raised by the faulting
 * instruction) is re-raised by returning: the handler has restored the
 * default disposition, so the instruction faults again and the kernel acts
 * as it would have without us (core dump included). Any other signal is
 * re-sent to the thread with tgkill once the default disposition is back.
 *
 * Layer: life; what may run in a signal handler or inside malloc
 * is marked async-signal-safe, here and in the header.
 */
#include "endings.h"

#include "alloc.h"
#include "altstack.h"
#include "sampler.h"
#include "threads.h"
#include "state.h"
#include "unwind.h"
#include "appender.h"
#include "masks.h"
#include "real.h"
#include "sys.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static const int fatal_signals[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE,
	SIGUSR1, SIGSEGV, SIGUSR2, SIGPIPE, SIGALRM, SIGTERM, SIGXCPU,
	SIGXFSZ, SIGSYS,
};

/* Signals whose current disposition is our handler (bit per signal). */
static _Atomic unsigned long long ours;

static int
is_ours(int sig)
{
	return sig > 0 && sig < 64 && (atomic_load(&ours) >> sig) & 1;
}

/* async-signal-safe */
static int
is_fault(int sig, const siginfo_t *si)
{
	return (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL ||
		sig == SIGFPE) && si->si_code > 0;
}

/* async-signal-safe */
static void
fatal_handler(int sig, siginfo_t *si, void *uc);

/* Puts the default disposition of sig back, unless the program installed
 * one of its own meanwhile. async-signal-safe */
static void
restore_default(int sig)
{
	struct sigaction cur, dfl;
	if (real_sigaction()(sig, NULL, &cur) == 0 &&
	    (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == fatal_handler) {
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		real_sigaction()(sig, &dfl, NULL);
	}
	atomic_fetch_and(&ours, ~(1ull << sig));
}

/* The stack the footer needs below the fatal handler's frame: 7.7 KiB
 * were measured (altstack.h: 11.0 KiB with the kernel's 3.3 KiB signal
 * frame, at a stack overflow, SIGABRT, SIGTERM, SIGINT), and a quarter
 * more. The handler
 * runs on the library's alternate stack, or on one the program set: with
 * less room there (SIGSTKSZ is 8 KiB) the footer is not written, and the
 * program still dies of its signal. */
#define ENDINGS_ROOM (10 * 1024)

/* async-signal-safe */
static int
room_for_footer(void)
{
	struct thread_slot *t = threads_self();
	uintptr_t here = (uintptr_t)__builtin_frame_address(0);
	return (t ? altstack_room(t->altstack, t->stack_lo, t->stack_hi, here)
		  : altstack_room(NULL, 0, 0, here)) >= ENDINGS_ROOM;
}

/* The disposition stays ours until the footer is written (no
 * SA_RESETHAND): other threads faulting at the same moment come here
 * too, and wait for the footer in appender_finish, where with the default
 * disposition back their fault would end the process before it. */
static void
fatal_handler(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	int saved_errno = errno;
	/* A store of ours into a chunk whose file was cut: not the
	 * program's fault, and not fatal. */
	if (sig == SIGBUS && si->si_code > 0 && appender_fault(si->si_addr))
		return;
	if (prof_state.initialised && getpid() == prof_state.pid &&
	    room_for_footer()) {
		atomic_store(&prof_state.enabled, 0);
		appender_finish(SPOOL_END_SIGNAL, (uint32_t)sig);
	}
	restore_default(sig);
	errno = saved_errno;
	if (is_fault(sig, si))
		return;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, sig);
	real_mask(SIG_UNBLOCK, &set, NULL);
	sys_call(SYS_tgkill, getpid(), gettid(), sig);
}

void
endings_install(void)
{
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++) {
		int sig = fatal_signals[i];
		struct sigaction old, sa;
		if (sig == prof_state.cfg.sig ||
		    real_sigaction()(sig, NULL, &old) < 0 ||
		    (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = fatal_handler;
		sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESTART | SA_ONSTACK;
		sigfillset(&sa.sa_mask);
		if (real_sigaction()(sig, &sa, NULL) == 0)
			atomic_fetch_or(&ours, 1ull << sig);
	}
}

/* The SIGBUS handler the program installed, which bus_trampoline stands
 * in for: a store of the library's into a chunk whose file was cut
 * raises SIGBUS too, and must not reach it (appender_fault). */
static struct sigaction bus_prog;

/* async-signal-safe */
static void
bus_trampoline(int sig, siginfo_t *si, void *uc)
{
	if (si->si_code > 0 && appender_fault(si->si_addr))
		return;
	if (bus_prog.sa_flags & SA_SIGINFO)
		bus_prog.sa_sigaction(sig, si, uc);
	else
		bus_prog.sa_handler(sig);
}

/* act, or for a SIGBUS handler of the program's, the same action with
 * bus_trampoline in its place (in *copy); *prev: what bus_prog was. */
static const struct sigaction *
bus_action_in(int sig, const struct sigaction *act, struct sigaction *copy,
	      struct sigaction *prev)
{
	*prev = bus_prog;
	if (sig != SIGBUS || !act ||
	    (!(act->sa_flags & SA_SIGINFO) &&
	     (act->sa_handler == SIG_DFL || act->sa_handler == SIG_IGN)))
		return act;
	bus_prog = *act;
	*copy = *act;
	copy->sa_sigaction = bus_trampoline;
	copy->sa_flags |= SA_SIGINFO;
	return copy;
}

/* The program sees its own handler where bus_trampoline stands. */
static void
bus_action_out(int sig, struct sigaction *old, const struct sigaction *prev)
{
	if (sig == SIGBUS && old && (old->sa_flags & SA_SIGINFO) &&
	    old->sa_sigaction == bus_trampoline)
		*old = *prev;
}

void
endings_uninstall(void)
{
	for (int sig = 1; sig < 64; sig++)
		if (is_ours(sig))
			restore_default(sig);
}

/* For a fatal signal, the target sees SIG_DFL where our handler stands in
 * for it, and what it installs replaces ours. For the sampling signal, what
 * it installs gets the signals our timer did not send (sampler.h). */
__attribute__((visibility("default"))) int
sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (sig == prof_state.cfg.sig && prof_state.initialised &&
	    getpid() == prof_state.pid)
		return sampler_sigaction(act, old);
	struct sigaction copy, bus_copy, bus_prev;
	const struct sigaction *pass = masks_action_in(sig, act, &copy);
	pass = bus_action_in(sig, pass, &bus_copy, &bus_prev);
	if (!is_ours(sig)) {
		int rc = real_sigaction()(sig, pass, old);
		if (rc == 0) {
			bus_action_out(sig, old, &bus_prev);
			masks_action_out(sig, act, old);
		} else if (sig == SIGBUS) {
			bus_prog = bus_prev;
		}
		return rc;
	}
	struct sigaction prev;
	int rc = real_sigaction()(sig, pass, &prev);
	if (rc != 0 && sig == SIGBUS)
		bus_prog = bus_prev;
	if (rc == 0)
		masks_action_out(sig, act, NULL);
	if (rc == 0 && act)
		atomic_fetch_and(&ours, ~(1ull << sig));
	if (rc == 0 && old) {
		memset(old, 0, sizeof(*old));
		old->sa_handler = SIG_DFL;
	}
	return rc;
}

__attribute__((visibility("default"))) sighandler_t
signal(int sig, sighandler_t handler)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART; /* BSD semantics, as glibc's signal() */
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, sig);
	if (sigaction(sig, &sa, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}
