/*
 * outfile: where a report or export goes, written whole or not at all.
 *
 * A named output is written to a fresh temporary file in the same
 * directory and renamed over the name only once everything was written
 * and closed without error; on any failure the temporary file is removed
 * and an existing file of that name is left as it was. Standard output is
 * written directly.
 */
#ifndef PROFANALYZE_OUTFILE_H
#define PROFANALYZE_OUTFILE_H

#include <stdio.h>

struct outfile {
	FILE *fp;
	const char *path; /* NULL: standard output */
	char *tmp;        /* the temporary file, NULL for standard output */
};

/* Opens path (NULL: standard output) for writing. Returns 0, or -1 after
 * one error line naming path. */
int
outfile_open(struct outfile *o, const char *path);

/* Finishes the output: flushes, closes and renames into place. Returns
 * 0, or -1 after one error line naming the output (the temporary file is
 * then removed). */
int
outfile_commit(struct outfile *o);

/* Abandons the output: nothing is left under its name. */
void
outfile_abort(struct outfile *o);

#endif
