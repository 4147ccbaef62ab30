/*
 * profile: the calling-context tree and everything derived from it (see
 * profile.h).
 *
 * Inserting a sample walks its path from the root, finding or creating
 * one child per frame through a (parent, function) hash, and adds the
 * weight to every node on the way: node totals are exact after the last
 * insert. Function totals cannot be summed that way (recursion would
 * count a sample several times), so profile_finish() walks up from every
 * node that has self weight and credits each distinct function on the
 * path once, using a per-function stamp: O(nodes * depth).
 */
#include "profile.h"

#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

static uint32_t
new_node(struct profile *p, uint32_t parent, uint32_t func)
{
	xgrow(&p->nodes, &p->nodes_cap, p->nnodes + 1, sizeof(*p->nodes));
	uint32_t id = (uint32_t)p->nnodes++;
	struct profile_node *n = &p->nodes[id];
	memset(n, 0, sizeof(*n));
	n->func = func;
	n->parent = parent;
	n->first_child = PROFILE_NONE;
	n->last_child = PROFILE_NONE;
	n->next_sibling = PROFILE_NONE;
	return id;
}

struct profile *
profile_new(enum profile_kind kind)
{
	struct profile *p = xcalloc(1, sizeof(*p));
	p->hdr.kind = kind;
	hmap_init(&p->children);
	hmap_init(&p->tids);
	new_node(p, PROFILE_NONE, PROFILE_NONE);
	return p;
}

void
profile_free(struct profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nmodules; i++)
		free(p->modules[i]);
	for (size_t i = 0; i < p->nfuncs; i++) {
		free(p->funcs[i].name);
		free(p->funcs[i].label);
	}
	for (size_t i = 0; i < p->nthreads; i++)
		free(p->threads[i].name);
	free(p->modules);
	free(p->funcs);
	free(p->nodes);
	free(p->threads);
	free(p->samples);
	free(p->hdr.exe);
	hmap_free(&p->children);
	hmap_free(&p->tids);
	free(p);
}

uint32_t
profile_module(struct profile *p, const char *path)
{
	for (size_t i = 0; i < p->nmodules; i++)
		if (strcmp(p->modules[i], path) == 0)
			return (uint32_t)i;
	xgrow(&p->modules, &p->modules_cap, p->nmodules + 1,
	      sizeof(*p->modules));
	p->modules[p->nmodules] = xstrdup(path);
	return (uint32_t)p->nmodules++;
}

uint32_t
profile_add_func(struct profile *p, uint32_t module, const char *name,
		 uint64_t addr, uint32_t flags)
{
	xgrow(&p->funcs, &p->funcs_cap, p->nfuncs + 1, sizeof(*p->funcs));
	struct profile_func *f = &p->funcs[p->nfuncs];
	memset(f, 0, sizeof(*f));
	f->name = xstrdup(name);
	f->module = module;
	f->addr = addr;
	f->flags = flags;
	return (uint32_t)p->nfuncs++;
}

uint32_t
profile_thread(struct profile *p, uint32_t tid)
{
	uint64_t idx;
	if (hmap_get(&p->tids, tid, &idx))
		return (uint32_t)idx;
	xgrow(&p->threads, &p->threads_cap, p->nthreads + 1,
	      sizeof(*p->threads));
	struct profile_thread *t = &p->threads[p->nthreads];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	hmap_put(&p->tids, tid, p->nthreads);
	return (uint32_t)p->nthreads++;
}

void
profile_thread_set_name(struct profile *p, uint32_t thread, const char *name,
			size_t len)
{
	struct profile_thread *t = &p->threads[thread];
	free(t->name);
	t->name = xstrndup(name, len);
}

static uint32_t
child(struct profile *p, uint32_t parent, uint32_t func)
{
	uint64_t key = (uint64_t)parent << 32 | func, id;
	if (hmap_get(&p->children, key, &id))
		return (uint32_t)id;
	uint32_t c = new_node(p, parent, func);
	/* Append, so children keep the order in which they were first seen. */
	struct profile_node *pn = &p->nodes[parent];
	if (pn->last_child == PROFILE_NONE)
		pn->first_child = c;
	else
		p->nodes[pn->last_child].next_sibling = c;
	pn->last_child = c;
	hmap_put(&p->children, key, c);
	return c;
}

static void
count_sample(struct profile *p, const uint32_t *funcs, size_t n,
	     uint32_t thread, uint64_t weight, uint16_t flags)
{
	struct profile_header *h = &p->hdr;
	h->samples++;
	h->weight += weight;
	if (flags & SPOOL_SAMPLE_TRUNCATED)
		h->truncated_stacks++;
	if (flags & SPOOL_SAMPLE_UNWIND_ERR)
		h->unwind_errors++;
	for (size_t i = 0; i < n; i++) {
		if (p->funcs[funcs[i]].flags & PROFILE_FUNC_UNNAMED) {
			h->unnamed_samples++;
			break;
		}
	}
	p->threads[thread].samples++;
	p->threads[thread].weight += weight;
}

