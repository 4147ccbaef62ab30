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
 * on it), and the shared stream's lock (only tried, never waited for) for
 * a FREE from a thread without a stream of its own. A target signal
 * handler that
 * allocates while the slow path runs finds the guard set and passes
 * straight through.
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
 */
#include "alloc.h"

#include "addrset.h"
#include "control.h"
#include "countdown.h"
#include "modules.h"
#include "appender.h"
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

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define PUBLIC __attribute__((visibility("default")))

/* Bytes a thread that cannot sample yet allocates before asking again. */
#define IDLE_COUNTDOWN (64u * 1024)
/* A countdown no request reaches (only SIZE_MAX, which fails anyway). */
#define NEVER (UINT64_C(1) << 63)
/* Frames of our own on top of a sampled stack, at most. */
#define OWN_FRAMES_MAX 8
/* The library's own arena (see "the library's own arena" below): its
 * size, its smallest class (32 bytes), its number of classes (32 B to
 * 64 KiB), the header before each block and the largest alignment. */
#define ARENA_SIZE (1024u * 1024)
#define ARENA_MIN 32u
#define ARENA_CLASSES 12
#define ARENA_HDR 16u
#define ARENA_ALIGN_MAX 4096u

_Static_assert(SPOOL_ALLOC_FN_MAX_ <= THREADS_CALL_COUNTERS,
	       "thread_slot has room for every counter");
_Static_assert(SPOOL_MAX_DEPTH + OWN_FRAMES_MAX <= UNWIND_MEMO_DEPTH,
	       "a memo holds the deepest walk");

/* A thread's state; the fields of the fast path share the first cache
 * line. */
struct alloc_tls {
	/* Bytes the thread may still allocate without reaching its next
	 * sample point: the countdown minus one, so that a request of n
	 * bytes reaches the point (n >= countdown) exactly when n > room,
	 * when subtracting n from room borrows (take()). */
	uint64_t room;
	uint64_t calls[SPOOL_ALLOC_FN_MAX_]; /* by enum spool_alloc_fn */
	struct countdown cd; /* the sampling process; cd.left is only an
				output of countdown_expired(), kept in room */
	uint32_t guard;     /* depth of the profiler's own work */
	uint8_t resolving;  /* inside dlsym, finding the real functions */
	/* What the guard restores when it is left: the profiler's own
	 * calls meanwhile are not the target's. */
	uint64_t saved_room;
	uint64_t saved_calls[SPOOL_ALLOC_FN_MAX_];
};

static __thread struct alloc_tls self __attribute__((tls_model("initial-exec")));

/* Mean sampling interval; 0 while off. settled: it will not change. */
static _Atomic uint64_t space_interval;
static _Atomic int space_settled;
/* Our own code, whose frames a sampled stack starts with. */
static uint64_t own_lo, own_hi;

static struct addrset sampled __attribute__((aligned(4096)));

static struct {
	_Alignas(4096) uint8_t mem[ARENA_SIZE];
	size_t used;                /* carved from mem so far, under lock */
	void *free[ARENA_CLASSES];  /* released blocks by class, under lock */
	atomic_flag lock;
	sigset_t fork_mask;         /* the forking thread's, while it holds lock */
} arena = { .lock = ATOMIC_FLAG_INIT };

/* ---- the real functions ---- */

typedef void *(*malloc_fn)(size_t);
typedef void (*free_fn)(void *);
typedef void *(*calloc_fn)(size_t, size_t);
typedef void *(*realloc_fn)(void *, size_t);
typedef int (*posix_memalign_fn)(void **, size_t, size_t);
typedef void *(*memalign_fn)(size_t, size_t);
typedef void (*free_sized_fn)(void *, size_t);
typedef void (*free_aligned_sized_fn)(void *, size_t, size_t);
typedef void *(*mallocx_fn)(size_t, int);
typedef void *(*rallocx_fn)(void *, size_t, int);
typedef size_t (*xallocx_fn)(void *, size_t, size_t, int);
typedef void (*sdallocx_fn)(void *, size_t, int);
typedef void (*dallocx_fn)(void *, int);
typedef size_t (*usable_size_fn)(void *);

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

/* Until resolve() has run, each points to a bootstrap version that
 * resolves first. Read and written with relaxed atomics (REAL). */
