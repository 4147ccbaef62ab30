/*
 * alloc: the malloc-family wrappers and the per-thread sampling state (see
 * alloc.h).
 *
 * Each wrapper counts its call in the thread's TLS counters, then either
 * takes the fast path (the request does not reach the thread's next
 * sample point: subtract and call the real function) or one of the slow
 * paths, kept out of line so the fast path stays a handful of
 * instructions. The fast paths are what the wrappers cost: in a loop of
 * small malloc/free pairs, about 6 ns a pair bare, each instruction they
 * add shows (BENCHMARKS.md). So malloc is a count, one subtraction
 * from the thread's room with a branch on its borrow, and a jump to the
 * real function; free is a count, a filter byte (addrset.h) and a jump.
 * A thread's room starts at 0, so its first allocation takes the slow
 * path, which draws the first real countdown; a thread that does not
 * sample (before start-up) gets a short idle countdown and asks again,
 * and one that never will (space sampling off, or the profiler's own work
 * in progress) a countdown no request reaches.
 *
 * The fast paths take no lock and make no call but the real function's.
 * The slow paths take three locks, none of them one our signal handler
 * could be waiting for on the same thread: libunwind's cache lock (the
 * thread is marked busy meanwhile, so the sampling handler takes no sample
 * on it: it defers the sample's time, which the slow path then stores with
 * the allocation's stack), and the shared stream's lock (only tried, never
 * waited for) for a FREE from a thread without a stream of its own. A
 * target signal handler that allocates while the slow path runs finds the
 * guard set and passes straight through.
 *
 * A sampled allocation's stack is walked by the same unwinder as the time
 * samples, from registers captured in the wrapper's slow path (getcontext
 * without its system call). The frames of this library are dropped except
 * the outermost, the public wrapper the target called, which becomes the
 * leaf (pcs[0]): the analyzer then names "malloc" or "calloc" as the
 * function that allocated, and hides it by default with the rest of
 * libprofrun.so, charging its caller.
 *
 * The weights and the estimator are explained in countdown.h.
 *
 * Layer: sources; what may run in a signal handler or inside malloc
 * is marked async-signal-safe, here and in the header.
 */
#include "alloc.h"

#include "alloc_int.h"
#include "addrset.h"
#include "arena.h"
#include "gate.h"
#include "countdown.h"
#include "modules.h"
#include "real.h"
#include "appender.h"
#include "sampler.h"
#include "stacks.h"
#include "state.h"
#include "threads.h"
#include "unwind.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <malloc.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

/* Bytes a thread that cannot sample yet allocates before asking again. */
#define IDLE_COUNTDOWN (64u * 1024)
/* A countdown no request reaches (only SIZE_MAX, which fails anyway). */
#define NEVER (UINT64_C(1) << 63)
/* Frames of our own on top of a sampled stack, at most. */
#define OWN_FRAMES_MAX 8
/* The library's own arena (see "the library's own arena" below): its
 * size, its smallest class (32 bytes), its number of classes (32 B to
 * 64 KiB), the header before each block and the largest alignment. */

_Static_assert(SPOOL_ALLOC_FN_MAX_ <= THREADS_CALL_COUNTERS,
	       "thread_slot has room for every counter");
_Static_assert(OWN_FRAMES_MAX <= THREADS_DEEP_EXTRA,
	       "the space sampler's own frames fit the deep room (threads.h)");
_Static_assert(SPOOL_MAX_DEPTH + OWN_FRAMES_MAX <= UNWIND_MEMO_DEPTH,
	       "a memo holds the deepest walk");
_Static_assert(SPOOL_SPACE_ENTRY_MAX(1) >= SPOOL_ENTRY_MAX(1),
	       "a space entry's room holds a time sample (deep_room)");

/* Mean sampling interval; 0 while off. settled: it will not change. */
static _Atomic uint64_t space_interval;
static _Atomic int space_settled;
/* --space-seed, 0 for none; and the threads seeded from it so far. */
static uint64_t space_seed;
static _Atomic uint64_t space_seeded;
/* Our own code, whose frames a sampled stack starts with. */
static uint64_t own_lo, own_hi;

__thread struct alloc_tls alloc_self __attribute__((tls_model("initial-exec")));
struct addrset alloc_sampled __attribute__((aligned(4096)));

/* ---- the real functions ---- */

static void *boot_malloc(size_t n);
static void boot_free(void *p);
static void *boot_calloc(size_t k, size_t n);
static void *boot_realloc(void *p, size_t n);
static int boot_posix_memalign(void **out, size_t align, size_t n);
static void *boot_memalign(size_t align, size_t n);
static void *boot_valloc(size_t n);
static size_t boot_usable_size(void *p);
static void boot_free_sized(void *p, size_t n);
static void boot_free_aligned_sized(void *p, size_t align, size_t n);
static void *boot_mallocx(size_t n, int flags);
static void *boot_rallocx(void *p, size_t n, int flags);
static size_t boot_xallocx(void *p, size_t n, size_t extra, int flags);
static void boot_sdallocx(void *p, size_t n, int flags);
static void boot_dallocx(void *p, int flags);

/* Until alloc_resolve() has run, each points to a bootstrap version that
 * resolves first. Read and written with relaxed atomics (REAL); filled by
 * real_alloc_lookup (real.h). */
static struct real_alloc real = {
	.malloc = boot_malloc,
	.free = boot_free,
	.calloc = boot_calloc,
	.realloc = boot_realloc,
	.posix_memalign = boot_posix_memalign,
	.aligned_alloc = boot_memalign,
	.memalign = boot_memalign,
	.valloc = boot_valloc,
	.pvalloc = boot_valloc,
	.free_sized = boot_free_sized,
	.free_aligned_sized = boot_free_aligned_sized,
	.mallocx = boot_mallocx,
	.rallocx = boot_rallocx,
	.xallocx = boot_xallocx,
	.sdallocx = boot_sdallocx,
	.dallocx = boot_dallocx,
	.malloc_usable_size = boot_usable_size,
};

