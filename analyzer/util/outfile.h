/*
 * outfile: where a report or export goes, written whole or not at all.
 *
 * A named output that is a regular file (or does not exist yet) is
 * written to a fresh temporary file in the same directory and renamed
 * over the name only once everything was written and closed without
 * error; on any failure the temporary file is removed and an existing
 * file of that name is left as it was. A symbolic link to a regular file
 * is followed: the file it names is replaced and the link stays.
 *
 * Nothing but a regular file is ever renamed over or away: a character
 * device (/dev/null, a terminal) or a FIFO is opened and written as it
 * is, like the shell's > does (a FIFO's open waits for a reader), so
 * what was written before an error stays written there; a directory or
 * any other kind of file is refused. Standard output is written directly.
 */
#ifndef PROFANALYZE_OUTFILE_H
#define PROFANALYZE_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

struct outfile {
	FILE *fp;
	const char *path; /* NULL: standard output */
	char *dest;       /* the regular file renamed onto, or NULL */
	char *tmp;        /* the temporary file, NULL unless dest is set */
	bool direct;      /* a device or FIFO, written in place */
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

/* Abandons the output: nothing is left under its name (a device or FIFO
 * keeps what was written to it). */
void
outfile_abort(struct outfile *o);

#endif
