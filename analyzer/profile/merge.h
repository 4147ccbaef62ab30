/*
 * merge: several profiles (one per process image: the spools of a
 * process tree, or several spools named on the command line) as one.
 *
 * The same function in two processes is one function of the merged
 * profile: functions are matched by module path, name, address and
 * source position. Each sample is added again with its stack, so the
 * calling-context tree, the call graph and every per-function figure are
 * those of all the samples together. Threads are matched by thread id (an
 * exec'd image keeps its process's main thread).
 *
 * The header describes the first profile (its process, timer and clock)
 * with the counts of all: samples, weights, CPU time, drops and damage
 * are sums; the run counts as complete only when every spool is. For
 * space profiles the byte estimates add up, as do their variances (the
 * processes sample independently); a peak view sums each process's own
 * peak, which need not have happened at the same moment.
 */
#ifndef PROFANALYZE_MERGE_H
#define PROFANALYZE_MERGE_H

#include <stddef.h>

#include "profile.h"

/* A new, finished profile with everything of the n finished profiles ps,
 * which must all be of one kind. The caller frees it. */
struct profile *
merge_profiles(struct profile *const *ps, size_t n);

#endif