#define REAL(fn) __atomic_load_n(&real.fn, __ATOMIC_RELAXED)
#define SET_REAL(fn, v) __atomic_store_n(&real.fn, (v), __ATOMIC_RELAXED)

/* The wrapped functions no header declares here: C23's, and jemalloc's
 * non-standard API (jemalloc/jemalloc.h). */
void free_sized(void *p, size_t n);
void free_aligned_sized(void *p, size_t align, size_t n);
void *mallocx(size_t n, int flags);
void *rallocx(void *p, size_t n, int flags);
size_t xallocx(void *p, size_t n, size_t extra, int flags);
void sdallocx(void *p, size_t n, int flags);
void dallocx(void *p, int flags);

/* (alloc_int.h) */
int
alloc_resolve(void)
{
	static _Atomic int state; /* 0 unknown, 1 resolving, 2 known */
	int expect = 0;
	if (likely(atomic_load_explicit(&state, memory_order_acquire) == 2))
		return 0;
	if (alloc_self.resolving ||
	    !atomic_compare_exchange_strong(&state, &expect, 1))
		return -1;
	alloc_self.resolving = 1;
	/* dlsym allocates (its error strings, for the names the allocator
	 * lacks): the profiler's own requests, for the arena and not
	 * counted, even when the target's first request got us here before
	 * the constructor ran. */
	alloc_guard_enter();
	real_alloc_lookup(&real);
	alloc_guard_leave();
	alloc_self.resolving = 0;
	atomic_store_explicit(&state, 2, memory_order_release);
	return 0;
}

/* ---- the library's own arena (arena.h) ---- */

/* Every block out of the arena is pinned in the filter of the sampled
 * set, so that its release, on whatever thread and whether or not the
 * guard is set, takes the slow path (alloc_forget()), which tells it by its
 * address. async-signal-safe */
void *
alloc_own(size_t n, size_t align)
{
	void *p = arena_alloc(n, align);
	if (p)
		addrset_pin(&alloc_sampled, (uint64_t)(uintptr_t)p);
	return p;
}

/* async-signal-safe */
static void
own_free(void *p)
{
	addrset_unpin(&alloc_sampled, (uint64_t)(uintptr_t)p);
	arena_free(p);
}

/* realloc of the arena's block p (or of NULL) to n bytes. With stay (the
 * profiler's own block, or any before the real functions are known) the
 * block stays in the arena when it can, in place or in a new block;
 * otherwise, or when the arena has none, it moves to the real allocator
 * (when known). A move is uncounted and unsampled: the call that asked is
 * counted already, and a block of the target's here was allocated before
 * the real functions were known. realloc(p, 0) frees p and returns NULL,
 * as glibc's does. async-signal-safe */
static void *
own_realloc(void *p, size_t n, int stay)
{
	if (!p)
		return alloc_own(n, ARENA_ALIGN);
	if (!n) {
		own_free(p);
		return NULL;
	}
	size_t size = arena_size(p);
	void *q = NULL;
	if (stay) {
		if (arena_resize(p, n))
			return p;
		q = alloc_own(n, ARENA_ALIGN);
	}
	if (!q && alloc_resolve() == 0)
		q = REAL(malloc)(n);
	if (!q) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(q, p, size < n ? size : n);
	own_free(p);
	return q;
}

/* ---- stand-ins until the real functions are known ---- */

/* alloc_own() for a caller that has no other: NULL is ENOMEM. */
static void *
boot_alloc(size_t n, size_t align)
{
	void *p = alloc_own(n, align);
	if (!p)
		errno = ENOMEM;
	return p;
}

static void *
boot_malloc(size_t n)
{
	return alloc_resolve() == 0 ? REAL(malloc)(n) : boot_alloc(n, ARENA_ALIGN);
}

static void
boot_free(void *p)
{
	/* The arena's blocks never get here (alloc_forget() takes them); another
	 * is the real allocator's, which is known once anything came from
	 * it. */
	if (!arena_owns(p) && alloc_resolve() == 0)
		REAL(free)(p);
}

static void *
boot_calloc(size_t k, size_t n)
{
	size_t bytes;
	if (alloc_resolve() == 0)
		return REAL(calloc)(k, n);
	if (__builtin_mul_overflow(k, n, &bytes)) {
		errno = ENOMEM;
		return NULL;
	}
	void *p = boot_alloc(bytes, ARENA_ALIGN);
	if (p)
		memset(p, 0, bytes); /* a block of the arena may be reused */
	return p;
}

static void *
boot_realloc(void *p, size_t n)
{
	if (alloc_resolve() == 0)
		return REAL(realloc)(p, n);
	return own_realloc(p, n, 1);
}

static void *
boot_memalign(size_t align, size_t n)
{
	if (alloc_resolve() == 0)
		return REAL(memalign)(align, n);
	return boot_alloc(n, align);
}

static int
boot_posix_memalign(void **out, size_t align, size_t n)
{
	if (alloc_resolve() == 0)
		return REAL(posix_memalign)(out, align, n);
	void *p = alloc_own(n, align);
	if (!p)
		return align < sizeof(void *) || (align & (align - 1)) ?
			       EINVAL : ENOMEM;
	*out = p;
	return 0;
}

static void *
boot_valloc(size_t n)
{
	return boot_memalign(4096, n);
}

static size_t
boot_usable_size(void *p)
{
	if (alloc_resolve() == 0 && REAL(malloc_usable_size))
		return REAL(malloc_usable_size)(p);
	return 0;
}

