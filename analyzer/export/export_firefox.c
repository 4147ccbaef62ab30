/*
 * export_firefox: the Gecko profile format (profanalyze --format=firefox),
 * which the Firefox Profiler (profiler.firefox.com) imports: the format
 * the Gecko Profiler itself writes, version 27, as documented by the
 * Firefox Profiler (docs-developer/gecko-profile-format.md and
 * src/types/gecko-profile.ts there).
 *
 * Each thread (of each spool) is one thread of the profile with its own
 * string, frame and stack tables: a frame per function it ran (its label,
 * already symbolicated: meta.presymbolicated), a stack per node of the
 * report's tree its samples reached (prefix: the parent's stack), and
 * its samples in time order as (stack, time in milliseconds since
 * meta.startTime, event delay 0, threadCPUDelta), threadCPUDelta being
 * the CPU nanoseconds the sample stands for (0 for a sample of blocked
 * time, --clock=wall), so that the profiler draws each track's CPU use.
 * Times are CLOCK_MONOTONIC from the first sample; meta.startTime is that
 * moment in milliseconds since the epoch when the spool says (its
 * PROCESS record's clocks), else 0.
 *
 * Gecko profiles have no weights but CPU time, so a space profile is not
 * exported (an error says so).
 */
#include "export.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "json.h"
#include "spool.h"
#include "timeline.h"
#include "xmalloc.h"

#define GECKO_VERSION 27

/* Per thread: the stack and frame of each node and function reached,
 * UINT32_MAX when none yet. */
struct gthread {
	uint32_t *stack_of; /* by node */
	uint32_t *frame_of; /* by function */
	uint32_t *stack_node; /* by stack: its node */
	uint32_t *frame_func; /* by frame: its function */
	size_t nstacks, nframes;
};

static uint32_t
frame(struct gthread *g, uint32_t func)
{
	if (g->frame_of[func] == UINT32_MAX) {
		g->frame_func[g->nframes] = func;
		g->frame_of[func] = (uint32_t)g->nframes++;
	}
	return g->frame_of[func];
}

/* The stack of node, made (with its parents') when new. Parents are made
 * first, so a stack's prefix is always below it. */
static uint32_t
stack(struct gthread *g, const struct profile *p, uint32_t node)
{
	if (g->stack_of[node] != UINT32_MAX)
		return g->stack_of[node];
	uint32_t parent = p->nodes[node].parent;
	if (parent != PROFILE_ROOT && parent != PROFILE_NONE)
		stack(g, p, parent);
	frame(g, p->nodes[node].func);
	g->stack_node[g->nstacks] = node;
	g->stack_of[node] = (uint32_t)g->nstacks++;
	return g->stack_of[node];
}

static void
write_meta(struct json *j, const struct profile *p, const struct timeline *t)
{
	const struct profile_header *h = &p->hdr;
	double start_ms = 0;

	if (h->start_realtime_ns && h->start_mono_ns && t->nsamples)
		start_ms = ((double)h->start_realtime_ns +
			    ((double)t->start_ns - (double)h->start_mono_ns)) /
			   1e6;
	json_key(j, "meta");
	json_begin_object(j);
	json_key(j, "version");
	json_uint(j, GECKO_VERSION);
	json_key(j, "startTime");
	json_double(j, start_ms, 3);
	json_key(j, "shutdownTime");
	json_null(j);
	json_key(j, "interval");
	json_double(j, h->has_process && h->period_ns ?
			       (double)h->period_ns / 1e6 : 1.0, 6);
	json_key(j, "stackwalk");
	json_uint(j, 1);
	json_key(j, "debug");
	json_uint(j, 0);
	json_key(j, "gcpoison");
	json_uint(j, 0);
	json_key(j, "asyncstack");
	json_uint(j, 0);
	json_key(j, "processType");
	json_uint(j, 0);
	json_key(j, "product");
	json_string(j, h->exe ? h->exe : "profanalyze");
	json_key(j, "presymbolicated");
	json_bool(j, true);
	json_key(j, "sampleUnits");
	json_begin_object(j);
	json_key(j, "time");
	json_string(j, "ms");
	json_key(j, "eventDelay");
	json_string(j, "ms");
	json_key(j, "threadCPUDelta");
	json_string(j, "ns");
	json_end_object(j);
	json_key(j, "categories");
	json_begin_array(j);
	json_begin_object(j);
	json_key(j, "name");
	json_string(j, "Other");
	json_key(j, "color");
	json_string(j, "grey");
	json_key(j, "subcategories");
	json_begin_array(j);
	json_string(j, "Other");
	json_end_array(j);
	json_end_object(j);
	json_end_array(j);
	json_key(j, "markerSchema");
	json_begin_array(j);
	json_end_array(j);
	json_end_object(j);
}

/* A table's schema: names[i] is column i. */
static void
write_schema(struct json *j, const char *const *names, size_t n)
{
	json_key(j, "schema");
	json_begin_object(j);
	for (size_t i = 0; i < n; i++) {
		json_key(j, names[i]);
		json_uint(j, i);
	}
	json_end_object(j);
}

/* The rows of the samples, frame and stack tables are written one per
 * line by hand (the indenting writer would give each number a line). */
