/*
 * calls: the -finstrument-functions hooks and the per-thread call-arc
 * tables (see calls.h).
 *
 * The entry hook is the whole cost of counting, paid at every call of an
 * instrumented function, so its fast path is kept to a thread-local load,
 * two loads of process-wide flags, a multiplicative hash and the probe of
 * one slot: the benchmark it answers to is gprof's mcount (BENCHMARKS.md).
 *
 * A table is a power-of-two array of entries (fn, site, count, emitted)
 * probed linearly, at most half full. Only its thread writes fn, site
 * and count; a thread that writes the records out (calls_finish, at the
 * image's end) reads them concurrently, so an entry's fn is stored last
 * (fn 0 is a free entry) and counts are aligned words, which cannot tear.
 * emitted is what the spool already has of count, written under the
 * slot's calls_emitting flag, which growing the table takes too: the
 * owner never waits for it in the hook (it would spin inside a signal
 * handler), it counts the call as missed and tries again at the next new
 * arc.
 *
 * busy is set while the hook updates the table or the thread writes its
 * records: an instrumented signal handler that interrupts either on the
 * same thread counts its call as missed instead of touching the table.
 *
 * Layer: sources. The hooks and everything they call are
 * async-signal-safe (mmap and munmap are system calls).
 */
#include "calls.h"

#include "gate.h"
#include "state.h"
#include "threads.h"

#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

#define PUBLIC __attribute__((visibility("default")))
#define NO_HOOK __attribute__((no_instrument_function))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* Entries of a thread's first table (32 KiB), and arcs per record. */
#define FIRST_BITS 10
#define ARCS_PER_RECORD 64

struct calls_entry {
	_Atomic uint64_t fn; /* entry address of the callee; 0: free */
	uint64_t site;       /* return address into the caller */
	uint64_t count;
	uint64_t emitted;    /* of count, in the spool already */
};

struct calls_table {
	uint64_t mask;    /* entries - 1 */
	uint64_t used;
	uint64_t missed;  /* calls not counted */
	uint64_t missed_emitted;
	size_t map_len;
	struct calls_entry e[];
};

struct calls_tls {
	struct calls_table *table; /* NULL: none yet, or the thread left */
	struct thread_slot *slot;
	uint32_t busy;
	/* Calls missed while the first table was being made (a handler
	 * that interrupted first_call), for that table's count. */
	uint32_t early_missed;
};

static __thread struct calls_tls calls_self
	__attribute__((tls_model("initial-exec")));

/* async-signal-safe */
static NO_HOOK uint64_t
slot_of(uint64_t fn, uint64_t site, uint64_t mask)
{
	return ((site ^ (fn << 17)) * UINT64_C(0x9e3779b97f4a7c15)) >> 40 &
	       mask;
}

/* A zeroed table of 2^bits entries, or NULL. async-signal-safe */
static NO_HOOK struct calls_table *
table_new(unsigned bits)
{
	size_t len = sizeof(struct calls_table) +
		     (sizeof(struct calls_entry) << bits);
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	struct calls_table *tb = m;
	tb->mask = (UINT64_C(1) << bits) - 1;
	tb->map_len = len;
	return tb;
}

/* Puts an entry of a fresh table (no concurrent reader yet).
 * async-signal-safe */
static NO_HOOK void
table_put(struct calls_table *tb, const struct calls_entry *x)
{
	uint64_t f = atomic_load_explicit(&x->fn, memory_order_relaxed);
	uint64_t i = slot_of(f, x->site, tb->mask);
	while (atomic_load_explicit(&tb->e[i].fn, memory_order_relaxed))
		i = (i + 1) & tb->mask;
	struct calls_entry *e = &tb->e[i];
	e->site = x->site;
	e->count = x->count;
	e->emitted = x->emitted;
	atomic_store_explicit(&e->fn, f, memory_order_relaxed);
	tb->used++;
}

/* Rehashes the calling thread's table into one twice as large, unless its
 * records are being written (then it stays full a while). Returns the
 * table to insert into, or NULL. async-signal-safe */