static void
boot_free_sized(void *p, size_t n)
{
	if (alloc_resolve() == 0)
		REAL(free_sized)(p, n);
	else
		boot_free(p);
}

static void
boot_free_aligned_sized(void *p, size_t align, size_t n)
{
	if (alloc_resolve() == 0)
		REAL(free_aligned_sized)(p, align, n);
	else
		boot_free(p);
}

static void *
boot_mallocx(size_t n, int flags)
{
	return alloc_resolve() == 0 ? REAL(mallocx)(n, flags) :
				boot_alloc(n, ARENA_ALIGN);
}

static void *
boot_rallocx(void *p, size_t n, int flags)
{
	return alloc_resolve() == 0 ? REAL(rallocx)(p, n, flags) : boot_realloc(p, n);
}

static size_t
boot_xallocx(void *p, size_t n, size_t extra, int flags)
{
	return alloc_resolve() == 0 ? REAL(xallocx)(p, n, extra, flags) : 0;
}

static void
boot_sdallocx(void *p, size_t n, int flags)
{
	if (alloc_resolve() == 0)
		REAL(sdallocx)(p, n, flags);
	else
		boot_free(p);
}

static void
boot_dallocx(void *p, int flags)
{
	if (alloc_resolve() == 0)
		REAL(dallocx)(p, flags);
	else
		boot_free(p);
}

/* ---- counting and the guard ---- */

/* async-signal-safe */
void
alloc_guard_enter(void)
{
	struct alloc_tls *a = &alloc_self;
	if (a->guard++)
		return;
	a->saved_room = a->room;
	a->room = 0; /* every request to its slow path, and the arena */
	for (int i = 0; i < SPOOL_ALLOC_FN_MAX_; i++)
		a->saved_calls[i] = a->calls[i];
}

/* async-signal-safe */
void
alloc_guard_leave(void)
{
	struct alloc_tls *a = &alloc_self;
	if (--a->guard)
		return;
	/* What the profiler called meanwhile was not the target's. */
	for (int i = 0; i < SPOOL_ALLOC_FN_MAX_; i++)
		a->calls[i] = a->saved_calls[i];
	a->room = a->saved_room;
}

/* async-signal-safe */
int
alloc_in_guard(void)
{
	return alloc_self.guard != 0;
}

/* ---- sampling ---- */

/* Thread a's request of n bytes reached its next sample point (n >
 * room). Sets the next countdown and returns whether this request is
 * sampled. async-signal-safe */
int
alloc_expired(struct alloc_tls *a, size_t n)
{
	if (a->guard)
		return 0; /* the profiler's own (xallocx_slow gets here) */
	uint64_t interval = atomic_load_explicit(&space_interval,
						 memory_order_relaxed);
	if (!interval) {
		a->cd.armed = 0;
		a->room = atomic_load_explicit(&space_settled,
					       memory_order_relaxed) ?
				  NEVER : IDLE_COUNTDOWN;
		return 0;
	}
	if (!a->cd.rng)
		a->cd.rng = space_seed ?
			countdown_seed(space_seed, atomic_fetch_add(
						   &space_seeded, 1)) :
			countdown_seed((uint64_t)(uintptr_t)a, prof_now_ns());
	int hit = countdown_expired(&a->cd, n, interval);
	a->room = a->cd.left - 1; /* cd.left >= 1 */
	return hit;
}

/* The slot of the calling thread, binding an adopted one (a thread that
 * was running before the library started) on its first sample.
 * async-signal-safe */
static struct thread_slot *
own_slot(void)
{
	struct thread_slot *t = threads_self();
	if (!t && prof_state.initialised) {
		uint64_t sp = (uint64_t)(uintptr_t)__builtin_frame_address(0);
		t = threads_adopt_self(sp);
		if (t)
			alloc_thread_attach(t);
	}
	return t;
}

/* Drops the frames of this library from the top of the stack but the
 * outermost, which is the wrapper the target called. Returns how many to
 * skip. async-signal-safe */
static uint32_t
own_frames(const uint64_t *pcs, uint32_t depth)
{
	uint32_t k = 0;
	while (k < depth && pcs[k] >= own_lo && pcs[k] < own_hi)
		k++;
	return k > 0 && k < depth ? k - 1 : 0;
}

/* Unwinds the calling thread from uc, captured in a wrapper's slow path
 * (so that only that function and the wrapper are frames of ours to walk
 * through), into pcs. Returns the depth; *flags gets SPOOL_SAMPLE_* bits.
 * async-signal-safe */
static uint32_t
own_stack(struct thread_slot *t, const ucontext_t *uc, uint64_t *pcs,
	  uint32_t *flags)
{
	uint64_t stack_raw[SPOOL_MAX_DEPTH + OWN_FRAMES_MAX];
	uint64_t *raw = stack_raw;
	uint32_t keep = prof_state.cfg.max_depth;
	uint16_t f = 0;

	if (keep > SPOOL_MAX_DEPTH && t->deep)
		raw = t->deep->alloc_raw;
	else if (keep > SPOOL_MAX_DEPTH)
		keep = SPOOL_MAX_DEPTH;
	/* (Deeper than the memo holds, unwind_stack_memo walks it all.) */
	uint32_t depth = unwind_stack_memo(uc, t, &t->memo, raw,
					   keep + OWN_FRAMES_MAX, &f);
	uint32_t skip = own_frames(raw, depth);
	depth -= skip;
	if (depth > keep) {
		depth = keep;
		f |= SPOOL_SAMPLE_TRUNCATED;
	}
	memcpy(pcs, raw + skip, depth * sizeof(*pcs));
	*flags = f;
	return depth;
}

