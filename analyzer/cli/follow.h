/*
 * follow: --follow (see follow.c).
 */
#ifndef PROFANALYZE_FOLLOW_H
#define PROFANALYZE_FOLLOW_H

#include "options.h"

/* --follow: the report every interval while profrun writes the spool,
 * then the last one once the program has ended. Returns the exit
 * status. */
int
follow_run(struct options *o);

#endif
