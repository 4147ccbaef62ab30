/*
 * report_outline: the outline profile (see report_outline.h).
 *
 * The lines are laid out once, in preorder, from the profile's tree:
 * siblings by total descending (then label), those below the threshold
 * dropped with their subtrees. A node that absorbed hidden callees with
 * nothing displayable below them gets a child line "..." for that time.
 * Each line records its depth, its own glyph and whether siblings follow
 * it; the column of an ancestor shows '|' exactly when that ancestor has
 * siblings after it. A subtree (--root) is then a contiguous run of
 * lines, printed with depths relative to its first line.
 *
 * The walk stops at the maximum depth: the callees of a line there are
 * one "[cut: N more levels]" line with their time. A recursion 100,000
 * calls deep would otherwise make 100,000 lines of up to as many columns
 * of indentation (5 GB); the walk, the subtree measure and the writing
 * are all iterative for the same reason.
 */
#include "report_outline.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "xmalloc.h"

#define NO_NODE PROFILE_NONE /* line.node of a "..." line */
#define CUT_NODE (PROFILE_NONE - 1) /* line.node of a "[cut]" line */

struct line {
	uint32_t node;   /* tree node, NO_NODE for "...", CUT_NODE */
	uint32_t depth;  /* 0 for the outermost frames */
	uint64_t weight;
	double var;      /* its samples' variance contributions */
	uint32_t levels; /* of a cut line: the levels it stands for */
	char glyph;      /* ' ', '/', '+' or '\\' */
	bool more;       /* siblings follow: '|' in this column below */
};

struct report_outline {
	const struct profile *p;
	struct report_outline_opts opts;
	struct line *lines;
	size_t nlines, cap;
	size_t ncut; /* cut lines */
};

/* A child of the node being laid out, before it becomes a line. */
struct kid {
	uint32_t node;
	uint64_t weight;
	uint32_t levels; /* CUT_NODE only */
	double var;      /* as in struct line */
};

static const char *
kid_label(const struct profile *p, const struct kid *k)
{
	if (k->node == NO_NODE)
		return "...";
	return p->funcs[p->nodes[k->node].func].label;
}

static int
cmp_kids(const void *pa, const void *pb, void *arg)
{
	const struct profile *p = arg;
	const struct kid *a = pa, *b = pb;
	if (a->weight != b->weight)
		return a->weight > b->weight ? -1 : 1;
	int c = strcmp(kid_label(p, a), kid_label(p, b));
	if (c)
		return c;
	return a->node < b->node ? -1 : a->node > b->node;
}

static bool
shown(const struct report_outline *o, uint64_t weight)
{
	return report_pct(weight, o->p->hdr.weight) + 1e-9 >=
	       o->opts.threshold_pct && weight > 0;
}

/* The displayed children of node x, sorted, into *kids (grown as
 * needed). The root's elided time is its "..." node, not a line. */
static size_t
kids_of(const struct report_outline *o, uint32_t x, struct kid **kids,
	size_t *cap)
{
	const struct profile *p = o->p;
	const struct profile_node *n = &p->nodes[x];
	size_t k = 0;

	for (uint32_t c = n->first_child; c != PROFILE_NONE;
	     c = p->nodes[c].next_sibling) {
		if (!shown(o, p->nodes[c].total))
			continue;
		xgrow(kids, cap, k + 1, sizeof(**kids));
		(*kids)[k++] = (struct kid){ c, p->nodes[c].total, 0,
					     p->nodes[c].total_var };
	}
	if (x != PROFILE_ROOT && shown(o, n->elided)) {
		xgrow(kids, cap, k + 1, sizeof(**kids));
		(*kids)[k++] = (struct kid){ NO_NODE, n->elided, 0,
					     n->elided_var };
	}
	if (k > 1) /* (*kids is still NULL when no kid was ever shown) */
		qsort_r(*kids, k, sizeof(**kids), cmp_kids, (void *)p);
	return k;
}

/* A pending line of the preorder walk. */
struct todo {
	struct kid kid;
	uint32_t depth;
	char glyph;
	bool more;
};

