/*
 * perfmap: parsing a perf map and looking addresses up in it (see
 * perfmap.h).
 *
 * Sealing paints the symbols' ranges in order, later over earlier, into
 * a sorted list of disjoint segments, each naming the symbol that shows
 * there: a sweep over the ranges' ends with a heap of the symbols open
 * at each point, the latest on top (ones that closed are dropped when
 * they reach the top). A lookup is a binary search of the segments.
 */
#include "perfmap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

struct segment {
	uint64_t start, end; /* [start, end) */
	uint32_t sym;
};

struct perfmap {
	struct perfmap_sym *syms;
	size_t nsyms, syms_cap;
	struct segment *segs;
	size_t nsegs;
};

struct perfmap *
perfmap_new(void)
{
	return xcalloc(1, sizeof(struct perfmap));
}

void
perfmap_free(struct perfmap *pm)
{
	if (!pm)
		return;
	for (size_t i = 0; i < pm->nsyms; i++)
		free(pm->syms[i].name);
	free(pm->syms);
	free(pm->segs);
	free(pm);
}

static int
hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A hex number at *p (0x optional) up to end, followed by a space or a
 * tab. Returns 0 and moves *p past it and the blanks after, or -1. */
static int
parse_hex(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int digits = 0;
	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (int d; s < end && (d = hex_digit(*s)) >= 0; s++) {
		if (v >> 60)
			return -1; /* more than 64 bits */
		v = v << 4 | (uint64_t)d;
		digits++;
	}
	if (!digits || s == end || (*s != ' ' && *s != '\t'))
		return -1;
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	*p = s;
	*out = v;
	return 0;
}

/* One line without its newline. Returns 1 when it was added, 0 for a
 * blank line, -1 for a malformed one. */
static int
add_line(struct perfmap *pm, const char *s, const char *end)
{
	uint64_t start, size;
	while (end > s && (end[-1] == '\r' || end[-1] == ' ' ||
			   end[-1] == '\t'))
		end--;
	if (s == end)
		return 0;
	if (parse_hex(&s, end, &start) < 0 || parse_hex(&s, end, &size) < 0 ||
	    s == end || size == 0 || start + size < start)
		return -1;
	xgrow(&pm->syms, &pm->syms_cap, pm->nsyms + 1, sizeof(*pm->syms));
	pm->syms[pm->nsyms] = (struct perfmap_sym){
		.start = start, .size = size,
		.name = xstrndup(s, (size_t)(end - s)),
		.id = (uint32_t)pm->nsyms,
	};
	pm->nsyms++;
	return 1;
}

size_t
perfmap_add_text(struct perfmap *pm, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	size_t bad = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		if (add_line(pm, p, eol) < 0)
			bad++;
		p = nl ? nl + 1 : end;
	}
	return bad;
}

long
perfmap_add_file(struct perfmap *pm, const char *path)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	long bad = 0;
	if (!f)
		return -errno;
	while ((n = getline(&line, &cap, f)) > 0)
		bad += (long)perfmap_add_text(pm, line, (size_t)n);
	int err = ferror(f) ? -EIO : 0;
	free(line);
	fclose(f);
	return err ? err : bad;
}

size_t
perfmap_count(const struct perfmap *pm)
{
	return pm->nsyms;
}

/* ---- sealing ---- */

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Symbol ids sorted by start (qsort_r is not portable: a static). */
static const struct perfmap_sym *sort_syms;

static int
cmp_by_start(const void *a, const void *b)
{
	uint64_t x = sort_syms[*(const uint32_t *)a].start;
	uint64_t y = sort_syms[*(const uint32_t *)b].start;
	return x < y ? -1 : x > y;
}

/* A max-heap of symbol ids: the latest symbol on top. */
struct heap {
	uint32_t *v;
	size_t n;
};

static void
heap_push(struct heap *h, uint32_t id)
{
	size_t i = h->n++;
	while (i && h->v[(i - 1) / 2] < id) {
		h->v[i] = h->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->v[i] = id;
}

static void
heap_pop(struct heap *h)
{
	uint32_t last = h->v[--h->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->v[c + 1] > h->v[c])
			c++;
		if (h->v[c] <= last)
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n)
		h->v[i] = last;
}

static void
add_segment(struct perfmap *pm, uint64_t start, uint64_t end, uint32_t sym)
{
	struct segment *prev = pm->nsegs ? &pm->segs[pm->nsegs - 1] : NULL;
	if (prev && prev->sym == sym && prev->end == start) {
		prev->end = end;
		return;
	}
	pm->segs[pm->nsegs++] = (struct segment){ start, end, sym };
}

void
perfmap_seal(struct perfmap *pm)
{
	size_t n = pm->nsyms, npts = 0, next = 0;
	uint64_t *pts = xmalloc((2 * n + 1) * sizeof(*pts));
	uint32_t *order = xmalloc((n + 1) * sizeof(*order));
	struct heap h = { xmalloc((n + 1) * sizeof(*h.v)), 0 };

	for (size_t i = 0; i < n; i++) {
		pts[npts++] = pm->syms[i].start;
		pts[npts++] = pm->syms[i].start + pm->syms[i].size;
		order[i] = (uint32_t)i;
	}
	qsort(pts, npts, sizeof(*pts), cmp_u64);
	sort_syms = pm->syms;
	qsort(order, n, sizeof(*order), cmp_by_start);
	free(pm->segs);
	/* Each point but the last starts at most one segment. */
	pm->segs = xmalloc((npts + 1) * sizeof(*pm->segs));
	pm->nsegs = 0;
	for (size_t k = 0; k < npts; k++) {
		uint64_t at = pts[k];
		if (k + 1 < npts && pts[k + 1] == at)
			continue; /* the same point again */
		while (next < n && pm->syms[order[next]].start <= at)
			heap_push(&h, order[next++]);
		while (h.n && pm->syms[h.v[0]].start + pm->syms[h.v[0]].size <= at)
			heap_pop(&h);
		if (h.n && k + 1 < npts)
			add_segment(pm, at, pts[k + 1], h.v[0]);
	}
	free(h.v);
	free(order);
	free(pts);
}

const struct perfmap_sym *
perfmap_lookup(const struct perfmap *pm, uint64_t addr)
{
	size_t lo = 0, hi = pm->nsegs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (pm->segs[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == pm->nsegs || pm->segs[lo].start > addr)
		return NULL;
	return &pm->syms[pm->segs[lo].sym];
}