/* Counts the drop of a record the spool could not take (no chunk, or the
 * size limit); returns rc. async-signal-safe */
static int
counted(int rc)
{
	if (rc == -ENOSPC || rc == -EFBIG)
		prof_drop(appender_drop_cause(rc));
	return rc;
}

/* Appends a record to the calling thread's stream (t->busy set).
 * Returns 0 or a negative error (the drop is counted).
 * async-signal-safe */
static int
push_own(struct thread_slot *t, const void *rec, size_t len)
{
	return counted(appender_append(&t->stream, rec, len));
}

/* Stores the sampled allocation a with stack pcs in the calling
 * thread's stream (t->busy set): as an entry of its ALLOCS record that
 * refers to the stack when the thread has written it before, else with
 * the stack and a new id; as an ALLOC record when the thread has no table
 * of stacks. buf holds SPOOL_SPACE_ENTRY_MAX(a->depth) bytes, which also
 * take the ALLOC. Returns 0 or a negative error (the drop is counted).
 * async-signal-safe */
static int
store_alloc(struct thread_slot *t, const struct spool_alloc *a,
	    const uint64_t *pcs, uint8_t *buf, size_t cap)
{
	struct spool_buf b;
	struct stacks_table *tab = threads_stacks(t);
	if (!tab) {
		spool_buf_init(&b, buf, cap);
		if (spool_put_alloc(&b, a, pcs) < 0)
			return -ENOSPC;
		return push_own(t, buf, b.len);
	}
	struct stacks_probe p;
	struct spool_space_chain *prev = stacks_space_chain(tab);
	stacks_find(tab, spool_alloc_stack_flags(a->flags), pcs, a->depth, &p);
	uint32_t id = p.id ? p.id : stacks_next_id(tab, &p);
	size_t len = spool_encode_space_alloc(buf, cap, prev, a, id, !p.id, pcs);
	int rc = counted(appender_append_space_entry(&t->stream, a->tid, prev,
						     buf, len));
	if (rc == 0) {
		stacks_add(tab, &p);
		*prev = (struct spool_space_chain){ a->time_ns, a->address,
						    a->weight };
	}
	return rc;
}

/* Stores the release f as store_alloc does an allocation (t->busy set).
 * async-signal-safe */
static void
store_free(struct thread_slot *t, const struct spool_free *f)
{
	uint8_t buf[SPOOL_REC_HEADER_LEN + 32]; /* > an entry, a FREE */
	struct spool_buf b;
	struct stacks_table *tab = threads_stacks(t);
	if (!tab) {
		spool_buf_init(&b, buf, sizeof(buf));
		if (spool_put_free(&b, f) == 0)
			push_own(t, buf, b.len);
		return;
	}
	struct spool_space_chain *prev = stacks_space_chain(tab);
	size_t len = spool_encode_space_free(buf, sizeof(buf), prev, f);
	if (counted(appender_append_space_entry(&t->stream, f->tid, prev, buf,
						len)) == 0) {
		prev->time_ns = f->time_ns;
		prev->address = f->address;
	}
}

/* Where the space sampler walks and encodes: in the arrays *pcs, *buf
 * and *cap point to (on the thread's stack, of SPOOL_MAX_DEPTH), or in
 * the thread's deep room when --max-depth asks for more. A space entry's
 * room holds a time sample's too (SPOOL_SPACE_ENTRY_MAX is the larger).
 * async-signal-safe */
static void
deep_room(struct thread_slot *t, uint64_t **pcs, uint8_t **buf, size_t *cap)
{
	if (prof_state.cfg.max_depth > SPOOL_MAX_DEPTH && t->deep) {
		*pcs = t->deep->alloc_pcs;
		*buf = t->deep->alloc_rec;
		*cap = sizeof(t->deep->alloc_rec);
	}
}

/* Stores the CPU time that the sampling signal's handler deferred while
 * the space sampler ran on this thread (THREAD_BUSY_SPACE: a walk from
 * the handler would use the per-thread unwinder cache the sampler was
 * using): time spent in the program's call to the allocator, so a time
 * sample with the allocation's stack, whose leaf is the wrapper the
 * program called (pcs, depth, flags; buf, cap: room for the record). The
 * thread is idle (busy clear) on entry and on return; a signal that comes
 * while one sample is stored is deferred again, and stored by the next
 * round. async-signal-safe */
static void
settle_deferred(struct thread_slot *t, const uint64_t *pcs, uint32_t depth,
		uint16_t flags, uint8_t *buf, size_t cap)
{
	uint64_t w;
	while ((w = atomic_exchange(&t->deferred_ns, 0)) != 0) {
		t->busy = THREAD_BUSY_SPACE;
		atomic_signal_fence(memory_order_seq_cst);
		sampler_store_time(t, w, pcs, depth, flags, buf, cap);
		atomic_signal_fence(memory_order_seq_cst);
		t->busy = THREAD_IDLE;
		atomic_signal_fence(memory_order_seq_cst);
	}
}

/* Records the sampled allocation of n bytes at p, made by fn. A time
 * sample that lands meanwhile is deferred by the handler (busy) and
 * stored here, with the allocation's stack (settle_deferred).
 * async-signal-safe */
