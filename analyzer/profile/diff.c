/*
 * diff: the comparison of two sets of runs (see diff.h): rows matched by
 * function label, each side's mean and variance, the test, and the gate.
 * The writers are in diff_write.c.
 */
#include "diff.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "xmalloc.h"

#define WHOLE_LABEL "(all functions)"

void
diff_parse_normalize(struct diff_opts *o, const char *arg)
{
	if (strcmp(arg, "none") == 0) {
		o->normalize = DIFF_NORM_NONE;
	} else if (strcmp(arg, "total") == 0) {
		o->normalize = DIFF_NORM_TOTAL;
	} else {
		o->normalize = DIFF_NORM_FUNC;
		o->norm_func = arg;
	}
}

int
diff_parse_format(const char *arg, enum diff_format *out)
{
	static const char *const names[] = { "text", "json", "markdown",
					     "junit", "bmf", "gab", "folded",
					     "dot", "html" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(arg, names[i]) == 0) {
			*out = (enum diff_format)i;
			return 0;
		}
	return -1;
}

/* "-" for none, else a non-negative number. Returns 0 or -1. */
static int
rule_limit(const char *s, double *v)
{
	char *end;
	if (strcmp(s, "-") == 0) {
		*v = NAN;
		return 0;
	}
	errno = 0;
	*v = strtod(s, &end);
	return errno || end == s || *end || !isfinite(*v) || *v < 0 ? -1 : 0;
}

/* One line of a rule file into o; -1 when malformed. */
static int
rule_line(struct diff_opts *o, char *line, size_t *cap)
{
	char *hash = strchr(line, '#');
	if (hash)
		*hash = '\0';
	char *save = NULL;
	char *pat = strtok_r(line, " \t\r\n", &save);
	if (!pat)
		return 0;
	char *pct = strtok_r(NULL, " \t\r\n", &save);
	char *abs = strtok_r(NULL, " \t\r\n", &save);
	struct diff_rule r = { .abs = NAN };
	if (!pct || strtok_r(NULL, " \t\r\n", &save) ||
	    rule_limit(pct, &r.pct) < 0 || (abs && rule_limit(abs, &r.abs) < 0))
		return -1;
	r.pattern = xstrdup(pat);
	xgrow(&o->rules, cap, o->nrules + 1, sizeof(*o->rules));
	o->rules[o->nrules++] = r;
	return 0;
}

int
diff_rules_read(struct diff_opts *o, const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		diag_error("%s: %s", path, strerror(errno));
		return -1;
	}
	char *line = NULL;
	size_t len = 0, cap = o->nrules, lineno = 0;
	int ret = 0;
	while (getline(&line, &len, f) >= 0) {
		lineno++;
		if (rule_line(o, line, &cap) < 0) {
			diag_error("%s:%zu: not PATTERN PCT [ABS] (a number or "
				   "'-' each)", path, lineno);
			ret = -1;
			break;
		}
	}
	free(line);
	fclose(f);
	return ret;
}

void
diff_opts_free(struct diff_opts *o)
{
	for (size_t i = 0; i < o->nrules; i++)
		free(o->rules[i].pattern);
	free(o->rules);
	o->rules = NULL;
	o->nrules = 0;
}

/* ---- statistics ---- */

/* Continued fraction of the incomplete beta function (modified Lentz),
 * as in Numerical Recipes' betacf. */
static double
betacf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1);
	d = fabs(d) < tiny ? tiny : d;
	d = 1 / d;
	double h = d;
	for (int m = 1; m <= 300; m++) {
		double m2 = 2.0 * m;
		double aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		for (int k = 0; k < 2; k++) {
			d = 1 + aa * d;
			d = fabs(d) < tiny ? tiny : d;
			c = 1 + aa / c;
			c = fabs(c) < tiny ? tiny : c;
			d = 1 / d;
			h *= d * c;
			aa = -(a + m) * (a + b + m) * x /
			     ((a + m2) * (a + m2 + 1));
		}
		if (fabs(d * c - 1) < 1e-15)
			break;
	}
	return h;
}

