/*
 * writer: owns the spool file and the writer thread that drains every
 * thread's ring into it. The file is written with write(2) from a static
 * buffer: nothing here touches the target's heap or stdio.
 */
#ifndef PROFRUN_WRITER_H
#define PROFRUN_WRITER_H

#include <stddef.h>
#include <stdint.h>

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

/* Drains every ring into the spool now (profrun_flush). */
void
writer_flush(void);

/* The same for a thread whose ring is full (space samples come faster
 * than the writer's cycle at small intervals), unless another thread is
 * draining already: never waits for the lock. Returns 0, -EBUSY or
 * -EBADF (no spool). */
int
writer_try_flush(void);

/* Asks the writer thread to look at the loaded modules now rather than
 * at its next cycle: a stack walk found a PC in no module it knows (a
 * library loaded since). At most once a millisecond. async-signal-safe */
void
writer_nudge(void);

/* Path of this image's spool (valid after writer_open). */
const char *
writer_path(void);

/* Stops the writer thread, drains everything, writes the FOOTER with how
 * the image ended (enum spool_end) and closes the spool, except for
 * SPOOL_END_EXEC: if the exec fails, writer_resume() carries on in the same
 * file. Safe to call more than once. */
void
writer_finish(uint32_t end_reason, uint32_t end_signal);
void
writer_resume(void);

/* The same from a fatal-signal handler: no join, no blocking lock (waits at
 * most 100 ms for the writer thread to let go of the file).
 * async-signal-safe */
void
writer_finish_from_signal(uint32_t end_reason, uint32_t end_signal);

/* Fork hooks: the locks are held across fork so the child gets them in a
 * known state; the child forgets the parent's spool and writer thread. */
void
writer_prefork(void);
void
writer_postfork_parent(void);
void
writer_postfork_child(void);

#endif
