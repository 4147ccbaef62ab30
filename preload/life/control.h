/*
 * control: the program's say in when samples are taken: the public API of
 * profrun.h (profrun_start, profrun_stop, profrun_flush) and the toggle
 * signal, both working the gate (gate.h).
 * Layer: life.
 */
#ifndef PROFRUN_CONTROL_H
#define PROFRUN_CONTROL_H

#include <stdint.h>

/* Applies the configuration (start paused, toggle signal, limits).
 * Returns 0 or -errno. */
int
control_init(void);

#endif
