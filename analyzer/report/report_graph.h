/*
 * report_graph: Allegro's call graph (show-call-graph): one entry per
 * function between dashed lines, with the functions that called it
 * (parents) above and those it called (children) below.
 */
#ifndef PROFANALYZE_REPORT_GRAPH_H
#define PROFANALYZE_REPORT_GRAPH_H

#include <stdio.h>

#include "funcorder.h"
#include "profile.h"

struct report_graph_opts {
	enum funcorder order;
	/* Entries whose total is below this percentage of all samples are
	 * left out (*significance-threshold*). */
	double threshold_pct;
	/* Parent and child lines below this percentage of the entry's
	 * total are left out (*fractional-significance-threshold*). */
	double fractional_pct;
};

/* Writes the report for a finished profile. Write errors are left in
 * out's error flag for the caller. */
void
report_graph_write(FILE *out, const struct profile *p,
		   const struct report_graph_opts *opts);

#endif
