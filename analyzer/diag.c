/*
 * diag: one-line messages on stderr (see diag.h).
 */
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>

static void __attribute__((format(printf, 2, 0)))
vmessage(const char *kind, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: %s", DIAG_PROGRAM, kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void
diag_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage("", fmt, ap);
	va_end(ap);
}

void
diag_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage("warning: ", fmt, ap);
	va_end(ap);
}
