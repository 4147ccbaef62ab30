/*
 * diff_export: the comparison as a differential flame graph and as a
 * Graphviz call graph coloured by change (profanalyze --diff
 * --format=folded|dot).
 *
 * folded follows FlameGraph's difffolded.pl output, which flamegraph.pl
 * draws as a differential flame graph: one line per stack,
 *   outermost;...;leaf BASE NEW
 * frames as export_folded.c writes them, BASE and NEW each side's mean
 * self weight of the stack per run (microseconds of CPU, or bytes),
 * rounded. Lines are sorted by stack (byte order).
 *
 * dot draws the functions the text report lists, with the calls between
 * them seen in any run; a node's fill says the change of the gated
 * metric: reds for significant growth, blues for significant decrease
 * (deeper for larger relative changes), grey for no significant change,
 * and a thick border for a row that failed the gate.
 */
#include "diff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "textesc.h"
#include "xmalloc.h"

static void __attribute__((noreturn))
out_of_memory(void)
{
	fputs("profanalyze: out of memory\n", stderr);
	abort();
}

struct fline {
	char *stack;
	double w[2]; /* base, new */
};

/* The stack of node x, frames joined by ';'. A new string. */
static char *
stack_of(const struct profile *p, uint32_t x, uint32_t **path, size_t *cap)
{
	size_t n = 0;
	for (uint32_t y = x; y != PROFILE_ROOT; y = p->nodes[y].parent) {
		xgrow(path, cap, n + 1, sizeof(**path));
		(*path)[n++] = y;
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		out_of_memory();
	if (!n)
		fputs("[no frames]", f);
	for (size_t i = n; i-- > 0;) {
		export_folded_put_frame(f,
					p->funcs[p->nodes[(*path)[i]].func].label);
		if (i)
			fputc(';', f);
	}
	if (fclose(f) != 0)
		out_of_memory();
	return buf;
}

static void
add_runs(struct fline **v, size_t *n, size_t *cap,
	 struct profile *const *runs, size_t nruns, int side)
{
	uint32_t *path = NULL;
	size_t path_cap = 0;
	for (size_t r = 0; r < nruns; r++) {
		const struct profile *p = runs[r];
		double scale = (p->hdr.kind == PROFILE_KIND_TIME ? 1e-3 : 1.0) /
			       (double)nruns;
		for (size_t x = 0; x < p->nnodes; x++) {
			if (!p->nodes[x].self)
				continue;
			xgrow(v, cap, *n + 1, sizeof(**v));
			struct fline *l = &(*v)[(*n)++];
			l->stack = stack_of(p, (uint32_t)x, &path, &path_cap);
			l->w[side] = (double)p->nodes[x].self * scale;
			l->w[!side] = 0;
		}
	}
	free(path);
}

static int
cmp_fline(const void *a, const void *b)
{
	return strcmp(((const struct fline *)a)->stack,
		      ((const struct fline *)b)->stack);
}

void
diff_write_folded(FILE *out, const struct diff *d)
{
	struct fline *v = NULL;
	size_t n = 0, cap = 0;
	add_runs(&v, &n, &cap, d->base_runs, d->nbase, 0);
	add_runs(&v, &n, &cap, d->new_runs, d->nnew, 1);
	qsort(v, n, sizeof(*v), cmp_fline);
	for (size_t i = 0; i < n;) {
		double w[2] = { 0, 0 };
		size_t j = i;
		for (; j < n && strcmp(v[j].stack, v[i].stack) == 0; j++) {
			w[0] += v[j].w[0];
			w[1] += v[j].w[1];
		}
		fprintf(out, "%s %.0f %.0f\n", v[i].stack, round(w[0]),
			round(w[1]));
		for (; i < j; i++)
			free(v[i].stack);
	}
	free(v);
}

/* ---- dot ---- */

/* The function row of a label, or -1. */
static long
row_index(const struct diff *d, const char *label)
{
	size_t lo = 0, hi = d->nfunc;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(label, d->rows[mid].label);
		if (c == 0)
			return (long)mid;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

static bool
drawn(const struct diff *d, const struct diff_row *r)
{
	return r->cls != DIFF_SAME || r->failed ||
	       (r->share >= d->opts.threshold_pct && r->share > 0);
}

static const char *
fill(const struct diff_row *r)
{
	static const char *const reds[3] = { "#ffd0d0", "#ff9090", "#ff5050" };
	static const char *const blues[3] = { "#d0d8ff", "#90a8ff", "#5078ff" };
	double a = fabs(r->rel);
	int k = a >= 0.5 ? 2 : a >= 0.1 ? 1 : 0;
	if (r->cls == DIFF_REGRESSION)
		return reds[k];
	if (r->cls == DIFF_IMPROVEMENT)
		return blues[k];
	return "#eeeeee";
}

/* A DOT string's content: quotes and backslashes escaped, control
 * characters as textesc writes them. */
static void
dot_put(FILE *out, const char *s)
{
	char *e = textesc_dup(s);
	for (const char *c = e; *c; c++) {
		if (*c == '"' || *c == '\\')
			fputc('\\', out);
		fputc(*c, out);
	}
	free(e);
}

static void
dot_node(FILE *out, const struct diff *d, size_t i)
{
	const struct diff_row *r = &d->rows[i];
	const struct diff_est *b = &r->base[d->opts.metric];
	const struct diff_est *n = &r->new[d->opts.metric];
	double u = diff_fractions(&d->opts) ? 100 : 1;
	int dec = d->kind == PROFILE_KIND_SPACE &&
			  d->opts.normalize == DIFF_NORM_NONE ? 0 : 3;
	fprintf(out, "  f%zu [label=\"", i);
	dot_put(out, r->label);
	fprintf(out, "\\n%.*f -> %.*f", dec, b->mean * u, dec, n->mean * u);
	if (isinf(r->rel))
		fputs(" (new)", out);
	else
		fprintf(out, " (%+.1f%%)", 100 * r->rel);
	fprintf(out, "\", fillcolor=\"%s\"%s];\n", fill(r),
		r->failed ? ", penwidth=3" : "");
}

struct pair {
	size_t a, b;
};

static void
dot_edges(const struct diff *d, struct profile *const *runs, size_t nruns,
	  struct pair **v, size_t *n, size_t *cap)
{
	for (size_t k = 0; k < nruns; k++) {
		const struct profile *p = runs[k];
		for (size_t e = 0; e < p->nedges; e++) {
			const struct profile_edge *ed = &p->edges[e];
			if (ed->caller == PROFILE_NONE ||
			    ed->callee == PROFILE_NONE)
				continue;
			long a = row_index(d, p->funcs[ed->caller].label);
			long b = row_index(d, p->funcs[ed->callee].label);
			if (a < 0 || b < 0 || !drawn(d, &d->rows[a]) ||
			    !drawn(d, &d->rows[b]))
				continue;
			xgrow(v, cap, *n + 1, sizeof(**v));
			(*v)[(*n)++] = (struct pair){ (size_t)a, (size_t)b };
		}
	}
}

static int
cmp_pair(const void *x, const void *y)
{
	const struct pair *a = x, *b = y;
	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return a->b < b->b ? -1 : a->b > b->b;
}

void
diff_write_dot(FILE *out, const struct diff *d)
{
	fputs("digraph \"profanalyze --diff\" {\n"
	      "  node [shape=box, style=filled, fontname=\"sans-serif\"];\n",
	      out);
	for (size_t i = 0; i < d->nfunc; i++)
		if (drawn(d, &d->rows[i]))
			dot_node(out, d, i);
	/* Every (caller, callee) pair of any run once, by node order. */
	struct pair *v = NULL;
	size_t n = 0, cap = 0;
	dot_edges(d, d->base_runs, d->nbase, &v, &n, &cap);
	dot_edges(d, d->new_runs, d->nnew, &v, &n, &cap);
	if (n)
		qsort(v, n, sizeof(*v), cmp_pair);
	for (size_t i = 0; i < n; i++)
		if (!i || cmp_pair(&v[i], &v[i - 1]))
			fprintf(out, "  f%zu -> f%zu;\n", v[i].a, v[i].b);
	free(v);
	fputs("}\n", out);
}

void
diff_export_write(FILE *out, const struct diff *d)
{
	switch (d->opts.format) {
	case DIFF_FORMAT_FOLDED:
		diff_write_folded(out, d);
		break;
	case DIFF_FORMAT_DOT:
		diff_write_dot(out, d);
		break;
	case DIFF_FORMAT_HTML:
		diff_write_html(out, d);
		break;
	default:
		diff_write(out, d);
		break;
	}
}