static char
glyph_of(size_t i, size_t n)
{
	if (n == 1)
		return ' ';
	return i == 0 ? '/' : i + 1 == n ? '\\' : '+';
}

/* Pushes the kids in reverse, so the first is laid out next. */
static void
push_kids(struct todo **st, size_t *depth, size_t *cap, const struct kid *k,
	  size_t n, uint32_t level)
{
	for (size_t i = n; i-- > 0;) {
		xgrow(st, cap, *depth + 1, sizeof(**st));
		(*st)[(*depth)++] = (struct todo){
			k[i], level, glyph_of(i, n), n > 1 && i + 1 < n,
		};
	}
}

/* How many levels of lines lie below node x (its callees are the first),
 * by the rules of kids_of(): a walk with a stack of its own, since the
 * subtree may be a recursion as deep as the stack could be. */
static uint32_t
levels_below(const struct report_outline *o, uint32_t x)
{
	const struct profile *p = o->p;
	struct kid *st = NULL; /* (node, depth in weight) */
	size_t n = 0, cap = 0;
	uint32_t levels = 0;

	xgrow(&st, &cap, 1, sizeof(*st));
	st[n++] = (struct kid){ x, 0, 0, 0.0 };
	while (n) {
		struct kid k = st[--n];
		const struct profile_node *nd = &p->nodes[k.node];
		if (shown(o, nd->elided) && k.weight + 1 > levels)
			levels = (uint32_t)k.weight + 1;
		for (uint32_t c = nd->first_child; c != PROFILE_NONE;
		     c = p->nodes[c].next_sibling) {
			if (!shown(o, p->nodes[c].total))
				continue;
			if (k.weight + 1 > levels)
				levels = (uint32_t)k.weight + 1;
			xgrow(&st, &cap, n + 1, sizeof(*st));
			st[n++] = (struct kid){ c, k.weight + 1, 0, 0.0 };
		}
	}
	free(st);
	return levels;
}

/* The kids of node x, a line at the maximum depth, as one cut line. */
static struct kid
cut_kid(struct report_outline *o, uint32_t x, const struct kid *kids,
	size_t n)
{
	struct kid cut = { CUT_NODE, 0, levels_below(o, x), 0.0 };
	for (size_t i = 0; i < n; i++) {
		cut.weight += kids[i].weight;
		cut.var += kids[i].var;
	}
	o->ncut++;
	return cut;
}

static void
lay_out(struct report_outline *o)
{
	struct todo *st = NULL;
	struct kid *kids = NULL;
	size_t nst = 0, st_cap = 0, kids_cap = 0;

	size_t n = kids_of(o, PROFILE_ROOT, &kids, &kids_cap);
	push_kids(&st, &nst, &st_cap, kids, n, 0);
	while (nst) {
		struct todo t = st[--nst];
		xgrow(&o->lines, &o->cap, o->nlines + 1, sizeof(*o->lines));
		o->lines[o->nlines++] = (struct line){
			t.kid.node, t.depth, t.kid.weight, t.kid.var,
			t.kid.levels, t.glyph, t.more,
		};
		if (t.kid.node == NO_NODE || t.kid.node == CUT_NODE)
			continue;
		n = kids_of(o, t.kid.node, &kids, &kids_cap);
		if (n && (size_t)t.depth + 1 >= o->opts.max_depth) {
			kids[0] = cut_kid(o, t.kid.node, kids, n);
			n = 1;
		}
		push_kids(&st, &nst, &st_cap, kids, n, t.depth + 1);
	}
	free(st);
	free(kids);
}

struct report_outline *
report_outline_new(const struct profile *p,
		   const struct report_outline_opts *opts)
{
	struct report_outline *o = xcalloc(1, sizeof(*o));
	o->p = p;
	o->opts = *opts;
	if (p->hdr.samples)
		lay_out(o);
	return o;
}

void
report_outline_free(struct report_outline *o)
{
	if (!o)
		return;
	free(o->lines);
	free(o);
}

size_t
report_outline_lines(const struct report_outline *o)
{
	return o->nlines;
}

