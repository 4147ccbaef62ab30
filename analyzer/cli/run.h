/*
 * run: the report of a run of profanalyze (see run.c).
 */
#ifndef PROFANALYZE_RUN_H
#define PROFANALYZE_RUN_H

#include "options.h"
#include "profile.h"

/* Writes the report or export o chose of p, which has its hidden
 * functions collapsed already (but for --call-counts and --threads).
 * Returns the exit status, after an error line when not 0. */
int
run_write_report(const struct options *o, const struct profile *p);

/* Loads o's spools and writes the report o chose (--processes and the
 * annotated functions included; not --follow or --diff). Returns the
 * exit status. */
int
run_report(struct options *o);

#endif
