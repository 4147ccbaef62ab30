/*
 * alloc_int: what alloc.c (the C wrappers, sampling, the bootstrap) and
 * alloc_cxx.c (C++'s operator new and delete) share: the thread's state,
 * the fast path's steps, and the slow path's entry points. Internal to
 * the two; Layer: sources. Everything here is async-signal-safe
 * but alloc_resolve (dlsym, outside any handler).
 */
#ifndef PROFRUN_ALLOC_INT_H
#define PROFRUN_ALLOC_INT_H

#include "addrset.h"
#include "countdown.h"
#include "spool.h"

#include <stdint.h>
#include <string.h>
#include <ucontext.h>

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define PUBLIC __attribute__((visibility("default")))

/* What every wrapper of an allocating or releasing function is defined
 * with: exported, each starting a 64-byte line of code, all of them in a
 * section of their own, which GNU ld and lld place at the start of the
 * library's .text (".text.hot.*"). A wrapper's fast path, from its entry
 * to its jump into the real function, then lies in one line (malloc's is
 * 25 bytes, free's 44, operator new's 38 to 59; all but pvalloc's and
 * reallocarray's fit), the unit in which the CPU fetches, caches decoded
 * instructions and predicts branches, and stays there whatever is edited
 * elsewhere in the library. A fast path split over two lines cost the
 * malloc+free loop of scripts/bench-shape points more than the same
 * instructions in one (BENCHMARKS.md); that a line is the unit holds on
 * every x86-64 CPU, the size of the effect was measured on one.
 * tests/integration/test_wrapper_layout.py checks the layout. */
#define WRAPPER                                                             \
	PUBLIC __attribute__((aligned(64), section(".text.hot.profrun_wrappers")))

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

/* The calling thread's state. */
extern __thread struct alloc_tls alloc_self __attribute__((tls_model("initial-exec")));

/* The sampled blocks (and, pinned in its filter, the arena's). */
extern struct addrset alloc_sampled;

/* A plain increment (one instruction): only the owner writes its
 * counters; others (alloc_finish) read them with relaxed atomic loads of
 * aligned words, which cannot tear. async-signal-safe */
static inline void
count(struct alloc_tls *a, enum spool_alloc_fn fn)
{
	a->calls[fn]++;
}

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
 * sampled. */
int
alloc_expired(struct alloc_tls *a, size_t n);

/* Finds the real functions once. Returns 0 when they are known, -1 while
 * they are being looked up (by this thread, inside dlsym, or by another):
 * the caller then serves the request from the arena. Not
 * async-signal-safe the first time. */
int
alloc_resolve(void);

/* A block of the library's own arena (arena.h), pinned in the sampled
 * set's filter so that its release finds it; NULL when the arena has
 * none. */
void *
alloc_own(size_t n, size_t align);

/* Records the sampled allocation of n bytes at p, made by fn, walking
 * the stack from uc. */
void
alloc_record(const ucontext_t *uc, void *p, size_t n, enum spool_alloc_fn fn);

/* The slow path of a release: p may be a sampled block, or the arena's.
 * Returns 1 for the arena's block, which the real allocator must not
 * see. */
int
alloc_forget(void *p);

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

/* Records a sampled allocation from the slow path of a wrapper, whose
 * registers are the start of the stack walk. */
#define SAMPLE_ALLOC(p, n, fn)                                               \
	do {                                                                 \
		ucontext_t uc_;                                              \
		CAPTURE_REGISTERS(&uc_);                                     \
		alloc_record(&uc_, (p), (n), (fn));                          \
	} while (0)

/* What every release does first: one byte load unless p may be sampled.
 * Returns 1 for the arena's block, which the real allocator must not
 * see. async-signal-safe */
static inline int
release(void *p)
{
	if (unlikely(addrset_maybe(&alloc_sampled, (uint64_t)(uintptr_t)p)))
		return alloc_forget(p);
	return 0;
}

/* Keeps the compiler from turning a call to a slow path into a jump: the
 * wrapper's own frame must stay on the stack, to be the sample's leaf. */
#define KEEP_FRAME() __asm__ volatile("" ::: "memory")

#endif