void __attribute__((noinline))
alloc_record(const ucontext_t *uc, void *p, size_t n, enum spool_alloc_fn fn)
{
	uint64_t stack_pcs[SPOOL_MAX_DEPTH];
	uint8_t stack_buf[SPOOL_SPACE_ENTRY_MAX(SPOOL_MAX_DEPTH)];
	uint64_t *pcs = stack_pcs;
	uint8_t *buf = stack_buf;
	size_t cap = sizeof(stack_buf);
	struct thread_slot *t;

	/* (A vfork child is not told apart: it shares the parent's memory
	 * and slot, and must do no more than exec or _exit anyway.) */
	if (!atomic_load_explicit(&prof_state.enabled, memory_order_relaxed) ||
	    !gate_open() || !(t = own_slot()))
		return;
	int saved_errno = errno;
	alloc_guard_enter();
	/* A library loaded since the table's last sync joins it before the
	 * walk (here, outside any handler, the loader's lock may be taken). */
	modules_poll();
	t->busy = THREAD_BUSY_SPACE;
	atomic_signal_fence(memory_order_seq_cst);
	struct spool_alloc a = {
		.tid = (uint32_t)t->tid,
		.size = n,
		.address = (uint64_t)(uintptr_t)p,
		.weight = countdown_weight(n, atomic_load(&space_interval)),
		.fn = fn,
	};
	deep_room(t, &pcs, &buf, &cap);
	a.depth = own_stack(t, uc, pcs, &a.flags);
	a.time_ns = prof_now_ns();
	int tracked = addrset_insert(&alloc_sampled, a.address) == 0;
	if (!tracked)
		a.flags |= SPOOL_ALLOC_UNTRACKED;
	if (store_alloc(t, &a, pcs, buf, cap) < 0) {
		/* Lost: its free must not be recorded either. */
		if (tracked)
			addrset_remove(&alloc_sampled, a.address);
	}
	atomic_signal_fence(memory_order_seq_cst);
	t->busy = THREAD_IDLE;
	atomic_signal_fence(memory_order_seq_cst);
	settle_deferred(t, pcs, a.depth, spool_alloc_stack_flags(a.flags), buf,
			cap);
	alloc_guard_leave();
	errno = saved_errno;
}

/* Stores the time the handler deferred while the release of a sampled
 * block was being recorded (rare: the record is a few bytes): time spent
 * in the program's call to free, so with the stack walked from here,
 * whose leaf is the wrapper the program called. async-signal-safe */
static void __attribute__((noinline))
record_deferred(struct thread_slot *t)
{
	uint64_t stack_pcs[SPOOL_MAX_DEPTH];
	uint8_t stack_buf[SPOOL_ENTRY_MAX(SPOOL_MAX_DEPTH)];
	uint64_t *pcs = stack_pcs;
	uint8_t *buf = stack_buf;
	size_t cap = sizeof(stack_buf);
	uint32_t flags;
	ucontext_t uc;

	alloc_guard_enter();
	t->busy = THREAD_BUSY_SPACE;
	atomic_signal_fence(memory_order_seq_cst);
	deep_room(t, &pcs, &buf, &cap);
	CAPTURE_REGISTERS(&uc);
	uint32_t depth = own_stack(t, &uc, pcs, &flags);
	atomic_signal_fence(memory_order_seq_cst);
	t->busy = THREAD_IDLE;
	atomic_signal_fence(memory_order_seq_cst);
	settle_deferred(t, pcs, depth, spool_alloc_stack_flags(flags), buf,
			cap);
	alloc_guard_leave();
}

/* Records that the sampled block at addr was released at time_ns.
 * threads_emit, for a thread without a slot, only tries the shared
 * stream's lock. async-signal-safe */
static void __attribute__((noinline))
record_free(uint64_t addr, uint64_t time_ns)
{
	if (!prof_state.initialised)
		return;
	if (alloc_self.guard) {
		/* A signal handler of the target freed it while this thread
		 * was recording: its stream is ours to finish first. */
		prof_drop(SPOOL_DROP_REENTRANT);
		return;
	}
	struct thread_slot *t = threads_self();
	struct spool_free f = {
		.time_ns = time_ns,
		.tid = t ? (uint32_t)t->tid : (uint32_t)gettid(),
		.address = addr,
	};
	int saved_errno = errno;
	if (t) {
		t->busy = THREAD_BUSY_SPACE;
		atomic_signal_fence(memory_order_seq_cst);
		store_free(t, &f);
		atomic_signal_fence(memory_order_seq_cst);
		t->busy = THREAD_IDLE;
		atomic_signal_fence(memory_order_seq_cst);
		if (unlikely(atomic_load_explicit(&t->deferred_ns,
						  memory_order_relaxed)))
			record_deferred(t);
	} else {
		uint8_t buf[SPOOL_REC_HEADER_LEN + 32];
		struct spool_buf b;
		spool_buf_init(&b, buf, sizeof(buf));
		if (spool_put_free(&b, &f) == 0)
			threads_emit(buf, b.len);
	}
	errno = saved_errno;
}

/* The slow path of a release: p may be a sampled block, or the arena's
 * (pinned in the set), which goes back to the arena. Returns 1 for the
 * arena's block, which the real allocator must not see. async-signal-safe */
int __attribute__((noinline))
alloc_forget(void *p)
{
	uint64_t addr = (uint64_t)(uintptr_t)p;
	if (arena_owns(p)) {
		own_free(p);
		return 1;
	}
	if (addrset_remove(&alloc_sampled, addr))
		record_free(addr, prof_now_ns());
	return 0;
}

/* ---- allocating wrappers ---- */

/* A request made while the guard is set is the profiler's own (the room
 * is then 0, so that every request takes its slow path): each slow path
 * serves it from the arena, or from the real allocator when the arena
 * has no block for it. */

/* async-signal-safe */
static void * __attribute__((noinline))
malloc_slow(size_t n)
{
	if (alloc_self.guard) {
		void *p = alloc_own(n, ARENA_ALIGN);
		return p ? p : REAL(malloc)(n);
	}
	int sample = alloc_expired(&alloc_self, n);
	void *p = REAL(malloc)(n);
	if (sample && p)
		SAMPLE_ALLOC(p, n, SPOOL_ALLOC_FN_MALLOC);
	return p;
}

