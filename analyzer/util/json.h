/*
 * json: a small streaming JSON writer for the exporters.
 *
 * The writer tracks nesting and commas so exporters only say what comes
 * next; output is indented two spaces per level. Strings are escaped to
 * always give valid JSON: quotes, backslashes and control characters are
 * escaped, valid UTF-8 passes through, and bytes that are not valid UTF-8
 * (symbol names are arbitrary bytes) become U+FFFD.
 */
#ifndef PROFANALYZE_JSON_H
#define PROFANALYZE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

struct json {
	FILE *out;
	int depth;
	bool has_items[JSON_MAX_DEPTH]; /* per level: a comma is due */
	bool after_key;
};

/* Writes s[0..len) as a JSON string literal, quotes included. */
void
json_escape(FILE *out, const char *s, size_t len);

void
json_init(struct json *j, FILE *out);

void
json_begin_object(struct json *j);
void
json_end_object(struct json *j);
void
json_begin_array(struct json *j);
void
json_end_array(struct json *j);

/* The key of the next member of the current object. */
void
json_key(struct json *j, const char *key);

/* Values; s may be NULL, written as null. */
void
json_string(struct json *j, const char *s);
void
json_uint(struct json *j, uint64_t v);
/* v with up to decimals decimals, trailing zeros dropped; NaN and
 * infinities become null. */
void
json_double(struct json *j, double v, int decimals);
void
json_bool(struct json *j, bool v);
void
json_null(struct json *j);

/* Ends the document with a newline. */
void
json_finish(struct json *j);

/* Length of the valid UTF-8 sequence at s (at most n bytes, n > 0), or 0
 * when the bytes there are not one (overlong forms, surrogates and code
 * points above U+10FFFF included). Its code point goes to *cp when cp is
 * not NULL (the first byte when invalid). Shared by every writer that
 * must emit valid UTF-8. */
size_t
json_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);

#endif
