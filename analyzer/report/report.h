/*
 * report: pieces every text report shares: the Allegro-style header that
 * says how many samples were taken and what they represent, and the
 * number formats, shared by the flat, call-graph and outline reports.
 */
#ifndef PROFANALYZE_REPORT_H
#define PROFANALYZE_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "profile.h"

/* Seconds of a weight (nanoseconds for time profiles). */
double
report_seconds(uint64_t weight);

/* A weight in the unit the reports print: seconds for a time profile,
 * Kbytes (1024 bytes) for a space profile. */
double
report_value(const struct profile *p, uint64_t weight);

/* Decimals the reports print report_value() with: 2 for seconds, 0 for
 * Kbytes. */
int
report_value_decimals(const struct profile *p);

/* 100 * part / whole, 0 when whole is 0. */
double
report_pct(uint64_t part, uint64_t whole);

/* The half-width, in percentage points, of the 95 % interval of the
 * share of p's weight that a part of weight part stands for, whose
 * samples' variance contributions add up to part_var (profile.h): the
 * delta method's variance of the ratio of two independent sums,
 *
 *	Var(s) = ((1 - s)^2 part_var + s^2 (var - part_var)) / weight^2,
 *
 * s = part / weight and var, weight the profile's. For n time samples of
 * equal weight it is the binomial s (1 - s) / n. 0 for an empty profile. */
double
report_pct_err(const struct profile *p, uint64_t part, double part_var);

/* Whether the text reports print error bars (--error-bars): set once by
 * main before any report is written. */
extern bool report_error_bars;

/* Threads the run had: those seen in the spool, or the footer's count
 * when that is larger (threads that never got a record). */
uint64_t
report_threads(const struct profile *p);

/* The sampling rate the run delivered, into *hz: samples per second of
 * the CPU time the source samples, as the footer records it: user time
 * for a source of user-mode time only (the perf source), user+system
 * otherwise (the header's "N Hz delivered"). Returns false, leaving *hz
 * alone, when there is none: no footer, no CPU time, or the wall clock
 * (whose samples are not of CPU time). */
bool
report_delivered_hz(const struct profile_header *h, double *hz);

/* Whether thread t of a time profile ran much longer than its samples
 * stand for (its samples' weight under half its CPU time, of 20 periods
 * or more; never with --from/--to, whose samples cover an unknown part
 * of it). *cpu_ns is always set: the CPU time its samples should cover
 * (user mode only when the samples do), 0 when unknown. */
bool
report_thread_unsampled(const struct profile *p, const struct profile_thread *t,
			uint64_t *cpu_ns);

/* Formats v with at least one and at most max_decimals decimals, without
 * trailing zeros beyond the first ("1.0", "0.25"). Returns buf. */
const char *
report_fmt_pct(char *buf, size_t len, double v, int max_decimals);

/* Writes the header paragraphs:
 *   Sampling stopped after N samples taken for the time profiler.
 *   Sample represents X seconds of user+system CPU time (out of ...).
 *   Time source / dropped samples / cut stacks.
 * each followed by a blank line. A space profile says instead how many
 * allocations were sampled, the Kbytes allocated they stand for with the
 * estimate's expected error, what the view shows and how the allocations
 * were sampled. */
void
report_header(FILE *out, const struct profile *p);

/* What goes before a function's label: Allegro's "... " when hidden
 * callees were folded into it, else "". A static string. */
const char *
report_elided_mark(const struct profile_func *f);

/* The closing line about unnamed frames, when there were any. */
void
report_unnamed_note(FILE *out, const struct profile *p);

/* The --threads listing: each thread's id, name, samples and seconds (or
 * bytes, for a space profile), the heaviest first. */
void
report_threads_write(FILE *out, const struct profile *p);

#endif
