/*
 * profrun.h: control of the profrun sampling profiler from inside the
 * profiled program (Allegro CL's start-sampling / stop-sampling).
 *
 * Link with `pkg-config --libs profrun`. A program using these runs
 * unchanged when it is not started under profrun: the library is then
 * loaded but inert, and every function returns -ENOSYS.
 *
 * Sampling is on while profrun_start() has been called at least as often
 * as profrun_stop() (with `profrun --start-paused`, once more): pauses
 * nest, so a library can pause around its own work without knowing whether
 * the caller did. Pauses apply to the whole process. None of these may be
 * called from a signal handler.
 *
 * Layer: life (the public control API; control.c implements it).
 */
#ifndef PROFRUN_H
#define PROFRUN_H

#ifdef __cplusplus
extern "C" {
#endif

/* Ends one pause (or the initial one of --start-paused); with no pause to
 * end it does nothing. Returns 0, or -ENOSYS when the program is not being
 * profiled. */
int
profrun_start(void);

/* Pauses sampling until the matching profrun_start(). Returns 0 or
 * -ENOSYS. */
int
profrun_stop(void);

/* Everything sampled so far is in the spool when this returns (every
 * record is in the spool file's pages as soon as it is taken, so it has
 * nothing left to do). Returns 0 or -ENOSYS. */
int
profrun_flush(void);

#ifdef __cplusplus
}
#endif

#endif
