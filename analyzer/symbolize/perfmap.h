/*
 * perfmap: the symbols of a perf map, for code that no file holds.
 *
 * A program that generates code (node --perf-basic-prof, the JVM with
 * perf-map-agent, LuaJIT, Python 3.12's perf trampoline) names it in
 * /tmp/perf-PID.map, one symbol a line:
 *
 *   START SIZE name
 *
 * START and SIZE in hex, with or without 0x; the name is the rest of the
 * line and may hold spaces. The preload library copies the file into the
 * spool (PERF_MAP records, profspool(5)). Lines are taken in order, and a
 * later line's range wins over the earlier ones it overlaps, as it does
 * in perf (code freed and generated again at the same address): an
 * earlier symbol keeps only the parts of its range no later line covers.
 * Lines that do not parse (no name, a bad number, a size of 0 or a range
 * whose end would be 2^64 or more) are skipped and counted.
 */
#ifndef PROFANALYZE_PERFMAP_H
#define PROFANALYZE_PERFMAP_H

#include <stddef.h>
#include <stdint.h>

/* One line of the map, as it was given. */
struct perfmap_sym {
	uint64_t start, size;
	char *name;   /* owned by the map */
	uint32_t id;  /* its number among the map's symbols, from 0 */
};

struct perfmap;

/* An empty map. Never NULL (allocation failure aborts). */
struct perfmap *
perfmap_new(void);

void
perfmap_free(struct perfmap *pm);

/* Adds the lines of text (len bytes, not NUL-terminated; a last line
 * may lack its newline), after those added before. Returns the number
 * of lines skipped as malformed (blank lines are not counted). */
size_t
perfmap_add_text(struct perfmap *pm, const char *text, size_t len);

/* Adds the lines of the file at path. Returns the lines skipped, or
 * -errno when the file cannot be read. */
long
perfmap_add_file(struct perfmap *pm, const char *path);

/* Builds the lookup table. Call after the last add and before lookups;
 * adding more afterwards needs another seal. */
void
perfmap_seal(struct perfmap *pm);

/* Symbols added (every line that parsed, overridden or not). */
size_t
perfmap_count(const struct perfmap *pm);

/* The symbol whose range holds addr once later lines have won, or NULL.
 * Valid as long as the map. */
const struct perfmap_sym *
perfmap_lookup(const struct perfmap *pm, uint64_t addr);

#endif
