/*
 * sys: the system call itself, made by the library without going through
 * any function a program or the library itself may wrap.
 *
 * The library exports a syscall() wrapper (it must see a program's
 * seccomp() call, preload.c), so every syscall() written in the library
 * would reach it: from signal handlers, from the arena's lock before the
 * allocator is found, and upward from the lowest layer to the highest.
 * The library's own system calls are made here instead.
 *
 * Layer: base. Linked into the launcher too (state.c, timer.c).
 */
#ifndef PROFRUN_SYS_H
#define PROFRUN_SYS_H

/* The system call nr with six arguments, as glibc's syscall() makes it:
 * the result, or -1 with errno set from a result in [-4095, -1].
 * async-signal-safe */
long
sys_call6(long nr, long a1, long a2, long a3, long a4, long a5, long a6);

/* sys_call(nr, args...): sys_call6 with up to six arguments, each cast
 * to long, the rest 0, as a call of syscall() is written. */
#define SYS_CALL_(nr, a, b, c, d, e, f, ...)                                   \
	sys_call6((long)(nr), (long)(a), (long)(b), (long)(c), (long)(d),      \
		  (long)(e), (long)(f))
#define sys_call(...) SYS_CALL_(__VA_ARGS__, 0, 0, 0, 0, 0, 0, 0)

#endif