static struct {
	malloc_fn malloc;
	free_fn free;
	calloc_fn calloc;
	realloc_fn realloc;
	posix_memalign_fn posix_memalign;
	memalign_fn aligned_alloc;
	memalign_fn memalign;
	malloc_fn valloc;
	malloc_fn pvalloc;
	free_sized_fn free_sized;
	free_aligned_sized_fn free_aligned_sized;
	mallocx_fn mallocx;
	rallocx_fn rallocx;
	xallocx_fn xallocx;
	sdallocx_fn sdallocx;
	dallocx_fn dallocx;
	usable_size_fn malloc_usable_size;
} real = {
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

/* glibc's own entry points: the fallback when dlsym finds nothing. */
extern void *__libc_malloc(size_t);
extern void __libc_free(void *);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

/* Fallbacks for entry points the next allocator does not have. */
static int
emulate_posix_memalign(void **out, size_t align, size_t n)
{
	void *p = REAL(memalign)(align, n);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

static void *
emulate_valloc(size_t n)
{
	return REAL(memalign)((size_t)sysconf(_SC_PAGESIZE), n);
}

static void
emulate_free_sized(void *p, size_t n)
{
	REAL(free)(p);
}

static void
emulate_free_aligned_sized(void *p, size_t align, size_t n)
{
	REAL(free)(p);
}

/* jemalloc's extensions when no jemalloc is loaded: a program can only get
 * here through dlsym, and is told there is no memory. */
static void *
missing_mallocx(size_t n, int flags)
{
	errno = ENOMEM;
	return NULL;
}

static void *
missing_rallocx(void *p, size_t n, int flags)
{
	errno = ENOMEM;
	return NULL;
}

static size_t
missing_xallocx(void *p, size_t n, size_t extra, int flags)
{
	return 0;
}

static void
missing_sdallocx(void *p, size_t n, int flags)
{
	REAL(free)(p);
}

static void
missing_dallocx(void *p, int flags)
{
	REAL(free)(p);
}

static void *
next(const char *name, void *fallback)
{
	void *p = dlsym(RTLD_NEXT, name);
	return p ? p : fallback;
}

#define RESOLVE(fn, type, fallback) \
	SET_REAL(fn, (type)next(#fn, (void *)(fallback)))

/* Finds the real functions once. Returns 0 when they are known, -1 while
 * they are being looked up (by this thread, inside dlsym, or by another):
 * the caller then serves the request from the bootstrap buffer. */
static int
resolve(void)
{
	static _Atomic int state; /* 0 unknown, 1 resolving, 2 known */
	int expect = 0;
	if (likely(atomic_load_explicit(&state, memory_order_acquire) == 2))
		return 0;
	if (self.resolving ||
	    !atomic_compare_exchange_strong(&state, &expect, 1))
		return -1;
	self.resolving = 1;
	/* dlsym allocates (its error strings, for the names the allocator
	 * lacks): the profiler's own requests, for the arena and not
	 * counted, even when the target's first request got us here before
	 * the constructor ran. */
	alloc_guard_enter();
	/* The four everyone needs first: dlsym's own error path allocates
	 * when an optional name below is missing. */
	RESOLVE(malloc, malloc_fn, __libc_malloc);
	RESOLVE(free, free_fn, __libc_free);
	RESOLVE(calloc, calloc_fn, __libc_calloc);
	RESOLVE(realloc, realloc_fn, __libc_realloc);
	RESOLVE(memalign, memalign_fn, __libc_memalign);
	RESOLVE(aligned_alloc, memalign_fn, REAL(memalign));
	RESOLVE(posix_memalign, posix_memalign_fn, emulate_posix_memalign);
	RESOLVE(valloc, malloc_fn, emulate_valloc);
	RESOLVE(pvalloc, malloc_fn, emulate_valloc);
	RESOLVE(free_sized, free_sized_fn, emulate_free_sized);
	RESOLVE(free_aligned_sized, free_aligned_sized_fn,
		emulate_free_aligned_sized);
	RESOLVE(mallocx, mallocx_fn, missing_mallocx);
	RESOLVE(rallocx, rallocx_fn, missing_rallocx);
	RESOLVE(xallocx, xallocx_fn, missing_xallocx);
	RESOLVE(sdallocx, sdallocx_fn, missing_sdallocx);
	RESOLVE(dallocx, dallocx_fn, missing_dallocx);
	RESOLVE(malloc_usable_size, usable_size_fn, NULL);
	alloc_guard_leave();
	self.resolving = 0;
	atomic_store_explicit(&state, 2, memory_order_release);
	return 0;
}

/* ---- the library's own arena ---- */

/*
 * What the profiler allocates itself (while the guard is set: start-up, a
 * new thread's set-up, recording a sample, and the look-up of the real
 * functions, whose dlsym allocates) comes from here, never from the
 * target's heap; so does what anyone allocates before the real functions
 * are known. Blocks are of power-of-two classes from ARENA_MIN bytes to
 * 64 KiB, carved from static storage (untouched pages cost nothing) and
 * kept on a free list per class once released: a thread's set-up
 * allocates and frees again (pthread_getattr_np), so a bump allocator
 * would grow with every thread. A request the arena cannot serve (larger
 * than its classes, or the storage used up) goes to the real allocator.
 *
 * Every block out is pinned in the filter of the sampled set, so that its
 * release, on whatever thread and whether or not the guard is set, takes
 * the slow path (forget()), which tells it by its address. The lock is a
 * spinlock held with every signal blocked, so that no signal handler can
 * find it held by its own thread; the fork hooks hold it across fork.
 */

/* Before each block. */
struct own_hdr {
	uint32_t cls;    /* the block is ARENA_MIN << cls bytes */
	uint32_t offset; /* from the block's start to the pointer given out */
	uint64_t size;   /* bytes asked for */
};

/* async-signal-safe */
static void
arena_lock(sigset_t *old)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, old);
	while (atomic_flag_test_and_set_explicit(&arena.lock,
						 memory_order_acquire))
		sched_yield();
}

/* async-signal-safe */
static void
arena_unlock(const sigset_t *old)
{
	atomic_flag_clear_explicit(&arena.lock, memory_order_release);
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

static inline int
is_own(const void *p)
{
	return (uintptr_t)p - (uintptr_t)arena.mem < ARENA_SIZE;
}

static struct own_hdr
own_hdr(const void *p)
{
	struct own_hdr h;
	memcpy(&h, (const uint8_t *)p - ARENA_HDR, sizeof(h));
	return h;
}

/* A block of n bytes aligned to align (a power of two up to
 * ARENA_ALIGN_MAX), or NULL when the arena cannot give one.
 * async-signal-safe */
static void *
own_alloc(size_t n, size_t align)
{
	if (align < ARENA_HDR)
		align = ARENA_HDR;
	if (align > ARENA_ALIGN_MAX || (align & (align - 1)) ||
	    n > (ARENA_MIN << (ARENA_CLASSES - 1)))
		return NULL;
	size_t need = n + ARENA_HDR + (align > ARENA_HDR ? align : 0);
	uint32_t cls = 0;
	while ((size_t)ARENA_MIN << cls < need)
		if (++cls == ARENA_CLASSES)
			return NULL;
	size_t csize = (size_t)ARENA_MIN << cls;
	uint8_t *b;
	sigset_t old;
	arena_lock(&old);
	if ((b = arena.free[cls]) != NULL) {
		memcpy(&arena.free[cls], b, sizeof(void *));
	} else if (csize <= ARENA_SIZE - arena.used) {
		b = arena.mem + arena.used; /* used stays a multiple of 32 */
		arena.used += csize;
	}
	arena_unlock(&old);
	if (!b)
		return NULL;
	uintptr_t u = ((uintptr_t)b + ARENA_HDR + align - 1) &
		      ~(uintptr_t)(align - 1);
	struct own_hdr h = { cls, (uint32_t)(u - (uintptr_t)b), n };
	memcpy((void *)(u - ARENA_HDR), &h, sizeof(h));
	addrset_pin(&sampled, u);
	return (void *)u;
}

/* Puts the arena's block p back. async-signal-safe */
static void
own_free(void *p)
{
	struct own_hdr h = own_hdr(p);
	uint8_t *b = (uint8_t *)p - h.offset;
	addrset_unpin(&sampled, (uint64_t)(uintptr_t)p);
	sigset_t old;
	arena_lock(&old);
	memcpy(b, &arena.free[h.cls], sizeof(void *));
	arena.free[h.cls] = b;
	arena_unlock(&old);
}

static size_t
own_size(const void *p)
{
	return (size_t)own_hdr(p).size;
}

/* realloc of the arena's block p (or of NULL) to n bytes. With stay (the
 * profiler's own block, or any before the real functions are known) the
 * block stays in the arena when it can, in place or in a new block;
 * otherwise, or when the arena has none, it moves to the real allocator
 * (when known). A move is uncounted and unsampled: the call that asked is
 * counted already, and a block of the target's here was allocated before
 * the real functions were known. realloc(p, 0) frees p and returns NULL,
 * as glibc's does. */
static void *
own_realloc(void *p, size_t n, int stay)
{
	if (!p)
		return own_alloc(n, ARENA_HDR);
	if (!n) {
		own_free(p);
		return NULL;
	}
	struct own_hdr h = own_hdr(p);
	void *q = NULL;
	if (stay) {
		if (n <= ((size_t)ARENA_MIN << h.cls) - h.offset) {
			h.size = n;
			memcpy((uint8_t *)p - ARENA_HDR, &h, sizeof(h));
			return p;
		}
		q = own_alloc(n, ARENA_HDR);
	}
	if (!q && resolve() == 0)
		q = REAL(malloc)(n);
	if (!q) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(q, p, h.size < n ? h.size : n);
	own_free(p);
	return q;
}

/* ---- stand-ins until the real functions are known ---- */

/* own_alloc() for a caller that has no other: NULL is ENOMEM. */
static void *
boot_alloc(size_t n, size_t align)
{
	void *p = own_alloc(n, align);
	if (!p)
		errno = ENOMEM;
	return p;
}

static void *
boot_malloc(size_t n)
{
	return resolve() == 0 ? REAL(malloc)(n) : boot_alloc(n, ARENA_HDR);
}

static void
boot_free(void *p)
{
	/* The arena's blocks never get here (forget() takes them); another
	 * is the real allocator's, which is known once anything came from
	 * it. */
	if (!is_own(p) && resolve() == 0)
		REAL(free)(p);
}

static void *
boot_calloc(size_t k, size_t n)
{
	size_t bytes;
	if (resolve() == 0)
		return REAL(calloc)(k, n);
	if (__builtin_mul_overflow(k, n, &bytes)) {
		errno = ENOMEM;
		return NULL;
	}
	void *p = boot_alloc(bytes, ARENA_HDR);
	if (p)
		memset(p, 0, bytes); /* a block of the arena may be reused */
	return p;
}

static void *
boot_realloc(void *p, size_t n)
{
	if (resolve() == 0)
		return REAL(realloc)(p, n);
	return own_realloc(p, n, 1);
}

static void *
boot_memalign(size_t align, size_t n)
{
	if (resolve() == 0)
		return REAL(memalign)(align, n);
	return boot_alloc(n, align);
}

static int
boot_posix_memalign(void **out, size_t align, size_t n)
{
	if (resolve() == 0)
		return REAL(posix_memalign)(out, align, n);
	void *p = own_alloc(n, align);
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
	if (resolve() == 0 && REAL(malloc_usable_size))
		return REAL(malloc_usable_size)(p);
	return 0;
}

static void
boot_free_sized(void *p, size_t n)
{
	if (resolve() == 0)
		REAL(free_sized)(p, n);
	else
		boot_free(p);
}

static void
boot_free_aligned_sized(void *p, size_t align, size_t n)
{
	if (resolve() == 0)
		REAL(free_aligned_sized)(p, align, n);
	else
		boot_free(p);
}

static void *
boot_mallocx(size_t n, int flags)
{
	return resolve() == 0 ? REAL(mallocx)(n, flags) :
				boot_alloc(n, ARENA_HDR);
}

static void *
boot_rallocx(void *p, size_t n, int flags)
{
	return resolve() == 0 ? REAL(rallocx)(p, n, flags) : boot_realloc(p, n);
}

static size_t
boot_xallocx(void *p, size_t n, size_t extra, int flags)
{
	return resolve() == 0 ? REAL(xallocx)(p, n, extra, flags) : 0;
}

static void
boot_sdallocx(void *p, size_t n, int flags)
{
	if (resolve() == 0)
		REAL(sdallocx)(p, n, flags);
	else
		boot_free(p);
}

static void
boot_dallocx(void *p, int flags)
{
	if (resolve() == 0)
		REAL(dallocx)(p, flags);
	else
		boot_free(p);
}

/* ---- counting and the guard ---- */

/* A plain increment (one instruction): only the owner writes its
 * counters; others (alloc_finish) read them with relaxed atomic loads of
 * aligned words, which cannot tear. */
static inline void
count(struct alloc_tls *a, enum spool_alloc_fn fn)
{
	a->calls[fn]++;
}

/* async-signal-safe */
void
alloc_guard_enter(void)
{
	struct alloc_tls *a = &self;
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
	struct alloc_tls *a = &self;
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
	return self.guard != 0;
}

/* ---- sampling ---- */

/* Takes n bytes from thread a's room: one subtraction from memory and a
 * branch on its borrow, the whole of an allocation's fast path. Returns
 * whether the request reaches the next sample point (n > room); the room
 * has then wrapped around, and the caller gives the bytes back (give())
 * before its slow path. A signal handler's allocation in between takes
 * from the wrapped room and its bytes stay taken: the arithmetic is
 * modulo 2^64. async-signal-safe */
static inline int
take(struct alloc_tls *a, uint64_t n)
{
	_Bool borrow;
	__asm__("subq %2, %0" : "+m"(a->room), "=@ccc"(borrow) : "r"(n));
	return borrow;
}

/* Undoes take(). async-signal-safe */
static inline void
give(struct alloc_tls *a, uint64_t n)
{
	a->room += n;
}

/* Whether a request of n bytes reaches thread a's next sample point,
 * taking the bytes from its room when it does not. Leaves the room as it
 * was when it does, for the slow path. async-signal-safe */
static inline int
reaches(struct alloc_tls *a, uint64_t n)
{
	if (likely(!take(a, n)))
		return 0;
	give(a, n);
	return 1;
}

/* Thread a's request of n bytes reached its next sample point (n >
 * room). Sets the next countdown and returns whether this request is
 * sampled. async-signal-safe */
static int
expired(struct alloc_tls *a, size_t n)
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
		a->cd.rng = countdown_seed((uint64_t)(uintptr_t)a,
					   prof_now_ns());
	int hit = countdown_expired(&a->cd, n, interval);
	a->room = a->cd.left - 1; /* cd.left >= 1 */
	return hit;
}

/* The slot of the calling thread, binding an adopted one (a thread that
 * was running before the library started) on its first sample. */
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
 * skip. */
static uint32_t
own_frames(const uint64_t *pcs, uint32_t depth)
{
	uint32_t k = 0;
	while (k < depth && pcs[k] >= own_lo && pcs[k] < own_hi)
		k++;
	return k > 0 && k < depth ? k - 1 : 0;
}

/* What getcontext() saves that the unwinder reads, without its system
 * call (sigprocmask): the stack pointer, the callee-saved registers and,
 * as the PC, the address right after the capture. They describe the
 * caller at that instruction, where its unwind rules (CFI) hold as at any
 * other. The other registers are left 0. async-signal-safe */
#define CAPTURE_REGISTERS(uc)                                                \
	do {                                                                 \
		greg_t *g_ = (uc)->uc_mcontext.gregs;                        \
		memset(g_, 0, sizeof((uc)->uc_mcontext.gregs));              \
		__asm__ volatile("movq %%rbx, %c[rbx](%[g])\n\t"            \
				 "movq %%rbp, %c[rbp](%[g])\n\t"            \
				 "movq %%r12, %c[r12](%[g])\n\t"            \
				 "movq %%r13, %c[r13](%[g])\n\t"            \
				 "movq %%r14, %c[r14](%[g])\n\t"            \
				 "movq %%r15, %c[r15](%[g])\n\t"            \
				 "movq %%rsp, %c[rsp](%[g])\n\t"            \
				 "leaq 1f(%%rip), %%rax\n\t"                \
				 "movq %%rax, %c[rip](%[g])\n"               \
				 "1:"                                         \
				 :                                            \
				 : [g] "r"(g_), [rbx] "i"(REG_RBX * 8),       \
				   [rbp] "i"(REG_RBP * 8), [r12] "i"(REG_R12 * 8), \
				   [r13] "i"(REG_R13 * 8), [r14] "i"(REG_R14 * 8), \
				   [r15] "i"(REG_R15 * 8), [rsp] "i"(REG_RSP * 8), \
				   [rip] "i"(REG_RIP * 8)                     \
				 : "rax", "memory");                          \
	} while (0)

/* Unwinds the calling thread from uc, captured in a wrapper's slow path
 * (so that only that function and the wrapper are frames of ours to walk
 * through), into pcs. Returns the depth; *flags gets SPOOL_SAMPLE_* bits. */
static uint32_t
own_stack(struct thread_slot *t, const ucontext_t *uc, uint64_t *pcs,
	  uint32_t *flags)
{
	uint64_t raw[SPOOL_MAX_DEPTH + OWN_FRAMES_MAX];
	uint32_t max = prof_state.cfg.max_depth + OWN_FRAMES_MAX;
	uint16_t f = 0;

	if (max > SPOOL_MAX_DEPTH + OWN_FRAMES_MAX)
		max = SPOOL_MAX_DEPTH + OWN_FRAMES_MAX;
	uint32_t depth = unwind_stack_memo(uc, t, &t->memo, raw, max, &f);
	uint32_t skip = own_frames(raw, depth);
	depth -= skip;
	if (depth > prof_state.cfg.max_depth) {
		depth = prof_state.cfg.max_depth;
		f |= SPOOL_SAMPLE_TRUNCATED;
	}
	memcpy(pcs, raw + skip, depth * sizeof(*pcs));
	*flags = f;
	return depth;
}

/* Appends a record to the calling thread's stream (t->busy set).
 * Returns 0 or a negative error (the drop is counted).
 * async-signal-safe */
static int
push_own(struct thread_slot *t, const void *rec, size_t len)
{
	int rc = appender_append(&t->stream, rec, len);
	if (rc == -ENOSPC)
		prof_drop(SPOOL_DROP_WRITE);
	return rc;
}

/* Records the sampled allocation of n bytes at p, made by fn. The
 * sampling signal's handler drops a time sample that lands meanwhile
 * (busy): it would walk the same per-thread unwinder cache.
 * async-signal-safe */
static void __attribute__((noinline))
record_alloc(const ucontext_t *uc, void *p, size_t n, enum spool_alloc_fn fn)
{
	uint64_t pcs[SPOOL_MAX_DEPTH];
	uint8_t buf[SPOOL_REC_HEADER_LEN + 64 + SPOOL_MAX_DEPTH * 8];
	struct spool_buf b;
	struct thread_slot *t;

	/* (A vfork child is not told apart: it shares the parent's memory
	 * and slot, and must do no more than exec or _exit anyway.) */
	if (!atomic_load_explicit(&prof_state.enabled, memory_order_relaxed) ||
	    !control_sampling() || !(t = own_slot()))
		return;
	int saved_errno = errno;
	alloc_guard_enter();
	/* A library loaded since the table's last sync joins it before the
	 * walk (here, outside any handler, the loader's lock may be taken). */
	modules_poll();
	t->busy = 1;
	atomic_signal_fence(memory_order_seq_cst);
	struct spool_alloc a = {
		.tid = (uint32_t)t->tid,
		.size = n,
		.address = (uint64_t)(uintptr_t)p,
		.weight = countdown_weight(n, atomic_load(&space_interval)),
		.fn = fn,
	};
	a.depth = own_stack(t, uc, pcs, &a.flags);
	a.time_ns = prof_now_ns();
	int tracked = addrset_insert(&sampled, a.address) == 0;
	if (!tracked)
		a.flags |= SPOOL_ALLOC_UNTRACKED;
	spool_buf_init(&b, buf, sizeof(buf));
	if (spool_put_alloc(&b, &a, pcs) < 0 ||
	    push_own(t, buf, b.len) < 0) {
		/* Lost: its free must not be recorded either. */
		if (tracked)
			addrset_remove(&sampled, a.address);
	}
	atomic_signal_fence(memory_order_seq_cst);
	t->busy = 0;
	alloc_guard_leave();
	errno = saved_errno;
}

/* Records a sampled allocation from the slow path of a wrapper, whose
 * registers are the start of the stack walk. */
#define SAMPLE_ALLOC(p, n, fn)                                               \
	do {                                                                 \
		ucontext_t uc_;                                              \
		CAPTURE_REGISTERS(&uc_);                                     \
		record_alloc(&uc_, (p), (n), (fn));                          \
	} while (0)

/* Records that the sampled block at addr was released at time_ns.
 * async-signal-safe but for threads_emit (threads without a slot). */
static void __attribute__((noinline))
record_free(uint64_t addr, uint64_t time_ns)
{
	uint8_t buf[SPOOL_REC_HEADER_LEN + 32];
	struct spool_buf b;

	if (!prof_state.initialised)
		return;
	if (self.guard) {
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
	spool_buf_init(&b, buf, sizeof(buf));
	if (spool_put_free(&b, &f) < 0)
		return;
	int saved_errno = errno;
	if (t) {
		t->busy = 1;
		atomic_signal_fence(memory_order_seq_cst);
		push_own(t, buf, b.len);
		atomic_signal_fence(memory_order_seq_cst);
		t->busy = 0;
	} else {
		threads_emit(buf, b.len);
	}
	errno = saved_errno;
}

/* The slow path of a release: p may be a sampled block, or the arena's
 * (pinned in the set), which goes back to the arena. Returns 1 for the
 * arena's block, which the real allocator must not see. */
static int __attribute__((noinline))
forget(void *p)
{
	uint64_t addr = (uint64_t)(uintptr_t)p;
	if (is_own(p)) {
		own_free(p);
		return 1;
	}
	if (addrset_remove(&sampled, addr))
		record_free(addr, prof_now_ns());
	return 0;
}

/* What every release does first: one byte load unless p may be sampled.
 * Returns 1 for the arena's block, which the real allocator must not
 * see. */
static inline int
release(void *p)
{
	if (unlikely(addrset_maybe(&sampled, (uint64_t)(uintptr_t)p)))
		return forget(p);
	return 0;
}

/* Keeps the compiler from turning a call to a slow path into a jump: the
 * wrapper's own frame must stay on the stack, to be the sample's leaf. */
#define KEEP_FRAME() __asm__ volatile("" ::: "memory")

/* ---- allocating wrappers ---- */

/* A request made while the guard is set is the profiler's own (the room
 * is then 0, so that every request takes its slow path): each slow path
 * serves it from the arena, or from the real allocator when the arena
 * has no block for it. */

static void * __attribute__((noinline))
malloc_slow(size_t n)
{
	if (self.guard) {
		void *p = own_alloc(n, ARENA_HDR);
		return p ? p : REAL(malloc)(n);
	}
	int sample = expired(&self, n);
	void *p = REAL(malloc)(n);
	if (sample && p)
		SAMPLE_ALLOC(p, n, SPOOL_ALLOC_FN_MALLOC);
	return p;
}

PUBLIC void *
malloc(size_t n)
{
	struct alloc_tls *a = &self;
	count(a, SPOOL_ALLOC_FN_MALLOC);
	if (unlikely(reaches(a, n))) {
		void *p = malloc_slow(n);
		KEEP_FRAME();
		return p;
	}
	return REAL(malloc)(n);
}

static void * __attribute__((noinline))
calloc_slow(size_t k, size_t size, size_t n)
{
	if (self.guard) {
		void *p = own_alloc(n, ARENA_HDR);
		if (!p)
			return REAL(calloc)(k, size);
		memset(p, 0, n);
		return p;
	}
	int sample = expired(&self, n);
	void *p = REAL(calloc)(k, size);
	if (sample && p)
		SAMPLE_ALLOC(p, n, SPOOL_ALLOC_FN_CALLOC);
	return p;
}

PUBLIC void *
calloc(size_t k, size_t size)
{
	struct alloc_tls *a = &self;
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

/* An aligned allocation by fn, whose real function is call(align, n). */
static void * __attribute__((noinline))
aligned_slow(memalign_fn call, size_t align, size_t n,
	     enum spool_alloc_fn fn)
{
	if (self.guard) {
		/* align 0: valloc and pvalloc, a page */
		void *p = own_alloc(n, align ? align : 4096);
		return p ? p : call(align, n);
	}
	int sample = expired(&self, n);
	void *p = call(align, n);
	if (sample && p)
		SAMPLE_ALLOC(p, n, fn);
	return p;
}

static inline void *
aligned(memalign_fn call, size_t align, size_t n, enum spool_alloc_fn fn)
{
	struct alloc_tls *a = &self;
	count(a, fn);
	if (unlikely(reaches(a, n))) {
		void *p = aligned_slow(call, align, n, fn);
		KEEP_FRAME();
		return p;
	}
	return call(align, n);
}

PUBLIC void *
aligned_alloc(size_t align, size_t n)
{
	return aligned(REAL(aligned_alloc), align, n,
		       SPOOL_ALLOC_FN_ALIGNED_ALLOC);
}

PUBLIC void *
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

PUBLIC void *
valloc(size_t n)
{
	return aligned(call_valloc, 0, n, SPOOL_ALLOC_FN_VALLOC);
}

PUBLIC void *
pvalloc(size_t n)
{
	/* pvalloc rounds the size up to whole pages: so do its bytes. */
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t bytes = n ? (n + page - 1) & ~(page - 1) : page;
	if (bytes < n)
		bytes = n; /* overflow: the real pvalloc fails it */
	return aligned(call_pvalloc, 0, bytes, SPOOL_ALLOC_FN_PVALLOC);
}

static int __attribute__((noinline))
posix_memalign_slow(void **out, size_t align, size_t n)
{
	if (self.guard) {
		void *p = align >= sizeof(void *) ? own_alloc(n, align) : NULL;
		if (!p)
			return REAL(posix_memalign)(out, align, n);
		*out = p;
		return 0;
	}
	int sample = expired(&self, n);
	int rc = REAL(posix_memalign)(out, align, n);
	if (sample && rc == 0 && *out)
		SAMPLE_ALLOC(*out, n, SPOOL_ALLOC_FN_POSIX_MEMALIGN);
	return rc;
}

PUBLIC int
posix_memalign(void **out, size_t align, size_t n)
{
	struct alloc_tls *a = &self;
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

static void * __attribute__((noinline))
realloc_slow(const struct realloc_call *c, enum spool_alloc_fn fn)
{
	struct alloc_tls *a = &self;
	if (is_own(c->p))
		return own_realloc(c->p, c->n, a->guard != 0);
	if (a->guard) { /* the profiler's own, or a signal handler's */
		void *q = c->p ? NULL : own_alloc(c->n, ARENA_HDR);
		return q ? q : c->call(c);
	}
	uint64_t old = (uint64_t)(uintptr_t)c->p, freed_at = 0;
	int was_sampled = c->p && addrset_remove(&sampled, old);
	if (was_sampled)
		freed_at = prof_now_ns();
	int sample = reaches(a, c->n) && expired(a, c->n);
	void *q = c->call(c);
	/* NULL with n > 0: failed, p untouched. realloc(p, 0) returning
	 * NULL has freed p. */
	if (!q && c->n && was_sampled) {
		if (addrset_insert(&sampled, old) == 0)
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

PUBLIC void *
realloc(void *p, size_t n)
{
	struct alloc_tls *a = &self;
	count(a, SPOOL_ALLOC_FN_REALLOC);
	/* The set first: on the slow path the room is left as it was. */
	if (unlikely(addrset_maybe(&sampled, (uint64_t)(uintptr_t)p) ||
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
PUBLIC void *
reallocarray(void *p, size_t k, size_t size)
{
	struct alloc_tls *a = &self;
	size_t n;
	count(a, SPOOL_ALLOC_FN_REALLOCARRAY);
	if (unlikely(__builtin_mul_overflow(k, size, &n))) {
		errno = ENOMEM; /* p untouched */
		return NULL;
	}
	/* The set first: on the slow path the room is left as it was. */
	if (unlikely(addrset_maybe(&sampled, (uint64_t)(uintptr_t)p) ||
		     reaches(a, n))) {
		struct realloc_call c = { call_realloc, p, n, 0 };
		void *q = realloc_slow(&c, SPOOL_ALLOC_FN_REALLOCARRAY);
		KEEP_FRAME();
		return q;
	}
	return REAL(realloc)(p, n);
}

/* ---- releasing wrappers ---- */

PUBLIC void
free(void *p)
{
	count(&self, SPOOL_ALLOC_FN_FREE);
	if (!release(p))
		REAL(free)(p);
}

/* C23. Where the C library lacks them (glibc before 2.41) they are
 * what C23 says they are, free(p), so a program that finds them through
 * dlsym gets the right thing. */
PUBLIC void
free_sized(void *p, size_t n)
{
	count(&self, SPOOL_ALLOC_FN_FREE_SIZED);
	if (!release(p))
		REAL(free_sized)(p, n);
}

PUBLIC void
free_aligned_sized(void *p, size_t align, size_t n)
{
	count(&self, SPOOL_ALLOC_FN_FREE_ALIGNED_SIZED);
	if (!release(p))
		REAL(free_aligned_sized)(p, align, n);
}

PUBLIC size_t
malloc_usable_size(void *p)
{
	count(&self, SPOOL_ALLOC_FN_MALLOC_USABLE_SIZE);
	if (is_own(p))
		return own_size(p);
	usable_size_fn fn = REAL(malloc_usable_size);
	return fn ? fn(p) : 0;
}

/* ---- jemalloc's extensions ---- */

static void * __attribute__((noinline))
mallocx_slow(size_t n, int flags)
{
	int sample = expired(&self, n);
	void *p = REAL(mallocx)(n, flags);
	if (sample && p)
		SAMPLE_ALLOC(p, n, SPOOL_ALLOC_FN_MALLOCX);
	return p;
}

PUBLIC void *
mallocx(size_t n, int flags)
{
	struct alloc_tls *a = &self;
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

PUBLIC void *
rallocx(void *p, size_t n, int flags)
{
	struct alloc_tls *a = &self;
	count(a, SPOOL_ALLOC_FN_RALLOCX);
	if (unlikely(addrset_maybe(&sampled, (uint64_t)(uintptr_t)p) ||
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
	struct alloc_tls *a = &self;
	if (is_own(p))
		return own_size(p); /* cannot grow */
	size_t r = REAL(xallocx)(p, n, extra, flags);
	if (r < n)
		return r;
	uint64_t addr = (uint64_t)(uintptr_t)p;
	if (addrset_remove(&sampled, addr))
		record_free(addr, prof_now_ns());
	if (reaches(a, n) && expired(a, n))
		SAMPLE_ALLOC(p, n, SPOOL_ALLOC_FN_XALLOCX);
	return r;
}

PUBLIC size_t
xallocx(void *p, size_t n, size_t extra, int flags)
{
	struct alloc_tls *a = &self;
	count(a, SPOOL_ALLOC_FN_XALLOCX);
	/* The bytes are taken only once the block did grow. */
	if (unlikely(n > a->room ||
		     addrset_maybe(&sampled, (uint64_t)(uintptr_t)p))) {
		size_t r = xallocx_slow(p, n, extra, flags);
		KEEP_FRAME();
		return r;
	}
	size_t r = REAL(xallocx)(p, n, extra, flags);
	if (r >= n)
		a->room -= n;
	return r;
}

PUBLIC void
sdallocx(void *p, size_t n, int flags)
{
	count(&self, SPOOL_ALLOC_FN_SDALLOCX);
	if (!release(p))
		REAL(sdallocx)(p, n, flags);
}

PUBLIC void
dallocx(void *p, int flags)
{
	count(&self, SPOOL_ALLOC_FN_DALLOCX);
	if (!release(p))
		REAL(dallocx)(p, flags);
}

/* ---- C++'s operator new and delete ----
 *
 * C++ allocates through operator new and releases through operator
 * delete. Where they come from the C++ runtime (libstdc++, libc++), they
 * call malloc and free through their public names, which count and sample
 * them; but an allocator that defines them itself (jemalloc, tcmalloc,
 * mimalloc, preloaded or linked) may serve them from its own heap
 * without a call to malloc, or only some of them (jemalloc's aligned new
 * calls aligned_alloc, its unsized delete free). So the twenty replaceable
 * forms are wrapped too. Each counts its call (one counter for the new
 * forms, one for the delete forms), and learns from its first call
 * whether the real one calls one of the C wrappers: the call is made
 * with nothing taken or checked, and the thread's C counters compared
 * before and after. A form that does ("passes") goes straight to the real
 * one from then on, whose malloc or free samples and records; one that
 * does not ("owns") samples and releases as malloc and free do, the
 * first call's bytes taken once it returned.
 *
 * The real ones are looked up at the first call of any form, when a C++
 * runtime is loaded. dlsym(RTLD_NEXT) sees only the objects of the
 * global scope: a C++ library a C program loaded with RTLD_LOCAL (Python
 * extensions are) brings a runtime it cannot see, which is then found by
 * walking the loaded objects. An exception thrown by the real operator
 * new passes through the wrappers (their unwind tables describe them).
 */

/* The wrappers, by their mangled names (the Itanium C++ ABI's, size_t
 * being unsigned long): std::align_val_t is passed as a size_t and a
 * std::nothrow_t const& as a pointer. */
void *_Znwm(size_t n);
void *_Znam(size_t n);
void *_ZnwmRKSt9nothrow_t(size_t n, const void *nt);
void *_ZnamRKSt9nothrow_t(size_t n, const void *nt);
void *_ZnwmSt11align_val_t(size_t n, size_t align);
void *_ZnamSt11align_val_t(size_t n, size_t align);
void *_ZnwmSt11align_val_tRKSt9nothrow_t(size_t n, size_t align,
					 const void *nt);
void *_ZnamSt11align_val_tRKSt9nothrow_t(size_t n, size_t align,
					 const void *nt);
void _ZdlPv(void *p);
void _ZdaPv(void *p);
void _ZdlPvm(void *p, size_t n);
void _ZdaPvm(void *p, size_t n);
void _ZdlPvRKSt9nothrow_t(void *p, const void *nt);
void _ZdaPvRKSt9nothrow_t(void *p, const void *nt);
void _ZdlPvSt11align_val_t(void *p, size_t align);
void _ZdaPvSt11align_val_t(void *p, size_t align);
void _ZdlPvmSt11align_val_t(void *p, size_t n, size_t align);
void _ZdaPvmSt11align_val_t(void *p, size_t n, size_t align);
void _ZdlPvSt11align_val_tRKSt9nothrow_t(void *p, size_t align,
					 const void *nt);
void _ZdaPvSt11align_val_tRKSt9nothrow_t(void *p, size_t align,
					 const void *nt);

enum cxx_op {
	CXX_NEW,                  /* operator new(size_t) */
	CXX_NEW_ARRAY,            /* operator new[](size_t) */
	CXX_NEW_NOTHROW,          /* operator new(size_t, nothrow_t const&) */
	CXX_NEW_ARRAY_NOTHROW,
	CXX_NEW_ALIGNED,          /* operator new(size_t, align_val_t) */
	CXX_NEW_ARRAY_ALIGNED,
	CXX_NEW_ALIGNED_NOTHROW,  /* (size_t, align_val_t, nothrow_t const&) */
	CXX_NEW_ARRAY_ALIGNED_NOTHROW,
	CXX_DELETE,               /* operator delete(void *) */
	CXX_DELETE_ARRAY,
	CXX_DELETE_SIZED,         /* operator delete(void *, size_t) */
	CXX_DELETE_ARRAY_SIZED,
	CXX_DELETE_NOTHROW,       /* operator delete(void *, nothrow_t const&) */
	CXX_DELETE_ARRAY_NOTHROW,
	CXX_DELETE_ALIGNED,       /* operator delete(void *, align_val_t) */
	CXX_DELETE_ARRAY_ALIGNED,
	CXX_DELETE_SIZED_ALIGNED, /* (void *, size_t, align_val_t) */
	CXX_DELETE_ARRAY_SIZED_ALIGNED,
	CXX_DELETE_ALIGNED_NOTHROW, /* (void *, align_val_t, nothrow_t const&) */
	CXX_DELETE_ARRAY_ALIGNED_NOTHROW,
	CXX_OPS
};

static const char *const cxx_names[CXX_OPS] = {
	[CXX_NEW] = "_Znwm",
	[CXX_NEW_ARRAY] = "_Znam",
	[CXX_NEW_NOTHROW] = "_ZnwmRKSt9nothrow_t",
	[CXX_NEW_ARRAY_NOTHROW] = "_ZnamRKSt9nothrow_t",
	[CXX_NEW_ALIGNED] = "_ZnwmSt11align_val_t",
	[CXX_NEW_ARRAY_ALIGNED] = "_ZnamSt11align_val_t",
	[CXX_NEW_ALIGNED_NOTHROW] = "_ZnwmSt11align_val_tRKSt9nothrow_t",
	[CXX_NEW_ARRAY_ALIGNED_NOTHROW] = "_ZnamSt11align_val_tRKSt9nothrow_t",
	[CXX_DELETE] = "_ZdlPv",
	[CXX_DELETE_ARRAY] = "_ZdaPv",
	[CXX_DELETE_SIZED] = "_ZdlPvm",
	[CXX_DELETE_ARRAY_SIZED] = "_ZdaPvm",
	[CXX_DELETE_NOTHROW] = "_ZdlPvRKSt9nothrow_t",
	[CXX_DELETE_ARRAY_NOTHROW] = "_ZdaPvRKSt9nothrow_t",
	[CXX_DELETE_ALIGNED] = "_ZdlPvSt11align_val_t",
	[CXX_DELETE_ARRAY_ALIGNED] = "_ZdaPvSt11align_val_t",
	[CXX_DELETE_SIZED_ALIGNED] = "_ZdlPvmSt11align_val_t",
	[CXX_DELETE_ARRAY_SIZED_ALIGNED] = "_ZdaPvmSt11align_val_t",
	[CXX_DELETE_ALIGNED_NOTHROW] = "_ZdlPvSt11align_val_tRKSt9nothrow_t",
	[CXX_DELETE_ARRAY_ALIGNED_NOTHROW] =
		"_ZdaPvSt11align_val_tRKSt9nothrow_t",
};

/* What a form's first call taught (see above). */
enum cxx_mode { CXX_UNKNOWN, CXX_OWNS, CXX_PASSES };

/* The real forms (NULL until looked up), and what each does. Each mode
 * is stored (release) after its form was, so that a thread that loads a
 * known mode (acquire) finds the form there. */
static struct {
	void *fn[CXX_OPS];
	uint8_t mode[CXX_OPS];
	_Atomic int state; /* 0 unknown, 1 being looked up, 2 known */
	uintptr_t base;    /* of the object that defines operator new */
} cxx;

/* Stand-ins for forms no loaded object defines (a C++ runtime older than
 * C++17 lacks the aligned ones, and a program may get here through
 * dlsym alone), and for every form while another thread looks them up.
 * They allocate and release through this library's malloc, memalign and
 * free, which sample and count as for C. A throwing form that cannot
 * throw ends the program, as an uncaught std::bad_alloc would. */
static void *
cxx_fail(size_t n)
{
	static const char msg[] =
		"profrun: operator new failed and no C++ runtime is loaded "
		"to throw std::bad_alloc\n";
	ssize_t w = write(2, msg, sizeof(msg) - 1);
	(void)w;
	abort();
}

static void *
cxx_missing_new(size_t n)
{
	void *p = malloc(n);
	return p ? p : cxx_fail(n);
}

static void *
cxx_missing_new_nothrow(size_t n, const void *nt)
{
	return malloc(n);
}

static void *
cxx_missing_new_aligned(size_t n, size_t align)
{
	void *p = memalign(align, n);
	return p ? p : cxx_fail(n);
}

static void *
cxx_missing_new_aligned_nothrow(size_t n, size_t align, const void *nt)
{
	return memalign(align, n);
}

static void
cxx_missing_delete(void *p)
{
	free(p);
}

static void *const cxx_missing[CXX_OPS] = {
	[CXX_NEW] = cxx_missing_new,
	[CXX_NEW_ARRAY] = cxx_missing_new,
	[CXX_NEW_NOTHROW] = cxx_missing_new_nothrow,
	[CXX_NEW_ARRAY_NOTHROW] = cxx_missing_new_nothrow,
	[CXX_NEW_ALIGNED] = cxx_missing_new_aligned,
	[CXX_NEW_ARRAY_ALIGNED] = cxx_missing_new_aligned,
	[CXX_NEW_ALIGNED_NOTHROW] = cxx_missing_new_aligned_nothrow,
	[CXX_NEW_ARRAY_ALIGNED_NOTHROW] = cxx_missing_new_aligned_nothrow,
	/* Every delete form takes the pointer first; the x86-64 calling
	 * convention lets a one-argument function take the others' calls. */
	[CXX_DELETE ... CXX_DELETE_ARRAY_ALIGNED_NOTHROW] = cxx_missing_delete,
};

/* The C library's dlclose: the handles opened here to look symbols up
 * are closed without our wrapper's work (preload.c). */
static int (*cxx_dlclose)(void *);

/* dl_iterate_phdr's callback: the first loaded object (but this library)
 * whose scope defines operator new; its handle goes to *data. */
static int
cxx_find_runtime(struct dl_phdr_info *info, size_t size, void *data)
{
	if (!info->dlpi_name || !info->dlpi_name[0])
		return 0; /* the executable, the vdso */
	void *h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return 0;
	void *f = dlsym(h, cxx_names[CXX_NEW]);
	if (f && f != (void *)_Znwm) {
		*(void **)data = h;
		return 1;
	}
	cxx_dlclose(h);
	return 0;
}

/* Looks the real forms up (once) and returns form op's, or its stand-in
 * while the look-up is under way. */
static void * __attribute__((noinline))
cxx_resolve(enum cxx_op op)
{
	int expect = 0;
	void *fn[CXX_OPS];

	/* A thread that finds the look-up under way does not wait for it:
	 * it may hold the loader's lock (a library's constructor, inside
	 * dlopen) that the look-up's dlsym needs. It makes do with the
	 * stand-ins meanwhile, which allocate through malloc. */
	if (resolve() != 0 || self.resolving ||
	    !atomic_compare_exchange_strong(&cxx.state, &expect, 1))
		return cxx_missing[op];
	self.resolving = 1;
	alloc_guard_enter();
	void *h = RTLD_NEXT;
	cxx_dlclose = (int (*)(void *))dlsym(RTLD_NEXT, "dlclose");
	if (!cxx_dlclose)
		h = NULL; /* cannot happen: the C library has it */
	else if (!dlsym(RTLD_NEXT, cxx_names[CXX_NEW])) {
		void *found = NULL;
		dl_iterate_phdr(cxx_find_runtime, &found);
		h = found;
	}
	for (int i = 0; i < CXX_OPS; i++) {
		fn[i] = h ? dlsym(h, cxx_names[i]) : NULL;
		if (!fn[i])
			fn[i] = cxx_missing[i];
		__atomic_store_n(&cxx.fn[i], fn[i], __ATOMIC_RELEASE);
	}
	/* The handle is not kept: the library must unload when the program
	 * closes it, as without the profiler. If the C++ runtime goes with
	 * it, alloc_dlclosed() forgets the forms. */
	if (h && h != RTLD_NEXT)
		cxx_dlclose(h);
	Dl_info info;
	cxx.base = fn[CXX_NEW] != cxx_missing[CXX_NEW] &&
			   dladdr(fn[CXX_NEW], &info) ?
			   (uintptr_t)info.dli_fbase :
			   0;
	/* A stand-in calls malloc or free: it passes. */
	for (int i = 0; i < CXX_OPS; i++)
		if (fn[i] == cxx_missing[i])
			__atomic_store_n(&cxx.mode[i], CXX_PASSES,
					 __ATOMIC_RELEASE);
	alloc_guard_leave();
	self.resolving = 0;
	atomic_store(&cxx.state, 2);
	return fn[op];
}

void
alloc_dlclosed(void)
{
	Dl_info info;
	if (atomic_load(&cxx.state) != 2 || !cxx.base)
		return;
	alloc_guard_enter();
	int gone = !dladdr(cxx.fn[CXX_NEW], &info) ||
		   (uintptr_t)info.dli_fbase != cxx.base;
	alloc_guard_leave();
	if (!gone)
		return;
	/* The modes first: a thread that finds one unknown looks the forms
	 * up again (once the state is 0). No C++ code that could call them
	 * is left anyway: the runtime went with the last of it. */
	for (int i = 0; i < CXX_OPS; i++)
		__atomic_store_n(&cxx.mode[i], CXX_UNKNOWN, __ATOMIC_RELEASE);
	for (int i = 0; i < CXX_OPS; i++)
		__atomic_store_n(&cxx.fn[i], NULL, __ATOMIC_RELEASE);
	cxx.base = 0;
	atomic_store(&cxx.state, 0);
}

/* Form op's real function. */
static inline void *
cxx_real(enum cxx_op op)
{
	void *f = __atomic_load_n(&cxx.fn[op], __ATOMIC_ACQUIRE);
	return likely(f != NULL) ? f : cxx_resolve(op);
}

static inline enum cxx_mode
cxx_mode(enum cxx_op op)
{
	return (enum cxx_mode)__atomic_load_n(&cxx.mode[op], __ATOMIC_ACQUIRE);
}

/* Form op's real function once its mode is known. */
static inline void *
cxx_known(enum cxx_op op)
{
	return __atomic_load_n(&cxx.fn[op], __ATOMIC_RELAXED);
}

/* Whether form op's call to f, a first one, is to teach its mode: not
 * while another thread looks the real ones up (f is a stand-in), nor
 * inside the guard. */
static inline int
cxx_probing(enum cxx_op op, void *f)
{
	return cxx_mode(op) == CXX_UNKNOWN && !self.guard &&
	       f == __atomic_load_n(&cxx.fn[op], __ATOMIC_ACQUIRE);
}

/* The calling thread's calls of the C wrappers so far. */
static uint64_t
c_calls(void)
{
	uint64_t sum = 0;
	for (int i = 0; i < SPOOL_ALLOC_FN_OPERATOR_NEW; i++)
		sum += self.calls[i];
	return sum;
}

static void
cxx_learn(enum cxx_op op, uint64_t c_calls_before)
{
	__atomic_store_n(&cxx.mode[op],
			 c_calls() != c_calls_before ? CXX_PASSES : CXX_OWNS,
			 __ATOMIC_RELEASE);
}

typedef void *(*new_fn)(size_t);
typedef void *(*new_nothrow_fn)(size_t, const void *);
typedef void *(*new_aligned_fn)(size_t, size_t);
typedef void *(*new_aligned_nothrow_fn)(size_t, size_t, const void *);
typedef void (*delete_fn)(void *);
typedef void (*delete_1_fn)(void *, size_t); /* sized, or aligned */
typedef void (*delete_nothrow_fn)(void *, const void *);
typedef void (*delete_sized_aligned_fn)(void *, size_t, size_t);
typedef void (*delete_aligned_nothrow_fn)(void *, size_t, const void *);

/* Calls the real new form op (f) for n bytes aligned to align (0: the
 * default) with the caller's nothrow tag nt. */
static inline void *
cxx_call_new(enum cxx_op op, void *f, size_t n, size_t align, const void *nt)
{
	switch (op) {
	case CXX_NEW:
	case CXX_NEW_ARRAY:
		return ((new_fn)f)(n);
	case CXX_NEW_NOTHROW:
	case CXX_NEW_ARRAY_NOTHROW:
		return ((new_nothrow_fn)f)(n, nt);
	case CXX_NEW_ALIGNED:
	case CXX_NEW_ARRAY_ALIGNED:
		return ((new_aligned_fn)f)(n, align);
	default:
		return ((new_aligned_nothrow_fn)f)(n, align, nt);
	}
}

/* The slow path of a new form: a sample point reached, the form's mode
 * not known yet (a first call, or a stand-in's call), or the guard set. */
static void * __attribute__((noinline))
cxx_new_slow(enum cxx_op op, size_t n, size_t align, const void *nt)
{
	struct alloc_tls *a = &self;
	void *f = cxx_real(op);
	if (a->guard) { /* a target's signal handler, while we record */
		void *p = own_alloc(n, align ? align : ARENA_HDR);
		return p ? p : cxx_call_new(op, f, n, align, nt);
	}
	if (cxx_mode(op) != CXX_OWNS) {
		if (!cxx_probing(op, f))
			return cxx_call_new(op, f, n, align, nt);
		uint64_t before = c_calls();
		void *p = cxx_call_new(op, f, n, align, nt); /* may throw */
		cxx_learn(op, before);
		if (cxx_mode(op) == CXX_PASSES || !p || !reaches(a, n))
			return p;
		if (expired(a, n))
			SAMPLE_ALLOC(p, n, SPOOL_ALLOC_FN_OPERATOR_NEW);
		return p;
	}
	int sample = expired(a, n);
	void *p = cxx_call_new(op, f, n, align, nt); /* may throw */
	if (sample && p)
		SAMPLE_ALLOC(p, n, SPOOL_ALLOC_FN_OPERATOR_NEW);
	return p;
}

/* The body of the new form op: a count, then straight to the real form
 * when it passes, or the room taken when it owns; the rest out of line,
 * so that the fast path needs no frame of its own. */
#define CXX_NEW_BODY(op, n, align, nt, tail_call)                            \
	do {                                                                 \
		struct alloc_tls *a_ = &self;                                \
		count(a_, SPOOL_ALLOC_FN_OPERATOR_NEW);                      \
		enum cxx_mode m_ = cxx_mode(op);                             \
		void *f_ = cxx_known(op);                                    \
		if (likely(m_ == CXX_PASSES) ||                              \
		    (likely(m_ == CXX_OWNS) && likely(!reaches(a_, (n)))))   \
			return tail_call;                                    \
		void *p_ = cxx_new_slow((op), (n), (align), (nt));           \
		KEEP_FRAME();                                                \
		return p_;                                                   \
	} while (0)

PUBLIC void *
_Znwm(size_t n)
{
	CXX_NEW_BODY(CXX_NEW, n, 0, NULL, ((new_fn)f_)(n));
}

PUBLIC void *
_Znam(size_t n)
{
	CXX_NEW_BODY(CXX_NEW_ARRAY, n, 0, NULL, ((new_fn)f_)(n));
}

PUBLIC void *
_ZnwmRKSt9nothrow_t(size_t n, const void *nt)
{
	CXX_NEW_BODY(CXX_NEW_NOTHROW, n, 0, nt,
		     ((new_nothrow_fn)f_)(n, nt));
}

PUBLIC void *
_ZnamRKSt9nothrow_t(size_t n, const void *nt)
{
	CXX_NEW_BODY(CXX_NEW_ARRAY_NOTHROW, n, 0, nt,
		     ((new_nothrow_fn)f_)(n, nt));
}

PUBLIC void *
_ZnwmSt11align_val_t(size_t n, size_t align)
{
	CXX_NEW_BODY(CXX_NEW_ALIGNED, n, align, NULL,
		     ((new_aligned_fn)f_)(n, align));
}

PUBLIC void *
_ZnamSt11align_val_t(size_t n, size_t align)
{
	CXX_NEW_BODY(CXX_NEW_ARRAY_ALIGNED, n, align, NULL,
		     ((new_aligned_fn)f_)(n, align));
}

PUBLIC void *
_ZnwmSt11align_val_tRKSt9nothrow_t(size_t n, size_t align, const void *nt)
{
	CXX_NEW_BODY(CXX_NEW_ALIGNED_NOTHROW, n, align, nt,
		     ((new_aligned_nothrow_fn)f_)(n, align, nt));
}

PUBLIC void *
_ZnamSt11align_val_tRKSt9nothrow_t(size_t n, size_t align, const void *nt)
{
	CXX_NEW_BODY(CXX_NEW_ARRAY_ALIGNED_NOTHROW, n, align, nt,
		     ((new_aligned_nothrow_fn)f_)(n, align, nt));
}

/* Calls the real delete form op (f) of p with the form's other
 * arguments x and y (a size, an alignment, a nothrow tag). */
static void
cxx_call_delete(enum cxx_op op, void *f, void *p, uintptr_t x, uintptr_t y)
{
	switch (op) {
	case CXX_DELETE:
	case CXX_DELETE_ARRAY:
		((delete_fn)f)(p);
		break;
	case CXX_DELETE_SIZED:
	case CXX_DELETE_ARRAY_SIZED:
	case CXX_DELETE_ALIGNED:
	case CXX_DELETE_ARRAY_ALIGNED:
		((delete_1_fn)f)(p, (size_t)x);
		break;
	case CXX_DELETE_NOTHROW:
	case CXX_DELETE_ARRAY_NOTHROW:
		((delete_nothrow_fn)f)(p, (const void *)x);
		break;
	case CXX_DELETE_SIZED_ALIGNED:
	case CXX_DELETE_ARRAY_SIZED_ALIGNED:
		((delete_sized_aligned_fn)f)(p, (size_t)x, (size_t)y);
		break;
	default:
		((delete_aligned_nothrow_fn)f)(p, (size_t)x, (const void *)y);
		break;
	}
}

/* The slow path of a delete form: p may be sampled or the arena's, or
 * the form's mode is not known yet (a first call of a non-null pointer
 * teaches it). */
static void __attribute__((noinline))
cxx_delete_slow(enum cxx_op op, void *p, uintptr_t x, uintptr_t y)
{
	void *f = cxx_real(op);
	enum cxx_mode m = cxx_mode(op);
	if (m != CXX_PASSES) {
		if (release(p))
			return;
		if (m == CXX_UNKNOWN && p && cxx_probing(op, f)) {
			uint64_t before = c_calls();
			cxx_call_delete(op, f, p, x, y);
			cxx_learn(op, before);
			return;
		}
	}
	cxx_call_delete(op, f, p, x, y);
}

/* The body of the delete form op: a count, then straight to the real
 * form when it passes, or when it owns and p is not in the sampled set's
 * filter; the rest out of line. */
#define CXX_DELETE_BODY(op, p, x, y, call)                                   \
	do {                                                                 \
		count(&self, SPOOL_ALLOC_FN_OPERATOR_DELETE);                \
		enum cxx_mode m_ = cxx_mode(op);                             \
		void *f_ = cxx_known(op);                                    \
		if (likely(m_ == CXX_PASSES) ||                              \
		    (likely(m_ == CXX_OWNS) &&                               \
		     likely(!addrset_maybe(&sampled,                         \
					   (uint64_t)(uintptr_t)(p))))) {    \
			call;                                                \
			return;                                              \
		}                                                            \
		cxx_delete_slow((op), (p), (uintptr_t)(x), (uintptr_t)(y));  \
	} while (0)

PUBLIC void
_ZdlPv(void *p)
{
	CXX_DELETE_BODY(CXX_DELETE, p, 0, 0, ((delete_fn)f_)(p));
}

PUBLIC void
_ZdaPv(void *p)
{
	CXX_DELETE_BODY(CXX_DELETE_ARRAY, p, 0, 0, ((delete_fn)f_)(p));
}

PUBLIC void
_ZdlPvm(void *p, size_t n)
{
	CXX_DELETE_BODY(CXX_DELETE_SIZED, p, n, 0, ((delete_1_fn)f_)(p, n));
}

PUBLIC void
_ZdaPvm(void *p, size_t n)
{
	CXX_DELETE_BODY(CXX_DELETE_ARRAY_SIZED, p, n, 0,
			((delete_1_fn)f_)(p, n));
}

PUBLIC void
_ZdlPvRKSt9nothrow_t(void *p, const void *nt)
{
	CXX_DELETE_BODY(CXX_DELETE_NOTHROW, p, nt, 0,
			((delete_nothrow_fn)f_)(p, nt));
}

PUBLIC void
_ZdaPvRKSt9nothrow_t(void *p, const void *nt)
{
	CXX_DELETE_BODY(CXX_DELETE_ARRAY_NOTHROW, p, nt, 0,
			((delete_nothrow_fn)f_)(p, nt));
}

PUBLIC void
_ZdlPvSt11align_val_t(void *p, size_t align)
{
	CXX_DELETE_BODY(CXX_DELETE_ALIGNED, p, align, 0,
			((delete_1_fn)f_)(p, align));
}

PUBLIC void
_ZdaPvSt11align_val_t(void *p, size_t align)
{
	CXX_DELETE_BODY(CXX_DELETE_ARRAY_ALIGNED, p, align, 0,
			((delete_1_fn)f_)(p, align));
}

PUBLIC void
_ZdlPvmSt11align_val_t(void *p, size_t n, size_t align)
{
	CXX_DELETE_BODY(CXX_DELETE_SIZED_ALIGNED, p, n, align,
			((delete_sized_aligned_fn)f_)(p, n, align));
}

PUBLIC void
_ZdaPvmSt11align_val_t(void *p, size_t n, size_t align)
{
	CXX_DELETE_BODY(CXX_DELETE_ARRAY_SIZED_ALIGNED, p, n, align,
			((delete_sized_aligned_fn)f_)(p, n, align));
}

PUBLIC void
_ZdlPvSt11align_val_tRKSt9nothrow_t(void *p, size_t align, const void *nt)
{
	CXX_DELETE_BODY(CXX_DELETE_ALIGNED_NOTHROW, p, align, nt,
			((delete_aligned_nothrow_fn)f_)(p, align, nt));
}

PUBLIC void
_ZdaPvSt11align_val_tRKSt9nothrow_t(void *p, size_t align, const void *nt)
{
	CXX_DELETE_BODY(CXX_DELETE_ARRAY_ALIGNED_NOTHROW, p, align, nt,
			((delete_aligned_nothrow_fn)f_)(p, align, nt));
}

/* ---- life cycle ---- */

void
alloc_start(uint64_t interval)
{
	struct module_view m;
	resolve();
	if (interval && modules_lookup_text((uint64_t)(uintptr_t)alloc_start,
					    &m) == 0) {
		own_lo = m.text_lo;
		own_hi = m.text_hi;
	}
	atomic_store(&space_interval, interval);
	atomic_store(&space_settled, 1);
	/* The main thread draws its first countdown at its next request
	 * (the constructor calls this inside the guard). */
	if (self.guard)
		self.saved_room = 0;
	else
		self.room = 0;
	self.cd.armed = 0;
}

void
alloc_thread_attach(struct thread_slot *t)
{
	for (int i = 0; i < SPOOL_ALLOC_FN_MAX_; i++)
		t->alloc_emitted[i] = 0;
	atomic_store(&t->alloc_emitting, 0);
	atomic_store(&t->alloc_calls, self.calls);
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
	arena_lock(&arena.fork_mask);
}

void
alloc_postfork_arena(void)
{
	arena_unlock(&arena.fork_mask);
}

void
alloc_postfork_child(struct thread_slot *t)
{
	/* The parent's sampled blocks are not the child's to record; the
	 * arena's blocks are still pinned. */
	addrset_clear_members(&sampled);
	if (!t)
		return;
	for (int i = 0; i < SPOOL_ALLOC_FN_MAX_; i++)
		t->alloc_emitted[i] = self.calls[i];
	atomic_store(&t->alloc_emitting, 0);
	atomic_store(&t->alloc_calls, self.calls);
}
