/*
 * spools: the spools a run reads (see spools.c).
 */
#ifndef PROFANALYZE_SPOOLS_H
#define PROFANALYZE_SPOOLS_H

#include <stddef.h>

#include "family.h"
#include "options.h"
#include "profile.h"

/* The spools to read: the operands, each with its descendants' under
 * --children, read into fams[0..o->nspools) (which the caller frees with
 * family_free, each). Returns a new array (free it) of paths borrowed
 * from o or fams, *n of them; NULL after an error line. */
char **
spools_paths(const struct options *o, struct family *fams, size_t *n);

/* The profile of all of o's spools: one read, or several merged, all
 * read as the first one is (which sets o->load.kind when it was auto).
 * Returns a new profile; NULL after an error line, with *status the
 * exit status to give. */
struct profile *
spools_load(struct options *o, int *status);

/* The newest SPOOL.PID.N.tmp beside spool, the name profrun writes it
 * under until the program ends; *count is incremented for each one
 * there when count is not NULL. Returns a new path, or NULL when there
 * is none. */
char *
spools_running(const char *spool, size_t *count);

/* Replaces each operand of o that does not exist by its newest
 * temporary spool, with one warning. Returns the paths it allocated
 * (NULL-ended), which o then borrows: free them with spools_free_owned
 * once o is done with. */
char **
spools_unfinished(struct options *o);

void
spools_free_owned(char **owned);

#endif