/* The regularized incomplete beta function I_x(a, b). */
static double
incbeta(double a, double b, double x)
{
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
		     b * log1p(-x);
	if (x < (a + 1) / (a + b + 2))
		return exp(lbt) * betacf(a, b, x) / a;
	return 1 - exp(lbt) * betacf(b, a, 1 - x) / b;
}

double
diff_t_pvalue(double t, double df)
{
	if (isnan(t))
		return 1;
	if (isinf(df) || df > 1e7)
		return erfc(fabs(t) / sqrt(2.0));
	return incbeta(df / 2, 0.5, df / (df + t * t));
}

double
diff_t_quantile(double p, double df)
{
	double lo = 0, hi = 1;
	while (diff_t_pvalue(hi, df) > p && hi < 1e12)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		double mid = (lo + hi) / 2;
		if (diff_t_pvalue(mid, df) > p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* ---- one run's figures ---- */

/* A run's functions by label, for lookups. */
struct run_index {
	const struct profile *p;
	uint32_t *ids; /* sorted by label */
	size_t n;
};

static int
cmp_label_id(const void *a, const void *b, void *arg)
{
	const struct profile *p = arg;
	return strcmp(p->funcs[*(const uint32_t *)a].label,
		      p->funcs[*(const uint32_t *)b].label);
}

static void
index_run(struct run_index *r, const struct profile *p)
{
	r->p = p;
	r->ids = xcalloc(p->nfuncs ? p->nfuncs : 1, sizeof(*r->ids));
	r->n = 0;
	for (size_t i = 0; i < p->nfuncs; i++)
		if (!(p->funcs[i].flags &
		      (PROFILE_FUNC_PSEUDO | PROFILE_FUNC_HIDDEN)))
			r->ids[r->n++] = (uint32_t)i;
	qsort_r(r->ids, r->n, sizeof(*r->ids), cmp_label_id, (void *)p);
}

/* The function labelled label in the run, or NULL. */
static const struct profile_func *
run_func(const struct run_index *r, const char *label)
{
	size_t lo = 0, hi = r->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct profile_func *f = &r->p->funcs[r->ids[mid]];
		int c = strcmp(label, f->label);
		if (c == 0)
			return f;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* The unit figures are shown in: seconds for time, bytes for space. */
static double
unit_of(const struct profile *p)
{
	return p->hdr.kind == PROFILE_KIND_TIME ? 1e9 : 1.0;
}

/* The run's figure x and its sampling variance v for a part of weight w
 * and variance contributions wv, normalized as asked. The denominator of
 * DIFF_NORM_FUNC is the harness function's total (h, hv). */
static void
normalized(const struct diff_opts *o, const struct profile *p, double w,
	   double wv, double h, double hv, double *x, double *v)
{
	double whole = (double)p->hdr.weight;
	switch (o->normalize) {
	case DIFF_NORM_NONE: {
		double u = unit_of(p);
		*x = w / u;
		*v = wv / (u * u);
		return;
	}
	case DIFF_NORM_TOTAL: {
		/* A part of the whole: the share's variance as the error
		 * bars have it (report_pct_err). */
		if (whole <= 0) {
			*x = *v = 0;
			return;
		}
		double s = w / whole;
		double rest = p->hdr.var > wv ? p->hdr.var - wv : 0;
		*x = s;
		*v = ((1 - s) * (1 - s) * wv + s * s * rest) / (whole * whole);
		return;
	}
	case DIFF_NORM_FUNC:
		/* Per call (o->per_call: h is the harness's exact calls in
		 * the figures' unit, hv 0), or a share of its total. The
		 * part need not be inside the harness: the delta
		 * method without the covariance, which only overstates
		 * the variance of a part that is inside it. */
		if (h <= 0) {
			*x = *v = 0;
			return;
		}
		*x = w / h;
		*v = (wv + *x * *x * hv) / (h * h);
		return;
	}
}

/* ---- rows ---- */

struct side {
	struct run_index *runs;
	size_t n;
	double *h, *hv; /* per run: the harness's total and variance */
	uint64_t *calls; /* per run: its exact calls, 0 when not counted */
};

/* One side's estimate of one metric of a row from per-run x[] and v[]. */
static struct diff_est
estimate(const double *x, const double *v, size_t n)
{
	struct diff_est e = { .df = INFINITY };
	double sv = 0;
	for (size_t i = 0; i < n; i++) {
		e.mean += x[i];
		sv += v[i];
	}
	e.mean /= (double)n;
	e.var = sv / ((double)n * (double)n);
	if (n < 2)
		return e;
	double ss = 0;
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - e.mean) * (x[i] - e.mean);
	double spread = ss / (double)(n - 1) / (double)n;
	if (spread > e.var) {
		e.var = spread;
		e.df = (double)(n - 1);
		e.spread = true;
	}
	return e;
}

/* What one run has of a row: weights and variances of self and total.
 * Returns false when the run has no such function (all zero). */
static bool
run_part(const struct run_index *r, const struct diff_row *row,
	 double w[2], double wv[2])
{
	const struct profile *p = r->p;
	w[0] = w[1] = wv[0] = wv[1] = 0;
	if (row->whole) {
		w[0] = w[1] = (double)p->hdr.weight;
		wv[0] = wv[1] = p->hdr.var;
		return true;
	}
	const struct profile_func *f = run_func(r, row->label);
	if (!f)
		return false;
	w[DIFF_METRIC_SELF] = (double)f->self;
	wv[DIFF_METRIC_SELF] = f->self_var;
	w[DIFF_METRIC_TOTAL] = (double)f->total;
	wv[DIFF_METRIC_TOTAL] = f->total_var;
	return true;
}

/* Exact call counts: row labels "calls: NAME" (one per counted function
 * of the malloc family some run has calls of). */
static double
run_calls(const struct run_index *r, uint32_t id)
{
	const struct profile_space *s = &r->p->hdr.space;
	return s->has_calls ? (double)s->calls[id] : 0;
}

static void
side_estimates(const struct diff_opts *o, const struct side *s,
	       struct diff_row *row, struct diff_est est[2], double *share,
	       int call_id)
{
	double *x = xcalloc(s->n, sizeof(*x)), *v = xcalloc(s->n, sizeof(*v));
	for (int m = 0; m < 2; m++) {
		double sum = 0, whole = 0;
		for (size_t i = 0; i < s->n; i++) {
			double w[2], wv[2];
			if (call_id >= 0) {
				x[i] = run_calls(&s->runs[i], (uint32_t)call_id);
				v[i] = 0;
				continue;
			}
			run_part(&s->runs[i], row, w, wv);
			normalized(o, s->runs[i].p, w[m], wv[m], s->h[i],
				   s->hv[i], &x[i], &v[i]);
			sum += w[m];
			whole += (double)s->runs[i].p->hdr.weight;
		}
		est[m] = estimate(x, v, s->n);
		if (whole > 0 && 100.0 * sum / whole > *share)
			*share = 100.0 * sum / whole;
	}
	free(x);
	free(v);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The labels of every function of every run, sorted, each once. */
static const char **
all_labels(const struct side *sides, size_t *n)
{
	size_t total = 0;
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < sides[k].n; i++)
			total += sides[k].runs[i].n;
	const char **l = xcalloc(total ? total : 1, sizeof(*l));
	size_t got = 0;
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < sides[k].n; i++) {
			const struct run_index *r = &sides[k].runs[i];
			for (size_t j = 0; j < r->n; j++)
				l[got++] = r->p->funcs[r->ids[j]].label;
		}
	qsort(l, got, sizeof(*l), cmp_str);
	size_t u = 0;
	for (size_t i = 0; i < got; i++)
		if (!u || strcmp(l[u - 1], l[i]) != 0)
			l[u++] = l[i];
	*n = u;
	return l;
}

/* Sets up each run's harness total for DIFF_NORM_FUNC. Returns -1 after
 * an error line when a run lacks the function. */
static int
side_harness(const struct diff_opts *o, struct side *s,
	     const char *const *names)
{
	s->h = xcalloc(s->n, sizeof(*s->h));
	s->hv = xcalloc(s->n, sizeof(*s->hv));
	s->calls = xcalloc(s->n, sizeof(*s->calls));
	if (o->normalize != DIFF_NORM_FUNC)
		return 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct profile_func *f = run_func(&s->runs[i],
							o->norm_func);
		if (!f || !f->total) {
			diag_error("%s: --normalize=%s: the function has no "
				   "samples in this run", names[i],
				   o->norm_func);
			return -1;
		}
		s->h[i] = (double)f->total;
		s->hv[i] = f->total_var;
		if (f->flags & PROFILE_FUNC_COUNTED)
			s->calls[i] = f->calls;
	}
	return 0;
}

