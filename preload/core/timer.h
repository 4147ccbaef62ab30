/*
 * timer: the sources of the sampling signal.
 *
 *   perf   a perf_event task-clock counter per thread that signals its own
 *          thread on every overflow: hrtimer precision, any rate. Its
 *          first page is mapped, which keeps the event counting and
 *          signalling when the program closes the descriptor (closefrom
 *          before an exec, daemons): no thread is needed to renew it.
 *   posix  timer_create(CLOCK_THREAD_CPUTIME_ID) per thread: checked at the
 *          kernel tick, so rates above CONFIG_HZ come as overruns.
 *   itimer setitimer(ITIMER_PROF): one process-wide timer, tick precision.
 *
 * Each sample is weighted by the CPU time it stands for, so a source that
 * delivers fewer signals than asked (overruns, tick granularity) still gives
 * right totals; the report shows the delivered rate next to the requested.
 *
 * Layer: core. timer_signal_is_ours, timer_sample_weight and
 * timer_close_perf are async-signal-safe; arming and probing are not.
 */
#ifndef PROFRUN_TIMER_H
#define PROFRUN_TIMER_H

#include <signal.h>
#include <stdint.h>

struct thread_slot;

/* Whether the calling thread can use source kind (enum spool_timer) at hz
 * with signal sig. Returns 0 or -errno; nothing stays armed. */
int
timer_probe(int kind, unsigned hz, int sig);

/* Picks the source: the requested one, or for SPOOL_TIMER_NONE the first of
 * perf, posix, itimer that works. Sets prof_state.timer and period_ns.
 * Returns 0 or -errno when the requested source is unavailable. */
int
timer_choose(void);

/* Arms / disarms the per-thread source for thread t (any thread of the
 * process). Return 0 or -errno. */
int
timer_thread_start(struct thread_slot *t);
void
timer_thread_stop(struct thread_slot *t);

/* Closes the thread's perf event (disabled first when disable is set),
 * unless the program has reused its descriptor's number since (after
 * closing it), and unmaps the page that keeps the event alive. A forked
 * child closes its copies of the parent's events without disabling them:
 * they are the parent's events.
 * async-signal-safe */
void
timer_close_perf(struct thread_slot *t, int disable);

/* Process-wide source (itimer): arm and disarm; no-ops for the others. */
int
timer_process_start(void);
void
timer_process_stop(void);

/* Whether si was sent by our timer (and not by kill or another timer).
 * async-signal-safe */
int
timer_signal_is_ours(const siginfo_t *si);

/* Nanoseconds of CPU time the sample taken for si on thread t stands
 * for; with the perf source and jitter, also arms t's event with the next
 * period, drawn at random (fd: t's event, or -1 when not at hand).
 * async-signal-safe */
uint64_t
timer_sample_weight(struct thread_slot *t, int fd, const siginfo_t *si);

/* Whether samples of the perf source come at random intervals (jitter),
 * which the handler must re-arm (timer_sample_weight). */
int
timer_jitters(void);

#endif
