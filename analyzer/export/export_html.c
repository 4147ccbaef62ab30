/*
 * export_html: one self-contained HTML page (profanalyze --format=html).
 *
 * The page's code is analyzer/html/report.{html,css,js}, which the build
 * inlines into one template (analyzer/html/embed.py) compiled in as
 * html_template[]; the template holds one marker where the data goes.
 * The data is one JSON document in a <script type="application/json">:
 * the functions, the calling-context tree as parallel arrays (parent,
 * function, self and total weight per node: a parent's index is always
 * below its children's), and, when the spools could be read again, every
 * sample as (time, track, node, weight) in parallel arrays with times as
 * differences, so that 100,000 samples take about a megabyte. Every '<'
 * in it is written \u003c (valid JSON, only ever inside strings), so no
 * name can end the script element.
 *
 * Every sampled allocation of the spools (whatever the profile's kind and
 * view; of the threads and window --thread and --from/--to select) is
 * there too, "heap": its time, weight, size and when it was freed, for
 * the page's allocation rate and estimated heap over time; and each
 * spool's process, "processes", with its parent among them, for the
 * process tree of a merged run.
 *
 * A space profile carries its three views besides (allocated, in use,
 * peak: "views", each with its functions and tree), for the page's view
 * switch; the samples belong to the view exported.
 *
 * The page recomputes the flat profile, callers and callees from the
 * tree (or, for a time range, from the samples in it), so it needs no
 * call graph from here.
 */
#include "export.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "html_template.h"
#include "family.h"
#include "json.h"
#include "space.h"
#include "spool.h"
#include "timeline.h"

#define DATA_MARKER "/*@PROFANALYZE_DATA@*/"

/* A JSON string, as json_escape() writes it but with '<' escaped too (see
 * above). */
void
export_html_str(FILE *out, const char *s)
{
	const unsigned char *b = (const unsigned char *)(s ? s : "");
	size_t len = strlen((const char *)b);

	putc('"', out);
	for (size_t i = 0; i < len;) {
		size_t n = json_utf8_decode(b + i, len - i, NULL);
		if (n == 0) {
			fputs("\\ufffd", out);
			i++;
		} else if (n > 1) {
			fwrite(b + i, 1, n, out);
			i += n;
		} else if (b[i] == '"' || b[i] == '\\') {
			fprintf(out, "\\%c", b[i++]);
		} else if (b[i] < 0x20 || b[i] == '<' || b[i] == 0x7f) {
			fprintf(out, "\\u%04x", b[i++]);
		} else {
			putc(b[i++], out);
		}
	}
	putc('"', out);
}

static void
str(FILE *out, const char *s)
{
	export_html_str(out, s);
}

static void
key_str(FILE *out, const char *key, const char *s)
{
	fprintf(out, "\"%s\":", key);
	if (s)
		str(out, s);
	else
		fputs("null", out);
	putc(',', out);
}

static void
write_meta(FILE *out, const struct profile *p, const struct export_opts *o)
{
	const struct profile_header *h = &p->hdr;
	bool space = h->kind == PROFILE_KIND_SPACE;
	size_t hidden = 0;

	for (size_t i = 0; i < p->nfuncs; i++)
		hidden += (p->funcs[i].flags & PROFILE_FUNC_HIDDEN) != 0;
	key_str(out, "title", o->name);
	key_str(out, "exe", h->exe);
	key_str(out, "kind", space ? "space" : "time");
	key_str(out, "view", space ? space_view_name(h->space.view) : NULL);
	key_str(out, "clock", !h->has_process ? NULL :
			      h->clock == SPOOL_CLOCK_WALL ? "wall" : "cpu");
	fprintf(out, "\"samples\":%" PRIu64 ",\"weight\":%" PRIu64
		",\"period_ns\":%" PRIu64 ",\"threshold\":%g,\"hidden\":%zu,"
		"\"spools\":%u,\"complete\":%s,",
		h->samples, h->weight, h->has_process ? h->period_ns : 0,
		o->threshold_pct, hidden, h->spools ? h->spools : 1,
		h->complete ? "true" : "false");
}

