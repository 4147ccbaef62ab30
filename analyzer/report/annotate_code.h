/*
 * annotate_code: one function's machine code for the annotated
 * disassembly (annotate.h), read from its module's ELF file and decoded
 * with Capstone, each instruction with its source line and the inlined
 * calls around it (DWARF, srcline.h).
 *
 * Calls and jumps are named by their target: a symbol of the module
 * (for x86-64, a PLT entry as name@plt, elfsym.h), or a place in the
 * function. Bytes Capstone cannot decode are shown one
 * at a time as "(bad)", so every byte of the function is on some line.
 */
#ifndef PROFANALYZE_ANNOTATE_CODE_H
#define PROFANALYZE_ANNOTATE_CODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elffile.h"
#include "elfsym.h"
#include "srcline.h"

#define ANNOTATE_MAX_INLINE 8

/* One decoded instruction, with its source position and hits. */
struct annotate_insn {
	uint64_t addr;
	uint8_t size;
	uint8_t ninl;
	uint8_t bytes[16];
	char text[256];
	const char *file; /* innermost source position; NULL: none */
	unsigned line;
	struct srcline_inline inl[ANNOTATE_MAX_INLINE]; /* innermost first */
	/* Zero after loading; the caller's to fill: */
	uint64_t samples, weight;             /* all hits on the line */
	uint64_t after_samples, after_weight; /* those after a call */
};

/* A function decoded: its instructions and what they were read from. */
struct annotate_code {
	const char *module;
	uint64_t addr, size;
	struct annotate_insn *ins;
	size_t n;
	struct elfsym *syms;
	struct srcline *lines; /* NULL without DWARF */
	const char *comp_dir;  /* relative source paths start there */
	const char *decl_file; /* where the function is declared, or NULL */
	unsigned decl_line;
	char *why_nolines;     /* why lines is NULL */
	/* private */
	struct elffile ef; /* the module file, open */
	bool ef_open;
};

struct annotate_code_opts {
	const char *path;         /* the module file */
	const uint8_t *build_id;  /* recorded in the spool; len 0: none */
	size_t build_id_len;
	const char *debug_root;   /* separate debug files, or NULL */
	uint64_t addr;            /* the function's symbol (ELF address) */
	/* It has no symbol: addr is the start of the unwind tables' FDE
	 * that holds it (ehframe.h), which gives its length. */
	bool unnamed;
	bool intel;               /* Intel syntax, else AT&T */
};

/* Whether this build can decode (Capstone was found). */
bool
annotate_code_available(void);

/* Reads and decodes the function whose symbol (or, o->unnamed, whose
 * FDE) is at o->addr in the file
 * o->path (whose build-id must be the recorded one). Returns 0 with c
 * filled, to be freed with annotate_code_free(); or -1 with a short
 * reason in why and nothing to free. The strings c points to (module,
 * source files, inlined names) live as long as c and o->path. */
int
annotate_code_load(struct annotate_code *c, const struct annotate_code_opts *o,
		   char *why, size_t whylen);

void
annotate_code_free(struct annotate_code *c);

/* The index of the instruction holding addr, or -1. */
long
annotate_code_insn_at(const struct annotate_code *c, uint64_t addr);

#endif
