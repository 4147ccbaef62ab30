/*
 * appender: the spool file, written without a thread of its own.
 * Layer: core.
 *
 * The file is its own buffer (profspool(5), format 2). It is laid out in
 * chunks of APPENDER_CHUNK bytes; each stream (one per sampled thread, and
 * one shared by threads that have none) maps a chunk of the file at a time
 * and appends whole records to it with plain stores. A new chunk is taken
 * with an atomic bump of the file's end, its blocks reserved (fallocate)
 * before it is mapped, so that a store can never fault on a full disk.
 * Nothing waits for a writer: what a thread stored is in the page cache,
 * and a process killed at any moment, SIGKILL included, leaves every
 * record it finished in the file. A record's type is stored last, and a
 * zero type marks the rest of a chunk as unused, so a record cut short by
 * a kill reads as unused space.
 */
#ifndef PROFRUN_APPENDER_H
#define PROFRUN_APPENDER_H

#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <sys/types.h>

#include "spool.h"

#define APPENDER_CHUNK (64u * 1024)

/* One writer's current chunk. All zero: no chunk yet. Only its owner
 * (one thread, its signal handler excluded while the thread appends)
 * touches it. */
struct appender_stream {
	uint8_t *base; /* the chunk, mapped; NULL when none */
	uint64_t off;  /* its offset in the file */
	uint32_t pos;  /* bytes used */
	uint32_t id;   /* the stream's number in SAMPLES records; 0 until
			* the first one (then stacks_new_stream) */
	uint32_t batch; /* offset in the chunk of the SAMPLES or ALLOCS
			 * record that entries are added to, while it is
			 * the chunk's last; 0: none */
};

/* Creates this image's spool (the one profrun prepared, or OUTPUT.PID[.N]
 * for any other process; O_EXCL, no symlink followed, mode 0600) and
 * writes the file header and PROCESS record. Returns 0 or -errno. Not
 * async-signal-safe. */
int
appender_open(void);

/* Path of this image's spool (valid after appender_open). */
const char *
appender_path(void);

/* Appends one whole record of len bytes (at most APPENDER_CHUNK - 16) to
 * s, taking a new chunk when the current one has no room. Returns 0, or
 * -ENOSPC when no chunk could be had, -EFBIG when the spool has reached
 * its size limit (PROF_MAX_SIZE; the caller counts either drop, see
 * appender_drop_cause), -ESRCH
 * in a process that is not the profiled image (a child made by a raw
 * clone() shares the parent's mappings, and must not write into them).
 * async-signal-safe */
int
appender_append(struct appender_stream *s, const void *rec, size_t len);

/* The drop cause (enum spool_drop) of an append that returned rc < 0.
 * async-signal-safe */
static inline uint32_t
appender_drop_cause(int rc)
{
	return rc == -EFBIG ? SPOOL_DROP_MAX_SIZE : SPOOL_DROP_WRITE;
}

/* Appends one SAMPLES entry (spool_encode_entry's len bytes, encoded
 * after the stream's previous sample, of time prev_time and weight
 * prev_weight) for thread tid: to the stream's SAMPLES record when it is
 * the last record of the chunk and the chunk has room, else in a new
 * SAMPLES record (header: tid, s->id, prev_time, prev_weight). A record
 * grows in place without ever being unreadable, even to a reader of a
 * file whose writer was killed in the middle: its length first, so that
 * the new bytes are inside it while still zero (a zero byte ends the
 * entries), then the entry, its first byte last. Counts the sample.
 * Returns as appender_append. async-signal-safe */
int
appender_append_entry(struct appender_stream *s, uint32_t tid,
		      uint64_t prev_time, uint64_t prev_weight,
		      const uint8_t *entry, size_t len);

/* Appends one ALLOCS entry (spool_encode_space_alloc's or
 * spool_encode_space_free's len bytes, encoded against prev) for thread
 * tid, as appender_append_entry does a SAMPLES entry: to the stream's
 * ALLOCS record when it is the chunk's last, else in a new one (header:
 * tid, s->id, prev). Returns as appender_append. async-signal-safe */
int
appender_append_space_entry(struct appender_stream *s, uint32_t tid,
			    const struct spool_space_chain *prev,
			    const uint8_t *entry, size_t len);

/* The stream's thread is leaving: its chunk, when it has room left, goes
 * to a later stream (so that short threads do not each leave a chunk
 * nearly empty). Not async-signal-safe in general; called at thread exit. */
void
appender_close_stream(struct appender_stream *s);

/* Appends a record for a thread that has no stream of its own, through
 * one shared stream under a lock that is only tried: returns 0 or
 * -EBUSY/-ENOSPC (the caller counts the drop). Not async-signal-safe. */
int
appender_shared(const void *rec, size_t len);

/* Gives the shared stream's chunk, when it has room left, to the next
 * stream that needs one (appender_close_stream): after the records the
 * start writes there (the module map), so that a short run's streams
 * share a chunk rather than leave one each nearly empty. Not
 * async-signal-safe: takes the shared stream's lock. */
void
appender_shared_release(void);

/* Writes the FOOTER, with how the image ended (enum spool_end), into a
 * chunk of its own at the file's end, and cuts the file after it (no
 * chunk is taken afterwards, unless appender_resume). The first ending wins; a caller that
 * comes second (another thread ending at the same moment) waits up to a
 * second for the first to have written it, and returns -EALREADY. The
 * spool stays open after SPOOL_END_EXEC (appender_resume carries on after
 * a failed exec). async-signal-safe */
int
appender_finish(uint32_t end_reason, uint32_t end_signal);

/* Sets the function appender_finish calls, once the ending is its
 * caller's and before the footer, to add the records that belong at the
 * image's end (perfmap_copy), or NULL. The hook must be
 * async-signal-safe: a fatal signal ends the image too. */
void
appender_set_finish_hook(void (*hook)(void));

/* Writes len bytes of whole records (at most APPENDER_CHUNK) at the
 * start of a chunk of their own, taken at the file's end; the rest of the
 * chunk reads as unused. For records that are written rarely and in
 * one piece (the perf map's copy): the chunk comes after every chunk
 * taken before, so records written this way one after the other are
 * read in that order. Returns 0, -EFBIG at the size limit, or -errno.
 * async-signal-safe */
int
appender_put_chunk(const void *recs, size_t len);

/* A SIGBUS at addr: when addr is in one of the spool's chunks (its file
 * was cut under the mapping), maps anonymous memory over that chunk, so
 * that the faulting store goes on into memory that is thrown away, marks
 * the spool lost (nothing more is written to it; one line says so) and
 * returns 1; else 0, and the signal is the program's. async-signal-safe */
int
appender_fault(const void *addr);

/* The exec that followed appender_finish(SPOOL_END_EXEC) failed: the image
 * goes on, and a later footer supersedes the first. */
void
appender_resume(void);

/* Sample records appended so far (for the footer). */
uint64_t
appender_samples(void);

/* Fork hooks: the shared stream's lock is held across fork; the child
 * forgets the parent's spool (its chunks are unmapped by
 * appender_forget_stream, called for every stream it inherited). */
void
appender_prefork(void);
void
appender_postfork_parent(void);
void
appender_postfork_child(void);

/* In a forked child: unmaps an inherited stream's chunk without writing
 * to it (it belongs to the parent's file). */
void
appender_forget_stream(struct appender_stream *s);

#endif