WRAPPER void *
malloc(size_t n)
{
	struct alloc_tls *a = &alloc_self;
	count(a, SPOOL_ALLOC_FN_MALLOC);
	if (unlikely(reaches(a, n))) {
		void *p = malloc_slow(n);
		KEEP_FRAME();
		return p;
	}
	return REAL(malloc)(n);
}

/* async-signal-safe */
static void * __attribute__((noinline))
calloc_slow(size_t k, size_t size, size_t n)
{
	if (alloc_self.guard) {
		void *p = alloc_own(n, ARENA_ALIGN);
		if (!p)
			return REAL(calloc)(k, size);
		memset(p, 0, n);
		return p;
	}
	int sample = alloc_expired(&alloc_self, n);
	void *p = REAL(calloc)(k, size);
	if (sample && p)
		SAMPLE_ALLOC(p, n, SPOOL_ALLOC_FN_CALLOC);
	return p;
}

WRAPPER void *
calloc(size_t k, size_t size)
{
	struct alloc_tls *a = &alloc_self;
	size_t n;
	count(a, SPOOL_ALLOC_FN_CALLOC);
	if (unlikely(__builtin_mul_overflow(k, size, &n)))
		return REAL(calloc)(k, size); /* fails as the library defines */
	if (unlikely(reaches(a, n))) {
		void *p = calloc_slow(k, size, n);
		KEEP_FRAME();
		return p;
	}
	return REAL(calloc)(k, size);
}

/* An aligned allocation by fn, whose real function is call(align, n).
 * async-signal-safe */
static void * __attribute__((noinline))
aligned_slow(real_memalign_fn call, size_t align, size_t n,
	     enum spool_alloc_fn fn)
{
	if (alloc_self.guard) {
		/* align 0: valloc and pvalloc, a page */
		void *p = alloc_own(n, align ? align : 4096);
		return p ? p : call(align, n);
	}
	int sample = alloc_expired(&alloc_self, n);
	void *p = call(align, n);
	if (sample && p)
		SAMPLE_ALLOC(p, n, fn);
	return p;
}

/* async-signal-safe */
static inline void *
aligned(real_memalign_fn call, size_t align, size_t n, enum spool_alloc_fn fn)
{
	struct alloc_tls *a = &alloc_self;
	count(a, fn);
	if (unlikely(reaches(a, n))) {
		void *p = aligned_slow(call, align, n, fn);
		KEEP_FRAME();
		return p;
	}
	return call(align, n);
}

WRAPPER void *
aligned_alloc(size_t align, size_t n)
{
	return aligned(REAL(aligned_alloc), align, n,
		       SPOOL_ALLOC_FN_ALIGNED_ALLOC);
}

WRAPPER void *
memalign(size_t align, size_t n)
{
	return aligned(REAL(memalign), align, n, SPOOL_ALLOC_FN_MEMALIGN);
}

static void *
call_valloc(size_t align, size_t n)
{
	return REAL(valloc)(n);
}

static void *
call_pvalloc(size_t align, size_t n)
{
	return REAL(pvalloc)(n);
}

WRAPPER void *
valloc(size_t n)
{
	return aligned(call_valloc, 0, n, SPOOL_ALLOC_FN_VALLOC);
}

WRAPPER void *
pvalloc(size_t n)
{
	/* pvalloc rounds the size up to whole pages: so do its bytes. */
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t bytes = n ? (n + page - 1) & ~(page - 1) : page;
	if (bytes < n)
		bytes = n; /* overflow: the real pvalloc fails it */
	return aligned(call_pvalloc, 0, bytes, SPOOL_ALLOC_FN_PVALLOC);
}

/* async-signal-safe */
static int __attribute__((noinline))
posix_memalign_slow(void **out, size_t align, size_t n)
{
	if (alloc_self.guard) {
		void *p = align >= sizeof(void *) ? alloc_own(n, align) : NULL;
		if (!p)
			return REAL(posix_memalign)(out, align, n);
		*out = p;
		return 0;
	}
	int sample = alloc_expired(&alloc_self, n);
	int rc = REAL(posix_memalign)(out, align, n);
	if (sample && rc == 0 && *out)
		SAMPLE_ALLOC(*out, n, SPOOL_ALLOC_FN_POSIX_MEMALIGN);
	return rc;
}

WRAPPER int
posix_memalign(void **out, size_t align, size_t n)
{
	struct alloc_tls *a = &alloc_self;
	count(a, SPOOL_ALLOC_FN_POSIX_MEMALIGN);
	if (unlikely(reaches(a, n))) {
		int rc = posix_memalign_slow(out, align, n);
		KEEP_FRAME();
		return rc;
	}
	return REAL(posix_memalign)(out, align, n);
}

/* ---- reallocating wrappers ---- */

/* A reallocation of p to n bytes by fn through call(p). A sampled p is
 * taken out of the set before the real call (after it, another thread
 * could be given the same address) and its FREE recorded with that time
 * once the call succeeded; if it failed, p is still the caller's and goes
 * back in. A reallocation is a new allocation of n bytes for the
 * sampling, whether or not the block moved. */
struct realloc_call {
	void *(*call)(const struct realloc_call *c);
	void *p;
	size_t n;
	int flags;
};

