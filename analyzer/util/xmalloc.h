/*
 * xmalloc: the analyzer's allocation family. The analyzer is a batch tool:
 * when memory runs out there is nothing useful left to do, so every
 * allocation either succeeds or ends the program with one clear message
 * ("profanalyze: out of memory") instead of spreading NULL checks over
 * every caller.
 */
#ifndef PROFANALYZE_XMALLOC_H
#define PROFANALYZE_XMALLOC_H

#include <stdarg.h>
#include <stddef.h>

/* Each returns memory the caller frees with free(); never NULL. A size of
 * zero still returns a unique pointer. */
void *
xmalloc(size_t size);
void *
xcalloc(size_t n, size_t size);
/* n * size, checked for overflow. */
void *
xreallocarray(void *ptr, size_t n, size_t size);
char *
xstrdup(const char *s);
/* Copies len bytes of s (which need not be NUL-terminated) and adds a NUL. */
char *
xstrndup(const char *s, size_t len);
/* printf into a new string. */
char *
xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *
xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* Grows *array (of *cap elements of size bytes) so that it holds at least
 * need elements, doubling the capacity. */
void
xgrow(void *array_ptr, size_t *cap, size_t need, size_t size);
/* xgrow, with the elements it adds zeroed: for tables indexed by an id,
 * where 0 means "nothing yet". */
void
xgrow_zeroed(void *array_ptr, size_t *cap, size_t need, size_t size);

#endif
