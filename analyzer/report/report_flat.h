/*
 * report_flat: the Allegro flat profile: functions by the time they were
 * at the top of the stack (self), with their time on the stack (total).
 */
#ifndef PROFANALYZE_REPORT_FLAT_H
#define PROFANALYZE_REPORT_FLAT_H

#include <stdio.h>

#include "profile.h"

struct report_flat_opts {
	/* Functions whose self share is below this percentage are not
	 * listed (0 lists every function, even those never on top). */
	double threshold_pct;
};

/* Writes the report for a finished profile. Write errors are left in
 * out's error flag for the caller. */
void
report_flat_write(FILE *out, const struct profile *p,
		  const struct report_flat_opts *opts);

#endif
