/*
 * report_json: the profile as one JSON object, for programs. The fields
 * are listed in profanalyze(1); every function is included (no threshold)
 * in flat-report order.
 */
#ifndef PROFANALYZE_REPORT_JSON_H
#define PROFANALYZE_REPORT_JSON_H

#include <stdio.h>

#include "profile.h"

/* Writes the JSON document for a finished profile. Write errors are left
 * in out's error flag for the caller. */
void
report_json_write(FILE *out, const struct profile *p);

#endif
