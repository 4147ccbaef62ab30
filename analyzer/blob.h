/*
 * blob: a spool file's bytes in memory, mapped when it is a regular file
 * and read otherwise (a pipe, /dev/stdin).
 */
#ifndef PROFANALYZE_BLOB_H
#define PROFANALYZE_BLOB_H

#include <stddef.h>
#include <stdint.h>

#include "spool.h"

/* The spool's bytes, mapped when it is a regular file, read otherwise. */
struct blob {
	const uint8_t *data;
	size_t size;
	void *map;
	uint8_t *buf;
};

/* Reads or maps path. Returns 0 or -errno. */
int
blob_open(const char *path, struct blob *b);

void
blob_close(struct blob *b);

/* Opens the spool at path and a cursor on it, checking its header.
 * Returns 0, or a negative value after one error line naming path. */
int
blob_open_spool(const char *path, struct blob *b, struct spool_cursor *c);

#endif
