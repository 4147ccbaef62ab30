/*
 * timeline: the samples of a profile in time (see timeline.h).
 *
 * Functions of the spool being read again are matched to the report's
 * profile by name and module path through a hash of both (collisions
 * probed linearly and checked, with whether the function is inlined);
 * the match of each is cached, since the resolver gives a function one
 * id for the whole read. Tree nodes are found by (parent, function) in
 * a map of the report's tree.
 */
#include "timeline.h"

#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "hmap.h"
#include "space.h"
#include "xmalloc.h"

#define UNSEEN 0u
#define SKIPPED 1u /* hidden, or not in the report's profile */
#define FUNC_BASE 2u /* FUNC_BASE + id in the report's profile */

struct collect {
	const struct profile *p;
	struct timeline *t;
	struct hmap funcs;    /* hash of name and module -> func id */
	struct hmap children; /* parent << 32 | func -> node */
	uint32_t ellipsis;    /* the "..." node, or PROFILE_NONE */
	uint32_t *state;      /* per function of the spool read: above */
	size_t state_cap;
	/* Per stack of the spool read (loader_sample.stack_key): 0 not
	 * placed yet, 1 placed nowhere (PROFILE_NONE), else its node + 2. */
	uint32_t *placed;
	size_t placed_cap;
	struct hmap tracks;   /* tid -> track, for the spool read */
	uint32_t spool;
};

static uint64_t
func_key(const char *name, const char *module)
{
	uint64_t h = hmap_hash_str(HMAP_HASH_INIT, name ? name : "");
	return hmap_hash_str(h ^ 0x5bd1e995u, module ? module : "");
}

static bool
same_func(const struct profile *a, uint32_t fa, const struct profile *b,
	  uint32_t fb)
{
	const char *ma = profile_func_module(a, fa);
	const char *mb = profile_func_module(b, fb);
	uint32_t inl = PROFILE_FUNC_INLINED;
	return strcmp(a->funcs[fa].name, b->funcs[fb].name) == 0 &&
	       (a->funcs[fa].flags & inl) == (b->funcs[fb].flags & inl) &&
	       strcmp(ma ? ma : "", mb ? mb : "") == 0;
}

static void
index_profile(struct collect *c)
{
	const struct profile *p = c->p;

	for (uint32_t f = 0; f < p->nfuncs; f++) {
		if (p->funcs[f].flags & PROFILE_FUNC_ELLIPSIS)
			continue;
		uint64_t h = func_key(p->funcs[f].name,
				      profile_func_module(p, f));
		uint64_t v;
		while (hmap_get(&c->funcs, h, &v))
			h++;
		hmap_put(&c->funcs, h, f);
	}
	c->ellipsis = PROFILE_NONE;
	for (uint32_t i = 1; i < p->nnodes; i++) {
		const struct profile_node *x = &p->nodes[i];
		hmap_put(&c->children, (uint64_t)x->parent << 32 | x->func, i);
		if (x->parent == PROFILE_ROOT &&
		    (p->funcs[x->func].flags & PROFILE_FUNC_ELLIPSIS))
			c->ellipsis = i;
	}
}

/* What function f of the profile being read (sp) is in the report's. */
static uint32_t
state_of(struct collect *c, const struct profile *sp, uint32_t f)
{
	xgrow_zeroed(&c->state, &c->state_cap, (size_t)f + 1,
		     sizeof(*c->state));
	if (c->state[f] != UNSEEN)
		return c->state[f];
	uint64_t h = func_key(sp->funcs[f].name, profile_func_module(sp, f));
	uint64_t v;
	c->state[f] = SKIPPED;
	for (; hmap_get(&c->funcs, h, &v); h++)
		if (same_func(c->p, (uint32_t)v, sp, f)) {
			if (!(c->p->funcs[v].flags & PROFILE_FUNC_HIDDEN))
				c->state[f] = FUNC_BASE + (uint32_t)v;
			break;
		}
	return c->state[f];
}

