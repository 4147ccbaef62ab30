/*
 * ring: a single-producer, single-consumer byte ring of whole spool records.
 *
 * The producer is one thread (its signal handler, or the thread itself with
 * the handler held off by the thread's busy flag); the consumer is the writer
 * thread. Memory comes from mmap, never from the target's heap. A record that
 * does not fit is refused whole, so the consumer only ever sees whole records.
 */
#ifndef PROFRUN_RING_H
#define PROFRUN_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct ring {
	_Atomic uint64_t head; /* bytes ever produced */
	char pad0[56];
	_Atomic uint64_t tail; /* bytes ever consumed */
	char pad1[56];
	size_t size; /* power of two */
	uint8_t data[];
};

/* Maps a ring of at least size bytes (rounded up to a power of two).
 * Returns NULL on failure. Free with ring_destroy(). */
struct ring *
ring_create(size_t size);

void
ring_destroy(struct ring *r);

/* Appends one record of len bytes. Returns 0, or -ENOSPC when the ring has
 * no room (nothing is written). async-signal-safe */
int
ring_push(struct ring *r, const void *rec, size_t len);

/* Copies whole records, oldest first, into dst until the next one would not
 * fit in cap bytes, and releases them. Returns the bytes copied. Consumer
 * side only. */
size_t
ring_drain(struct ring *r, uint8_t *dst, size_t cap);

/* Discards everything in the ring (consumer side, or a forked child that
 * owns the ring alone). */
void
ring_reset(struct ring *r);

/* Bytes waiting to be drained. */
size_t
ring_used(const struct ring *r);

#endif
