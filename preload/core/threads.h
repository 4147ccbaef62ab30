/*
 * threads: one slot per sampled thread, holding its spool stream, its
 * timer and what the unwinder must know of its stack.
 * Layer: core. threads_self, threads_adopt_self and threads_push are
 * async-signal-safe; the rest runs at thread start and exit, fork and the
 * image's end.
 *
 * Slots live in a fixed table in the library's own memory and are claimed
 * and released with atomics: a slot is CLAIMED by pthread_create (or by the
 * constructor for the main thread), LIVE once its thread runs, and FREE
 * again once the thread has left (its records are in the spool already).
 */
#ifndef PROFRUN_THREADS_H
#define PROFRUN_THREADS_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "appender.h"
#include "spool.h"
#include "stacks.h"
#include "unwind.h"

#define THREADS_MAX 4096
/* Room for the call counters of alloc.c (enum spool_alloc_fn). */
#define THREADS_CALL_COUNTERS 24

/* Room for samples deeper than the buffers on a thread's stack hold
 * (profrun --max-depth above SPOOL_MAX_DEPTH): one set for the sampling
 * handler and one for the space sampler, which the handler may
 * interrupt. Mapped for a slot the first time a thread takes it. */
#define THREADS_DEEP_EXTRA 32 /* the space sampler's own frames, walked
			       * and then dropped (alloc.c) */
struct thread_deep {
	uint64_t handler_pcs[SPOOL_DEPTH_LIMIT];
	uint8_t handler_rec[SPOOL_ENTRY_MAX(SPOOL_DEPTH_LIMIT)]; /* > a SAMPLE */
	uint64_t alloc_raw[SPOOL_DEPTH_LIMIT + THREADS_DEEP_EXTRA];
	uint64_t alloc_pcs[SPOOL_DEPTH_LIMIT];
	uint8_t alloc_rec[SPOOL_SPACE_ENTRY_MAX(SPOOL_DEPTH_LIMIT)]; /* > ALLOC */
};

enum thread_state {
	THREAD_FREE = 0,
	THREAD_CLAIMED,
	THREAD_LIVE,
};

/* What a thread_slot's busy says the thread is doing: the sampling
 * handler that interrupts it takes no sample then (the stream, the table
 * of stacks and, for the space sampler, libunwind's per-thread cache are
 * in use); it defers the sample's time to the space sampler (alloc.c),
 * or, for a plain push, counts the sample dropped (reentrant). */
enum thread_busy {
	THREAD_IDLE = 0,
	THREAD_BUSY_PUSH = 1,  /* appending a record (no unwinding) */
	THREAD_BUSY_SPACE = 2, /* the space sampler: unwinding, appending */
};

/* A thread's slot. One list kept on purpose, as jemalloc's tsd is: it
 * also carries fields of other modules, some above the core (timer.c,
 * stacks.c and altstack.c below or beside it; sampler.c, alloc.c,
 * calls.c and life/preload.c above; each group below names its owner,
 * which alone reads and writes it). The signal
 * handler and the allocation wrappers reach a thread's state through
 * one initial-exec TLS pointer and nothing they can fault on, and a slot
 * is claimed before the thread runs, in memory mapped once: a list of
 * per-module blocks registered at start would cost an indirection and
 * an allocation at thread start on those paths. A module that needs
 * per-thread state adds its group here, saying so. */
struct thread_slot {
	/* threads.c (the core): the slot's life, its thread, its stream. */
	_Atomic int state;            /* enum thread_state */
	_Atomic uint32_t handler_seq; /* odd while a sampling handler runs */
	volatile sig_atomic_t busy;   /* the thread itself is pushing a record:
				       * enum thread_busy */
	/* sampler.c and alloc.c: CPU time of the sampling signals that came
	 * while the space sampler ran (THREAD_BUSY_SPACE), stored by it as a
	 * time sample with the allocation's stack once it is done. */
	_Atomic uint64_t deferred_ns;
	pid_t tid;
	int adopted;                  /* running before the library started */
	_Atomic int bound;            /* an adopted slot its thread has found */
	pthread_t pthread;
	struct appender_stream stream;
	uint64_t stack_lo, stack_hi;  /* 0, 0 when unknown */
	/* timer.c: the thread's timer (perf event or POSIX timer). */
	_Atomic int perf_fd;          /* -1 when none */
	uint64_t perf_id;             /* its PERF_EVENT_IOC_ID (timer.c) */
	void *_Atomic perf_page;      /* its first page, mapped (timer.c) */
	_Atomic int has_timer;
	/* timer.c, perf source with jitter: the period the event counts
	 * now (the weight of its next sample) and the generator of the next
	 * ones. */
	uint64_t armed_ns;
	uint64_t rng;
	uint32_t jitter_left;         /* samples before the next draw */
	timer_t timer;
	/* life/preload.c: what pthread_create hands the new thread. */
	void *(*start_fn)(void *);
	void *start_arg;
	uint64_t cpu_base_ns;         /* its CPU time when this image got it,
				       * and the user-mode part (thread_cpu) */
	uint64_t user_base_ns;
	int start_masked;             /* the creator believed the sampling
				       * signal blocked (masks.h) */
	/* alloc.c: the thread's call counters (in its TLS; NULL once it has
	 * left), what of them the spool already has, and a flag held while
	 * they are written out. */
	uint64_t *_Atomic alloc_calls;
	uint64_t alloc_emitted[THREADS_CALL_COUNTERS];
	_Atomic int alloc_emitting;
	/* calls.c: the thread's call-count table (NULL until its first
	 * counted call, and once it has left), and a flag held while the
	 * table is written out or grown. */
	void *_Atomic calls_table;
	_Atomic int calls_emitting;
	/* alloc.c: the thread's last space sample's stack walk (unwind.h).
	 * Here rather than in TLS, where 2 KiB would leave a library that
	 * links libprofrun.so no room to be dlopen'ed (static TLS); the pages
	 * of slots no thread samples in are never touched. */
	struct unwind_memo memo;
	/* NULL unless --max-depth asks for more than SPOOL_MAX_DEPTH and
	 * the mapping could be made (then samples stop at that depth). */
	struct thread_deep *deep;
	/* stacks.c: the stacks this slot's thread has written, mapped by
	 * the thread at its first sample and kept for the slot's later
	 * threads (emptied for each). */
	struct stacks_table *stacks;
	/* altstack.c: the alternate signal stack of the slot's threads
	 * that have none of their own, mapped for the first and kept for
	 * the later ones (NULL until then). */
	void *altstack;
};

