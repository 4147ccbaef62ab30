/*
 * addrset: the set of addresses of sampled blocks that are still live, so
 * that a free of one of them can be recorded.
 *
 * Every free asks whether its pointer is in the set, so the question must
 * cost next to nothing when the answer is no, which is nearly always: a
 * byte per bucket (the number of occupied slots) answers it with one load
 * from a 16 KiB array. Only when that byte is not zero are the bucket's
 * slots compared.
 *
 * The set is lock-free: a bucket is ADDRSET_WAYS slots taken with a
 * compare-and-swap and released with a store. Lookups never leave their
 * bucket, so there are no tombstones and no rehashing; a bucket that is
 * full refuses the address (the caller records the sample as untracked).
 * No two threads ever insert or remove the same address at once: a block
 * is inserted before its allocation returns and removed by the thread
 * that frees it, before the allocator can hand the address out again.
 *
 * A set is a plain zero-initialised object in the library's own memory
 * (static storage), never on the target's heap. All functions are
 * async-signal-safe.
 */
#ifndef PROFRUN_ADDRSET_H
#define PROFRUN_ADDRSET_H

#include <stdatomic.h>
#include <stdint.h>

#define ADDRSET_BUCKET_BITS 14
#define ADDRSET_BUCKETS (1u << ADDRSET_BUCKET_BITS)
#define ADDRSET_WAYS 8

struct addrset {
	_Atomic uint8_t fill[ADDRSET_BUCKETS]; /* occupied slots per bucket */
	_Atomic uint64_t slot[ADDRSET_BUCKETS][ADDRSET_WAYS]; /* 0: free */
};

/* The bucket of an address. Blocks are at least 16-byte aligned, so the
 * low bits carry no information; a multiplicative hash spreads the rest. */
static inline uint32_t
addrset_bucket(uint64_t addr)
{
	return (uint32_t)(((addr >> 4) * 0x9e3779b97f4a7c15ull) >>
			  (64 - ADDRSET_BUCKET_BITS));
}

/* Whether addr may be in the set: false means it certainly is not. The
 * free fast path. */
static inline int
addrset_maybe(const struct addrset *s, uint64_t addr)
{
	return atomic_load_explicit(&s->fill[addrset_bucket(addr)],
				    memory_order_relaxed) != 0;
}

/* Adds addr (not 0, not already in the set). Returns 0, or -ENOSPC when
 * its bucket is full. */
int
addrset_insert(struct addrset *s, uint64_t addr);

/* Removes addr. Returns 1 when it was in the set, 0 when not. */
int
addrset_remove(struct addrset *s, uint64_t addr);

/* Makes addrset_maybe() true for addr for good, without a slot: for
 * addresses a caller wants to see on its slow path (the library's
 * bootstrap blocks) at no cost to the fast path. */
void
addrset_pin(struct addrset *s, uint64_t addr);

/* Number of addresses in the set, pins included (a snapshot, for
 * tests). */
uint32_t
addrset_count(const struct addrset *s);

/* Empties the set. Only while no other thread uses it (a forked child). */
void
addrset_clear(struct addrset *s);

#endif
