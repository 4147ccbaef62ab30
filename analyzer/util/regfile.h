/*
 * regfile: opening the files profanalyze reads, which only regular files
 * may be.
 *
 * Every path the analyzer opens comes from the spool or from the
 * directory beside it: module paths, separate debug files, a child's
 * spool. The profiled program, or anyone who can write there, may have
 * put a FIFO or a device in a file's place. Opening a FIFO for reading
 * waits for a writer, and reading a device may never end, so a file is
 * opened with O_NONBLOCK, checked with fstat and given back only when it
 * is a regular file; nothing else is ever read.
 */
#ifndef PROFANALYZE_REGFILE_H
#define PROFANALYZE_REGFILE_H

#include <sys/stat.h>

/* Opens path for reading (close-on-exec, blocking again) when it is a
 * regular file; *st (may be NULL) gets its fstat. Returns the descriptor,
 * which the caller closes, or -errno: that of open or fstat, -EISDIR for
 * a directory, -EINVAL for anything else that is not a regular file. */
int
regfile_open(const char *path, struct stat *st);

/* The phrase for a warning about regfile_open's error err ("not a
 * regular file" for -EINVAL, else strerror). A static string. */
const char *
regfile_strerror(int err);

#endif