/* async-signal-safe */
static void * __attribute__((noinline))
realloc_slow(const struct realloc_call *c, enum spool_alloc_fn fn)
{
	struct alloc_tls *a = &alloc_self;
	if (arena_owns(c->p))
		return own_realloc(c->p, c->n, a->guard != 0);
	if (a->guard) { /* the profiler's own, or a signal handler's */
		void *q = c->p ? NULL : alloc_own(c->n, ARENA_ALIGN);
		return q ? q : c->call(c);
	}
	uint64_t old = (uint64_t)(uintptr_t)c->p, freed_at = 0;
	int was_sampled = c->p && addrset_remove(&alloc_sampled, old);
	if (was_sampled)
		freed_at = prof_now_ns();
	int sample = reaches(a, c->n) && alloc_expired(a, c->n);
	void *q = c->call(c);
	/* NULL with n > 0: failed, p untouched. realloc(p, 0) returning
	 * NULL has freed p. */
	if (!q && c->n && was_sampled) {
		if (addrset_insert(&alloc_sampled, old) == 0)
			return q;
	}
	if (was_sampled)
		record_free(old, freed_at);
	if (sample && q)
		SAMPLE_ALLOC(q, c->n, fn);
	return q;
}

static void *
call_realloc(const struct realloc_call *c)
{
	return REAL(realloc)(c->p, c->n);
}

WRAPPER void *
realloc(void *p, size_t n)
{
	struct alloc_tls *a = &alloc_self;
	count(a, SPOOL_ALLOC_FN_REALLOC);
	/* The set first: on the slow path the room is left as it was. */
	if (unlikely(addrset_maybe(&alloc_sampled, (uint64_t)(uintptr_t)p) ||
		     reaches(a, n))) {
		struct realloc_call c = { call_realloc, p, n, 0 };
		void *q = realloc_slow(&c, SPOOL_ALLOC_FN_REALLOC);
		KEEP_FRAME();
		return q;
	}
	return REAL(realloc)(p, n);
}

/* reallocarray is realloc after an overflow check, and is done so here:
 * the C library's own reallocarray calls realloc through its public
 * name, which would count and sample the same bytes twice. */
WRAPPER void *
reallocarray(void *p, size_t k, size_t size)
{
	struct alloc_tls *a = &alloc_self;
	size_t n;
	count(a, SPOOL_ALLOC_FN_REALLOCARRAY);
	if (unlikely(__builtin_mul_overflow(k, size, &n))) {
		errno = ENOMEM; /* p untouched */
		return NULL;
	}
	/* The set first: on the slow path the room is left as it was. */
	if (unlikely(addrset_maybe(&alloc_sampled, (uint64_t)(uintptr_t)p) ||
		     reaches(a, n))) {
		struct realloc_call c = { call_realloc, p, n, 0 };
		void *q = realloc_slow(&c, SPOOL_ALLOC_FN_REALLOCARRAY);
		KEEP_FRAME();
		return q;
	}
	return REAL(realloc)(p, n);
}

/* ---- releasing wrappers ---- */

WRAPPER void
free(void *p)
{
	count(&alloc_self, SPOOL_ALLOC_FN_FREE);
	if (!release(p))
		REAL(free)(p);
}

/* C23. Where the C library lacks them (glibc before 2.41) they are
 * what C23 says they are, free(p), so a program that finds them through
 * dlsym gets the right thing. */
WRAPPER void
free_sized(void *p, size_t n)
{
	count(&alloc_self, SPOOL_ALLOC_FN_FREE_SIZED);
	if (!release(p))
		REAL(free_sized)(p, n);
}

WRAPPER void
free_aligned_sized(void *p, size_t align, size_t n)
{
	count(&alloc_self, SPOOL_ALLOC_FN_FREE_ALIGNED_SIZED);
	if (!release(p))
		REAL(free_aligned_sized)(p, align, n);
}

PUBLIC size_t
malloc_usable_size(void *p)
{
	count(&alloc_self, SPOOL_ALLOC_FN_MALLOC_USABLE_SIZE);
	if (arena_owns(p))
		return arena_size(p);
	real_usable_size_fn fn = REAL(malloc_usable_size);
	return fn ? fn(p) : 0;
}

/* ---- jemalloc's extensions ---- */

static void * __attribute__((noinline))
mallocx_slow(size_t n, int flags)
{
	int sample = alloc_expired(&alloc_self, n);
	void *p = REAL(mallocx)(n, flags);
	if (sample && p)
		SAMPLE_ALLOC(p, n, SPOOL_ALLOC_FN_MALLOCX);
	return p;
}

WRAPPER void *
mallocx(size_t n, int flags)
{
	struct alloc_tls *a = &alloc_self;
	count(a, SPOOL_ALLOC_FN_MALLOCX);
	if (unlikely(reaches(a, n))) {
		void *p = mallocx_slow(n, flags);
		KEEP_FRAME();
		return p;
	}
	return REAL(mallocx)(n, flags);
}

static void *
call_rallocx(const struct realloc_call *c)
{
	return REAL(rallocx)(c->p, c->n, c->flags);
}

WRAPPER void *
rallocx(void *p, size_t n, int flags)
{
	struct alloc_tls *a = &alloc_self;
	count(a, SPOOL_ALLOC_FN_RALLOCX);
	if (unlikely(addrset_maybe(&alloc_sampled, (uint64_t)(uintptr_t)p) ||
		     reaches(a, n))) {
		struct realloc_call c = { call_rallocx, p, n, flags };
		void *q = realloc_slow(&c, SPOOL_ALLOC_FN_RALLOCX);
		KEEP_FRAME();
		return q;
	}
	return REAL(rallocx)(p, n, flags);
}

/* Resizes in place: the address stays the caller's throughout, so the
 * set is updated after the call. Success (a real size of at least n) is
 * a new allocation of n bytes at the same address. */
