/*
 * modmap: module instances and the time-aware PC lookup (see modmap.h).
 *
 * A PC at time t goes to the instance that minimizes (distance of t from
 * the instance's lifetime, then the later instance) among all whose
 * segments hold the PC. Ranges of different times can overlap without
 * bound (a plugin dlopen'd and dlclose'd 40,000 times at one address), so
 * the index answers that without visiting every overlapping range:
 *
 *   - a segment tree over the address space, cut at every range's start
 *     and end: each range is stored at the O(log n) nodes that cover it
 *     exactly, and the ranges holding a PC are those of the nodes on the
 *     path from its leaf to the root;
 *   - in each node, its instances by load time and by unload time (the
 *     nearest instance loaded after t, the nearest unloaded at or before
 *     t: binary searches), and a segment tree over their lifetimes that
 *     keeps at each of its nodes the latest instance live all over it
 *     (the latest instance live at t: a walk from t's leaf up).
 *
 * A lookup is O(log^2 n) for n ranges and the index takes O(n log n)
 * space. Nodes with a few instances are scanned instead.
 */
#include "modmap.h"

#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

/* Nodes with at most this many instances are scanned. */
#define MODMAP_SCAN_MAX 8

struct modmap_range {
	uint64_t start, end; /* [start, end) */
	uint32_t inst;
};

struct modmap_index {
	uint64_t *xs;       /* address cuts, sorted, distinct */
	size_t nleaf;       /* leaves [xs[j], xs[j+1]): nx - 1 */
	/* Per tree node (1 .. 2 * nleaf - 1; CSR, 2 * nleaf + 1 offsets):
	 * its instances by load and by unload time. */
	size_t *start;
	uint32_t *by_load, *by_unload;
	/* Per node with more than MODMAP_SCAN_MAX instances: its time
	 * cuts (tstart[k] .. tstart[k + 1]) and, for as many leaves, the
	 * lifetime tree (2 * that many slots from 2 * tstart[k]) holding
	 * 1 + the latest instance live over the node, 0 for none. */
	size_t *tstart;
	uint64_t *tv;
	uint32_t *live;
};

static void
index_free(struct modmap_index *x)
{
	if (!x)
		return;
	free(x->xs);
	free(x->start);
	free(x->by_load);
	free(x->by_unload);
	free(x->tstart);
	free(x->tv);
	free(x->live);
	free(x);
}

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
	index_free(m->index);
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

/* ---- the index ---- */

static int
cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
	return a < b ? -1 : a > b;
}

/* The last index of the sorted v[0..n) whose value is at or below key,
 * or n when every value is above it. */
static size_t
floor_index(const uint64_t *v, size_t n, uint64_t key)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : n;
}

/* The first index of the sorted v[0..n) whose value is at or above key
 * (where key is, for a key that is there). */
static size_t
lower_index(const uint64_t *v, size_t n, uint64_t key)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The segments of every instance as ranges; an empty or wrapping one
 * holds nothing. Returns a new array of *n ranges. */
static struct modmap_range *
collect_ranges(const struct modmap *m, size_t *n)
{
	struct modmap_range *r = NULL;
	size_t cap = 0;

	*n = 0;
	for (size_t i = 0; i < m->ninst; i++) {
		const struct modmap_instance *in = &m->inst[i];
		for (uint32_t s = 0; s < in->nsegs; s++) {
			uint64_t start = in->base + in->segs[s].vaddr;
			uint64_t end = start + in->segs[s].memsz;
			if (in->segs[s].memsz == 0 || end < start)
				continue;
			xgrow(&r, &cap, *n + 1, sizeof(*r));
			r[(*n)++] = (struct modmap_range){ start, end,
							   (uint32_t)i };
		}
	}
	return r;
}

/* The nodes of a bottom-up segment tree of nleaf leaves that cover leaves
 * [l, r) exactly: each gets slot[node] counted up or, with out, inst
 * stored at out[slot[node]++]. */
static void
cover(size_t nleaf, size_t l, size_t r, size_t *slot, uint32_t *out,
      uint32_t inst)
{
	for (l += nleaf, r += nleaf; l < r; l >>= 1, r >>= 1) {
		if (l & 1) {
			if (out)
				out[slot[l]] = inst;
			slot[l++]++;
		}
		if (r & 1) {
			--r;
			if (out)
				out[slot[r]] = inst;
			slot[r]++;
		}
	}
}

