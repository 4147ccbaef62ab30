/*
 * offcpu: wall-clock samples of blocked threads (PROF_CLOCK=wall).
 *
 * A wall-clock profile needs the stacks of threads that are not running:
 * sleeping, waiting on a lock, on I/O. A signal cannot take them: a signal
 * that reaches a thread blocked in nanosleep, poll, select, epoll_wait or a
 * futex wait with a timeout makes the call fail with EINTR whatever
 * SA_RESTART says, and so changes what the program does. So no signal is
 * sent to a blocked thread. The time a thread runs is sampled as in a CPU
 * profile (its CPU timer's signal finds it running in user mode, where a
 * signal interrupts nothing); the time it is blocked is sampled by a
 * thread of the profiler's own, the poller:
 *
 * Every period the poller reads /proc/self/task/TID/syscall of each thread
 * (kept open, on descriptors above the target's). For a thread blocked in
 * the kernel it gives the system call and the user-mode stack and
 * instruction pointers; the poller walks the stack from there, reading it
 * through process_vm_readv, and reads the thread's CPU clock before and
 * after: a clock that did not move means the thread did not run, so the
 * stack was not changing under the walk. While the same thread stays
 * blocked at the same place with its CPU clock still, each tick adds its
 * elapsed time to the episode's weight without walking again; an episode
 * is written as one SAMPLE record (flag SPOOL_SAMPLE_OFF_CPU) when it ends,
 * and at least every 100 ms while it lasts.
 *
 * The weights are the wall time between ticks, so the poller may slow down
 * without biasing anything: it stretches its period to keep its own cost
 * near 2% of one CPU (50 times the time the last tick took, up to 50 ms).
 *
 * Not covered: time a thread spends runnable but waiting for a CPU, and
 * CPU time spent in the kernel (the perf source counts user mode only),
 * and threads beyond the descriptors the poller may keep open (counted as
 * dropped, cause no-ring, once per thread).
 *
 * Layer: sources. Its poller is the one thread the library may
 * start (--clock=wall); nothing here runs in a signal handler.
 */
#ifndef PROFRUN_OFFCPU_H
#define PROFRUN_OFFCPU_H

/* Starts the poller when the clock is wall. Returns 0 or -errno. */
int
offcpu_start(void);

/* Stops the poller and writes the episodes in progress (through the
 * calling thread's stream, before the footer). */
void
offcpu_stop(void);

/* A thread the program created has started (the pthread_create
 * trampoline): its file is opened now, in that thread, so that the
 * poller creates no descriptor while the program may be counting on the
 * lowest free numbers. Waits for a tick in progress. */
void
offcpu_thread_started(void);

/* fork: no tick runs across it; the child's poller starts afresh, since
 * the parent's threads and descriptors are not the child's. */
void
offcpu_prefork(void);
void
offcpu_postfork_parent(void);
void
offcpu_postfork_child(void);

#endif
