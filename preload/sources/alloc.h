/*
 * alloc: space sampling. The malloc family is wrapped (malloc, calloc,
 * realloc, reallocarray, free, posix_memalign, aligned_alloc, memalign,
 * valloc, pvalloc, C23's free_sized and free_aligned_sized (plain frees
 * where the C library lacks them), jemalloc's mallocx, rallocx, xallocx,
 * sdallocx and dallocx, malloc_usable_size, and C++'s operator new and
 * delete in all their forms); every call is counted exactly, and the
 * bytes allocated are sampled (countdown.h): a sampled allocation becomes
 * an ALLOC record with its stack, a free of a sampled block a FREE record.
 * A C++ form that calls one of the C wrappers (libstdc++'s new calls
 * malloc) leaves the sampling to it.
 *
 * The fast path of an allocation is a count, a subtraction and a branch;
 * of a free, a count and one byte load (addrset.h). Nothing here locks,
 * and nothing of the library's own comes from the target's heap: the
 * records go into the thread's spool stream (or, for a thread without
 * one, the shared stream), the address set and the bootstrap buffer are
 * static memory.
 *
 * dlsym, which finds the real functions, may allocate: allocations made
 * while it runs are served from the library's own arena, and frees and
 * reallocs of blocks from that arena never reach the real allocator.
 *
 * Layer: sources (with alloc_cxx.c and alloc_int.h). The
 * wrappers run inside the target's malloc calls; their fast paths and the
 * guard are async-signal-safe, the look-up of the real functions is not.
 */
#ifndef PROFRUN_ALLOC_H
#define PROFRUN_ALLOC_H

#include <stdint.h>

struct thread_slot;

/* Starts (interval > 0) or settles off for good (0) space sampling, once
 * the rest of the library is set up, or when it stays inert. Called from
 * the constructor, on the main thread. */
void
alloc_start(uint64_t interval);

/* Fixes the seed of the byte sampling (profrun --space-seed; 0: random,
 * the default): thread k to draw its first countdown gets the k-th seed
 * of seed's sequence, so that a deterministic program's allocations are
 * sampled alike run after run. Called before alloc_start(). */
void
alloc_set_seed(uint64_t seed);

/* Brackets the profiler's own work on a target thread: while inside
 * (nestable), the wrappers pass straight through, neither counting nor
 * sampling. async-signal-safe */
void
alloc_guard_enter(void);
void
alloc_guard_leave(void);

/* Whether the calling thread is inside the guard. async-signal-safe */
int
alloc_in_guard(void);

/* The calling thread got slot t: its call counters are reported through
 * it from now on. */
void
alloc_thread_attach(struct thread_slot *t);

/* The calling thread, owner of slot t, is leaving: its call counts go
 * into its stream, and the slot forgets its counters. */
void
alloc_thread_detach(struct thread_slot *t);

/* The program closed a library (dlclose returned): if the C++ runtime
 * whose operator new and delete the wrappers call went with it, they are
 * looked up again at the next call. */
void
alloc_dlclosed(void);

/* The image ends (exit, exec): the call counts of every live thread go
 * to the spool through the calling thread's stream. */
void
alloc_finish(void);

/* Fork hooks: the arena's lock is held across fork (taken last by the
 * forking thread, with every signal blocked) and released in both
 * processes by alloc_postfork_arena(), the first hook of each (anything
 * after it may allocate), so that neither finds it held by a thread it
 * does not have. */
void
alloc_prefork(void);
void
alloc_postfork_arena(void);

/* In a forked child (slot t is the only thread's, or NULL): the parent's
 * sampled blocks are forgotten (the child's spool has no ALLOC for them,
 * so their frees are not recorded) and the counts start from zero. */
void
alloc_postfork_child(struct thread_slot *t);

#endif
