/*
 * perfmap: the program's perf map, copied into the spool at its end.
 *
 * A program that generates code (node --perf-basic-prof, the JVM with
 * perf-map-agent, LuaJIT, Python 3.12's perf trampoline) may name it in
 * /tmp/perf-PID.map, text lines "START SIZE name", for perf. Such maps
 * are often deleted when the program exits, before anyone reads the
 * spool, so the library copies the one of its own PID into the spool
 * as PERF_MAP records (profspool(5)): when the program deletes it (its
 * exit handlers may, before the library's own ending runs), and when the
 * image ends (exit, exec, a fatal signal), just before the footer, if it
 * is still there.
 *
 * Layer: core. Async-signal-safe: open, read and the appender's
 * pwrite into a static buffer, which only the thread that ends the image
 * uses (appender_finish lets one thread in).
 */
#ifndef PROFRUN_PERFMAP_H
#define PROFRUN_PERFMAP_H

/* The most bytes of a map the library copies: a larger map is cut at a
 * line's end and its last record says so (SPOOL_PERF_MAP_CUT). The copy
 * runs while the other threads that end the process wait for the footer
 * (at most a second: appender_finish). */
#define PERFMAP_MAX_BYTES (32u << 20)

/* Copies /tmp/perf-<getpid()>.map, when it exists, is a regular file and
 * belongs to the user (or root, as perf asks), into the spool as
 * PERF_MAP records, each holding whole lines and filling a chunk of its
 * own (appender_put_chunk). A failure drops the rest of the copy, with
 * one line on stderr (the first time only); the target never notices.
 * One copy runs at a time: a call while another thread copies returns at
 * once. For appender_finish's hook. async-signal-safe */
void
perfmap_copy(void);

/* The program is about to delete path (relative to dirfd, as unlinkat
 * takes it; NULL is let through): when that is this process's perf map,
 * copies it first.
 * errno is preserved. async-signal-safe */
void
perfmap_unlinking(int dirfd, const char *path);

#endif