static void
write_funcs(FILE *out, const struct profile *p)
{
	const uint32_t marker = PROFILE_FUNC_PSEUDO | PROFILE_FUNC_ELLIPSIS;

	fputs("\"modules\":[", out);
	for (size_t i = 0; i < p->nmodules; i++) {
		if (i)
			putc(',', out);
		str(out, p->modules[i].path);
	}
	/* [label, module or -1, flags: 1 elided, 2 marker] */
	fputs("],\"funcs\":[", out);
	for (size_t i = 0; i < p->nfuncs; i++) {
		const struct profile_func *f = &p->funcs[i];
		fputs(i ? ",[" : "[", out);
		str(out, f->label ? f->label : f->name);
		fprintf(out, ",%d,%d]",
			f->module == PROFILE_NONE ? -1 : (int)f->module,
			((f->flags & PROFILE_FUNC_ELIDED) ? 1 : 0) |
			((f->flags & marker) ? 2 : 0));
	}
	fputs("],", out);
}

static void
write_tree(FILE *out, const struct profile *p)
{
	static const char *const keys[] = { "parent", "func", "self", "total" };

	fputs("\"nodes\":{", out);
	for (int k = 0; k < 4; k++) {
		fprintf(out, "%s\"%s\":[", k ? "," : "", keys[k]);
		for (size_t i = 0; i < p->nnodes; i++) {
			const struct profile_node *x = &p->nodes[i];
			uint64_t v = k == 0 ? x->parent : k == 1 ? x->func :
				     k == 2 ? x->self : x->total;
			if (k < 2 && v == PROFILE_NONE)
				fprintf(out, "%s-1", i ? "," : "");
			else
				fprintf(out, "%s%" PRIu64, i ? "," : "", v);
		}
		putc(']', out);
	}
	fputs("},", out);
}

static void
write_tracks(FILE *out, const struct timeline *t)
{
	fputs("\"tracks\":[", out);
	for (size_t i = 0; t && i < t->ntracks; i++) {
		const struct timeline_track *k = &t->tracks[i];
		fprintf(out, "%s[%u,%u,%u,", i ? "," : "", k->spool, k->pid,
			k->tid);
		if (k->name)
			str(out, k->name);
		else
			fputs("null", out);
		putc(']', out);
	}
	fputs("],", out);
}

/* Whether all samples weigh the same (a time profile's period). */
static bool
uniform(const struct timeline *t)
{
	for (size_t i = 1; i < t->nsamples; i++)
		if (t->samples[i].weight != t->samples[0].weight)
			return false;
	return true;
}

/* Times in microseconds from the first sample, as differences; the
 * tracks, or 0 when there is one; the weights whole, or one number when
 * all are the same; "blocked" the indexes of off-CPU samples. */
static void
write_samples(FILE *out, const struct timeline *t)
{
	uint64_t prev = 0;

	if (!t) {
		fputs("\"timeline\":null", out);
		return;
	}
	fprintf(out, "\"timeline\":{\"start_ns\":%" PRIu64 ",\"t\":[",
		t->start_ns);
	for (size_t i = 0; i < t->nsamples; i++) {
		uint64_t us = (t->samples[i].time_ns - t->start_ns) / 1000;
		fprintf(out, "%s%" PRIu64, i ? "," : "", us - prev);
		prev = us;
	}
	fputs("],\"k\":", out);
	if (t->ntracks <= 1) {
		fputs("0", out);
	} else {
		putc('[', out);
		for (size_t i = 0; i < t->nsamples; i++)
			fprintf(out, "%s%u", i ? "," : "", t->samples[i].track);
		putc(']', out);
	}
	fputs(",\"n\":[", out);
	for (size_t i = 0; i < t->nsamples; i++)
		fprintf(out, "%s%u", i ? "," : "", t->samples[i].node);
	fputs("],\"w\":", out);
	if (uniform(t)) {
		fprintf(out, "%" PRIu64, t->nsamples ? t->samples[0].weight : 0);
	} else {
		putc('[', out);
		for (size_t i = 0; i < t->nsamples; i++)
			fprintf(out, "%s%" PRIu64, i ? "," : "",
				t->samples[i].weight);
		putc(']', out);
	}
	fputs(",\"blocked\":[", out);
	bool first = true;
	for (size_t i = 0; i < t->nsamples; i++)
		if (t->samples[i].flags & SPOOL_SAMPLE_OFF_CPU) {
			fprintf(out, "%s%zu", first ? "" : ",", i);
			first = false;
		}
	fputs("]}", out);
}

/* Microseconds from start_ns, signed (an allocation may come before
 * the first sample). */