static void
write_samples(struct json *j, const struct profile *p,
	      const struct timeline *t, uint32_t track, struct gthread *g)
{
	static const char *const cols[] = { "stack", "time", "eventDelay",
					    "threadCPUDelta" };
	bool first = true;

	json_key(j, "samples");
	json_begin_object(j);
	write_schema(j, cols, 4);
	json_key(j, "data");
	fputs("[", j->out);
	for (size_t i = 0; i < t->nsamples; i++) {
		const struct timeline_sample *s = &t->samples[i];
		if (s->track != track)
			continue;
		bool off = s->flags & SPOOL_SAMPLE_OFF_CPU;
		fprintf(j->out, "%s\n[", first ? "" : ",");
		if (s->node == PROFILE_ROOT)
			fputs("null", j->out);
		else
			fprintf(j->out, "%" PRIu32, stack(g, p, s->node));
		fprintf(j->out, ",%.6f,0,%" PRIu64 "]",
			(double)(s->time_ns - t->start_ns) / 1e6,
			off ? 0 : s->weight);
		first = false;
	}
	fputs("]", j->out);
	j->after_key = false;
	json_end_object(j);
}

static void
write_tables(struct json *j, const struct profile *p, struct gthread *g)
{
	static const char *const fcols[] = {
		"location", "relevantForJS", "innerWindowID", "implementation",
		"line", "column", "category", "subcategory",
	};
	static const char *const scols[] = { "prefix", "frame" };

	json_key(j, "frameTable");
	json_begin_object(j);
	write_schema(j, fcols, 8);
	json_key(j, "data");
	fputs("[", j->out);
	for (size_t i = 0; i < g->nframes; i++) {
		const struct profile_func *f = &p->funcs[g->frame_func[i]];
		fprintf(j->out, "%s\n[%zu,false,null,null,", i ? "," : "", i);
		if (f->file)
			fprintf(j->out, "%" PRIu32, f->line);
		else
			fputs("null", j->out);
		fputs(",null,0,0]", j->out);
	}
	fputs("]", j->out);
	j->after_key = false;
	json_end_object(j);
	json_key(j, "stackTable");
	json_begin_object(j);
	write_schema(j, scols, 2);
	json_key(j, "data");
	fputs("[", j->out);
	for (size_t i = 0; i < g->nstacks; i++) {
		uint32_t node = g->stack_node[i];
		uint32_t parent = p->nodes[node].parent;
		fprintf(j->out, "%s\n[", i ? "," : "");
		if (parent == PROFILE_ROOT || parent == PROFILE_NONE)
			fputs("null", j->out);
		else
			fprintf(j->out, "%" PRIu32, g->stack_of[parent]);
		fprintf(j->out, ",%" PRIu32 "]", g->frame_of[p->nodes[node].func]);
	}
	fputs("]", j->out);
	j->after_key = false;
	json_end_object(j);
	/* Frame i's location is string i: the frames' names, in order. */
	json_key(j, "stringTable");
	json_begin_array(j);
	for (size_t i = 0; i < g->nframes; i++) {
		const struct profile_func *f = &p->funcs[g->frame_func[i]];
		json_string(j, f->label ? f->label : f->name);
	}
	json_end_array(j);
}

static void
write_thread(struct json *j, const struct profile *p,
	     const struct timeline *t, uint32_t track)
{
	const struct timeline_track *k = &t->tracks[track];
	struct gthread g = {
		.stack_of = xmalloc(p->nnodes * sizeof(uint32_t)),
		.frame_of = xmalloc((p->nfuncs + 1) * sizeof(uint32_t)),
		.stack_node = xmalloc(p->nnodes * sizeof(uint32_t)),
		.frame_func = xmalloc((p->nfuncs + 1) * sizeof(uint32_t)),
	};
	memset(g.stack_of, 0xff, p->nnodes * sizeof(uint32_t));
	memset(g.frame_of, 0xff, (p->nfuncs + 1) * sizeof(uint32_t));

	json_begin_object(j);
	json_key(j, "name");
	json_string(j, k->name ? k->name : "thread");
	json_key(j, "processType");
	json_string(j, "default");
	json_key(j, "processName");
	json_string(j, p->hdr.exe ? p->hdr.exe : "");
	json_key(j, "registerTime");
	json_uint(j, 0);
	json_key(j, "unregisterTime");
	json_null(j);
	json_key(j, "tid");
	json_uint(j, k->tid);
	json_key(j, "pid");
	json_uint(j, k->pid);
	json_key(j, "markers");
	json_begin_object(j);
	static const char *const mcols[] = { "name", "startTime", "endTime",
					     "phase", "category", "data" };
	write_schema(j, mcols, 6);
	json_key(j, "data");
	json_begin_array(j);
	json_end_array(j);
	json_end_object(j);
	/* (Samples first: they make the stacks and frames.) */
	write_samples(j, p, t, track, &g);
	write_tables(j, p, &g);
	json_end_object(j);
	free(g.stack_of);
	free(g.frame_of);
	free(g.stack_node);
	free(g.frame_func);
}

int
export_firefox_write(FILE *out, const struct profile *p,
		     const struct export_opts *opts)
{
	const struct timeline *t = opts->timeline;
	struct json j;

	if (p->hdr.kind == PROFILE_KIND_SPACE) {
		diag_error("%s: --format=firefox exports time profiles only "
			   "(a Gecko profile has no bytes); this is a space "
			   "profile", opts->name ? opts->name : "profile");
		return -1;
	}
	json_init(&j, out);
	json_begin_object(&j);
	write_meta(&j, p, t);
	json_key(&j, "libs");
	json_begin_array(&j);
	json_end_array(&j);
	json_key(&j, "pausedRanges");
	json_begin_array(&j);
	json_end_array(&j);
	json_key(&j, "processes");
	json_begin_array(&j);
	json_end_array(&j);
	json_key(&j, "threads");
	json_begin_array(&j);
	for (uint32_t k = 0; k < t->ntracks; k++)
		write_thread(&j, p, t, k);
	json_end_array(&j);
	json_end_object(&j);
	json_finish(&j);
	return 0;
}
