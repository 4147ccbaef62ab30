/*
 * merge: several profiles as one (see merge.h).
 */
#include "merge.h"

#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "xmalloc.h"

struct merge {
	struct profile *d;
	struct hmap by_hash; /* hash of a function's key -> first id + 1 */
	uint32_t *next;      /* chains of d's functions with equal hashes */
	size_t next_cap;
	uint32_t *stack;
	size_t stack_cap;
};

/* Footer counts are checked one by one (loader.c), but their sum over
 * many spools still must not wrap. */
static uint64_t
sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static const char *
module_path(const struct profile *p, uint32_t m)
{
	return m == PROFILE_NONE ? "" : p->modules[m].path;
}

static uint64_t
func_hash(const struct profile *p, const struct profile_func *f)
{
	const char *mod = module_path(p, f->module);
	uint64_t h = hmap_hash_str(HMAP_HASH_INIT, f->name);
	h = hmap_hash_str(hmap_hash_bytes(h, "", 1), mod);
	h = hmap_hash_bytes(h, &f->addr, sizeof(f->addr));
	if (f->file)
		h = hmap_hash_str(hmap_hash_bytes(h, "", 1), f->file);
	return hmap_hash_bytes(h, &f->line, sizeof(f->line));
}

static bool
same_func(const struct profile *a, const struct profile_func *fa,
	  const struct profile *b, const struct profile_func *fb)
{
	const uint32_t kind = PROFILE_FUNC_UNNAMED | PROFILE_FUNC_PSEUDO |
			      PROFILE_FUNC_INLINED;
	return fa->addr == fb->addr && fa->line == fb->line &&
	       (fa->flags & kind) == (fb->flags & kind) &&
	       strcmp(fa->name, fb->name) == 0 &&
	       strcmp(module_path(a, fa->module), module_path(b, fb->module)) ==
		       0 &&
	       (fa->file ? fb->file && strcmp(fa->file, fb->file) == 0
			 : !fb->file);
}

/* The merged profile's id of function id of src, added when new. */
static uint32_t
intern(struct merge *m, const struct profile *src, uint32_t id)
{
	const struct profile_func *f = &src->funcs[id];
	uint64_t h = func_hash(src, f), first;
	struct profile *d = m->d;

	if (hmap_get(&m->by_hash, h, &first))
		for (uint32_t k = (uint32_t)first - 1; k != PROFILE_NONE;
		     k = m->next[k])
			if (same_func(d, &d->funcs[k], src, f))
				return k;
	uint32_t mod = PROFILE_NONE;
	if (f->module != PROFILE_NONE) {
		const struct profile_module *sm = &src->modules[f->module];
		mod = profile_module(d, sm->path);
		profile_module_set_build_id(d, mod, sm->build_id,
					    sm->build_id_len);
		d->modules[mod].no_symbols |= sm->no_symbols;
		d->modules[mod].dynsym_only |= sm->dynsym_only;
	}
	uint32_t k = profile_add_func(d, mod, f->name, f->addr,
				      f->flags & (PROFILE_FUNC_UNNAMED |
						  PROFILE_FUNC_PSEUDO |
						  PROFILE_FUNC_INLINED));
	if (f->file)
		profile_func_set_source(d, k, f->file, f->line);
	if (f->version)
		profile_func_set_version(d, k, f->version);
	xgrow(&m->next, &m->next_cap, (size_t)k + 1, sizeof(*m->next));
	m->next[k] = hmap_get(&m->by_hash, h, &first) ? (uint32_t)first - 1
						       : PROFILE_NONE;
	hmap_put(&m->by_hash, h, (uint64_t)k + 1);
	return k;
}

static void
merge_threads(struct merge *m, const struct profile *src)
{
	for (size_t i = 0; i < src->nthreads; i++) {
		const struct profile_thread *t = &src->threads[i];
		uint32_t k = profile_thread(m->d, t->tid);
		struct profile_thread *dt = &m->d->threads[k];
		if (t->name && (!dt->name || t->name_time_ns >= dt->name_time_ns)) {
			profile_thread_set_name(m->d, k, t->name,
						strlen(t->name));
			dt = &m->d->threads[k];
			dt->name_time_ns = t->name_time_ns;
		}
		if (t->has_cpu)
			profile_thread_add_cpu(m->d, k, t->cpu_ns,
					       t->user_known ? t->user_ns
							     : SPOOL_CPU_UNKNOWN);
		dt->excluded = dt->excluded || t->excluded;
		if (t->has_calls) {
			dt->has_calls = true;
			for (int c = 0; c < SPOOL_ALLOC_FN_MAX_; c++)
				dt->calls[c] += t->calls[c];
		}
	}
}

