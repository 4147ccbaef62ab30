/*
 * addrset: the lock-free set of sampled addresses (see addrset.h).
 *
 * A slot is taken before the address's filter byte goes up and freed
 * before it goes down, so the filter never says "no" while a slot holds
 * an address that its owner could free. The ordering between the insert
 * in one thread and the free in another is the target's own: it must have
 * handed the pointer over with some synchronisation, which orders our
 * stores too.
 *
 * Layer: base; what may run in a signal handler or inside malloc
 * is marked async-signal-safe, here and in the header.
 */
#include "addrset.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

/* Counts a member in (up) or out of the filter byte of addr, which
 * stays at ADDRSET_STICKY once there. async-signal-safe */
static void
filter_count(struct addrset *s, uint64_t addr, int up)
{
	_Atomic uint8_t *f = &s->filter[addrset_filter_index(addr)];
	uint8_t v = atomic_load_explicit(f, memory_order_relaxed);
	while (v != ADDRSET_STICKY && (up || v != 0) &&
	       !atomic_compare_exchange_weak(f, &v,
					     (uint8_t)(up ? v + 1 : v - 1)))
		;
}

/* async-signal-safe */
int
addrset_insert(struct addrset *s, uint64_t addr)
{
	uint32_t b = addrset_bucket(addr);
	for (int w = 0; w < ADDRSET_WAYS; w++) {
		uint64_t expect = 0;
		if (atomic_load_explicit(&s->slot[b][w], memory_order_relaxed) ||
		    !atomic_compare_exchange_strong(&s->slot[b][w], &expect,
						    addr))
			continue;
		filter_count(s, addr, 1);
		return 0;
	}
	return -ENOSPC;
}

/* async-signal-safe */
int
addrset_remove(struct addrset *s, uint64_t addr)
{
	if (!addrset_maybe(s, addr))
		return 0;
	uint32_t b = addrset_bucket(addr);
	for (int w = 0; w < ADDRSET_WAYS; w++) {
		if (atomic_load_explicit(&s->slot[b][w], memory_order_relaxed) !=
		    addr)
			continue;
		atomic_store(&s->slot[b][w], 0);
		filter_count(s, addr, 0);
		return 1;
	}
	return 0;
}

/* async-signal-safe */
void
addrset_pin(struct addrset *s, uint64_t addr)
{
	filter_count(s, addr, 1);
}

/* async-signal-safe */
void
addrset_unpin(struct addrset *s, uint64_t addr)
{
	filter_count(s, addr, 0);
}

uint32_t
addrset_count(const struct addrset *s)
{
	uint32_t n = 0;
	for (uint32_t b = 0; b < ADDRSET_BUCKETS; b++)
		for (int w = 0; w < ADDRSET_WAYS; w++)
			n += atomic_load(&s->slot[b][w]) != 0;
	return n;
}

/* Zeroes [p, p + len) of the set, giving whole pages back rather than
 * writing zeros over them, so that a forked child that never samples
 * does not copy the parent's pages. The set is page-aligned static
 * storage (anonymous memory); memset is the fallback. */
static void
zero(void *p, size_t len)
{
	uintptr_t a = (uintptr_t)p, end = a + len;
	uintptr_t lo = (a + 4095) & ~(uintptr_t)4095;
	uintptr_t hi = end & ~(uintptr_t)4095;
	if (hi <= lo || madvise((void *)lo, hi - lo, MADV_DONTNEED) != 0)
		lo = hi = end;
	memset(p, 0, lo - a);
	memset((void *)hi, 0, end - hi);
}

void
addrset_clear_members(struct addrset *s)
{
	/* Reading the slots copies no page; only the filter is written. */
	for (uint32_t b = 0; b < ADDRSET_BUCKETS; b++)
		for (int w = 0; w < ADDRSET_WAYS; w++) {
			uint64_t a = atomic_load_explicit(&s->slot[b][w],
							  memory_order_relaxed);
			if (a)
				filter_count(s, a, 0);
		}
	zero(s->slot, sizeof(s->slot));
}
