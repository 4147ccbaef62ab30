/*
 * log: the preload library's one way to speak, from anywhere including a
 * signal handler. A tiny formatter into a stack buffer and one write(2) to
 * stderr, so that a message is never interleaved with the target's output
 * mid-line and never touches stdio or malloc.
 *
 * Layer: base. Every function is async-signal-safe.
 */
#ifndef PROFRUN_LOG_H
#define PROFRUN_LOG_H

#include <stdarg.h>
#include <stddef.h>

/* Formats into buf (always NUL-terminated, truncated to cap). Supports
 * %s %d %u %ld %lu %lx %zu %%. Returns the length written.
 * async-signal-safe */
size_t
log_format(char *buf, size_t cap, const char *fmt, va_list ap);

/* log_format with variable arguments; the library's snprintf, so that it
 * uses no stdio at all. async-signal-safe */
size_t
log_snprintf(char *buf, size_t cap, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Writes "profrun: <message>\n" to fd 2 in one write(2); errno is preserved.
 * async-signal-safe */
void
log_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
