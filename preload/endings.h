/*
 * endings: finishing the spool when the target is killed by a signal.
 *
 * For each fatal signal whose disposition is the default when profiling
 * starts, a handler finishes the spool (with the signal in the FOOTER) and
 * re-raises the signal with the default disposition, so that the target
 * dies exactly as it would have: same signal, same status, same core dump.
 * The target still sees the default disposition when it asks (sigaction
 * and signal are wrapped), and whatever it installs replaces ours.
 */
#ifndef PROFRUN_ENDINGS_H
#define PROFRUN_ENDINGS_H

#include <signal.h>

/* The C library's sigaction, past the wrapper that keeps the target's view
 * of its dispositions: for the profiler's own changes. async-signal-safe
 * once called once outside a handler. */
int
endings_real_sigaction(int sig, const struct sigaction *act,
		       struct sigaction *old);

/* Installs the fatal-signal handlers where the disposition is SIG_DFL. */
void
endings_install(void);

#endif