/* The node of the report's tree the stack ends at, or PROFILE_NONE. */
static uint32_t
place(struct collect *c, const struct loader_sample *ls)
{
	uint32_t node = PROFILE_ROOT;
	uint64_t v;

	for (size_t i = 0; i < ls->n; i++) {
		uint32_t st = state_of(c, ls->prof, ls->stack[i]);
		if (st == SKIPPED)
			continue;
		uint64_t key = (uint64_t)node << 32 | (st - FUNC_BASE);
		if (!hmap_get(&c->children, key, &v))
			return PROFILE_NONE;
		node = (uint32_t)v;
	}
	if (node == PROFILE_ROOT && ls->n)
		return c->ellipsis;
	return node;
}

static uint32_t
track_of(struct collect *c, const struct loader_sample *ls)
{
	struct timeline *t = c->t;
	bool found;
	uint64_t *idx = hmap_ref(&c->tracks, ls->s->tid, &found);

	if (found)
		return (uint32_t)*idx;
	xgrow(&t->tracks, &t->tracks_cap, t->ntracks + 1, sizeof(*t->tracks));
	t->tracks[t->ntracks] = (struct timeline_track){
		.spool = c->spool,
		.pid = ls->prof->hdr.has_process ? ls->prof->hdr.pid : 0,
		.tid = ls->s->tid,
	};
	*idx = t->ntracks;
	return (uint32_t)t->ntracks++;
}

/* place(), once per stack of the spool being read. */
static uint32_t
place_once(struct collect *c, const struct loader_sample *ls)
{
	uint64_t k = ls->stack_key;
	if (!k)
		return place(c, ls);
	xgrow_zeroed(&c->placed, &c->placed_cap, k + 1, sizeof(*c->placed));
	if (!c->placed[k]) {
		uint32_t node = place(c, ls);
		c->placed[k] = node == PROFILE_NONE ? 1 : node + 2;
	}
	return c->placed[k] == 1 ? PROFILE_NONE : c->placed[k] - 2;
}

static void
on_sample(void *arg, const struct loader_sample *ls)
{
	struct collect *c = arg;
	struct timeline *t = c->t;
	uint32_t node = place_once(c, ls);

	if (node == PROFILE_NONE)
		return;
	xgrow(&t->samples, &t->samples_cap, t->nsamples + 1,
	      sizeof(*t->samples));
	t->samples[t->nsamples++] = (struct timeline_sample){
		.time_ns = ls->s->time_ns, .weight = ls->weight, .node = node,
		.track = track_of(c, ls), .flags = ls->s->flags,
	};
}

/* The allocations of the threads and the window the options select,
 * with when each was freed (whenever that was). */
static void
on_space(void *arg, const struct space_log *log, const bool *selected)
{
	struct collect *c = arg;
	struct timeline *t = c->t;
	uint64_t *ended = space_log_lifetimes(log);

	xgrow(&t->allocs, &t->allocs_cap, t->nallocs + log->nallocs,
	      sizeof(*t->allocs));
	for (size_t i = 0; i < log->nallocs; i++) {
		const struct space_alloc_ev *a = &log->allocs[i];
		if (selected && !selected[i])
			continue;
		t->allocs[t->nallocs++] = (struct timeline_alloc){
			.time_ns = a->time_ns, .end_ns = ended[i],
			.weight = a->weight, .size = a->size,
			.spool = c->spool,
		};
	}
	free(ended);
}

/* The process of each spool, and its parent among them. */
static void
read_procs(struct timeline *t, char *const *paths, size_t n)
{
	struct family_proc *info = xcalloc(n ? n : 1, sizeof(*info));

	t->procs = xcalloc(n ? n : 1, sizeof(*t->procs));
	t->nprocs = n;
	for (size_t i = 0; i < n; i++) {
		struct family f;
		if (family_read(&f, paths[i], false) == 0 && f.n) {
			info[i] = f.procs[0];
			f.n = 0; /* (moved) */
			family_free(&f);
		}
	}
	for (size_t i = 0; i < n; i++) {
		t->procs[i].info = info[i];
		t->procs[i].parent = family_parent_of(info, n, i);
	}
	free(info);
}

