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
 *
 * The call graph comes from the tree too, never from the samples: one
 * depth-first walk keeps a count of each edge on the current path, and a
 * node whose edge is not yet on the path credits its whole subtree total
 * to the edge, so a sample counts once per edge however often the call
 * recurs: O(nodes). The Racket times divide by occurrences on the whole
 * stack, so they walk up from every node with self weight instead.
 */
#include "profile.h"

#include <stdlib.h>
#include <string.h>

#include "textesc.h"
#include "xmalloc.h"

/* Keys of the id sets (hmap_ids) that index the tree's nodes by
 * (parent, function) and the graph's edges by (caller, callee). */
static uint64_t
node_key(const void *records, uint32_t id)
{
	const struct profile_node *n = (const struct profile_node *)records + id;
	return (uint64_t)n->parent << 32 | n->func;
}

static uint64_t
edge_key(const void *records, uint32_t id)
{
	const struct profile_edge *e = (const struct profile_edge *)records + id;
	return (uint64_t)e->caller << 32 | e->callee;
}

/* Names are packed into chunks of this size (a longer one gets its own):
 * large enough that the unused tail of each costs nothing, small enough
 * for a profile of a few functions. */
#define NAME_CHUNK ((size_t)64 << 10)

/* A copy of name in p's name chunks, freed with the profile. */
static char *
name_dup(struct profile *p, const char *name)
{
	size_t len = strlen(name) + 1;
	if (len > p->name_left) {
		size_t size = len > NAME_CHUNK ? len : NAME_CHUNK;
		xgrow(&p->name_chunks, &p->name_chunks_cap,
		      p->nname_chunks + 1, sizeof(*p->name_chunks));
		p->name_next = xmalloc(size);
		p->name_chunks[p->nname_chunks++] = p->name_next;
		p->name_left = size;
	}
	char *s = memcpy(p->name_next, name, len);
	p->name_next += len;
	p->name_left -= len;
	return s;
}

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
	hmap_init(&p->tids);
	hmap_init(&p->classes);
	hmap_init(&p->arc_ids);
	new_node(p, PROFILE_NONE, PROFILE_NONE);
	return p;
}

void
profile_free(struct profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nmodules; i++) {
		free(p->modules[i].path);
		free(p->modules[i].build_id);
	}
	for (size_t i = 0; i < p->nfuncs; i++) {
		if (p->funcs[i].text != p->funcs[i].label)
			free(p->funcs[i].text);
		if (p->funcs[i].label != p->funcs[i].name)
			free(p->funcs[i].label);
		free(p->funcs[i].file);
		free(p->funcs[i].version);
	}
	for (size_t i = 0; i < p->nthreads; i++)
		free(p->threads[i].name);
	for (size_t i = 0; i < p->nname_chunks; i++)
		free(p->name_chunks[i]);
	free(p->name_chunks);
	free(p->modules);
	free(p->funcs);
	free(p->nodes);
	free(p->threads);
	free(p->samples);
	free(p->edges);
	free(p->arcs);
	hmap_free(&p->arc_ids);
	free(p->label_rank);
	free(p->edges_out);
	free(p->edges_in);
	free(p->out_start);
	free(p->in_start);
	free(p->hdr.exe);
	hmap_ids_free(&p->children);
	hmap_free(&p->tids);
	hmap_free(&p->classes);
	free(p);
}

uint32_t
profile_module(struct profile *p, const char *path)
{
	for (size_t i = 0; i < p->nmodules; i++)
		if (strcmp(p->modules[i].path, path) == 0)
			return (uint32_t)i;
	xgrow(&p->modules, &p->modules_cap, p->nmodules + 1,
	      sizeof(*p->modules));
	p->modules[p->nmodules] = (struct profile_module){
		.path = xstrdup(path),
	};
	return (uint32_t)p->nmodules++;
}

void
profile_module_set_build_id(struct profile *p, uint32_t module,
			    const uint8_t *id, size_t len)
{
	struct profile_module *m = &p->modules[module];

	if (m->build_id || !id || !len)
		return;
	m->build_id = xmalloc(len);
	memcpy(m->build_id, id, len);
	m->build_id_len = len;
}

/* A function whose name is already in p's name chunks. */
static uint32_t
add_func(struct profile *p, uint32_t module, char *name, uint64_t addr,
	 uint32_t flags)
{
	xgrow(&p->funcs, &p->funcs_cap, p->nfuncs + 1, sizeof(*p->funcs));
	struct profile_func *f = &p->funcs[p->nfuncs];
	memset(f, 0, sizeof(*f));
	f->name = name;
	f->module = module;
	f->addr = addr;
	f->flags = flags;
	return (uint32_t)p->nfuncs++;
}

