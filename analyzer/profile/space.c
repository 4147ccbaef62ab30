/*
 * space: the space log and its views (see space.h).
 *
 * The replay sorts allocations and frees by time, a free before an
 * allocation at the same nanosecond (the library takes a FREE's time
 * before the block is released and an ALLOC's after the allocation
 * returned, so a reused address is always freed first). An address can
 * only be live once: an allocation at an address whose earlier sample
 * was never freed (its FREE was lost) retires the earlier one. A FREE of
 * an address with no live sample (its ALLOC was lost) is ignored.
 * Samples flagged untracked (the library could not record their frees)
 * are left out of the in-use and peak views rather than shown as leaks.
 */
#include "space.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "xmalloc.h"

void
space_log_init(struct space_log *log)
{
	memset(log, 0, sizeof(*log));
}

void
space_log_free(struct space_log *log)
{
	free(log->allocs);
	free(log->frees);
	free(log->threads);
	memset(log, 0, sizeof(*log));
}

void
space_log_alloc(struct space_log *log, const struct spool_alloc *a)
{
	xgrow(&log->allocs, &log->allocs_cap, log->nallocs + 1,
	      sizeof(*log->allocs));
	log->allocs[log->nallocs++] = (struct space_alloc_ev){
		.time_ns = a->time_ns, .address = a->address, .size = a->size,
		.weight = a->weight, .flags = a->flags, .tid = a->tid,
	};
}

void
space_log_free_rec(struct space_log *log, const struct spool_free *f)
{
	xgrow(&log->frees, &log->frees_cap, log->nfrees + 1,
	      sizeof(*log->frees));
	log->frees[log->nfrees++] = (struct space_free_ev){
		.time_ns = f->time_ns, .address = f->address,
	};
}

void
space_log_calls(struct space_log *log, const struct spool_call_counts *c)
{
	struct space_thread_calls *t = NULL;
	for (size_t i = 0; i < log->nthreads; i++)
		if (log->threads[i].tid == c->tid)
			t = &log->threads[i];
	if (!t) {
		xgrow(&log->threads, &log->threads_cap, log->nthreads + 1,
		      sizeof(*log->threads));
		t = &log->threads[log->nthreads++];
		memset(t, 0, sizeof(*t));
		t->tid = c->tid;
	}
	/* Each record counts the calls since the thread's previous one. */
	for (uint32_t id = 0; id < SPOOL_ALLOC_FN_MAX_; id++)
		t->calls[id] += spool_call_count(c, id);
	log->has_calls = true;
}

double
space_sample_var(uint64_t weight, uint64_t size)
{
	double w = (double)weight, n = (double)size;
	return w > n ? w * (w - n) : 0.0;
}

/* ---- replay ---- */

struct event {
	uint64_t time_ns;
	uint32_t idx;   /* into allocs or frees */
	uint32_t alloc; /* 1 for an allocation, 0 for a free */
};