static NO_HOOK struct calls_table *
table_grow(struct calls_tls *c)
{
	struct calls_table *old = c->table, *tb;
	struct thread_slot *t = c->slot;
	if (atomic_exchange_explicit(&t->calls_emitting, 1,
				     memory_order_acquire))
		return NULL;
	unsigned bits = (unsigned)__builtin_popcountll(old->mask) + 1;
	if (!(tb = table_new(bits))) {
		atomic_store_explicit(&t->calls_emitting, 0,
				      memory_order_release);
		return NULL;
	}
	for (uint64_t i = 0; i <= old->mask; i++)
		if (atomic_load_explicit(&old->e[i].fn, memory_order_relaxed))
			table_put(tb, &old->e[i]);
	tb->missed = old->missed;
	tb->missed_emitted = old->missed_emitted;
	c->table = tb;
	atomic_store_explicit(&t->calls_table, tb, memory_order_release);
	atomic_store_explicit(&t->calls_emitting, 0, memory_order_release);
	munmap(old, old->map_len);
	return tb;
}

/* A new arc: into a free entry of a table at most half full. Called with
 * busy set. async-signal-safe */
static NO_HOOK __attribute__((noinline)) void
insert(struct calls_tls *c, uint64_t fn, uint64_t site)
{
	struct calls_table *tb = c->table;
	if (2 * (tb->used + 1) > tb->mask + 1 && !(tb = table_grow(c))) {
		c->table->missed++;
		return;
	}
	uint64_t i = slot_of(fn, site, tb->mask);
	for (;;) {
		struct calls_entry *e = &tb->e[i];
		uint64_t f = atomic_load_explicit(&e->fn, memory_order_relaxed);
		if (!f)
			break;
		if (f == fn && e->site == site) {
			e->count++;
			return;
		}
		i = (i + 1) & tb->mask;
	}
	struct calls_entry *e = &tb->e[i];
	e->site = site;
	e->count = 1;
	e->emitted = 0;
	/* A reader that sees fn sees the rest (calls_finish). */
	atomic_store_explicit(&e->fn, fn, memory_order_release);
	tb->used++;
}

/* The thread's first counted call, or one on a thread that counts
 * nothing: maps its table when it has a slot. async-signal-safe */
static NO_HOOK __attribute__((noinline)) void
first_call(struct calls_tls *c, uint64_t fn, uint64_t site)
{
	struct thread_slot *t = threads_self();
	if (!t || !prof_in_image())
		return;
	if (c->busy) {
		c->early_missed++;
		return;
	}
	c->busy = 1;
	atomic_signal_fence(memory_order_seq_cst);
	struct calls_table *tb = table_new(FIRST_BITS);
	if (tb) {
		c->slot = t;
		c->table = tb;
		atomic_signal_fence(memory_order_seq_cst);
		/* From here a handler counts its misses in the table: one
		 * instruction adds what it counted before. */
		__atomic_fetch_add(&tb->missed, c->early_missed,
				   __ATOMIC_RELAXED);
		c->early_missed = 0;
		atomic_store_explicit(&t->calls_table, tb,
				      memory_order_release);
		insert(c, fn, site);
	}
	atomic_signal_fence(memory_order_seq_cst);
	c->busy = 0;
}

/* async-signal-safe */
PUBLIC NO_HOOK void
__cyg_profile_func_enter(void *this_fn, void *call_site)
{
	struct calls_tls *c = &calls_self;
	struct calls_table *tb = c->table;
	uint64_t fn = (uint64_t)(uintptr_t)this_fn;
	uint64_t site = (uint64_t)(uintptr_t)call_site;

	if (unlikely(!atomic_load_explicit(&prof_state.enabled,
					   memory_order_relaxed) ||
		     gate_shut_now()))
		return;
	if (unlikely(!tb)) {
		first_call(c, fn, site);
		return;
	}
	if (unlikely(c->busy)) {
		tb->missed++;
		return;
	}
	c->busy = 1;
	atomic_signal_fence(memory_order_seq_cst);
	struct calls_entry *e = &tb->e[slot_of(fn, site, tb->mask)];
	if (likely(e->site == site &&
		   atomic_load_explicit(&e->fn, memory_order_relaxed) == fn))
		e->count++;
	else
		insert(c, fn, site);
	atomic_signal_fence(memory_order_seq_cst);
	c->busy = 0;
}

/* Counting is done at entry. async-signal-safe */
PUBLIC NO_HOOK void
__cyg_profile_func_exit(void *this_fn, void *call_site)
{
	(void)this_fn;
	(void)call_site;
}

/* ---- records ---- */

/* Appends one record of arcs to the spool: through t's own stream from
 * its own thread, else through the caller's. Not async-signal-safe (the
 * shared stream's lock); runs at thread exit and the image's end. */
