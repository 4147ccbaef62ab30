/*
 * elfsym: the function symbols of one ELF file, for address lookup.
 *
 * A table is read once per file: .symtab when the file has function
 * symbols there, else the .symtab of its separate debug file (found by
 * build-id or .gnu_debuglink, see debuginfo.h), else .dynsym. Only
 * STT_FUNC and STT_GNU_IFUNC symbols that are defined in the file count.
 * Aliases (several symbols at one address) collapse to one name, chosen
 * deterministically: global before weak before local, then a name without
 * a version or with the default one before a name with another version
 * (see elfsym_split_version), then the shorter name (not counting a
 * default version), then the lexicographically smaller one; the alias
 * group covers the largest size any of its members declares.
 *
 * Names are those of the symbol table, versions included: a library that
 * versions its symbols with .symver (glibc) has .symtab names such as
 * memcpy@@GLIBC_2.14 (the default version, the one programs link against)
 * and memcpy@GLIBC_2.2.5 (an older one, kept for old binaries).
 *
 * Lookup is exact about sizes: an address belongs to a symbol only when
 * addr <= a < addr + size. A symbol of size 0 (hand-written assembly
 * without .size) matches its own address only: stretching it up to the
 * next symbol would silently charge unrelated code to it. Addresses no
 * symbol covers are left for the caller to show as module+offset.
 *
 * Nothing in a file can crash the reader (elffile.h checks it first): a
 * file that is missing, unreadable, not ELF, corrupt, without .text,
 * changed since it was profiled (build-id differs) or without symbols
 * gives NULL and a reason.
 */
#ifndef PROFANALYZE_ELFSYM_H
#define PROFANALYZE_ELFSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elffile.h"

struct elfsym_sym {
	uint64_t addr; /* ELF virtual address (st_value) */
	uint64_t size; /* st_size, 0 when the symbol declares none */
	const char *name;
};

struct elfsym_opts {
	/* The build-id recorded when the file was profiled, or len 0 when
	 * unknown: a file whose own build-id differs (or that has none) is
	 * refused. */
	const uint8_t *build_id;
	size_t build_id_len;
	/* Root of separate debug files ("/usr/lib/debug"), or NULL. */
	const char *debug_root;
	/* Also find the file that holds the module's DWARF (for lines). */
	bool want_dwarf;
	/* A file without function symbols gives an empty table (with its
	 * PLT entries, and its DWARF when wanted) rather than NULL. */
	bool allow_empty;
};

struct elfsym;

/* Reads the function symbols of path. Returns a table the caller frees
 * with elfsym_free(), or NULL with why set (why->text is a short phrase:
 * "not an ELF file", "No such file or directory", ...). opts may be
 * NULL. */
struct elfsym *
elfsym_load(const char *path, const struct elfsym_opts *opts,
	    struct elffile_why *why);

/* The same for the image of an ELF file in memory (len bytes, copied
 * while reading; the vdso). */
struct elfsym *
elfsym_load_image(const void *data, size_t len,
		  const struct elfsym_opts *opts, struct elffile_why *why);

void
elfsym_free(struct elfsym *t);

/* The symbol whose range holds addr, or NULL. The result (and its name)
 * lives as long as the table. */
const struct elfsym_sym *
elfsym_lookup(const struct elfsym *t, uint64_t addr);

/* Number of distinct symbols (after alias merging), sorted by address. */
size_t
elfsym_count(const struct elfsym *t);

/* The i-th symbol in address order (i < elfsym_count()). */
const struct elfsym_sym *
elfsym_get(const struct elfsym *t, size_t i);

/* Where the symbols came from: ".symtab", ".dynsym", or the path of the
 * separate debug file. Lives as long as the table. */
const char *
elfsym_source(const struct elfsym *t);

/* With opts.want_dwarf: the file holding the module's DWARF (the file
 * itself or its separate debug file), or NULL when there is none. Lives
 * as long as the table. */
const char *
elfsym_dwarf_path(const struct elfsym *t);

/* A warning about something the load passed over (a separate debug file
 * that did not match), or NULL. Lives as long as the table. */
const char *
elfsym_note(const struct elfsym *t);

/* Splits a symbol table name into its plain name and its version:
 * "memcpy@@GLIBC_2.14" is memcpy with the default version GLIBC_2.14,
 * "memcpy@GLIBC_2.2.5" memcpy with the other version GLIBC_2.2.5. Returns
 * the length of the plain name; *version points into name at the version
 * (NULL when there is none: no '@', or nothing before or after it) and
 * *is_default says whether it is the default one. */
size_t
elfsym_split_version(const char *name, const char **version,
		     bool *is_default);

/* Whether a version elfsym_split_version() found is the "plt" of a PLT
 * entry's name, NAME@plt: x86-64 files get one for each entry of their
 * PLT, which no symbol table names. The name is shown as NAME@plt (NAME
 * demangled), and the "plt" is no symbol version. */
bool
elfsym_version_is_plt(const char *version);

#endif