/* With the harness's calls counted in every run of both sides, the
 * figures become per call of it: the denominator is its calls (in the
 * figures' unit), which have no variance. */
static void
harness_per_call(struct diff_opts *o, struct side *sides, double u)
{
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < sides[k].n; i++)
			if (!sides[k].calls[i])
				return;
	o->per_call = true;
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < sides[k].n; i++) {
			sides[k].h[i] = (double)sides[k].calls[i] * u;
			sides[k].hv[i] = 0;
		}
}

bool
diff_fractions(const struct diff_opts *o)
{
	return o->normalize == DIFF_NORM_TOTAL ||
	       (o->normalize == DIFF_NORM_FUNC && !o->per_call);
}

/* The rule of a row: the first matching rule, else the command line's
 * limits. */
static void
row_limits(const struct diff_opts *o, struct diff_row *r)
{
	r->limit_pct = o->fail_pct;
	r->limit_abs = o->fail_abs;
	for (size_t i = 0; i < o->nrules; i++)
		if (fnmatch(o->rules[i].pattern, r->label, 0) == 0) {
			r->limit_pct = o->rules[i].pct;
			r->limit_abs = o->rules[i].abs;
			break;
		}
	r->gated = !isnan(r->limit_pct) || !isnan(r->limit_abs);
}

