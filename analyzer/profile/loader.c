/*
 * loader: spool records into the module map and the profile (see
 * loader.h).
 */
#include "loader.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "blob.h"
#include "diag.h"
#include "hmap.h"
#include "modmap.h"
#include "perfmap.h"
#include "resolve.h"
#include "space.h"
#include "spool.h"
#include "xmalloc.h"

/* What the first pass learned that the second needs. */
struct pass1 {
	size_t stop;          /* offset of the end of the last whole record */
	int status;           /* enum spool_status at the stop */
	uint64_t samples;     /* time samples in the readable part */
	uint64_t sample_recs; /* SAMPLE records of any kind */
	uint64_t malformed;   /* records whose payload did not decode */
	uint64_t first_malformed;
	struct spool_footer footer;
};

struct load {
	const char *path;
	const struct blob *blob;
	size_t dropped;       /* blob_drop() done up to here in this pass */
	struct profile *prof;
	struct modmap map;
	struct resolver *res;
	uint32_t *stack;      /* function ids of one sample, root first */
	size_t stack_cap;
	uint32_t pseudo_truncated, pseudo_unwind, no_frames;
	struct spool_module_image *images; /* data points into the spool */
	size_t nimages, images_cap;
	struct perfmap *perfmap; /* the PERF_MAP records' lines, or NULL */
	uint64_t perfmap_bad;    /* their lines skipped as malformed */
	struct space_log space; /* ALLOC, FREE, ALLOCS, CALL_COUNTS records */
	/* The stacks SAMPLES and ALLOCS records define, by stream << 32 |
	 * id: an index into stacks, whose PCs are in pcs (little-endian
	 * u64s, as a SAMPLE's), so that a reference reads like a SAMPLE.
	 * Defined in the first pass: a thread may take a chunk before the one
	 * that defined a stack it refers to. A writer numbers a stream's
	 * stacks from 1, so each stream also has an array by id (index + 1,
	 * 0 for none) that the second pass reads once per sample instead of
	 * the map; ids far beyond a stream's count (a damaged or foreign
	 * spool) are only in the map. */
	struct hmap stack_ids;
	struct hmap stream_ids; /* stream -> index into streams */
	struct loader_stream { uint32_t *idx; size_t n; uint32_t defined; }
		*streams;
	size_t nstreams, streams_cap;
	struct loader_stack { uint64_t off; uint32_t depth; uint16_t flags; }
		*stacks;
	size_t nstacks, stacks_cap;
	/* By stack, as stacks: the summed samples of the first thread that
	 * had the stack, which all the samples of a stack have when stacks
	 * belong to one thread's stream, as a writer's do. agg is the aggs
	 * index + 1 of that (stack, thread), 0 none yet; the totals of the
	 * stack on other threads are in aggs, by agg_ids. Apart from stacks
	 * so that the second pass touches 32 bytes per sample. */
	struct loader_sum {
		uint32_t agg, thread;
		uint64_t weight, count;
		double var;
	} *sums;
	size_t sums_cap;
	uint8_t *pcs;
	size_t pcs_len, pcs_cap;
	uint64_t *tmp;           /* one stack's PCs, decoded */
	size_t tmp_cap;
	uint64_t unknown_stacks; /* references to stacks never defined */
	/* Samples of a stack a SAMPLES record refers to, by thread: the
	 * first is added as it comes (so functions and tree nodes are made
	 * in the order a SAMPLE record's would make them), the others are
	 * summed here and added once at the end, resolved once. Only when
	 * no module was unloaded (a PC's function cannot then depend on
	 * when it was sampled). Set in the first pass only. */
	bool aggregate;
	/* A hook wants every sample with its time (no sample_hook_sums):
	 * a sample summed into its stack's total is still passed to it,
	 * with its stack's functions resolved once and kept here by stack
	 * (built[idx] is their offset in built_funcs + 1, 0 not yet; the
	 * first is their number). */
	bool hook_each;
	uint64_t *built;
	size_t built_cap;
	uint32_t *built_funcs;
	size_t nbuilt_funcs, built_funcs_cap;
	struct hmap agg_ids; /* stack << 32 | thread index -> aggs + 1 */
	uint32_t tid;        /* of the SAMPLES record being read */
	struct loader_agg {
		uint32_t stack, thread;
		uint64_t time_ns, weight, count;
		double var;
	} *aggs;
	size_t naggs, aggs_cap;
	/* The progress line: wanted (a terminal), shown yet, when reading
	 * began, bytes read since the clock was last read. */
	bool progress, shown;
	uint64_t t0_ns;
	size_t tick;
};

static uint64_t
now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Every 256 KiB of records (a SAMPLES record holds thousands of
 * samples, a SAMPLE one): once reading has taken more than a second, a
 * line on stderr (a terminal) saying how far it is, rewritten in place.
 * The first pass is the first half of the way, the second the rest. */
static void
progress(struct load *l, int pass, const struct spool_rec *r, size_t size)
{
	if (!l->progress || (l->tick += r->len) < (256u << 10))
		return;
	l->tick = 0;
	size_t pos = (size_t)r->offset;
	uint64_t t = now_ns();
	if (t - l->t0_ns < 1000000000u)
		return;
	double done = size ? (double)pos / (double)size : 1.0;
	diag_progress("%s: reading, %3.0f%% (%.0f s)", l->path,
		      50.0 * (done + (pass - 1)), (double)(t - l->t0_ns) / 1e9);
	l->shown = true;
}

/* Drops the spool's pages before off, the start of the record being
 * read, once they make a window: a pass keeps about BLOB_WINDOW bytes of
 * the file resident, not the file. What points into dropped pages (the
 * module images) stays valid (blob.h). */
static void
drop_behind(struct load *l, size_t off)
{
	if (off - l->dropped >= BLOB_WINDOW)
		l->dropped = blob_drop(l->blob, l->dropped, off);
}

/* Clears the progress line, if there was one. */
static void
progress_end(struct load *l)
{
	if (l->shown)
		fputs("\r\033[K", stderr);
	l->shown = false;
}

static void
take_process(struct load *l, const struct spool_process *pr)
{
	struct profile_header *h = &l->prof->hdr;
	if (h->has_process)
		return; /* the first one describes the profiled program */
	h->has_process = true;
	h->pid = pr->pid;
	h->timer = pr->timer;
	h->clock = pr->clock;
	h->period_ns = pr->period_ns;
	h->requested_hz = pr->requested_hz;
	h->max_depth = pr->max_depth;
	h->exe = xstrndup(pr->exe.ptr, pr->exe.len);
	h->start_mono_ns = pr->start_mono_ns;
	h->start_realtime_ns = pr->start_realtime_ns;
	h->process_flags = pr->flags;
	h->space.interval = pr->space_interval;
}