/* The calling thread's slot, or NULL. async-signal-safe */
struct thread_slot *
threads_self(void);

/* The table of the stacks t's thread has written in its current stream
 * (numbered on first use), or NULL when it cannot be mapped. Called by t's
 * own thread only. async-signal-safe */
struct stacks_table *
threads_stacks(struct thread_slot *t);

/* What the layers above do when a thread joins or leaves: attached runs
 * in the thread, once its slot is set up and before its start is
 * recorded; leaving in the thread, at its exit, before its exit is
 * recorded (the space sampler's call counts go out then). */
struct threads_hooks {
	void (*attached)(struct thread_slot *t);
	void (*leaving)(struct thread_slot *t);
};

/* Sets up thread tracking with hooks and attaches the calling (main)
 * thread. Returns 0 or -errno. */
int
threads_init(const struct threads_hooks *hooks);

/* Claims a free slot for a thread about to be created, or NULL. */
struct thread_slot *
threads_claim(void);

/* Attaches the calling thread, a new one, to the slot claimed for it:
 * its stream, stack, timer and start record. On failure the slot is
 * released and the thread runs unsampled. Returns 0 or -errno. */
int
threads_attach(struct thread_slot *t);

/* For a thread that has no slot of its own yet (one that was running
 * before the library started): finds the slot adopted for it, makes it
 * the thread's own and learns its stack from the mapping that holds sp.
 * Returns the slot or NULL. async-signal-safe */
struct thread_slot *
threads_adopt_self(uint64_t sp);

/* Notices adopted threads that have exited (they have no pthread key
 * destructor to tell us), at the image's end. */
void
threads_reap_adopted(void);

/* Records the CPU time in this image of every thread still running (at
 * the image's end), so that the analyzer can tell the time it did not
 * sample. */
void
threads_record_cpu(void);

/* The calling thread's last act: stops its timer, records its exit and
 * closes its stream. */
void
threads_detach_self(void);

/* Appends a record to the calling thread's own stream, outside a signal
 * handler (the handler drops samples while this runs). Returns 0 or
 * -ENOSPC (the drop is counted). async-signal-safe */
int
threads_push(struct thread_slot *t, const void *rec, size_t len);

/* Appends a record from any thread outside a signal handler: to its own
 * stream when it has a slot, else to the shared one. Returns 0 or a
 * negative error (the drop is counted). */
int
threads_emit(const void *rec, size_t len);

/* Slots ever used (a high-water mark) and access to them. */
uint32_t
threads_used(void);
struct thread_slot *
threads_slot(uint32_t i);

/* Odd while a thread of the profiler's own (offcpu.c) walks another
 * thread's stack outside any handler; threads_quiesce() waits for it as
 * for a handler. */
extern _Atomic uint32_t threads_walker_seq;

/* Waits until no sampling handler (nor stack walker) that is running now
 * still runs. */
void
threads_quiesce(void);

/* Stops every thread's timer (process end). */
void
threads_stop_all_timers(void);

/* In a forked child: forget every slot but the caller's (the only thread
 * the child has), unmap every stream (they are the parent's spool's) and
 * close the descriptors of the parent's timers. Returns the caller's slot,
 * or NULL. */
struct thread_slot *
threads_postfork_child(void);

/* In a forked child whose spool is open: records its one thread's start. */
void
threads_child_started(void);

/* Records that thread (or the calling thread, when it is pthread_self())
 * is now called name. */
void
threads_record_name(pthread_t thread, const char *name);

#endif
