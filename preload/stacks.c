/*
 * stacks: per-thread stack interning (see stacks.h). Everything in this
 * file is async-signal-safe.
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
	uint32_t count;   /* stacks held; the next id is count + 1 */
	uint64_t last_time_ns, last_weight;
	struct spool_space_chain space;
	struct stacks_slot slots[STACKS_SLOTS];
};

static _Atomic uint32_t next_stream = 1;

uint32_t
stacks_new_stream(void)
{
	uint32_t id = atomic_fetch_add_explicit(&next_stream, 1,
						memory_order_relaxed);
	return id ? id : atomic_fetch_add(&next_stream, 1);
}

/* Fresh zero pages, at the same address when addr is not NULL: the
 * pages of a table are touched only as stacks land in them. */
static struct stacks_table *
map_table(void *addr)
{
	void *p = mmap(addr, sizeof(struct stacks_table),
		       PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | (addr ? MAP_FIXED : 0),
		       -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

struct stacks_table *
stacks_table_for(struct stacks_table **tabp, uint32_t stream)
{
	struct stacks_table *tab = *tabp;
	if (tab && tab->stream == stream)
		return tab;
	/* (A failed MAP_FIXED leaves the old mapping: the table is given
	 * up rather than reused with another stream's ids.) */
	tab = map_table(tab);
	*tabp = tab;
	if (tab)
		tab->stream = stream;
	return tab;
}

static uint64_t
mix(uint64_t h, uint64_t v, uint64_t k)
{
	h = (h ^ v) * k;
	return h ^ (h >> 31);
}

void
stacks_find(const struct stacks_table *tab, uint16_t flags,
	    const uint64_t *pcs, uint32_t depth, struct stacks_probe *p)
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
	for (uint32_t n = 0, i = (uint32_t)(h2 & (STACKS_SLOTS - 1));
	     n < STACKS_SLOTS; n++, i = (i + 1) & (STACKS_SLOTS - 1)) {
		const struct stacks_slot *s = &tab->slots[i];
		if (s->h1 == h1 && s->h2 == h2) {
			p->slot = i;
			p->id = s->id;
			return;
		}
		if (!s->h1) {
			if (tab->count < STACKS_MAX)
				p->slot = i;
			return;
		}
	}
}

uint32_t
stacks_next_id(const struct stacks_table *tab, const struct stacks_probe *p)
{
	return p->slot < STACKS_SLOTS ? tab->count + 1 : 0;
}

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

void
stacks_last(const struct stacks_table *tab, uint64_t *time_ns,
	    uint64_t *weight)
{
	*time_ns = tab->last_time_ns;
	*weight = tab->last_weight;
}

void
stacks_set_last(struct stacks_table *tab, uint64_t time_ns, uint64_t weight)
{
	tab->last_time_ns = time_ns;
	tab->last_weight = weight;
}

struct spool_space_chain *
stacks_space_chain(struct stacks_table *tab)
{
	return &tab->space;
}
