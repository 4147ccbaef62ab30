/*
 * annotate: the annotated disassembly of chosen functions (Allegro's
 * disassemble with :profile, profanalyze --disassemble) and their source
 * listing with self and total hits per line (pprof -list, profanalyze
 * --list).
 *
 * The profile model groups samples by calling-context node, not by PC,
 * so the hits of each instruction come from a second read of the spools
 * (loader_opts.sample_hook) that keeps, for the chosen functions only,
 * the PCs their samples were charged at. A sample is charged where the
 * reports charge its self time: at the frame of the innermost function
 * the hiding rules leave displayed. When that frame is the leaf, the hit
 * is on the interrupted instruction; when it is a return address (the
 * functions below it were hidden, or, in a space profile, it called the
 * allocator), the hit is on the instruction after the call and is marked
 * as such: the program was in the callee. The hits of a function thus add
 * up to its self samples in the flat report, whatever --thread, --hide
 * and merging did.
 *
 * The code is read from the module's file on disk (checked against the
 * build-id recorded in the spool) and decoded with Capstone; source lines
 * and inlined calls come from the module's DWARF (srcline.h).
 */
#ifndef PROFANALYZE_ANNOTATE_H
#define PROFANALYZE_ANNOTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "hide.h"
#include "loader.h"
#include "profile.h"
#include "report_outline.h"

/* Whether this build can disassemble (Capstone was found). */
bool
annotate_available(void);

struct annotate_opts {
	const char *const *disassemble; /* FUNCTION specs, --disassemble */
	size_t ndisassemble;
	const char *const *list;        /* FUNCTION specs, --list */
	size_t nlist;
	bool intel;                     /* Intel syntax instead of AT&T */
	const char *spool;              /* the first SPOOL, for messages */
	char *const *paths;             /* every spool to read again */
	size_t npaths;
	/* How they were read for p (kind, view, threads, debug root). */
	const struct loader_opts *load;
	const struct hide_rules *hide;  /* what p hid */
	/* The profile the other reports show, read as p was but with
	 * inlined calls as frames of their own (hiding applied); NULL when
	 * it is p (--no-inline). FUNCTION names its functions. */
	const struct profile *shown;
	/* Its outline, whose line numbers a FUNCTION may give, or NULL. */
	const struct report_outline *outline;
};

struct annotate;

/* Finds the functions the specs name in o->shown (or p): a name or
 * label, MODULE:NAME (MODULE the file name or path of the module) or an
 * outline line number; then the function of p (the profile read with
 * the symbols' functions, hiding applied) that holds its code: itself,
 * or for an inlined call the functions it was inlined into. Returns a
 * new annotate the caller frees with annotate_free(), or NULL after one
 * error line naming a spec that matches no function or several. p, o's
 * profile and o's arrays must outlive it. */
struct annotate *
annotate_new(const struct profile *p, const struct annotate_opts *o);

void
annotate_free(struct annotate *a);

/* Reads the spools again for the hits of the chosen functions and writes
 * their disassemblies and listings to out. Notes (missing source or
 * debug information) go to stderr. Returns 0, or -1 when a function could
 * not be shown at all (its module file cannot be read), after an error
 * line for it; the others are written all the same. */
int
annotate_write(FILE *out, struct annotate *a);

#endif
