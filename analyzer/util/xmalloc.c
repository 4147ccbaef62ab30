/*
 * xmalloc: allocation that cannot fail from the caller's point of view
 * (see xmalloc.h). Out of memory prints one line and aborts, so a core
 * dump shows where the memory went when that is unexpected.
 */
#include "xmalloc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void __attribute__((noreturn))
out_of_memory(void)
{
	/* write(2) rather than stdio: stdio may itself need memory. */
	static const char msg[] = "profanalyze: out of memory\n";
	ssize_t r = write(STDERR_FILENO, msg, sizeof(msg) - 1);
	(void)r;
	abort();
}

void *
xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		out_of_memory();
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		out_of_memory();
	return p;
}

void *
xreallocarray(void *ptr, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		out_of_memory();
	size_t bytes = n * size;
	void *p = realloc(ptr, bytes ? bytes : 1);
	if (!p)
		out_of_memory();
	return p;
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t len)
{
	if (len == SIZE_MAX)
		out_of_memory();
	char *p = xmalloc(len + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *
xvasprintf(const char *fmt, va_list ap)
{
	char *s;
	if (vasprintf(&s, fmt, ap) < 0)
		out_of_memory();
	return s;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

void
xgrow(void *array_ptr, size_t *cap, size_t need, size_t size)
{
	void **array = array_ptr;
	if (need <= *cap)
		return;
	size_t ncap = *cap ? *cap : 16;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			out_of_memory();
		ncap *= 2;
	}
	*array = xreallocarray(*array, ncap, size);
	*cap = ncap;
}

void
xgrow_zeroed(void *array_ptr, size_t *cap, size_t need, size_t size)
{
	size_t old = *cap;
	if (need <= old)
		return;
	xgrow(array_ptr, cap, need, size);
	memset(*(char **)array_ptr + old * size, 0, (*cap - old) * size);
}