static NO_HOOK void
push_arcs(struct thread_slot *t, int own, struct spool_call_arcs *ca,
	  const struct spool_call_arc *arcs)
{
	uint8_t buf[SPOOL_CALL_ARCS_SIZE(ARCS_PER_RECORD)];
	struct spool_buf b;
	spool_buf_init(&b, buf, sizeof(buf));
	if (spool_put_call_arcs(&b, ca, arcs) < 0)
		return;
	if (own)
		threads_push(t, buf, b.len);
	else
		threads_emit(buf, b.len);
}

/* Writes out what table tb of slot t gained since its last records. The
 * caller holds t->calls_emitting. Not async-signal-safe (push_arcs). */
static NO_HOOK void
emit_table(struct thread_slot *t, struct calls_table *tb, int own)
{
	struct spool_call_arc arcs[ARCS_PER_RECORD];
	struct spool_call_arcs ca = {
		.time_ns = prof_now_ns(),
		.tid = (uint32_t)t->tid,
	};
	uint64_t missed = __atomic_load_n(&tb->missed, __ATOMIC_RELAXED);
	ca.missed = missed - tb->missed_emitted;
	tb->missed_emitted = missed;
	for (uint64_t i = 0; i <= tb->mask; i++) {
		struct calls_entry *e = &tb->e[i];
		uint64_t fn = atomic_load_explicit(&e->fn, memory_order_acquire);
		if (!fn)
			continue;
		uint64_t n = __atomic_load_n(&e->count, __ATOMIC_RELAXED);
		if (n == e->emitted)
			continue;
		arcs[ca.n++] = (struct spool_call_arc){ fn, e->site,
							n - e->emitted };
		e->emitted = n;
		if (ca.n == ARCS_PER_RECORD) {
			push_arcs(t, own, &ca, arcs);
			ca.n = 0;
			ca.missed = 0;
		}
	}
	if (ca.n || ca.missed)
		push_arcs(t, own, &ca, arcs);
}

/* Waits for a writer of t's records (or a grower of its table) to be
 * done. Not async-signal-safe: it may wait. */
static NO_HOOK void
lock_emitting(struct thread_slot *t)
{
	while (atomic_exchange(&t->calls_emitting, 1))
		sched_yield();
}

void
calls_thread_attach(struct thread_slot *t)
{
	atomic_store(&t->calls_table, NULL);
	atomic_store(&t->calls_emitting, 0);
}

void
calls_thread_detach(struct thread_slot *t)
{
	struct calls_tls *c = &calls_self;
	c->busy = 1; /* the thread's own calls from here on are not counted */
	atomic_signal_fence(memory_order_seq_cst);
	lock_emitting(t);
	struct calls_table *tb = atomic_load(&t->calls_table);
	if (tb)
		emit_table(t, tb, 1);
	atomic_store(&t->calls_table, NULL);
	atomic_store(&t->calls_emitting, 0);
	if (tb && tb == c->table)
		munmap(tb, tb->map_len);
	c->table = NULL;
	c->slot = NULL;
}

void
calls_finish(void)
{
	struct thread_slot *me = threads_self();
	struct calls_tls *c = &calls_self;
	uint32_t used = threads_used();
	uint32_t was_busy = c->busy;

	c->busy = 1;
	atomic_signal_fence(memory_order_seq_cst);
	for (uint32_t i = 0; i < used; i++) {
		struct thread_slot *t = threads_slot(i);
		if (atomic_load(&t->state) != THREAD_LIVE)
			continue;
		lock_emitting(t);
		struct calls_table *tb = atomic_load(&t->calls_table);
		if (tb)
			emit_table(t, tb, t == me);
		atomic_store(&t->calls_emitting, 0);
	}
	atomic_signal_fence(memory_order_seq_cst);
	c->busy = was_busy;
}

void
calls_postfork_child(struct thread_slot *t)
{
	struct calls_tls *c = &calls_self;
	struct calls_table *tb = c->table;
	if (!t || !tb || c->slot != t) {
		c->table = NULL;
		c->slot = NULL;
		if (t)
			calls_thread_attach(t);
		return;
	}
	for (uint64_t i = 0; i <= tb->mask; i++)
		tb->e[i].emitted = tb->e[i].count;
	tb->missed_emitted = tb->missed;
	atomic_store(&t->calls_table, tb);
	atomic_store(&t->calls_emitting, 0);
}
