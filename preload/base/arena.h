/*
 * arena: the library's own memory for small blocks. Layer: base.
 *
 * What the profiler allocates itself (while alloc.c's guard is set:
 * start-up, a new thread's set-up, recording a sample, and the look-up of
 * the real functions, whose dlsym allocates) comes from here, never from
 * the target's heap; so does what anyone allocates before the real
 * functions are known. Blocks are of power-of-two classes from 32 bytes to
 * 64 KiB, carved from 1 MiB of static storage (untouched pages cost
 * nothing) and kept on a free list per class once released: a thread's
 * set-up allocates and frees again (pthread_getattr_np), so a bump
 * allocator would grow with every thread. A request the arena cannot
 * serve (larger than its classes, or the storage used up) is the caller's
 * to send elsewhere.
 *
 * The lock is a spinlock held with every signal blocked, so that no
 * signal handler can find it held by its own thread; the fork hooks hold
 * it across fork. Every function is async-signal-safe.
 */
#ifndef PROFRUN_ARENA_H
#define PROFRUN_ARENA_H

#include <stddef.h>
#include <stdint.h>

/* The alignment of a block asked for without one. */
#define ARENA_ALIGN 16u

/* A block of n bytes aligned to align (a power of two up to 4096; less
 * than ARENA_ALIGN means ARENA_ALIGN), or NULL when the arena cannot give
 * one. */
void *
arena_alloc(size_t n, size_t align);

/* Puts the arena's block p back. */
void
arena_free(void *p);

/* Whether p is a block of the arena. */
int
arena_owns(const void *p);

/* The bytes asked for block p. */
size_t
arena_size(const void *p);

/* Makes block p n bytes long where it is, when its class has room:
 * returns p, or NULL (p unchanged). */
void *
arena_resize(void *p, size_t n);

/* Fork hooks: the lock is taken by the forking thread (with every signal
 * blocked) and released in both processes. */
void
arena_prefork(void);
void
arena_postfork(void);

#endif