uint32_t
profile_add_func(struct profile *p, uint32_t module, const char *name,
		 uint64_t addr, uint32_t flags)
{
	return add_func(p, module, name_dup(p, name), addr, flags);
}

void
profile_func_set_source(struct profile *p, uint32_t func, const char *file,
			uint32_t line)
{
	struct profile_func *f = &p->funcs[func];
	free(f->file);
	f->file = file ? xstrdup(file) : NULL;
	f->line = line;
}

void
profile_func_set_version(struct profile *p, uint32_t func,
			 const char *version)
{
	struct profile_func *f = &p->funcs[func];
	free(f->version);
	f->version = version ? xstrdup(version) : NULL;
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
profile_thread_add_cpu(struct profile *p, uint32_t thread, uint64_t cpu_ns,
		       uint64_t user_ns)
{
	struct profile_thread *t = &p->threads[thread];
	t->user_known = (t->user_known || !t->has_cpu) &&
			user_ns != SPOOL_CPU_UNKNOWN;
	t->has_cpu = true;
	t->cpu_ns = t->cpu_ns > UINT64_MAX - cpu_ns ? UINT64_MAX
						    : t->cpu_ns + cpu_ns;
	if (t->user_known)
		t->user_ns = t->user_ns > UINT64_MAX - user_ns ? UINT64_MAX
							      : t->user_ns + user_ns;
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
	uint32_t *slot = hmap_ids_ref(&p->children, p->nodes, node_key,
				   (uint64_t)parent << 32 | func);
	if (*slot != HMAP_NO_ID)
		return *slot;
	uint32_t c = new_node(p, parent, func);
	*slot = c;
	p->children.count++;
	/* Append, so children keep the order in which they were first seen. */
	struct profile_node *pn = &p->nodes[parent];
	if (pn->last_child == PROFILE_NONE)
		pn->first_child = c;
	else
		p->nodes[pn->last_child].next_sibling = c;
	pn->last_child = c;
	return c;
}

static void
count_samples(struct profile *p, const uint32_t *funcs, size_t n,
	      uint32_t thread, uint64_t weight, double var, uint64_t count,
	      uint16_t flags)
{
	struct profile_header *h = &p->hdr;
	h->samples += count;
	h->weight += weight;
	h->var += var;
	if (flags & SPOOL_SAMPLE_TRUNCATED)
		h->truncated_stacks += count;
	if (flags & SPOOL_SAMPLE_UNWIND_ERR)
		h->unwind_errors += count;
	if (flags & SPOOL_SAMPLE_OFF_CPU) {
		h->offcpu_samples += count;
		h->offcpu_weight += weight;
	}
	for (size_t i = 0; i < n; i++) {
		if (p->funcs[funcs[i]].flags & PROFILE_FUNC_UNNAMED) {
			h->unnamed_samples += count;
			break;
		}
	}
	p->threads[thread].samples += count;
	p->threads[thread].weight += weight;
}

/* The sample class of (node, thread, flags), added when new. A thread
 * index or flags too large for the key get a class of their own each
 * time, which costs memory but no correctness. */
static struct profile_sample *
sample_class(struct profile *p, uint32_t node, uint32_t thread, uint16_t flags)
{
	bool keyed = thread < (1u << 24) && flags < 0x100;
	uint64_t key = (uint64_t)node << 32 | (uint64_t)thread << 8 | flags;
	if (keyed) {
		bool found;
		uint64_t *slot = hmap_ref(&p->classes, key, &found);
		if (found)
			return &p->samples[*slot];
		*slot = p->nsamples;
	}
	xgrow(&p->samples, &p->samples_cap, p->nsamples + 1,
	      sizeof(*p->samples));
	p->samples[p->nsamples] = (struct profile_sample){
		.node = node, .thread = thread, .flags = flags,
	};
	return &p->samples[p->nsamples++];
}

uint32_t
profile_add_samples(struct profile *p, const uint32_t *funcs, size_t n,
		    uint32_t thread, uint64_t weight, double var,
		    uint64_t count, uint16_t flags)
{
	uint32_t node = PROFILE_ROOT;
	p->nodes[node].total += weight;
	p->nodes[node].total_samples += count;
	p->nodes[node].total_var += var;
	for (size_t i = 0; i < n; i++) {
		node = child(p, node, funcs[i]);
		p->nodes[node].total += weight;
		p->nodes[node].total_samples += count;
		p->nodes[node].total_var += var;
	}
	p->nodes[node].self += weight;
	p->nodes[node].self_samples += count;
	p->nodes[node].self_var += var;
	count_samples(p, funcs, n, thread, weight, var, count, flags);
	struct profile_sample *c = sample_class(p, node, thread, flags);
	c->weight += weight;
	c->var += var;
	c->count += count;
	return node;
}

uint32_t
profile_add_sample(struct profile *p, const uint32_t *funcs, size_t n,
		   uint32_t thread, uint64_t weight, uint16_t flags)
{
	return profile_add_samples(p, funcs, n, thread, weight,
				   (double)weight * (double)weight, 1, flags);
}

/* Credits node's self weight to each distinct function on its path. */
static void
credit_path(struct profile *p, uint32_t node, uint32_t *stamp)
{
	const struct profile_node *leaf = &p->nodes[node];
	if (leaf->func != PROFILE_NONE) {
		struct profile_func *f = &p->funcs[leaf->func];
		f->self += leaf->self;
		f->self_samples += leaf->self_samples;
		f->self_var += leaf->self_var;
		f->elided += leaf->elided;
	}
	for (uint32_t x = node; x != PROFILE_ROOT; x = p->nodes[x].parent) {
		uint32_t f = p->nodes[x].func;
		if (stamp[f] == node)
			continue; /* recursion: already credited this path */
		stamp[f] = node;
		p->funcs[f].total += leaf->self;
		p->funcs[f].total_samples += leaf->self_samples;
		p->funcs[f].total_var += leaf->self_var;
	}
}

static const char *
base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static int
cmp_by_label(const void *pa, const void *pb, void *arg)
{
	const struct profile *p = arg;
	const uint32_t *a = pa, *b = pb;
	int c = strcmp(p->funcs[*a].label, p->funcs[*b].label);
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
	const char *mark = fn->flags & PROFILE_FUNC_INLINED ?
				   PROFILE_INLINED_MARK : "";
	if (same_module)
		return xasprintf("%s (%s+0x%llx)%s", fn->name, base,
				 (unsigned long long)fn->addr, mark);
	return xasprintf("%s (%s)%s", fn->name, base, mark);
}

/* The hash that groups functions of one name for their labels; an
 * inlined function's label is never an outlined one's. */
static uint64_t
label_hash(const struct profile_func *f)
{
	return hmap_hash_str(HMAP_HASH_INIT, f->name) ^
	       (f->flags & PROFILE_FUNC_INLINED ? 1 : 0);
}

/* Gives every function a label unique in the profile, so the text reports
 * never show two rows that look like one function. Hidden functions show
 * nowhere, so they do not make the others' labels longer. Functions are
 * grouped by name through a hash of it (a sort by name cost more than
 * everything else in profiles of many distinct functions). Then ranks
 * them by label, so the orders that break ties by label compare two
 * numbers instead of two strings. */
static void
make_labels(struct profile *p)
{
	struct hmap heads; /* name hash -> first function + 1 */
	uint32_t *next = xmalloc((p->nfuncs + 1) * sizeof(*next));
	uint64_t v;

	hmap_init(&heads);
	for (size_t i = 0; i < p->nfuncs; i++) {
		if (p->funcs[i].flags & PROFILE_FUNC_HIDDEN)
			continue;
		uint64_t h = label_hash(&p->funcs[i]);
		next[i] = hmap_get(&heads, h, &v) ? (uint32_t)v - 1
						   : PROFILE_NONE;
		hmap_put(&heads, h, i + 1);
	}
	for (size_t i = 0; i < p->nfuncs; i++) {
		struct profile_func *f = &p->funcs[i];
		/* Mostly the name itself: a copy per function doubles the
		 * strings of a profile of a million distinct PCs. */
		if (f->flags & PROFILE_FUNC_HIDDEN) {
			f->label = f->name;
			continue;
		}
		uint32_t inl = f->flags & PROFILE_FUNC_INLINED;
		hmap_get(&heads, label_hash(f), &v);
		size_t same = 0;
		bool shared_mod = false;
		for (uint32_t k = (uint32_t)v - 1; k != PROFILE_NONE;
		     k = next[k]) {
			if (k == i || strcmp(p->funcs[k].name, f->name) != 0 ||
			    (p->funcs[k].flags & PROFILE_FUNC_INLINED) != inl)
				continue;
			same++;
			shared_mod |= p->funcs[k].module == f->module;
		}
		if (same)
			f->label = qualified_label(p, (uint32_t)i, shared_mod);
		else if (inl)
			f->label = xasprintf("%s" PROFILE_INLINED_MARK,
					     f->name);
		else
			f->label = f->name;
	}
	for (size_t i = 0; i < p->nfuncs; i++) {
		struct profile_func *f = &p->funcs[i];
		f->text = textesc_needed(f->label) ? textesc_dup(f->label)
						   : f->label;
	}
	hmap_free(&heads);
	free(next);

	uint32_t *ids = next = xmalloc((p->nfuncs + 1) * sizeof(*ids));
	for (size_t i = 0; i < p->nfuncs; i++)
		ids[i] = (uint32_t)i;
	qsort_r(ids, p->nfuncs, sizeof(*ids), cmp_by_label, p);
	p->label_rank = xmalloc((p->nfuncs + 1) * sizeof(*p->label_rank));
	for (size_t k = 0; k < p->nfuncs; k++)
		p->label_rank[ids[k]] = (uint32_t)k;
	free(ids);
}

/* ---- the call graph ---- */

/* Scratch state of the call-graph derivation. */
struct graph_build {
	struct hmap_ids ids; /* edges by (caller, callee) */
	size_t edges_cap;
	uint32_t *node_edge; /* per node: the edge from its parent */
	uint32_t *on_path;   /* per edge: occurrences on the current path */
	size_t on_path_cap;
	uint32_t *fcount;    /* per function: occurrences on the path */
};

static uint32_t
edge_id(struct profile *p, struct graph_build *g, uint32_t caller,
	uint32_t callee)
{
	uint32_t *slot = hmap_ids_ref(&g->ids, p->edges, edge_key,
				   (uint64_t)caller << 32 | callee);
	if (*slot != HMAP_NO_ID)
		return *slot;
	xgrow(&p->edges, &g->edges_cap, p->nedges + 1, sizeof(*p->edges));
	xgrow(&g->on_path, &g->on_path_cap, p->nedges + 1,
	      sizeof(*g->on_path));
	uint32_t id = (uint32_t)p->nedges++;
	p->edges[id] = (struct profile_edge){ .caller = caller,
					      .callee = callee };
	g->on_path[id] = 0;
	*slot = id;
	g->ids.count++;
	return id;
}

/* Entering node x in the depth-first walk: its edge gets the subtree's
 * weight unless the same call is already on the path above (then those
 * samples were counted there). */
static void
enter_node(struct profile *p, struct graph_build *g, uint32_t x)
{
	const struct profile_node *n = &p->nodes[x];
	uint32_t e = edge_id(p, g, p->nodes[n->parent].func, n->func);

	g->node_edge[x] = e;
	if (g->on_path[e]++ == 0) {
		p->edges[e].weight += n->total;
		p->edges[e].samples += n->total_samples;
	}
	if (g->fcount[n->func]++ > 0)
		p->funcs[n->func].flags |= PROFILE_FUNC_RECURSIVE;
	if (n->self_samples || n->self) {
		uint32_t leaf = edge_id(p, g, n->func, PROFILE_NONE);
		p->edges[leaf].weight += n->self;
		p->edges[leaf].samples += n->self_samples;
	}
}

static void
leave_node(const struct profile *p, struct graph_build *g, uint32_t x)
{
	g->on_path[g->node_edge[x]]--;
	g->fcount[p->nodes[x].func]--;
}

/* Depth-first over the tree without recursion (stacks can be deep). */
static void
walk_edges(struct profile *p, struct graph_build *g)
{
	const struct profile_node *nodes = p->nodes;
	uint32_t x = nodes[PROFILE_ROOT].first_child;

	while (x != PROFILE_NONE) {
		enter_node(p, g, x);
		if (nodes[x].first_child != PROFILE_NONE) {
			x = nodes[x].first_child;
			continue;
		}
		/* Leave x and each ancestor whose last child is done. */
		while (x != PROFILE_ROOT) {
			leave_node(p, g, x);
			if (nodes[x].next_sibling != PROFILE_NONE)
				break;
			x = nodes[x].parent;
		}
		x = x == PROFILE_ROOT ? PROFILE_NONE : nodes[x].next_sibling;
	}
}

/* Racket's caller and callee times for the stack that ends at leaf: each
 * edge occurrence is divided by the occurrences of its caller, resp.
 * callee, on this stack. */
static void
divide_path(struct profile *p, struct graph_build *g, uint32_t leaf)
{
	const struct profile_node *nodes = p->nodes;
	double w = (double)nodes[leaf].self;
	uint32_t *cnt = g->fcount;

	for (uint32_t x = leaf; x != PROFILE_ROOT; x = nodes[x].parent)
		cnt[nodes[x].func]++;
	for (uint32_t x = leaf; x != PROFILE_ROOT; x = nodes[x].parent) {
		struct profile_edge *e = &p->edges[g->node_edge[x]];
		e->callee_time += w / cnt[nodes[x].func];
		e->caller_time += w / (e->caller == PROFILE_NONE
					       ? 1 : cnt[e->caller]);
	}
	struct profile_edge *e =
		&p->edges[edge_id(p, g, nodes[leaf].func, PROFILE_NONE)];
	e->caller_time += w / cnt[nodes[leaf].func];
	e->callee_time += w;
	for (uint32_t x = leaf; x != PROFILE_ROOT; x = nodes[x].parent)
		cnt[nodes[x].func] = 0;
}

static size_t
func_slot(const struct profile *p, uint32_t func)
{
	return func == PROFILE_NONE ? p->nfuncs : func;
}

/* Orders edges by weight, then by the label of their other end (the
 * callee in a callee list, the caller in a caller list), PROFILE_NONE
 * last. */
struct edge_cmp {
	const struct profile *p;
	bool by_callee;
};

static int
cmp_edges(const void *pa, const void *pb, void *arg)
{
	const struct edge_cmp *c = arg;
	const struct profile_edge *a = &c->p->edges[*(const uint32_t *)pa];
	const struct profile_edge *b = &c->p->edges[*(const uint32_t *)pb];
	if (a->weight != b->weight)
		return a->weight > b->weight ? -1 : 1;
	uint32_t fa = c->by_callee ? a->callee : a->caller;
	uint32_t fb = c->by_callee ? b->callee : b->caller;
	if (fa == fb)
		return 0;
	if (fa == PROFILE_NONE || fb == PROFILE_NONE)
		return fa == PROFILE_NONE ? 1 : -1;
	return c->p->label_rank[fa] < c->p->label_rank[fb] ? -1 : 1;
}

/* Groups edge ids by one end (a counting sort) into *ids / *start, each
 * group sorted by cmp_edges. by_callee: group by caller, order by callee
 * (the callee lists), and the other way round. */
static void
group_edges(const struct profile *p, bool by_callee, uint32_t **ids,
	    uint32_t **start)
{
	size_t slots = p->nfuncs + 1;
	uint32_t *st = xcalloc(slots + 1, sizeof(*st));
	uint32_t *out = xcalloc(p->nedges, sizeof(*out));
	for (size_t i = 0; i < p->nedges; i++) {
		const struct profile_edge *e = &p->edges[i];
		st[func_slot(p, by_callee ? e->caller : e->callee) + 1]++;
	}
	for (size_t s = 0; s < slots; s++)
		st[s + 1] += st[s];
	uint32_t *fill = xmalloc(slots * sizeof(*fill));
	memcpy(fill, st, slots * sizeof(*fill));
	for (size_t i = 0; i < p->nedges; i++) {
		const struct profile_edge *e = &p->edges[i];
		out[fill[func_slot(p, by_callee ? e->caller : e->callee)]++] =
			(uint32_t)i;
	}
	free(fill);
	struct edge_cmp c = { p, by_callee };
	for (size_t s = 0; s < slots; s++)
		qsort_r(out + st[s], st[s + 1] - st[s], sizeof(*out),
			cmp_edges, &c);
	*ids = out;
	*start = st;
}

static void
build_graph(struct profile *p)
{
	struct graph_build g = { .edges_cap = 0 };
	g.node_edge = xcalloc(p->nnodes, sizeof(*g.node_edge));
	g.fcount = xcalloc(p->nfuncs ? p->nfuncs : 1, sizeof(*g.fcount));
	walk_edges(p, &g);
	for (size_t i = 1; i < p->nnodes; i++)
		if (p->nodes[i].self_samples || p->nodes[i].self)
			divide_path(p, &g, (uint32_t)i);
	/* The scratch goes before the groups are made: they are the peak. */
	hmap_ids_free(&g.ids);
	free(g.node_edge);
	free(g.on_path);
	free(g.fcount);
	group_edges(p, true, &p->edges_out, &p->out_start);
	group_edges(p, false, &p->edges_in, &p->in_start);
}

const uint32_t *
profile_callees(const struct profile *p, uint32_t func, size_t *n)
{
	size_t s = func_slot(p, func);
	*n = p->out_start[s + 1] - p->out_start[s];
	return p->edges_out + p->out_start[s];
}

const uint32_t *
profile_callers(const struct profile *p, uint32_t func, size_t *n)
{
	size_t s = func_slot(p, func);
	*n = p->in_start[s + 1] - p->in_start[s];
	return p->edges_in + p->in_start[s];
}

/* ---- exact call counts ---- */

void
profile_add_calls(struct profile *p, uint32_t caller, uint32_t callee,
		  uint64_t count)
{
	bool found;
	uint64_t *ref = hmap_ref(&p->arc_ids, (uint64_t)caller << 32 | callee,
				 &found);
	if (!found) {
		xgrow(&p->arcs, &p->arcs_cap, p->narcs + 1, sizeof(*p->arcs));
		p->arcs[p->narcs] = (struct profile_arc){ caller, callee, 0 };
		*ref = p->narcs++;
	}
	p->arcs[*ref].count += count;
}

/* Adds the arcs up per function and puts each on its call-graph edge,
 * when the samples have one. */
static void
credit_calls(struct profile *p)
{
	for (size_t i = 0; i < p->narcs; i++) {
		const struct profile_arc *a = &p->arcs[i];
		struct profile_func *f = &p->funcs[a->callee];
		f->flags |= PROFILE_FUNC_COUNTED;
		f->calls += a->count;
		size_t n;
		const uint32_t *in = profile_callers(p, a->callee, &n);
		for (size_t k = 0; k < n; k++) {
			struct profile_edge *e = &p->edges[in[k]];
			if (e->caller != a->caller)
				continue;
			e->counted = true;
			e->calls += a->count;
			break;
		}
	}
}

bool
profile_has_calls(const struct profile *p)
{
	return p->narcs > 0;
}

/* ---- finishing ---- */

void
profile_finish(struct profile *p)
{
	if (p->finished)
		return;
	p->finished = true;
	uint32_t *stamp = xmalloc(p->nfuncs * sizeof(*stamp));
	memset(stamp, 0xff, p->nfuncs * sizeof(*stamp));
	for (size_t i = 0; i < p->nnodes; i++) {
		const struct profile_node *n = &p->nodes[i];
		if (n->self_samples || n->self)
			credit_path(p, (uint32_t)i, stamp);
		if (n->flags & PROFILE_NODE_ELIDED)
			p->funcs[n->func].flags |= PROFILE_FUNC_ELIDED;
	}
	free(stamp);
	/* No sample can be added now: the map of the tree's edges (one
	 * entry per node) and that of the sample classes go before the
	 * graph's is built beside them. */
	hmap_ids_free(&p->children);
	hmap_free(&p->classes);
	hmap_init(&p->classes);
	make_labels(p);
	build_graph(p);
	credit_calls(p);
}

static int
cmp_by_self(const void *pa, const void *pb, void *arg)
{
	const struct profile *p = arg;
	uint32_t ia = *(const uint32_t *)pa, ib = *(const uint32_t *)pb;
	const struct profile_func *a = &p->funcs[ia];
	const struct profile_func *b = &p->funcs[ib];
	if (a->self != b->self)
		return a->self > b->self ? -1 : 1;
	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return p->label_rank[ia] < p->label_rank[ib] ? -1
	       : p->label_rank[ia] > p->label_rank[ib];
}

uint32_t *
profile_funcs_by_self(const struct profile *p, size_t *n)
{
	uint32_t *ids = xcalloc(p->nfuncs, sizeof(*ids));
	size_t k = 0;
	for (size_t i = 0; i < p->nfuncs; i++)
		if (!(p->funcs[i].flags &
		      (PROFILE_FUNC_PSEUDO | PROFILE_FUNC_HIDDEN)))
			ids[k++] = (uint32_t)i;
	qsort_r(ids, k, sizeof(*ids), cmp_by_self, (void *)p);
	*n = k;
	return ids;
}

uint32_t *
profile_funcs_listed(const struct profile *p, size_t *n)
{
	uint32_t *ids = profile_funcs_by_self(p, n);
	ids = xreallocarray(ids, p->nfuncs + 1, sizeof(*ids));
	for (size_t i = 0; i < p->nfuncs; i++)
		if ((p->funcs[i].flags & PROFILE_FUNC_PSEUDO) &&
		    !(p->funcs[i].flags & PROFILE_FUNC_HIDDEN) &&
		    p->funcs[i].total_samples)
			ids[(*n)++] = (uint32_t)i;
	return ids;
}

int
profile_cmp_nodes_by_label(const void *pa, const void *pb, void *arg)
{
	const struct profile *p = arg;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	uint32_t ra = p->label_rank[p->nodes[a].func];
	uint32_t rb = p->label_rank[p->nodes[b].func];
	if (ra != rb)
		return ra < rb ? -1 : 1;
	return a < b ? -1 : a > b;
}

int
profile_cmp_nodes_heaviest(const void *pa, const void *pb, void *arg)
{
	const struct profile *p = arg;
	const struct profile_node *na = &p->nodes[*(const uint32_t *)pa];
	const struct profile_node *nb = &p->nodes[*(const uint32_t *)pb];
	if (na->total != nb->total)
		return na->total > nb->total ? -1 : 1;
	return profile_cmp_nodes_by_label(pa, pb, arg);
}

const char *
profile_func_module(const struct profile *p, uint32_t func)
{
	uint32_t m = p->funcs[func].module;
	return m == PROFILE_NONE ? NULL : p->modules[m].path;
}

/* ---- hiding ---- */

/* A copy of src's header, modules, functions (without their figures)
 * and threads: everything but the tree and the samples. With share_names
 * the functions' names are src's, whose chunks the caller hands over. */
static struct profile *
copy_frame(const struct profile *src, bool share_names)
{
	struct profile *d = profile_new(src->hdr.kind);
	d->hdr = src->hdr;
	d->hdr.exe = src->hdr.exe ? xstrdup(src->hdr.exe) : NULL;
	for (size_t i = 0; i < src->nmodules; i++) {
		const struct profile_module *m = &src->modules[i];
		uint32_t k = profile_module(d, m->path);
		profile_module_set_build_id(d, k, m->build_id,
					    m->build_id_len);
		d->modules[k].no_symbols |= m->no_symbols;
		d->modules[k].dynsym_only |= m->dynsym_only;
	}
	for (size_t i = 0; i < src->nfuncs; i++) {
		const struct profile_func *f = &src->funcs[i];
		uint32_t id = add_func(d, f->module,
				 share_names ? f->name : name_dup(d, f->name),
				 f->addr,
				 f->flags & (PROFILE_FUNC_UNNAMED |
					     PROFILE_FUNC_PSEUDO |
					     PROFILE_FUNC_HIDDEN |
					     PROFILE_FUNC_ELLIPSIS |
					     PROFILE_FUNC_INLINED));
		if (f->file)
			profile_func_set_source(d, id, f->file, f->line);
		if (f->version)
			profile_func_set_version(d, id, f->version);
	}
	for (size_t i = 0; i < src->nthreads; i++) {
		const struct profile_thread *t = &src->threads[i];
		uint32_t k = profile_thread(d, t->tid);
		d->threads[k].samples = t->samples;
		d->threads[k].weight = t->weight;
		d->threads[k].has_cpu = t->has_cpu;
		d->threads[k].user_known = t->user_known;
		d->threads[k].cpu_ns = t->cpu_ns;
		d->threads[k].user_ns = t->user_ns;
		d->threads[k].excluded = t->excluded;
		if (t->name)
			profile_thread_set_name(d, k, t->name, strlen(t->name));
	}
	/* Function ids stay: the arcs stay on their functions. */
	for (size_t i = 0; i < src->narcs; i++)
		profile_add_calls(d, src->arcs[i].caller, src->arcs[i].callee,
				  src->arcs[i].count);
	return d;
}

struct collapse {
	struct profile *d;
	const bool *hidden;
	uint32_t *map;      /* src node -> d node its frames went to */
	uint32_t *self_at;  /* src node -> d node its self weight went to */
	uint32_t ellipsis;  /* d node "..." under the root, or NONE */
};

static uint32_t
ellipsis_node(struct collapse *c)
{
	if (c->ellipsis == PROFILE_NONE) {
		uint32_t f = profile_add_func(c->d, PROFILE_NONE, "...", 0,
					      PROFILE_FUNC_ELLIPSIS);
		c->ellipsis = child(c->d, PROFILE_ROOT, f);
	}
	return c->ellipsis;
}

/* Places src node x in d: a displayed frame becomes (or joins) a child of
 * where its parent went; a hidden one merges into that node. */
static void
collapse_node(struct collapse *c, const struct profile_node *x, uint32_t id)
{
	struct profile *d = c->d;
	uint32_t up = c->map[x->parent];

	if (!c->hidden[x->func]) {
		c->map[id] = c->self_at[id] = child(d, up, x->func);
	} else if (up == PROFILE_ROOT) {
		c->map[id] = PROFILE_ROOT;
		c->self_at[id] = x->self_samples || x->self ? ellipsis_node(c)
							    : PROFILE_ROOT;
	} else {
		c->map[id] = c->self_at[id] = up;
		/* "... f" says f's own figures include hidden code: only
		 * when a hidden frame had samples of the profile's kind
		 * itself. Samples that merely passed through one (a time
		 * sample in libc's malloc, under libprofrun's wrapper) are
		 * in its displayed callees' figures. */
		if (x->self_samples || x->self)
			d->nodes[up].flags |= PROFILE_NODE_ELIDED;
		d->nodes[up].elided += x->self;
		d->nodes[up].elided_var += x->self_var;
	}
	struct profile_node *to = &d->nodes[c->self_at[id]];
	to->self += x->self;
	to->self_samples += x->self_samples;
	to->self_var += x->self_var;
}

/* The collapsed copy of src, not finished. */
static struct profile *
collapse(const struct profile *src, const bool *hidden, bool share_names)
{
	struct collapse c = {
		.d = copy_frame(src, share_names),
		.hidden = hidden,
		.map = xmalloc(src->nnodes * sizeof(*c.map)),
		.self_at = xmalloc(src->nnodes * sizeof(*c.self_at)),
		.ellipsis = PROFILE_NONE,
	};
	struct profile *d = c.d;

	c.map[PROFILE_ROOT] = c.self_at[PROFILE_ROOT] = PROFILE_ROOT;
	d->nodes[PROFILE_ROOT].self = src->nodes[PROFILE_ROOT].self;
	d->nodes[PROFILE_ROOT].self_samples =
		src->nodes[PROFILE_ROOT].self_samples;
	d->nodes[PROFILE_ROOT].self_var = src->nodes[PROFILE_ROOT].self_var;
	for (size_t i = 0; i < src->nfuncs; i++)
		if (hidden[i])
			d->funcs[i].flags |= PROFILE_FUNC_HIDDEN;
	/* A parent's id is below its children's: one pass in id order. */
	for (size_t i = 1; i < src->nnodes; i++)
		collapse_node(&c, &src->nodes[i], (uint32_t)i);
	for (size_t i = d->nnodes; i-- > 1;) {
		struct profile_node *n = &d->nodes[i];
		n->total += n->self;
		n->total_samples += n->self_samples;
		n->total_var += n->self_var;
		d->nodes[n->parent].total += n->total;
		d->nodes[n->parent].total_samples += n->total_samples;
		d->nodes[n->parent].total_var += n->total_var;
	}
	d->nodes[PROFILE_ROOT].total += d->nodes[PROFILE_ROOT].self;
	d->nodes[PROFILE_ROOT].total_samples +=
		d->nodes[PROFILE_ROOT].self_samples;
	d->nodes[PROFILE_ROOT].total_var += d->nodes[PROFILE_ROOT].self_var;

	xgrow(&d->samples, &d->samples_cap, src->nsamples, sizeof(*d->samples));
	for (size_t i = 0; i < src->nsamples; i++) {
		d->samples[i] = src->samples[i];
		d->samples[i].node = c.self_at[src->samples[i].node];
	}
	d->nsamples = src->nsamples;
	free(c.map);
	free(c.self_at);
	return d;
}

struct profile *
profile_collapse(const struct profile *src, const bool *hidden)
{
	struct profile *d = collapse(src, hidden, false);
	profile_finish(d);
	return d;
}

struct profile *
profile_collapse_take(struct profile *src, const bool *hidden)
{
	/* The copy reads src's functions and tree only. */
	free(src->edges);
	free(src->edges_out);
	free(src->edges_in);
	free(src->out_start);
	free(src->in_start);
	src->edges = NULL;
	src->edges_out = src->edges_in = src->out_start = src->in_start = NULL;
	src->nedges = 0;
	struct profile *d = collapse(src, hidden, true);
	/* d's functions point into src's name chunks: they are d's now. */
	for (size_t i = 0; i < src->nname_chunks; i++) {
		xgrow(&d->name_chunks, &d->name_chunks_cap,
		      d->nname_chunks + 1, sizeof(*d->name_chunks));
		d->name_chunks[d->nname_chunks++] = src->name_chunks[i];
	}
	src->nname_chunks = 0;
	profile_free(src);
	profile_finish(d);
	return d;
}
