/*
 * fuzzdir: the scratch directory of one fuzzing process.
 *
 * The harnesses that need files (the analyzer reads spools and ELF files
 * by path) write them into one directory per process, made under $TMPDIR
 * (or /tmp) on first use and removed with everything in it at exit. Each
 * execution rewrites the same few files, so a long run leaves nothing
 * behind; a run killed by a crash leaves its directory for inspection.
 */
#ifndef PROFRUN_FUZZDIR_H
#define PROFRUN_FUZZDIR_H

#include <stddef.h>

/* The directory's absolute path, made on the first call (aborts when it
 * cannot be). Static; valid until exit. */
const char *
fuzzdir_path(void);

/* name inside the directory: a new string the caller frees. */
char *
fuzzdir_file(const char *name);

/* Writes len bytes of data to the file name in the directory, replacing
 * it. Aborts on failure: a harness that cannot write its input tests
 * nothing. */
void
fuzzdir_write(const char *name, const void *data, size_t len);

/* Copies the file at src into the directory as name (aborts on failure). */
void
fuzzdir_copy(const char *src, const char *name);

/* The lowest free file descriptor. Comparing it before and after an
 * execution finds a descriptor the code under test leaked. */
int
fuzzdir_lowest_free_fd(void);

/* Aborts, naming what, when the lowest free descriptor is not before:
 * every execution must close what it opened, or a long run dies of
 * EMFILE far from the leak. */
void
fuzzdir_check_fds(int before, const char *what);

#endif