static void
take_module_load(struct load *l, const struct spool_module_load *m)
{
	struct modmap_segment segs[SPOOL_MAX_SEGMENTS];
	for (uint32_t i = 0; i < m->nsegments; i++) {
		struct spool_segment s = spool_module_segment(m, i);
		segs[i].vaddr = s.vaddr;
		segs[i].memsz = s.memsz;
		segs[i].offset = s.offset;
	}
	modmap_load(&l->map, m->path.ptr, m->path.len, m->build_id,
		    m->build_id_len, m->base, segs, m->nsegments, m->time_ns);
}

/* Images are attached once all modules are known: the writer puts an
 * image right after its module's record, but nothing forbids the other
 * order. */
static void
take_image(struct load *l, const struct spool_module_image *m)
{
	xgrow(&l->images, &l->images_cap, l->nimages + 1, sizeof(*l->images));
	l->images[l->nimages++] = *m;
}

static void
attach_images(struct load *l)
{
	for (size_t i = 0; i < l->nimages; i++) {
		const struct spool_module_image *m = &l->images[i];
		if (!modmap_add_image(&l->map, m->base, m->time_ns, m->data,
				      m->len))
			diag_warn("%s: module image for no module (base "
				  "0x%llx) ignored", l->path,
				  (unsigned long long)m->base);
	}
}

/* The lines of a PERF_MAP record, after those of the records before
 * it: a later line wins where ranges overlap. */
static void
take_perf_map(struct load *l, const struct spool_perf_map *m)
{
	if (!l->perfmap)
		l->perfmap = perfmap_new();
	l->perfmap_bad += perfmap_add_text(l->perfmap, m->text.ptr,
					   m->text.len);
}

/* Without PERF_MAP records (a spool of an older library, or one whose
 * program was killed before its end), the program's perf map is read
 * from /tmp/perf-PID.map when that is still there, belongs to the user
 * (or root) and was last written while the program ran (not by another
 * process of the same PID). */
static void
read_live_perf_map(struct load *l)
{
	const struct profile_header *h = &l->prof->hdr;
	char path[64];
	struct stat st;
	if (l->perfmap || !h->has_process || !h->pid)
		return;
	snprintf(path, sizeof(path), "/tmp/perf-%u.map", h->pid);
	/* Only a file of the user or root, as perf reads it. */
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (st.st_uid != 0 && st.st_uid != geteuid()))
		return;
	uint64_t mtime = (uint64_t)st.st_mtim.tv_sec * 1000000000u +
			 (uint64_t)st.st_mtim.tv_nsec;
	/* Written while the program ran (a second's slack after its end,
	 * when the footer gives it). */
	if (mtime < h->start_realtime_ns ||
	    (h->end_mono_ns > h->start_mono_ns &&
	     mtime > h->start_realtime_ns + (h->end_mono_ns -
					     h->start_mono_ns) + 1000000000u))
		return;
	l->perfmap = perfmap_new();
	long bad = perfmap_add_file(l->perfmap, path);
	if (bad < 0) {
		diag_warn("%s: %s: %s; JIT code is not named", l->path, path,
			  strerror((int)-bad));
		return;
	}
	l->perfmap_bad = (uint64_t)bad;
	diag_note("%s: JIT code named by %s (the spool holds no copy of it)",
		  l->path, path);
}

/* Seals the perf map, if any, for the resolver. */
static void
seal_perf_map(struct load *l)
{
	read_live_perf_map(l);
	if (!l->perfmap)
		return;
	if (l->perfmap_bad)
		diag_warn("%s: %llu malformed line%s of the perf map skipped",
			  l->path, (unsigned long long)l->perfmap_bad,
			  l->perfmap_bad == 1 ? "" : "s");
	perfmap_seal(l->perfmap);
}

static void
take_thread(struct load *l, const struct spool_thread *t)
{
	uint32_t idx = profile_thread(l->prof, t->tid);
	struct profile_thread *th = &l->prof->threads[idx];
	/* Records of different threads reach the file out of time order (a
	 * rename goes through the control ring, the start through the
	 * thread's own): the name given last in time wins. */
	if ((t->event == SPOOL_THREAD_NAME ||
	     (t->event == SPOOL_THREAD_START && t->name.len)) &&
	    (!th->name || t->time_ns >= th->name_time_ns)) {
		profile_thread_set_name(l->prof, idx, t->name.ptr, t->name.len);
		l->prof->threads[idx].name_time_ns = t->time_ns;
	}
	if (t->has_cpu && (t->event == SPOOL_THREAD_EXIT ||
			   t->event == SPOOL_THREAD_CPU))
		profile_thread_add_cpu(l->prof, idx, t->cpu_ns, t->user_ns);
}

/* Whether the samples of thread tid are wanted (--thread). The names are
 * those of the first pass, so a name given after a sample still counts. */
static bool
thread_wanted(struct load *l, const struct loader_opts *o, uint32_t tid)
{
	if (!o->nthreads)
		return true;
	/* The index first: profile_thread may move the array. */
	uint32_t idx = profile_thread(l->prof, tid);
	const struct profile_thread *t = &l->prof->threads[idx];
	for (size_t i = 0; i < o->nthreads; i++)
		if (loader_thread_matches(o->threads[i], tid, t->name))
			return true;
	return false;
}

bool
loader_thread_matches(const char *pattern, uint32_t tid, const char *name)
{
	char *end;
	unsigned long v = strtoul(pattern, &end, 10);
	if (!*end && *pattern && v == tid)
		return true;
	return name && fnmatch(pattern, name, 0) == 0;
}

/* Decodes the PCs of a defining entry into l->pcs at its end, as
 * little-endian u64s. Returns 0 or -EBADMSG. */
static int
decode_pcs(struct load *l, const struct spool_entry *e)
{
	xgrow(&l->tmp, &l->tmp_cap, (size_t)e->depth + 1, sizeof(*l->tmp));
	if (spool_entry_pcs(e, l->tmp) != 0)
		return -EBADMSG;
	xgrow(&l->pcs, &l->pcs_cap, l->pcs_len + (size_t)e->depth * 8 + 8, 1);
	uint8_t *out = l->pcs + l->pcs_len;
	for (uint32_t i = 0; i < e->depth; i++)
		for (int b = 0; b < 8; b++)
			*out++ = (uint8_t)(l->tmp[i] >> (8 * b));
	return 0;
}

