/*
 * report_processes: the --processes listing of the process images a
 * family of spools holds (family.h): each image with its pid, parent,
 * samples, CPU seconds, how it ended, spool and command line, indented
 * by depth in the tree.
 */
#ifndef PROFANALYZE_REPORT_PROCESSES_H
#define PROFANALYZE_REPORT_PROCESSES_H

#include <stdio.h>

#include "family.h"

/* Writes the listing. Write errors are left in out's error flag for the
 * caller. */
void
report_processes_write(FILE *out, const struct family *f);

#endif
