/*
 * diff_html: the comparison as the HTML report's page (profanalyze --diff
 * --format=html): a differential flame graph and the tables of the diff.
 *
 * The page is export_html's (analyzer/html/), with other data: the
 * calling-context trees of all runs of both sides merged into one,
 * frames matched by function label from the root down as the rows of
 * the diff are, each node with each side's self and total weight, mean
 * per run (seconds as nanoseconds, or bytes; shares of the run or of the
 * normalizing function's total when --normalize says so), and the
 * comparison itself as --format=json writes it ("diff"). The page draws
 * NEW's tree (widths by new total) coloured by each frame's change,
 * as FlameGraph's differential flame graphs and pprof's -diff_base do.
 */
#include "diff.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "hmap.h"
#include "xmalloc.h"

static void __attribute__((noreturn))
out_of_memory(void)
{
	fputs("profanalyze: out of memory\n", stderr);
	abort();
}

struct dnode {
	uint32_t parent, func;
	double self[2], total[2]; /* base, new */
};

struct dtree {
	const char **labels; /* borrowed from the runs */
	uint32_t *flags;     /* 2: a marker, not code */
	size_t nfuncs, funcs_cap;
	struct hmap funcs;   /* hash of the label, probed -> func */
	struct dnode *nodes;
	size_t nnodes, nodes_cap;
	struct hmap kids;    /* parent << 32 | func -> node */
};

static uint32_t
dtree_func(struct dtree *t, const struct profile_func *f)
{
	uint64_t h = hmap_hash_str(HMAP_HASH_INIT, f->label);
	uint64_t v;

	for (; hmap_get(&t->funcs, h, &v); h++)
		if (strcmp(t->labels[v], f->label) == 0)
			return (uint32_t)v;
	xgrow(&t->labels, &t->funcs_cap, t->nfuncs + 1, sizeof(*t->labels));
	t->flags = xreallocarray(t->flags, t->funcs_cap, sizeof(*t->flags));
	t->labels[t->nfuncs] = f->label;
	t->flags[t->nfuncs] = (f->flags & (PROFILE_FUNC_PSEUDO |
					   PROFILE_FUNC_ELLIPSIS)) ? 2 : 0;
	hmap_put(&t->funcs, h, t->nfuncs);
	return (uint32_t)t->nfuncs++;
}

static uint32_t
dtree_node(struct dtree *t, uint32_t parent, uint32_t func)
{
	bool found;
	uint64_t *v = hmap_ref(&t->kids, (uint64_t)parent << 32 | func,
			       &found);

	if (found)
		return (uint32_t)*v;
	xgrow(&t->nodes, &t->nodes_cap, t->nnodes + 1, sizeof(*t->nodes));
	t->nodes[t->nnodes] = (struct dnode){ .parent = parent, .func = func };
	*v = t->nnodes;
	return (uint32_t)t->nnodes++;
}

/* What a run's weights are divided by (see diff.h's normalization). */
static double
run_scale(const struct diff *d, const struct profile *p)
{
	if (d->opts.normalize == DIFF_NORM_TOTAL)
		return p->hdr.weight ? 1.0 / (double)p->hdr.weight : 0;
	if (d->opts.normalize != DIFF_NORM_FUNC)
		return 1.0;
	for (size_t f = 0; f < p->nfuncs; f++)
		if (strcmp(p->funcs[f].label, d->opts.norm_func) == 0 ||
		    strcmp(p->funcs[f].name, d->opts.norm_func) == 0)
			return p->funcs[f].total ?
				       1.0 / (double)p->funcs[f].total : 0;
	return 0;
}

/* Adds the runs of one side, each node's self weight into the node of
 * the merged tree with the same path of labels. */
static void
add_side(struct dtree *t, const struct diff *d, struct profile *const *runs,
	 size_t nruns, int side)
{
	for (size_t r = 0; r < nruns; r++) {
		const struct profile *p = runs[r];
		double scale = run_scale(d, p) / (double)nruns;
		uint32_t *map = xcalloc(p->nnodes ? p->nnodes : 1,
					sizeof(*map));
		/* (A parent's index is below its children's.) */
		for (size_t x = 1; x < p->nnodes; x++) {
			const struct profile_node *n = &p->nodes[x];
			uint32_t f = dtree_func(t, &p->funcs[n->func]);
			map[x] = dtree_node(t, map[n->parent], f);
			t->nodes[map[x]].self[side] += (double)n->self * scale;
		}
		t->nodes[0].self[side] += (double)p->nodes[0].self * scale;
		free(map);
	}
}

