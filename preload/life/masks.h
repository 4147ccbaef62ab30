/*
 * masks: the sampling signal stays deliverable whatever mask the program
 * sets, and the program still sees the mask it set.
 *
 * A thread that blocks the sampling signal would get no samples for as
 * long as it runs that way, and programs do block it without meaning to:
 * liblzma starts its workers with every signal blocked, spawners block
 * all around fork. So the wrappers of sigprocmask and pthread_sigmask take
 * the sampling signal out of what they block and remember, per thread,
 * that the program believes it blocked; the old mask they return, and
 * sigpending's set, say what the program would have seen. A signal of the
 * program's own (kill, its own timer) that arrives while it believes the
 * signal blocked is held back and raised again, with its siginfo, when the
 * program unblocks it. A new thread inherits its creator's belief, and an
 * exec'd image the blocked signal itself (the library of the new image
 * takes it over at start).
 *
 * What the wrappers cannot see still blocks the signal: a mask set with
 * the raw system call, sigsuspend/pselect/ppoll masks (the thread sleeps
 * then), swapcontext. The threads' CPU time in the spool (threads.h) lets
 * the analyzer report the time that went unsampled that way.
 *
 * The belief itself, which the sampling handler reads, is sigview.h's.
 *
 * Layer: life.
 */
#ifndef PROFRUN_MASKS_H
#define PROFRUN_MASKS_H

#include <signal.h>

/* At the library's start, in the main thread: a sampling signal blocked
 * in the mask the image was started with (an exec'ing program that had
 * blocked it) is unblocked, and believed blocked. */
void
masks_start(void);

/* Before exec: what the program believes becomes the real mask (and a
 * held signal pending again), as the new image must inherit it; after a
 * failed exec, back as before. */
void
masks_exec_begin(void);
void
masks_exec_failed(void);

/* The sa_mask of a handler the program installs: the sampling signal is
 * taken out (sampling goes on while the handler runs) and put back into
 * what sigaction reads back. masks_action_in returns what to install: act
 * itself or a copy in *copy. After the real sigaction succeeded,
 * masks_action_out puts the signal back into the old action read back,
 * if the program had it there, and remembers act's. */
const struct sigaction *
masks_action_in(int sig, const struct sigaction *act, struct sigaction *copy);
void
masks_action_out(int sig, const struct sigaction *act, struct sigaction *old);

#endif
