/*
 * report: pieces every text report shares: the Allegro-style header that
 * says how many samples were taken and what they represent, and the
 * number formats. The flat report uses them now; the call-graph and
 * outline reports will print the same header.
 */
#ifndef PROFANALYZE_REPORT_H
#define PROFANALYZE_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "profile.h"

/* Seconds of a weight (nanoseconds for time profiles). */
double
report_seconds(uint64_t weight);

/* 100 * part / whole, 0 when whole is 0. */
double
report_pct(uint64_t part, uint64_t whole);

/* Threads the run had: those seen in the spool, or the footer's count
 * when that is larger (threads that never got a record). */
uint64_t
report_threads(const struct profile *p);

/* Formats v with at least one and at most max_decimals decimals, without
 * trailing zeros beyond the first ("1.0", "0.25"). Returns buf. */
const char *
report_fmt_pct(char *buf, size_t len, double v, int max_decimals);

/* Writes the header paragraphs:
 *   Sampling stopped after N samples taken for the time profiler.
 *   Sample represents X seconds of user+system CPU time (out of ...).
 *   Time source / dropped samples / cut stacks.
 * each followed by a blank line. */
void
report_header(FILE *out, const struct profile *p);

/* The closing line about unnamed frames, when there were any. */
void
report_unnamed_note(FILE *out, const struct profile *p);

#endif