static int
cmp_event(const void *pa, const void *pb)
{
	const struct event *a = pa, *b = pb;
	if (a->time_ns != b->time_ns)
		return a->time_ns < b->time_ns ? -1 : 1;
	if (a->alloc != b->alloc)
		return a->alloc < b->alloc ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static struct event *
sorted_events(const struct space_log *log, size_t *n)
{
	struct event *ev = xcalloc(log->nallocs + log->nfrees + 1, sizeof(*ev));
	size_t k = 0;
	for (size_t i = 0; i < log->nallocs; i++)
		ev[k++] = (struct event){ log->allocs[i].time_ns, (uint32_t)i, 1 };
	for (size_t i = 0; i < log->nfrees; i++)
		ev[k++] = (struct event){ log->frees[i].time_ns, (uint32_t)i, 0 };
	qsort(ev, k, sizeof(*ev), cmp_event);
	*n = k;
	return ev;
}

struct replay {
	bool *live;        /* per allocation */
	double heap;       /* sum of the weights of the live ones */
	double peak;
	size_t peak_at;    /* events replayed when the peak was reached */
	uint64_t peak_time_ns;
	uint64_t *ended;   /* per allocation, or NULL: when retired */
};

static void
retire(struct replay *r, const struct space_log *log, uint32_t i,
       uint64_t time_ns)
{
	r->live[i] = false;
	r->heap -= (double)log->allocs[i].weight;
	if (r->ended)
		r->ended[i] = time_ns;
}

/* Replays the first stop events of ev into r (whose live array is all
 * false on entry). */
static void
replay(const struct space_log *log, const struct event *ev, size_t stop,
       struct replay *r)
{
	struct hmap at; /* address -> allocation index + 1, 0 when none */
	hmap_init(&at);
	for (size_t e = 0; e < stop; e++) {
		uint64_t addr = ev[e].alloc ? log->allocs[ev[e].idx].address
					    : log->frees[ev[e].idx].address;
		bool found;
		uint64_t *slot = hmap_ref(&at, addr, &found);
		(void)found;
		if (*slot)
			retire(r, log, (uint32_t)(*slot - 1), ev[e].time_ns);
		*slot = 0;
		if (!ev[e].alloc)
			continue;
		const struct space_alloc_ev *a = &log->allocs[ev[e].idx];
		if (a->flags & SPOOL_ALLOC_UNTRACKED)
			continue;
		*slot = ev[e].idx + 1;
		r->live[ev[e].idx] = true;
		r->heap += (double)a->weight;
		if (r->heap > r->peak) {
			r->peak = r->heap;
			r->peak_at = e + 1;
			r->peak_time_ns = ev[e].time_ns;
		}
	}
	hmap_free(&at);
}

/* Frees whose address had a live sample (untracked ones included). */
static uint64_t
count_matched(const struct space_log *log, const struct event *ev, size_t n)
{
	struct hmap at;
	uint64_t matched = 0;
	hmap_init(&at);
	for (size_t e = 0; e < n; e++) {
		bool found;
		if (ev[e].alloc) {
			*hmap_ref(&at, log->allocs[ev[e].idx].address, &found) = 1;
			continue;
		}
		uint64_t *slot = hmap_ref(&at, log->frees[ev[e].idx].address,
					  &found);
		matched += *slot != 0;
		*slot = 0;
	}
	hmap_free(&at);
	return matched;
}

static void
totals(const struct space_log *log, const bool *selected,
       struct profile_space *out)
{
	out->alloc_bytes = 0;
	out->alloc_var = 0;
	out->view_var = 0;
	out->untracked = 0;
	for (size_t i = 0; i < log->nallocs; i++) {
		const struct space_alloc_ev *a = &log->allocs[i];
		double var = space_sample_var(a->weight, a->size);
		out->alloc_bytes += (double)a->weight;
		out->alloc_var += var;
		if (selected[i])
			out->view_var += var;
		out->untracked += (a->flags & SPOOL_ALLOC_UNTRACKED) != 0;
	}
}

bool *
space_log_select(const struct space_log *log, enum profile_space_view view,
		 struct profile_space *out)
{
	bool *sel = xcalloc(log->nallocs + 1, sizeof(*sel));
	size_t n;
	struct event *ev = sorted_events(log, &n);
	struct replay r = { .live = sel };

	out->view = view;
	out->alloc_records = log->nallocs;
	out->free_records = log->nfrees;
	out->matched_frees = count_matched(log, ev, n);
	replay(log, ev, n, &r);
	out->peak_time_ns = r.peak_time_ns;
	out->peak_bytes = r.peak;
	if (view == PROFILE_SPACE_ALLOC) {
		for (size_t i = 0; i < log->nallocs; i++)
			sel[i] = true;
	} else if (view == PROFILE_SPACE_PEAK) {
		memset(sel, 0, log->nallocs * sizeof(*sel));
		size_t stop = r.peak_at;
		r = (struct replay){ .live = sel };
		replay(log, ev, stop, &r);
	}
	/* PROFILE_SPACE_INUSE: what the full replay left live. */
	totals(log, sel, out);
	free(ev);
	return sel;
}

uint64_t *
space_log_lifetimes(const struct space_log *log)
{
	size_t n;
	struct event *ev = sorted_events(log, &n);
	bool *live = xcalloc(log->nallocs + 1, sizeof(*live));
	uint64_t *ended = xcalloc(log->nallocs + 1, sizeof(*ended));
	struct replay r = { .live = live, .ended = ended };

	for (size_t i = 0; i < log->nallocs; i++)
		ended[i] = (log->allocs[i].flags & SPOOL_ALLOC_UNTRACKED) ?
				   log->allocs[i].time_ns : UINT64_MAX;
	replay(log, ev, n, &r);
	free(live);
	free(ev);
	return ended;
}

int
space_view_parse(const char *s, enum profile_space_view *out)
{
	static const char *const names[] = { "alloc", "inuse", "peak" };
	for (int i = 0; i < 3; i++) {
		if (strcmp(s, names[i]) == 0) {
			*out = (enum profile_space_view)i;
			return 0;
		}
	}
	return -1;
}

const char *
space_view_name(enum profile_space_view view)
{
	switch (view) {
	case PROFILE_SPACE_INUSE:
		return "inuse";
	case PROFILE_SPACE_PEAK:
		return "peak";
	default:
		return "alloc";
	}
}

int
space_wrapper_fn(const struct profile *p, uint32_t func)
{
	const char *module = profile_func_module(p, func);
	if (!module)
		return -1;
	const char *slash = strrchr(module, '/');
	if (fnmatch("libprofrun.so*", slash ? slash + 1 : module, 0) != 0)
		return -1;
	for (int id = 0; id < SPOOL_ALLOC_FN_MAX_; id++)
		if (strcmp(p->funcs[func].name, spool_alloc_fn_name(id)) == 0)
			return id;
	return -1;
}
