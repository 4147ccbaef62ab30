/*
 * stacks: each thread's table of the stacks it has written to the spool,
 * so that a stack seen again is written as a reference (a SAMPLES or
 * ALLOCS entry with the stack's id, profspool(5)) rather than frame by
 * frame.
 * Layer: base. Everything here runs in the sampling signal handler and is
 * async-signal-safe.
 *
 * A table belongs to one thread slot, is mapped by its thread on its
 * first sample and is only ever touched by that thread (its handler, or
 * its malloc wrappers while the handler keeps off: thread_slot.busy), so
 * it needs no lock. It is tied to the slot's spool stream: ids are
 * numbered per stream, and a table whose stream is not the slot's current
 * one (a new thread in the slot, a forked child) is emptied first.
 *
 * Stacks are found by two independent 64-bit hashes of their flags,
 * depth and PCs: the table keeps no PCs (it would be 30 times larger), so
 * two different stacks are taken for one only when both hashes collide,
 * about one chance in 2^120 for a thread's few thousand stacks.
 *
 * A table starts with room for STACKS_FIRST_SLOTS slots in its own page
 * and doubles, into a mapping of its own, when a new stack would fill it
 * past three quarters, up to STACKS_SLOTS: a thread's table costs memory
 * and page faults for the stacks it has, not for the most it could have
 * (a fixed table of STACKS_SLOTS spread a thread's first hundred stacks
 * over a hundred pages, and a fault cost 13 us on the virtual machines
 * this was measured on; BENCHMARKS.md).
 */
#ifndef PROFRUN_STACKS_H
#define PROFRUN_STACKS_H

#include <stdint.h>

#include "spool.h"

/* Slots of a table (a power of two) and the stacks it takes: past that
 * a thread's new stacks are written whole each time (id 0). */
#define STACKS_SLOTS 16384u
#define STACKS_MAX (STACKS_SLOTS / 4 * 3)
#define STACKS_FIRST_SLOTS 128u

struct stacks_table;

/* Where a stack is, or would go, in a table. */
struct stacks_probe {
	uint64_t h1, h2;
	uint32_t slot; /* STACKS_SLOTS: no room */
	uint32_t id;   /* its id, or 0 when the table does not have it */
};

/* The table of a slot for the stream numbered stream (nonzero), mapped
 * (*tabp NULL) or emptied (another stream's) as needed; NULL when it
 * cannot be mapped. async-signal-safe */
struct stacks_table *
stacks_table_for(struct stacks_table **tabp, uint32_t stream);

/* Looks the stack up. When the table does not have it and a new stack
 * would fill it past three quarters, the table grows first (when it
 * cannot, p->slot says there is no room). async-signal-safe */
void
stacks_find(struct stacks_table *tab, uint16_t flags, const uint64_t *pcs,
	    uint32_t depth, struct stacks_probe *p);

/* The slots the table has now (a power of two). async-signal-safe */
uint32_t
stacks_capacity(const struct stacks_table *tab);

/* The id the stack of p would get (0 when there is no room): it is the
 * stack's once stacks_add is called, after its definition is stored in
 * the spool. async-signal-safe */
uint32_t
stacks_next_id(const struct stacks_table *tab, const struct stacks_probe *p);
void
stacks_add(struct stacks_table *tab, const struct stacks_probe *p);

/* The time and weight of the stream's last sample stored (the SAMPLES
 * entries are deltas from them), and their update. async-signal-safe */
void
stacks_last(const struct stacks_table *tab, uint64_t *time_ns,
	    uint64_t *weight);
void
stacks_set_last(struct stacks_table *tab, uint64_t time_ns, uint64_t weight);

/* The values the stream's next ALLOCS entry is encoded against (its
 * previous entry's), for the caller to update once an entry is stored.
 * async-signal-safe */
struct spool_space_chain *
stacks_space_chain(struct stacks_table *tab);

/* A new stream number, unique in this image. async-signal-safe */
uint32_t
stacks_new_stream(void);

#endif
