/*
 * textesc: names made safe for a terminal.
 *
 * Thread names, module paths, function names and command lines come from
 * the profiled program, which chooses their bytes. Written raw into a text
 * report or a warning, an ESC or a BEL in one is an escape sequence that
 * the user's terminal acts on; so is a C1 control character (U+0080 to
 * U+009F: U+009B is CSI on some terminals), and a byte that is not UTF-8
 * is one in a terminal that reads Latin-1. Every text output and every
 * diagnostic therefore writes, as \xNN (two lower-case hex digits) per
 * byte: the C0 control characters (0x00 to 0x1f), DEL (0x7f), the UTF-8
 * encoding of each C1 control character (\xc2\x9b) and every byte that
 * is not part of a valid UTF-8 sequence. A backslash is written \\, so
 * that a name that holds "\x1b" itself is not taken for an escaped one.
 * Every other byte is written as it is. (JSON, which escapes by its own
 * rules, and the binary exports do not use this.)
 */
#ifndef PROFANALYZE_TEXTESC_H
#define PROFANALYZE_TEXTESC_H

#include <stdbool.h>
#include <stdio.h>

/* Whether s holds a byte that is written escaped. */
bool
textesc_needed(const char *s);

/* Writes s to out, escaped as above. */
void
textesc_put(FILE *out, const char *s);

/* s as textesc_put writes it: a new string the caller frees. */
char *
textesc_dup(const char *s);

#endif
