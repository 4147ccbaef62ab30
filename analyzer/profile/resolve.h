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
 * Named functions carry their demangled C++ name unless told otherwise.
 * With lines, a function is split by source line: "name (file.c:12)",
 * one profile function per (symbol, file, line), as gprof -l does.
 *
 * Unless told otherwise, a PC that the module's DWARF places in inlined
 * code (DW_TAG_inlined_subroutine) stands for several frames, as perf
 * and pprof show it: the function its symbol names, then one frame per
 * inlined call, the innermost last. An inlined function is a profile
 * function of its own, flagged PROFILE_FUNC_INLINED, one per (module,
 * name), or per (module, name, file, line) with lines; the frames' lines
 * are then pprof's: each frame is at the line of the call it makes to
 * the next, the innermost at the PC's own line. Modules without DWARF
 * give one frame per PC, as before, and no warning for it.
 *
 * What cannot be named is still a function of the profile, flagged
 * PROFILE_FUNC_UNNAMED: "libx.so+0x1234" for a module without usable
 * symbols or an address no symbol covers, 0x1234 being the start of the
 * function that holds the PC by the file's unwind tables (ehframe.h)
 * when the file is the one profiled and has them, else the PC's own
 * offset (the ELF address pc - base); "<unloaded libx.so+0x1234>" when the module's
 * file is gone (a library deleted or replaced since the run); "[vdso]+0x..."
 * for modules without a file ("[...]" paths, "[anon]" for an empty one,
 * unless its build-id shows it is the executable the process record
 * names) and without an image in the spool; "0x7f..." for a PC in no
 * module at all that the program's perf map does not name either.
 *
 * Code generated at run time (JIT) lies in no module. A PC in no module
 * that a symbol of the program's perf map covers (perfmap.h, the spool's
 * PERF_MAP records: resolver_set_perfmap) is the function of that symbol:
 * named by the map's name (demangled unless told otherwise), in the
 * pseudo module "[jit]", one function per line of the map. A module file that cannot give symbols (or whose DWARF
 * cannot be read, when lines are asked for) is reported once, as a
 * warning on stderr, when its first PC is resolved; modules without
 * DWARF at all are named together in one warning by resolver_finish().
 */
#ifndef PROFANALYZE_RESOLVE_H
#define PROFANALYZE_RESOLVE_H

#include <stdbool.h>
#include <stdint.h>

#include "modmap.h"
#include "profile.h"

/* A zeroed struct is the default: no debug root, demangled names, no
 * lines, inlined frames. */
struct resolve_opts {
	/* Root of separate debug files (found by build-id or
	 * .gnu_debuglink), or NULL for none. */
	const char *debug_root;
	bool no_demangle; /* keep C++ names as the symbol table has them */
	bool lines;       /* split functions by source line (DWARF) */
	bool no_inline;   /* one frame per PC, inlined code or not */
};

struct resolver;

/* A resolver adding functions to p for PCs placed by the sealed map m.
 * Both must outlive it, and so must the images the map borrows. opts is
 * copied (the debug_root string is borrowed); NULL means defaults. */
struct resolver *
resolver_new(const struct modmap *m, struct profile *p,
	     const struct resolve_opts *opts);

/* Prints the warnings that sum up the whole resolution (modules without
 * line information, with lines). Call after the last resolver_pc(). */
void
resolver_finish(struct resolver *r);

void
resolver_free(struct resolver *r);

struct perfmap;

/* Names the PCs in no module by the symbols of pm (sealed; it must
 * outlive the resolver), or by none when pm is NULL. */
void
resolver_set_perfmap(struct resolver *r, const struct perfmap *pm);

/* The pseudo module of code named by a perf map. */
#define RESOLVE_JIT_MODULE "[jit]"

/* The function id for pc seen at time t_ns; is_return tells a return
 * address from an interrupted PC. For a PC in inlined code, the function
 * its symbol names (the outermost of its frames). */
uint32_t
resolver_pc(struct resolver *r, uint64_t pc, uint64_t t_ns, bool is_return);

/* The frames pc stands for (see the top of the file), outermost caller
 * first, as a stack of profile_add_sample() holds them: *n (at least 1)
 * function ids, the first resolver_pc()'s. The array is r's, valid until
 * the next call into r. */
const uint32_t *
resolver_frames(struct resolver *r, uint64_t pc, uint64_t t_ns,
		bool is_return, size_t *n);

#endif
