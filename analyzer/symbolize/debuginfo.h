/*
 * debuginfo: the separate debug file of an ELF file, found as gdb finds
 * it.
 *
 *   1. by build-id: ROOT/.build-id/xx/yyyy.debug, which must carry the
 *      same build-id;
 *   2. by .gnu_debuglink NAME: DIR/NAME, DIR/.debug/NAME and ROOT/DIR/NAME,
 *      where DIR is the directory of the file; the candidate must have the
 *      file's build-id when the file has one, else the CRC-32 the link
 *      records.
 *
 * ROOT is the debug root (/usr/lib/debug). A candidate that exists but
 * does not match is skipped and named in a note for the caller's warning.
 *
 * With libdw the search is libdwfl's (dwfl_standard_find_debuginfo):
 * these places, a few more (ROOT/b/NAME and ROOT/NAME for a file in
 * /a/b; the places of the file's real path when it is reached through a
 * symlink) and, when DEBUGINFOD_URLS is set, the debuginfod servers
 * (profanalyze's main unsets it unless --debuginfod is given). Places
 * holding a FIFO or a device are left out of it; a file that has a
 * .symtab of its own is not searched for by libdw. Our own walk of 1. and
 * 2. then gives the notes, libdw being silent about mismatches, finds
 * what libdw did not look for, and is the whole search in a build
 * without libdw.
 */
#ifndef PROFANALYZE_DEBUGINFO_H
#define PROFANALYZE_DEBUGINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elffile.h"

/* Opens the separate debug file of f, which was read from path (NULL for
 * an image in memory: build-id only). root may be NULL (no root lookups).
 * Returns 0 with *out open and *found set to its path (the caller frees
 * it and closes *out), or -1 when there is none. *note, when not NULL on
 * return, is a message about a candidate that did not match (the caller
 * frees it), also when a later one did. Not thread-safe: with libdw, one
 * Dwfl serves every call. */
int
debuginfo_open(const struct elffile *f, const char *path, const char *root,
	       struct elffile *out, char **found, char **note);

/* Whether the search is libdw's (a build with libdw), which --debuginfod
 * needs. */
bool
debuginfo_uses_libdw(void);

/* The CRC-32 of .gnu_debuglink (zlib's crc32, which this calls): crc is
 * 0 for the first block, then the previous result. */
uint32_t
debuginfo_crc32(uint32_t crc, const void *buf, size_t len);

#endif
