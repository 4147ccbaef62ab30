/*
 * endings: finishing the spool when the target is killed by a signal.
 *
 * For each fatal signal whose disposition is the default when profiling
 * starts, a handler finishes the spool (with the signal in the FOOTER) and
 * re-raises the signal with the default disposition, so that the target
 * dies exactly as it would have: same signal, same status, same core dump.
 * The target still sees the default disposition when it asks (sigaction
 * and signal are wrapped), and whatever it installs replaces ours.
 * Layer: life. The fatal handler is async-signal-safe.
 */
#ifndef PROFRUN_ENDINGS_H
#define PROFRUN_ENDINGS_H

#include <signal.h>

/* Installs the fatal-signal handlers where the disposition is SIG_DFL. */
void
endings_install(void);

/* Puts the default disposition back for each fatal signal whose handler
 * is still ours: profiling ended before the process does (seccomp), and
 * a fatal signal must then do what it does without the library, with no
 * system call of ours on the way. */
void
endings_uninstall(void);

#endif