uint32_t
profile_add_sample(struct profile *p, const uint32_t *funcs, size_t n,
		   uint32_t thread, uint64_t weight, uint64_t time_ns,
		   uint16_t flags)
{
	uint32_t node = PROFILE_ROOT;
	p->nodes[node].total += weight;
	p->nodes[node].total_samples++;
	for (size_t i = 0; i < n; i++) {
		node = child(p, node, funcs[i]);
		p->nodes[node].total += weight;
		p->nodes[node].total_samples++;
	}
	p->nodes[node].self += weight;
	p->nodes[node].self_samples++;
	count_sample(p, funcs, n, thread, weight, flags);

	xgrow(&p->samples, &p->samples_cap, p->nsamples + 1,
	      sizeof(*p->samples));
	p->samples[p->nsamples++] = (struct profile_sample){
		.time_ns = time_ns, .weight = weight, .node = node,
		.thread = thread, .flags = flags,
	};
	return node;
}

/* Credits node's self weight to each distinct function on its path. */
static void
credit_path(struct profile *p, uint32_t node, uint32_t *stamp)
{
	const struct profile_node *leaf = &p->nodes[node];
	if (leaf->func != PROFILE_NONE) {
		p->funcs[leaf->func].self += leaf->self;
		p->funcs[leaf->func].self_samples += leaf->self_samples;
	}
	for (uint32_t x = node; x != PROFILE_ROOT; x = p->nodes[x].parent) {
		uint32_t f = p->nodes[x].func;
		if (stamp[f] == node)
			continue; /* recursion: already credited this path */
		stamp[f] = node;
		p->funcs[f].total += leaf->self;
		p->funcs[f].total_samples += leaf->self_samples;
	}
}

static const char *
base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static int
cmp_by_name(const void *pa, const void *pb, void *arg)
{
	const struct profile *p = arg;
	const uint32_t *a = pa, *b = pb;
	int c = strcmp(p->funcs[*a].name, p->funcs[*b].name);
	if (c)
		return c;
	return *a < *b ? -1 : *a > *b;
}

/* Label for a function whose name others share: add the module, and the
 * address when the module is shared as well (two static functions). */
static char *
qualified_label(const struct profile *p, uint32_t f, bool same_module)
{
	const struct profile_func *fn = &p->funcs[f];
	const char *mod = profile_func_module(p, f);
	const char *base = mod ? base_name(mod) : "?";
	if (same_module)
		return xasprintf("%s (%s+0x%llx)", fn->name, base,
				 (unsigned long long)fn->addr);
	return xasprintf("%s (%s)", fn->name, base);
}

/* Gives every function a label unique in the profile, so the text reports
 * never show two rows that look like one function. */
static void
make_labels(struct profile *p)
{
	uint32_t *ids = xcalloc(p->nfuncs, sizeof(*ids));
	for (size_t i = 0; i < p->nfuncs; i++)
		ids[i] = (uint32_t)i;
	qsort_r(ids, p->nfuncs, sizeof(*ids), cmp_by_name, p);
	for (size_t i = 0; i < p->nfuncs;) {
		size_t j = i + 1;
		while (j < p->nfuncs &&
		       strcmp(p->funcs[ids[i]].name, p->funcs[ids[j]].name) == 0)
			j++;
		for (size_t k = i; k < j; k++) {
			bool shared_mod = false;
			for (size_t l = i; l < j; l++)
				if (l != k && p->funcs[ids[l]].module ==
						      p->funcs[ids[k]].module)
					shared_mod = true;
			p->funcs[ids[k]].label =
				j - i == 1 ? xstrdup(p->funcs[ids[k]].name)
					   : qualified_label(p, ids[k], shared_mod);
		}
		i = j;
	}
	free(ids);
}

void
profile_finish(struct profile *p)
{
	if (p->finished)
		return;
	p->finished = true;
	uint32_t *stamp = xmalloc(p->nfuncs * sizeof(*stamp));
	memset(stamp, 0xff, p->nfuncs * sizeof(*stamp));
	for (size_t i = 0; i < p->nnodes; i++)
		if (p->nodes[i].self_samples || p->nodes[i].self)
			credit_path(p, (uint32_t)i, stamp);
	free(stamp);
	make_labels(p);
}

static int
cmp_by_self(const void *pa, const void *pb, void *arg)
{
	const struct profile *p = arg;
	const struct profile_func *a = &p->funcs[*(const uint32_t *)pa];
	const struct profile_func *b = &p->funcs[*(const uint32_t *)pb];
	if (a->self != b->self)
		return a->self > b->self ? -1 : 1;
	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return strcmp(a->label, b->label);
}

uint32_t *
profile_funcs_by_self(const struct profile *p, size_t *n)
{
	uint32_t *ids = xcalloc(p->nfuncs, sizeof(*ids));
	size_t k = 0;
	for (size_t i = 0; i < p->nfuncs; i++)
		if (!(p->funcs[i].flags & PROFILE_FUNC_PSEUDO))
			ids[k++] = (uint32_t)i;
	qsort_r(ids, k, sizeof(*ids), cmp_by_self, (void *)p);
	*n = k;
	return ids;
}

const char *
profile_func_module(const struct profile *p, uint32_t func)
{
	uint32_t m = p->funcs[func].module;
	return m == PROFILE_NONE ? NULL : p->modules[m];
}