/* The address tree: x->xs, x->nleaf, x->start and the instances of each
 * node in x->by_load (in range order for now). n > 0. */
static void
build_address_tree(struct modmap_index *x, const struct modmap_range *r,
		   size_t n)
{
	size_t nx = 0;
	x->xs = xmalloc(2 * n * sizeof(*x->xs));
	for (size_t i = 0; i < n; i++) {
		x->xs[nx++] = r[i].start;
		x->xs[nx++] = r[i].end;
	}
	qsort(x->xs, nx, sizeof(*x->xs), cmp_u64);
	size_t k = 1;
	for (size_t i = 1; i < nx; i++)
		if (x->xs[i] != x->xs[k - 1])
			x->xs[k++] = x->xs[i];
	x->nleaf = k - 1; /* at least 1: a range has start < end */

	size_t nodes = 2 * x->nleaf, total = 0;
	size_t *slot = xcalloc(nodes, sizeof(*slot));
	for (size_t i = 0; i < n; i++)
		cover(x->nleaf, lower_index(x->xs, k, r[i].start),
		      lower_index(x->xs, k, r[i].end), slot, NULL, 0);
	x->start = xmalloc((nodes + 1) * sizeof(*x->start));
	for (size_t j = 0; j < nodes; j++) {
		x->start[j] = total;
		total += slot[j];
		slot[j] = x->start[j];
	}
	x->start[nodes] = total;
	x->by_load = xmalloc(total * sizeof(*x->by_load));
	for (size_t i = 0; i < n; i++)
		cover(x->nleaf, lower_index(x->xs, k, r[i].start),
		      lower_index(x->xs, k, r[i].end), slot, x->by_load,
		      r[i].inst);
	free(slot);
}

/* Load time, then the later instance first. */
static int
cmp_by_load(const void *pa, const void *pb, void *arg)
{
	const struct modmap_instance *in = arg;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	if (in[a].load_ns != in[b].load_ns)
		return in[a].load_ns < in[b].load_ns ? -1 : 1;
	return a > b ? -1 : a < b;
}

