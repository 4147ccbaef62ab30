/*
 * report_graph: the Allegro call graph (see report_graph.h).
 *
 * Everything comes from the profile's call-graph edges, whose weight
 * counts a sample once per distinct (caller, callee) pair on its stack:
 * exactly Allegro's rule that each distinct parent (child) of F in a
 * sample is recorded once, the oldest instance when repeated. A parent or
 * child line shows that weight and its share of F's total ("local %").
 * When F was twice on some stack its lines may count one sample twice
 * (bar -> baz -> foo -> baz gives baz two parents for one sample), and
 * each of them carries Allegro's "r" after the local %. A function that
 * absorbed hidden callees with nothing displayable below them gets a
 * child line "..." for that time, so its children still add up.
 * With exact call counts (-finstrument-functions, callcount.h) a time
 * profile's graph has one more column, gprof's "called": the function's
 * calls on its own line, called/total on its parent and child lines.
 */
#include "report_graph.h"

#include <stdlib.h>
#include <string.h>

#include "callcount.h"
#include "report.h"
#include "xmalloc.h"

/* The total column holds seconds (two decimals) or, in a space profile,
 * Kbytes (none): report_value() with report_value_decimals(). */
#define ENTRY_FMT "%5.1f%s %5.1f%s %7.*f %5.1f  ==> %s%s\n"
#define SUB_FMT "            %s%7.*f %5.1f%c       %s%s\n"
#define RULE "-----------------------------------------------------\n"
/* With exact call counts (callcount.h), a calls column before the name. */
#define CALLS_ENTRY_FMT "%5.1f%s %5.1f%s %7.*f %5.1f %16s  ==> %s%s\n"
#define CALLS_SUB_FMT "            %s%7.*f %5.1f%c %15s       %s%s\n"
/* With --error-bars: after each share of the entry line, the half-width
 * of its 95 % interval in points (ERR_FMT), and the parent and child
 * lines indented by those two columns (ERR_INDENT). */
#define ERR_FMT " %5.1f"
#define ERR_INDENT "            "
#define CALLS_RULE                                                           \
	"----------------------------------------------------------------------\n"

/* One parent or child line. */
struct sub {
	const struct profile_edge *edge; /* NULL for "..." */
	uint64_t weight;
	const char *mark;  /* "... " or "" */
	const char *label;
	const char *text;  /* the label as printed */
};

static void
heading(FILE *out, const struct profile *p,
	const struct report_graph_opts *o)
{
	char a[32], b[32];
	bool space = p->hdr.kind == PROFILE_KIND_SPACE;
	fprintf(out, "%s profile of sampled pc values by function, children, "
		"and parents.\n\n", space ? "Space" : "Time");
	if (p->hdr.samples) {
		fprintf(out, "Total %s below %s%% will be suppressed.\n",
			space ? "mem.s" : "times",
			report_fmt_pct(a, sizeof(a), o->threshold_pct, 6));
		fprintf(out, "Parent and child %s less %s%% of the node "
			"will be suppressed.\n", space ? "mem.s" : "times",
			report_fmt_pct(b, sizeof(b), o->fractional_pct, 6));
	}
	report_header(out, p);
}

/* With call counts: the time profile's graph has a calls column. */
static bool
with_calls(const struct profile *p)
{
	return profile_has_calls(p) && p->hdr.kind != PROFILE_KIND_SPACE;
}

static void
table_head(FILE *out, const struct profile *p)
{
	bool space = p->hdr.kind == PROFILE_KIND_SPACE;
	bool eb = report_error_bars;
	/* The two share columns, 12 wider with their error bars; then the
	 * rest, with or without the calls column. */
	fputs(eb ? "  %     \u00b1     %     \u00b1" : "  %     %", out);
	fputs(with_calls(p) ? "                                        Parent\n"
			    : "                       Parent\n", out);
	fputs(eb ? " self        total     " : " self total", out);
	fputs(with_calls(p) ? "   total local           called  Function\n"
			    : "   total local  Function\n", out);
	if (eb)
		fputs(space ? " Mem.        Mem.      " : " Time        Time      ",
		      out);
	else
		fputs(space ? " Mem.  Mem." : " Time  Time", out);
	if (with_calls(p))
		fputs("    secs   %       called/total       Child\n\n", out);
	else
		fputs(space ? "   Kbyte   %         Child\n\n"
			    : "    secs   %         Child\n\n", out);
}

static int
cmp_sub(const void *pa, const void *pb)
{
	const struct sub *a = pa, *b = pb;
	if (a->weight != b->weight)
		return a->weight > b->weight ? -1 : 1;
	return strcmp(a->label, b->label);
}

