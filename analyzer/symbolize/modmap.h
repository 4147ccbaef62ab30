/*
 * modmap: the history of the profiled process's module map.
 *
 * Each MODULE_LOAD of the spool becomes one module instance, live from
 * its load time until the matching MODULE_UNLOAD (or forever). A PC taken
 * at time t belongs to the instance that was live at t and has a PT_LOAD
 * segment holding it: base + vaddr <= pc < base + vaddr + memsz. Because
 * a library loaded later may reuse the address range of one unloaded
 * before, lookups always carry the time.
 *
 * Records are written by several threads of the preload library, so the
 * times of a load record and of samples taken around it need not be in
 * order (a library's constructor can run, and be sampled, before its
 * load record is stamped). When no instance was live at t, the lookup
 * falls back to the instance holding the PC whose lifetime is nearest to
 * t, rather than leaving the frame unresolved.
 *
 * Instances with the same path and build-id share one "file" entry, so
 * a library loaded twice has its symbols read once.
 */
#ifndef PROFANALYZE_MODMAP_H
#define PROFANALYZE_MODMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MODMAP_LIVE UINT64_MAX /* unload_ns of an instance never unloaded */

struct modmap_file {
	char *path;
	uint8_t *build_id; /* NULL when the spool recorded none */
	size_t build_id_len;
	/* The module's image from a MODULE_IMAGE record (the vdso), or
	 * NULL. Borrowed: it points into the spool, which must outlive the
	 * map's users. */
	const uint8_t *image;
	size_t image_len;
};

struct modmap_segment {
	uint64_t vaddr;
	uint64_t memsz;
	uint64_t offset; /* p_offset (for the pprof export's mappings) */
};

struct modmap_instance {
	uint32_t file; /* index into the files */
	uint64_t base; /* load bias */
	uint64_t load_ns;
	uint64_t unload_ns;
	struct modmap_segment *segs;
	uint32_t nsegs;
};

struct modmap_index;

struct modmap {
	struct modmap_file *files;
	size_t nfiles, files_cap;
	struct modmap_instance *inst;
	size_t ninst, inst_cap;
	/* Lookup index built by modmap_seal() (see modmap.c), or NULL. */
	struct modmap_index *index;
};

void
modmap_init(struct modmap *m);

void
modmap_free(struct modmap *m);

/* Adds an instance loaded at load_ns. path need not be NUL-terminated.
 * segs is copied. Returns the instance index. */
size_t
modmap_load(struct modmap *m, const char *path, size_t path_len,
	    const uint8_t *build_id, size_t build_id_len, uint64_t base,
	    const struct modmap_segment *segs, uint32_t nsegs, uint64_t load_ns);

/* Ends the latest live instance at base (whose path matches, unless
 * path_len is 0) that was loaded at or before unload_ns. Returns true when
 * one was found. */
bool
modmap_unload(struct modmap *m, const char *path, size_t path_len,
	      uint64_t base, uint64_t unload_ns);

/* Gives the image of len bytes (borrowed) to the file of the instance
 * loaded at base that was live at time_ns, or else the one nearest in
 * time. A file keeps the first image it gets. Returns false when no
 * instance was loaded at base. */
bool
modmap_add_image(struct modmap *m, uint64_t base, uint64_t time_ns,
		 const uint8_t *image, size_t len);

/* Builds the lookup index. Call after the last load/unload and before
 * modmap_lookup(); loading more afterwards needs another seal. */
void
modmap_seal(struct modmap *m);

/* The instance holding pc at time t_ns, or -1 when no instance ever held
 * pc. */
long
modmap_lookup(const struct modmap *m, uint64_t pc, uint64_t t_ns);

#endif
