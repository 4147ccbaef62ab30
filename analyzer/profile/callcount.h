/*
 * callcount: how the reports show exact call counts (the arcs of code
 * compiled with -finstrument-functions; see profile_add_calls): the
 * header line that names the instrumented modules, and the figures of
 * the calls and ms/call columns. A function whose calls were not counted
 * gets blank figures, never a 0: the count is not known.
 */
#ifndef PROFANALYZE_CALLCOUNT_H
#define PROFANALYZE_CALLCOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile.h"

/* Writes the header line that says whose calls were counted exactly
 * (the modules of the counted functions) and how many calls could not
 * be counted; nothing when the profile has no counts. */
void
callcount_header(FILE *out, const struct profile *p);

/* The calls, self ms/call and total ms/call columns of function f of a
 * time profile, as text; empty strings when f was not counted. Each
 * buffer holds len bytes. */
void
callcount_flat_columns(const struct profile *p, uint32_t f, char *calls,
		       char *self_per, char *total_per, size_t len);

/* The call-graph column of function f's own line: its calls, as gprof's
 * "external+recursive" when it called itself; "" when not counted. */
void
callcount_graph_primary(const struct profile *p, uint32_t f, char *buf,
			size_t len);

/* The call-graph column of a parent or child line, the edge e: "n/total",
 * the calls over all calls of its callee; "" when not counted. */
void
callcount_graph_edge(const struct profile *p, const struct profile_edge *e,
		     char *buf, size_t len);

#endif
