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

/* How many bytes a reader moves on before it drops the pages behind it
 * (blob_drop): the resident part of a mapped spool read front to back. */
#define BLOB_WINDOW ((size_t)1 << 20)

/* The spool's bytes, mapped when the file can be, read otherwise. */
struct blob {
	const uint8_t *data;
	size_t size;
	void *map;
	uint8_t *buf;
	/* Where the file was found to have shrunk under the mapping
	 * (blob_shrunk); set by the SIGBUS handler. */
	volatile size_t shrunk;
};

/* Reads or maps path. Returns 0 or -errno; a path that is not a regular
 * file is never read (see regfile_open). A mapped blob must stay where
 * it is (not be copied) until blob_close: the SIGBUS handler finds it by
 * its address. */
int
blob_open(const char *path, struct blob *b);

void
blob_close(struct blob *b);

/* SIZE_MAX, or the offset (a page's start) from which the file had
 * shrunk away when a read through the mapping reached it: the bytes
 * there and after it read as zeros, never as a fault. A file that shrank
 * inside its last page reads as zeros past its new end without this
 * noticing (a chunked spool's reader takes them for unused space). */
size_t
blob_shrunk(const struct blob *b);

/* Tells that the bytes of [from, to) will not be read again soon: the
 * pages wholly inside leave the process's resident set, so that reading
 * a large spool front to back keeps about BLOB_WINDOW bytes of it
 * resident, not the file. The bytes stay valid: a mapped file's pages
 * are read back from the file when touched again (a spool that was read,
 * not mapped, stays as it is). from must be 0 or a value this function
 * returned. Returns where the next drop starts: the end of the last page
 * dropped, or from. */
size_t
blob_drop(const struct blob *b, size_t from, size_t to);

/* Opens the spool at path and a cursor on it, checking its header.
 * Returns 0, or a negative value after one error line naming path. */
int
blob_open_spool(const char *path, struct blob *b, struct spool_cursor *c);

#endif
