/*
 * diag: one-line messages on stderr (see diag.h).
 */
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "textesc.h"

/* The one switch of this module (see diag_set_quiet). */
static bool quiet;

void
diag_set_quiet(bool q)
{
	quiet = q;
}

/* The message is formatted first and written escaped: the paths, names
 * and command lines in it come from the profiled program. */
static void __attribute__((format(printf, 2, 0)))
vmessage(const char *kind, const char *fmt, va_list ap)
{
	char *msg;

	if (vasprintf(&msg, fmt, ap) < 0) {
		fprintf(stderr, "%s: %s(message lost: out of memory)\n",
			DIAG_PROGRAM, kind);
		return;
	}
	fprintf(stderr, "%s: %s", DIAG_PROGRAM, kind);
	textesc_put(stderr, msg);
	fputc('\n', stderr);
	free(msg);
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
	if (quiet)
		return;
	va_start(ap, fmt);
	vmessage("warning: ", fmt, ap);
	va_end(ap);
}

void
diag_note(const char *fmt, ...)
{
	va_list ap;
	if (quiet)
		return;
	va_start(ap, fmt);
	vmessage("note: ", fmt, ap);
	va_end(ap);
}
