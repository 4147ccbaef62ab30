/*
 * notes: the GNU build-id among a module's ELF notes.
 *
 * A module's notes are read twice: from its mapped PT_NOTE segments when
 * the table syncs (modules.c, read_build_id), and from a copy read
 * through the kernel when the unwinder announces a module it found by
 * itself (copy_build_id, in a signal handler). The note sizes come from
 * the file, so nothing about them is trusted: a size near 2^32 must not
 * wrap to a small one and make the walk read the next note where there
 * is none.
 *
 * Layer: base.
 */
#ifndef PROFRUN_NOTES_H
#define PROFRUN_NOTES_H

#include <stddef.h>
#include <stdint.h>

/* Walks the notes in the len bytes at notes (4-byte aligned fields, as
 * in PT_NOTE) to the first NT_GNU_BUILD_ID note named "GNU" whose id has
 * at most cap bytes, and copies the id to out. Returns its length, or 0
 * when there is none before the walk ends or meets a note that does not
 * fit in what is left. async-signal-safe */
uint32_t
notes_build_id(const uint8_t *notes, size_t len, uint8_t *out, size_t cap);

#endif
