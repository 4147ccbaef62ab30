/*
 * diffrun: --diff (see diffrun.c).
 */
#ifndef PROFANALYZE_DIFFRUN_H
#define PROFANALYZE_DIFFRUN_H

#include <stddef.h>

#include "options.h"

/* --diff: compares o's base runs (o->bases) with the new ones, news[0..
 * nnews), and writes the comparison. Returns the exit status (diff.h:
 * 3 when the gate fails). */
int
diffrun_run(struct options *o, char **news, size_t nnews);

#endif
