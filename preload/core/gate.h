/*
 * gate: whether samples are taken now. Allegro's start-sampling /
 * stop-sampling, with-profiling and *maxsamples*, for a native program: a
 * nestable pause (the profrun_* API, control.c), a toggle (a signal), a
 * sample limit, the spool's size limit, and a delay and duration
 * measured from the start.
 * Layer: core. Every function is async-signal-safe: the handler and the
 * allocation wrappers ask gate_open() at each sample, so pausing and
 * resuming cost nothing but an atomic. The delay and duration are checked
 * there too, against the monotonic clock: a sample is only ever taken
 * while a thread runs, so no timer or thread of the library's own has to
 * switch sampling on or off at the right moment.
 */
#ifndef PROFRUN_GATE_H
#define PROFRUN_GATE_H

#include <stdatomic.h>

/* Nonzero while paused, toggled off or past a limit: gate_open()
 * without the delay and duration, in one word, for a hook that asks at
 * every call (calls.h). Written by this module only. */
extern _Atomic unsigned gate_shut;

/* async-signal-safe */
static inline unsigned
gate_shut_now(void)
{
	return atomic_load_explicit(&gate_shut, memory_order_relaxed);
}

/* Sets the gate as the configuration says (start paused, toggled off). */
void
gate_init(int paused, int toggled_off);

/* Whether a sample may be taken now. */
int
gate_open(void);

/* Counts a sample taken; at the limit (prof_state.cfg.max_samples), the
 * gate closes for good. */
void
gate_count_sample(void);

/* The spool reached its size limit (reached 1): the gate closes; or a
 * new spool has none of it (0, a forked child's). */
void
gate_size(int reached);

/* One more pause (profrun_stop), one fewer (profrun_start: a start
 * without a pause to end is ignored, so that a later stop still pauses),
 * and the toggle. */
void
gate_pause(void);
void
gate_resume(void);
void
gate_toggle(void);

#endif