/* The parents (callers) or children of f, with the "..." line for the
 * hidden time of a function's children. Returns the number in subs
 * (sized for every edge of f plus one). */
static size_t
collect(const struct profile *p, uint32_t f, bool parents, struct sub *subs)
{
	size_t n, k = 0;
	const uint32_t *e = parents ? profile_callers(p, f, &n)
				    : profile_callees(p, f, &n);
	for (size_t i = 0; i < n; i++) {
		const struct profile_edge *x = &p->edges[e[i]];
		uint32_t other = parents ? x->caller : x->callee;
		if (other == PROFILE_NONE)
			continue;
		subs[k++] = (struct sub){ x, x->weight,
					  report_elided_mark(&p->funcs[other]),
					  p->funcs[other].label,
					  p->funcs[other].text };
	}
	if (!parents && p->funcs[f].elided)
		subs[k++] = (struct sub){ NULL, p->funcs[f].elided, "", "...",
					  "..." };
	qsort(subs, k, sizeof(*subs), cmp_sub);
	return k;
}

static void
sub_line(FILE *out, const struct profile *p, const struct sub *s,
	 double local, char r)
{
	char calls[48] = "";
	const char *indent = report_error_bars ? ERR_INDENT : "";
	if (!with_calls(p)) {
		fprintf(out, SUB_FMT, indent, report_value_decimals(p),
			report_value(p, s->weight), local, r, s->mark,
			s->text);
		return;
	}
	if (s->edge)
		callcount_graph_edge(p, s->edge, calls, sizeof(calls));
	fprintf(out, CALLS_SUB_FMT, indent, report_value_decimals(p),
		report_value(p, s->weight), local, r, calls, s->mark, s->text);
}

static void
entry_line(FILE *out, const struct profile *p, uint32_t f)
{
	const struct profile_func *fn = &p->funcs[f];
	uint64_t whole = p->hdr.weight;
	char calls[48], self_err[16] = "", total_err[16] = "";
	if (report_error_bars) {
		snprintf(self_err, sizeof(self_err), ERR_FMT,
			 report_pct_err(p, fn->self, fn->self_var));
		snprintf(total_err, sizeof(total_err), ERR_FMT,
			 report_pct_err(p, fn->total, fn->total_var));
	}
	if (!with_calls(p)) {
		fprintf(out, ENTRY_FMT, report_pct(fn->self, whole), self_err,
			report_pct(fn->total, whole), total_err,
			report_value_decimals(p),
			report_value(p, fn->total),
			report_pct(fn->self, fn->total), report_elided_mark(fn),
			fn->text);
		return;
	}
	callcount_graph_primary(p, f, calls, sizeof(calls));
	fprintf(out, CALLS_ENTRY_FMT, report_pct(fn->self, whole), self_err,
		report_pct(fn->total, whole), total_err,
		report_value_decimals(p),
		report_value(p, fn->total), report_pct(fn->self, fn->total),
		calls, report_elided_mark(fn), fn->text);
}

static void
sub_lines(FILE *out, const struct profile *p, uint32_t f, bool parents,
	  const struct report_graph_opts *o, struct sub *buf)
{
	const struct profile_func *fn = &p->funcs[f];
	char r = fn->flags & PROFILE_FUNC_RECURSIVE ? 'r' : ' ';
	size_t n = collect(p, f, parents, buf);

	for (size_t i = 0; i < n; i++) {
		double local = report_pct(buf[i].weight, fn->total);
		if (local + 1e-9 < o->fractional_pct)
			continue;
		sub_line(out, p, &buf[i], local, r);
	}
}

static void
entry(FILE *out, const struct profile *p, uint32_t f,
      const struct report_graph_opts *o, struct sub *buf)
{
	sub_lines(out, p, f, true, o, buf);
	entry_line(out, p, f);
	sub_lines(out, p, f, false, o, buf);
	fputs(with_calls(p) ? CALLS_RULE : RULE, out);
}

void
report_graph_write(FILE *out, const struct profile *p,
		   const struct report_graph_opts *opts)
{
	size_t n;

	heading(out, p, opts);
	if (p->hdr.samples == 0)
		return;
	table_head(out, p);
	uint32_t *ids = funcorder_sort(p, opts->order, &n);
	/* No function has more parents or children than there are edges. */
	struct sub *buf = xcalloc(p->nedges + 1, sizeof(*buf));
	for (size_t i = 0; i < n; i++) {
		const struct profile_func *fn = &p->funcs[ids[i]];
		if (report_pct(fn->total, p->hdr.weight) + 1e-9 <
		    opts->threshold_pct)
			continue;
		entry(out, p, ids[i], opts, buf);
	}
	free(buf);
	free(ids);
	report_unnamed_note(out, p);
}