static void
merge_samples(struct merge *m, const struct profile *src, const uint32_t *map)
{
	for (size_t i = 0; i < src->nsamples; i++) {
		const struct profile_sample *s = &src->samples[i];
		size_t n = 0;
		for (uint32_t v = s->node; v != PROFILE_ROOT;
		     v = src->nodes[v].parent)
			n++;
		xgrow(&m->stack, &m->stack_cap, n + 1, sizeof(*m->stack));
		size_t k = n;
		for (uint32_t v = s->node; v != PROFILE_ROOT;
		     v = src->nodes[v].parent)
			m->stack[--k] = map[src->nodes[v].func];
		uint32_t t = profile_thread(m->d, src->threads[s->thread].tid);
		profile_add_samples(m->d, m->stack, n, t, s->weight, s->var,
				    s->count, s->flags);
	}
}

/* The exact call counts add up, arc by arc. */
static void
merge_calls(struct merge *m, const struct profile *src, const uint32_t *map)
{
	for (size_t i = 0; i < src->narcs; i++) {
		const struct profile_arc *a = &src->arcs[i];
		uint32_t caller = a->caller == PROFILE_NONE ? PROFILE_NONE
							    : map[a->caller];
		profile_add_calls(m->d, caller, map[a->callee], a->count);
	}
}

/* The header: the first profile's description, the sums of all. */
static void
merge_header(struct profile_header *h, const struct profile_header *s,
	     bool first)
{
	if (first) {
		h->kind = s->kind;
		h->has_process = s->has_process;
		h->pid = s->pid;
		h->timer = s->timer;
		h->clock = s->clock;
		h->period_ns = s->period_ns;
		h->requested_hz = s->requested_hz;
		h->max_depth = s->max_depth;
		h->exe = s->exe ? xstrdup(s->exe) : NULL;
		h->complete = s->complete;
		h->start_mono_ns = s->start_mono_ns;
		h->start_realtime_ns = s->start_realtime_ns;
		h->process_flags = s->process_flags;
		h->end_reason = s->end_reason;
		h->end_signal = s->end_signal;
		h->space.view = s->space.view;
		h->space.interval = s->space.interval;
		h->space.peak_time_ns = s->space.peak_time_ns;
		h->window = s->window;
		h->window_from_ns = s->window_from_ns;
		h->window_to_ns = s->window_to_ns;
	} else {
		h->complete = h->complete && s->complete;
		/* Samples of user-mode time only, if any process's were. */
		h->process_flags |= s->process_flags;
	}
	h->cpu_ns = sat_add(h->cpu_ns, s->cpu_ns);
	h->run_samples = sat_add(h->run_samples, s->run_samples);
	h->window_allocs = sat_add(h->window_allocs, s->window_allocs);
	h->sampled_cpu_ns = sat_add(h->sampled_cpu_ns, s->sampled_cpu_ns);
	if (s->end_mono_ns > h->end_mono_ns)
		h->end_mono_ns = s->end_mono_ns;
	h->footer_threads = sat_add(h->footer_threads, s->footer_threads);
	h->clone_processes = sat_add(h->clone_processes, s->clone_processes);
	h->clone_threads = sat_add(h->clone_threads, s->clone_threads);
	if (s->size_limit > h->size_limit)
		h->size_limit = s->size_limit;
	if (s->size_limit_ns &&
	    (!h->size_limit_ns || s->size_limit_ns < h->size_limit_ns))
		h->size_limit_ns = s->size_limit_ns;
	h->calls_missed = sat_add(h->calls_missed, s->calls_missed);
	for (int c = 0; c < SPOOL_DROP_MAX_; c++)
		h->drops[c] = sat_add(h->drops[c], s->drops[c]);
	/* A count that was corrupt in one spool is unknown in the sum. */
	h->drops_corrupt |= s->drops_corrupt;
	struct profile_space *d = &h->space;
	const struct profile_space *o = &s->space;
	d->alloc_records += o->alloc_records;
	d->free_records += o->free_records;
	d->matched_frees += o->matched_frees;
	d->untracked += o->untracked;
	d->alloc_bytes += o->alloc_bytes;
	d->alloc_var += o->alloc_var;
	d->view_var += o->view_var;
	d->has_calls = d->has_calls || o->has_calls;
	for (int c = 0; c < SPOOL_ALLOC_FN_MAX_; c++)
		d->calls[c] += o->calls[c];
}

struct profile *
merge_profiles(struct profile *const *ps, size_t n)
{
	struct merge m = { .d = profile_new(n ? ps[0]->hdr.kind
					       : PROFILE_KIND_TIME) };

	hmap_init(&m.by_hash);
	for (size_t i = 0; i < n; i++) {
		const struct profile *src = ps[i];
		uint32_t *map = xcalloc(src->nfuncs + 1, sizeof(*map));
		merge_header(&m.d->hdr, &src->hdr, i == 0);
		for (size_t f = 0; f < src->nfuncs; f++)
			map[f] = intern(&m, src, (uint32_t)f);
		merge_threads(&m, src);
		merge_samples(&m, src, map);
		merge_calls(&m, src, map);
		free(map);
	}
	/* Each process has a peak of its own; their sum has no moment. */
	if (n > 1)
		m.d->hdr.space.peak_time_ns = 0;
	profile_finish(m.d);
	hmap_free(&m.by_hash);
	free(m.next);
	free(m.stack);
	return m.d;
}
