/*
 * funcorder: entry orders of the call-graph reports (see funcorder.h).
 *
 * The topological order is Kahn's algorithm with a priority queue (a
 * binary heap keyed by total, then label) over the call graph less its
 * self-calls and the back edges an iterative depth-first walk finds:
 * O(E log V).
 */
#include "funcorder.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

int
funcorder_parse(const char *s, enum funcorder *out)
{
	static const char *const names[] = {
		[FUNCORDER_TOPOLOGICAL] = "topological",
		[FUNCORDER_SELF] = "self",
		[FUNCORDER_TOTAL] = "total",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(s, names[i]) == 0) {
			*out = (enum funcorder)i;
			return 0;
		}
	}
	return -EINVAL;
}

static bool
listed(const struct profile_func *f)
{
	return f->total_samples && !(f->flags & PROFILE_FUNC_HIDDEN);
}

static int
cmp_weights(uint64_t a1, uint64_t b1, uint64_t a2, uint64_t b2)
{
	if (a1 != b1)
		return a1 > b1 ? -1 : 1;
	if (a2 != b2)
		return a2 > b2 ? -1 : 1;
	return 0;
}

static int
cmp_total(const void *pa, const void *pb, void *arg)
{
	const struct profile *p = arg;
	const struct profile_func *a = &p->funcs[*(const uint32_t *)pa];
	const struct profile_func *b = &p->funcs[*(const uint32_t *)pb];
	int c = cmp_weights(a->total, b->total, a->self, b->self);
	return c ? c : strcmp(a->label, b->label);
}

static int
cmp_self(const void *pa, const void *pb, void *arg)
{
	const struct profile *p = arg;
	const struct profile_func *a = &p->funcs[*(const uint32_t *)pa];
	const struct profile_func *b = &p->funcs[*(const uint32_t *)pb];
	int c = cmp_weights(a->self, b->self, a->total, b->total);
	return c ? c : strcmp(a->label, b->label);
}

/* ---- topological ---- */

struct topo {
	const struct profile *p;
	uint8_t *color;   /* per function: 0 unseen, 1 on the path, 2 done */
	bool *back;       /* per edge: closes a cycle, ignored */
	uint32_t *indeg;  /* per function: callers not yet emitted */
	uint32_t *heap;
	size_t nheap;
};

/* A depth-first walk from f marking the edges back to a function still
 * on the walk's path. Iterative: call chains can be long. */
static void
mark_back_edges(struct topo *t, uint32_t f)
{
	const struct profile *p = t->p;
	size_t cap = 0, depth = 0;
	struct frame { uint32_t func; size_t next; } *st = NULL;

	xgrow(&st, &cap, 1, sizeof(*st));
	st[depth++] = (struct frame){ f, 0 };
	t->color[f] = 1;
	while (depth) {
		struct frame *top = &st[depth - 1];
		size_t n;
		const uint32_t *out = profile_callees(p, top->func, &n);
		if (top->next == n) {
			t->color[top->func] = 2;
			depth--;
			continue;
		}
		uint32_t e = out[top->next++];
		uint32_t c = p->edges[e].callee;
		if (c == PROFILE_NONE || c == top->func)
			continue;
		if (t->color[c] == 1) {
			t->back[e] = true;
		} else if (t->color[c] == 0) {
			t->color[c] = 1;
			xgrow(&st, &cap, depth + 1, sizeof(*st));
			st[depth++] = (struct frame){ c, 0 };
		}
	}
	free(st);
}

/* Whether heap entry a goes before b: heavier total, then label. */
static bool
heap_before(const struct topo *t, uint32_t a, uint32_t b)
{
	return cmp_total(&a, &b, (void *)t->p) < 0;
}

static void
heap_push(struct topo *t, uint32_t f)
{
	size_t i = t->nheap++;
	while (i > 0 && heap_before(t, f, t->heap[(i - 1) / 2])) {
		t->heap[i] = t->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	t->heap[i] = f;
}

static uint32_t
heap_pop(struct topo *t)
{
	uint32_t top = t->heap[0], last = t->heap[--t->nheap];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= t->nheap)
			break;
		if (c + 1 < t->nheap &&
		    heap_before(t, t->heap[c + 1], t->heap[c]))
			c++;
		if (!heap_before(t, t->heap[c], last))
			break;
		t->heap[i] = t->heap[c];
		i = c;
	}
	if (t->nheap)
		t->heap[i] = last;
	return top;
}

/* Edges that count for the order: between two functions, not a
 * self-call, not closing a cycle. */
static bool
orders(const struct topo *t, uint32_t e)
{
	const struct profile_edge *x = &t->p->edges[e];
	return !t->back[e] && x->caller != PROFILE_NONE &&
	       x->callee != PROFILE_NONE && x->caller != x->callee;
}

static void
count_callers(struct topo *t)
{
	for (size_t e = 0; e < t->p->nedges; e++)
		if (orders(t, (uint32_t)e))
			t->indeg[t->p->edges[e].callee]++;
}

static size_t
kahn(struct topo *t, uint32_t *ids)
{
	const struct profile *p = t->p;
	size_t k = 0;
	for (size_t f = 0; f < p->nfuncs; f++)
		if (listed(&p->funcs[f]) && t->indeg[f] == 0)
			heap_push(t, (uint32_t)f);
	while (t->nheap) {
		uint32_t f = heap_pop(t);
		size_t n;
		const uint32_t *out = profile_callees(p, f, &n);
		ids[k++] = f;
		for (size_t i = 0; i < n; i++) {
			if (!orders(t, out[i]))
				continue;
			uint32_t c = p->edges[out[i]].callee;
			if (--t->indeg[c] == 0)
				heap_push(t, c);
		}
	}
	return k;
}

static size_t
topological(const struct profile *p, uint32_t *ids)
{
	size_t nf = p->nfuncs ? p->nfuncs : 1;
	struct topo t = {
		.p = p,
		.color = xcalloc(nf, 1),
		.back = xcalloc(p->nedges ? p->nedges : 1, sizeof(bool)),
		.indeg = xcalloc(nf, sizeof(uint32_t)),
		.heap = xcalloc(nf, sizeof(uint32_t)),
	};
	size_t n;
	const uint32_t *roots = profile_callees(p, PROFILE_NONE, &n);
	for (size_t i = 0; i < n; i++) {
		uint32_t f = p->edges[roots[i]].callee;
		if (!t.color[f])
			mark_back_edges(&t, f);
	}
	/* Every function is on a path from a root; this is a safeguard. */
	for (size_t f = 0; f < p->nfuncs; f++)
		if (listed(&p->funcs[f]) && !t.color[f])
			mark_back_edges(&t, (uint32_t)f);
	count_callers(&t);
	size_t k = kahn(&t, ids);
	free(t.color);
	free(t.back);
	free(t.indeg);
	free(t.heap);
	return k;
}

uint32_t *
funcorder_sort(const struct profile *p, enum funcorder order, size_t *n)
{
	uint32_t *ids = xcalloc(p->nfuncs ? p->nfuncs : 1, sizeof(*ids));
	size_t k = 0;

	if (order == FUNCORDER_TOPOLOGICAL) {
		*n = topological(p, ids);
		return ids;
	}
	for (size_t f = 0; f < p->nfuncs; f++)
		if (listed(&p->funcs[f]))
			ids[k++] = (uint32_t)f;
	qsort_r(ids, k, sizeof(*ids),
		order == FUNCORDER_SELF ? cmp_self : cmp_total, (void *)p);
	*n = k;
	return ids;
}
