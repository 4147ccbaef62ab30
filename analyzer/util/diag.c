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
static void __attribute__((format(printf, 3, 0)))
vmessage(const char *kind, const char *end, const char *fmt, va_list ap)
{
	char *msg;

	if (vasprintf(&msg, fmt, ap) < 0) {
		fprintf(stderr, "%s: %s(message lost: out of memory)%s",
			DIAG_PROGRAM, kind, end);
		return;
	}
	fprintf(stderr, "%s: %s", DIAG_PROGRAM, kind);
	textesc_put(stderr, msg);
	fputs(end, stderr);
	free(msg);
}

void
diag_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage("", "\n", fmt, ap);
	va_end(ap);
}

void
diag_warn(const char *fmt, ...)
{
	va_list ap;
	if (quiet)
		return;
	va_start(ap, fmt);
	vmessage("warning: ", "\n", fmt, ap);
	va_end(ap);
}

void
diag_note(const char *fmt, ...)
{
	va_list ap;
	if (quiet)
		return;
	va_start(ap, fmt);
	vmessage("note: ", "\n", fmt, ap);
	va_end(ap);
}

/* The carriage return is written before the message, not escaped in it:
 * it is what puts the line over the previous one. */
void
diag_progress(const char *fmt, ...)
{
	va_list ap;
	fputc('\r', stderr);
	va_start(ap, fmt);
	vmessage("", "", fmt, ap);
	va_end(ap);
}
