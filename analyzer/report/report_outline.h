/*
 * report_outline: Allegro's outline profile (show-outline-profile): the
 * calling-context tree, one line per call path with the percentage of
 * all samples under it, the function and a sequence number, callees one
 * more space in and drawn with Allegro's glyphs ('/' first of several
 * siblings, '+' middle, '\' last, '|' a line of siblings continuing).
 *
 * Building the outline is separate from writing it so that a --root
 * number can be checked against the lines before any output is made.
 */
#ifndef PROFANALYZE_REPORT_OUTLINE_H
#define PROFANALYZE_REPORT_OUTLINE_H

#include <stddef.h>
#include <stdio.h>

#include "profile.h"

#define REPORT_OUTLINE_ALL ((size_t)-1)

struct report_outline_opts {
	/* Paths below this percentage of all samples are left out, with
	 * everything under them. */
	double threshold_pct;
	/* Print only the subtree of the line with this number (in the
	 * outline these options give), renumbered from 0; or
	 * REPORT_OUTLINE_ALL. */
	size_t root;
	/* At most this many columns of indentation
	 * (*outline-max-indentation*); REPORT_OUTLINE_ALL: no limit. */
	size_t max_indent;
	/* At most this many levels of lines (paths this many calls
	 * long); a line of the last level with callees gets one "[cut: N
	 * more levels]" line for them instead. REPORT_OUTLINE_ALL: no
	 * limit (a recursion D calls deep then writes D * D / 2 bytes of
	 * indentation, unless max_indent bounds it). */
	size_t max_depth;
};

/* --max-depth when none is given: twice the depth profrun writes. */
#define REPORT_OUTLINE_MAX_DEPTH 256

struct report_outline;

/* The outline of a finished profile, which must outlive it. Free with
 * report_outline_free(). */
struct report_outline *
report_outline_new(const struct profile *p,
		   const struct report_outline_opts *opts);

void
report_outline_free(struct report_outline *o);

/* Number of lines of the whole outline (the valid --root numbers are
 * 0 to this minus one). */
size_t
report_outline_lines(const struct report_outline *o);

/* The tree node of outline line i (numbered as --root numbers them), or
 * PROFILE_NONE for a line that is no node ("...", "[cut: ...]") and for
 * i past the last line. */
uint32_t
report_outline_node(const struct report_outline *o, size_t i);

/* Writes the report. opts->root must be REPORT_OUTLINE_ALL or below
 * report_outline_lines(). Write errors are left in out's error flag. */
void
report_outline_write(FILE *out, const struct report_outline *o);

#endif