/* The test of one row, at the per-row level alpha. */
static void
test_row(const struct diff_opts *o, struct diff_row *r, double alpha)
{
	const struct diff_est *b = &r->base[o->metric], *n = &r->new[o->metric];
	double v = b->var + n->var;
	r->change = n->mean - b->mean;
	r->rel = b->mean != 0 ? r->change / b->mean :
		 r->change != 0 ? INFINITY : 0;
	double den = (isinf(b->df) ? 0 : b->var * b->var / b->df) +
		     (isinf(n->df) ? 0 : n->var * n->var / n->df);
	r->df = den > 0 ? v * v / den : INFINITY;
	if (v <= 0) {
		r->p = r->change != 0 ? 0 : 1;
		r->half = 0;
	} else {
		r->p = diff_t_pvalue(r->change / sqrt(v), r->df);
		r->half = diff_t_quantile(0.05, r->df) * sqrt(v);
	}
	if (r->p < alpha)
		r->cls = r->change > 0 ? DIFF_REGRESSION : DIFF_IMPROVEMENT;
	row_limits(o, r);
	/* Both limits given: the growth must pass both (the absolute one
	 * keeps tiny functions' large relative changes out). */
	bool over_pct = isnan(r->limit_pct) || r->rel * 100 > r->limit_pct;
	bool over_abs = isnan(r->limit_abs) || r->change > r->limit_abs;
	r->failed = r->gated && r->cls == DIFF_REGRESSION && over_pct &&
		    over_abs;
}