/* One array of the nodes: which 0 parents, 1 functions, 2 self, 3
 * total (of side 0 base, 1 new). */
static void
put_array(FILE *out, const char *key, const struct dtree *t, int which,
	  int side)
{
	fprintf(out, "%s\"%s\":[", which ? "," : "", key);
	for (size_t i = 0; i < t->nnodes; i++) {
		const struct dnode *n = &t->nodes[i];
		if (i)
			putc(',', out);
		if (which == 0)
			fprintf(out, "%d", i ? (int)n->parent : -1);
		else if (which == 1)
			fprintf(out, "%d", i ? (int)n->func : -1);
		else
			fprintf(out, "%.9g", which == 2 ? n->self[side] :
							  n->total[side]);
	}
	putc(']', out);
}

/* The comparison as --format=json writes it, '<' escaped (it is only
 * ever inside strings there). */
static void
put_diff_json(FILE *out, const struct diff *d)
{
	struct diff j = *d;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);

	if (!mem)
		out_of_memory();
	j.opts.format = DIFF_FORMAT_JSON;
	diff_write(mem, &j);
	if (fclose(mem) != 0)
		out_of_memory();
	for (size_t i = 0; i < len; i++) {
		if (buf[i] == '<')
			fputs("\\u003c", out);
		else if (buf[i] != '\n')
			putc(buf[i], out);
	}
	free(buf);
}

/* Both sides' runs in one tree, totals added up from the leaves. */
static void
build_tree(struct dtree *t, const struct diff *d)
{
	memset(t, 0, sizeof(*t));
	dtree_node(t, UINT32_MAX, UINT32_MAX); /* the root */
	add_side(t, d, d->base_runs, d->nbase, 0);
	add_side(t, d, d->new_runs, d->nnew, 1);
	for (size_t i = 0; i < t->nnodes; i++)
		for (int s = 0; s < 2; s++)
			t->nodes[i].total[s] = t->nodes[i].self[s];
	for (size_t i = t->nnodes; i-- > 1;)
		for (int s = 0; s < 2; s++)
			t->nodes[t->nodes[i].parent].total[s] +=
				t->nodes[i].total[s];
}

static void
dtree_free(struct dtree *t)
{
	free(t->labels);
	free(t->flags);
	free(t->nodes);
	hmap_free(&t->funcs);
	hmap_free(&t->kids);
}

/* The page's data: the shape export_html.c gives a profile's (no
 * timeline, one tree), with base_self, base_total and "diff". */
static void
write_data(FILE *out, const void *arg)
{
	const struct diff *d = arg;
	struct dtree t;

	build_tree(&t, d);
	fputs("{\"kind\":", out);
	export_html_str(out, d->kind == PROFILE_KIND_SPACE ? "space" : "time");
	fputs(",\"title\":", out);
	export_html_str(out, d->nnew ? d->new_names[0] : "");
	fprintf(out, ",\"unit\":\"%s\",\"samples\":%" PRIu64
		",\"weight\":%.9g,\"threshold\":%g,\"spools\":1,"
		"\"complete\":true,\"modules\":[],\"funcs\":[",
		d->opts.normalize == DIFF_NORM_NONE ?
			(d->kind == PROFILE_KIND_SPACE ? "bytes" : "ns") :
			"fraction",
		d->new_samples, t.nodes[0].total[1], d->opts.threshold_pct);
	for (size_t f = 0; f < t.nfuncs; f++) {
		fputs(f ? ",[" : "[", out);
		export_html_str(out, t.labels[f]);
		fprintf(out, ",-1,%u]", t.flags[f]);
	}
	fputs("],\"nodes\":{", out);
	put_array(out, "parent", &t, 0, 1);
	put_array(out, "func", &t, 1, 1);
	put_array(out, "self", &t, 2, 1);
	put_array(out, "total", &t, 3, 1);
	put_array(out, "base_self", &t, 2, 0);
	put_array(out, "base_total", &t, 3, 0);
	fputs("},\"views\":[],\"tracks\":[],\"processes\":[],\"heap\":null,"
	      "\"timeline\":null,\"diff\":", out);
	put_diff_json(out, d);
	putc('}', out);
	dtree_free(&t);
}

void
diff_write_html(FILE *out, const struct diff *d)
{
	export_html_page(out, write_data, d);
}
