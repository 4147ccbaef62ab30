/*
 * export_dot: the call graph as a Graphviz digraph, as the Racket
 * profiler's graph renderer (profile/render-graphviz) draws it.
 *
 * One node per function that the Racket text report (report_racket.c)
 * shows, numbered in the same order (node1, node2, ...), labelled with the
 * function's label and its self and total shares (and weights: ms of a
 * time profile, Kbytes of a space one). Nodes are filled from white to
 * red by self weight relative to the heaviest shown node, as Racket's
 * "1,S,1" HSV colours are. An edge caller -> callee joins two shown
 * functions that some stack has in that order; it is labelled with the
 * share of all weight whose stacks hold that call (each sample once,
 * profile.h's edge weight), and goes from thin and grey to thick and red
 * with that weight relative to the heaviest edge drawn. Edges from the
 * root of all stacks are not drawn.
 *
 * Hiding follows the Racket text report (--hide-self, --hide-subs): a
 * function is left out when its self share is below hide_self_pct and
 * every line that would name it in the text report, as a caller or a
 * callee of another function, is below hide_subs_pct of that function's
 * total; so the graph shows the functions the text report lists. Unlike
 * that report the graph takes space profiles too: the rule reads only
 * weights.
 *
 * A real program's graph has thousands of functions, which Graphviz
 * cannot lay out in any useful time (a cc1 profile: 5,199 nodes, 8,478
 * edges, dot killed after ten minutes). So, as pprof does, the graph
 * keeps at most node_count functions (--node-count, default 80), the
 * heaviest by total, and, when it had to cut, it also drops the edges
 * that bring their callee less than DOT_EDGE_PCT of its total; the
 * label says what was cut.
 */
#include "export.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "report.h"
#include "hide.h"
#include "xmalloc.h"

#define DOT_EDGE_PCT 1.0

struct dot {
	FILE *out;
	const struct profile *p;
	const struct export_opts *o;
	uint32_t *ids;   /* shown functions, in order */
	size_t n;
	uint32_t *index; /* per function: its node number, 0 when hidden */
	size_t nseen;    /* functions before hiding */
	size_t nkept;    /* functions after hiding, before the node cut */
	size_t edges_cut, edges_all; /* between shown functions */
};

static void
number_nodes(struct dot *d)
{
	size_t k = 0;
	d->nseen = d->n;
	for (size_t i = 0; i < d->n; i++) {
		if (hide_below(d->p, d->ids[i], d->o->hide_self_pct,
					 d->o->hide_subs_pct))
			continue;
		d->ids[k++] = d->ids[i];
		d->index[d->ids[i]] = (uint32_t)k;
	}
	d->n = k;
}

