/*
 * altstack: the alternate signal stacks the library gives threads, so
 * that its handlers (the sampling handler, the fatal-signal handler, the
 * toggle handler, all installed with SA_ONSTACK) never run on the
 * thread's own stack: a thread may have made that small (16 KiB), may be
 * near its end, or may have overflowed it (ARCHITECTURE.md, rule 2), and
 * a Go program with cgo requires it of every handler that C code installs.
 *
 * A thread that has an alternate stack of its own keeps it (the handlers
 * run there), and a program that later sets or disables one on a thread
 * that has ours gets what it asked for. Each stack belongs to a thread
 * slot (threads.h): mapped the first time a thread that has none takes
 * the slot, taken back from the thread at its end and given to the
 * slot's later threads. It is never unmapped: a signal may reach a thread
 * while it is torn down, after its slot went back.
 *
 * Layer: base. Every function is async-signal-safe (system calls only).
 */
#ifndef PROFRUN_ALTSTACK_H
#define PROFRUN_ALTSTACK_H

#include <stddef.h>
#include <stdint.h>

/* The room of each stack (the guard page below it is not part of it).
 * The library's handlers used at most 11.9 KiB of it, the kernel's
 * signal frame (3.3 KiB with AVX-512) included: measured by filling the
 * stacks with a pattern, over the stress programs at -F 10000
 * --space-interval=1K --max-depth=1024 and the fatal-signal handler of a
 * stack overflow. The rest is margin for a handler of the program's own
 * that interrupts one of ours (it runs below ours) and for Go's runtime,
 * which makes a cgo thread's alternate stack its signal stack (it gives
 * its own threads 32 KiB). Only the pages a handler touched cost memory. */
#define ALTSTACK_SIZE (64 * 1024)

/* The bytes below here (an address in the caller's frame) on the stack
 * the calling thread runs on: stack (the library's, or NULL), the
 * thread's own [lo, hi) when known (0, 0 when not), or the alternate
 * stack sigaltstack says it runs on (the program's own). SIZE_MAX when it
 * cannot tell (a stack the program switched to, a coroutine's): a
 * handler that needs more than is left would overflow the stack, and
 * with SA_ONSTACK that may be an alternate stack of the program's, of
 * SIGSTKSZ (8 KiB), too small for it. async-signal-safe */
size_t
altstack_room(const void *stack, uint64_t lo, uint64_t hi, uintptr_t here);

/* Makes *stack the calling thread's alternate signal stack, unless the
 * thread has one already (its own, or *stack); maps it first when *stack
 * is NULL. Returns 0 when the thread's handlers run on *stack now,
 * -EEXIST when it had one, or -errno (the mapping failed: the thread
 * runs its handlers where it did before). async-signal-safe */
int
altstack_give(void **stack);

/* At the calling thread's end, before its slot is released: takes *stack
 * back when it is still the thread's alternate stack, so that the slot's
 * next thread can have it. When the thread runs on it now (its end came
 * inside a handler) it cannot be taken back: it is left to the thread
 * and *stack is set to NULL (the slot maps another). async-signal-safe */
void
altstack_take_back(void **stack);

#endif