static size_t __attribute__((noinline))
xallocx_slow(void *p, size_t n, size_t extra, int flags)
{
	struct alloc_tls *a = &alloc_self;
	if (arena_owns(p))
		return arena_size(p); /* cannot grow */
	size_t r = REAL(xallocx)(p, n, extra, flags);
	if (r < n)
		return r;
	uint64_t addr = (uint64_t)(uintptr_t)p;
	if (addrset_remove(&alloc_sampled, addr))
		record_free(addr, prof_now_ns());
	if (reaches(a, n) && alloc_expired(a, n))
		SAMPLE_ALLOC(p, n, SPOOL_ALLOC_FN_XALLOCX);
	return r;
}

WRAPPER size_t
xallocx(void *p, size_t n, size_t extra, int flags)
{
	struct alloc_tls *a = &alloc_self;
	count(a, SPOOL_ALLOC_FN_XALLOCX);
	/* The bytes are taken only once the block did grow. */
	if (unlikely(n > a->room ||
		     addrset_maybe(&alloc_sampled, (uint64_t)(uintptr_t)p))) {
		size_t r = xallocx_slow(p, n, extra, flags);
		KEEP_FRAME();
		return r;
	}
	size_t r = REAL(xallocx)(p, n, extra, flags);
	if (r >= n)
		a->room -= n;
	return r;
}

WRAPPER void
sdallocx(void *p, size_t n, int flags)
{
	count(&alloc_self, SPOOL_ALLOC_FN_SDALLOCX);
	if (!release(p))
		REAL(sdallocx)(p, n, flags);
}

WRAPPER void
dallocx(void *p, int flags)
{
	count(&alloc_self, SPOOL_ALLOC_FN_DALLOCX);
	if (!release(p))
		REAL(dallocx)(p, flags);
}

/* ---- life cycle ---- */

void
alloc_set_seed(uint64_t seed)
{
	space_seed = seed;
}

void
alloc_start(uint64_t interval)
{
	struct module_view m;
	alloc_resolve();
	if (interval && modules_lookup_text((uint64_t)(uintptr_t)alloc_start,
					    &m) == 0) {
		own_lo = m.text_lo;
		own_hi = m.text_hi;
	}
	atomic_store(&space_interval, interval);
	atomic_store(&space_settled, 1);
	/* The main thread draws its first countdown at its next request
	 * (the constructor calls this inside the guard). */
	if (alloc_self.guard)
		alloc_self.saved_room = 0;
	else
		alloc_self.room = 0;
	alloc_self.cd.armed = 0;
}

/* async-signal-safe */
void
alloc_thread_attach(struct thread_slot *t)
{
	for (int i = 0; i < SPOOL_ALLOC_FN_MAX_; i++)
		t->alloc_emitted[i] = 0;
	atomic_store(&t->alloc_emitting, 0);
	atomic_store(&t->alloc_calls, alloc_self.calls);
}

/* Encodes what t's counters gained since its last record into buf
 * (which has room for a whole record). Returns the length, 0 when
 * nothing changed. The caller holds t->alloc_emitting. */
static size_t
encode_calls(struct thread_slot *t, uint8_t *buf, size_t cap)
{
	uint64_t *calls = atomic_load(&t->alloc_calls);
	uint64_t delta[SPOOL_ALLOC_FN_MAX_];
	uint64_t any = 0;
	struct spool_buf b;

	if (!calls)
		return 0;
	for (int i = 0; i < SPOOL_ALLOC_FN_MAX_; i++) {
		uint64_t now = __atomic_load_n(&calls[i], __ATOMIC_RELAXED);
		delta[i] = now - t->alloc_emitted[i];
		t->alloc_emitted[i] = now;
		any |= delta[i];
	}
	spool_buf_init(&b, buf, cap);
	if (!any || spool_put_call_counts(&b, (uint32_t)t->tid, delta,
					  SPOOL_ALLOC_FN_MAX_) < 0)
		return 0;
	return b.len;
}

static void
lock_emitting(struct thread_slot *t)
{
	while (atomic_exchange(&t->alloc_emitting, 1))
		sched_yield();
}

void
alloc_thread_detach(struct thread_slot *t)
{
	uint8_t buf[SPOOL_REC_HEADER_LEN + 8 + SPOOL_ALLOC_FN_MAX_ * 8];
	alloc_guard_enter();
	lock_emitting(t);
	size_t len = encode_calls(t, buf, sizeof(buf));
	if (len)
		threads_push(t, buf, len);
	/* The TLS goes away with the thread, and the slot to another. */
	atomic_store(&t->alloc_calls, NULL);
	atomic_store(&t->alloc_emitting, 0);
	alloc_guard_leave();
}

void
alloc_finish(void)
{
	uint8_t buf[SPOOL_REC_HEADER_LEN + 8 + SPOOL_ALLOC_FN_MAX_ * 8];
	uint32_t used = threads_used();
	alloc_guard_enter();
	for (uint32_t i = 0; i < used; i++) {
		struct thread_slot *t = threads_slot(i);
		if (atomic_load(&t->state) != THREAD_LIVE)
			continue;
		lock_emitting(t);
		size_t len = encode_calls(t, buf, sizeof(buf));
		if (len)
			threads_emit(buf, len);
		atomic_store(&t->alloc_emitting, 0);
	}
	alloc_guard_leave();
}

void
alloc_prefork(void)
{
	arena_prefork();
}

void
alloc_postfork_arena(void)
{
	arena_postfork();
}

void
alloc_postfork_child(struct thread_slot *t)
{
	/* The parent's sampled blocks are not the child's to record; the
	 * arena's blocks are still pinned. */
	addrset_clear_members(&alloc_sampled);
	if (!t)
		return;
	for (int i = 0; i < SPOOL_ALLOC_FN_MAX_; i++)
		t->alloc_emitted[i] = alloc_self.calls[i];
	atomic_store(&t->alloc_emitting, 0);
	atomic_store(&t->alloc_calls, alloc_self.calls);
}
