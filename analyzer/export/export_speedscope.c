/*
 * export_speedscope: speedscope's file format (profanalyze
 * --format=speedscope), https://www.speedscope.app/file-format-schema.json.
 *
 * Frames are the profile's functions (their labels). Each thread (of each
 * spool) is one "sampled" profile: its samples in time order, each the
 * stack of its node in the report's tree, root first, with its weight.
 * So that speedscope's time-order view shows when a thread ran, a time
 * sample stands for the interval of its weight that ends at its time,
 * and the time between such intervals is an empty stack; the profile's
 * startValue and endValue (nanoseconds from the first sample of all
 * threads) bound them, so its weights add up to endValue - startValue as
 * speedscope expects. A space profile's samples are bytes, one after
 * the other in the order they were allocated.
 */
#include "export.h"

#include <inttypes.h>
#include <stdlib.h>

#include "json.h"
#include "timeline.h"
#include "xmalloc.h"

struct stack_buf {
	uint32_t *v;
	size_t cap;
};

static void
write_frames(struct json *j, const struct profile *p)
{
	json_key(j, "shared");
	json_begin_object(j);
	json_key(j, "frames");
	json_begin_array(j);
	for (size_t i = 0; i < p->nfuncs; i++) {
		const struct profile_func *f = &p->funcs[i];
		json_begin_object(j);
		json_key(j, "name");
		json_string(j, f->label ? f->label : f->name);
		if (f->file) {
			json_key(j, "file");
			json_string(j, f->file);
			json_key(j, "line");
			json_uint(j, f->line);
		} else if (profile_func_module(p, (uint32_t)i)) {
			json_key(j, "file");
			json_string(j, profile_func_module(p, (uint32_t)i));
		}
		json_end_object(j);
	}
	json_end_array(j);
	json_end_object(j);
}

/* The stack of node, root first, as one JSON array on one line. */
static void
write_stack(FILE *out, const struct profile *p, uint32_t node,
	    struct stack_buf *b)
{
	size_t n = 0;

	for (uint32_t x = node; x != PROFILE_ROOT && x != PROFILE_NONE;
	     x = p->nodes[x].parent) {
		xgrow(&b->v, &b->cap, n + 1, sizeof(*b->v));
		b->v[n++] = p->nodes[x].func;
	}
	putc('[', out);
	while (n--)
		fprintf(out, "%" PRIu32 "%s", b->v[n], n ? "," : "");
	putc(']', out);
}

static char *
track_name(const struct timeline_track *k, bool processes)
{
	const char *name = k->name ? k->name : "thread";
	if (processes)
		return xasprintf("%s %" PRIu32 " (pid %" PRIu32 ")", name,
				 k->tid, k->pid);
	return xasprintf("%s %" PRIu32, name, k->tid);
}

/* Adds one weight to the list. */
static void
push(uint64_t **w, size_t *n, size_t *cap, uint64_t v)
{
	xgrow(w, cap, *n + 1, sizeof(**w));
	(*w)[(*n)++] = v;
}

/* Writes a raw JSON value after a key (speedscope's arrays of arrays
 * would take a line per number from the indenting writer); only numbers,
 * brackets and commas, so the document stays valid. */
static void
raw_done(struct json *j)
{
	j->after_key = false;
}

static void
write_profile(struct json *j, const struct profile *p,
	      const struct timeline *t, uint32_t track, struct stack_buf *b)
{
	bool space = p->hdr.kind == PROFILE_KIND_SPACE;
	uint64_t start = 0, cursor = 0, *ws = NULL;
	size_t nws = 0, wcap = 0;

	json_begin_object(j);
	json_key(j, "type");
	json_string(j, "sampled");
	json_key(j, "name");
	char *name = track_name(&t->tracks[track], p->hdr.spools > 1);
	json_string(j, name);
	free(name);
	json_key(j, "unit");
	json_string(j, space ? "bytes" : "nanoseconds");
	json_key(j, "samples");
	putc('[', j->out);
	for (size_t i = 0; i < t->nsamples; i++) {
		const struct timeline_sample *s = &t->samples[i];
		if (s->track != track)
			continue;
		uint64_t at = s->time_ns - t->start_ns;
		uint64_t begin = at > s->weight ? at - s->weight : 0;
		if (space)
			begin = cursor;
		if (!nws)
			start = cursor = begin;
		if (begin > cursor) { /* the thread did not run */
			fputs(nws ? ",[]" : "[]", j->out);
			push(&ws, &nws, &wcap, begin - cursor);
			cursor = begin;
		}
		if (nws)
			putc(',', j->out);
		write_stack(j->out, p, s->node, b);
		push(&ws, &nws, &wcap, s->weight);
		cursor += s->weight;
	}
	putc(']', j->out);
	raw_done(j);
	json_key(j, "weights");
	putc('[', j->out);
	for (size_t i = 0; i < nws; i++)
		fprintf(j->out, "%s%" PRIu64, i ? "," : "", ws[i]);
	putc(']', j->out);
	raw_done(j);
	free(ws);
	json_key(j, "startValue");
	json_uint(j, start);
	json_key(j, "endValue");
	json_uint(j, cursor);
	json_end_object(j);
}

int
export_speedscope_write(FILE *out, const struct profile *p,
			const struct export_opts *opts)
{
	const struct timeline *t = opts->timeline;
	struct stack_buf b = { NULL, 0 };
	struct json j;

	json_init(&j, out);
	json_begin_object(&j);
	json_key(&j, "$schema");
	json_string(&j, "https://www.speedscope.app/file-format-schema.json");
	json_key(&j, "name");
	json_string(&j, opts->name ? opts->name : "profanalyze");
	json_key(&j, "exporter");
	json_string(&j, "profanalyze");
	json_key(&j, "activeProfileIndex");
	json_uint(&j, 0);
	write_frames(&j, p);
	json_key(&j, "profiles");
	json_begin_array(&j);
	for (uint32_t k = 0; t && k < t->ntracks; k++)
		write_profile(&j, p, t, k, &b);
	json_end_array(&j);
	json_end_object(&j);
	json_finish(&j);
	free(b.v);
	return 0;
}
