/*
 * sampler: the sampling signal's handler. It takes one CPU-time sample of
 * the interrupted thread: unwinds from the signal context and appends a
 * SAMPLE record to the thread's stream of the spool. No malloc, no
 * lock, no stdio.
 *
 * Layer: sources. The handler is async-signal-safe; installing it
 * is not.
 */
#ifndef PROFRUN_SAMPLER_H
#define PROFRUN_SAMPLER_H

#include <signal.h>
#include <stdint.h>

struct thread_slot;

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

/* Stores a time sample of weight nanoseconds with stack pcs (depth
 * frames, SPOOL_SAMPLE_* flags) in t's stream: the time the handler
 * deferred while the space sampler ran (t->deferred_ns), given the
 * allocation's stack. The caller is t's thread with t->busy set; buf
 * holds at least SPOOL_ENTRY_MAX(depth) bytes. The sample is counted, or
 * its drop is. async-signal-safe */
void
sampler_store_time(struct thread_slot *t, uint64_t weight,
		   const uint64_t *pcs, uint32_t depth, uint16_t flags,
		   uint8_t *buf, size_t cap);

/* Takes every sampling signal pending for the calling thread or the process
 * out of the queue (before exec, whose new image would die of one); one of
 * the target's own is raised again. Returns whether one was. */
int
sampler_discard_pending(void);

#endif
