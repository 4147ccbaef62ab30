/*
 * threads: one slot per sampled thread, holding its ring, its timer and
 * what the unwinder must know of its stack.
 *
 * Slots live in a fixed table in the library's own memory and are claimed
 * and released with atomics: a slot is CLAIMED by pthread_create (or by the
 * constructor for the main thread), LIVE once its thread runs, EXITED when
 * the thread is gone but its ring may still hold samples, and FREE again
 * once the writer has drained it.
 */
#ifndef PROFRUN_THREADS_H
#define PROFRUN_THREADS_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "ring.h"

#define THREADS_MAX 4096
#define THREADS_RING_SIZE (256 * 1024)

enum thread_state {
	THREAD_FREE = 0,
	THREAD_CLAIMED,
	THREAD_LIVE,
	THREAD_EXITED,
};

struct thread_slot {
	_Atomic int state;            /* enum thread_state */
	_Atomic uint32_t handler_seq; /* odd while a sampling handler runs */
	volatile sig_atomic_t busy;   /* the thread itself is pushing a record */
	pid_t tid;
	struct ring *ring;
	uint64_t stack_lo, stack_hi;  /* 0, 0 when unknown */
	_Atomic int perf_fd;          /* -1 when none */
	_Atomic int has_timer;
	timer_t timer;
	void *(*start_fn)(void *);
	void *start_arg;
};

/* The calling thread's slot, or NULL. async-signal-safe */
struct thread_slot *
threads_self(void);

/* Sets up thread tracking and attaches the calling (main) thread.
 * Returns 0 or -errno. */
int
threads_init(void);

/* The calling thread's last act: stops its timer, records its exit and
 * hands its ring to the writer. */
void
threads_detach_self(void);

/* Appends a record to the calling thread's own ring, outside a signal
 * handler (the handler drops samples while this runs). Returns 0 or
 * -ENOSPC. */
int
threads_push(struct thread_slot *t, const void *rec, size_t len);

/* Slots ever used (a high-water mark) and access to them, for the writer. */
uint32_t
threads_used(void);
struct thread_slot *
threads_slot(uint32_t i);

/* Writer: the EXITED slot t has been drained; free its ring and slot. */
void
threads_release(struct thread_slot *t);

/* Waits until no sampling handler that is running now still runs. */
void
threads_quiesce(void);

/* Stops every thread's timer (process end). */
void
threads_stop_all_timers(void);

/* Starts a thread of the profiler's own with the real pthread_create (it
 * gets no slot and is never sampled). Returns 0 or an error number. */
int
threads_real_create(pthread_t *thread, void *(*fn)(void *));

/* In a forked child: forget every slot but the caller's without touching
 * the parent's timers (their fds are closed here). */
void
threads_after_fork_child(void);

#endif
