/*
 * report_racket: the Racket text rendering of the call graph (see
 * report_racket.h).
 *
 * An entry reads
 *                                 B [M1]   M2%
 *   [N1] N2(N3%)  N4(N5%)  A src
 *                                 C [M3]   M4%
 * with N2/N4 the total and self milliseconds of A and N3/N5 their shares
 * of all time. M2 is the callee time of the edge B -> A and M4 the caller
 * time of A -> C (occurrences of A on each stack divided out, see
 * profile.h), both as percentages of A's total: the caller percentages
 * add up to 100 less the time A was an outermost frame, the callee ones
 * to 100 less its self time. Edges to the root of all stacks are not
 * lines. Column widths follow the widest cell, as Racket's table does.
 */
#include "report_racket.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "hide.h"
#include "report.h"
#include "textesc.h"
#include "xmalloc.h"

struct racket {
	FILE *out;
	const struct profile *p;
	const struct report_racket_opts *o;
	uint32_t *ids;    /* entries in order */
	size_t n;
	uint32_t *index;  /* per function: its [N], 0 when hidden */
	size_t nfuncs_seen, nhidden;
	int w_idx, w_total, w_self, w_name; /* column widths */
	int width;        /* of the rules */
};

static double
ms(uint64_t weight)
{
	return (double)weight / 1e6;
}

/* Drops hidden entries from r->ids and numbers the rest from 1. */
static void
number_entries(struct racket *r)
{
	size_t k = 0;
	r->nfuncs_seen = r->n;
	for (size_t i = 0; i < r->n; i++) {
		if (hide_below(r->p, r->ids[i], r->o->hide_self_pct,
					 r->o->hide_subs_pct))
			continue;
		r->ids[k++] = r->ids[i];
		r->index[r->ids[i]] = (uint32_t)k;
	}
	r->nhidden = r->n - k;
	r->n = k;
}

static int
max_int(int a, int b)
{
	return a > b ? a : b;
}

static int
time_cell_len(uint64_t w, uint64_t whole)
{
	return snprintf(NULL, 0, "%.0f(%.1f%%)", ms(w), report_pct(w, whole));
}

static int
sub_cell_len(const struct racket *r, const uint32_t *e, size_t n,
	     bool callers, int w)
{
	const struct profile *p = r->p;
	for (size_t i = 0; i < n; i++) {
		const struct profile_edge *x = &p->edges[e[i]];
		uint32_t o = callers ? x->caller : x->callee;
		if (o == PROFILE_NONE || !r->index[o])
			continue;
		const struct profile_func *fn = &p->funcs[o];
		w = max_int(w, snprintf(NULL, 0, "%s%s [%u]",
					report_elided_mark(fn), fn->text,
					r->index[o]));
	}
	return w;
}

static void
measure(struct racket *r)
{
	const struct profile *p = r->p;
	r->w_idx = snprintf(NULL, 0, "[%zu]", r->n);
	r->w_total = r->w_self = (int)strlen("ms(pct)");
	r->w_name = (int)strlen("Name+src");
	for (size_t i = 0; i < r->n; i++) {
		const struct profile_func *fn = &p->funcs[r->ids[i]];
		size_t n;
		const uint32_t *e;
		r->w_total = max_int(r->w_total,
				     time_cell_len(fn->total, p->hdr.weight));
		r->w_self = max_int(r->w_self,
				    time_cell_len(fn->self, p->hdr.weight));
		e = profile_callers(p, r->ids[i], &n);
		r->w_name = sub_cell_len(r, e, n, true, r->w_name);
		e = profile_callees(p, r->ids[i], &n);
		r->w_name = sub_cell_len(r, e, n, false, r->w_name);
	}
	/* " idx total self  " then two more before a line's name. */
	r->width = 1 + r->w_idx + 1 + r->w_total + 1 + r->w_self + 2 + 2 +
		   r->w_name + 1 + 6;
}

static void
rule(const struct racket *r, char c)
{
	for (int i = 0; i < r->width; i++)
		fputc(c, r->out);
	fputc('\n', r->out);
}

static void
summary(const struct racket *r)
{
	const struct profile_header *h = &r->p->hdr;
	FILE *out = r->out;
	char a[32], b[32];

	fputs("Profiling results\n-----------------\n", out);
	fprintf(out, "  Total cpu time observed: %.0fms", ms(h->weight));
	if (h->complete)
		fprintf(out, " (out of %.0fms)", ms(h->cpu_ns));
	fprintf(out, "\n  Number of samples taken: %llu",
		(unsigned long long)h->samples);
	if (h->samples)
		fprintf(out, " (once every %.1fms)",
			ms(h->weight) / (double)h->samples);
	fputc('\n', out);
	if (report_threads(r->p) > 1)
		fprintf(out, "  Threads observed:        %llu\n",
			(unsigned long long)report_threads(r->p));
	if (r->nhidden)
		fprintf(out, "  (Hiding functions with self<%s%% and "
			"local<%s%%: %zu of %zu hidden)\n",
			report_fmt_pct(a, sizeof(a), r->o->hide_self_pct, 6),
			report_fmt_pct(b, sizeof(b), r->o->hide_subs_pct, 6),
			r->nhidden, r->nfuncs_seen);
	fputc('\n', out);
}

