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

/* Writes the report for a finished profile. Write errors are left in
 * out's error flag for the caller. */
void
report_racket_write(FILE *out, const struct profile *p,
		    const struct report_racket_opts *opts);

#endif
