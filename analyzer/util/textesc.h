/*
 * textesc: names made safe for a terminal.
 *
 * Thread names, module paths, function names and command lines come from
 * the profiled program, which chooses their bytes. Written raw into a text
 * report or a warning, an ESC or a BEL in one is an escape sequence that
 * the user's terminal acts on. Every text output and every diagnostic
 * therefore writes the C0 control characters (0x00 to 0x1f) and DEL
 * (0x7f) of such strings as \xNN (two lower-case hex digits); every other
 * byte, UTF-8 or not, is written as it is. (JSON, which escapes by its
 * own rules, and the binary exports do not use this.)
 */
#ifndef PROFANALYZE_TEXTESC_H
#define PROFANALYZE_TEXTESC_H

#include <stdbool.h>
#include <stdio.h>

/* Whether s holds a byte that is written escaped. */
bool
textesc_needed(const char *s);

/* Writes s to out, its control bytes as \xNN. */
void
textesc_put(FILE *out, const char *s);

/* s as textesc_put writes it: a new string the caller frees. */
char *
textesc_dup(const char *s);

#endif