/* Unload time, then the later instance last. */
static int
cmp_by_unload(const void *pa, const void *pb, void *arg)
{
	const struct modmap_instance *in = arg;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	if (in[a].unload_ns != in[b].unload_ns)
		return in[a].unload_ns < in[b].unload_ns ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Node k's lifetime tree: its instances' load and unload times sorted
 * (repeats kept: a time's leaf is that of its last copy, and the empty
 * leaves between copies are never asked for), and each instance stored
 * as 1 + its index, by maximum, over the leaves it is live in. */
static void
build_lifetimes(const struct modmap *m, struct modmap_index *x, size_t k)
{
	size_t s = x->start[k], n = x->start[k + 1] - s, nt = 2 * n;
	uint64_t *tv = x->tv + x->tstart[k];
	uint32_t *live = x->live + 2 * x->tstart[k];

	for (size_t e = 0; e < n; e++) {
		tv[2 * e] = m->inst[x->by_load[s + e]].load_ns;
		tv[2 * e + 1] = m->inst[x->by_load[s + e]].unload_ns;
	}
	qsort(tv, nt, sizeof(*tv), cmp_u64);
	for (size_t e = s; e < s + n; e++) {
		const struct modmap_instance *in = &m->inst[x->by_load[e]];
		size_t l = lower_index(tv, nt, in->load_ns) + nt;
		size_t r = lower_index(tv, nt, in->unload_ns) + nt;
		for (; l < r; l >>= 1, r >>= 1) {
			if ((l & 1) && live[l] < x->by_load[e] + 1)
				live[l] = x->by_load[e] + 1;
			if (l & 1)
				l++;
			if ((r & 1) && live[r - 1] < x->by_load[e] + 1)
				live[r - 1] = x->by_load[e] + 1;
			if (r & 1)
				r--;
		}
	}
}

/* Sorts each node's instances by load and by unload time and gives the
 * nodes too large to scan their lifetime trees. */
static void
build_times(const struct modmap *m, struct modmap_index *x)
{
	size_t nodes = 2 * x->nleaf, total = 0;
	size_t nent = x->start[nodes];

	x->by_unload = xmalloc(nent * sizeof(*x->by_unload));
	x->tstart = xmalloc((nodes + 1) * sizeof(*x->tstart));
	for (size_t k = 0; k < nodes; k++) {
		size_t s = x->start[k], n = x->start[k + 1] - s;
		qsort_r(x->by_load + s, n, sizeof(*x->by_load), cmp_by_load,
			m->inst);
		memcpy(x->by_unload + s, x->by_load + s,
		       n * sizeof(*x->by_unload));
		qsort_r(x->by_unload + s, n, sizeof(*x->by_unload),
			cmp_by_unload, m->inst);
		x->tstart[k] = total;
		if (n > MODMAP_SCAN_MAX)
			total += 2 * n;
	}
	x->tstart[nodes] = total;
	x->tv = xmalloc(total * sizeof(*x->tv));
	x->live = xcalloc(2 * total, sizeof(*x->live));
	for (size_t k = 0; k < nodes; k++)
		if (x->start[k + 1] - x->start[k] > MODMAP_SCAN_MAX)
			build_lifetimes(m, x, k);
}

void
modmap_seal(struct modmap *m)
{
	size_t n;

	index_free(m->index);
	m->index = NULL;
	struct modmap_range *r = collect_ranges(m, &n);
	if (n) {
		m->index = xcalloc(1, sizeof(*m->index));
		build_address_tree(m->index, r, n);
		build_times(m, m->index);
	}
	free(r);
}

/* Offers instance inst, at time distance d, as the answer. */
static void
offer(long *best, uint64_t *best_dist, uint32_t inst, uint64_t d)
{
	/* Ties go to the later instance: it replaced the earlier. */
	if (d < *best_dist || (d == *best_dist && (long)inst > *best)) {
		*best = inst;
		*best_dist = d;
	}
}

/* The best instance of node k (n > MODMAP_SCAN_MAX of them) at t: the
 * latest live one, else the nearest loaded after t and the nearest
 * unloaded at or before it. */
static void
search_node(const struct modmap *m, size_t k, size_t n, uint64_t t,
	    long *best, uint64_t *best_dist)
{
	const struct modmap_index *x = m->index;
	const uint64_t *tv = x->tv + x->tstart[k];
	const uint32_t *live = x->live + 2 * x->tstart[k];
	size_t nt = 2 * n, j = floor_index(tv, nt, t);
	uint32_t latest = 0;

	for (size_t i = j < nt ? j + nt : 0; i >= 1; i >>= 1)
		if (live[i] > latest)
			latest = live[i];
	if (latest) {
		offer(best, best_dist, latest - 1, 0);
		return;
	}
	const uint32_t *bl = x->by_load + x->start[k];
	size_t lo = 0, hi = n;
	while (lo < hi) { /* the first loaded after t */
		size_t mid = lo + (hi - lo) / 2;
		if (m->inst[bl[mid]].load_ns <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n)
		offer(best, best_dist, bl[lo], m->inst[bl[lo]].load_ns - t);
	const uint32_t *bu = x->by_unload + x->start[k];
	for (lo = 0, hi = n; lo < hi;) { /* past the last unloaded by t */
		size_t mid = lo + (hi - lo) / 2;
		if (m->inst[bu[mid]].unload_ns <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0)
		offer(best, best_dist, bu[lo - 1],
		      t - m->inst[bu[lo - 1]].unload_ns + 1);
}

long
modmap_lookup(const struct modmap *m, uint64_t pc, uint64_t t_ns)
{
	const struct modmap_index *x = m->index;
	long best = -1;
	uint64_t best_dist = UINT64_MAX;

	if (!x)
		return -1;
	size_t j = floor_index(x->xs, x->nleaf + 1, pc);
	if (j >= x->nleaf)
		return -1; /* below every range, or at or past their ends */
	for (size_t k = j + x->nleaf; k >= 1; k >>= 1) {
		size_t s = x->start[k], n = x->start[k + 1] - s;
		if (n > MODMAP_SCAN_MAX) {
			search_node(m, k, n, t_ns, &best, &best_dist);
			continue;
		}
		for (size_t e = s; e < s + n; e++)
			offer(&best, &best_dist, x->by_load[e],
			      time_distance(&m->inst[x->by_load[e]], t_ns));
	}
	return best;
}