static void
table_head(const struct racket *r)
{
	int lead = 1 + r->w_idx + 1 + r->w_total + 1 + r->w_self + 2;
	rule(r, '=');
	fprintf(r->out, "%*s%s\n", lead + 2, "", "Caller");
	fprintf(r->out, " %-*s %*s %*s  %-*s%6s\n", r->w_idx, "Idx",
		r->w_total, "Total", r->w_self, "Self", 2 + r->w_name + 1,
		"Name+src", "Local%");
	fprintf(r->out, " %-*s %*s %*s    %s\n", r->w_idx, "", r->w_total,
		"ms(pct)", r->w_self, "ms(pct)", "Callee");
	rule(r, '=');
}

/* A caller or callee line of an entry. */
struct sub {
	double pct;
	uint32_t func;
};

static int
cmp_sub(const void *pa, const void *pb, void *arg)
{
	const struct profile *p = arg;
	const struct sub *a = pa, *b = pb;
	if (a->pct != b->pct)
		return a->pct > b->pct ? -1 : 1;
	return strcmp(p->funcs[a->func].label, p->funcs[b->func].label);
}

/* The caller (callers) or callee lines of entry f, by share descending;
 * lines to hidden functions and to the root of all stacks are left out. */
static void
sub_lines(const struct racket *r, uint32_t f, bool callers, struct sub *buf)
{
	const struct profile *p = r->p;
	int lead = 1 + r->w_idx + 1 + r->w_total + 1 + r->w_self + 2 + 2;
	size_t n, k = 0;
	const uint32_t *e = callers ? profile_callers(p, f, &n)
				    : profile_callees(p, f, &n);
	for (size_t i = 0; i < n; i++) {
		const struct profile_edge *x = &p->edges[e[i]];
		uint32_t o = callers ? x->caller : x->callee;
		if (o == PROFILE_NONE || !r->index[o])
			continue;
		buf[k++] = (struct sub){ hide_edge_pct(p, f, x, callers), o };
	}
	qsort_r(buf, k, sizeof(*buf), cmp_sub, (void *)p);
	for (size_t i = 0; i < k; i++) {
		const struct profile_func *fn = &p->funcs[buf[i].func];
		int len = fprintf(r->out, "%*s%s%s [%u]", lead, "",
				  report_elided_mark(fn), fn->text,
				  r->index[buf[i].func]) - lead;
		fprintf(r->out, "%*s%5.1f%%\n", r->w_name - len + 1, "",
			buf[i].pct);
	}
}

static void
entry(const struct racket *r, size_t i, struct sub *buf)
{
	const struct profile *p = r->p;
	uint32_t f = r->ids[i];
	const struct profile_func *fn = &p->funcs[f];
	const char *mod = profile_func_module(p, f);
	const char *base = mod ? strrchr(mod, '/') : NULL;
	char idx[32], total[64], self[64];

	if (i)
		rule(r, '-');
	snprintf(idx, sizeof(idx), "[%zu]", i + 1);
	snprintf(total, sizeof(total), "%.0f(%.1f%%)", ms(fn->total),
		 report_pct(fn->total, p->hdr.weight));
	snprintf(self, sizeof(self), "%.0f(%.1f%%)", ms(fn->self),
		 report_pct(fn->self, p->hdr.weight));
	sub_lines(r, f, true, buf);
	fprintf(r->out, " %-*s %*s %*s  %s%s", r->w_idx, idx, r->w_total,
		total, r->w_self, self, report_elided_mark(fn), fn->text);
	/* The module stands for Racket's source location; an unnamed
	 * function's label already names it. */
	if (mod && !(fn->flags & PROFILE_FUNC_UNNAMED)) {
		fputc(' ', r->out);
		textesc_put(r->out, base ? base + 1 : mod);
	}
	fputc('\n', r->out);
	sub_lines(r, f, false, buf);
}

void
report_racket_write(FILE *out, const struct profile *p,
		    const struct report_racket_opts *opts)
{
	struct racket r = { .out = out, .p = p, .o = opts };

	r.ids = funcorder_sort(p, opts->order, &r.n);
	r.index = xcalloc(p->nfuncs ? p->nfuncs : 1, sizeof(*r.index));
	number_entries(&r);
	measure(&r);
	summary(&r);
	if (p->hdr.samples) {
		/* No function has more callers or callees than edges. */
		struct sub *buf = xcalloc(p->nedges + 1, sizeof(*buf));
		table_head(&r);
		for (size_t i = 0; i < r.n; i++)
			entry(&r, i, buf);
		rule(&r, '=');
		free(buf);
	}
	report_unnamed_note(out, p);
	free(r.ids);
	free(r.index);
}
