/*
 * report_racket: the call graph as the Racket profiler's text renderer
 * prints it (profile/render-text): a table with one entry per function,
 * labelled [N] from the top, with its total and self time, and its
 * callers and callees referred to by their labels, each with the share
 * of the function's time spent on that edge.
 */
#ifndef PROFANALYZE_REPORT_RACKET_H
#define PROFANALYZE_REPORT_RACKET_H

#include <stdbool.h>
#include <stdio.h>

#include "funcorder.h"
#include "profile.h"

struct report_racket_opts {
	enum funcorder order;
	/* A function is left out when its self time is below hide_self_pct
	 * percent of all time and every caller or callee line that would
	 * name it is below hide_subs_pct percent; lines naming a left-out
	 * function are left out, so no label refers to a missing entry. */
	double hide_self_pct;
	double hide_subs_pct;
};

/* The share of edge e's line in a's entry: a caller line (e ends in a)
 * shows the callee time, a callee line (e starts at a) the caller time,
 * as percentages of a's total. */
double
report_racket_edge_pct(const struct profile *p, uint32_t a,
		       const struct profile_edge *e, bool caller_line);

/* Racket's rule: f is left out when its self time is below self_pct
 * percent of all time and every line that would name it, in its callers'
 * and callees' entries, is below subs_pct percent. The dot export uses
 * the same rule. */
bool
report_racket_hidden(const struct profile *p, uint32_t f, double self_pct,
		     double subs_pct);

/* Writes the report for a finished profile. Write errors are left in
 * out's error flag for the caller. */
void
report_racket_write(FILE *out, const struct profile *p,
		    const struct report_racket_opts *opts);

#endif
