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

#endif