/* The dense ids of stream (see struct load), made when absent. */
static struct loader_stream *
stream_of(struct load *l, uint32_t stream)
{
	bool found;
	uint64_t *v = hmap_ref(&l->stream_ids, stream, &found);
	if (!found) {
		xgrow(&l->streams, &l->streams_cap, l->nstreams + 1,
		      sizeof(*l->streams));
		l->streams[l->nstreams] = (struct loader_stream){ 0 };
		*v = l->nstreams++;
	}
	return &l->streams[*v];
}

/* Files stack idx under id in its stream's array when id is near the
 * stream's count. */
static void
file_dense(struct load *l, uint32_t stream, uint32_t id, size_t idx)
{
	struct loader_stream *st = stream_of(l, stream);
	st->defined++;
	if (id > 4u * (size_t)st->defined + 4096 || idx >= UINT32_MAX)
		return;
	xgrow_zeroed(&st->idx, &st->n, (size_t)id + 1, sizeof(*st->idx));
	st->idx[id] = (uint32_t)idx + 1;
}

/* Keeps the stack entry e of stream defines, unless it is the entry's
 * own (id 0) or the stream defined that id before (the first wins).
 * Returns 0 or -EBADMSG. */
static int
keep_stack(struct load *l, uint32_t stream, const struct spool_entry *e)
{
	if (!e->define || !e->id)
		return 0;
	bool found;
	uint64_t *v = hmap_ref(&l->stack_ids, (uint64_t)stream << 32 | e->id,
			       &found);
	if (found)
		return 0;
	if (decode_pcs(l, e) != 0) {
		*v = UINT64_MAX;
		return -EBADMSG;
	}
	xgrow(&l->stacks, &l->stacks_cap, l->nstacks + 1, sizeof(*l->stacks));
	xgrow(&l->sums, &l->sums_cap, l->nstacks + 1, sizeof(*l->sums));
	l->sums[l->nstacks] = (struct loader_sum){ 0 };
	*v = l->nstacks;
	file_dense(l, stream, e->id, l->nstacks);
	l->stacks[l->nstacks++] = (struct loader_stack){
		.off = l->pcs_len, .depth = e->depth, .flags = e->flags };
	l->pcs_len += (size_t)e->depth * 8;
	return 0;
}

/* First pass over a SAMPLES record: counts its samples and keeps the
 * stacks it defines. Returns 0 or -EBADMSG (the entries before the
 * damage are taken). */
static int
take_stacks(struct load *l, struct pass1 *p1, const struct spool_rec *r)
{
	struct spool_samples h;
	struct spool_entry_cursor c;
	struct spool_entry e;
	int st;
	if (spool_get_samples(r, &h) != 0)
		return -EBADMSG;
	spool_entries_begin(&c, &h);
	while ((st = spool_entries_next(&c, &e)) == 1) {
		p1->samples++;
		p1->sample_recs++;
		if (keep_stack(l, h.stream, &e) != 0)
			return -EBADMSG;
	}
	return st < 0 ? -EBADMSG : 0;
}

/* First pass over an ALLOCS record: logs its allocations and releases as
 * ALLOC and FREE records, and keeps the stacks it defines. Returns 0 or
 * -EBADMSG (the entries before the damage are taken; an allocation whose
 * stack does not decode is, without its stack, as the second pass must
 * see the same allocations). */
static int
take_space(struct load *l, const struct spool_rec *r)
{
	struct spool_allocs h;
	struct spool_space_cursor c;
	struct spool_space_entry e;
	int st, bad = 0;
	if (spool_get_allocs(r, &h) != 0)
		return -EBADMSG;
	spool_space_begin(&c, &h);
	while ((st = spool_space_next(&c, &e)) == 1) {
		if (e.release) {
			space_log_free_rec(&l->space, &(struct spool_free){
				.time_ns = e.time_ns, .tid = h.tid,
				.address = e.address });
			continue;
		}
		space_log_alloc(&l->space, &(struct spool_alloc){
			.time_ns = e.time_ns, .tid = h.tid, .flags = e.flags,
			.size = e.size, .address = e.address,
			.weight = e.weight, .fn = e.fn });
		if (keep_stack(l, h.stream, &e.stack) != 0)
			bad = 1;
	}
	return st < 0 || bad ? -EBADMSG : 0;
}

/* Decodes one record for the first pass. Returns 0 or -EBADMSG. */
static int
first_pass_record(struct load *l, struct pass1 *p1, const struct spool_rec *r)
{
	union {
		struct spool_process pr;
		struct spool_module_load ml;
		struct spool_module_unload mu;
		struct spool_thread th;
		struct spool_sample sa;
		struct spool_module_image mi;
		struct spool_alloc al;
		struct spool_free fr;
		struct spool_call_counts cc;
		struct spool_call_arcs ca;
		struct spool_perf_map pm;
	} u;
	int ret = 0;

	switch (r->type) {
	case SPOOL_REC_PROCESS:
		if (!(ret = spool_get_process(r, &u.pr)))
			take_process(l, &u.pr);
		break;
	case SPOOL_REC_MODULE_LOAD:
		if (!(ret = spool_get_module_load(r, &u.ml)))
			take_module_load(l, &u.ml);
		break;
	case SPOOL_REC_MODULE_UNLOAD:
		if (!(ret = spool_get_module_unload(r, &u.mu)))
			modmap_unload(&l->map, u.mu.path.ptr, u.mu.path.len,
				      u.mu.base, u.mu.time_ns);
		l->aggregate = false;
		break;
	case SPOOL_REC_THREAD:
		if (!(ret = spool_get_thread(r, &u.th)))
			take_thread(l, &u.th);
		break;
	case SPOOL_REC_SAMPLE:
		if ((ret = spool_get_sample(r, &u.sa)))
			break;
		p1->sample_recs++;
		/* Sample kinds of later versions are skipped. */
		if (u.sa.kind == SPOOL_SAMPLE_TIME)
			p1->samples++;
		break;
	case SPOOL_REC_SAMPLES:
		ret = take_stacks(l, p1, r);
		break;
	case SPOOL_REC_MODULE_IMAGE:
		if (!(ret = spool_get_module_image(r, &u.mi)))
			take_image(l, &u.mi);
		break;
	case SPOOL_REC_ALLOC:
		if (!(ret = spool_get_alloc(r, &u.al)))
			space_log_alloc(&l->space, &u.al);
		break;
	case SPOOL_REC_FREE:
		if (!(ret = spool_get_free(r, &u.fr)))
			space_log_free_rec(&l->space, &u.fr);
		break;
	case SPOOL_REC_ALLOCS:
		ret = take_space(l, r);
		break;
	case SPOOL_REC_CALL_COUNTS:
		if (!(ret = spool_get_call_counts(r, &u.cc)))
			space_log_calls(&l->space, &u.cc);
		break;
	case SPOOL_REC_CALL_ARCS:
		ret = spool_get_call_arcs(r, &u.ca); /* taken in the second pass */
		break;
	case SPOOL_REC_PERF_MAP:
		if (!(ret = spool_get_perf_map(r, &u.pm)))
			take_perf_map(l, &u.pm);
		break;
	case SPOOL_REC_FOOTER:
		if (!(ret = spool_get_footer(r, &p1->footer)))
			l->prof->hdr.complete = true;
		break;
	default:
		break; /* a record type of a later version */
	}
	return ret;
}