static int
cmp_total(const void *a, const void *b, void *arg)
{
	const struct profile *p = arg;
	const struct profile_func *x = &p->funcs[*(const uint32_t *)a];
	const struct profile_func *y = &p->funcs[*(const uint32_t *)b];
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* Keeps the node_count heaviest functions (by total), in their order,
 * numbered again. */
static void
cut_nodes(struct dot *d)
{
	size_t max = d->o->node_count, k = 0;

	d->nkept = d->n;
	if (!max || d->n <= max)
		return;
	uint32_t *by = xmalloc(d->n * sizeof(*by));
	memcpy(by, d->ids, d->n * sizeof(*by));
	qsort_r(by, d->n, sizeof(*by), cmp_total, (void *)d->p);
	for (size_t i = max; i < d->n; i++)
		d->index[by[i]] = 0;
	free(by);
	for (size_t i = 0; i < d->n; i++)
		if (d->index[d->ids[i]]) {
			d->ids[k++] = d->ids[i];
			d->index[d->ids[i]] = (uint32_t)k;
		}
	d->n = k;
}

/* Whether the edge is drawn: both ends shown and, after a node cut, at
 * least DOT_EDGE_PCT of its callee's total. */
static bool
edge_drawn(const struct dot *d, const struct profile_edge *x)
{
	if (x->caller == PROFILE_NONE || x->callee == PROFILE_NONE ||
	    !d->index[x->caller] || !d->index[x->callee])
		return false;
	return d->nkept == d->n ||
	       (double)x->weight * 100.0 >=
		       DOT_EDGE_PCT * (double)d->p->funcs[x->callee].total;
}

/* s inside a dot string: quotes and backslashes escaped (a backslash
 * would start one of Graphviz's label escapes, \n \l \N ...), control
 * characters (C0, DEL and C1) as blanks, and '&' and bytes that are not UTF-8 as HTML
 * entities, which Graphviz decodes in every string (the bytes as
 * Latin-1). */
static void
put_escaped(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t len;
	uint32_t cp;

	while (*s) {
		if (*s == '"' || *s == '\\') {
			fputc('\\', out);
			fputc(*s++, out);
		} else if (*s == '&') {
			fputs("&amp;", out);
			s++;
		} else if (*s < 0x20 || *s == 0x7f) {
			fputc(' ', out);
			s++;
		} else if (*s < 0x80) {
			fputc(*s++, out);
		} else if ((len = json_utf8_decode(s, 4, &cp)) > 1) {
			/* (4: the string's NUL ends a sequence cut short.)
			 * C1 control characters are blanks as C0 ones. */
			if (cp <= 0x9f)
				fputc(' ', out);
			else
				fwrite(s, 1, len, out);
			s += len;
		} else {
			fprintf(out, "&#%u;", *s++);
		}
	}
}

/* A weight as the label says it: ms, or Kbytes for a space profile. */
static void
put_weight(const struct dot *d, uint64_t w)
{
	if (d->p->hdr.kind == PROFILE_KIND_SPACE)
		fprintf(d->out, "%.1f KB", (double)w / 1024.0);
	else
		fprintf(d->out, "%.0f ms", (double)w / 1e6);
}

static void
graph_label(const struct dot *d)
{
	const struct profile_header *h = &d->p->hdr;
	char a[32], b[32];

	fputs("\tgraph [label=\"", d->out);
	put_escaped(d->out, d->o->name ? d->o->name : "");
	if (h->kind == PROFILE_KIND_SPACE) {
		fprintf(d->out, "\\n%llu sampled allocation%s, ",
			(unsigned long long)h->samples,
			h->samples == 1 ? "" : "s");
		put_weight(d, h->weight);
		fputs(h->space.view == PROFILE_SPACE_INUSE ? " never freed"
		      : h->space.view == PROFILE_SPACE_PEAK ? " live at the peak"
							 : " allocated",
		      d->out);
	} else {
		fprintf(d->out, "\\n%llu sample%s, ",
			(unsigned long long)h->samples,
			h->samples == 1 ? "" : "s");
		put_weight(d, h->weight);
		fputs(h->clock == SPOOL_CLOCK_WALL ? " of elapsed time"
						   : " of CPU time", d->out);
	}
	if (d->nseen > d->nkept)
		fprintf(d->out, "\\nhiding functions with self<%s%% and "
			"local<%s%%: %zu of %zu hidden",
			report_fmt_pct(a, sizeof(a), d->o->hide_self_pct, 6),
			report_fmt_pct(b, sizeof(b), d->o->hide_subs_pct, 6),
			d->nseen - d->nkept, d->nseen);
	if (d->nkept > d->n)
		fprintf(d->out, "\\nshowing the %zu heaviest of %zu functions "
			"(--node-count); %zu of %zu edges below %s%% of their "
			"callee's total dropped", d->n, d->nkept, d->edges_cut,
			d->edges_all,
			report_fmt_pct(a, sizeof(a), DOT_EDGE_PCT, 6));
	fputs("\", labelloc=t];\n", d->out);
}

static void
node(const struct dot *d, uint32_t f, uint64_t max_self)
{
	const struct profile *p = d->p;
	const struct profile_func *fn = &p->funcs[f];
	FILE *out = d->out;
	double sat = max_self ? (double)fn->self / (double)max_self : 0.0;

	fprintf(out, "\tnode%u [label=\"", d->index[f]);
	put_escaped(out, report_elided_mark(fn));
	put_escaped(out, fn->label);
	fprintf(out, "\\nself %.1f%% (", report_pct(fn->self, p->hdr.weight));
	put_weight(d, fn->self);
	fprintf(out, ")\\ntotal %.1f%% (",
		report_pct(fn->total, p->hdr.weight));
	put_weight(d, fn->total);
	fprintf(out, ")\", fillcolor=\"1,%.3f,1\"];\n", sat);
}

static void
edges_of(const struct dot *d, uint32_t f, uint64_t max_edge)
{
	const struct profile *p = d->p;
	size_t n;
	const uint32_t *e = profile_callees(p, f, &n);

	for (size_t i = 0; i < n; i++) {
		const struct profile_edge *x = &p->edges[e[i]];
		if (!edge_drawn(d, x))
			continue;
		double r = max_edge ? (double)x->weight / (double)max_edge
				    : 0.0;
		fprintf(d->out, "\tnode%u -> node%u [label=\"%.1f%%\", "
			"color=\"1,%.3f,%.3f\", penwidth=%.2f];\n",
			d->index[f], d->index[x->callee],
			report_pct(x->weight, p->hdr.weight), r,
			0.5 + 0.5 * r, 1.0 + 3.0 * r);
	}
}

int
export_dot_write(FILE *out, const struct profile *p,
		 const struct export_opts *opts)
{
	struct dot d = { .out = out, .p = p, .o = opts };
	uint64_t max_self = 0, max_edge = 0;

	d.ids = funcorder_sort(p, opts->order, &d.n);
	d.index = xcalloc(p->nfuncs + 1, sizeof(*d.index));
	number_nodes(&d);
	cut_nodes(&d);
	for (size_t i = 0; i < d.n; i++)
		if (p->funcs[d.ids[i]].self > max_self)
			max_self = p->funcs[d.ids[i]].self;
	for (size_t i = 0; i < p->nedges; i++) {
		const struct profile_edge *x = &p->edges[i];
		if (x->caller == PROFILE_NONE || x->callee == PROFILE_NONE ||
		    !d.index[x->caller] || !d.index[x->callee])
			continue;
		d.edges_all++;
		if (!edge_drawn(&d, x))
			d.edges_cut++;
		else if (x->weight > max_edge)
			max_edge = x->weight;
	}

	fputs("digraph Profile {\n", out);
	graph_label(&d);
	fputs("\tnode [shape=box, style=filled];\n", out);
	for (size_t i = 0; i < d.n; i++) {
		node(&d, d.ids[i], max_self);
		edges_of(&d, d.ids[i], max_edge);
	}
	fputs("}\n", out);
	free(d.ids);
	free(d.index);
	return 0;
}
