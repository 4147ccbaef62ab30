/*
 * modules: the loaded-module table of the process.
 *
 * Two readers with different needs: the unwinder, inside the signal handler,
 * asks which module holds a PC and where its unwind table is, and whether an
 * address is safe to read; the spool wants MODULE_LOAD/UNLOAD records. The table is filled from dl_iterate_phdr outside any signal handler
 * (at start, on each dlclose, and by polls of the loader's load/unload
 * counters from program threads), and read by handlers through a per-entry
 * seqlock, so a handler never takes the loader's lock.
 *
 * Layer: core.
 */
#ifndef PROFRUN_MODULES_H
#define PROFRUN_MODULES_H

#include <stdint.h>

/* What the unwinder needs to know of the module holding a PC. */
struct module_view {
	uint64_t base;
	uint64_t text_lo, text_hi; /* executable segments */
	uint64_t eh_hdr;           /* runtime address of .eh_frame_hdr, or 0 */
	uint64_t eh_table;         /* its binary-search table */
	uint64_t eh_count;         /* entries in the table */
};

/* The table's epoch, a number that changes whenever the table does
 * (never 0): what was worked out from the table under another epoch is
 * stale. async-signal-safe */
uint32_t
modules_epoch(void);

/* hook() is called after modules_sync() (or a poll) brought the table up
 * to date, whether or not it changed; for the unwinder's cached rules.
 * A callback rather than a call: the unwinder is above the table. */
void
modules_on_change(void (*hook)(void));

/* Takes the first snapshot of the loaded modules. Records are emitted by
 * the first modules_sync() after the spool is open. Returns 0 or -errno. */
int
modules_init(void);

/* Compares the table with what is loaded now and emits MODULE_LOAD and
 * MODULE_UNLOAD records for the differences (threads_emit). Not
 * async-signal-safe: takes the loader's lock. */
void
modules_sync(void);

/* Emits a MODULE_LOAD for every module loaded now, as loaded at the start:
 * the first records of a forked child's new spool. */
void
modules_emit_all(void);

/* Fork hooks (the table's lock is held across fork). */
void
modules_prefork(void);
void
modules_postfork_parent(void);
void
modules_postfork_child(void);

/* Cheap check: syncs only when the loader's load/unload counters moved
 * since the last sync. Does nothing when another thread holds the
 * table's lock (it is called from inside the malloc wrappers). */
void
modules_poll(void);

/* Records the load of the object fo describes (found by the unwinder with
 * _dl_find_object: a PC in no module the table has), once, from its
 * mapped headers read through the kernel. The caller is the thread that
 * owns its stream now (in the sampling handler, or busy).
 * async-signal-safe */
struct dl_find_object;
void
modules_announce(const struct dl_find_object *fo);

/* Copies what the unwinder needs of the module whose code holds pc.
 * Returns 0, or -1 when no known module holds it. async-signal-safe */
int
modules_lookup_text(uint64_t pc, struct module_view *out);

/* Decodes h, a copy of the first MODULES_EH_HDR_LEN bytes of the
 * .eh_frame_hdr at v->eh_hdr, into v->eh_table and v->eh_count (0 when the
 * table is not in the encoding libunwind's binary search expects:
 * datarel, sdata4 pairs). async-signal-safe */
#define MODULES_EH_HDR_LEN 16
void
modules_parse_eh_hdr(const uint8_t *h, struct module_view *v);

/* Whether [addr, addr+len) lies in a loaded module's segments and no unload
 * is in progress, so that it may be read directly. async-signal-safe */
int
modules_readable(uint64_t addr, uint64_t len);

/* Bracket an unload (dlclose): between the two, handlers read the memory of
 * modules that can be unloaded (any not loaded at start) only through the
 * kernel, and _begin waits for handlers already running. */
void
modules_unload_begin(void);
void
modules_unload_end(void);

#endif
