/*
 * textesc: control characters written as \xNN (see textesc.h).
 */
#include "textesc.h"

#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

static bool
is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

bool
textesc_needed(const char *s)
{
	for (const unsigned char *u = (const unsigned char *)s; *u; u++)
		if (is_control(*u))
			return true;
	return false;
}

/* Writes the escaped form of s into buf, which has room for 4 bytes per
 * byte of s and a NUL. */
static void
escape_into(char *buf, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;

	for (const unsigned char *u = (const unsigned char *)s; *u; u++) {
		if (!is_control(*u)) {
			buf[n++] = (char)*u;
			continue;
		}
		buf[n++] = '\\';
		buf[n++] = 'x';
		buf[n++] = hex[*u >> 4];
		buf[n++] = hex[*u & 0xf];
	}
	buf[n] = '\0';
}

char *
textesc_dup(const char *s)
{
	/* 4 bytes a byte at most, and the NUL: checked for overflow. */
	char *buf = xreallocarray(NULL, strlen(s) + 1, 4);
	escape_into(buf, s);
	return buf;
}

void
textesc_put(FILE *out, const char *s)
{
	if (!textesc_needed(s)) {
		fputs(s, out);
		return;
	}
	char *e = textesc_dup(s);
	fputs(e, out);
	free(e);
}
