/*
 * pcprof: the profile by program counter, for the exports that keep
 * addresses (pprof's profile.proto).
 *
 * The profile model merges the PCs of a function into one function, so
 * this module reads the spools a second time (loader_opts.sample_hook)
 * and keeps every sample's stack of PCs, as the reports count them: the
 * frames of functions the hiding rules hide are left out, markers of cut
 * stacks stay (as locations without a mapping). A location is one
 * distinct PC of one module instance (the interrupted PC, or a return
 * address minus one: inside the call instruction, as profile.proto
 * allows), with the PT_LOAD segment holding it as its mapping. Its
 * source lines come from the module's DWARF (srcline.h), innermost
 * first: a PC in inlined code has one line per inlined call, the last
 * one in the function its symbol names.
 */
#ifndef PROFANALYZE_PCPROF_H
#define PROFANALYZE_PCPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hide.h"
#include "loader.h"

#define PCPROF_NONE UINT32_MAX

/* A segment of a module instance: where one PT_LOAD segment of one file
 * was mapped in one process. */
struct pcprof_mapping {
	char *path;
	uint8_t *build_id; /* NULL when unknown */
	size_t build_id_len;
	uint64_t base; /* the instance's load bias */
	/* Runtime addresses start..limit (whole pages, as the kernel maps
	 * them) are the file from offset on; all 0 when the spool recorded
	 * no segment holding the PCs. */
	uint64_t start, limit, offset;
	bool has_lines; /* some location of it has a source line */
	bool has_inline; /* some location of it is in inlined code */
};

/* A function of the lines (name and the file of its lines), or of the
 * declarations (pcprof_loc.decl), or both. */
struct pcprof_func {
	char *name;
	char *file; /* NULL when unknown */
	uint32_t start_line; /* declaration line, 0 when unknown */
};

struct pcprof_line {
	uint32_t func; /* index into funcs */
	uint32_t line; /* 0 when unknown */
};

struct pcprof_loc {
	uint32_t mapping; /* PCPROF_NONE: a PC in no module, or a marker */
	uint64_t addr; /* runtime address (0 for a marker) */
	uint64_t elf_addr; /* addr - the mapping's base */
	uint32_t line0, nlines; /* lines[line0 ...], innermost first */
	bool inlined; /* nlines > 1 */
	/* The function its symbol names, with the file DWARF declares it
	 * in (the last line's function has the file of its line, which
	 * may be a header its code came from): index into funcs. */
	uint32_t decl;
};

/* Samples that share a stack and a thread. */
struct pcprof_sample {
	uint32_t stack0, depth; /* stacks[stack0 ...]: locations, leaf first */
	uint32_t tid;
	uint64_t count, weight;
};

struct pcprof {
	struct pcprof_mapping *mappings;
	size_t nmappings, mappings_cap;
	struct pcprof_func *funcs;
	size_t nfuncs, funcs_cap;
	struct pcprof_line *lines;
	size_t nlines, lines_cap;
	struct pcprof_loc *locs;
	size_t nlocs, locs_cap;
	uint32_t *stacks;
	size_t nstacks, stacks_cap;
	struct pcprof_sample *samples;
	size_t nsamples, samples_cap;
	struct pcprof_state *st; /* while reading */
};

struct pcprof_opts {
	char *const *paths; /* the spools, as they were read for the profile */
	size_t npaths;
	const struct loader_opts *load; /* how they were read */
	const struct hide_rules *hide; /* what the profile hid, or NULL */
};

/* Reads the spools again by PC (quietly: their warnings were given when
 * they were read for the profile). Returns a new pcprof the caller frees
 * with pcprof_free(), or NULL when a spool cannot be read. */
struct pcprof *pcprof_read(const struct pcprof_opts *o);

void pcprof_free(struct pcprof *pc);

#endif
