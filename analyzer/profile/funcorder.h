/*
 * funcorder: the order of the entries of the call-graph reports.
 *
 * Topological (the default, as in Racket's profiler): callers before
 * their callees, so a function's entry is near those it calls, and among
 * the functions whose callers are all listed, the heaviest total first.
 * Cycles (recursion through several functions) have no such order; they
 * are broken at the calls that close them in a depth-first walk from the
 * outermost frames, heaviest calls first, so the result depends on the
 * profile only. By self or by total: heaviest first, ties by the other
 * figure, then by label.
 */
#ifndef PROFANALYZE_FUNCORDER_H
#define PROFANALYZE_FUNCORDER_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

enum funcorder {
	FUNCORDER_TOPOLOGICAL,
	FUNCORDER_SELF,
	FUNCORDER_TOTAL,
};

/* The order named by s ("topological", "self", "total"); returns 0, or
 * -EINVAL for another name. */
int
funcorder_parse(const char *s, enum funcorder *out);

/* Ids of the functions on some stack of the finished profile p (hidden
 * ones excluded, markers included) in the given order. Returns a new
 * array the caller frees; *n is its length. */
uint32_t *
funcorder_sort(const struct profile *p, enum funcorder order, size_t *n);

#endif
