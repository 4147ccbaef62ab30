/*
 * bench-resolve: times the symbolizer alone, for scripts/bench-symbolize.
 * Not a test.
 *
 *   bench-resolve [--lines] [--debug-dir DIR] SPOOL
 *
 * Reads the spool's module map (and images) as the loader does, then
 * resolves every PC of every sample through the resolver into a profile
 * that gets the functions but no samples, so the time printed covers
 * what symbolization costs in profanalyze: reading each module's symbols
 * (and line tables), the module map and symbol lookups, the per-PC
 * caches and making the functions, and nothing of the profile's tree or
 * the reports. Prints "pcs N named_pcs P functions F named M seconds S
 * cpu C": P of the N PCs got a symbol's name, M of the F functions made
 * are named, in S seconds elapsed and C of CPU time.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "modmap.h"
#include "profile.h"
#include "resolve.h"
#include "spool.h"

static double
now(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
read_modules(struct spool_cursor *c, struct modmap *m)
{
	struct spool_rec r;
	struct spool_module_load ml;
	struct spool_module_image mi;
	struct modmap_segment segs[SPOOL_MAX_SEGMENTS];

	while (spool_next(c, &r) == SPOOL_OK) {
		if (r.type == SPOOL_REC_MODULE_LOAD &&
		    spool_get_module_load(&r, &ml) == 0) {
			for (uint32_t i = 0; i < ml.nsegments; i++) {
				struct spool_segment s = spool_module_segment(&ml, i);
				segs[i] = (struct modmap_segment){ s.vaddr, s.memsz, s.offset };
			}
			modmap_load(m, ml.path.ptr, ml.path.len, ml.build_id,
				    ml.build_id_len, ml.base, segs, ml.nsegments,
				    ml.time_ns);
		} else if (r.type == SPOOL_REC_MODULE_IMAGE &&
			   spool_get_module_image(&r, &mi) == 0) {
			modmap_add_image(m, mi.base, mi.time_ns, mi.data, mi.len);
		}
	}
	modmap_seal(m);
}

int
main(int argc, char **argv)
{
	struct resolve_opts o = { .debug_root = "/usr/lib/debug" };
	const char *path = NULL;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--lines") == 0)
			o.lines = true;
		else if (strcmp(argv[i], "--debug-dir") == 0 && i + 1 < argc)
			o.debug_root = argv[++i];
		else
			path = argv[i];
	}
	int fd = path ? open(path, O_RDONLY) : -1;
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		fprintf(stderr, "usage: bench-resolve [--lines] [--debug-dir DIR] "
			"SPOOL\n");
		return 2;
	}
	void *data = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	struct spool_cursor c;
	if (data == MAP_FAILED || spool_cursor_init(&c, data, (size_t)st.st_size)) {
		fprintf(stderr, "bench-resolve: %s: not a spool\n", path);
		return 1;
	}

	double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
	struct modmap m;
	modmap_init(&m);
	read_modules(&c, &m);
	struct profile *p = profile_new(PROFILE_KIND_TIME);
	struct resolver *res = resolver_new(&m, p, &o);
	uint64_t pcs = 0, named_pcs = 0;
	struct spool_rec r;
	struct spool_sample s;
	spool_cursor_init(&c, data, (size_t)st.st_size);
	while (spool_next(&c, &r) == SPOOL_OK) {
		if (r.type != SPOOL_REC_SAMPLE || spool_get_sample(&r, &s) != 0)
			continue;
		for (uint32_t i = 0; i < s.depth; i++) {
			uint64_t pc = spool_sample_pc(&s, i);
			uint32_t fn = resolver_pc(res, pc, s.time_ns, i > 0);
			named_pcs += !(p->funcs[fn].flags & PROFILE_FUNC_UNNAMED);
			pcs++;
		}
	}
	double t1 = now(CLOCK_MONOTONIC), c1 = now(CLOCK_PROCESS_CPUTIME_ID);

	size_t named = 0;
	for (size_t i = 0; i < p->nfuncs; i++)
		named += !(p->funcs[i].flags & PROFILE_FUNC_UNNAMED);
	printf("pcs %llu named_pcs %llu functions %zu named %zu seconds %.6f "
	       "cpu %.6f\n", (unsigned long long)pcs,
	       (unsigned long long)named_pcs, p->nfuncs, named, t1 - t0,
	       c1 - c0);
	resolver_free(res);
	profile_free(p);
	modmap_free(&m);
	munmap(data, (size_t)st.st_size);
	close(fd);
	return 0;
}
