/*
 * bench-graph: times the analyzer's phases on one spool, to show that the
 * call graph and the outline cost time linear in the samples (see
 * BENCHMARKS.md). Not a test. Usage: bench-graph SPOOL
 *
 * Prints one line of CPU seconds (this process, CLOCK_PROCESS_CPUTIME_ID,
 * so other load on the machine matters less than for wall time):
 *   load     spool -> finished profile (decode, resolve, tree, call graph)
 *   derive   the same profile rebuilt by profile_collapse() with one
 *            function hidden (copy of the tree and samples, totals, call
 *            graph): what a --hide costs
 *   graph    the Allegro call graph written to /dev/null, default
 *            thresholds, then (graph0) without thresholds: every entry
 *   racket   the Racket call graph written to /dev/null
 *   outline  the outline laid out and written to /dev/null, default
 *            threshold, then (outline0) without: every path
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "loader.h"
#include "profile.h"
#include "report_graph.h"
#include "report_outline.h"
#include "report_racket.h"

static double
cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The profile with its lightest function hidden, so that the collapse
 * really rebuilds the tree. */
static struct profile *
derive(const struct profile *p)
{
	bool *mask = calloc(p->nfuncs ? p->nfuncs : 1, sizeof(*mask));
	size_t n;
	uint32_t *ids = profile_funcs_by_self(p, &n);
	if (n)
		mask[ids[n - 1]] = true;
	struct profile *d = profile_collapse(p, mask);
	free(ids);
	free(mask);
	return d;
}

static void
graph(FILE *out, const struct profile *p, double threshold)
{
	struct report_graph_opts o = { FUNCORDER_TOPOLOGICAL, threshold,
				       2.0 * threshold };
	report_graph_write(out, p, &o);
}

static void
racket(FILE *out, const struct profile *p, double threshold)
{
	struct report_racket_opts o = { FUNCORDER_TOPOLOGICAL, threshold,
					2.0 * threshold };
	report_racket_write(out, p, &o);
}

static void
outline(FILE *out, const struct profile *p, double threshold)
{
	struct report_outline_opts oo = { threshold, REPORT_OUTLINE_ALL,
					  REPORT_OUTLINE_ALL,
					  REPORT_OUTLINE_MAX_DEPTH };
	struct report_outline *o = report_outline_new(p, &oo);
	report_outline_write(out, o);
	report_outline_free(o);
}

static const struct {
	const char *name;
	void (*fn)(FILE *, const struct profile *, double);
	double threshold;
} steps[] = {
	{ "graph", graph, 1.0 },
	{ "graph0", graph, 0.0 },
	{ "racket", racket, 1.0 },
	{ "outline", outline, 1.0 },
	{ "outline0", outline, 0.0 },
};

int
main(int argc, char **argv)
{
	struct loader_opts lo = { 0 };

	if (argc != 2) {
		fprintf(stderr, "usage: bench-graph SPOOL\n");
		return 2;
	}
	FILE *null = fopen("/dev/null", "w");
	double t0 = cpu_now();
	struct profile *p = loader_read(argv[1], &lo);
	if (!p || !null)
		return 1;
	double t1 = cpu_now();
	struct profile *d = derive(p);
	double t2 = cpu_now();
	printf("samples %zu nodes %zu edges %zu: load %.2f derive %.2f",
	       p->nsamples, p->nnodes, p->nedges, t1 - t0, t2 - t1);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		double a = cpu_now();
		steps[i].fn(null, p, steps[i].threshold);
		printf(" %s %.3f", steps[i].name, cpu_now() - a);
	}
	printf(" s\n");
	profile_free(d);
	profile_free(p);
	fclose(null);
	return 0;
}
