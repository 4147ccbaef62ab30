/*
 * sampler: the sampling signal's handler. It takes one CPU-time sample of
 * the interrupted thread: unwinds from the signal context and appends a
 * SAMPLE record to the thread's stream of the spool. No malloc, no
 * lock, no stdio.
 *
 * Layer: event sources. The handler is async-signal-safe; installing it
 * is not.
 */
#ifndef PROFRUN_SAMPLER_H
#define PROFRUN_SAMPLER_H

#include <signal.h>

/* Installs the handler for the configured signal, keeping the previous
 * disposition for signals that are not ours. Returns 0 or -errno. */
int
sampler_install(void);

/* The target's own sigaction() for the sampling signal: its handler does
 * not replace ours but becomes the one that gets the signals our timer did
 * not send (kill, its own timers), and it reads back what it installed.
 * Returns 0. */
int
sampler_sigaction(const struct sigaction *act, struct sigaction *old);

/* Takes every sampling signal pending for the calling thread or the process
 * out of the queue (before exec, whose new image would die of one); one of
 * the target's own is raised again. Returns whether one was. */
int
sampler_discard_pending(void);

#endif
