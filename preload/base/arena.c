/*
 * arena: the library's own small blocks (see arena.h). Layer: base; every
 * function is async-signal-safe.
 */
#include "arena.h"

#include "real.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

#define ARENA_SIZE (1024u * 1024)
#define ARENA_MIN 32u
#define ARENA_CLASSES 12
#define ARENA_ALIGN_MAX 4096u

static struct {
	_Alignas(4096) uint8_t mem[ARENA_SIZE];
	size_t used;                /* carved from mem so far, under lock */
	void *free[ARENA_CLASSES];  /* released blocks by class, under lock */
	atomic_flag lock;
	sigset_t fork_mask;         /* the forking thread's, while it holds lock */
} arena = { .lock = ATOMIC_FLAG_INIT };

/* Before each block. */
struct hdr {
	uint32_t cls;    /* the block is ARENA_MIN << cls bytes */
	uint32_t offset; /* from the block's start to the pointer given out */
	uint64_t size;   /* bytes asked for */
};

_Static_assert(sizeof(struct hdr) == ARENA_ALIGN, "a header per alignment");

/* A spinlock taken with every signal blocked, so that no handler on this
 * thread can come to wait for it. async-signal-safe */
static void
lock(sigset_t *old)
{
	sigset_t all;
	sigfillset(&all);
	real_mask(SIG_SETMASK, &all, old);
	while (atomic_flag_test_and_set_explicit(&arena.lock,
						 memory_order_acquire))
		sched_yield();
}

/* async-signal-safe */
static void
unlock(const sigset_t *old)
{
	atomic_flag_clear_explicit(&arena.lock, memory_order_release);
	real_mask(SIG_SETMASK, old, NULL);
}

/* async-signal-safe */
int
arena_owns(const void *p)
{
	return (uintptr_t)p - (uintptr_t)arena.mem < ARENA_SIZE;
}

/* async-signal-safe */
static struct hdr
hdr_of(const void *p)
{
	struct hdr h;
	memcpy(&h, (const uint8_t *)p - ARENA_ALIGN, sizeof(h));
	return h;
}

/* async-signal-safe */
void *
arena_alloc(size_t n, size_t align)
{
	if (align < ARENA_ALIGN)
		align = ARENA_ALIGN;
	if (align > ARENA_ALIGN_MAX || (align & (align - 1)) ||
	    n > (ARENA_MIN << (ARENA_CLASSES - 1)))
		return NULL;
	size_t need = n + ARENA_ALIGN + (align > ARENA_ALIGN ? align : 0);
	uint32_t cls = 0;
	while ((size_t)ARENA_MIN << cls < need)
		if (++cls == ARENA_CLASSES)
			return NULL;
	size_t csize = (size_t)ARENA_MIN << cls;
	uint8_t *b = NULL;
	sigset_t old;
	lock(&old);
	if ((b = arena.free[cls]) != NULL) {
		memcpy(&arena.free[cls], b, sizeof(void *));
	} else if (csize <= ARENA_SIZE - arena.used) {
		b = arena.mem + arena.used; /* used stays a multiple of 32 */
		arena.used += csize;
	}
	unlock(&old);
	if (!b)
		return NULL;
	uintptr_t u = ((uintptr_t)b + ARENA_ALIGN + align - 1) &
		      ~(uintptr_t)(align - 1);
	struct hdr h = { cls, (uint32_t)(u - (uintptr_t)b), n };
	memcpy((void *)(u - ARENA_ALIGN), &h, sizeof(h));
	return (void *)u;
}

/* async-signal-safe */
void
arena_free(void *p)
{
	struct hdr h = hdr_of(p);
	uint8_t *b = (uint8_t *)p - h.offset;
	sigset_t old;
	lock(&old);
	memcpy(b, &arena.free[h.cls], sizeof(void *));
	arena.free[h.cls] = b;
	unlock(&old);
}

/* async-signal-safe */
size_t
arena_size(const void *p)
{
	return (size_t)hdr_of(p).size;
}

/* async-signal-safe */
void *
arena_resize(void *p, size_t n)
{
	struct hdr h = hdr_of(p);
	if (n > ((size_t)ARENA_MIN << h.cls) - h.offset)
		return NULL;
	h.size = n;
	memcpy((uint8_t *)p - ARENA_ALIGN, &h, sizeof(h));
	return p;
}

void
arena_prefork(void)
{
	lock(&arena.fork_mask);
}

void
arena_postfork(void)
{
	unlock(&arena.fork_mask);
}