static void
first_pass(struct load *l, struct spool_cursor *c, struct pass1 *p1)
{
	struct spool_rec r;
	int st = SPOOL_END;

	while (c->pos < blob_shrunk(l->blob) &&
	       (st = spool_next(c, &r)) == SPOOL_OK) {
		progress(l, 1, &r, c->size);
		drop_behind(l, (size_t)r.offset);
		if (first_pass_record(l, p1, &r) == 0)
			continue;
		if (p1->malformed++ == 0)
			p1->first_malformed = r.offset;
	}
	p1->status = st;
	p1->stop = c->pos;
	if (p1->stop > blob_shrunk(l->blob)) {
		/* Zeros were read for the bytes that shrank away. */
		p1->status = SPOOL_END;
		p1->stop = blob_shrunk(l->blob);
	}
}

/* Footer counters are checked for sense: a writer's counter that
 * underflowed or a damaged footer gives counts no run can have, which
 * summed into the report would swamp every true figure. A count above
 * FOOTER_FACTOR times what the run could have produced, plus
 * FOOTER_SLACK, is corrupt. */
#define FOOTER_FACTOR 4.0
#define FOOTER_SLACK 1000.0
/* The most threads alive at once (the kernel's PID_MAX_LIMIT); a run
 * that saw more must have spent at least FOOTER_THREAD_NS of CPU time on
 * each thread it created. */
#define FOOTER_THREADS_ALIVE 4194304.0
#define FOOTER_THREAD_NS 1000.0

