/*
 * diag: the analyzer's messages to the user. Every message is one line on
 * stderr starting with "profanalyze: " and naming the input it is about,
 * so several warnings from one run can be told apart and grepped. The
 * control characters of a message are written as \xNN (textesc.h): the
 * names and paths it quotes come from the profiled program, and a line
 * break in one would make two lines.
 */
#ifndef PROFANALYZE_DIAG_H
#define PROFANALYZE_DIAG_H

#include <stdbool.h>

#define DIAG_PROGRAM "profanalyze"

/* "profanalyze: <message>\n" */
void
diag_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "profanalyze: warning: <message>\n" */
void
diag_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "profanalyze: note: <message>\n": a hint, not a problem with the
 * input. */
void
diag_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "\rprofanalyze: <message>" without a newline: the progress line, which
 * the next call writes over in place. Escaped as the other messages are
 * (it quotes the spool's path); shown whether quiet or not, so the caller
 * decides when (on a terminal only). */
void
diag_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* While quiet is true, warnings and notes are not written (errors are):
 * for a second read of inputs whose warnings the first read gave. */
void
diag_set_quiet(bool quiet);

#endif
