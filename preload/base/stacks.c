/*
 * stacks: per-thread stack interning (see stacks.h). Everything in this
 * file is async-signal-safe.
 *
 * Layer: base.
 */
#include "stacks.h"

#include <stdatomic.h>
#include <stddef.h>
#include <sys/mman.h>

struct stacks_slot {
	uint64_t h1, h2; /* 0, 0: free */
	uint32_t id;
	uint32_t unused;
};

struct stacks_table {
	uint32_t stream;
	uint32_t count; /* stacks held; the next id is count + 1 */
	uint32_t mask;  /* slots - 1 */
	uint32_t unused;
	uint64_t last_time_ns, last_weight;
	struct spool_space_chain space;
	struct stacks_slot *slots; /* first, or a mapping of its own */
	struct stacks_slot first[STACKS_FIRST_SLOTS];
};

_Static_assert(sizeof(struct stacks_table) <= 4096,
	       "a new table is one page");

static _Atomic uint32_t next_stream = 1;

/* async-signal-safe */
uint32_t
stacks_new_stream(void)
{
	uint32_t id = atomic_fetch_add_explicit(&next_stream, 1,
						memory_order_relaxed);
	return id ? id : atomic_fetch_add(&next_stream, 1);
}

/* async-signal-safe */
static size_t
slots_bytes(uint32_t n)
{
	return (size_t)n * sizeof(struct stacks_slot);
}

/* A fresh zero page for a table, at the same address when addr is not
 * NULL (a table of another stream: its slots mapped apart go first).
 * async-signal-safe */
static struct stacks_table *
map_table(struct stacks_table *addr)
{
	if (addr && addr->slots != addr->first)
		munmap(addr->slots, slots_bytes(addr->mask + 1));
	void *p = mmap(addr, sizeof(struct stacks_table),
		       PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | (addr ? MAP_FIXED : 0),
		       -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	struct stacks_table *tab = p;
	tab->mask = STACKS_FIRST_SLOTS - 1;
	tab->slots = tab->first;
	return tab;
}

/* async-signal-safe */
struct stacks_table *
stacks_table_for(struct stacks_table **tabp, uint32_t stream)
{
	struct stacks_table *tab = *tabp;
	if (tab && tab->stream == stream)
		return tab;
	/* (A failed MAP_FIXED leaves the old page: the table is given up
	 * rather than reused with another stream's ids.) */
	tab = map_table(tab);
	*tabp = tab;
	if (tab)
		tab->stream = stream;
	return tab;
}

uint32_t
stacks_capacity(const struct stacks_table *tab)
{
	return tab->mask + 1;
}

/* The slot of hashes h1, h2 in slots of mask: theirs, or the free one
 * where they would go. The caller keeps a free slot in the table.
 * async-signal-safe */
static uint32_t
probe(const struct stacks_slot *slots, uint32_t mask, uint64_t h1,
      uint64_t h2)
{
	uint32_t i = (uint32_t)(h2 & mask);
	while (slots[i].h1 && (slots[i].h1 != h1 || slots[i].h2 != h2))
		i = (i + 1) & mask;
	return i;
}

/* Doubles the table's slots into a mapping of its own. Returns 0, or -1
 * when there is no mapping (the table stays as it was). The rehash writes
 * nearly every page of the new slots, so they are mapped populated: one
 * system call rather than a fault a page. async-signal-safe */
static int
grow(struct stacks_table *tab)
{
	uint32_t n = (tab->mask + 1) * 2;
	void *p = mmap(NULL, slots_bytes(n), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	struct stacks_slot *slots = p;
	for (uint32_t i = 0; i <= tab->mask; i++) {
		const struct stacks_slot *s = &tab->slots[i];
		if (s->h1)
			slots[probe(slots, n - 1, s->h1, s->h2)] = *s;
	}
	if (tab->slots != tab->first)
		munmap(tab->slots, slots_bytes(tab->mask + 1));
	tab->slots = slots;
	tab->mask = n - 1;
	return 0;
}

/* Whether a new stack fits without filling the table past three
 * quarters. async-signal-safe */
static int
has_room(const struct stacks_table *tab)
{
	return tab->count < (tab->mask + 1) / 4 * 3;
}

/* async-signal-safe */
static uint64_t
mix(uint64_t h, uint64_t v, uint64_t k)
{
	h = (h ^ v) * k;
	return h ^ (h >> 31);
}

/* async-signal-safe */
void
stacks_find(struct stacks_table *tab, uint16_t flags, const uint64_t *pcs,
	    uint32_t depth, struct stacks_probe *p)
{
	const uint64_t k1 = 0x9e3779b97f4a7c15ull, k2 = 0xc2b2ae3d27d4eb4full;
	uint64_t h1 = mix(0x243f6a8885a308d3ull, (uint64_t)flags << 32 | depth,
			  k1);
	uint64_t h2 = mix(0x13198a2e03707344ull, (uint64_t)depth << 16 | flags,
			  k2);
	for (uint32_t i = 0; i < depth; i++) {
		h1 = mix(h1, pcs[i], k1);
		h2 = mix(h2, pcs[i] ^ (uint64_t)i << 56, k2);
	}
	h1 |= 1; /* never the free slot's 0, 0 */
	p->h1 = h1;
	p->h2 = h2;
	p->id = 0;
	p->slot = STACKS_SLOTS;
	/* A table at most three quarters full always has a free slot. */
	uint32_t i = probe(tab->slots, tab->mask, h1, h2);
	if (tab->slots[i].h1) {
		p->slot = i;
		p->id = tab->slots[i].id;
		return;
	}
	if (!has_room(tab)) {
		if (tab->mask + 1 >= STACKS_SLOTS || grow(tab) < 0)
			return;
		i = probe(tab->slots, tab->mask, h1, h2);
	}
	p->slot = i;
}

/* async-signal-safe */
uint32_t
stacks_next_id(const struct stacks_table *tab, const struct stacks_probe *p)
{
	return p->slot < STACKS_SLOTS ? tab->count + 1 : 0;
}

/* async-signal-safe */
void
stacks_add(struct stacks_table *tab, const struct stacks_probe *p)
{
	if (p->slot >= STACKS_SLOTS || p->id)
		return;
	struct stacks_slot *s = &tab->slots[p->slot];
	s->h1 = p->h1;
	s->h2 = p->h2;
	s->id = ++tab->count;
}

/* async-signal-safe */
void
stacks_last(const struct stacks_table *tab, uint64_t *time_ns,
	    uint64_t *weight)
{
	*time_ns = tab->last_time_ns;
	*weight = tab->last_weight;
}

/* async-signal-safe */
void
stacks_set_last(struct stacks_table *tab, uint64_t time_ns, uint64_t weight)
{
	tab->last_time_ns = time_ns;
	tab->last_weight = weight;
}

/* async-signal-safe */
struct spool_space_chain *
stacks_space_chain(struct stacks_table *tab)
{
	return &tab->space;
}
