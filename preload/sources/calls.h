/*
 * calls: exact call counts of functions compiled with
 * -finstrument-functions (GCC, Clang). Such code calls
 * __cyg_profile_func_enter(this_fn, call_site) at every function's entry
 * and __cyg_profile_func_exit at its exit; the C library defines both as
 * no-ops (symbol version GLIBC_2.2.5), and this library, preloaded,
 * defines them first in the lookup order: the executable's and every
 * instrumented library's references bind to ours. (A versioned reference
 * binds to a definition without version information: ld.so accepts an
 * unversioned definition for any version, as it does for malloc.)
 *
 * Each thread counts its calls per arc, the pair (this_fn, call_site), in
 * a table of its own: open addressing in memory mapped for it, no lock,
 * no malloc, grown by rehashing into a larger mapping. The entry hook is
 * async-signal-safe and reentrancy-safe: an instrumented signal handler
 * that interrupts it on the same thread finds the thread's table busy and
 * counts its call as missed, and the CALL_ARCS records say how many were.
 * Calls are counted on threads the library tracks (those with a slot:
 * the main thread and threads made by pthread_create) while profiling is
 * on: not before the constructor, nor while profiling is paused, toggled
 * off or stopped by the sample limit (gate.h); --delay and --duration are
 * not looked at (they are times, and the hook reads no clock).
 *
 * What a thread's table gained since its last record goes to the spool
 * as CALL_ARCS records when the thread exits and when the image ends
 * (exit, exec), as alloc.c does for the malloc family's counts.
 *
 * Layer: sources. The hooks are async-signal-safe; the rest runs at
 * thread exit, the image's end and fork.
 */
#ifndef PROFRUN_CALLS_H
#define PROFRUN_CALLS_H

struct thread_slot;

/* The calling thread got slot t (new or reused): it has no table yet (the
 * first counted call maps one). */
void
calls_thread_attach(struct thread_slot *t);

/* The calling thread, owner of slot t, is leaving: what its table gained
 * goes into its stream, the table is unmapped and the thread counts no
 * more calls. */
void
calls_thread_detach(struct thread_slot *t);

/* The image ends (exit, exec): what the table of every live thread gained
 * goes to the spool through the calling thread's stream. The threads go
 * on counting (after a failed exec, the next records carry what they
 * gain from now on). */
void
calls_finish(void);

/* In a forked child (slot t is the only thread's, or NULL): the counts
 * so far were the parent's, the child's records start from zero. */
void
calls_postfork_child(struct thread_slot *t);

#endif
