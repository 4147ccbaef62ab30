/*
 * writer: owns the spool file and the writer thread that drains every
 * thread's ring into it. The file is written with write(2) from a static
 * buffer: nothing here touches the target's heap or stdio.
 */
#ifndef PROFRUN_WRITER_H
#define PROFRUN_WRITER_H

#include <stddef.h>

/* Creates the spool at prof_state.cfg.spool_path (O_EXCL, no symlinks
 * followed, mode 0600) and writes the file header and PROCESS record.
 * Returns 0 or -errno. */
int
writer_open(void);

/* Starts the writer thread (all signals blocked in it). Returns 0 or
 * -errno. */
int
writer_start(void);

/* Queues a whole record from any thread except inside a signal handler
 * (module and control records). */
void
writer_control(const void *rec, size_t len);

/* Stops the writer thread, drains everything, writes the FOOTER and closes
 * the spool. Safe to call more than once. */
void
writer_finish(void);

/* In a forked child: drop the parent's spool without writing to it. */
void
writer_after_fork_child(void);

#endif
