/*
 * unwind: stack walking from a signal context with libunwind, through an
 * address space of our own.
 *
 * libunwind's local address space finds unwind tables with dl_iterate_phdr,
 * which takes the dynamic loader's lock: called from a signal handler that
 * interrupted dlopen, or malloc under it, it deadlocks or reads a half-built
 * list. Our accessors find tables in the module table (modules.h) instead,
 * read registers from the signal's ucontext, and read memory directly only
 * where it is known to be mapped (the thread's stack, a loaded module), and
 * through process_vm_readv (which fails instead of faulting) anywhere else.
 *
 * Layer: core. The walks are async-signal-safe; unwind_init and
 * unwind_flush_cache are not.
 */
#ifndef PROFRUN_UNWIND_H
#define PROFRUN_UNWIND_H

#include <stdint.h>
#include <ucontext.h>

struct thread_slot;

/* Creates the address space and warms libunwind up outside any handler.
 * Returns 0 or -errno. */
int
unwind_init(void);

/* Walks the stack of the interrupted context uc of thread t into pcs (at
 * most max entries; pcs[0] is the interrupted PC). Returns the depth and
 * sets *flags to SPOOL_SAMPLE_* bits. async-signal-safe */
uint32_t
unwind_stack(const ucontext_t *uc, const struct thread_slot *t,
	     uint64_t *pcs, uint32_t max, uint16_t *flags);

/* What the last walk of a thread from its own context found, and every
 * input it read that could change: the registers, and the words of the
 * thread's stack. Another walk that would read the same values would
 * find the same stack, since the rest of what a walk reads (the modules'
 * unwind tables) does not change while the modules stay loaded; the memo
 * is dropped when they change (the table's epoch, modules_epoch()).
 * A walk that read anything else (through the kernel) is not kept. */
#define UNWIND_MEMO_READS 64
#define UNWIND_MEMO_DEPTH 160
struct unwind_memo {
	uint32_t epoch;  /* of the module table it was made under; 0: none */
	uint32_t nreads; /* > UNWIND_MEMO_READS: not to be reused */
	uint32_t max, depth;
	uint16_t flags;
	/* A stack address, or (reg << 1) | 1 for a register. */
	uint64_t key[UNWIND_MEMO_READS], val[UNWIND_MEMO_READS];
	uint64_t pcs[UNWIND_MEMO_DEPTH];
};

/* unwind_stack() from a context uc captured by thread t itself (a space
 * sample), reusing memo, the thread's own, when every value the walk it
 * remembers read is still the same, and remembering this walk otherwise:
 * a loop that allocates from one call site costs a few comparisons a
 * sample instead of a walk. async-signal-safe */
uint32_t
unwind_stack_memo(const ucontext_t *uc, const struct thread_slot *t,
		  struct unwind_memo *memo, uint64_t *pcs, uint32_t max,
		  uint16_t *flags);

/* Walks the stack of another thread of the process, blocked in a system
 * call at pc with stack pointer sp (as /proc/self/task/TID/syscall tells),
 * from stack, a copy of len bytes of it taken from sp up while the thread
 * was still; beyond the copy through process_vm_readv. The other
 * registers are unknown (0): a frame whose CFA rule needs one ends the
 * walk with SPOOL_SAMPLE_UNWIND_ERR. The caller must hold off module
 * unloading the way a handler does (offcpu.c). */
uint32_t
unwind_blocked(uint64_t pc, uint64_t sp, const uint8_t *stack, uint64_t len,
	       uint64_t *pcs, uint32_t max, uint16_t *flags);

/* Whether the calling thread is inside unwind_stack(). libunwind blocks
 * every signal around its cache lock, two sigprocmask calls per frame;
 * the sigprocmask wrappers (endings.c) make those calls no-ops, since
 * nothing that runs in a signal handler on this thread while the lock is
 * held unwinds through our address space: the sampling signal is blocked
 * in its own handler, and a thread unwinding outside a handler (a space
 * sample) is marked busy, so its handler takes no sample.
 * async-signal-safe */
int
unwind_active(void);

/* Whether libunwind is setting itself up (unwind_init): a pipe it opens
 * then is the library's. async-signal-safe */
int
unwind_initialising(void);

#endif
