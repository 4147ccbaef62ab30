/*
 * textesc: control characters, bytes that are not UTF-8 and backslashes
 * written unambiguously (see textesc.h).
 */
#include "textesc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "xmalloc.h"

/* How the bytes at u (n of them, n > 0) are written: returns how many
 * it covers, and sets *esc when each of them is written as \xNN. A
 * backslash (doubled) is the caller's. */
static size_t
next_unit(const unsigned char *u, size_t n, bool *esc)
{
	uint32_t cp;
	size_t len = json_utf8_decode(u, n, &cp);
	if (len == 0) {
		*esc = true; /* not UTF-8: this byte alone */
		return 1;
	}
	*esc = cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f);
	return len;
}

bool
textesc_needed(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s);
	for (size_t i = 0; i < n;) {
		bool esc;
		if (u[i] == '\\')
			return true;
		i += next_unit(u + i, n - i, &esc);
		if (esc)
			return true;
	}
	return false;
}

/* Writes the escaped form of s into buf, which has room for 4 bytes per
 * byte of s and a NUL. */
static void
escape_into(char *buf, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), k = 0;

	for (size_t i = 0; i < n;) {
		bool esc;
		size_t len = next_unit(u + i, n - i, &esc);
		if (u[i] == '\\') {
			buf[k++] = '\\';
			buf[k++] = '\\';
		} else if (!esc) {
			memcpy(buf + k, u + i, len);
			k += len;
		} else {
			for (size_t j = i; j < i + len; j++) {
				buf[k++] = '\\';
				buf[k++] = 'x';
				buf[k++] = hex[u[j] >> 4];
				buf[k++] = hex[u[j] & 0xf];
			}
		}
		i += len;
	}
	buf[k] = '\0';
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
