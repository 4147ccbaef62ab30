/*
 * resolve: program counters to profile functions.
 *
 * A PC is placed in a module instance by the module map history (at the
 * sample's time), then in a function by that module's ELF symbols, read
 * once per module file on first use. Each distinct PC is resolved once
 * per module instance and cached. Return addresses (every frame but the
 * interrupted one) are looked up at pc - 1: the return address itself
 * may already be the first byte of the next function.
 *
 * What cannot be named is still a function of the profile, flagged
 * PROFILE_FUNC_UNNAMED: "libx.so+0x1234" (one per distinct offset, the
 * ELF address pc - base) for a module without usable symbols or an
 * address no symbol covers, "[vdso]+0x..." for modules without a file
 * ("[...]" paths, "[anon]" for an empty one, unless its build-id shows
 * it is the executable the process record names), "0x7f..." for a PC in
 * no module at all. A module file that cannot give symbols is reported
 * once, as a warning on stderr, when its first PC is resolved.
 */
#ifndef PROFANALYZE_RESOLVE_H
#define PROFANALYZE_RESOLVE_H

#include <stdbool.h>
#include <stdint.h>

#include "modmap.h"
#include "profile.h"

struct resolver;

/* A resolver adding functions to p for PCs placed by the sealed map m.
 * Both must outlive it. debug_root is where separate debug files are
 * looked up by build-id (NULL: not at all). */
struct resolver *
resolver_new(const struct modmap *m, struct profile *p,
	     const char *debug_root);

void
resolver_free(struct resolver *r);

/* The function id for pc seen at time t_ns; is_return tells a return
 * address from an interrupted PC. */
uint32_t
resolver_pc(struct resolver *r, uint64_t pc, uint64_t t_ns, bool is_return);

#endif
