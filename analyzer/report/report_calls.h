/*
 * report_calls: the exact call counts of the malloc family, in the shape
 * of Allegro's show-call-counts: one line per function, the count (with
 * thousands separators, right-aligned) and the function's name, most
 * called first. Counts are exact, not sampled: every call of a wrapped
 * function made by a thread the profiler knew, from its start (or the
 * start of profiling) to its exit or the end of the program.
 */
#ifndef PROFANALYZE_REPORT_CALLS_H
#define PROFANALYZE_REPORT_CALLS_H

#include <stdio.h>

#include "profile.h"

/* Writes the process's counts, then each thread's when there were
 * several. Write errors are left in out's error flag. */
void
report_calls_write(FILE *out, const struct profile *p);

#endif
