/*
 * ehframe: the functions of an ELF file as its unwind tables know them.
 *
 * A stripped binary has no symbols for its static functions, but the
 * C runtime needs to unwind through them, so .eh_frame has an FDE for
 * each, with the function's start and length, and .eh_frame_hdr a table
 * of the FDEs sorted by start. This reads that table (in the encoding
 * every GNU and LLVM linker writes: 4-byte offsets from the header) and
 * the ranges of the FDEs it points to, so that PCs without a symbol can
 * be grouped by the function that holds them.
 */
#ifndef PROFANALYZE_EHFRAME_H
#define PROFANALYZE_EHFRAME_H

#include <stdbool.h>
#include <stdint.h>

#include "elffile.h"

struct ehframe;

/* The FDE ranges of f. Returns a table the caller frees with
 * ehframe_free(), or NULL when f has no .eh_frame_hdr this can read. */
struct ehframe *ehframe_load(const struct elffile *f);

void ehframe_free(struct ehframe *t);

/* Whether an FDE covers addr (an ELF virtual address); sets *start to
 * the start of the innermost one. */
bool ehframe_lookup(const struct ehframe *t, uint64_t addr, uint64_t *start);

/* The same, with *end set to the end of that FDE's range (the address
 * past the function's last byte). */
bool ehframe_range(const struct ehframe *t, uint64_t addr, uint64_t *start,
		   uint64_t *end);

#endif
