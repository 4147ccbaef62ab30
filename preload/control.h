/*
 * control: when sampling is on. Allegro's start-sampling / stop-sampling,
 * with-profiling and *maxsamples*, for a native program: a nestable pause
 * through the public API (profrun.h), a toggle signal, a sample limit, and
 * a delay and duration measured from the start.
 *
 * The timers keep running while sampling is paused; the handler only asks
 * control_sampling() whether to take the sample, so pausing and resuming
 * cost nothing but an atomic. The delay and duration are checked there
 * too, against the monotonic clock: a sample is only ever taken while a
 * thread runs, so no timer or thread of our own has to switch sampling on
 * or off at the right moment.
 * Layer: process life (the public API); control_sampling and
 * control_count_sample are async-signal-safe.
 */
#ifndef PROFRUN_CONTROL_H
#define PROFRUN_CONTROL_H

#include <stdint.h>

/* Applies the configuration (start paused, toggle signal, limits).
 * Returns 0 or -errno. */
int
control_init(void);

/* Whether the handler should take a sample now. async-signal-safe */
int
control_sampling(void);

/* Counts a sample taken; at the limit, sampling stops for good.
 * async-signal-safe */
void
control_count_sample(void);


#endif