static long long
rel_us(uint64_t time_ns, uint64_t start_ns)
{
	return time_ns >= start_ns ? (long long)((time_ns - start_ns) / 1000)
				   : -(long long)((start_ns - time_ns) / 1000);
}

/* The sampled allocations: "t" times as differences (the first from
 * start_ns), "w" weights, "n" sizes, "e" when each was freed (from
 * start_ns; null: never). */
static void
write_heap(FILE *out, const struct timeline *t)
{
	long long prev = 0;

	if (!t || !t->nallocs) {
		fputs("\"heap\":null,", out);
		return;
	}
	fputs("\"heap\":{\"t\":[", out);
	for (size_t i = 0; i < t->nallocs; i++) {
		long long us = rel_us(t->allocs[i].time_ns, t->start_ns);
		fprintf(out, "%s%lld", i ? "," : "", us - prev);
		prev = us;
	}
	fputs("],\"w\":[", out);
	for (size_t i = 0; i < t->nallocs; i++)
		fprintf(out, "%s%" PRIu64, i ? "," : "", t->allocs[i].weight);
	fputs("],\"n\":[", out);
	for (size_t i = 0; i < t->nallocs; i++)
		fprintf(out, "%s%" PRIu64, i ? "," : "", t->allocs[i].size);
	fputs("],\"e\":[", out);
	for (size_t i = 0; i < t->nallocs; i++) {
		if (i)
			putc(',', out);
		if (t->allocs[i].end_ns == UINT64_MAX)
			fputs("null", out);
		else
			fprintf(out, "%lld",
				rel_us(t->allocs[i].end_ns, t->start_ns));
	}
	fputs("]},", out);
}

/* Per spool: [pid, parent pid, parent's index or -1, exe, command line,
 * whether it ended cleanly]. */
static void
write_procs(FILE *out, const struct timeline *t)
{
	fputs("\"processes\":[", out);
	for (size_t i = 0; t && i < t->nprocs; i++) {
		const struct family_proc *f = &t->procs[i].info;
		fprintf(out, "%s[%u,%u,%d,", i ? "," : "", f->pid, f->ppid,
			t->procs[i].parent == FAMILY_NONE ?
				-1 : (int)t->procs[i].parent);
		str(out, f->exe);
		putc(',', out);
		str(out, f->cmdline);
		fprintf(out, ",%s]", f->complete ? "true" : "false");
	}
	fputs("],", out);
}

/* A space profile's three views (allocated, in use, peak), each with
 * its own functions and tree (they were read separately). */
static void
write_views(FILE *out, const struct profile *p,
	    const struct export_opts *opts)
{
	bool first = true;

	fputs("\"views\":[", out);
	for (int v = 0; v < 3 && p->hdr.kind == PROFILE_KIND_SPACE; v++) {
		const struct profile *q = opts->space_views[v];
		if (!q)
			continue;
		fprintf(out, "%s{\"name\":\"%s\",\"samples\":%" PRIu64
			",\"weight\":%" PRIu64 ",", first ? "" : ",",
			space_view_name((enum profile_space_view)v),
			q->hdr.samples, q->hdr.weight);
		write_funcs(out, q);
		write_tree(out, q);
		fprintf(out, "\"main\":%s}", q == p ? "true" : "false");
		first = false;
	}
	fputs("],", out);
}

int
export_html_page(FILE *out, void (*data)(FILE *out, const void *arg),
		 const void *arg)
{
	const char *marker = strstr(html_template, DATA_MARKER);

	if (!marker) /* (the build checks this) */
		return -1;
	fwrite(html_template, 1, (size_t)(marker - html_template), out);
	data(out, arg);
	fputs(marker + strlen(DATA_MARKER), out);
	return 0;
}

struct page {
	const struct profile *p;
	const struct export_opts *opts;
};

static void
write_data(FILE *out, const void *arg)
{
	const struct page *pg = arg;
	const struct export_opts *opts = pg->opts;

	putc('{', out);
	write_meta(out, pg->p, opts);
	write_funcs(out, pg->p);
	write_tree(out, pg->p);
	write_views(out, pg->p, opts);
	write_tracks(out, opts->timeline);
	write_procs(out, opts->timeline);
	write_heap(out, opts->timeline);
	write_samples(out, opts->timeline);
	putc('}', out);
}

int
export_html_write(FILE *out, const struct profile *p,
		  const struct export_opts *opts)
{
	struct page pg = { p, opts };
	return export_html_page(out, write_data, &pg);
}