uint32_t
report_outline_node(const struct report_outline *o, size_t i)
{
	if (i >= o->nlines || o->lines[i].node == NO_NODE ||
	    o->lines[i].node == CUT_NODE)
		return PROFILE_NONE;
	return o->lines[i].node;
}

/* The indentation of line l, depth levels below the printed root, into
 * buf (depth + 1 bytes): one column per level, the ancestors' '|' or ' '
 * and the line's own glyph last. A line deeper than the max indentation
 * N keeps the first N - 1 columns and puts its own glyph in column N,
 * leaving out the levels between: column c < N then stands for level c
 * on every line, so a run of siblings' '|' stays under its '/' (keeping
 * the innermost columns instead would shift them by the depth). */
static const char *
indent(const struct report_outline *o, const struct line *l, uint32_t depth,
       const bool *more, char *buf)
{
	uint32_t width = depth;
	if (width > o->opts.max_indent)
		width = (uint32_t)o->opts.max_indent;
	for (uint32_t c = 1; c < width; c++)
		buf[c - 1] = more[c] ? '|' : ' ';
	if (width)
		buf[width - 1] = l->glyph;
	buf[width] = '\0';
	return buf;
}

static void
put_line(FILE *out, const struct report_outline *o, const struct line *l,
	 const char *ind, size_t number)
{
	const struct profile *p = o->p;
	double pct = report_pct(l->weight, p->hdr.weight);
	char err[24] = ""; /* --error-bars: the 95 % half-width */
	if (report_error_bars)
		snprintf(err, sizeof(err), "\u00b1%.2f",
			 report_pct_err(p, l->weight, l->var));
	if (l->node == NO_NODE) {
		fprintf(out, "%s%.2f%s ... %zu\n", ind, pct, err, number);
		return;
	}
	if (l->node == CUT_NODE) {
		fprintf(out, "%s%.2f%s [cut: %u more level%s] %zu\n", ind, pct,
			err, l->levels, l->levels == 1 ? "" : "s", number);
		return;
	}
	const struct profile_node *n = &p->nodes[l->node];
	fprintf(out, "%s%.2f%s %s%s %zu\n", ind, pct, err,
		n->flags & PROFILE_NODE_ELIDED ? "... " : "",
		p->funcs[n->func].text, number);
}

/* Prints lines [first, end) with depths relative to base. */
static void
put_lines(FILE *out, const struct report_outline *o, size_t first,
	  size_t end, uint32_t base)
{
	uint32_t maxd = 0;
	for (size_t i = first; i < end; i++)
		if (o->lines[i].depth - base > maxd)
			maxd = o->lines[i].depth - base;
	bool *more = xcalloc(maxd + 1, sizeof(*more));
	char *buf = xmalloc(maxd + 1);
	for (size_t i = first; i < end; i++) {
		const struct line *l = &o->lines[i];
		uint32_t d = l->depth - base;
		more[d] = l->more;
		put_line(out, o, l, indent(o, l, d, more, buf), i - first);
	}
	free(more);
	free(buf);
}

void
report_outline_write(FILE *out, const struct report_outline *o)
{
	char pct[32];
	size_t first = 0, end = o->nlines;

	report_header(out, o->p);
	if (o->p->hdr.samples == 0)
		return;
	fprintf(out, "Paths below %s%% will be suppressed.\n",
		report_fmt_pct(pct, sizeof(pct), o->opts.threshold_pct, 6));
	if (o->ncut)
		fprintf(out, "Paths deeper than %zu calls are cut: %zu "
			"[cut] line%s (--max-depth).\n", o->opts.max_depth,
			o->ncut, o->ncut == 1 ? "" : "s");
	fputc('\n', out);
	if (o->opts.root != REPORT_OUTLINE_ALL) {
		first = o->opts.root;
		uint32_t d = o->lines[first].depth;
		for (end = first + 1; end < o->nlines; end++)
			if (o->lines[end].depth <= d)
				break;
	}
	if (first < end)
		put_lines(out, o, first, end, o->lines[first].depth);
	report_unnamed_note(out, o->p);
}
