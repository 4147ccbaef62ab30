/*
 * modmap: module instances and the time-aware PC lookup (see modmap.h).
 *
 * The index is an array of segment ranges sorted by start address, with
 * the running maximum of their end addresses. A lookup binary-searches the
 * last range starting at or below the PC and walks down only while some
 * range further down can still reach the PC: ranges of different times
 * may overlap, but rarely more than a few at one address.
 */
#include "modmap.h"

#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

struct modmap_range {
	uint64_t start, end; /* [start, end) */
	uint64_t max_end;    /* largest end of this and all earlier ranges */
	uint32_t inst;
};

void
modmap_init(struct modmap *m)
{
	memset(m, 0, sizeof(*m));
}

void
modmap_free(struct modmap *m)
{
	for (size_t i = 0; i < m->nfiles; i++) {
		free(m->files[i].path);
		free(m->files[i].build_id);
	}
	for (size_t i = 0; i < m->ninst; i++)
		free(m->inst[i].segs);
	free(m->files);
	free(m->inst);
	free(m->ranges);
	modmap_init(m);
}

static uint32_t
intern_file(struct modmap *m, const char *path, size_t len,
	    const uint8_t *build_id, size_t build_id_len)
{
	/* Processes map a few hundred modules at most: a scan is fine. A
	 * path with another build-id is another file (it was replaced, or
	 * it is an empty path standing for different modules). */
	for (size_t i = 0; i < m->nfiles; i++) {
		const struct modmap_file *f = &m->files[i];
		if (strlen(f->path) == len && memcmp(f->path, path, len) == 0 &&
		    f->build_id_len == build_id_len &&
		    (!build_id_len ||
		     memcmp(f->build_id, build_id, build_id_len) == 0))
			return (uint32_t)i;
	}
	xgrow(&m->files, &m->files_cap, m->nfiles + 1, sizeof(*m->files));
	struct modmap_file *f = &m->files[m->nfiles];
	f->path = xstrndup(path, len);
	f->build_id = NULL;
	f->build_id_len = 0;
	f->image = NULL;
	f->image_len = 0;
	if (build_id_len) {
		f->build_id = xmalloc(build_id_len);
		memcpy(f->build_id, build_id, build_id_len);
		f->build_id_len = build_id_len;
	}
	return (uint32_t)m->nfiles++;
}

size_t
modmap_load(struct modmap *m, const char *path, size_t path_len,
	    const uint8_t *build_id, size_t build_id_len, uint64_t base,
	    const struct modmap_segment *segs, uint32_t nsegs, uint64_t load_ns)
{
	xgrow(&m->inst, &m->inst_cap, m->ninst + 1, sizeof(*m->inst));
	struct modmap_instance *in = &m->inst[m->ninst];
	in->file = intern_file(m, path, path_len, build_id, build_id_len);
	in->base = base;
	in->load_ns = load_ns;
	in->unload_ns = MODMAP_LIVE;
	in->segs = xcalloc(nsegs, sizeof(*segs));
	if (nsegs)
		memcpy(in->segs, segs, nsegs * sizeof(*segs));
	in->nsegs = nsegs;
	return m->ninst++;
}

bool
modmap_unload(struct modmap *m, const char *path, size_t path_len,
	      uint64_t base, uint64_t unload_ns)
{
	for (size_t i = m->ninst; i-- > 0;) {
		struct modmap_instance *in = &m->inst[i];
		const char *p = m->files[in->file].path;
		if (in->base != base || in->unload_ns != MODMAP_LIVE ||
		    in->load_ns > unload_ns)
			continue;
		if (path_len && (strlen(p) != path_len ||
				 memcmp(p, path, path_len) != 0))
			continue;
		in->unload_ns = unload_ns;
		return true;
	}
	return false;
}

/* How far t lies outside [load, unload): 0 when inside. */
static uint64_t
time_distance(const struct modmap_instance *in, uint64_t t)
{
	if (t < in->load_ns)
		return in->load_ns - t;
	if (t >= in->unload_ns)
		return t - in->unload_ns + 1;
	return 0;
}

bool
modmap_add_image(struct modmap *m, uint64_t base, uint64_t time_ns,
		 const uint8_t *image, size_t len)
{
	long best = -1;
	uint64_t best_dist = UINT64_MAX;
	for (size_t i = 0; i < m->ninst; i++) {
		uint64_t d = time_distance(&m->inst[i], time_ns);
		if (m->inst[i].base == base && d <= best_dist) {
			best = (long)i;
			best_dist = d;
		}
	}
	if (best < 0)
		return false;
	struct modmap_file *f = &m->files[m->inst[best].file];
	if (!f->image) {
		f->image = image;
		f->image_len = len;
	}
	return true;
}

static int
cmp_range(const void *pa, const void *pb)
{
	const struct modmap_range *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	/* Same start: older instance first, so the order is stable. */
	return a->inst < b->inst ? -1 : a->inst > b->inst;
}

static void
add_ranges(struct modmap *m, size_t *cap, uint32_t i)
{
	const struct modmap_instance *in = &m->inst[i];
	for (uint32_t s = 0; s < in->nsegs; s++) {
		uint64_t start = in->base + in->segs[s].vaddr;
		uint64_t end = start + in->segs[s].memsz;
		if (in->segs[s].memsz == 0 || end < start)
			continue; /* empty or wrapping: nothing can be there */
		xgrow(&m->ranges, cap, m->nranges + 1, sizeof(*m->ranges));
		m->ranges[m->nranges++] = (struct modmap_range){
			.start = start, .end = end, .inst = i,
		};
	}
}

void
modmap_seal(struct modmap *m)
{
	size_t cap = 0;
	free(m->ranges);
	m->ranges = NULL;
	m->nranges = 0;
	for (size_t i = 0; i < m->ninst; i++)
		add_ranges(m, &cap, (uint32_t)i);
	if (m->nranges)
		qsort(m->ranges, m->nranges, sizeof(*m->ranges), cmp_range);
	uint64_t max_end = 0;
	for (size_t i = 0; i < m->nranges; i++) {
		if (m->ranges[i].end > max_end)
			max_end = m->ranges[i].end;
		m->ranges[i].max_end = max_end;
	}
}

long
modmap_lookup(const struct modmap *m, uint64_t pc, uint64_t t_ns)
{
	size_t lo = 0, hi = m->nranges;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->ranges[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	long best = -1;
	uint64_t best_dist = UINT64_MAX;
	for (size_t i = lo; i-- > 0 && m->ranges[i].max_end > pc;) {
		const struct modmap_range *r = &m->ranges[i];
		if (pc >= r->end)
			continue;
		uint64_t d = time_distance(&m->inst[r->inst], t_ns);
		/* Ties go to the later instance: it replaced the earlier. */
		if (d < best_dist || (d == best_dist && (long)r->inst > best)) {
			best = r->inst;
			best_dist = d;
		}
	}
	return best;
}