/* Names the tracks of the spool just read from its profile's threads. */
static void
name_tracks(struct collect *c, const struct profile *sp, size_t first)
{
	for (size_t i = first; i < c->t->ntracks; i++)
		for (size_t k = 0; k < sp->nthreads; k++)
			if (sp->threads[k].tid == c->t->tracks[i].tid &&
			    sp->threads[k].name) {
				c->t->tracks[i].name =
					xstrdup(sp->threads[k].name);
				break;
			}
}

static int
cmp_allocs(const void *pa, const void *pb)
{
	const struct timeline_alloc *a = pa, *b = pb;
	if (a->time_ns != b->time_ns)
		return a->time_ns < b->time_ns ? -1 : 1;
	return a->spool < b->spool ? -1 : a->spool > b->spool;
}

static int
cmp_samples(const void *pa, const void *pb)
{
	const struct timeline_sample *a = pa, *b = pb;
	if (a->time_ns != b->time_ns)
		return a->time_ns < b->time_ns ? -1 : 1;
	return a->track < b->track ? -1 : a->track > b->track;
}

static void
finish(struct timeline *t)
{
	/* (qsort must not be given NULL, even for no elements.) */
	if (t->nsamples)
		qsort(t->samples, t->nsamples, sizeof(*t->samples), cmp_samples);
	if (t->nallocs)
		qsort(t->allocs, t->nallocs, sizeof(*t->allocs), cmp_allocs);
	if (t->nsamples) {
		t->start_ns = t->samples[0].time_ns;
		t->end_ns = t->samples[t->nsamples - 1].time_ns;
	} else if (t->nallocs) {
		t->start_ns = t->end_ns = t->allocs[0].time_ns;
	}
}

struct timeline *
timeline_collect(const struct profile *p, char *const *paths, size_t n,
		 const struct loader_opts *load)
{
	struct timeline *t = xcalloc(1, sizeof(*t));
	struct collect c = { .p = p, .t = t };
	struct loader_opts lo = *load;
	int ret = 0;

	lo.sample_hook = on_sample;
	lo.sample_hook_arg = &c;
	lo.space_hook = on_space;
	lo.space_hook_arg = &c;
	index_profile(&c);
	/* The first read gave the warnings about these spools. */
	diag_set_quiet(true);
	for (size_t i = 0; i < n && !ret; i++) {
		size_t first = t->ntracks;
		c.spool = (uint32_t)i;
		if (c.state)
			memset(c.state, 0, c.state_cap * sizeof(*c.state));
		if (c.placed)
			memset(c.placed, 0, c.placed_cap * sizeof(*c.placed));
		hmap_free(&c.tracks);
		hmap_init(&c.tracks);
		struct profile *sp = loader_read(paths[i], &lo);
		if (!sp)
			ret = -1;
		else
			name_tracks(&c, sp, first);
		profile_free(sp);
	}
	if (!ret)
		read_procs(t, paths, n);
	diag_set_quiet(false);
	hmap_free(&c.funcs);
	hmap_free(&c.children);
	hmap_free(&c.tracks);
	free(c.state);
	free(c.placed);
	if (ret < 0) {
		timeline_free(t);
		return NULL;
	}
	finish(t);
	return t;
}

void
timeline_free(struct timeline *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->ntracks; i++)
		free(t->tracks[i].name);
	free(t->tracks);
	free(t->samples);
	free(t->allocs);
	for (size_t i = 0; i < t->nprocs; i++) {
		free(t->procs[i].info.path);
		free(t->procs[i].info.exe);
		free(t->procs[i].info.cmdline);
	}
	free(t->procs);
	free(t);
}
