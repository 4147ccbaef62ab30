/*
 * blob: a spool file's bytes in memory, mapped (or read, when it cannot
 * be mapped). Only regular files are read: a FIFO or a device named like
 * a spool (a child's FILE.PID, say) could block the reader forever or
 * never end, so it is refused without a byte read.
 */
#ifndef PROFANALYZE_BLOB_H
#define PROFANALYZE_BLOB_H

#include <stddef.h>
#include <stdint.h>

#include "spool.h"

/* The spool's bytes, mapped when the file can be, read otherwise. */
struct blob {
	const uint8_t *data;
	size_t size;
	void *map;
	uint8_t *buf;
};

/* Reads or maps path. Returns 0 or -errno; a path that is not a regular
 * file is never read (see regfile_open). */
int
blob_open(const char *path, struct blob *b);

void
blob_close(struct blob *b);

/* Opens the spool at path and a cursor on it, checking its header.
 * Returns 0, or a negative value after one error line naming path. */
int
blob_open_spool(const char *path, struct blob *b, struct spool_cursor *c);

#endif
