/*
 * srcline: the source file and line of a code address, from the DWARF
 * line tables of one ELF file (libdw).
 *
 * The compilation units' address ranges are read once into a sorted
 * table (rather than relying on .debug_aranges, which not every compiler
 * writes), so finding an address's unit is a binary search; libdw then
 * finds the row in that unit's line table, which it reads once and
 * caches.
 */
#ifndef PROFANALYZE_SRCLINE_H
#define PROFANALYZE_SRCLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct srcline;

/* Whether this build can read DWARF (libdw was found). */
bool
srcline_available(void);

/* Opens the DWARF of the ELF file at path. Returns a reader the caller
 * frees with srcline_free(), or NULL with a short reason in why. */
struct srcline *
srcline_open(const char *path, char *why, size_t whylen);

void
srcline_free(struct srcline *s);

/* The source position of addr (an ELF virtual address). Returns true and
 * sets *file (valid as long as s) and *line, or false when no line table
 * covers addr. */
bool
srcline_lookup(struct srcline *s, uint64_t addr, const char **file,
	       unsigned *line);

/* One inlined call enclosing an address (DW_TAG_inlined_subroutine). */
struct srcline_inline {
	const char *name;      /* the inlined function */
	const char *linkage;   /* its symbol name (C++: mangled), or NULL */
	const char *call_file; /* where it was called ("?" when unknown) */
	unsigned call_line;    /* 0 when unknown */
};

/* The inlined calls enclosing addr, innermost first: fills at most max
 * of out and returns their number (0 when addr is in no inlined code).
 * The strings are valid as long as s. */
size_t
srcline_inlines(struct srcline *s, uint64_t addr, struct srcline_inline *out,
		size_t max);

/* The compilation directory of the unit holding addr, which relative
 * source paths are relative to, or NULL. Valid as long as s. */
const char *
srcline_comp_dir(struct srcline *s, uint64_t addr);

/* file made absolute against dir (the unit's compilation directory,
 * srcline_comp_dir) and "x/../" and "./" taken out, as pprof -list opens
 * the path it is given; NULL stays NULL. Returns a new string or NULL. */
char *
srcline_path(const char *dir, const char *file);

/* The file and line where the function (DW_TAG_subprogram) holding addr
 * is declared. Returns true and sets *file (valid as long as s) and
 * *line, or false when the DWARF does not say. */
bool
srcline_function(struct srcline *s, uint64_t addr, const char **file,
		 unsigned *line);

#endif