/* The function rows are the first nfunc rows, sorted by label: the row
 * of a label, or NULL. */
static struct diff_row *
row_of(struct diff *d, size_t nfunc, const char *label)
{
	size_t lo = 0, hi = nfunc;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(label, d->rows[mid].label);
		if (c == 0)
			return &d->rows[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* The growth of the metric that regressions among func's callees (func
 * PROFILE_NONE: the functions called from the root) account for, in any
 * of the new runs; each callee counted once. */
static double
callees_growth(struct diff *d, size_t nfunc, const struct side *s,
	       const char *label, bool *seen)
{
	double sum = 0;
	memset(seen, 0, nfunc * sizeof(*seen));
	for (size_t i = 0; i < s->n; i++) {
		const struct profile *p = s->runs[i].p;
		const struct profile_func *f =
			label ? run_func(&s->runs[i], label) : NULL;
		if (label && !f)
			continue;
		uint32_t id = f ? (uint32_t)(f - p->funcs) : PROFILE_NONE;
		size_t n;
		const uint32_t *e = profile_callees(p, id, &n);
		for (size_t k = 0; k < n; k++) {
			uint32_t c = p->edges[e[k]].callee;
			if (c == PROFILE_NONE || c == id)
				continue;
			struct diff_row *r = row_of(d, nfunc,
						    p->funcs[c].label);
			if (!r || seen[r - d->rows] ||
			    r->cls != DIFF_REGRESSION)
				continue;
			seen[r - d->rows] = true;
			sum += r->change;
		}
	}
	return sum;
}

/* Marks the regressions of totals that their callees account for (see
 * diff.h), which then do not fail the gate. */
static void
mark_inherited(struct diff *d, size_t nfunc, const struct side *news)
{
	bool *seen = xcalloc(nfunc ? nfunc : 1, sizeof(*seen));
	for (size_t i = 0; i < d->nrows; i++) {
		struct diff_row *r = &d->rows[i];
		double sum = 0;
		if (r->cls != DIFF_REGRESSION || r->exact)
			continue;
		if (r->whole && d->opts.metric == DIFF_METRIC_SELF) {
			for (size_t k = 0; k < nfunc; k++)
				if (d->rows[k].cls == DIFF_REGRESSION)
					sum += d->rows[k].change;
		} else if (r->whole) {
			sum = callees_growth(d, nfunc, news, NULL, seen);
		} else if (d->opts.metric == DIFF_METRIC_TOTAL) {
			sum = callees_growth(d, nfunc, news, r->label, seen);
		}
		if (sum > 0 && r->change <= sum + r->half) {
			r->inherited = true;
			r->failed = false;
		}
	}
	free(seen);
}

static void
add_row(struct diff *d, size_t *cap, const struct diff_opts *o,
	const struct side *sides, struct diff_row r, int call_id)
{
	side_estimates(o, &sides[0], &r, r.base, &r.share, call_id);
	side_estimates(o, &sides[1], &r, r.new, &r.share, call_id);
	if (call_id >= 0 && r.base[0].mean == 0 && r.new[0].mean == 0)
		return;
	xgrow(&d->rows, cap, d->nrows + 1, sizeof(*d->rows));
	d->rows[d->nrows++] = r;
}

static const char *const call_labels[SPOOL_ALLOC_FN_MAX_] = {
	"calls: malloc", "calls: calloc", "calls: realloc",
	"calls: reallocarray", "calls: free", "calls: posix_memalign",
	"calls: aligned_alloc", "calls: memalign", "calls: valloc",
	"calls: pvalloc", "calls: free_sized", "calls: free_aligned_sized",
	"calls: mallocx", "calls: rallocx", "calls: xallocx",
	"calls: sdallocx", "calls: dallocx", "calls: malloc_usable_size",
	"calls: operator new", "calls: operator delete",
};

/* Returns the number of function rows, which come first. */
static size_t
build_rows(struct diff *d, const struct diff_opts *o, struct side *sides)
{
	size_t nl, cap = 0;
	const char **labels = all_labels(sides, &nl);
	for (size_t i = 0; i < nl; i++)
		add_row(d, &cap, o, sides,
			(struct diff_row){ .label = labels[i] }, -1);
	if (o->normalize != DIFF_NORM_TOTAL)
		add_row(d, &cap, o, sides, (struct diff_row){
				.label = WHOLE_LABEL, .whole = true }, -1);
	if (d->kind == PROFILE_KIND_SPACE && o->normalize == DIFF_NORM_NONE)
		for (int id = 0; id < SPOOL_ALLOC_FN_MAX_; id++)
			add_row(d, &cap, o, sides, (struct diff_row){
					.label = call_labels[id],
					.exact = true }, id);
	free(labels);
	return nl;
}

/* Indexes a side's runs and counts their samples. */
static void
index_side(struct side *s, struct profile *const *runs, uint64_t *samples)
{
	s->runs = xcalloc(s->n, sizeof(*s->runs));
	for (size_t i = 0; i < s->n; i++) {
		index_run(&s->runs[i], runs[i]);
		*samples += runs[i]->hdr.samples;
	}
}

int
diff_compute(struct diff *d, const struct diff_opts *o,
	     struct profile *const *base, const char *const *base_names,
	     size_t nbase, struct profile *const *new,
	     const char *const *new_names, size_t nnew)
{
	struct side sides[2] = { { .n = nbase }, { .n = nnew } };
	struct profile *const *ps[2] = { base, new };
	struct diff_opts oo = *o;
	int ret = -1;

	*d = (struct diff){
		.opts = *o, .kind = base[0]->hdr.kind,
		.view = base[0]->hdr.space.view,
		.base_runs = base, .new_runs = new,
		.base_names = base_names, .new_names = new_names,
		.nbase = nbase, .nnew = nnew,
	};
	for (int k = 0; k < 2; k++)
		index_side(&sides[k], ps[k],
			   k ? &d->new_samples : &d->base_samples);
	if (side_harness(o, &sides[0], base_names) < 0 ||
	    side_harness(o, &sides[1], new_names) < 0)
		goto out_free;
	/* Per call only over the whole run: the counts are its totals. */
	if (o->normalize == DIFF_NORM_FUNC && !base[0]->hdr.window)
		harness_per_call(&oo, sides, unit_of(base[0]));
	d->opts.per_call = oo.per_call;
	o = &oo;
	size_t nfunc = d->nfunc = build_rows(d, o, sides);
	double alpha = DIFF_ALPHA / (double)(d->nrows ? d->nrows : 1);
	for (size_t i = 0; i < d->nrows; i++)
		test_row(o, &d->rows[i], alpha);
	mark_inherited(d, nfunc, &sides[1]);
	for (size_t i = 0; i < d->nrows; i++) {
		struct diff_row *r = &d->rows[i];
		d->nfailed += r->failed;
		d->nregress += r->cls == DIFF_REGRESSION;
		d->nimprove += r->cls == DIFF_IMPROVEMENT;
	}
	ret = 0;
out_free:
	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; i < sides[k].n; i++)
			free(sides[k].runs[i].ids);
		free(sides[k].runs);
		free(sides[k].h);
		free(sides[k].hv);
		free(sides[k].calls);
	}
	if (ret < 0)
		diff_free(d);
	return ret;
}

void
diff_free(struct diff *d)
{
	free(d->rows);
	d->rows = NULL;
	d->nrows = 0;
}

int
diff_status(const struct diff *d)
{
	return d->nfailed ? DIFF_EXIT_FAIL : 0;
}
