/*
 * sigview: what the program believes of the sampling signal on each of
 * its threads, which the sampling handler needs (masks.h says why the
 * program's mask and its belief differ).
 *
 * The wrappers that keep the belief (sigprocmask, pthread_sigmask,
 * sigpending: masks.c) are process life; the handler that holds a
 * signal of the program's own back while the program believes it
 * blocked is an event source. The belief lives here, in the core, below
 * both, so that neither calls the other.
 *
 * Layer: core. Per-thread state, initial-exec TLS.
 */
#ifndef PROFRUN_SIGVIEW_H
#define PROFRUN_SIGVIEW_H

#include <signal.h>

/* For the sampling handler, given a signal our timer did not send:
 * returns 1 when the program believes the signal blocked on this thread,
 * after keeping it (one, as a blocked signal stays pending once) to raise
 * again when the program unblocks it; 0 when the program's disposition
 * should have it now. async-signal-safe */
int
sigview_hold(const siginfo_t *si);

/* The calling thread's belief: 1 when the program blocked the sampling
 * signal. async-signal-safe */
int
sigview_believed(void);

/* Sets the calling thread's belief; a belief that ends raises the held
 * signal again (sigview_release). */
void
sigview_set_believed(int believed);

/* A new thread's start: it takes over its creator's belief (as the
 * kernel hands a new thread its creator's mask) and holds nothing. */
void
sigview_inherit(int believed);

/* Whether a signal of the program's own is held on this thread. */
int
sigview_held(void);

/* Raises the held signal again, if any: to this thread, with its siginfo
 * (allowed for a thread of the caller's own process whatever the
 * si_code). */
void
sigview_release(void);

#endif
