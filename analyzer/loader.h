/*
 * loader: a spool file into a profile.
 *
 * The whole file is read (mapped) and walked twice with the common
 * decoder: the first pass collects the process header, the module map
 * history, threads and the footer; the second resolves and adds the
 * samples, so a sample can be resolved against modules whose records
 * were written after it. Damage is reported, never fatal: a file cut
 * inside a record, an impossible length, a malformed record or a missing
 * footer each give one warning and the report covers what was read.
 */
#ifndef PROFANALYZE_LOADER_H
#define PROFANALYZE_LOADER_H

#include "profile.h"

struct loader_opts {
	/* Root of separate debug files (see elfsym.h), or NULL. */
	const char *debug_root;
};

/* Reads the spool at path into a new, finished profile the caller frees
 * with profile_free(). Warnings go to stderr. Returns NULL after printing
 * one error line when path cannot be read or is not a spool. */
struct profile *
loader_read(const char *path, const struct loader_opts *opts);

#endif
