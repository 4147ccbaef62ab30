/*
 * addrset: the set of addresses of sampled blocks that are still live, so
 * that a free of one of them can be recorded.
 *
 * Every free asks whether its pointer is in the set, so the question must
 * cost next to nothing when the answer is no, which is nearly always. A
 * filter answers it: a byte for each value of the address's bits 4 to 17
 * (blocks are at least 16-byte aligned), counting the members with those
 * bits. The index is a shift and a mask, nothing more: in a loop of small
 * malloc/free pairs (about 6 ns a pair), a multiplicative hash here cost
 * several percent more than the shift (BENCHMARKS.md, "Space
 * profiling"). Only when the byte is not zero are the slots looked at.
 *
 * The slots are a separate table, bucketed by a multiplicative hash of the
 * whole address, so that its capacity does not depend on how addresses
 * fall on the filter: page-aligned blocks and mmapped chunks, whose bits 4
 * to 11 are all alike, share 64 filter bytes (a free of another block with
 * those bits merely takes the slow path) but spread over all the buckets.
 * A filter byte that reaches 255 stays there: it can no longer say no,
 * which costs speed, never a lost free.
 *
 * The set is lock-free: a bucket is ADDRSET_WAYS slots taken with a
 * compare-and-swap and released with a store; the filter is counted up
 * after a slot is taken and down after it is released, so it never says
 * "no" for a member. Lookups never leave their bucket, so there are no
 * tombstones and no rehashing; a bucket that is full refuses the address
 * (the caller records the sample as untracked). No two threads ever
 * insert or remove the same address at once: a block is inserted before
 * its allocation returns and removed by the thread that frees it, before
 * the allocator can hand the address out again.
 *
 * A set is a plain zero-initialised object in the library's own memory
 * (static storage), never on the target's heap. All functions are
 * async-signal-safe.
 *
 * Layer: base. Every function is async-signal-safe.
 */
#ifndef PROFRUN_ADDRSET_H
#define PROFRUN_ADDRSET_H

#include <stdatomic.h>
#include <stdint.h>

#define ADDRSET_FILTER_BITS 14
#define ADDRSET_FILTER (1u << ADDRSET_FILTER_BITS)
#define ADDRSET_BUCKET_BITS 14
#define ADDRSET_BUCKETS (1u << ADDRSET_BUCKET_BITS)
#define ADDRSET_WAYS 8
/* A filter byte at this count stays there for good. */
#define ADDRSET_STICKY 255

struct addrset {
	/* members (and pins) by filter index; ADDRSET_STICKY: many */
	_Atomic uint8_t filter[ADDRSET_FILTER];
	_Atomic uint64_t slot[ADDRSET_BUCKETS][ADDRSET_WAYS]; /* 0: free */
};

/* The filter byte of an address: its bits 4 to 17. async-signal-safe */
static inline uint32_t
addrset_filter_index(uint64_t addr)
{
	return (uint32_t)(addr >> 4) & (ADDRSET_FILTER - 1);
}

/* The bucket of an address's slots: a multiplicative hash of all its bits
 * above the 16-byte alignment, for an even spread whatever the pattern.
 * async-signal-safe */
static inline uint32_t
addrset_bucket(uint64_t addr)
{
	return (uint32_t)(((addr >> 4) * 0x9e3779b97f4a7c15ull) >>
			  (64 - ADDRSET_BUCKET_BITS));
}

/* Whether addr may be in the set: false means it certainly is not. The
 * free fast path: a shift, a mask and a byte compared with zero in
 * memory. A relaxed atomic load would be a load and a test, one
 * instruction more on every free (GCC does not fold an atomic load into
 * a compare); on x86-64 the compare reads the byte in one access, which
 * is all a relaxed load promises. async-signal-safe */
static inline int
addrset_maybe(const struct addrset *s, uint64_t addr)
{
	const _Atomic uint8_t *b = &s->filter[addrset_filter_index(addr)];
#if defined(__x86_64__) && defined(__GCC_ASM_FLAG_OUTPUTS__)
	int nonzero;
	__asm__("cmpb $0, %1" : "=@ccnz"(nonzero) : "m"(*(const uint8_t *)b));
	return nonzero;
#else
	return atomic_load_explicit(b, memory_order_relaxed) != 0;
#endif
}

/* Adds addr (not 0, not already in the set). Returns 0, or -ENOSPC when
 * its bucket is full. */
int
addrset_insert(struct addrset *s, uint64_t addr);

/* Removes addr. Returns 1 when it was in the set, 0 when not. */
int
addrset_remove(struct addrset *s, uint64_t addr);

/* Makes addrset_maybe() true for addr without a slot, until
 * addrset_unpin(): for addresses a caller wants to see on its slow path
 * (the blocks of the library's own arena) at no cost to the fast path.
 * Pins of the same address add up. */
void
addrset_pin(struct addrset *s, uint64_t addr);

/* Takes back one addrset_pin() of addr. */
void
addrset_unpin(struct addrset *s, uint64_t addr);

/* Number of addresses in the slots, pins not included (a snapshot, for
 * tests). */
uint32_t
addrset_count(const struct addrset *s);

/* Removes every address from the slots and leaves the pins: in a forked
 * child, the parent's sampled blocks are no longer to be recorded, but
 * the arena's blocks are still the library's. Only while no other thread
 * uses the set. */
void
addrset_clear_members(struct addrset *s);

#endif