static uint64_t
sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* The records a run can have produced, and so lost: time samples (one per
 * period of CPU time, or of each thread's wall time with the wall clock),
 * with allocation sampling one ALLOC or FREE per nanosecond of CPU time
 * (a malloc takes longer), and the records of its threads. */
static double
records_possible(const struct profile_header *h, uint64_t threads)
{
	double cpu = (double)h->cpu_ns, n = 2.0 * (double)threads;

	if (h->period_ns) {
		double span = cpu;
		uint64_t start = h->start_mono_ns, end = h->end_mono_ns;
		if (h->clock == SPOOL_CLOCK_WALL && start && end > start) {
			double wall = (double)(end - start) *
				      (double)(threads ? threads : 1);
			if (wall > span)
				span = wall;
		}
		n += span / (double)h->period_ns;
	}
	if (h->space.interval)
		n += cpu;
	return FOOTER_FACTOR * n + FOOTER_SLACK;
}

/* Takes the footer's counters that make sense; one warning per one that
 * does not, which is left out (footer_threads 0, drops[c] 0 with its bit
 * in drops_corrupt). Needs take_process first. */
static void
take_footer(struct load *l, const struct spool_footer *f)
{
	struct profile_header *h = &l->prof->hdr;

	h->cpu_ns = sat_add(f->utime_ns, f->stime_ns);
	h->sampled_cpu_ns = h->process_flags & SPOOL_PROCESS_USER_ONLY
				    ? f->utime_ns : h->cpu_ns;
	h->rss_peak = f->rss_peak;
	h->rss_anon = f->rss_anon;
	h->rss_file = f->rss_file;
	h->clone_processes = f->clone_processes;
	h->clone_threads = f->clone_threads;
	h->size_limit = f->size_limit;
	h->size_limit_ns = f->size_limit_ns;
	h->end_reason = f->end_reason;
	h->end_mono_ns = f->end_mono_ns;
	h->end_signal = f->end_signal;
	double threads_max = (double)h->cpu_ns / FOOTER_THREAD_NS;
	if (threads_max < FOOTER_THREADS_ALIVE)
		threads_max = FOOTER_THREADS_ALIVE;
	h->footer_threads = f->threads;
	if ((double)f->threads > threads_max) {
		diag_warn("%s: corrupt footer: thread count %u is more than "
			  "the run can have had (at most %.0f); left out",
			  l->path, f->threads, threads_max);
		h->footer_threads = 0;
	}
	uint64_t threads = h->footer_threads > l->prof->nthreads ?
				   h->footer_threads : l->prof->nthreads;
	double most = records_possible(h, threads);
	for (uint32_t c = 1; c < SPOOL_DROP_MAX_; c++) {
		h->drops[c] = f->drops[c];
		if ((double)f->drops[c] <= most)
			continue;
		diag_warn("%s: corrupt footer: drop count %s %llu is more than "
			  "the run can have lost (at most %.0f); left out",
			  l->path, spool_drop_name(c),
			  (unsigned long long)f->drops[c], most);
		h->drops[c] = 0;
		h->drops_corrupt |= 1u << c;
	}
}

/* One warning per kind of damage the first pass found. */
static void
report_damage(const struct load *l, const struct pass1 *p1)
{
	const char *path = l->path;
	unsigned long long n = (unsigned long long)p1->samples;

	if (p1->status == SPOOL_TRUNCATED)
		diag_warn("%s: truncated record at offset %zu (report covers "
			  "%llu samples)", path, p1->stop, n);
	else if (p1->status == SPOOL_CORRUPT)
		diag_warn("%s: corrupt record length at offset %zu (report "
			  "covers %llu samples)", path, p1->stop, n);
	if (p1->malformed)
		diag_warn("%s: %llu malformed records skipped, the first at "
			  "offset %llu", path,
			  (unsigned long long)p1->malformed,
			  (unsigned long long)p1->first_malformed);
	if (!l->prof->hdr.complete)
		diag_warn("%s: no footer, the program was killed or is still "
			  "running; CPU totals unknown", path);
	else if (p1->footer.samples != p1->sample_recs)
		diag_warn("%s: the footer counts %llu samples but %llu were "
			  "read", path, (unsigned long long)p1->footer.samples,
			  (unsigned long long)p1->sample_recs);
}

/* A spool that shrank under the mapping while it was read (blob.h):
 * the records from there on were not read, or read as zeros. */
static void
report_shrunk(const struct load *l)
{
	size_t at = blob_shrunk(l->blob);
	if (at == SIZE_MAX)
		return;
	diag_warn("%s: the file shrank while it was read (at offset %zu); "
		  "the report covers the %llu samples before it", l->path, at,
		  (unsigned long long)l->prof->hdr.samples);
}

static uint32_t
pseudo_func(struct load *l, uint32_t *slot, const char *name, uint32_t flags)
{
	if (*slot == PROFILE_NONE)
		*slot = profile_add_func(l->prof, PROFILE_NONE, name, 0, flags);
	return *slot;
}

/* Resolves a sample's PCs into l->stack, outermost caller first, a PC in
 * inlined code giving a frame per inlined call after its function's
 * (resolver_frames). A stack known to be cut short starts with a pseudo
 * function, so its partial paths do not pass for complete ones in the
 * tree. Returns the length. */
static size_t
build_stack(struct load *l, const struct spool_sample *s)
{
	size_t n = 0;
	xgrow(&l->stack, &l->stack_cap, (size_t)s->depth + 1, sizeof(*l->stack));
	if (s->flags & SPOOL_SAMPLE_TRUNCATED)
		l->stack[n++] = pseudo_func(l, &l->pseudo_truncated,
					    "[truncated stack]",
					    PROFILE_FUNC_PSEUDO);
	else if (s->flags & SPOOL_SAMPLE_UNWIND_ERR)
		l->stack[n++] = pseudo_func(l, &l->pseudo_unwind,
					    "[incomplete stack]",
					    PROFILE_FUNC_PSEUDO);
	if (s->depth == 0) {
		l->stack[n++] = pseudo_func(l, &l->no_frames, "[no frames]",
					    PROFILE_FUNC_UNNAMED);
		return n;
	}
	for (uint32_t i = s->depth; i-- > 0;) {
		size_t k;
		const uint32_t *fr = resolver_frames(l->res,
						     spool_sample_pc(s, i),
						     s->time_ns, i > 0, &k);
		if (k == 1) {
			l->stack[n++] = fr[0];
			continue;
		}
		/* Room for the PCs still to come, one frame each. */
		xgrow(&l->stack, &l->stack_cap, n + k + i + 1,
		      sizeof(*l->stack));
		memcpy(l->stack + n, fr, k * sizeof(*fr));
		n += k;
	}
	return n;
}

/* A CALL_ARCS record of a wanted thread: each arc's callee is resolved
 * from its entry address (not a return address), its caller from the
 * return address into it, at the time the record was written. Both are
 * functions of symbols, never inlined frames: the hooks of an inlined
 * function are called from its inlined code, whose innermost frame is
 * itself. */
static void
take_arcs(struct load *l, const struct spool_rec *r,
	  const struct loader_opts *opts)
{
	struct spool_call_arcs ca;
	if (spool_get_call_arcs(r, &ca) != 0 ||
	    (opts && !thread_wanted(l, opts, ca.tid)))
		return;
	l->prof->hdr.calls_missed = sat_add(l->prof->hdr.calls_missed,
					    ca.missed);
	for (uint32_t i = 0; i < ca.n; i++) {
		struct spool_call_arc a = spool_call_arc_at(&ca, i);
		if (!a.count)
			continue;
		uint32_t callee = resolver_pc(l->res, a.fn, ca.time_ns, false);
		uint32_t caller = a.site ? resolver_pc(l->res, a.site,
						       ca.time_ns, true)
					 : PROFILE_NONE;
		profile_add_calls(l->prof, caller, callee, a.count);
	}
}

static void
call_hook(const struct load *l, const struct loader_opts *opts,
	  const struct spool_sample *s, const uint32_t *stack, size_t n,
	  uint64_t weight, uint64_t count, uint64_t key)
{
	if (!opts || !opts->sample_hook)
		return;
	struct loader_sample ls = {
		.prof = l->prof, .map = &l->map, .s = s, .stack = stack,
		.n = n, .weight = weight, .count = count, .stack_key = key,
	};
	opts->sample_hook(opts->sample_hook_arg, &ls);
}

/* Whether a sample taken at time_ns is inside --from/--to. */
static bool
in_window(const struct load *l, const struct loader_opts *opts,
	  uint64_t time_ns)
{
	if (!opts || !opts->window)
		return true;
	uint64_t start = l->prof->hdr.start_mono_ns;
	uint64_t t = time_ns > start ? time_ns - start : 0;
	return t >= opts->from_ns && t < opts->to_ns;
}

/* Adds one time sample to the profile; idx is the stack it refers to
 * (stack_index), UINT64_MAX for none. */
static void
take_sample(struct load *l, const struct spool_sample *s, uint64_t idx,
	    const struct loader_opts *opts)
{
	struct profile *p = l->prof;
	if (!in_window(l, opts, s->time_ns))
		return;
	size_t n = build_stack(l, s);
	/* A sample without a weight stands for one period. */
	uint64_t w = s->weight ? s->weight : p->hdr.period_ns;
	profile_add_sample(p, l->stack, n, profile_thread(p, s->tid), w,
			   s->flags);
	call_hook(l, opts, s, l->stack, n, w, 1,
		  l->aggregate && idx != UINT64_MAX ? idx + 1 : 0);
}

/* A sample of stack idx, summed into its total, passed on to a hook that
 * wants each one (hook_each), with the stack's functions resolved the
 * first time and kept. */
static void
hook_summed(struct load *l, uint64_t idx, uint64_t time_ns, uint64_t w,
	    const struct loader_opts *opts)
{
	const struct loader_stack *st = &l->stacks[idx];
	struct spool_sample s = {
		.time_ns = time_ns, .tid = l->tid, .kind = SPOOL_SAMPLE_TIME,
		.weight = w, .flags = st->flags, .depth = st->depth,
		.pcs_raw = l->pcs + st->off,
	};
	xgrow_zeroed(&l->built, &l->built_cap, idx + 1, sizeof(*l->built));
	if (!l->built[idx]) {
		size_t n = build_stack(l, &s);
		xgrow(&l->built_funcs, &l->built_funcs_cap,
		      l->nbuilt_funcs + n + 1, sizeof(*l->built_funcs));
		l->built[idx] = l->nbuilt_funcs + 1;
		l->built_funcs[l->nbuilt_funcs++] = (uint32_t)n;
		memcpy(l->built_funcs + l->nbuilt_funcs, l->stack,
		       n * sizeof(*l->stack));
		l->nbuilt_funcs += n;
	}
	const uint32_t *f = l->built_funcs + l->built[idx] - 1;
	call_hook(l, opts, &s, f + 1, f[0], w, 1, idx + 1);
}

/* A new (stack, thread) total, whose first sample at time_ns is added as
 * it comes. Returns its index + 1. */
static uint64_t
new_agg(struct load *l, uint64_t idx, uint32_t thread, uint64_t time_ns)
{
	xgrow(&l->aggs, &l->aggs_cap, l->naggs + 1, sizeof(*l->aggs));
	l->aggs[l->naggs] = (struct loader_agg){
		.stack = (uint32_t)idx, .thread = thread, .time_ns = time_ns };
	return ++l->naggs;
}

/* With l->aggregate: true when the sample of stack idx was summed into
 * its (stack, thread) total, false when it is the first and must be
 * added as it is. *threadp is the index of the record's thread, found
 * on first need (PROFILE_NONE before), so threads are made in the same
 * order as a sample at a time would make them. */
static bool
aggregated(struct load *l, uint64_t idx, uint32_t *threadp, uint64_t time_ns,
	   uint64_t weight, const struct loader_opts *opts)
{
	if (!l->aggregate || !in_window(l, opts, time_ns))
		return false;
	struct profile *p = l->prof;
	if (*threadp == PROFILE_NONE)
		*threadp = profile_thread(p, l->tid);
	uint32_t thread = *threadp;
	uint64_t w = weight ? weight : p->hdr.period_ns;
	double var = (double)w * (double)w;
	struct loader_sum *sum = &l->sums[idx];
	if (sum->agg && sum->thread == thread) {
		sum->weight += w;
		sum->var += var;
		sum->count++;
		if (l->hook_each)
			hook_summed(l, idx, time_ns, w, opts);
		return true;
	}
	if (!sum->agg && l->naggs + 1 < UINT32_MAX) {
		sum->agg = (uint32_t)new_agg(l, idx, thread, time_ns);
		sum->thread = thread;
		return false;
	}
	bool found;
	uint64_t *v = hmap_ref(&l->agg_ids, idx << 32 | thread, &found);
	if (!found) {
		*v = new_agg(l, idx, thread, time_ns);
		return false;
	}
	struct loader_agg *a = &l->aggs[*v - 1];
	a->weight += w;
	a->var += var;
	a->count++;
	if (l->hook_each)
		hook_summed(l, idx, time_ns, w, opts);
	return true;
}

/* Adds the summed samples, each (stack, thread) resolved once, in the
 * order of their first samples. */
static void
flush_aggregates(struct load *l, const struct loader_opts *opts)
{
	for (size_t i = 0; i < l->naggs; i++) {
		struct loader_agg *a = &l->aggs[i];
		const struct loader_sum *sum = &l->sums[a->stack];
		if (sum->agg == i + 1) {
			a->weight = sum->weight;
			a->var = sum->var;
			a->count = sum->count;
		}
		if (!a->count)
			continue;
		const struct loader_stack *ls = &l->stacks[a->stack];
		struct spool_sample s = {
			.time_ns = a->time_ns, .kind = SPOOL_SAMPLE_TIME,
			.flags = ls->flags, .depth = ls->depth,
			.pcs_raw = l->pcs + ls->off,
		};
		size_t n = build_stack(l, &s);
		profile_add_samples(l->prof, l->stack, n, a->thread, a->weight,
				    a->var, a->count, s.flags);
		if (opts && opts->sample_hook_sums) {
			s.tid = l->prof->threads[a->thread].tid;
			call_hook(l, opts, &s, l->stack, n, a->weight, a->count,
				  a->stack + 1);
		}
	}
}

/* The index of the stack entry e of stream refers to, UINT64_MAX when
 * it refers to none (or defines a stack of its own, id 0). st is the
 * stream's dense ids, or NULL. */
static uint64_t
stack_index(const struct load *l, const struct loader_stream *st,
	    uint32_t stream, const struct spool_entry *e)
{
	uint64_t idx;
	if (st && e->id < st->n && st->idx[e->id])
		return st->idx[e->id] - 1;
	if (!e->id ||
	    !hmap_get(&l->stack_ids, (uint64_t)stream << 32 | e->id, &idx))
		return UINT64_MAX;
	return idx;
}

/* Gives s the stack of entry e, idx from stack_index: false when e
 * refers to a stack never defined (counted) or its own does not decode. */
static bool
entry_stack(struct load *l, const struct spool_entry *e, uint64_t idx,
	    struct spool_sample *s)
{
	if (idx != UINT64_MAX) {
		const struct loader_stack *ls = &l->stacks[idx];
		s->flags = ls->flags;
		s->depth = ls->depth;
		s->pcs_raw = l->pcs + ls->off;
		return true;
	}
	if (e->define && !e->id) {
		size_t at = l->pcs_len; /* scratch after the kept PCs */
		if (decode_pcs(l, e) != 0)
			return false;
		s->flags = e->flags;
		s->depth = e->depth;
		s->pcs_raw = l->pcs + at;
		return true;
	}
	l->unknown_stacks++;
	return false;
}

/* One entry of a SAMPLES record of thread tid, of stack idx (from
 * stack_index), read like a SAMPLE record. */
static void
take_entry(struct load *l, uint32_t tid, const struct spool_entry *e,
	   uint64_t idx, uint32_t *thread, const struct loader_opts *opts)
{
	struct spool_sample s = {
		.time_ns = e->time_ns, .tid = tid,
		.kind = SPOOL_SAMPLE_TIME, .weight = e->weight,
	};
	if (idx != UINT64_MAX &&
	    aggregated(l, idx, thread, e->time_ns, e->weight, opts))
		return;
	if (entry_stack(l, e, idx, &s))
		take_sample(l, &s, idx, opts);
}

/* How many entries take_entries decodes ahead of the one it adds: their
 * totals (l->sums) are fetched into the cache meanwhile, as the stacks
 * of a large profile are a random walk over more than the caches hold. */
#define LOADER_AHEAD 4

/* The samples of a SAMPLES record, each read like a SAMPLE record. */
static void
take_entries(struct load *l, const struct spool_rec *r,
	     const struct loader_opts *opts)
{
	struct spool_samples h;
	struct spool_entry_cursor c;
	struct { struct spool_entry e; uint64_t idx; } q[LOADER_AHEAD];
	size_t head = 0, n = 0;
	bool more = true;

	if (spool_get_samples(r, &h) != 0 ||
	    (opts && !thread_wanted(l, opts, h.tid)))
		return;
	/* Once per record, not per sample: */
	uint32_t thread = PROFILE_NONE;
	l->tid = h.tid;
	uint64_t sv;
	const struct loader_stream *st =
		hmap_get(&l->stream_ids, h.stream, &sv) ? &l->streams[sv] : NULL;
	spool_entries_begin(&c, &h);
	for (;;) {
		for (; more && n < LOADER_AHEAD; n++) {
			size_t k = (head + n) % LOADER_AHEAD;
			if (spool_entries_next(&c, &q[k].e) != 1) {
				more = false;
				break;
			}
			q[k].idx = stack_index(l, st, h.stream, &q[k].e);
			if (q[k].idx != UINT64_MAX)
				__builtin_prefetch(&l->sums[q[k].idx], 1);
		}
		if (!n)
			break;
		take_entry(l, h.tid, &q[head].e, q[head].idx, &thread, opts);
		head = (head + 1) % LOADER_AHEAD;
		n--;
	}
}

static void
warn_unknown_stacks(const struct load *l)
{
	if (l->unknown_stacks)
		diag_warn("%s: %llu samples refer to stacks the spool does not "
			  "define; left out", l->path,
			  (unsigned long long)l->unknown_stacks);
}

static void
second_pass(struct load *l, struct spool_cursor *c, size_t stop,
	    const struct loader_opts *opts)
{
	struct spool_rec r;
	struct spool_sample s;

	while (c->pos < stop && c->pos < blob_shrunk(l->blob) &&
	       spool_next(c, &r) == SPOOL_OK) {
		progress(l, 2, &r, stop);
		drop_behind(l, (size_t)r.offset);
		if (r.type == SPOOL_REC_CALL_ARCS) {
			take_arcs(l, &r, opts);
			continue;
		}
		if (r.type == SPOOL_REC_SAMPLES) {
			take_entries(l, &r, opts);
			continue;
		}
		if (r.type != SPOOL_REC_SAMPLE || spool_get_sample(&r, &s) != 0 ||
		    s.kind != SPOOL_SAMPLE_TIME ||
		    (opts && !thread_wanted(l, opts, s.tid)))
			continue;
		take_sample(l, &s, UINT64_MAX, opts);
	}
	flush_aggregates(l, opts);
	warn_unknown_stacks(l);
}

/* Adds a sampled allocation of size bytes, read as the SAMPLE s, to a
 * space profile. */
static void
take_alloc(struct load *l, const struct spool_sample *s, uint64_t size,
	   const struct loader_opts *opts)
{
	struct profile *p = l->prof;
	size_t n = build_stack(l, s);
	profile_add_samples(p, l->stack, n, profile_thread(p, s->tid),
			    s->weight, space_sample_var(s->weight, size), 1,
			    s->flags);
	call_hook(l, opts, s, l->stack, n, s->weight, 1, 0);
}

/* The allocations of an ALLOCS record that the view selected, *k counting
 * the allocations read so far, as second_pass_space: the entries read
 * here are those take_space logged, as both stop at the same one. */
static void
take_space_entries(struct load *l, const struct spool_rec *r,
		   const bool *selected, size_t *k,
		   const struct loader_opts *opts)
{
	struct spool_allocs h;
	struct spool_space_cursor c;
	struct spool_space_entry e;
	if (spool_get_allocs(r, &h) != 0)
		return;
	uint64_t sv;
	const struct loader_stream *st =
		hmap_get(&l->stream_ids, h.stream, &sv) ? &l->streams[sv] : NULL;
	bool wanted = !opts || thread_wanted(l, opts, h.tid);
	spool_space_begin(&c, &h);
	while (spool_space_next(&c, &e) == 1) {
		if (e.release || !selected[(*k)++] || !wanted ||
		    !in_window(l, opts, e.time_ns))
			continue;
		struct spool_sample s = { .time_ns = e.time_ns, .tid = h.tid,
					  .weight = e.weight };
		if (entry_stack(l, &e.stack,
				stack_index(l, st, h.stream, &e.stack), &s))
			take_alloc(l, &s, e.size, opts);
	}
}

/* The second pass of a space profile: the sampled allocations the view
 * selected (selected[k] for the k-th allocation that decodes, of an ALLOC
 * record or an ALLOCS entry), with their weights in bytes. An ALLOC's
 * stack reads like a SAMPLE's, an ALLOCS entry's like a SAMPLES entry's. */
static void
second_pass_space(struct load *l, struct spool_cursor *c, size_t stop,
		  const bool *selected, const struct loader_opts *opts)
{
	struct spool_rec r;
	struct spool_alloc a;
	size_t k = 0;

	while (c->pos < stop && c->pos < blob_shrunk(l->blob) &&
	       spool_next(c, &r) == SPOOL_OK) {
		drop_behind(l, (size_t)r.offset);
		if (r.type == SPOOL_REC_CALL_ARCS) {
			take_arcs(l, &r, opts);
			continue;
		}
		if (r.type == SPOOL_REC_ALLOCS) {
			take_space_entries(l, &r, selected, &k, opts);
			continue;
		}
		if (r.type != SPOOL_REC_ALLOC || spool_get_alloc(&r, &a) != 0 ||
		    !selected[k++] || (opts && !thread_wanted(l, opts, a.tid)) ||
		    !in_window(l, opts, a.time_ns))
			continue;
		struct spool_sample s = {
			.time_ns = a.time_ns, .tid = a.tid,
			.flags = spool_alloc_stack_flags(a.flags),
			.weight = a.weight, .depth = a.depth,
			.pcs_raw = a.pcs_raw,
		};
		take_alloc(l, &s, a.size, opts);
	}
	warn_unknown_stacks(l);
}

/* Whether each allocation of the log is of the threads and the window
 * that --thread and --from/--to select; NULL when they select none. */
static bool *
select_allocs(struct load *l, const struct loader_opts *opts)
{
	const struct space_log *log = &l->space;
	if (!opts->window && !opts->nthreads)
		return NULL;
	bool *sel = xcalloc(log->nallocs + 1, sizeof(*sel));
	for (size_t i = 0; i < log->nallocs; i++)
		sel[i] = thread_wanted(l, opts, log->allocs[i].tid) &&
			 in_window(l, opts, log->allocs[i].time_ns);
	return sel;
}

/* A space profile's header describes what --thread and --from/--to
 * select (sel, select_allocs'; NULL: all): the allocations, the bytes
 * allocated, the expected errors and the blocks freed are theirs
 * (in_view[i]: the view selects allocation i); the allocations the
 * spool holds stay the run's (alloc_records). */
static void
take_selection(struct load *l, const bool *sel, const bool *in_view)
{
	const struct space_log *log = &l->space;
	struct profile_header *h = &l->prof->hdr;
	struct profile_space *s = &h->space;
	h->window_allocs = log->nallocs;
	if (!sel)
		return;
	uint64_t *ended = space_log_lifetimes(log);
	h->window_allocs = 0;
	s->alloc_bytes = s->alloc_var = s->view_var = 0;
	s->matched_frees = 0;
	for (size_t i = 0; i < log->nallocs; i++) {
		const struct space_alloc_ev *a = &log->allocs[i];
		if (!sel[i])
			continue;
		double var = space_sample_var(a->weight, a->size);
		h->window_allocs++;
		s->alloc_bytes += (double)a->weight;
		s->alloc_var += var;
		s->view_var += in_view[i] ? var : 0;
		s->matched_frees += ended[i] != UINT64_MAX &&
				    !(a->flags & SPOOL_ALLOC_UNTRACKED);
	}
	free(ended);
}

/* Time or space, and for space the view's selection (NULL for time). */
static bool *
choose_kind(struct load *l, const struct pass1 *p1,
	    const struct loader_opts *opts)
{
	struct profile *p = l->prof;
	enum loader_kind kind = opts ? opts->kind : LOADER_KIND_AUTO;
	if (kind == LOADER_KIND_AUTO)
		kind = p1->samples == 0 && l->space.nallocs ? LOADER_KIND_SPACE
							    : LOADER_KIND_TIME;
	for (size_t i = 0; i < l->space.nthreads; i++) {
		const struct space_thread_calls *tc = &l->space.threads[i];
		/* The index first: profile_thread may move the array. */
		uint32_t idx = profile_thread(p, tc->tid);
		struct profile_thread *t = &p->threads[idx];
		t->has_calls = true;
		memcpy(t->calls, tc->calls, sizeof(t->calls));
		for (int id = 0; id < SPOOL_ALLOC_FN_MAX_; id++)
			p->hdr.space.calls[id] += tc->calls[id];
	}
	p->hdr.space.has_calls = l->space.has_calls;
	if (kind != LOADER_KIND_SPACE)
		return NULL;
	p->hdr.kind = PROFILE_KIND_SPACE;
	enum profile_space_view view = opts ? opts->space_view :
					      PROFILE_SPACE_ALLOC;
	bool *sel = space_log_select(&l->space, view, &p->hdr.space);
	if (p->hdr.space.untracked && view != PROFILE_SPACE_ALLOC)
		diag_warn("%s: %llu sampled allocations could not be tracked "
			  "to their frees and are left out", l->path,
			  (unsigned long long)p->hdr.space.untracked);
	return sel;
}

struct profile *
loader_read(const char *path, const struct loader_opts *opts)
{
	struct blob b;
	struct spool_cursor c;
	struct pass1 p1;
	struct load l = {
		.path = path,
		.pseudo_truncated = PROFILE_NONE,
		.pseudo_unwind = PROFILE_NONE,
		.no_frames = PROFILE_NONE,
	};

	if (blob_open_spool(path, &b, &c) < 0)
		return NULL;
	l.blob = &b;
	memset(&p1, 0, sizeof(p1));
	l.progress = opts && opts->progress;
	l.aggregate = true;
	l.hook_each = opts && opts->sample_hook && !opts->sample_hook_sums;
	l.t0_ns = now_ns();
	l.prof = profile_new(PROFILE_KIND_TIME);
	modmap_init(&l.map);
	first_pass(&l, &c, &p1);
	progress_end(&l); /* (before any warning) */
	if (l.prof->hdr.complete)
		take_footer(&l, &p1.footer);
	report_damage(&l, &p1);

	bool *selected = choose_kind(&l, &p1, opts);
	/* The allocations --thread and --from/--to select (NULL: all). */
	bool *chosen = opts ? select_allocs(&l, opts) : NULL;
	if (opts && opts->space_hook)
		opts->space_hook(opts->space_hook_arg, &l.space, chosen);
	if (opts && opts->window) {
		l.prof->hdr.window = true;
		l.prof->hdr.window_from_ns = opts->from_ns;
		l.prof->hdr.window_to_ns = opts->to_ns;
	}
	attach_images(&l);
	modmap_seal(&l.map);
	seal_perf_map(&l);
	l.res = resolver_new(&l.map, l.prof, opts ? &opts->resolve : NULL);
	resolver_set_perfmap(l.res, l.perfmap);
	spool_cursor_init(&c, b.data, b.size);
	l.dropped = 0;
	l.prof->hdr.run_samples = p1.samples;
	if (selected) {
		second_pass_space(&l, &c, p1.stop, selected, opts);
		take_selection(&l, chosen, selected);
	} else {
		second_pass(&l, &c, p1.stop, opts);
	}
	progress_end(&l);
	report_shrunk(&l);
	for (size_t i = 0; opts && opts->nthreads && i < l.prof->nthreads; i++)
		l.prof->threads[i].excluded =
			!thread_wanted(&l, opts, l.prof->threads[i].tid);
	resolver_finish(l.res);
	/* The resolver's caches (an entry per distinct PC) and the mapped
	 * spool go before profile_finish() builds the call graph, the
	 * peak of memory. */
	resolver_free(l.res);
	perfmap_free(l.perfmap);
	modmap_free(&l.map);
	free(l.stack);
	free(l.images);
	hmap_free(&l.stack_ids);
	hmap_free(&l.stream_ids);
	for (size_t i = 0; i < l.nstreams; i++)
		free(l.streams[i].idx);
	free(l.streams);
	hmap_free(&l.agg_ids);
	free(l.built);
	free(l.built_funcs);
	free(l.aggs);
	free(l.stacks);
	free(l.sums);
	free(l.pcs);
	free(l.tmp);
	free(selected);
	free(chosen);
	space_log_free(&l.space);
	blob_close(&b);
	profile_finish(l.prof);
	return l.prof;
}
